"""The ``news`` spider: article detection rules, URL keys, real crawls of a local news site, of a site
that misbehaves in every way a real one does, and of a site built for coverage (every article once,
no hub, no false duplicate)."""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator

import pytest
from parsel import Selector

from _crawl import Crawl, refused_crawl, run_crawl, start_crawl
from http_server import TestSite
from pages import (
    A1,
    A2,
    A3,
    A4,
    A7,
    A8,
    A9,
    ARTICLES,
    CHARSET_TEXT,
    courier_article,
    courier_hub,
    story_paragraphs,
)
from webclean_scrapy.engine.page_type.articles import (
    PageSignals,
    classify,
    content_fingerprint,
    headline_matches,
    is_hub_url,
    jsonld_types,
    linked_share,
    prose_share,
)
from webclean_scrapy.fingerprint import canonical_key, site_of, strip_tracking
from webclean_scrapy.spiders.news import feed_links, read_start_urls

# ---------------------------------------------------------------------------
# URL keys


def test_the_news_spider_asks_for_the_title_it_reads():
    """The story-or-hub rule reads each page's title: a crawl asked for fewer
    fields gets it added, and a complete crawl stays complete."""
    from scrapy.crawler import Crawler
    from scrapy.settings import Settings

    from webclean_scrapy.settings import WebcleanSettings
    from webclean_scrapy.spiders.news import NewsSpider

    def fields_of(settings: dict) -> tuple[str, ...] | None:
        # As a crawl does: the spider is made before the settings are frozen and the components built.
        crawler = Crawler(NewsSpider, Settings(settings))
        NewsSpider.from_crawler(crawler, start_urls="https://news.example/")
        return WebcleanSettings.from_settings(crawler.settings).fields

    assert fields_of({"WEBCLEAN_FIELDS": ["date"]}) == ("title", "date")
    assert fields_of({"WEBCLEAN_FIELDS": ["title"]}) == ("title",)
    assert fields_of({}) is None


def test_strip_tracking_keeps_real_parameters_in_order():
    url = "https://ex.com/a/story?id=7&utm_source=rss&b=2&fbclid=XYZ&UTM_Campaign=x#comments"
    assert strip_tracking(url) == "https://ex.com/a/story?id=7&b=2"
    assert strip_tracking("https://ex.com/a?utm_medium=x") == "https://ex.com/a"
    assert strip_tracking("https://ex.com/a#top", keep_fragment=True) == "https://ex.com/a#top"
    assert strip_tracking("https://ex.com/plain") == "https://ex.com/plain"


def test_canonical_key_and_site():
    assert canonical_key("HTTP://Ex.COM/a?b=2&a=1&gclid=9#x") == canonical_key("http://ex.com/a?a=1&b=2")
    assert canonical_key("http://ex.com/a?page=2") != canonical_key("http://ex.com/a?page=3")
    assert site_of("https://WWW.Example.com:8080/x") == "example.com"
    assert site_of("https://blog.example.com/") == "blog.example.com"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"start_urls": "not-a-url"}, "-a start_urls: not an http(s) URL: 'not-a-url'"),
        ({"start_urls": "https://news.example/", "max_pages": "zero"}, "-a max_pages= must be an integer, got 'zero'"),
        ({"start_urls_file": "no-such-file.txt"}, "-a start_urls_file: cannot read no-such-file.txt:"),
        ({}, "the news spider needs -a start_urls=URL"),
    ],
    ids=["url", "max_pages", "file", "none"],
)
def test_a_bad_argument_stops_scrapy_crawl_in_one_line(tmp_path, args, message):
    log = refused_crawl("news", tmp_path, args=args, message=message)
    assert f"ERROR: Cannot start the news spider: {message}" in log


def test_read_start_urls(tmp_path):
    listing = tmp_path / "urls.txt"
    listing.write_text("# news sites\nhttps://a.example/\n\nb.example/news  # no scheme\n", encoding="utf-8")
    assert read_start_urls("https://c.example/?utm_source=x, ", str(listing)) == [
        "https://c.example/",
        "https://a.example/",
        "https://b.example/news",
    ]
    with pytest.raises(ValueError, match="start_urls"):
        read_start_urls(None, None)
    with pytest.raises(ValueError, match="not an http"):
        read_start_urls("ftp://files.example/", None)
    # A word without a dot is a typo, not a host to retry DNS for; an explicit scheme is taken at its word.
    for bad in ("not-a-url", "not a url.example", "https://", "http://host:port/"):
        with pytest.raises(ValueError, match="start_urls: not an http"):
            read_start_urls(bad, None)
    assert read_start_urls("localhost:8080/news,http://intranet/", None) == [
        "https://localhost:8080/news",
        "http://intranet/",
    ]


# ---------------------------------------------------------------------------
# Article vs hub rules

LONG_TEXT = "word " * 400  # 1600 non-space characters


def signals(url: str, html: str = "<html></html>", text: str = LONG_TEXT) -> PageSignals:
    return PageSignals.from_selector(Selector(text=html), url, text)


@pytest.mark.parametrize(
    "url",
    [
        "https://n.example/2024/05/12/some-story/",
        "https://n.example/news/2024-05-12-short/",
        "https://n.example/politics/council-votes-to-rebuild-the-harbour-wall",
        "https://n.example/story.php?id=482133",
    ],
)
def test_article_urls_with_plain_text(url):
    assert classify(signals(url)).is_article


@pytest.mark.parametrize(
    "url",
    [
        "https://n.example/",
        "https://n.example/index.html",
        "https://n.example/tag/energy/",
        "https://n.example/category/local",
        "https://n.example/section/world/page/2/",
        "https://n.example/world/?page=3",
        "https://n.example/author/jane-doe-writes-here/",
    ],
)
def test_hub_urls(url):
    verdict = classify(signals(url, text="teaser " * 30))
    assert not verdict.is_article
    assert "hub_url:-3" in verdict.reasons


@pytest.mark.parametrize(
    ("url", "section"),
    [
        ("https://n.example/sport", True),
        ("https://n.example/news/local/", True),
        ("https://n.example/news/local", False),  # a page named "local", not a folder
        ("https://n.example/news/council-approves-new-harbour-wall/", False),
        ("https://n.example/news/2024/", False),
        ("https://n.example/news/story-48213/", False),
    ],
)
def test_section_urls(url, section):
    # A section's folder (one word, ending in "/") counts against an article, as a one-segment address does.
    verdict = classify(signals(url, text="teaser " * 30))
    assert ("section_url:-1" in verdict.reasons) is section


def test_metadata_outweighs_a_plain_url():
    og = '<html><head><meta property="og:type" content="article"></head></html>'
    assert classify(signals("https://n.example/world/", og)).is_article
    listing = '<script type="application/ld+json">{"@type": "CollectionPage"}</script>'
    verdict = classify(signals("https://n.example/world/", listing, text="teaser " * 100))
    assert not verdict.is_article and "jsonld:-2" in verdict.reasons


def test_predicted_page_type_tips_a_section_shaped_url():
    url = "https://n.example/world/"
    text = "A plain story with no metadata at all. " * 12
    assert not classify(PageSignals.from_selector(Selector(text="<html></html>"), url, text)).is_article
    verdict = classify(PageSignals.from_selector(Selector(text="<html></html>"), url, text, "article"))
    assert verdict.is_article and "page_type:+2" in verdict.reasons
    story_url = "https://n.example/politics/council-votes-to-rebuild-the-harbour-wall"
    assert classify(PageSignals.from_selector(Selector(text="<html></html>"), story_url, text)).is_article
    listing = classify(PageSignals.from_selector(Selector(text="<html></html>"), story_url, text, "listing"))
    assert not listing.is_article and "page_type:-2" in listing.reasons


def test_jsonld_graph_and_lists_are_read_but_nested_nodes_are_not():
    graph = json.dumps(
        {
            "@context": "https://schema.org",
            "@graph": [
                {"@type": "WebSite"},
                {"@type": ["WebPage"]},
                {"@type": "NewsArticle", "publisher": {"@type": "Organization"}},
            ],
        }
    )
    assert set(jsonld_types([graph])) == {"website", "webpage", "newsarticle"}
    listing = json.dumps({"@type": "ItemList", "itemListElement": [{"item": {"@type": "NewsArticle"}}]})
    assert list(jsonld_types([listing, "{not json", "[1, 2]", '{"@type": 5}'])) == ["itemlist"]
    assert list(jsonld_types(['[{"@type": "https://schema.org/BlogPosting"}]'])) == ["blogposting"]


def test_link_density_separates_listings_from_stories():
    """The link density of the extracted text: a listing's text is its linked headlines."""
    headlines = [f"Headline number {i} about the town" for i in range(40)]
    html = "<html><body>" + "".join(f'<a href="/s{i}">{h}</a>' for i, h in enumerate(headlines)) + "</body></html>"
    url = "https://n.example/local-news-roundup-for-this-week/"  # article-shaped slug
    listing = "\n".join(f"{h}\nShort teaser." for h in headlines)
    verdict = classify(signals(url, html, text=listing))
    assert not verdict.is_article and "link_density:-2" in verdict.reasons
    assert classify(signals(url, "<html><body><a href='/'>Home</a></body></html>")).is_article
    # A story under a menu with more link text than the story itself: no longer a listing.
    story = "The council met on Tuesday and agreed the budget for the coming year after a debate. " * 8
    verdict = classify(signals(url, html, text=story))
    assert verdict.is_article and "link_density:+1" in verdict.reasons


def test_feed_links_parse_rss_atom_and_reject_garbage():
    rss = b"<?xml version='1.0'?><rss><channel><item><link> http://a/1 </link></item><item><link>http://a/2</link></item></channel></rss>"
    atom = (
        b"<feed xmlns='http://www.w3.org/2005/Atom'><entry><link rel='alternate' href='http://a/3'/>"
        b"<link rel='edit' href='http://a/edit'/></entry></feed>"
    )
    assert feed_links(rss) == ["http://a/1", "http://a/2"]
    assert feed_links(atom) == ["http://a/3"]
    assert feed_links(b"") is None
    assert feed_links(b"<html><body>nope</body></html>") is None
    assert feed_links(b"\x00\x01garbage") is None
    xxe = b"<?xml version='1.0'?><!DOCTYPE r [<!ENTITY x SYSTEM 'file:///etc/passwd'>]><rss><item><link>&x;</link></item></rss>"
    assert feed_links(xxe) == []


# ---------------------------------------------------------------------------
# A local news site


@pytest.fixture(scope="module")
def shared_crawls(news_site, coverage_site, tmp_path_factory) -> Iterator[dict[str, Crawl]]:
    """The crawls many tests of this module read, of two sites of their own, started together so that they
    overlap; ``news_crawl`` and ``coverage_crawl`` each wait for theirs. (The faulty site's crawl runs alone:
    its pages must answer within a short ``DOWNLOAD_TIMEOUT``.)"""
    crawls = {
        "news": start_crawl("news", tmp_path_factory.mktemp("news"), args={"start_urls": news_site.url("/")}),
        "coverage": start_crawl(
            "news", tmp_path_factory.mktemp("coverage"), args={"start_urls": coverage_site.url("/")}
        ),
    }
    yield crawls
    for crawl in crawls.values():  # a crawl no selected test waited for
        if crawl.proc.poll() is None:
            crawl.proc.kill()
            crawl.proc.wait()


@pytest.fixture(scope="module")
def news_crawl(shared_crawls):
    return shared_crawls["news"].finish()


def test_news_crawl_emits_each_article_once(news_site, news_crawl):
    urls = sorted(item["url"] for item in news_crawl.items)
    assert urls == sorted(news_site.url(a) for a in ARTICLES), news_crawl.stats
    by_url = {item["url"]: item for item in news_crawl.items}
    # Declared canonicals are absolute; a page without one is its own canonical.
    for path in ARTICLES[:-1]:
        assert by_url[news_site.url(path)]["canonical_url"] == news_site.url(path)
    assert by_url[news_site.url(A9 + "?from=home")]["canonical_url"] == news_site.url("/private" + A9)
    # The print copy (same text, no canonical) and the ?from=section variant are duplicates.
    assert news_crawl.stat("news/duplicates") == 2
    assert news_crawl.stat("news/deferred_to_canonical") == 2  # ?from=section and ?from=home
    assert news_crawl.stat("news/items") == 9


def test_news_items_fields(news_site, news_crawl):
    by_url = {item["url"]: item for item in news_crawl.items}
    a1 = by_url[news_site.url(A1)]
    assert list(a1)[:4] == ["url", "canonical_url", "status", "fetched_at"]
    assert a1["status"] == 200
    assert a1["title"] == "Council approves new harbour wall"
    assert "moved a step closer this week" in a1["text"]
    assert "<p>" not in a1["text"] and "og:type" not in a1["text"]  # extracted text, not markup
    assert a1["text_chars"] == len(a1["text"]) and 0 < a1["text_chars"] < a1["html_bytes"]
    assert a1["language"] == "en" and a1["extractor"]
    assert "query" not in a1 and "rank" not in a1 and "html" not in a1
    # The redirect's target is the item's URL.
    assert by_url[news_site.url(A4)]["status"] == 200
    # Mislabelled charset (ISO-8859-1 declared, Windows-1252 bytes) still decodes sensibly.
    assert CHARSET_TEXT in by_url[news_site.url(A7)]["text"]


def test_news_crawl_stats(news_crawl):
    stats = news_crawl.prefixed("news/")
    assert stats["news/pages"] == 18  # 7 hubs + 9 articles + variant + print copy
    assert stats["news/hubs"] == 7
    assert stats["news/articles"] == 11
    assert stats["news/sitemaps"] == 3  # index + news sitemap + gzip sitemap
    assert stats["news/malformed_sitemaps"] == 1
    assert stats["news/feeds"] == 1
    assert stats["news/malformed_feeds"] == 1
    assert stats["news/non_html"] == 1  # /download/brochure (PDF without .pdf)
    assert stats["news/errors"] == 3
    assert stats["news/errors/http_404"] == 1
    assert stats["news/errors/ignored"] == 2  # robots.txt: /private/...
    assert stats["news/offsite_links"] == 1
    assert "news/sitemap_probes_missed" not in stats  # robots.txt named the sitemap


def test_news_crawl_requests(news_site, news_crawl):
    hits = news_site.hits
    assert "/offsite-page/" not in hits  # off-site link not followed
    assert "/files/annual-report.pdf" not in hits  # binary extension not fetched
    assert "/private/members-only-briefing/" not in hits
    # Tracking-parameter and fragment variants were never requested.
    assert not [h for h in hits if "utm_" in h or "#" in h]
    for path in ARTICLES:
        if path != A8:
            assert hits.count(path) == 1, (path, hits)
    assert not [h for h in hits if h.startswith("/private/")]


def test_news_max_pages_and_depth(news_site, tmp_path):
    # Two independent crawls of the same site, run side by side.
    limited = start_crawl(
        "news", tmp_path, args={"start_urls": news_site.url("/"), "max_pages": 3, "sitemaps": 0, "feeds": 0}
    )
    deep = start_crawl(
        "news", tmp_path / "depth", args={"start_urls": news_site.url("/"), "max_depth": 1, "sitemaps": 0, "feeds": 0}
    )
    result, shallow = limited.finish(), deep.finish()
    assert result.stat("news/pages") == 3
    assert result.stats["finish_reason"] == "max_pages"
    urls = {item["url"] for item in shallow.items}
    # Depth 1 = links of the home page only: A7 (section page 2) and A5 (sitemap) are out of reach.
    assert urls == {news_site.url(a) for a in (A1, A2, A3, A4, A9 + "?from=home")}


def test_news_probes_common_sitemap_paths(tmp_path):
    site = TestSite()
    site.add("/", courier_hub("Tiny", [A1]))
    site.add(
        A1,
        courier_article(
            "Council approves new harbour wall",
            story_paragraphs("the new harbour wall", "Eastport", "Mayor Ruth Allen"),
        ),
    )
    site.add("/sitemap_index.xml", "<html><body>Soft 404</body></html>")
    site.add(
        "/news-sitemap.xml",
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        "<url><loc>{{BASE}}/2024/01/01/a-story-from-the-news-sitemap/</loc></url></urlset>",
        "application/xml",
    )
    site.add(
        "/2024/01/01/a-story-from-the-news-sitemap/",
        courier_article(
            "A story from the news sitemap", story_paragraphs("the sitemap story", "Northgate", "Ada Byrne")
        ),
    )
    with site:
        result = run_crawl("news", tmp_path, args={"start_urls": site.url("/")})
    assert sorted(i["url"] for i in result.items) == [
        site.url("/2024/01/01/a-story-from-the-news-sitemap/"),
        site.url(A1),
    ]
    assert result.stat("news/sitemaps") == 1
    assert result.stat("news/sitemap_probes_missed") == 3  # two 404s and one HTML soft 404
    assert {"/sitemap.xml", "/sitemap_index.xml", "/news-sitemap.xml", "/sitemap-news.xml"} <= set(site.hits)


def test_large_feed_and_sitemap_are_read_off_the_reactor_and_capped(tmp_path):
    # Megabytes of XML listing tens of thousands of URLs: parsed in a worker process, and only the
    # first WEBCLEAN_MAX_FEED_LINKS entries of each are followed (none of the rest is ever fetched).
    count = 40_000
    site = TestSite()
    stories = {A1: "the new harbour wall", A2: "the otter survey", A3: "the library hours"}
    for path, topic in stories.items():
        site.add(path, courier_article(f"News about {topic}", story_paragraphs(topic, "Eastport", "Ada Byrne")))
    feed_head = '<link rel="alternate" type="application/rss+xml" href="/feed.xml">'
    site.add("/", courier_hub("Home", [], extra_head=feed_head))
    site.add("/robots.txt", "User-agent: *\nSitemap: {{BASE}}/sitemap.xml\n", "text/plain")
    items = "".join(f"<item><link>{{{{BASE}}}}/gone/feed-{i}/</link></item>" for i in range(count))
    site.add(
        "/feed.xml",
        f'<?xml version="1.0"?><rss version="2.0"><channel><item><link>{{{{BASE}}}}{A1}</link></item>'
        f"<item><link>{{{{BASE}}}}{A2}?utm_source=rss</link></item>{items}</channel></rss>",
        "application/rss+xml",
    )
    urls = "".join(f"<url><loc>{{{{BASE}}}}/gone/sitemap-{i}/</loc></url>" for i in range(count))
    site.add(
        "/sitemap.xml",
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<url><loc>{{{{BASE}}}}{A3}</loc></url><url><loc>{{{{BASE}}}}{A1}</loc></url>{urls}</urlset>",
        "application/xml",
    )
    assert len(site.routes["/feed.xml"].body) > 2_000_000
    with site:
        result = run_crawl(
            "news", tmp_path, args={"start_urls": site.url("/")}, settings={"WEBCLEAN_MAX_FEED_LINKS": 2}
        )
        hits = list(site.hits)
    assert sorted(i["url"] for i in result.items) == sorted(site.url(path) for path in stories), result.stats
    assert result.stat("news/feed_urls") == 2 and result.stat("news/sitemap_urls") == 2
    assert result.stat("news/feeds/truncated") == count
    assert result.stat("news/sitemaps/truncated") == count
    assert not [hit for hit in hits if hit.startswith("/gone/")]
    # Read by the extraction workers (another process), not on the reactor thread.
    assert result.stat("news/listings/off_reactor") == 2
    assert result.log.count("more URLs than WEBCLEAN_MAX_FEED_LINKS") == 1, result.log[-3000:]


def test_project_lists_both_spiders(monkeypatch):
    """What ``scrapy list`` lists from the repository root: scrapy.cfg's project, its SPIDER_MODULES."""
    import sys

    from scrapy.spiderloader import SpiderLoader
    from scrapy.utils.project import get_project_settings

    from _crawl import REPO_ROOT

    monkeypatch.chdir(REPO_ROOT)
    monkeypatch.setattr(sys, "path", list(sys.path))  # scrapy.cfg's directory goes on it
    monkeypatch.setenv("SCRAPY_SETTINGS_MODULE", "unset")
    monkeypatch.delenv("SCRAPY_SETTINGS_MODULE")  # found through scrapy.cfg, and unset again afterwards
    assert sorted(SpiderLoader.from_settings(get_project_settings()).list()) == ["harvest", "news"]


def test_spiders_reject_a_bad_url_at_start(tmp_path):
    """``scrapy crawl`` stops at once with the reason, instead of retrying DNS for https://not-a-url."""
    crawl = start_crawl("news", tmp_path, args={"start_urls": "not-a-url"}, settings={"LOG_LEVEL": "INFO"})
    assert crawl.wait() != 0
    log = crawl.log
    assert "not an http(s) URL: 'not-a-url'" in log, log[-3000:]
    assert "Spider opened" not in log and "not-a-url/" not in log  # nothing was requested


def test_harvest_rejects_a_bad_search_url_when_built():
    """The same check in every spider, when Scrapy builds it (in-process: the crawl above shows the exit)."""
    from scrapy.utils.test import get_crawler

    from webclean_scrapy.spiders import HarvestSpider

    crawler = get_crawler(HarvestSpider)
    with pytest.raises(ValueError) as caught:
        HarvestSpider.from_crawler(crawler, query="the", search_url="not-a-url")
    assert str(caught.value) == (
        "-a search_url: not an http(s) URL: 'not-a-url' (a URL without a scheme needs a domain name, like news.example)"
    )


# -- a site that misbehaves ------------------------------------------------------------------------
# The ``news`` spider against a local site that misbehaves in every way a real one does.
#
# Pages answer 500, hang past ``DOWNLOAD_TIMEOUT``, reset the connection in
# mid-body, exceed ``DOWNLOAD_MAXSIZE``, lie about their Content-Type, send
# truncated gzip or redirect in a loop. The crawl must finish, every good
# article must come out, each failure is counted under ``news/errors/<reason>``
# and logged once, at the level Scrapy itself uses.
GOOD = {
    "/2024/06/01/council-approves-new-harbour-wall/": ("the new harbour wall", "Eastport", "Mayor Ruth Allen"),
    "/2024/06/02/river-survey-finds-returning-otters/": ("the otter survey", "the Dee valley", "Dr Priya Nair"),
    "/2024/06/03/library-extends-weekend-hours/": ("longer library hours", "Millbrook", "Tom Okafor"),
    "/2024/06/04/ferry-timetable-changes-for-summer/": ("the ferry timetable", "Port Carrow", "Ines Moreau"),
    "/2024/06/05/bakery-wins-regional-bread-award/": ("the sourdough award", "Kettleby", "Sam Whitlock"),
}
#: Good articles served with a Content-Type that says they are not HTML.
MISLABELLED = {
    "/2024/06/06/png-labelled-story-about-the-fair/": "image/png",
    "/2024/06/07/octet-stream-story-about-the-choir/": "application/octet-stream",
}
SERVER_ERROR = "/2024/06/10/server-error-story-about-roads/"
HANG = "/2024/06/11/slow-story-about-the-bridge/"
RESET = "/2024/06/12/reset-story-about-the-school/"
HUGE = "/2024/06/13/huge-story-about-the-archive/"
BINARY = "/2024/06/14/binary-served-as-html-page/"
TRUNCATED_GZIP = "/2024/06/15/truncated-gzip-story-about-rain/"
LOOP = "/2024/06/16/redirect-loop-story/"
FAULTS = [SERVER_ERROR, HANG, RESET, HUGE, BINARY, TRUNCATED_GZIP, LOOP]

TIMEOUT = 3  # DOWNLOAD_TIMEOUT of the test crawls, seconds
MAXSIZE = 100_000  # DOWNLOAD_MAXSIZE of the test crawls, bytes
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 20


def story(path: str, topic: str, place: str, person: str) -> str:
    title = " ".join(path.strip("/").split("/")[-1].split("-")).capitalize()
    return courier_article(title, story_paragraphs(topic, place, person), canonical="{{BASE}}" + path)


def build_faulty_site(site: TestSite) -> None:
    site.add("/robots.txt", "User-agent: *\nAllow: /\n", "text/plain")
    site.add("/", courier_hub("Valley Courier", [*GOOD, *MISLABELLED, *FAULTS]))
    for path in ("/section/world/", "/section/science/", "/tag/energy/", "/about/", "/privacy/"):
        site.add(path, courier_hub(path.strip("/").title(), list(GOOD)[:2]))
    for path, words in GOOD.items():
        site.add(path, story(path, *words))
    for path, content_type in MISLABELLED.items():
        site.add(path, story(path, f"the story at {path[12:30]}", "Hollins Green", "Beth Carey"), content_type)
    body = story(SERVER_ERROR, "road repairs", "Northgate", "Ada Byrne")
    site.add(SERVER_ERROR, body, status=500)
    site.add_fault(HANG, story(HANG, "the bridge", "Westford", "Lee Chan"), delay=60)
    site.add_fault(RESET, story(RESET, "the new school", "Ashby", "Kim Novak"), reset_after=400)
    padding = "<p>" + "An archive paragraph that goes on and on. " * 40 + "</p>"
    site.add(
        HUGE,
        story(HUGE, "the archive", "Oldham", "Ravi Shah").replace(
            "</article>", padding * (MAXSIZE // len(padding) + 2) + "</article>"
        ),
    )
    site.add(BINARY, PNG, "text/html; charset=utf-8")
    page = story(TRUNCATED_GZIP, "the rain", "Fenwick", "Jo March").replace("{{BASE}}", site.base_url)
    whole = gzip.compress(page.encode())
    site.add(TRUNCATED_GZIP, whole[: len(whole) // 2], **{"Content-Encoding": "gzip"})  # type: ignore[arg-type]  # a header name is no identifier
    site.add(LOOP, b"", status=302, Location=site.url(LOOP + "next/"))
    site.add(LOOP + "next/", b"", status=302, Location=site.url(LOOP))


@pytest.fixture(scope="module")
def faulty_site():
    site = TestSite()
    build_faulty_site(site)
    with site:
        yield site


def crawl(site: TestSite, tmp_path, **settings):
    return run_crawl(
        "news",
        tmp_path,
        args={"start_urls": site.url("/"), "sitemaps": 0},
        timeout=300,
        settings={"DOWNLOAD_TIMEOUT": TIMEOUT, "DOWNLOAD_MAXSIZE": MAXSIZE, "LOG_LEVEL": "INFO", **settings},
    )


def log_lines(stderr: str, level: str, needle: str) -> list[str]:
    return [line for line in stderr.splitlines() if f"] {level}: " in line and needle in line]


@pytest.fixture(scope="module")
def fault_crawl(faulty_site, tmp_path_factory):
    return crawl(faulty_site, tmp_path_factory.mktemp("faults"))


def test_every_good_article_comes_out(faulty_site, fault_crawl):
    urls = {item["url"] for item in fault_crawl.items}
    expected = {faulty_site.url(p) for p in [*GOOD, *MISLABELLED]}
    assert expected <= urls, fault_crawl.stats
    # Only the truncated gzip page may add an item (its text is whatever survived).
    assert urls - expected <= {faulty_site.url(TRUNCATED_GZIP)}
    assert fault_crawl.stats["finish_reason"] == "finished"
    assert len(urls) == len(fault_crawl.items)
    for item in fault_crawl.items:
        if item["url"] in expected:
            assert "council chamber" in item["text"] and "\ufffd" not in item["text"]


def test_each_failure_is_counted(fault_crawl):
    stats = fault_crawl.prefixed("news/errors")
    assert stats["news/errors/http_500"] == 1
    assert stats["news/errors/DownloadTimeoutError"] == 1
    assert stats["news/errors/DownloadCancelledError"] == 1  # DOWNLOAD_MAXSIZE
    reset = {
        k: v
        for k, v in stats.items()
        if k
        not in {
            "news/errors",
            "news/errors/http_500",
            "news/errors/DownloadTimeoutError",
            "news/errors/DownloadCancelledError",
            "news/errors/ignored",
            "news/errors/redirect_loop",
        }
    }
    assert sum(reset.values()) == 1, stats  # the connection reset, under Scrapy's exception name
    # The redirect loop: dropped by the dupefilter, counted by the spider (request_dropped).
    assert stats["news/errors/redirect_loop"] == 1
    assert stats["news/errors"] == 5 + stats.get("news/errors/ignored", 0)
    # Binary bytes labelled text/html are never extracted.
    assert fault_crawl.stat("webclean/skipped/binary") == 1
    assert fault_crawl.stat("news/non_html") == 1


def test_each_failure_is_logged_once_at_scrapys_level(faulty_site, fault_crawl):
    err = fault_crawl.log
    # HttpErrorMiddleware's own message and level (it stays silent when an errback handles the error).
    assert len(log_lines(err, "INFO", f"Ignoring response <500 {faulty_site.url(SERVER_ERROR)}>")) == 1
    # Download errors: the log formatter's "Error downloading" at ERROR, one line each.
    for path, reason in ((HANG, "took longer than 3.0 seconds"), (RESET, "ResponseDataLossError")):
        lines = log_lines(err, "ERROR", f"Error downloading <GET {faulty_site.url(path)}>: ")
        assert len(lines) == 1 and reason in lines[0], err[-3000:]
    # DOWNLOAD_MAXSIZE: Scrapy's download handler already warned; no second message.
    assert len(log_lines(err, "WARNING", f"{faulty_site.url(HUGE)}")) == 1
    assert not [line for line in err.splitlines() if HUGE in line and "ERROR" in line]
    assert "Traceback" not in err and "Spider error" not in err
    assert len(log_lines(err, "ERROR", "Error downloading")) == 2
    # The redirect loop, which Scrapy drops silently: one WARNING naming its URL.
    loops = log_lines(err, "WARNING", "Redirect loop")
    assert len(loops) == 1 and f"Redirect loop: {faulty_site.url(LOOP)} leads back to itself" in loops[0], loops


def test_retried_failures_are_logged_by_retry_middleware_only(faulty_site, tmp_path):
    result = crawl(faulty_site, tmp_path, RETRY_ENABLED=True, RETRY_TIMES=1)
    assert {faulty_site.url(p) for p in [*GOOD, *MISLABELLED]} <= {i["url"] for i in result.items}
    err = result.log
    for path in (SERVER_ERROR, HANG, RESET):
        gave_up = [line for line in log_lines(err, "ERROR", "Gave up retrying") if faulty_site.url(path) in line]
        assert len(gave_up) == 1, err[-3000:]
    assert not log_lines(err, "ERROR", "Error downloading")
    assert not log_lines(err, "INFO", "Ignoring response <500")
    assert result.stat("news/errors/http_500") == 1 and result.stat("news/errors/DownloadTimeoutError") == 1
    assert result.stat("retry/max_reached") == 3
    assert re.search(r"\] WARNING: .*" + re.escape(faulty_site.url(HUGE)), err)


# -- coverage: every article once, no hub, no false duplicate --------------------------------------
# A local site built after the misses measured on a held-out news site:
#
# * short articles (500-1,000 characters, ``og:type`` "website", no JSON-LD,
#   slug URLs without dates) under a large menu, which were judged hubs;
# * articles whose ``rel=canonical`` points to the home page or to their
#   section (a misconfigured CMS), and short articles that share a page's
#   boilerplate and teasers but not their text, which were counted as
#   duplicates;
# * a short notice whose text sits directly in a ``<div>`` after two images
#   (no ``<p>``), which once extracted empty (fixed in the extractor).
#
# Hubs (home, sections, a sub-section without a hub-shaped URL, a tag page,
# pagination) must all be followed and none emitted; a print copy of an
# article (same text, no canonical) is the one true duplicate.
SECTIONS = (
    "news",
    "sport",
    "community",
    "business",
    "schools",
    "health",
    "transport",
    "environment",
    "culture",
    "food-and-drink",
    "property",
    "jobs",
    "weather",
    "opinion",
    "letters",
    "obituaries",
    "photos",
    "video",
    "podcasts",
    "events",
    "what-s-on",
    "puzzles",
    "motoring",
    "travel",
)
HILLTOWN_MENU = "".join(
    f'<li><a href="/{s}/">{s.replace("-", " ").title()}</a><ul>'
    + "".join(
        f'<li><a href="/{s}/?view={v}">{s.replace("-", " ").title()} {v}</a></li>'
        for v in ("latest", "popular", "archive")
    )
    + "</ul></li>"
    for s in SECTIONS[:10]
)
HILLTOWN_FOOTER = (
    "".join(f'<a href="/{s}/">{s.replace("-", " ").title()}</a> ' for s in SECTIONS)
    + "<p>(c) Hilltown Gazette Media Ltd</p>"
)
ABOUT = (
    "<p>The Hilltown Gazette has covered the town and the surrounding villages since 1921. Our "
    "reporters attend every council meeting, every court sitting and every home match, and we "
    "publish letters from readers every week. We are independent and owned by a charitable trust, "
    "and we rely on our readers to keep local journalism alive in the valley.</p>"
)

#: path -> (title, paragraphs): short stories, 500-1,000 characters each.
SHORT = {
    "/news/playground-reopens": (
        "Playground reopens",
        [
            "The playground on Mill Lane reopened on Saturday after repairs to the swings and the climbing "
            "frame were finished two weeks ahead of schedule.",
            "Parents had campaigned since the winter for the work to be done before the holidays, and a "
            "petition gathered more than four hundred signatures.",
            "The council said the new rubber surface meets current safety standards and that the site will "
            "now be inspected every month.",
        ],
    ),
    "/news/mill-lane-bridge-closed-for-repairs": (
        "Mill Lane bridge closed for repairs",
        [
            "Engineers closed the footbridge over the Hill Brook on Tuesday after a routine survey found "
            "cracks in two of its timber beams.",
            "Walkers heading for the station are asked to use the crossing by the church, which adds about "
            "five minutes to the journey.",
            "Highways officers expect the bridge to reopen in June once the beams have been replaced and "
            "the handrails repainted.",
        ],
    ),
    "/sport/rovers-lift-county-cup": (
        "Rovers lift the county cup",
        [
            "Hilltown Rovers beat Eastfield Athletic two goals to one in front of a crowd of nine hundred to "
            "win the county cup for the first time since 1987.",
            "Captain Dee Marsh scored the winner with a header from a corner four minutes from the end of normal time.",
            "Manager Paul Greaves praised the supporters who travelled to the final and promised an open "
            "training morning for young fans next month.",
        ],
    ),
    "/community/choir-seeks-new-members": (
        "Choir seeks new members",
        [
            "The Hilltown Community Choir is looking for tenors and basses ahead of its autumn concert in "
            "the market hall.",
            "No experience is needed and nobody has to read music, says director Anna Kowalski, who has "
            "led the choir for twelve years.",
            "Rehearsals take place on Wednesday evenings at the Methodist church, and the first three "
            "sessions are free for newcomers.",
        ],
    ),
    "/library-hours-extended": (
        "Library hours extended",
        [
            "Hilltown library will open until eight on Thursday evenings from next week, after a survey of "
            "users asked for later hours.",
            "The extra time will be staffed by volunteers from the Friends of the Library group, who raised "
            "the money for the heating and lighting.",
            "Librarian Samir Haddad said the evening sessions will include homework help for pupils and a "
            "monthly reading group.",
        ],
    ),
    "/news/local/number-12-bus-changes": (
        "Number 12 bus changes",
        [
            "The number 12 bus will no longer stop at Orchard Road from the first of the month, the operator "
            "has confirmed.",
            "Passengers will instead be able to board at a new stop outside the health centre, about two "
            "hundred metres further along the route.",
            "Residents of Orchard Road say older people will struggle with the extra walk, and the parish "
            "council has asked the operator to think again.",
        ],
    ),
}

#: path -> (title, paragraphs, canonical): long stories whose canonical link is wrong.
LONG_WORDS = [
    ("the new leisure centre", "Hilltown", "councillor Maria Lopez"),
    ("the river clean-up", "Brookside", "volunteer Tom Price"),
    ("the market hall roof", "the town centre", "architect Jun Park"),
]


def long_story(topic: str, place: str, person: str) -> list[str]:
    return [
        f"Plans for {topic} in {place} moved a step closer this week after a long debate that filled "
        "the council chamber and spilled into the corridor outside.",
        f"{person.capitalize()}, who has followed the proposal since the first consultation, said "
        f"residents had asked detailed questions about cost, timing and who would look after {topic}.",
        f"Officials in {place} published a summary of the responses, noting that most people supported "
        "the idea in principle but wanted clearer answers about disruption during the works.",
        f"A further public meeting on {topic} is expected before the summer, and the final decision will "
        "be taken by the full council once the revised figures are available.",
        f"\u201cWe want to get this right rather than get it done quickly,\u201d {person} said, adding that "
        f"the people of {place} would be kept informed at every stage.",
    ]


MISCANONICAL = {
    "/news/leisure-centre-plans-move-forward": ("Leisure centre plans move forward", LONG_WORDS[0], "{{BASE}}/"),
    "/news/volunteers-clear-the-brook": ("Volunteers clear the brook", LONG_WORDS[1], "/"),
    "/news/market-hall-roof-to-be-replaced": ("Market hall roof to be replaced", LONG_WORDS[2], "{{BASE}}/news/"),
}
NOTICE = "/notices/water-supply-interruption"
NOTICE_TEXT = (
    "Residents of Upper Hilltown are advised that the water supply to Castle Street, Tower Road and "
    "the Ridgeway will be interrupted on Monday between nine in the morning and three in the "
    "afternoon while a valve is replaced. Bottled water will be available at the community "
    "centre for anyone who needs it, and the water company asks residents to keep a jug of "
    "water for drinking and to check on elderly neighbours. Customers with special needs can "
    "call the priority services line for a delivery."
)
PRINT_COPY = "/print/news/playground-reopens"
PRINTED = "/news/playground-reopens"  # the article PRINT_COPY copies
COVERAGE_ARTICLES = [*SHORT, *MISCANONICAL, NOTICE]


def teaser(path: str) -> str:
    if path == NOTICE:
        title = "Water supply interruption"
    elif path in SHORT or path in MISCANONICAL:
        title = (SHORT.get(path) or MISCANONICAL[path])[0]
    else:  # a listing
        return f'<li class="more"><a href="{path}">More from {path.strip("/").replace("/", " ").title()}</a></li>'
    return (
        f'<li class="teaser"><h3><a href="{path}">{title}: what readers in Hilltown need to know</a></h3>'
        f"<p>{title}, and what it means for the town.</p></li>"
    )


def hilltown_page(title: str, main: str, *, og: str = "website", head: str = "", related: tuple[str, ...] = ()) -> str:
    aside = "".join(teaser(p) for p in related)
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{title} | Hilltown Gazette</title>'
        f'<meta property="og:type" content="{og}"><meta property="og:site_name" content="Hilltown Gazette">'
        f'{head}</head><body><header><a href="/">Hilltown Gazette</a><nav><ul>{HILLTOWN_MENU}</ul></nav></header>'
        f'<div class="cookie">We use cookies to improve our site.'
        f"</div><main>{main}<aside><h2>Most read</h2><ul>{aside}</ul></aside>"
        f'<section class="about">{ABOUT}</section></main><footer>{HILLTOWN_FOOTER}</footer></body></html>'
    )


def story_page(
    path: str, title: str, paragraphs: list[str], *, canonical: str | None = None, og: str = "website"
) -> str:
    head = f'<link rel="canonical" href="{canonical}">' if canonical else ""
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    related = tuple(p for p in list(SHORT)[:4] if p != path)
    return hilltown_page(
        title,
        f'<div class="story"><h1>{title}</h1><p class="byline">By Gazette reporter</p>{body}'
        '<div class="share">Share: <a href="#">Facebook</a> <a href="#">Email</a></div></div>',
        og=og,
        head=head,
        related=related,
    )


def hilltown_hub(title: str, links: list[str], *, intro: str = "", head: str = "") -> str:
    teasers = "".join(teaser(p) for p in links)
    return hilltown_page(title, f'<h1>{title}</h1>{intro}<ul class="teasers">{teasers}</ul>', head=head)


HUBS = {
    "/": ([*SHORT, *MISCANONICAL, NOTICE, "/news/", "/sport/", "/community/", "/tag/roads/"], ""),
    "/news/": (
        [
            "/news/playground-reopens",
            "/news/mill-lane-bridge-closed-for-repairs",
            *MISCANONICAL,
            "/news/local/",
            "/news/?page=2",
        ],
        "",
    ),
    "/news/?page=2": (["/library-hours-extended", NOTICE], ""),
    "/news/local/": (["/news/local/number-12-bus-changes", "/news/playground-reopens"], ""),
    "/sport/": (["/sport/rovers-lift-county-cup"], ""),
    "/community/": (
        ["/community/choir-seeks-new-members", "/library-hours-extended"],
        "<p>Community news from Hilltown and the villages: clubs, churches, charities and the people "
        "who keep them going. Send your news to the community desk by Thursday noon.</p>",
    ),
    "/tag/roads/": (["/news/mill-lane-bridge-closed-for-repairs", "/news/local/number-12-bus-changes"], ""),
}


def build_site(site: TestSite) -> None:
    site.add("/robots.txt", "User-agent: *\nAllow: /\n", "text/plain")
    for path, (title, paragraphs) in SHORT.items():
        site.add(path, story_page(path, title, paragraphs))
    title, paragraphs = SHORT[PRINTED]
    # The article's own page at another address (its "Most read" box the
    # article's too), without the "Print" link added to the article below.
    site.add(PRINT_COPY, story_page(PRINTED, title, paragraphs))
    for path, (title, words, canonical) in MISCANONICAL.items():
        site.add(path, story_page(path, title, long_story(*words), canonical=canonical, og="article"))
    site.add(
        NOTICE,
        hilltown_page(
            "Water supply interruption",
            f'<div class="notice"><img src="/logo.png" alt=""><img src="/tap.png" alt="">{NOTICE_TEXT}</div>',
            og="article",
            related=tuple(SHORT)[:3],
        ),
    )
    for section in SECTIONS:  # the menu's other sections: listings of older stories
        site.add(f"/{section}/", hilltown_hub(section.title(), list(SHORT)[:3]))
    for path, (links, intro) in HUBS.items():
        site.add(
            path,
            hilltown_hub(
                path.strip("/").split("/")[-1].title() or "Hilltown Gazette",
                links,
                intro=intro,
                head='<link rel="canonical" href="{{BASE}}/">' if path == "/" else "",
            ),
        )
    # The print copy is linked from its article page only.
    route = site.routes[PRINTED]
    route.body = route.body.replace(
        b'<div class="share">', f'<div class="share"><a href="{PRINT_COPY}">Print</a> '.encode()
    )


@pytest.fixture(scope="module")
def coverage_site():
    site = TestSite()
    build_site(site)
    with site:
        yield site


@pytest.fixture(scope="module")
def coverage_crawl(shared_crawls):
    return shared_crawls["coverage"].finish()


def test_every_article_once_and_no_hub(coverage_site, coverage_crawl):
    urls = sorted(item["url"] for item in coverage_crawl.items)
    assert urls == sorted(coverage_site.url(p) for p in COVERAGE_ARTICLES), coverage_crawl.prefixed("news/")
    by_url = {item["url"]: item for item in coverage_crawl.items}
    for path, (_title, paragraphs) in SHORT.items():
        assert paragraphs[1] in by_url[coverage_site.url(path)]["text"]
    assert NOTICE_TEXT[:60] in by_url[coverage_site.url(NOTICE)]["text"]
    # A canonical link to the home page or a section is not the article's canonical URL.
    for path in MISCANONICAL:
        assert by_url[coverage_site.url(path)]["canonical_url"] == coverage_site.url(path)
    assert coverage_crawl.stat("news/ignored_canonicals") == len(MISCANONICAL)


def test_only_the_print_copy_is_a_duplicate(coverage_site, coverage_crawl):
    assert coverage_crawl.stat("news/duplicates") == 1
    assert PRINT_COPY in coverage_site.hits
    hubs = {*HUBS, *(f"/{s}/" for s in SECTIONS)}
    assert coverage_crawl.stat("news/hubs") >= len(hubs)  # and the menu's ?view= variants
    assert not coverage_crawl.stat("news/errors")
    assert coverage_crawl.stat("news/items") == len(COVERAGE_ARTICLES)


@pytest.mark.parametrize("path", list(SHORT))
def test_short_slug_articles_score_as_articles(coverage_site, path):
    """The page alone (page type right, no crawl signal): a large menu no longer outweighs a short story."""
    html = coverage_site.routes[path].body.decode()
    title, paragraphs = SHORT[path]
    text = "\n".join([title, *paragraphs])
    verdict = classify(PageSignals.from_selector(Selector(text=html), "https://g.example" + path, text, "article"))
    assert verdict.is_article, verdict


def test_linked_share_of_the_main_text():
    anchors = ["Council votes to rebuild the harbour wall", "World", "Read more", "Ferry timetable changes today"]
    listing = "Council votes to rebuild the harbour wall\nShort teaser.\nFerry timetable changes today."
    assert linked_share(listing, anchors) > 0.7
    story = (
        "The world watched as the council votes to rebuild the harbour wall were counted, and many "
        "people said they would read more about it tomorrow in the paper."
    )
    assert 0.2 < linked_share(story, anchors) < 0.35  # one inline link; "world", "read more" not counted
    assert linked_share("", anchors) == 0.0 and linked_share(story, []) == 0.0


def test_text_fingerprint_needs_the_same_title_and_text():
    text = "Subscribe to our newsletter for the latest news from the valley."
    assert content_fingerprint(text, "Playground reopens") == content_fingerprint(
        "  subscribe to our NEWSLETTER\nfor the latest news from the valley.", "playground  reopens"
    )
    assert content_fingerprint(text, "Playground reopens") != content_fingerprint(text, "Choir seeks new members")
    assert content_fingerprint(text) != content_fingerprint(text + " More.")


def test_prose_share_and_headline_matches():
    story = "\n".join(SHORT["/news/playground-reopens"][1])
    assert prose_share("Playground reopens\n" + story) > 0.9
    teasers = "\n".join(f"Headline number {i} about the town\n3 May 2024" for i in range(10))
    assert prose_share(teasers) == 0.0 and prose_share("") == 0.0
    assert headline_matches("Choir seeks new members: what readers in Hilltown need to know", "Choir seeks new members")
    assert headline_matches("Rovers lift the county cup", "Rovers lift the county cup | Hilltown Gazette")
    assert not headline_matches("More from News", "News")  # too few words
    assert not headline_matches("Rovers lift the county cup", "Choir seeks new members")


def test_listing_headline_makes_the_story(coverage_site):
    path = "/community/choir-seeks-new-members"
    html = coverage_site.routes[path].body.decode()
    title, paragraphs = SHORT[path]
    text = "\n".join([title, *paragraphs])
    # Page type wrong (a 10% error rate), og:type "website": the page alone is not enough...
    alone = classify(PageSignals.from_selector(Selector(text=html), "https://g.example" + path, text, "listing"))
    assert not alone.is_article
    # ...but a listing's teaser headline naming it is.
    listed = classify(
        PageSignals.from_selector(
            Selector(text=html), "https://g.example" + path, text, "listing", listed_as_story=True
        )
    )
    assert listed.is_article and "listed:+2" in listed.reasons


@pytest.mark.parametrize(
    "url, hub",
    [
        ("https://g.example/", True),
        ("https://g.example/index.php", True),
        ("https://g.example/news/?page=2", True),
        ("https://g.example/index.php?page=3", True),
        ("https://g.example/index.php?id=4821", False),
        ("https://g.example/news/playground-reopens", False),
    ],
)
def test_hub_shaped_canonical_urls(url, hub):
    assert is_hub_url(url) is hub
