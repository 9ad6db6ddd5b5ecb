"""Bad extractor options and bad input are an ExtractionError, never another
exception or a silently empty text; a bad option fails a crawl at start-up."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from webclean_scrapy import ExtractionError, Extractor, available_extractors, extract, get_extractor
from webclean_scrapy.engine.options import boolean, extractor_name, integer, number, one_of
from webclean_scrapy.settings import WebcleanSettings

NAN = float("nan")
INF = float("inf")
PROSE = " ".join(["A sentence of the article, with commas, words and more."] * 8)
PAGE = f"<html><body><article><h1>Title</h1><p>{PROSE} </p></article><footer>Footer</footer></body></html>"

BAD = [
    ("punctuation", {"fallback": None}),
    ("punctuation", {"fallback": 3}),
    ("webclean", {"threshold": "x"}),
    ("webclean", {"threshold": NAN}),
    ("webclean", {"threshold": INF}),
    ("webclean", {"threshold": -0.5}),
    ("webclean", {"threshold": True}),
    ("webclean", {"deduplicate": "x"}),
    ("webclean", {"deduplicate": -2}),
    ("webclean", {"deduplicate": 2.5}),
    ("webclean", {"comments": "no"}),
    ("ttr", {"coefficient": NAN}),
    ("ttr", {"coefficient": "1"}),
    ("ttr", {"radius": NAN}),
    ("ttr", {"clusters": 5}),
    ("ttr", {"clustering": "prediction", "clusters": 1}),
    ("ttr", {"clustering": ["threshold"]}),
    ("density", {"c1": NAN}),
    ("density", {"c1": "0.3"}),
    ("density", {"c2": -1}),
    ("density", {"unit": None}),
]


@pytest.mark.parametrize("name,options", BAD, ids=[f"{n}-{o}" for n, o in BAD])
def test_bad_option_is_an_extraction_error(name, options):
    key = next(iter(options)) if len(options) == 1 else "clusters"
    with pytest.raises(ExtractionError, match=f"extractor '{name}': option {key} "):
        get_extractor(name, **options)
    with pytest.raises(ExtractionError):  # the one-call API too, before any parsing
        extract(PAGE, extractor=name, **options)


@pytest.mark.parametrize("value", [None, 3, 1.5, ["<p>x</p>"], object()])
def test_page_that_is_not_bytes_or_str(value):
    with pytest.raises(ExtractionError, match="bytes or str"):
        extract(value)


def test_extractor_that_is_not_a_name():
    with pytest.raises(ExtractionError):
        extract(PAGE, extractor=None)


def test_good_options_still_work():
    # Each option takes effect: threshold 0 keeps the footer, density's c1/c2 keep the prose only.
    assert (
        extract(PAGE, extractor="webclean", threshold=0, deduplicate=-1, comments=1).text == f"Title\n{PROSE}\nFooter"
    )
    assert (
        extract(PAGE, extractor="ttr", coefficient=0, clustering="kmeans", clusters=2).text == f"Title {PROSE} Footer"
    )
    assert extract(PAGE, extractor="density", c1=1, c2=0).text == PROSE
    assert extract(PAGE, extractor="punctuation", fallback="baseline").text == f"Title\n{PROSE}\nFooter"
    for name in available_extractors():  # every published default passes its own rules
        assert get_extractor(name).options == type(get_extractor(name)).defaults


def test_rules_are_shared_helpers():
    """Every built-in extractor with options declares rules for all of them."""
    for name in available_extractors():
        cls = type(get_extractor(name))
        assert set(cls.rules) == set(cls.defaults), name


def test_rule_factories():
    assert number(0, 1)(1) == 1 and number(optional=True)(None) is None
    assert integer(-1)(-1) == -1 and boolean()(0) is False and one_of("a", "b")("b") == "b"
    assert extractor_name()(Extractor) is Extractor
    for rule, value in (
        (number(), NAN),
        (number(), "1"),
        (integer(), True),
        (integer(), 1.0),
        (boolean(), "true"),
        (one_of("a"), "b"),
        (extractor_name(), ""),
    ):
        with pytest.raises(ValueError):
            rule(value)


def test_settings_check_the_extractor_options():
    with pytest.raises(ValueError, match="WEBCLEAN_EXTRACTOR_OPTIONS.*option threshold must be a finite number"):
        WebcleanSettings(extractor_options={"threshold": "abc"})
    with pytest.raises(ValueError, match="WEBCLEAN_EXTRACTOR='nope'"):
        WebcleanSettings(extractor="nope")


def test_crawl_with_bad_option_fails_at_start(tmp_path, local_site):
    """``scrapy crawl`` with ``WEBCLEAN_EXTRACTOR_OPTIONS={"threshold":"abc"}`` stops
    before fetching anything, with a message naming the setting."""
    base = local_site({"/": (200, {"Content-Type": "text/html"}, PAGE)})
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "scrapy",
            "crawl",
            "news",
            "-a",
            f"start_urls={base}/",
            "-s",
            'WEBCLEAN_EXTRACTOR_OPTIONS={"threshold":"abc"}',
            "-s",
            "WEBCLEAN_ALLOW_PRIVATE_ADDRESSES=1",
            "-s",
            "TELNETCONSOLE_ENABLED=0",
            "-O",
            str(tmp_path / "out.jsonl"),
        ],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode != 0
    assert "WEBCLEAN_EXTRACTOR_OPTIONS={'threshold': 'abc'}: extractor 'webclean': option threshold" in proc.stderr, (
        proc.stderr[-3000:]
    )
    assert "Crawled (200)" not in proc.stderr
    out = tmp_path / "out.jsonl"
    assert not out.exists() or out.read_text() == ""
