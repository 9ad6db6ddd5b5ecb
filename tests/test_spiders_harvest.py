"""The ``harvest`` spider against a fake SearXNG API and an HTML result-page engine, whose result pages
are read in the extraction workers, off the reactor thread."""

from __future__ import annotations

import asyncio

import pytest
import scrapy
from scrapy.crawler import Crawler
from scrapy.http import HtmlResponse, TextResponse
from scrapy.settings import Settings
from scrapy.utils.test import get_reactor_settings

from _crawl import refused_crawl, run_crawl
from http_server import TestSite
from pages import sample_bytes, topic_page
from webclean_scrapy.crawlstate.emitted import MemoryEmittedStore
from webclean_scrapy.fingerprint import canonical_key
from webclean_scrapy.spiders.engines import HtmlResultsEngine, SearchEngineError, SearxngEngine, get_engine
from webclean_scrapy.spiders.harvest import HarvestSpider, html_file_name, result_key


def test_harvest_searxng(search_site, tmp_path):
    saved = tmp_path / "html"
    result = run_crawl(
        "harvest",
        tmp_path,
        args={
            "query": "the",
            "max_results": 6,
            "engine": "searxng",
            "search_url": search_site.url("/search"),
            "save_html": saved,
            "search_robots": "ignore",
        },
    )
    b = search_site.base_url
    # Six distinct results taken in engine order; the PDF (2) and the dead link (3) give no item.
    assert [(i["rank"], i["url"]) for i in sorted(result.items, key=lambda i: i["rank"])] == [
        (1, f"{b}/r/one"),
        (4, f"{b}/r/four"),
        (5, f"{b}/r/five"),
        (6, f"{b}/r/six"),
    ]
    assert {i["query"] for i in result.items} == {"the"}
    assert all("the number" in i["text"] and i["status"] == 200 for i in result.items)
    stats = result.prefixed("harvest/")
    assert stats == {
        "harvest/search_pages": 2,
        "harvest/results_seen": 10,
        "harvest/results_taken": 6,
        "harvest/duplicate_results": 2,  # /r/one?utm_source=..., /r/four#top
        "harvest/skipped_results": 1,  # javascript:
        "harvest/non_html": 1,
        "harvest/failed": 1,
        "harvest/failed/http_404": 1,
        "harvest/items": 4,
        "harvest/saved_html": 4,
    }
    # Search pages were not extracted.
    assert result.stat("webclean/skipped/requested") == 2
    # Page 3 was never needed; /r/seven was beyond max_results.
    assert "/search?q=the&format=json&pageno=3" not in search_site.hits
    assert "/r/seven" not in search_site.hits
    files = sorted(p.name for p in saved.iterdir())
    assert files == sorted(html_file_name(i["rank"], i["url"]) for i in result.items)
    assert (saved / html_file_name(1, f"{b}/r/one")).read_bytes() == topic_page("Result one", "the number one").encode()


def test_harvest_obeys_search_robots_by_default(search_site, tmp_path):
    result = run_crawl(
        "harvest", tmp_path, args={"query": "the", "max_results": 3, "search_url": search_site.url("/search")}
    )
    assert result.items == []
    assert result.stat("harvest/search_errors/ignored") == 1
    assert not [h for h in search_site.hits if h.startswith("/search")]


def test_harvest_html_engine_from_settings(tmp_path):
    site = TestSite()
    b = site.base_url
    for name in ("alpha", "beta", "gamma", "delta"):
        site.add(f"/doc/{name}", topic_page(f"Doc {name}", f"the letter {name}"))

    def results(*hrefs: str) -> str:
        links = "".join(f'<div class="result"><a class="title" href="{h}">{h}</a></div>' for h in hrefs)
        return f'<html><body><div class="ad"><a class="title" href="/doc/ad">Sponsored</a></div>{links}</body></html>'

    site.add("/find?q=the+word&p=0", results("/doc/alpha", f"{b}/doc/beta"))
    site.add("/find?q=the+word&p=10", results("/doc/alpha", "/doc/gamma", "/doc/delta"))
    engines = {
        "local": {
            "url": b + "/find?q={query}&p={page}",
            "result_selector": "div.result > a.title",
            "first_page": 0,
            "page_step": 10,
        }
    }
    with site:
        result = run_crawl(
            "harvest",
            tmp_path,
            args={"query": "the word", "max_results": 3, "engine": "local"},
            settings={"WEBCLEAN_SEARCH_ENGINES": engines},
        )
    assert sorted((i["rank"], i["url"], i["query"]) for i in result.items) == [
        (1, f"{b}/doc/alpha", "the word"),
        (2, f"{b}/doc/beta", "the word"),
        (3, f"{b}/doc/gamma", "the word"),
    ]
    assert result.stat("harvest/search_pages") == 2
    assert result.stat("webclean/skipped/requested") == 2  # search pages are not extracted
    assert "/doc/ad" not in site.hits and "/doc/delta" not in site.hits


# -- engines without a crawl ----------------------------------------------


def test_searxng_engine_urls_and_bad_answers():
    engine = SearxngEngine("http://s.example/search")
    assert engine.page_url("the web", 0) == "http://s.example/search?q=the+web&format=json&pageno=1"
    assert (
        SearxngEngine("http://s.example/search?lang=en").page_url("x", 1).endswith("?lang=en&q=x&format=json&pageno=2")
    )
    ok = TextResponse("http://s.example/", body=b'{"results": [{"url": "http://a/"}, {"title": "no url"}, 7]}')
    assert engine.result_urls(ok) == ["http://a/"]
    for body in (b"<html>rate limited</html>", b'{"error": 1}', b"[]"):
        with pytest.raises(ValueError):
            engine.result_urls(TextResponse("http://s.example/", body=body))


def test_html_engine_xpath_and_redirect_wrappers():
    engine = HtmlResultsEngine(
        url="https://h.example/html?q={query}&s={page}", result_selector="//a[@class='r']/@href", result_param="uddg"
    )
    assert engine.page_url("a&b", 2) == "https://h.example/html?q=a%26b&s=3"
    body = (
        b"<html><body><a class='r' href='/l/?uddg=https%3A%2F%2Fsite.example%2Fpage&rut=1'>x</a>"
        b"<a class='r' href='/l/?other=1'>no target</a></body></html>"
    )
    response = HtmlResponse("https://h.example/html?q=x", body=body)
    assert engine.result_urls(response) == ["https://site.example/page"]


def test_get_engine_errors():
    settings = Settings(
        {
            "WEBCLEAN_SEARCH_ENGINES": {
                "bad": {"url": "https://x/?p={page}", "result_selector": "a"},
                "typo": {"url": "https://x/?q={query}", "selector": "a"},
            }
        }
    )
    with pytest.raises(SearchEngineError, match="search_url"):
        get_engine("searxng", settings)
    with pytest.raises(SearchEngineError, match="unknown search engine 'nope'.*bad, searxng, typo"):
        get_engine("nope", settings)
    with pytest.raises(SearchEngineError, match="query"):
        get_engine("bad", settings)
    with pytest.raises(SearchEngineError, match="unknown key"):
        get_engine("typo", settings)
    assert get_engine("searxng", settings, "http://s/search") == SearxngEngine("http://s/search")


# -- failures say what happened ------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        (500, "application/json", "{}"),  # the endpoint errors
        (200, "text/html", "<html><body>JSON is off</body></html>"),  # not the JSON API
    ],
)
def test_harvest_logs_an_error_when_the_search_endpoint_fails(tmp_path, answer):
    status, content_type, body = answer
    site = TestSite()
    site.add("/search?q=the&format=json&pageno=1", body, content_type, status=status)
    with site:
        result = run_crawl("harvest", tmp_path, args={"query": "the", "search_url": site.url("/search")})
    assert result.items == []
    errors = [line for line in result.log.splitlines() if "ERROR" in line]
    assert any(
        "Search engine searxng failed on result page 1" in line and site.url("/search") in line for line in errors
    ), result.log[-3000:]
    assert result.stat("finish_reason", "") == "search_failed"
    assert result.stat("harvest/search_errors/http_500" if status == 500 else "harvest/bad_search_pages") == 1


def test_harvest_checks_search_urls_like_the_news_spider_checks_start_urls():
    settings = Settings()
    for bad in ("not-a-url", "ftp://s.example/search", "http://a b/search"):
        with pytest.raises(SearchEngineError, match="not an http"):
            get_engine("searxng", settings, bad)
    engine = get_engine("searxng", settings, "s.example/search")  # a missing scheme means https://, as for news
    assert engine.page_url("x", 0).startswith("https://s.example/search?")
    with pytest.raises(SearchEngineError, match="WEBCLEAN_SEARXNG_URL"):
        get_engine("searxng", Settings({"WEBCLEAN_SEARXNG_URL": "not-a-url"}))
    with pytest.raises(SearchEngineError, match=r"WEBCLEAN_SEARCH_ENGINES\['mine'\]"):
        get_engine(
            "mine", Settings({"WEBCLEAN_SEARCH_ENGINES": {"mine": {"url": "nohost?q={query}", "result_selector": "a"}}})
        )


# -- HTML result pages read in the workers ---------------------------------------------------------
# The harvest spider reads its HTML search result pages off the reactor thread (in the extraction workers).
RESULTS = sample_bytes("harvest-results.html")


def harvest_spider(offload: str, selector: str = "div.result > a.title") -> HarvestSpider:
    engines = {"local": {"url": "https://s.example/find?q={query}&p={page}", "result_selector": selector}}
    settings = Settings(
        {
            "WEBCLEAN_OFFLOAD": offload,
            "WEBCLEAN_WORKERS": 1,
            "WEBCLEAN_EXTRACTOR": "baseline",
            "WEBCLEAN_SEARCH_ENGINES": engines,
            "TELNETCONSOLE_ENABLED": False,
            **get_reactor_settings(),
        }
    )
    crawler = Crawler(HarvestSpider, settings)
    crawler.spider = HarvestSpider.from_crawler(crawler, query="the word", engine="local", max_results=5)
    crawler._apply_settings()
    return crawler.spider


async def collect(spider: HarvestSpider, response: HtmlResponse) -> list[scrapy.Request]:
    return [request async for request in spider.parse_search(response)]


def test_html_result_pages_are_parsed_in_a_worker_process_not_here():
    spider = harvest_spider("process")
    request = spider.search_request(0)
    response = HtmlResponse(
        request.url, body=RESULTS, request=request, headers={"Content-Type": "text/html; charset=utf-8"}
    )
    try:
        out = asyncio.run(collect(spider, response))
    finally:
        spider.offloader.close()
    assert response._cached_selector is None  # never parsed in this (the reactor's) thread
    results = [r for r in out if r.callback == spider.parse_result]
    assert [(r.url, r.meta["harvest_rank"]) for r in results] == [
        ("https://s.example/doc/alpha", 1),
        ("https://s.example/doc/beta", 2),
    ]
    assert [r.meta["harvest_page"] for r in out if r.callback == spider.parse_search] == [1]  # the next page
    stats = spider.crawler.stats.get_stats()
    assert stats["harvest/results_seen"] == 3 and stats["harvest/duplicate_results"] == 1


class ClaimFailsOnce(MemoryEmittedStore):
    """A shared store whose first claim of *key* fails, as a claim does while Redis is away."""

    def __init__(self, key: str) -> None:
        super().__init__()
        self.key, self.failed = key, False

    def claim(self, keys, page=None):
        keys = list(keys)
        if self.key in keys and not self.failed:
            self.failed = True
            raise ConnectionError("Redis is away")
        return super().claim(keys, page)


def test_a_result_whose_claim_failed_is_taken_when_its_result_page_is_read_again():
    """The page retry fetches the result page again after a failed claim: the result is offered again."""
    spider = harvest_spider("process")
    spider.emitted = ClaimFailsOnce(result_key(canonical_key("https://s.example/doc/beta")))
    request = spider.search_request(0)
    response = HtmlResponse(request.url, body=RESULTS, request=request)

    async def read() -> list[scrapy.Request]:
        out = []
        try:
            async for r in spider.parse_search(response):
                out.append(r)
        except ConnectionError:
            pass
        return out

    try:
        first, again = asyncio.run(read()), asyncio.run(read())
    finally:
        spider.offloader.close()
    assert [r.url for r in first if r.callback == spider.parse_result] == ["https://s.example/doc/alpha"]
    assert [r.url for r in again if r.callback == spider.parse_result] == ["https://s.example/doc/beta"]
    assert [r.meta["harvest_rank"] for r in first + again if r.callback == spider.parse_result] == [1, 2]


def test_a_result_page_the_worker_cannot_read_is_counted_and_ends_the_paging():
    spider = harvest_spider("process", selector="//div[@class=")  # an XPath error, raised in the worker
    spider.taken = 1  # a later page: the crawl goes on with the results taken so far
    request = spider.search_request(1)
    response = HtmlResponse(request.url, body=RESULTS, request=request)
    try:
        out = asyncio.run(collect(spider, response))
    finally:
        spider.offloader.close()
    assert out == [] and response._cached_selector is None
    assert spider.crawler.stats.get_value("harvest/bad_search_pages") == 1
    assert spider.crawler.stats.get_value("harvest/results_seen") is None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({}, "the harvest spider needs -a query=WORDS"),
        ({"query": "the", "engine": "nope"}, "unknown search engine 'nope'"),
        ({"query": "the", "max_results": "-3"}, "-a max_results= must be > 0, got -3"),
    ],
    ids=["query", "engine", "max_results"],
)
def test_a_bad_argument_stops_scrapy_crawl_in_one_line(tmp_path, args, message):
    log = refused_crawl("harvest", tmp_path, args=args, message=message)
    assert "ERROR: Cannot start the harvest spider: " + message in log
