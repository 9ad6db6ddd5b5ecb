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
from webclean_scrapy.downloadermiddlewares.extraction import WebcleanMiddleware, extraction_of
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
