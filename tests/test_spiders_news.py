"""The ``news`` spider: article detection rules, URL keys, and real crawls of a local news site."""

from __future__ import annotations

import gzip
import json

import pytest
from parsel import Selector

from _crawl import run_crawl, start_crawl
from webclean_scrapy.demo.server import LocalSite
from webclean_scrapy.engine.page_type.articles import PageSignals, classify, jsonld_types
from webclean_scrapy.fingerprint import canonical_key, site_of, strip_tracking
from webclean_scrapy.spiders.news import feed_links, read_start_urls

# ---------------------------------------------------------------------------
# URL keys


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

NAV = (
    '<header><nav><a href="/">Home</a> <a href="/section/world/">World</a> '
    '<a href="/section/science/">Science</a> <a href="/tag/energy/">Energy</a> '
    '<a href="/about/">About us</a></nav></header>'
    '<div class="cookie-banner">We use cookies to improve your experience. <a href="/privacy/">Privacy</a></div>'
)
FOOTER = '<footer><a href="/about/">About us</a> <a href="/privacy/">Privacy</a> <p>(c) Valley Courier</p></footer>'


def story_paragraphs(topic: str, place: str, person: str) -> list[str]:
    return [
        f"Plans for {topic} in {place} moved a step closer this week after a long debate that "
        f"filled the council chamber and spilled into the corridor outside.",
        f"{person}, who has followed the proposal since the first consultation, said residents had "
        f"asked detailed questions about cost, timing and who would look after {topic} once finished.",
        f"Officials in {place} published a summary of the responses, noting that most people supported "
        f"the idea in principle but wanted clearer answers about disruption during the works.",
        f"A further public meeting on {topic} is expected before the summer, and the final decision "
        f"will be taken by the full council once the revised figures are available.",
        f"\u201cWe want to get this right rather than get it done quickly,\u201d {person} said, adding that "
        f"the people of {place} would be kept informed at every stage of the process.",
    ]


def article_html(
    title: str,
    paragraphs: list[str],
    *,
    canonical: str | None = None,
    og: bool = True,
    jsonld: str | None = None,
    related: tuple[str, ...] = (),
    feed: bool = False,
    charset: str = "utf-8",
) -> str:
    head = [f'<meta charset="{charset}">', f"<title>{title} | Valley Courier</title>"]
    if og:
        head.append('<meta property="og:type" content="article">')
    if canonical:
        head.append(f'<link rel="canonical" href="{canonical}">')
    if jsonld:
        head.append(f'<script type="application/ld+json">{jsonld}</script>')
    if feed:
        head.append('<link rel="alternate" type="application/rss+xml" href="/feed.xml">')
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    rel = "".join(f'<li><a href="{href}">Related story</a></li>' for href in related)
    return (
        f'<!DOCTYPE html><html lang="en"><head>{"".join(head)}</head><body>{NAV}'
        f'<div class="ad">Advertisement</div><main><article><h1>{title}</h1>'
        f'<p class="byline">By Staff Reporter</p>{body}</article>'
        f"<aside><h2>Related</h2><ul>{rel}</ul></aside>"
        f'<section class="comments"><h2>Comments</h2><p>Great news!</p></section></main>{FOOTER}'
        "</body></html>"
    )


def hub_html(title: str, links: list[str], *, extra_head: str = "") -> str:
    teasers = "".join(
        f'<li><a href="{href}">A headline for the story at {href.strip("/")[-30:]}</a> <span>Short teaser.</span></li>'
        for href in links
    )
    return (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{title}</title>'
        f'<meta property="og:type" content="website">{extra_head}</head><body>{NAV}<h1>{title}</h1>'
        f"<ul>{teasers}</ul>{FOOTER}</body></html>"
    )


A1 = "/2024/05/02/council-approves-new-harbour-wall/"
A2 = "/2024/05/03/river-survey-finds-returning-otters/"
A3 = "/2024/05/04/library-extends-weekend-hours/"
A4 = "/2024/05/05/ferry-timetable-changes-for-summer/"
A5 = "/science/48213/telescope-volunteers-map-meteor-shower"
A6 = "/2024/05/06/bakery-wins-regional-bread-award/"
A7 = "/2024/05/07/cafe-owners-welcome-market-square-plan/"
A8 = "/2024/05/08/school-orchestra-tours-three-cities/"
A9 = "/2024/05/09/harvest-fair-draws-record-crowds/"
PRINT_A1 = "/print" + A1
ARTICLES = [A1, A2, A3, A4, A5, A6, A7, A8, A9 + "?from=home"]
CHARSET_TEXT = "\u201cCaf\u00e9 owners\u201d \u2014 in Z\u00fcrich style \u2014 pay \u20ac5"


def build_news_site(site: LocalSite) -> None:
    base = "{{BASE}}"
    add = site.add
    add("/robots.txt", f"User-agent: *\nDisallow: /private/\n\nSitemap: {base}/sitemap_index.xml\n", "text/plain")
    add(
        "/sitemap_index.xml",
        '<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<sitemap><loc>{base}/sitemap-news.xml</loc></sitemap>"
        f"<sitemap><loc>{base}/sitemap-pages.xml.gz</loc></sitemap>"
        f"<sitemap><loc>{base}/sitemap-broken.xml</loc></sitemap></sitemapindex>",
        "application/xml",
    )
    add(
        "/sitemap-news.xml",
        '<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
        'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">'
        f"<url><loc>{base}{A1}</loc><news:news><news:title>Wall</news:title></news:news></url>"
        f"<url><loc>{base}{A2}?utm_source=sitemap&amp;utm_medium=xml</loc></url></urlset>",
        "application/xml",
    )
    pages = (
        '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<url><loc>{site.base_url}/section/world/</loc></url><url><loc>{site.base_url}{A5}</loc></url>"
        "</urlset>"
    )
    add("/sitemap-pages.xml.gz", gzip.compress(pages.encode()), "application/gzip")
    add("/sitemap-broken.xml", "<<this is &not; a sitemap", "application/xml")
    add(
        "/feed.xml",
        '<?xml version="1.0"?><rss version="2.0"><channel><title>Valley Courier</title>'
        f"<item><title>Library</title><link>{base}{A3}</link></item>"
        f"<item><title>Bakery</title><link>{base}{A6}?utm_source=rss</link></item></channel></rss>",
        "application/rss+xml",
    )
    add("/atom-broken.xml", "this is not a feed at all", "application/atom+xml")

    add(
        "/",
        hub_html(
            "Valley Courier",
            [
                "/section/world/",
                "/section/science/",
                "/tag/energy/",
                A1,
                A2 + "#comments",
                A3 + "?utm_source=home&utm_medium=web",
                "/old-story",
                "/files/annual-report.pdf",
                "/download/brochure",
                "/missing-story/",
                f"http://localhost:{site.port}/offsite-page/",
                "/private/members-only-briefing/",
                A9 + "?from=home",
            ],
            extra_head='<link rel="alternate" type="application/rss+xml" title="RSS" href="/feed.xml">',
        ),
    )
    add("/section/world/", hub_html("World", [A1, A2, "/section/world/page/2/"]))
    add("/section/world/page/2/", hub_html("World, page 2", [A7]))
    add(
        "/section/science/",
        hub_html(
            "Science",
            [A8 + "?from=section", A1],
            extra_head='<link rel="alternate" type="application/atom+xml" href="/atom-broken.xml">',
        ),
    )
    add("/tag/energy/", hub_html("Tag: energy", [A1, A3]))
    add("/about/", hub_html("About us", []))
    add("/privacy/", hub_html("Privacy", []))

    graph = json.dumps(
        {
            "@context": "https://schema.org",
            "@graph": [
                {"@type": "WebSite", "name": "Valley Courier"},
                {"@type": "WebPage"},
                {"@type": "NewsArticle", "headline": "Otters", "publisher": {"@type": "Organization"}},
            ],
        }
    )
    a1 = article_html(
        "Council approves new harbour wall",
        story_paragraphs("the new harbour wall", "Eastport", "Mayor Ruth Allen"),
        canonical=base + A1,
        jsonld='{"@type": "NewsArticle"}',
        related=(PRINT_A1, A2),
        feed=True,
    )
    add(A1, a1)
    add(PRINT_A1, a1.replace(f'<link rel="canonical" href="{base}{A1}">', ""))
    add(
        A2,
        article_html(
            "River survey finds returning otters",
            story_paragraphs("the otter survey", "the Dee valley", "Dr Priya Nair"),
            canonical=base + A2,
            og=False,
            jsonld=graph,
        ),
    )
    add(
        A3,
        article_html(
            "Library extends weekend hours",
            story_paragraphs("longer library hours", "Millbrook", "Librarian Tom Okafor"),
            og=False,
        ),
    )
    add("/old-story", b"", status=301, Location=site.url(A4))
    add(
        A4,
        article_html(
            "Ferry timetable changes for summer",
            story_paragraphs("the summer ferry timetable", "Port Carrow", "Captain Ines Moreau"),
            canonical=base + A4,
        ),
    )
    add(
        A5,
        article_html(
            "Telescope volunteers map meteor shower",
            story_paragraphs("the meteor mapping project", "the hill observatory", "Astronomer Lena Fisk"),
            canonical=base + A5,
        ),
    )
    add(
        A6,
        article_html(
            "Bakery wins regional bread award",
            story_paragraphs("the award-winning sourdough", "Kettleby", "Baker Sam Whitlock"),
            canonical=base + A6,
            og=False,
            jsonld='[{"@type": "BlogPosting"}]',
        ),
    )
    charset_page = article_html(
        "Cafe owners welcome market square plan",
        [
            CHARSET_TEXT + " for a coffee and a pastry on the square, and they hope the new "
            "plan for the market keeps it that way for the traders who open early every "
            "morning of the week."
        ]
        + story_paragraphs("the market square", "Old Town", "Chef Marta Silva"),
        canonical=base + A7,
        charset="iso-8859-1",
    )
    add(
        A7, charset_page.replace("{{BASE}}", site.base_url).encode("cp1252"), "text/html; charset=iso-8859-1"
    )  # mislabelled: cp1252 bytes (curly quotes, euro sign)
    add(
        A8,
        article_html(
            "School orchestra tours three cities",
            story_paragraphs("the orchestra tour", "Brackenfield", "Conductor Yusuf Adeyemi"),
            canonical=base + A8,
        ),
    )
    # Its canonical URL is forbidden by robots.txt: the variant itself becomes the item.
    add(
        A9,
        article_html(
            "Harvest fair draws record crowds",
            story_paragraphs("the harvest fair", "Hollins Green", "Organiser Beth Carey"),
            canonical=base + "/private" + A9,
        ),
    )
    pdf = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
    add("/download/brochure", pdf, "application/pdf")
    add("/files/annual-report.pdf", pdf, "application/pdf")
    add("/private/members-only-briefing/", article_html("Secret", story_paragraphs("x", "y", "z")))
    add("/offsite-page/", article_html("Offsite", story_paragraphs("offsite", "elsewhere", "Someone")))


@pytest.fixture(scope="module")
def news_site():
    site = LocalSite()
    build_news_site(site)
    with site:
        yield site


@pytest.fixture(scope="module")
def news_crawl(news_site, tmp_path_factory):
    return run_crawl("news", tmp_path_factory.mktemp("news"), args={"start_urls": news_site.url("/")})


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
    result = run_crawl(
        "news", tmp_path, args={"start_urls": news_site.url("/"), "max_pages": 3, "sitemaps": 0, "feeds": 0}
    )
    assert result.stat("news/pages") == 3
    assert result.stats["finish_reason"] == "max_pages"
    shallow = run_crawl(
        "news", tmp_path / "depth", args={"start_urls": news_site.url("/"), "max_depth": 1, "sitemaps": 0, "feeds": 0}
    )
    urls = {item["url"] for item in shallow.items}
    # Depth 1 = links of the home page only: A7 (section page 2) and A5 (sitemap) are out of reach.
    assert urls == {news_site.url(a) for a in (A1, A2, A3, A4, A9 + "?from=home")}


def test_news_probes_common_sitemap_paths(tmp_path):
    site = LocalSite()
    site.add("/", hub_html("Tiny", [A1]))
    site.add(
        A1,
        article_html(
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
        article_html("A story from the news sitemap", story_paragraphs("the sitemap story", "Northgate", "Ada Byrne")),
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
