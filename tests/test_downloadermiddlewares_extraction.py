"""The Scrapy components in-process, as Scrapy's own tests do: a crawler from
``scrapy.utils.test.get_crawler`` (the ``make_crawler`` fixture), the
middleware and pipelines built from it with ``build_from_crawler``, fed the
responses Scrapy's downloader would build (``responsetypes``) and awaited on
an asyncio loop. The same components in real crawls: ``test_outside_project.py``
(by hand and through the add-on) and the spiders' tests.
"""

from __future__ import annotations

import asyncio

import pytest
import scrapy
from scrapy.http import HtmlResponse, Response, TextResponse
from scrapy.utils.misc import build_from_crawler

from components import (
    BASE,
    EXTRACTOR,
    MAX_HTML_BYTES,
    PLUMBING,
    PNG,
    ROUTES,
    exported,
    through_middleware,
    webclean_stats,
)
from pages import ARTICLE_P1, ARTICLE_P2, ARTICLE_P3, gazette_article
from webclean_scrapy import Extraction
from webclean_scrapy.downloadermiddlewares.extraction import (
    PageExtractions,
    WebcleanMiddleware,
    extraction_of,
    same_markup,
)
from webclean_scrapy.items import FIELD_ORDER, CleanedPage

assert len(ROUTES["/huge"][2]) > MAX_HTML_BYTES > len(ROUTES["/deep"][2])


# -- the tests ----------------------------------------------------------------------
@pytest.mark.parametrize("offload", ["thread", "process", "none"])
def test_middleware_attaches_each_responses_extraction(make_crawler, offload):
    crawler = make_crawler(**PLUMBING, WEBCLEAN_OFFLOAD=offload, WEBCLEAN_MAX_HTML_BYTES=MAX_HTML_BYTES)
    responses = through_middleware(crawler, BASE)
    by_path = {path: exported(CleanedPage.from_response(response)) for path, response in responses.items()}
    for item in by_path.values():
        assert list(item) == [f for f in FIELD_ORDER if f in item]  # stable export order
        assert "html" not in item  # WEBCLEAN_KEEP_HTML is off
        assert item["status"] == 200 and item["text_chars"] == len(item["text"])
        assert item["fetched_at"].endswith("Z") and len(item["fetched_at"]) == 20
    # Not HTML, skipped, binary: no extraction attached; too large: None attached.
    assert {path for path, r in responses.items() if "webclean" not in r.meta} == {
        "/image.png",
        "/paper.pdf",
        "/binary-as-html",
        "/skipped",
    }
    assert extraction_of(responses["/huge"]) is None and "webclean" in responses["/huge"].meta

    article = by_path["/article"]
    assert article["title"] == "Old bridge to close for repairs"
    for paragraph in (ARTICLE_P1, ARTICLE_P2, ARTICLE_P3):
        assert paragraph in article["text"]
    assert "do not extract me" not in article["text"] and "color: red" not in article["text"]
    assert article["text"].startswith("Section 0\nSection 1")  # baseline keeps everything visible
    assert article["extractor"] == EXTRACTOR and article["language"] == "en"
    assert article["page_type"] == "article"  # whichever extractor ran
    assert article["canonical_url"] == BASE + "/news/bridge"
    assert article["html_bytes"] == len(ROUTES["/article"][2].encode())

    for path in ("/image.png", "/paper.pdf", "/binary-as-html", "/skipped", "/huge", "/empty"):
        assert by_path[path]["text"] == "" and by_path[path]["title"] == "", path
    for path in ("/image.png", "/paper.pdf", "/binary-as-html", "/skipped", "/huge"):
        assert by_path[path]["extractor"] is None and by_path[path]["page_type"] is None, path
        assert by_path[path]["canonical_url"] == by_path[path]["url"]
    assert by_path["/image.png"]["html_bytes"] == len(PNG)
    assert by_path["/empty"]["extractor"] == EXTRACTOR

    wrong = by_path["/wrong-charset"]
    assert wrong["title"] == "Caf\ufffd cr\ufffdme prices soar" and wrong["language"] == "fr"
    assert ARTICLE_P2 in wrong["text"]
    assert by_path["/no-charset"]["title"] == "Na\xefve caf\xe9 review"
    assert ARTICLE_P1 in by_path["/deep"]["text"] and by_path["/deep"]["title"] == "Deep page"

    extracted = ["/article", "/empty", "/wrong-charset", "/no-charset", "/deep"]
    html_in = sum(len(ROUTES[p][2] if isinstance(ROUTES[p][2], bytes) else ROUTES[p][2].encode()) for p in extracted)
    text_out = sum(len(by_path[p]["text"].encode()) for p in extracted)
    stats = webclean_stats(crawler)
    seconds = stats.pop("webclean/extraction_seconds")
    assert seconds > 0
    assert stats == {
        "webclean/pages/extracted": 5,
        "webclean/pages/empty": 1,
        "webclean/skipped/non_html": 2,
        "webclean/skipped/binary": 1,
        "webclean/skipped/too_large": 1,
        "webclean/skipped/requested": 1,
        "webclean/bytes/html_in": html_in,
        "webclean/bytes/text_out": text_out,
        "webclean/space_saving_percent": round(100 * (1 - text_out / html_in), 2),
    }


def test_middleware_error_status_is_not_extracted(make_crawler):
    crawler = make_crawler(**PLUMBING, WEBCLEAN_OFFLOAD="none")
    middleware = build_from_crawler(WebcleanMiddleware, crawler)
    request = scrapy.Request(BASE + "/gone")
    response = HtmlResponse(request.url, status=404, body=gazette_article().encode(), request=request)
    assert asyncio.run(middleware.process_response(request, response)) is response
    assert "webclean" not in response.meta
    assert webclean_stats(crawler) == {"webclean/skipped/http_status": 1}


# -- in-process checks: the item and the accessor ----------------------------------
def test_from_response_without_middleware():
    response = HtmlResponse("https://example.com/a", body=b"<html><body><p>x</p></body></html>", status=203)
    item = CleanedPage.from_response(
        response, Extraction("Hello", "T", "baseline", language="de", page_type="forum"), query="bridges", rank=3
    )
    assert dict(item) == {
        "url": "https://example.com/a",
        "canonical_url": "https://example.com/a",
        "status": 203,
        "fetched_at": item["fetched_at"],
        "title": "T",
        "text": "Hello",
        "extractor": "baseline",
        "language": "de",
        "detected_language": None,
        "language_confidence": None,
        "page_type": "forum",
        "page_type_confidence": None,
        "truncated": False,
        "author": None,
        "date": None,
        "date_modified": None,
        "sitename": None,
        "description": None,
        "tags": [],
        "image": None,
        "html_bytes": 34,
        "text_chars": 5,
        "query": "bridges",
        "rank": 3,
    }
    assert list(item) == [f for f in FIELD_ORDER if f in item]
    empty = CleanedPage.from_response(response, keep_html=True)
    assert empty["text"] == "" and empty["extractor"] is None and empty["html"] == response.text


def test_extraction_of():
    from webclean_scrapy.downloadermiddlewares.extraction import extraction_of, is_html_response

    extraction = Extraction("t", "", "baseline")
    request = scrapy.Request("https://example.com/", meta={"webclean": extraction})
    assert extraction_of(HtmlResponse("https://example.com/", body=b"", request=request)) is extraction
    assert extraction_of(Response("https://example.com/")) is None
    assert is_html_response(TextResponse("https://e.com/", headers={"Content-Type": "application/xhtml+xml"}, body=b""))
    assert not is_html_response(TextResponse("https://e.com/", headers={"Content-Type": "text/plain"}, body=b""))
    assert not is_html_response(Response("https://e.com/", headers={"Content-Type": "text/html"}, body=b""))


def test_settings_validation():
    from scrapy.settings import Settings

    from webclean_scrapy.settings import WebcleanSettings

    assert WebcleanSettings.from_settings(Settings({"WEBCLEAN_OFFLOAD": "Process"})).offload == "process"
    assert WebcleanSettings.from_settings(Settings()).workers >= 1
    with pytest.raises(ValueError, match="WEBCLEAN_OFFLOAD"):
        WebcleanSettings.from_settings(Settings({"WEBCLEAN_OFFLOAD": "gpu"}))
    with pytest.raises(ValueError, match="WEBCLEAN_WORKERS"):
        WebcleanSettings.from_settings(Settings({"WEBCLEAN_WORKERS": 0}))


def test_process_pool_falls_back_to_threads_when_workers_cannot_start(register_extractor):
    """An extractor registered at run time is unknown to fresh worker processes:
    their initializer fails, and pages are extracted in threads instead."""
    from webclean_scrapy import Extractor
    from webclean_scrapy.offload import Offloader
    from webclean_scrapy.settings import WebcleanSettings

    @register_extractor
    class ShoutExtractor(Extractor):
        name = "test-shout"

        def extract_text(self, doc):
            return doc.text_of(doc.blocks).upper()

    async def run():
        offloader = Offloader(WebcleanSettings(extractor="test-shout", offload="process", workers=1))
        try:
            result = await offloader.extract_markup(b"<html><body><p>quiet words</p></body></html>")
            return offloader.mode, result.extraction
        finally:
            offloader.close()

    mode, extraction = asyncio.run(run())
    assert mode == "thread"
    assert extraction.text == "QUIET WORDS" and extraction.extractor == "test-shout"


@pytest.mark.parametrize(
    "component",
    [
        "webclean_scrapy.downloadermiddlewares.extraction.WebcleanMiddleware",
        "webclean_scrapy.downloadermiddlewares.compression.CompressedBodyCheckMiddleware",
        "webclean_scrapy.downloadermiddlewares.charset.CharsetMiddleware",
        "webclean_scrapy.pipelines.WebcleanPipeline",
        "webclean_scrapy.pipelines.MinTextFilterPipeline",
    ],
)
def test_components_honour_webclean_enabled(make_crawler, component):
    from scrapy.exceptions import NotConfigured
    from scrapy.utils.misc import load_object

    cls = load_object(component)
    with pytest.raises(NotConfigured):
        build_from_crawler(cls, make_crawler(WEBCLEAN_ENABLED=False))
    enabled = build_from_crawler(cls, make_crawler(WEBCLEAN_OFFLOAD="none", WEBCLEAN_MIN_TEXT_CHARS=7))
    assert enabled.settings.min_text_chars == 7


def _html_response(body: bytes, content_type: str = "text/html; charset=utf-8") -> HtmlResponse:
    url = BASE + "/page"
    return HtmlResponse(url, body=body, headers={"Content-Type": content_type}, request=scrapy.Request(url))


def test_same_markup_is_the_body_or_the_text_read_as_the_extraction_reads_it():
    utf8 = _html_response(gazette_article("Caf\u00e9").encode("utf-8"))
    assert same_markup(utf8.text, utf8) and same_markup(utf8.body, utf8)
    assert same_markup(str(utf8.text + " ")[:-1], utf8)  # equal, not the same object
    assert not same_markup(utf8.text + " ", utf8) and not same_markup(utf8.body + b" ", utf8)
    assert not same_markup(None, utf8) and not same_markup(["a"], utf8)
    # Declared nowhere, ASCII: Scrapy reads cp1252, the extraction UTF-8; the same text.
    ascii_page = _html_response(b"<html><body><p>" + ARTICLE_P1.encode() + b"</p></body></html>", "text/html")
    assert ascii_page.encoding == "cp1252" and same_markup(ascii_page.text, ascii_page)
    # Declared nowhere, not UTF-8: Scrapy's text may be another reading than the extraction's
    # (here cp1250's "crčme"), which only detection tells; the bytes are detected alike both ways.
    legacy = _html_response("<p>Caf\u00e9 cr\u00e8me</p>".encode("cp1252"), "text/html")
    assert not same_markup(legacy.text, legacy) and same_markup(legacy.body, legacy)
    # The charset in the header only: the pipeline, given the bare bytes, would not see it.
    header_only = _html_response("<p>Caf\u00e9 cr\u00e8me</p>".encode("cp1252"), "text/html; charset=windows-1252")
    assert same_markup(header_only.text, header_only) and not same_markup(header_only.body, header_only)


def test_page_extractions_hold_live_responses_only_and_at_most_their_limit():
    pages = PageExtractions(limit=2)
    responses = [_html_response(b"<p>one</p>"), _html_response(b"<p>two</p>"), _html_response(b"<p>three</p>")]
    for response in responses:
        response.meta["webclean"] = Extraction(title="", text=response.text, extractor="webclean")
        pages.add(response)
    del response
    assert len(pages) == 2  # the oldest went
    assert pages.extraction_for(responses[0].text, responses[0].url) == (False, None)
    assert pages.extraction_for(responses[2].text, responses[2].url) == (True, responses[2].meta["webclean"])
    assert pages.extraction_for(responses[2].text, BASE + "/elsewhere") == (False, None)
    del responses[2]
    assert len(pages) == 1  # gone with its response


# -- WEBCLEAN_FIELDS: the crawl asks for what its items carry ------------------------
@pytest.mark.parametrize("offload", ["thread", "process", "none"])
def test_the_middleware_asks_only_for_the_fields_items_carry(make_crawler, monkeypatch, offload):
    """With ``WEBCLEAN_FIELDS = ["title", "date"]`` the language model never
    runs, in this process or in a worker (whose job carries the fields), the
    items carry the two metadata fields asked for, with the complete
    crawl's values, and leave the others out."""
    import webclean_scrapy.engine.extraction as extraction_module
    from webclean_scrapy.offload.pool import WorkerPool

    paths = ("/article", "/wrong-charset", "/empty", "/image.png")
    complete = through_middleware(make_crawler(**PLUMBING, WEBCLEAN_OFFLOAD=offload), BASE, paths)
    detections: list[str] = []
    jobs: list[tuple] = []
    original_detect, original_submit = extraction_module.detect_language, WorkerPool.submit

    def detect(text, *args, **kwargs):
        detections.append(text)
        return original_detect(text, *args, **kwargs)

    def submit(pool, func, *args, **kwargs):
        jobs.append(args)
        return original_submit(pool, func, *args, **kwargs)

    monkeypatch.setattr(extraction_module, "detect_language", detect)
    monkeypatch.setattr(WorkerPool, "submit", submit)
    crawler = make_crawler(**PLUMBING, WEBCLEAN_OFFLOAD=offload, WEBCLEAN_FIELDS=["title", "date"])
    asked = through_middleware(crawler, BASE, paths)

    assert detections == []  # in this process: thread and none
    if offload == "process":
        assert len(jobs) == 3 and all(job[-1] == frozenset({"title", "date"}) for job in jobs)
    for path in paths:
        item, full = (exported(CleanedPage.from_response(r[path])) for r in (asked, complete))
        assert list(item) == [f for f in FIELD_ORDER if f in item]  # the export order kept
        left_out = {"author", "date_modified", "sitename", "description", "tags", "image"}
        left_out |= {"detected_language", "language_confidence"}
        assert set(full) - set(item) == left_out and {k: full[k] for k in item if k != "fetched_at"} == {
            k: v for k, v in item.items() if k != "fetched_at"
        }
    assert exported(CleanedPage.from_response(asked["/article"]))["title"] == "Old bridge to close for repairs"
    extraction = extraction_of(asked["/article"])
    assert extraction is not None and extraction.detected_language is None and extraction.author is None
    assert extraction_of(complete["/article"]).detected_language == "en"  # the page has one


def test_a_crawl_with_the_defaults_sends_its_workers_the_page_alone(make_crawler, monkeypatch):
    """Each job a worker process receives is pickled: with the defaults it is the
    page (body, URL, charset) and nothing of the settings, which the worker's
    defaults already are; a setting away from its default is sent."""
    from webclean_scrapy.offload.offloader import Offloader
    from webclean_scrapy.settings import WebcleanSettings

    plain = Offloader(WebcleanSettings(extractor=EXTRACTOR, offload="none"))
    assert plain._options_of_page() == ()
    formats = Offloader(WebcleanSettings(extractor=EXTRACTOR, offload="none", formats=("markdown",)))
    assert formats._options_of_page() == (False, None, ("markdown",))
    fields = Offloader(WebcleanSettings(extractor=EXTRACTOR, offload="none", fields=("date",)))
    assert fields._options_of_page()[-1] == frozenset({"date"})
