"""The harvest spider reads its HTML search result pages off the reactor thread (in the extraction workers)."""

from __future__ import annotations

import asyncio

import scrapy
from scrapy.crawler import Crawler
from scrapy.http import HtmlResponse
from scrapy.settings import Settings
from scrapy.utils.test import get_reactor_settings

from webclean_scrapy.spiders.harvest import HarvestSpider

RESULTS = (
    b'<html><head><meta charset="utf-8"></head><body>'
    b'<div class="ad"><a class="title" href="/doc/ad">Sponsored</a></div>'
    b'<div class="result"><a class="title" href="/doc/alpha">Alpha</a></div>'
    b'<div class="result"><a class="title" href="https://s.example/doc/beta">Beta</a></div>'
    b'<div class="result"><a class="title" href="/doc/alpha#again">Alpha again</a></div>'
    b"</body></html>"
)


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
