"""Detected language and the language filter (one test runs it with the near-duplicate pipeline after it).

The pipelines run in-process (``make_crawler``, as in ``test_downloadermiddlewares_extraction``),
after the middleware.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

pytest.importorskip("py3langid")
pytest.importorskip("datasketch")

from scrapy.exceptions import DropItem, NotConfigured  # noqa: E402
from scrapy.utils.defer import ensure_awaitable  # noqa: E402
from scrapy.utils.misc import build_from_crawler  # noqa: E402
from scrapy.utils.test import get_crawler  # noqa: E402

from components import BASE, LANGUAGE_ROUTES, through_middleware  # noqa: E402
from pages import ARTICLE_P1, ARTICLE_P2, FRENCH, GERMAN, chrome_page  # noqa: E402
from webclean_scrapy import extract  # noqa: E402
from webclean_scrapy.cli import main  # noqa: E402
from webclean_scrapy.engine.text.language import detect_language  # noqa: E402
from webclean_scrapy.items import FIELD_ORDER, CleanedPage  # noqa: E402
from webclean_scrapy.pipelines import LanguageFilterPipeline, NearDuplicatePipeline  # noqa: E402
from webclean_scrapy.settings import WebcleanSettings  # noqa: E402


# -- detected language --------------------------------------------------------------------
def test_detect_language():
    assert detect_language(GERMAN)[0] == "de"
    assert detect_language(FRENCH)[0] == "fr"
    language, confidence = detect_language(" ".join((ARTICLE_P1, ARTICLE_P2)))
    assert language == "en" and 0.5 < confidence <= 1
    assert detect_language("") == (None, None) and detect_language(None) == (None, None)
    assert detect_language("12.03.2024 — 15:00") == (None, None)  # nothing to tell a language by
    # Only the first characters are read: a German text with an English tail is German.
    assert detect_language(GERMAN + " " + " ".join([ARTICLE_P1] * 20), sample_chars=300)[0] == "de"


def test_extraction_carries_declared_and_detected_language():
    # A template declaring English over a French article: the text says French.
    result = extract(chrome_page(FRENCH, lang="en"))
    assert result.language == "en" and result.detected_language == "fr"
    assert 0 < result.language_confidence <= 1
    assert result.as_dict()["detected_language"] == "fr"
    assert extract("<html><body></body></html>").detected_language is None


def test_without_the_lang_extra_the_fields_are_none(tmp_path):
    """py3langid not importable (the extra missing): None, no crash; the filter refuses to start."""
    script = f"""
import sys
sys.modules["py3langid"] = None  # what a missing package looks like to `import`
from webclean_scrapy import extract
from webclean_scrapy.engine.text.language import language_detection_available
result = extract({chrome_page(GERMAN, lang="de")!r})
assert result.detected_language is None and result.language_confidence is None, result
assert result.language == "de" and "Steinbrücke" in result.text
assert not language_detection_available()
from scrapy.utils.test import get_crawler
from webclean_scrapy.pipelines import LanguageFilterPipeline
try:
    LanguageFilterPipeline.from_crawler(get_crawler(settings_dict={{"WEBCLEAN_LANGUAGES": ["de"]}}))
except RuntimeError as exc:
    assert "[lang]" in str(exc)
else:
    raise AssertionError("the filter started without language detection")
print("ok")
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-3000:]


def test_cli_extract_writes_the_language_fields(tmp_path):
    (tmp_path / "a.html").write_text(chrome_page(GERMAN, lang=""), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert main(["extract", str(tmp_path / "a.html"), "-o", str(out)]) == 0
    record = json.loads(out.read_text(encoding="utf-8"))
    assert record["language"] is None and record["detected_language"] == "de"
    assert 0 < record["language_confidence"] <= 1


def test_item_field_order():
    position = FIELD_ORDER.index
    assert (
        position("language") < position("detected_language") < position("language_confidence") < position("page_type")
    )


# -- language filter ------------------------------------------------------------------------
def test_language_filter_unit():
    with pytest.raises(NotConfigured):
        LanguageFilterPipeline.from_crawler(get_crawler())
    with pytest.raises(ValueError, match="ISO 639-1"):
        WebcleanSettings(languages=("English",))
    crawler = get_crawler(settings_dict={"WEBCLEAN_LANGUAGES": "en,DE"})  # a comma list, as with -s
    crawler.stats.open_spider()
    pipeline = LanguageFilterPipeline.from_crawler(crawler)
    assert pipeline.languages == {"en", "de"}
    assert pipeline.process_item({"text": "x", "detected_language": "de"})
    assert pipeline.process_item({"text": "x", "detected_language": None, "language": "en"})  # too short to tell
    assert pipeline.process_item({"url": "not a page"})
    with pytest.raises(DropItem) as dropped:
        pipeline.process_item({"text": "x", "detected_language": "fr", "language": "en"})
    assert dropped.value.log_level == "DEBUG" and "fr" in str(dropped.value)
    with pytest.raises(DropItem):
        pipeline.process_item({"text": "x"})
    assert crawler.stats.get_value("webclean/dropped/language/fr") == 1
    assert crawler.stats.get_value("webclean/dropped/language/unknown") == 1


def test_middleware_and_filters_drop_other_languages_and_near_duplicates(make_crawler):
    crawler = make_crawler(WEBCLEAN_EXTRACTOR="density", WEBCLEAN_LANGUAGES=["en", "de"], WEBCLEAN_OFFLOAD="thread")
    responses = through_middleware(crawler, BASE, list(LANGUAGE_ROUTES), routes=LANGUAGE_ROUTES)
    filters = [build_from_crawler(LanguageFilterPipeline, crawler), build_from_crawler(NearDuplicatePipeline, crawler)]

    async def kept(item):  # the two filters in ITEM_PIPELINES order; the first copy met is kept
        try:
            for pipeline in filters:
                item = await ensure_awaitable(pipeline.process_item(item))
        except DropItem:
            return None
        return item

    async def run():
        return [await kept(CleanedPage.from_response(response)) for response in responses.values()]

    by_path = {item["url"][len(BASE) :]: item for item in asyncio.run(run()) if item is not None}
    filters[1].close_spider()
    assert sorted(by_path) == ["/de", "/en"], sorted(by_path)
    assert by_path["/de"]["detected_language"] == "de" and by_path["/en"]["detected_language"] == "en"
    assert by_path["/en"]["language_confidence"] > 0.5
    assert crawler.stats.get_value("webclean/dropped/language/fr") == 1
    assert crawler.stats.get_value("webclean/dropped/near_duplicate") == 2
    assert crawler.stats.get_value("webclean/near_duplicates/kept") == 2


# -- webclean eval --by-language ------------------------------------------------------------
def test_by_language_uses_the_detected_language_when_none_is_declared(tmp_path):
    from pages import make_dataset
    from webclean_scrapy.evaluation import Contestants, evaluate_dataset

    root = make_dataset(
        tmp_path / "tiny",
        [
            ("declared", chrome_page(FRENCH, lang="en").encode(), FRENCH),  # declared wins, even when wrong
            ("undeclared", chrome_page(GERMAN, lang="").encode(), GERMAN),
            ("nothing", b"<html><body><p>42</p></body></html>", "42"),  # neither: left out
        ],
    )
    report = evaluate_dataset(root, Contestants(ours=("baseline",)), by_language=True)
    assert set(report.by_language) == {"en", "de"}
    assert report.by_language["de"]["baseline"]["pages"] == 1


def test_a_model_that_cannot_load_costs_the_fields_only():
    """py3langid unpacks its model through a temporary file; with no room for it
    (a 30 KB file size limit here), pages are still extracted, without a detected language."""
    script = f"""
import resource, signal
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (30_000, 30_000))
from webclean_scrapy import extract
result = extract({chrome_page(GERMAN, lang="de")!r})
assert result.detected_language is None and "Steinbrücke" in result.text, result
print("ok")
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-3000:]
    assert "language detection is off" in proc.stderr
