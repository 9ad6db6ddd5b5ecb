"""The outline walks a page's anchors once: links and the article signals' anchor texts from one pass."""

from __future__ import annotations

from scrapy.http import HtmlResponse
from scrapy.linkextractors import LinkExtractor

from pages import DAY, og_article, sample_page
from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.extractors import get_extractor
from webclean_scrapy.engine.page_type.articles import PageSignals
from webclean_scrapy.offload.outline import page_outline

LISTING = sample_page("outline-listing.html")


def test_one_pass_gives_the_signals_a_separate_pass_over_the_anchors_gives():
    url = "https://n.example/world/"
    extractor = get_extractor("baseline")
    doc = Document.from_html(LISTING.encode(), url=url, encoding="utf-8")
    extraction = extractor.extract(doc)
    outline = page_outline(doc, extraction)
    # PageSignals reading the anchors itself: what the outline did before (a second pass).
    assert outline.signals == PageSignals.from_root(doc.root, url, extraction.text, extraction.page_type)
    assert outline.signals.link_chars == sum(len("".join(" ".join(a.itertext()).split())) for a in doc.root.iter("a"))
    assert outline.signals.text_link_share > 0
    # Links and their texts come from the same pass: <a> and <area>, first occurrence, no nofollow.
    assert outline.links == (
        "https://n.example/",
        "https://n.example/world/",
        "https://n.example/2025/03/07/bridge-to-close-for-repairs.html",
        "https://n.example/2025/03/07/council-votes-on-the-new-budget.html",
        "https://n.example/about",
        "https://n.example/map-area",
    )
    assert outline.link_texts[3] == "Council votes on the  new  budget today"  # " ".join(itertext()), as before
    assert outline.link_texts[5] == ""


OUTLINE_PAGE = sample_page("outline-page.html")


def test_outline_follows_scrapy_link_extractor_rules():
    url = "https://n.example/2025/03/07/page.html"
    response = HtmlResponse(url, body=OUTLINE_PAGE.encode("utf-8"), encoding="utf-8")
    expected = [link.url for link in LinkExtractor(unique=True).extract_links(response) if not link.nofollow]
    extractor = get_extractor("baseline")
    doc = Document.from_html(OUTLINE_PAGE.encode("utf-8"), url=url, encoding="utf-8")
    outline = page_outline(doc, extractor.extract(doc))
    assert list(outline.links) == expected
    assert "https://n.example/section/story.html" in outline.links
    assert outline.feeds == ("https://n.example/feed.xml", "https://n.example/section/atom.xml")
    assert outline.signals.og_type == "article" and outline.signals.jsonld_types == frozenset({"newsarticle"})
    assert outline.signals.link_chars > 0


def test_news_spider_reads_the_outline_not_the_page():
    """parse_page takes signals, feeds and links from the worker's outline: the
    response's own selector tree is never built (no parse on the reactor)."""
    import asyncio

    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.settings import Settings
    from scrapy.utils.test import get_reactor_settings

    from webclean_scrapy.downloadermiddlewares.extraction import WebcleanMiddleware
    from webclean_scrapy.items import CleanedPage
    from webclean_scrapy.spiders.news import NewsSpider

    base = "https://n.example"
    url = base + DAY + "story-01-about-the-town-council.html"
    page = og_article(
        "Story",
        extra='<link rel="alternate" type="application/rss+xml" href="/feed.xml">'
        f'<a href="{DAY}story-02-about-the-bridge.html">next</a>',
    )
    # As Crawler.crawl() does: the spider adjusts the settings, then they are applied.
    crawler = Crawler(
        NewsSpider,
        Settings(
            {
                "WEBCLEAN_OFFLOAD": "process",
                "WEBCLEAN_WORKERS": 1,
                "WEBCLEAN_EXTRACTOR": "baseline",
                "TELNETCONSOLE_ENABLED": False,
                **get_reactor_settings(),
            }
        ),
    )
    crawler.spider = NewsSpider.from_crawler(crawler, start_urls=base + "/")
    crawler._apply_settings()
    spider = crawler.spider
    middleware = WebcleanMiddleware.from_crawler(crawler)
    request = Request(url, meta={"depth": 0})
    response = HtmlResponse(url, body=page.encode(), encoding="utf-8", request=request)
    try:
        response = asyncio.run(middleware.process_response(request, response))
    finally:
        middleware.offloader.close()
    out = list(spider.parse_page(response))
    assert response._cached_selector is None  # never parsed here
    assert any(isinstance(x, CleanedPage) for x in out)
    requested = {x.url for x in out if isinstance(x, Request)}
    assert base + "/feed.xml" in requested and base + DAY + "story-02-about-the-bridge.html" in requested
