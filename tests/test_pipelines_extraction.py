"""The extraction pipeline in-process (items of the four kinds itemadapter supports, with raw HTML, filled with the extraction), the minimum-text filter and the output formats."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import attrs
import pytest
import scrapy
from itemadapter import ItemAdapter
from scrapy.exceptions import DropItem
from scrapy.http import Response, TextResponse
from scrapy.utils.misc import build_from_crawler

from _crawl import make_project, run_crawl
from components import (
    BASE,
    EXTRACTOR,
    MAX_HTML_BYTES,
    PLUMBING,
    ROUTES,
    exported,
    response_for,
    through_middleware,
    webclean_stats,
)
from pages import ARTICLE_P1, gazette_article
from webclean_scrapy.items import FIELD_ORDER, CleanedPage
from webclean_scrapy.pipelines import MinTextFilterPipeline, WebcleanPipeline


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


@pytest.mark.parametrize("offload", ["process", "none"])
def test_markdown_links_setting_puts_links_into_items(make_crawler, offload):
    """WEBCLEAN_MARKDOWN_LINKS: the links reach the items' Markdown (and clean HTML), made absolute,
    through worker processes too; the text does not change."""
    crawler = make_crawler(
        **PLUMBING, WEBCLEAN_OFFLOAD=offload, WEBCLEAN_FORMATS=["markdown", "html"], WEBCLEAN_MARKDOWN_LINKS=True
    )
    page = exported(CleanedPage.from_response(through_middleware(crawler, BASE, ["/article"])["/article"]))
    assert f"- [Section 0]({BASE}/section/0)\n" in page["markdown"]
    assert f'<a href="{BASE}/section/0">Section 0</a>' in page["content_html"]
    dict_item = through_pipeline(crawler, raw_items(response_for(BASE, "/article")))[0]
    assert dict_item["markdown"] == page["markdown"]
    plain = make_crawler(**PLUMBING, WEBCLEAN_OFFLOAD="none", WEBCLEAN_FORMATS=["markdown"])
    before = exported(CleanedPage.from_response(through_middleware(plain, BASE, ["/article"])["/article"]))
    assert "](" not in before["markdown"] and before["text"] == page["text"]


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


# -- one extraction per page: the pipeline reuses the middleware's -------------
REUSE_SETTINGS = """
BOT_NAME = "reuse"
SPIDER_MODULES = ["reuse.spiders"]
ROBOTSTXT_OBEY = False
ADDONS = {"webclean_scrapy.Addon": 0}
WEBCLEAN_MIN_TEXT_CHARS = 0
"""

REUSE_SPIDER = '''
import scrapy


class PagesSpider(scrapy.Spider):
    """The pattern README shows: the raw HTML in an item, for the pipeline to clean."""

    name = "pages"

    async def start(self):
        for path in self.paths.split(","):
            yield scrapy.Request(self.base + path)

    def parse(self, response):
        html = response.body if self.html == "body" else response.text
        yield {"url": response.url, "html": html}
        if response.url.endswith("/edited"):  # HTML that is not the response's: extracted by the pipeline
            yield {"url": response.url, "html": response.text.replace("Old bridge", "New bridge")}
'''

#: An article; a legacy-charset page (declared in the header and the page);
#: a page declaring no charset (ASCII, which Scrapy reads as cp1252); the
#: article again, whose spider also yields an edited copy of its HTML.
REUSE_ROUTES = {
    "/article": (200, {"Content-Type": "text/html; charset=utf-8"}, gazette_article()),
    "/legacy": (
        200,
        {"Content-Type": "text/html; charset=windows-1252"},
        gazette_article("Caf\u00e9 cr\u00e8me on the bridge")
        .replace('charset="utf-8"', 'charset="windows-1252"')
        .encode("cp1252"),
    ),
    "/plain": (200, {"Content-Type": "text/html"}, gazette_article("Plain page").replace('<meta charset="utf-8">', "")),
    "/edited": (200, {"Content-Type": "text/html; charset=utf-8"}, gazette_article()),
}


def _by_url(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(items, key=lambda item: (item["url"], item["title"]))


@pytest.mark.parametrize("html", ["text", "body"])
def test_a_page_is_extracted_once_with_the_middleware_and_the_pipeline_on(tmp_path, local_site, html):
    base = local_site(REUSE_ROUTES)
    project = make_project(tmp_path / "project", "reuse", REUSE_SETTINGS, {"spiders/__init__.py": REUSE_SPIDER})
    args = {"base": base, "paths": ",".join(REUSE_ROUTES), "html": html}
    both = run_crawl("pages", tmp_path / "both", project=project, args=args)
    pipeline_only = run_crawl(
        "pages",
        tmp_path / "pipeline",
        project=project,
        args=args,
        settings={
            "DOWNLOADER_MIDDLEWARES": {"webclean_scrapy.downloadermiddlewares.extraction.WebcleanMiddleware": None}
        },
    )

    # Each page once, by the middleware; the edited copy, which is no response's HTML, by the pipeline.
    pages = len(REUSE_ROUTES)
    assert both.stat("webclean/pages/extracted") == pages + 1, both.prefixed("webclean/")
    edited = len(gazette_article().replace("Old bridge", "New bridge").encode("utf-8"))
    bodies = sum(len(body if isinstance(body, bytes) else body.encode("utf-8")) for _, _, body in REUSE_ROUTES.values())
    assert both.stat("webclean/bytes/html_in") == bodies + edited
    # The same items as the pipeline alone makes, every field, none lost.
    assert len(both.items) == pages + 1
    assert _by_url(both.items) == _by_url(pipeline_only.items)
    assert pipeline_only.stat("webclean/pages/extracted") == pages + 1
    for item in both.items:
        assert "html" not in item and item["text_chars"] == len(item["text"]) > 0
        assert ARTICLE_P1 in item["text"] and item["extractor"] == "webclean"
    titles = {item["title"] for item in both.items}
    assert {"Caf\u00e9 cr\u00e8me on the bridge", "Plain page", "New bridge to close for repairs"} <= titles


def test_a_crawl_asked_for_fewer_fields_carries_them_and_leaves_the_rest_out(tmp_path, local_site):
    """A real crawl with ``WEBCLEAN_FIELDS``: every page extracted once, in
    the worker processes, and each item carries the fields asked for with
    the complete crawl's values; the metadata and the detected language not
    asked for are not in the items at all."""
    base = local_site(REUSE_ROUTES)
    project = make_project(tmp_path / "project", "reuse", REUSE_SETTINGS, {"spiders/__init__.py": REUSE_SPIDER})
    args = {"base": base, "paths": ",".join(REUSE_ROUTES), "html": "text"}
    complete = run_crawl("pages", tmp_path / "complete", project=project, args=args)
    asked = run_crawl(
        "pages", tmp_path / "asked", project=project, args=args, settings={"WEBCLEAN_FIELDS": ["title", "date"]}
    )
    assert asked.stat("webclean/pages/extracted") == complete.stat("webclean/pages/extracted") == len(REUSE_ROUTES) + 1
    left_out = {"author", "date_modified", "sitename", "description", "tags", "image"}
    left_out |= {"detected_language", "language_confidence"}
    for item, full in zip(_by_url(asked.items), _by_url(complete.items)):
        assert set(full) - set(item) == left_out
        assert item == {name: full[name] for name in item}
        assert full["detected_language"] == "en" and item["title"]
