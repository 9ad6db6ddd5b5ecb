"""robots.txt holds for requests made while it is still downloading (webclean_scrapy/robots.py)."""

from __future__ import annotations

from _crawl import run_crawl
from http_server import TestSite
from pages import A1, A3, build_news_site

FORBIDDEN = "/private/members-only-briefing/"


def test_requests_waiting_for_robots_txt_obey_it(tmp_path):
    """Several start URLs on one host: all wait for one robots.txt; none may skip it."""
    site = TestSite()
    build_news_site(site)
    with site:
        start = ",".join(site.url(path) for path in (A1, FORBIDDEN, A3, FORBIDDEN + "?x=1"))
        result = run_crawl("news", tmp_path, args={"start_urls": start, "sitemaps": 0, "feeds": 0, "follow_links": 0})
    assert not [hit for hit in site.hits if hit.startswith("/private/")], site.hits
    assert result.stat("robotstxt/forbidden") == 2
    assert sorted(item["url"] for item in result.items) == sorted(site.url(p) for p in (A1, A3))
