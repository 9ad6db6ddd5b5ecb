"""Detected language, the language filter, and near-duplicate removal.

The pipelines run in-process (``make_crawler``, as in ``test_components``),
after the middleware; the shared near-duplicate index runs on a real
``redis-server`` (``redis_url`` fixture).
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import subprocess
import sys

import pytest

pytest.importorskip("py3langid")
pytest.importorskip("datasketch")

from scrapy.exceptions import DropItem, NotConfigured  # noqa: E402
from scrapy.logformatter import LogFormatter  # noqa: E402
from scrapy.utils.defer import ensure_awaitable  # noqa: E402
from scrapy.utils.misc import build_from_crawler  # noqa: E402
from scrapy.utils.test import get_crawler  # noqa: E402

from test_components import ARTICLE_P1, ARTICLE_P2, ARTICLE_P3, BASE, HTML, article_page, through_middleware  # noqa: E402  # noqa: E402
from webclean_scrapy import extract  # noqa: E402
from webclean_scrapy.cli import main  # noqa: E402
from webclean_scrapy.dedup import NearDuplicateIndex, shingles  # noqa: E402
from webclean_scrapy.engine.text.language import detect_language  # noqa: E402
from webclean_scrapy.items import FIELD_ORDER, CleanedPage  # noqa: E402
from webclean_scrapy.pipelines import LanguageFilterPipeline, NearDuplicatePipeline  # noqa: E402
from webclean_scrapy.settings import WebcleanSettings  # noqa: E402

GERMAN = (
    "Die Stadtverwaltung hat am Dienstag bestätigt, dass die alte Steinbrücke wegen Reparaturen "
    "geschlossen wird. Ingenieure hatten bei einer Routineprüfung Risse in zwei der sieben Bögen gefunden. "
    "Der Verkehr wird über die nördliche Umgehungsstraße umgeleitet, doch die Anwohner des Tals fürchten "
    "lange Staus im morgendlichen Berufsverkehr. Die Arbeiten sollen elf Wochen dauern."
)
FRENCH = (
    "La mairie a confirmé mardi que le vieux pont de pierre sera fermé pour travaux, après que des "
    "ingénieurs ont découvert des fissures dans deux de ses sept arches lors d'une inspection de routine. "
    "La circulation sera déviée par le périphérique nord, mais les habitants de la vallée craignent de "
    "longs bouchons aux heures de pointe. Les travaux devraient durer onze semaines."
)


def page(body: str, lang: str = "en", chrome: str = "Valley Gazette", title: str = "Story") -> str:
    nav = "".join(f'<li><a href="/{chrome}/{i}">{chrome} section {i}</a></li>' for i in range(6))
    return (
        f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8"><title>{title}</title></head>'
        f"<body><nav><ul>{nav}</ul></nav><main><article><h1>{title}</h1>"
        + "".join(f"<p>{p}</p>" for p in body.split("\n"))
        + f"</article></main><footer><p>Copyright {chrome}. All rights reserved.</p></footer></body></html>"
    )


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
    result = extract(page(FRENCH, lang="en"))
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
result = extract({page(GERMAN, lang="de")!r})
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
    (tmp_path / "a.html").write_text(page(GERMAN, lang=""), encoding="utf-8")
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


ROUTES = {
    "/en": (200, HTML, article_page()),
    "/de": (200, HTML, page(GERMAN, lang="de", title="Brücke")),
    "/fr-declared-en": (200, HTML, page(FRENCH, lang="en", title="Pont")),
    # The English story syndicated under another site's boilerplate, and the same page under another URL.
    "/syndicated": (
        200,
        HTML,
        page(
            "\n".join((ARTICLE_P1, ARTICLE_P2, ARTICLE_P3)),
            chrome="Hill Courier",
            title="Old bridge to close for repairs",
        ),
    ),
    "/en?utm_source=feed": (200, HTML, article_page()),
}


def test_middleware_and_filters_drop_other_languages_and_near_duplicates(make_crawler):
    crawler = make_crawler(WEBCLEAN_EXTRACTOR="density", WEBCLEAN_LANGUAGES=["en", "de"], WEBCLEAN_OFFLOAD="thread")
    responses = through_middleware(crawler, BASE, list(ROUTES), routes=ROUTES)
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


# -- near-duplicates -------------------------------------------------------------------------
STORY = "\n".join((ARTICLE_P1, ARTICLE_P2, ARTICLE_P3))


def test_shingles():
    assert shingles("One, two; THREE four five six", 5) == {b"one two three four five", b"two three four five six"}
    assert shingles("a b", 5) == {b"a b"} and shingles(" ,. ", 5) == set()


def test_index_finds_near_copies_only():
    index = NearDuplicateIndex(threshold=0.8)
    assert index.check("a", STORY) is None
    assert index.check("b", STORY.upper().replace("\n", "  ")).of == "a"  # re-wrapped, other case
    assert index.check("c", STORY.replace("eleven", "twelve")).of == "a"  # lightly edited
    assert index.check("d", GERMAN) is None and index.check("e", FRENCH) is None
    assert index.check("f", "") is None and index.kept == 3
    with pytest.raises(ValueError):
        NearDuplicateIndex(threshold=1.5)


def test_near_duplicate_pipeline_logs_both_items():
    crawler = get_crawler(spidercls=None, settings_dict={"WEBCLEAN_NEAR_DUPLICATE_THRESHOLD": 0.7})
    crawler.stats.open_spider()
    pipeline = NearDuplicatePipeline.from_crawler(crawler)

    async def run():
        kept = await pipeline.process_item({"url": "https://a.example/story", "text": STORY})
        assert kept["url"] == "https://a.example/story"
        assert await pipeline.process_item({"url": "https://b.example/x", "text": ""})  # no text: passes
        with pytest.raises(DropItem) as dropped:
            await pipeline.process_item({"url": "https://b.example/copy", "text": STORY + "\nShare this story"})
        return dropped.value

    exc = asyncio.run(run())
    pipeline.close_spider()
    assert exc.log_level == "DEBUG"
    message = LogFormatter().dropped({"url": "https://b.example/copy"}, exc, None, crawler.spider)
    assert message["level"] == logging.DEBUG
    logged = message["msg"] % message["args"]
    assert "https://a.example/story" in logged and "https://b.example/copy" in logged
    assert crawler.stats.get_value("webclean/dropped/near_duplicate") == 1
    assert crawler.stats.get_value("webclean/near_duplicates/kept") == 1


def test_shared_index_in_redis(redis_url):
    """Two workers' indexes on one Redis: each sees what the other kept."""
    import redis

    first = NearDuplicateIndex(redis_url=redis_url, redis_key="test")
    second = NearDuplicateIndex(redis_url=redis_url, redis_key="test")
    assert first.check("https://a.example/story", STORY) is None
    assert second.check("https://b.example/copy", STORY + " Read more.").of == "https://a.example/story"
    assert second.check("https://c.example/de", GERMAN) is None
    assert first.check("https://d.example/de", GERMAN).of == "https://c.example/de"
    client = redis.Redis.from_url(redis_url)
    assert any(key.startswith(b"test:") for key in client.scan_iter())
    # Another key (another spider) is another index.
    assert NearDuplicateIndex(redis_url=redis_url, redis_key="other").check("x", STORY) is None


def test_workers_share_the_index_in_redis(make_crawler, redis_url):
    """A second worker's pipeline on the same Redis drops what the first one kept."""

    def texts_kept(paths: list[str]) -> tuple[list[str], dict]:
        crawler = make_crawler(WEBCLEAN_EXTRACTOR="density", WEBCLEAN_OFFLOAD="none", WEBCLEAN_REDIS_URL=redis_url)
        crawler.spider = crawler._create_spider("news")  # the index is the spider's
        responses = through_middleware(crawler, BASE, paths, routes=ROUTES)
        pipeline = build_from_crawler(NearDuplicatePipeline, crawler)

        async def run():
            kept = []
            for response in responses.values():
                try:
                    kept.append((await pipeline.process_item(CleanedPage.from_response(response)))["url"])
                except DropItem:
                    pass
            return kept

        kept = asyncio.run(run())
        pipeline.close_spider()
        return [url[len(BASE) :] for url in kept], crawler.stats.get_stats()

    kept, stats = texts_kept(["/en", "/de"])
    assert kept == ["/en", "/de"] and stats["webclean/near_duplicates/kept"] == 2
    kept, stats = texts_kept(["/syndicated", "/de"])
    assert kept == []
    assert stats["webclean/dropped/near_duplicate"] == 2 and "webclean/near_duplicates/kept" not in stats
    import redis

    keys = list(redis.Redis.from_url(redis_url).scan_iter())
    assert keys and all(key.startswith(b"news:webclean:near_duplicates") for key in keys), keys


# -- webclean dedup ---------------------------------------------------------------------------
def corpus_lines() -> list[str]:
    records = [
        {"url": "https://a.example/story", "text": STORY},
        {"url": "https://b.example/copy", "text": STORY.replace("eleven", "twelve") + "\nShare this"},
        {"url": "https://c.example/cut", "text": STORY[: int(len(STORY) * 0.9)]},
        {"url": "https://d.example/de", "text": GERMAN},
        {"url": "https://e.example/fr", "text": FRENCH},
        {"source": "f.html", "text": ""},
        {"url": "https://g.example/no-text"},
    ]
    return [json.dumps(record, ensure_ascii=False) for record in records]


def test_dedup_cli_is_deterministic(tmp_path, capsys):
    lines = corpus_lines()
    outputs = []
    for seed in range(4):
        shuffled = lines[:]
        random.Random(seed).shuffle(shuffled)
        (tmp_path / "in.jsonl").write_text("\n".join(shuffled) + "\n", encoding="utf-8")
        out = tmp_path / f"out{seed}.jsonl"
        assert main(["dedup", str(tmp_path / "in.jsonl"), "-o", str(out), "--dropped", str(tmp_path / "d.jsonl")]) == 0
        outputs.append(out.read_bytes())
    assert len(set(outputs)) == 1
    kept = [json.loads(line) for line in outputs[0].decode().splitlines()]
    # The longest copy of the story is kept; the other two are dropped, and named with it.
    assert [r.get("url") or r.get("source") for r in kept] == [
        "f.html",
        "https://b.example/copy",
        "https://d.example/de",
        "https://e.example/fr",
        "https://g.example/no-text",
    ]
    dropped = [json.loads(line) for line in (tmp_path / "d.jsonl").read_text().splitlines()]
    assert dropped == [
        {"key": "https://a.example/story", "near_duplicate_of": "https://b.example/copy"},
        {"key": "https://c.example/cut", "near_duplicate_of": "https://b.example/copy"},
    ]
    assert "7 records, kept 5, dropped 2" in capsys.readouterr().err


def test_dedup_cli_bad_input(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(corpus_lines()[0] + "\n{not json\n", encoding="utf-8")
    assert main(["dedup", str(bad), "-o", str(tmp_path / "out.jsonl")]) == 1
    assert "bad.jsonl:2: not JSON" in capsys.readouterr().err
    assert not (tmp_path / "out.jsonl").exists()
    assert main(["dedup", str(tmp_path / "missing.jsonl")]) == 1
    assert main(["dedup", str(bad), "--threshold", "2"]) == 2


# -- webclean eval --by-language ------------------------------------------------------------
def test_by_language_uses_the_detected_language_when_none_is_declared(tmp_path):
    from test_evaluation import make_dataset
    from webclean_scrapy.evaluation import Contestants, evaluate_dataset

    root = make_dataset(
        tmp_path / "tiny",
        [
            ("declared", page(FRENCH, lang="en").encode(), FRENCH),  # declared wins, even when wrong
            ("undeclared", page(GERMAN, lang="").encode(), GERMAN),
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
result = extract({page(GERMAN, lang="de")!r})
assert result.detected_language is None and "Steinbrücke" in result.text, result
print("ok")
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-3000:]
    assert "language detection is off" in proc.stderr
