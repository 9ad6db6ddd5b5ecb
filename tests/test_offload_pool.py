"""Worker processes: native crashes, the per-page time limit, the markup screen,
and the page outline that spares the spiders a second parse on the reactor.

The crawls are real (``tests/_crawl.py``: the ``news`` spider in a subprocess
against a local HTTP server); the misbehaving extractor lives in
``tests/_hostile_extractor.py`` so that fresh worker processes can import it.
"""

from __future__ import annotations

import pytest
from scrapy.http import HtmlResponse
from scrapy.linkextractors import LinkExtractor

from _crawl import run_crawl
from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.extractors import get_extractor
from webclean_scrapy.engine.html.screen import MAX_ATTRIBUTES_PER_ELEMENT, screen_markup
from webclean_scrapy.offload.outline import page_outline
from webclean_scrapy.settings import WebcleanSettings

PARAGRAPH = (
    "The council met on Tuesday evening to discuss the bridge, the budget and the new "
    "library, and residents spoke for over an hour about traffic on the main road. "
)


def article(title: str, extra: str = "") -> str:
    body = "".join(f"<p>{title}: {PARAGRAPH * 3}</p>" for _ in range(6))
    return (
        f'<html><head><title>{title}</title><meta property="og:type" content="article"></head>'
        f"<body><h1>{title}</h1>{extra}{body}</body></html>"
    )


def serve(local_site, pages: dict[str, str], home_links: list[str]) -> str:
    """A news site: robots.txt names a sitemap of the home page and *pages*; the home links *home_links*."""
    html = {"Content-Type": "text/html; charset=utf-8"}
    routes: dict[str, tuple[int, dict[str, str], str]] = {p: (200, html, b) for p, b in pages.items()}
    links = "".join(f'<li><a href="{path}">{path}</a></li>' for path in home_links)
    routes["/"] = (200, html, f"<html><body><h1>Home</h1><ul>{links}</ul></body></html>")
    # Relative <loc> values: the spider resolves them against the sitemap's URL.
    urls = "".join(f"<url><loc>{p}</loc></url>" for p in ["/", *pages])
    routes["/sitemap.xml"] = (
        200,
        {"Content-Type": "application/xml"},
        f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>',
    )
    routes["/robots.txt"] = (200, {"Content-Type": "text/plain"}, "User-agent: *\nAllow: /\nSitemap: /sitemap.xml\n")
    return local_site(routes)


HOSTILE = "tests._hostile_extractor.HostileExtractor"
DAY = "/2025/03/07/"


def test_crashing_and_stuck_pages_lose_nothing_else(tmp_path, local_site):
    """A page that kills its worker (first page of the crawl, and later) is retried
    once in a fresh worker, then skipped and counted; a page that crashed once is
    recovered; pages over WEBCLEAN_PAGE_TIMEOUT are abandoned, whether the worker
    gives up by itself (Python code) or has to be killed (blocked signals, as in C
    code). Every other page comes out, and the crawl never falls back to threads."""
    good = [f"{DAY}story-{n:02d}-about-the-town-council.html" for n in range(1, 15)]
    hostile = [
        f"{DAY}crash-always-first.html",
        f"{DAY}crash-always-later.html",
        f"{DAY}crash-once-then-fine.html",
        f"{DAY}slow-story-of-a-page.html",
        f"{DAY}stuck-story-of-a-page.html",
    ]
    pages = {path: article(f"Story {i}") for i, path in enumerate(good + hostile)}
    base = serve(local_site, pages, good + hostile[1:])
    markers = tmp_path / "markers"
    markers.mkdir()
    result = run_crawl(
        "news",
        tmp_path,
        args={"start_urls": base + hostile[0], "sitemaps": 1},
        settings={
            "WEBCLEAN_EXTRACTOR": HOSTILE,
            "WEBCLEAN_EXTRACTOR_OPTIONS": {"marker_dir": str(markers)},
            "WEBCLEAN_OFFLOAD": "process",
            "WEBCLEAN_WORKERS": 2,
            "WEBCLEAN_PAGE_TIMEOUT": 10,  # generous: the machine may be loaded
            "WEBCLEAN_ALLOW_PRIVATE_ADDRESSES": True,
        },
        timeout=600,
    )
    urls = sorted(item["url"][len(base) :] for item in result.items)
    assert urls == sorted(good + [f"{DAY}crash-once-then-fine.html"])
    recovered = next(i for i in result.items if "crash-once" in i["url"])
    assert PARAGRAPH.strip() in recovered["text"]
    assert (markers / "crash-once-then-fine.html").exists()  # it did crash once
    assert result.stat("webclean/errors/worker_crash") == 2
    assert result.stat("webclean/errors/timeout") == 2
    assert result.stat("webclean/errors") == 4
    assert result.stat("news/unextracted") == 4
    assert "failed to start" not in result.log
    assert "killed 2 worker processes (last: signal SIGSEGV); page skipped" in result.log
    assert "retrying the page in a new worker" in result.log
    assert "slow-story-of-a-page.html took over WEBCLEAN_PAGE_TIMEOUT" in result.log
    assert "its worker was replaced" in result.log  # the stuck page's worker


def attribute_bomb(count: int) -> str:
    # Quoted ">" inside the values must not hide the attributes from the screen.
    attributes = " ".join(f'data-a{i}=">"' for i in range(count))
    return article("Bombed story", extra=f"<div {attributes}>inside the bomb</div>")


@pytest.mark.parametrize("offload", ["process", "thread"])
def test_attribute_bomb_is_screened_in_a_crawl(tmp_path, local_site, offload):
    """A page with 100,000 attributes on one element (about 20 s for libxml2,
    and as long again for a selector on the reactor) is neutralised before any
    parse and still extracted; the spider reads its links from the worker."""
    good = [f"{DAY}story-{n:02d}-about-the-town-council.html" for n in range(1, 4)]
    bomb = f"{DAY}bombed-story-about-the-bridge.html"
    pages = {path: article(f"Story {i}") for i, path in enumerate(good)}
    pages[bomb] = attribute_bomb(100_000).replace(
        "</body>", f'<a href="{DAY}linked-only-from-the-bomb.html">next</a></body>'
    )
    pages[f"{DAY}linked-only-from-the-bomb.html"] = article("Linked from the bomb")
    base = serve(local_site, pages, [bomb, *good])
    result = run_crawl(
        "news",
        tmp_path,
        args={"start_urls": base + "/", "sitemaps": 0},
        settings={
            "WEBCLEAN_EXTRACTOR": "baseline",
            "WEBCLEAN_OFFLOAD": offload,
            "WEBCLEAN_ALLOW_PRIVATE_ADDRESSES": True,
            "CLOSESPIDER_TIMEOUT": 120,
        },
        timeout=600,
    )
    by_path = {item["url"][len(base) :]: item for item in result.items}
    assert sorted(by_path) == sorted([*good, bomb, f"{DAY}linked-only-from-the-bomb.html"])
    assert "inside the bomb" in by_path[bomb]["text"] and PARAGRAPH.strip() in by_path[bomb]["text"]
    assert result.stat("webclean/screened/attributes") == 1
    assert result.stat("finish_reason", "") == "finished"


# ---------------------------------------------------------------------------
# The screen


def test_screen_cuts_overloaded_elements_only():
    bomb = attribute_bomb(5_000).encode()
    screened, reasons = screen_markup(bomb)
    assert reasons == ("attributes",)
    doc = Document.from_html(bomb)
    assert doc.screened == ("attributes",)
    assert len(doc.root.xpath("//div")[0].attrib) == MAX_ATTRIBUTES_PER_ELEMENT
    assert "inside the bomb" in doc.block_columns.text() and "Bombed story" in doc.title
    # Ordinary pages come back as they were, not copied.
    page = article("Plain").encode()
    assert screen_markup(page) == (page, ())
    assert Document.from_html(page).screened == ()


@pytest.mark.parametrize(
    "markup",
    [
        # no blanks between quoted attributes: still separate attributes to libxml2
        "<div " + "".join(f'a{i}="1"' for i in range(3_000)) + ">x</div>",
        # unquoted and valueless attributes
        "<p " + " ".join(f"a{i}" for i in range(3_000)) + ">x</p>",
        # an overloaded tag right after a comment and a script holding "<" and quotes
        '<!-- <b \'" --><script>if (a<b) { s = "\'" }</script><i ' + " ".join(f"b{i}=2" for i in range(3_000)) + ">",
    ],
)
def test_screen_sees_through_quotes_and_separators(markup):
    screened, reasons = screen_markup(markup.encode())
    assert reasons == ("attributes",)
    assert len(screened) < len(markup)


@pytest.mark.parametrize(
    "markup",
    [
        # "<" followed by many words inside a script, a comment, a quoted value: not tags
        "<script>var x = 1; if (i<n) {" + " y" * 3_000 + "}</script><p>text</p>",
        "<!-- <b" + " c" * 3_000 + " -->",
        '<img alt="<svg' + " d" * 3_000 + '">',
        # many attributes, but within the bound
        "<div " + " ".join(f"a{i}=1" for i in range(MAX_ATTRIBUTES_PER_ELEMENT)) + ">x</div>",
    ],
)
def test_screen_leaves_ordinary_markup_alone(markup):
    assert screen_markup(markup.encode()) == (markup.encode(), ())


# ---------------------------------------------------------------------------
# The outline


OUTLINE_PAGE = """<html><head><base href="/section/">
<link rel="alternate" type="application/rss+xml" href="/feed.xml">
<link rel="Alternate" type="application/atom+xml" href=" atom.xml ">
<meta property="og:type" content="Article">
<script type="application/ld+json">{"@type": "NewsArticle"}</script>
</head><body>
<a href="story.html">Story</a> <a href=" /abs?x=1#frag ">Abs</a>
<a href="story.html">again</a> <a href="paper.pdf">PDF</a> <a href="javascript:void(0)">js</a>
<a href="mailto:x@example.com">mail</a> <a rel="nofollow" href="/ads">ad</a> <a href="/ads">ad again</a>
<a href="http://other.example/caf\u00e9 x">other</a> <map><area href="/area" alt=""></map>
<a href="http://[bad">bad</a> <a>no href</a> <a href="/files/archive.TAR.GZ">tgz</a> <a href="/pdf">pdf</a>
</body></html>"""


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


def test_worker_pids_name_the_running_workers():
    """What benchmarks/crawl.py reads the extraction workers' CPU time from."""
    import os
    import time

    from webclean_scrapy.offload import WorkerPool

    pool = WorkerPool(2, "default", {}, None)
    try:
        ran_in = {pool.submit(os.getpid).result(timeout=300) for _ in range(4)}
        deadline = time.monotonic() + 300  # a loaded machine starts the second worker late
        while len(pool.worker_pids()) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        pids = pool.worker_pids()
        assert len(set(pids)) == 2 and os.getpid() not in pids
        assert ran_in <= set(pids)
        for pid in pids:
            os.kill(pid, 0)  # alive
    finally:
        pool.shutdown()
    assert pool.worker_pids() == []


def test_page_timeout_setting():
    from scrapy.settings import Settings

    assert WebcleanSettings.from_settings(Settings()).page_timeout == 30.0
    assert WebcleanSettings.from_settings(Settings()).outline is False  # the news spider turns it on
    assert WebcleanSettings.from_settings(Settings({"WEBCLEAN_PAGE_TIMEOUT": "2.5"})).page_timeout == 2.5
    assert WebcleanSettings.from_settings(Settings({"WEBCLEAN_PAGE_TIMEOUT": 0})).page_timeout is None
    with pytest.raises(ValueError, match="WEBCLEAN_PAGE_TIMEOUT"):
        WebcleanSettings.from_settings(Settings({"WEBCLEAN_PAGE_TIMEOUT": -1}))


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
    page = article(
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
