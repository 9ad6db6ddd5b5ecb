"""The Scrapy components in-process, as Scrapy's own tests do: a crawler from
``scrapy.utils.test.get_crawler`` (the ``make_crawler`` fixture), the
middleware and pipelines built from it with ``build_from_crawler``, fed the
responses Scrapy's downloader would build (``responsetypes``) and awaited on
an asyncio loop. The same components in real crawls: ``test_outside_project.py``
(by hand and through the add-on) and the spiders' tests.
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
from typing import Any

import attrs
import pytest
import scrapy
from itemadapter import ItemAdapter
from scrapy.exceptions import DropItem
from scrapy.exporters import JsonLinesItemExporter
from scrapy.http import Headers, HtmlResponse, Response, TextResponse
from scrapy.responsetypes import responsetypes
from scrapy.utils.misc import build_from_crawler

from webclean_scrapy import Extraction
from webclean_scrapy.downloadermiddlewares.extraction import WebcleanMiddleware, extraction_of
from webclean_scrapy.items import FIELD_ORDER, CleanedPage
from webclean_scrapy.pipelines import MinTextFilterPipeline, WebcleanPipeline

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"
PDF = b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n"

ARTICLE_P1 = (
    "The river authority confirmed on Tuesday that the old stone bridge will close for repairs, "
    "after engineers found cracks in two of its seven arches during a routine inspection."
)
ARTICLE_P2 = (
    "Traffic will be diverted through the northern ring road, which the council says can absorb "
    "the extra cars, although residents of the valley fear long queues at the morning peak."
)
ARTICLE_P3 = (
    "Work is expected to take eleven weeks. The authority said the repairs would keep the bridge's "
    "historic appearance, using stone from the same quarry that supplied the original builders."
)


def article_page(title: str = "Old bridge to close for repairs", lang: str = "en") -> str:
    nav = "".join(f'<li><a href="/section/{i}">Section {i}</a></li>' for i in range(12))
    side = "".join(f'<li><a href="/more/{i}">More story {i} you may like</a></li>' for i in range(8))
    return f"""<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8">
<title>{title} | Valley Gazette</title><link rel="canonical" href="/news/bridge">
<script>var tracking = "do not extract me";</script><style>body {{ color: red }}</style></head>
<body><header><nav><ul>{nav}</ul></nav></header>
<main><article><h1>{title}</h1><p class="byline">By A. Reporter</p>
<p>{ARTICLE_P1}</p><p>{ARTICLE_P2}</p><p>{ARTICLE_P3}</p></article>
<aside><h3>Related</h3><ul>{side}</ul></aside></main>
<footer><p>Copyright Valley Gazette. All rights reserved.</p><a href="/privacy">Privacy</a></footer>
</body></html>"""


def deep_page(depth: int = 5000) -> str:
    return (
        "<html><body><h1>Deep page</h1><p>"
        + ARTICLE_P1
        + "</p>"
        + "<div>" * depth
        + "lost in the depths"
        + "</div>" * depth
        + "</body></html>"
    )


HTML = {"Content-Type": "text/html; charset=utf-8"}
ROUTES: dict[str, tuple[int, dict[str, str], bytes | str]] = {
    "/article": (200, HTML, article_page()),
    "/image.png": (200, {"Content-Type": "image/png"}, PNG),
    "/paper.pdf": (200, {"Content-Type": "application/pdf"}, PDF),
    "/binary-as-html": (200, HTML, PNG + b"\x00" * 64),
    "/empty": (200, HTML, b""),
    # cp1252 bytes announced as UTF-8: invalid bytes become U+FFFD, never an error.
    "/wrong-charset": (200, HTML, article_page("Caf\xe9 cr\xe8me prices soar", "fr").encode("cp1252")),
    # No charset at all, UTF-8 body: found by <meta>.
    "/no-charset": (200, {"Content-Type": "text/html"}, article_page("Na\xefve caf\xe9 review")),
    "/deep": (200, HTML, deep_page()),
    "/huge": (200, HTML, article_page() + "<p>" + "filler words " * 30000 + "</p>"),
    "/skipped": (200, HTML, article_page()),
}
MAX_HTML_BYTES = 200_000
assert len(ROUTES["/huge"][2]) > MAX_HTML_BYTES > len(ROUTES["/deep"][2])
SKIP = {"/skipped"}


# -- item types for the pipeline ------------------------------------------------
class PageItem(scrapy.Item):
    kind = scrapy.Field()
    url = scrapy.Field()
    html = scrapy.Field()
    title = scrapy.Field()
    text = scrapy.Field()


@dataclasses.dataclass
class PageDataclass:
    kind: str
    url: str
    html: Any
    text: str | None = None
    text_chars: int | None = None


@attrs.define
class PageAttrs:
    kind: str
    url: str
    html: Any
    title: str | None = None
    text: str | None = None
    language: str | None = None


# -- in-process: responses as Scrapy's HTTP handler builds them ---------------------
def response_for(base: str, path: str, *, skip: bool = False, routes=ROUTES) -> Response:
    """The response Scrapy's downloader would hand to the middleware for *path* of *routes*:
    the response class picked from the headers, URL and body (``responsetypes``), tied to its request."""
    status, headers, body = routes[path]
    raw = body.encode("utf-8") if isinstance(body, str) else body
    request = scrapy.Request(base + path, meta={"webclean_skip": True} if skip else {})
    headers = Headers(headers)
    cls = responsetypes.from_args(headers=headers, url=request.url, body=raw)
    return cls(request.url, status=status, headers=headers, body=raw, request=request)


def request_of(response: Response) -> scrapy.Request:
    """The request a downloaded *response* answers (always set by :func:`response_for`)."""
    assert response.request is not None
    return response.request


def through_middleware(crawler, base: str, paths=tuple(ROUTES), routes=ROUTES) -> dict[str, Response]:
    """Every response of *paths* through :class:`WebcleanMiddleware`, concurrently as in a crawl."""
    middleware = build_from_crawler(WebcleanMiddleware, crawler)
    responses = [response_for(base, path, skip=path in SKIP, routes=routes) for path in paths]

    async def run() -> list[Response]:
        return await asyncio.gather(*(middleware.process_response(request_of(r), r) for r in responses))

    returned = asyncio.run(run())
    assert all(out is response for out, response in zip(returned, responses))  # never replaced, never lost
    return dict(zip(paths, responses))


def exported(item: Any) -> dict[str, Any]:
    """*item* as a JSON lines feed holds it (Scrapy's exporter: its field order, its JSON)."""
    out = io.BytesIO()
    exporter = JsonLinesItemExporter(out)
    exporter.start_exporting()
    exporter.export_item(item)
    exporter.finish_exporting()
    return json.loads(out.getvalue())


def webclean_stats(crawler) -> dict[str, Any]:
    return {k: v for k, v in crawler.stats.get_stats().items() if k.startswith("webclean/")}


def raw_items(response: Response) -> list[Any]:
    """The raw HTML of *response* in all four item types itemadapter supports
    (``bytes`` for the dict: decoded by the pipeline)."""
    url = response.url
    text = response.text if isinstance(response, TextResponse) else None
    return [
        {"kind": "dict", "url": url, "html": response.body},
        PageItem(kind="scrapy", url=url, html=text),
        PageDataclass(kind="dataclass", url=url, html=text),
        PageAttrs(kind="attrs", url=url, html=text),
    ]


def through_pipeline(crawler, items: list[Any]) -> list[dict[str, Any]]:
    pipeline = build_from_crawler(WebcleanPipeline, crawler)

    async def run() -> list[Any]:
        return await asyncio.gather(*(pipeline.process_item(item) for item in items))

    return [ItemAdapter(item).asdict() for item in asyncio.run(run())]


BASE = "http://site.example"
EXTRACTOR = "baseline"
#: The plumbing is under test, not extraction quality: the simplest method.
PLUMBING = {"WEBCLEAN_EXTRACTOR": EXTRACTOR, "WEBCLEAN_WORKERS": 1}


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
    response = HtmlResponse(request.url, status=404, body=article_page().encode(), request=request)
    assert asyncio.run(middleware.process_response(request, response)) is response
    assert "webclean" not in response.meta
    assert webclean_stats(crawler) == {"webclean/skipped/http_status": 1}


def test_keep_html_extractor_choice_and_filter(make_crawler):
    crawler = make_crawler(
        WEBCLEAN_KEEP_HTML=True, WEBCLEAN_EXTRACTOR="density", WEBCLEAN_MIN_TEXT_CHARS=400, WEBCLEAN_OFFLOAD="thread"
    )
    paths = ["/article", "/image.png", "/empty", "/wrong-charset"]
    items = [exported(CleanedPage.from_response(r)) for r in through_middleware(crawler, BASE, paths).values()]
    kept = keep_filtered(crawler, items)
    # density (chosen by WEBCLEAN_EXTRACTOR) keeps the story, not the navigation;
    # the PNG and the empty page have no text.
    assert [item["url"] for item in kept] == [BASE + "/article", BASE + "/wrong-charset"]
    article = kept[0]
    assert article["extractor"] == "density" and ARTICLE_P1 in article["text"]
    assert "Section 11" not in article["text"]
    assert article["html"] == ROUTES["/article"][2] and list(article)[-1] == "html"
    assert crawler.stats.get_value("webclean/dropped/empty") == 2
    assert crawler.stats.get_value("webclean/dropped/too_short") is None

    strict = make_crawler(WEBCLEAN_EXTRACTOR="density", WEBCLEAN_MIN_TEXT_CHARS=len(article["text"].strip()) + 1)
    assert keep_filtered(strict, items) == []
    assert strict.stats.get_value("webclean/dropped/too_short") == 2
    assert strict.stats.get_value("webclean/dropped/empty") == 2


def keep_filtered(crawler, items: list[Any]) -> list[Any]:
    """The items :class:`MinTextFilterPipeline` lets through."""
    pipeline = build_from_crawler(MinTextFilterPipeline, crawler)
    kept = []
    for item in items:
        try:
            kept.append(pipeline.process_item(item))
        except DropItem:
            pass
    return kept


def test_pipeline_fills_all_item_types(make_crawler):
    crawler = make_crawler(**PLUMBING, WEBCLEAN_MAX_HTML_BYTES=MAX_HTML_BYTES)  # process workers, the default
    paths = ["/article", "/binary-as-html", "/empty", "/huge"]
    responses = [response_for(BASE, path) for path in paths]
    items = through_pipeline(crawler, [item for response in responses for item in raw_items(response)])
    assert len(items) == 4 * len(paths)
    article = {item["kind"]: item for item in items if item["url"] == BASE + "/article"}
    dict_item, scrapy_item, dataclass_item, attrs_item = (article[k] for k in ("dict", "scrapy", "dataclass", "attrs"))
    # dicts get every field, and lose the raw HTML
    assert dict_item["kind"] == "dict" and "html" not in dict_item
    assert list(dict_item)[:3] == ["kind", "url", "title"]
    assert dict_item["title"] == "Old bridge to close for repairs" and ARTICLE_P1 in dict_item["text"]
    assert dict_item["extractor"] == EXTRACTOR and dict_item["language"] == "en"
    assert dict_item["text_chars"] == len(dict_item["text"])
    assert dict_item["html_bytes"] == len(ROUTES["/article"][2].encode())
    # item classes only get the fields they declare
    assert set(scrapy_item) == {"kind", "url", "title", "text"} and scrapy_item["text"] == dict_item["text"]
    assert dataclass_item == {
        "kind": "dataclass",
        "url": BASE + "/article",
        "html": None,
        "text": dict_item["text"],
        "text_chars": len(dict_item["text"]),
    }
    assert attrs_item == {
        "kind": "attrs",
        "url": BASE + "/article",
        "html": None,
        "title": dict_item["title"],
        "text": dict_item["text"],
        "language": "en",
    }
    # bad input: every item kept, with empty text and no HTML
    for path in ("/binary-as-html", "/huge", "/empty"):
        kept = [item for item in items if item["url"] == BASE + path]
        assert len(kept) == 4
        for item in kept:
            assert item.get("text") == "" and item.get("html") is None, (path, item)
            assert "extractor" not in item or item["extractor"] == (EXTRACTOR if path == "/empty" else None)
    stats = webclean_stats(crawler)
    assert stats["webclean/pages/extracted"] == 8  # article and empty page, four types each
    assert stats["webclean/pages/empty"] == 4
    assert stats["webclean/skipped/too_large"] == 4
    assert stats["webclean/skipped/binary"] == 4  # bytes sniffed; decoded text keeps its NULs
    assert "webclean/errors" not in stats


def test_pipeline_leaves_extracted_items_and_items_without_html(make_crawler):
    crawler = make_crawler(**PLUMBING, WEBCLEAN_OFFLOAD="none", WEBCLEAN_KEEP_HTML=True)
    done = {"url": BASE + "/a", "text": "already there", "html": "<p>other words</p>"}
    items = through_pipeline(crawler, [done, {"url": BASE + "/b"}])
    assert items == [done, {"url": BASE + "/b"}]
    assert webclean_stats(crawler) == {"webclean/skipped/no_html": 1}


@pytest.mark.parametrize("offload", ["process", "thread"])
def test_formats_fill_markdown_and_content_html(make_crawler, offload):
    """WEBCLEAN_FORMATS: rendered in the worker, for the middleware's items and the pipeline's."""
    crawler = make_crawler(**PLUMBING, WEBCLEAN_OFFLOAD=offload, WEBCLEAN_FORMATS=["markdown", "html"])
    responses = through_middleware(crawler, BASE, ["/article", "/image.png", "/empty"])
    by_path = {path: exported(CleanedPage.from_response(response)) for path, response in responses.items()}
    article = by_path["/article"]
    assert list(article) == [f for f in FIELD_ORDER if f in article]
    assert "# Old bridge to close for repairs\n\n" in article["markdown"]
    assert "- Section 0\n- Section 1\n" in article["markdown"]  # baseline: the navigation list too
    assert f"<p>{ARTICLE_P1}</p>" in article["content_html"] and "<h1>" in article["content_html"]
    assert "do not extract me" not in article["markdown"] + article["content_html"]
    assert by_path["/image.png"]["markdown"] == by_path["/image.png"]["content_html"] == ""
    assert by_path["/empty"]["markdown"] == ""
    assert "webclean/errors" not in webclean_stats(crawler)

    items = through_pipeline(crawler, raw_items(response_for(BASE, "/article")))
    dict_item = next(item for item in items if item["kind"] == "dict")
    assert (dict_item["markdown"], dict_item["content_html"]) == (article["markdown"], article["content_html"])
    scrapy_item = next(item for item in items if item["kind"] == "scrapy")
    assert "markdown" not in scrapy_item  # item classes only get the fields they declare


def test_formats_fill_only_the_fields_asked_for(make_crawler):
    crawler = make_crawler(**PLUMBING, WEBCLEAN_OFFLOAD="none", WEBCLEAN_FORMATS=["markdown"])
    page = exported(CleanedPage.from_response(through_middleware(crawler, BASE, ["/article"])["/article"]))
    dict_item = through_pipeline(crawler, raw_items(response_for(BASE, "/article")))[0]
    assert "markdown" in page and "content_html" not in page
    assert dict_item["markdown"] == page["markdown"] and "content_html" not in dict_item


def test_formats_setting_is_validated():
    from scrapy.settings import Settings

    from webclean_scrapy.settings import WebcleanSettings

    assert WebcleanSettings.from_settings(Settings({"WEBCLEAN_FORMATS": "markdown,html"})).formats == (
        "markdown",
        "html",
    )
    assert WebcleanSettings.from_settings(Settings({"WEBCLEAN_FORMATS": ["text"]})).formats == ()
    with pytest.raises(ValueError, match="WEBCLEAN_FORMATS"):
        WebcleanSettings.from_settings(Settings({"WEBCLEAN_FORMATS": ["markdown", "pdf"]}))


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


def test_adapter_sees_declared_fields_only():
    # The rule the pipeline relies on: item classes report their fields, dicts do not.
    assert ItemAdapter.get_field_names_from_class(dict) is None
    assert set(ItemAdapter.get_field_names_from_class(PageAttrs)) == {
        "kind",
        "url",
        "html",
        "title",
        "text",
        "language",
    }


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
