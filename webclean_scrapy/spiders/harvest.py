"""The ``harvest`` spider: build a corpus from a search engine's results.

Reproduces how Weninger & Hsu built their text-to-tag-ratio corpus: send one
query (``the``), take the first N distinct results (200), fetch them and keep
the HTML ones. Result pages are requested one after another until
``max_results`` distinct result URLs (tracking parameters and fragments
ignored) are taken; each taken URL gets its 1-based ``rank`` in the engine's
order. Results that turn out not to be HTML (PDF...) or fail to download
count in stats, not as items, so ``harvest/results_taken`` =
``harvest/items`` + ``harvest/non_html`` + ``harvest/failed``.

Result pages are read where the crawl extracts pages
(:meth:`Offloader.run <webclean_scrapy.offload.Offloader.run>`, a worker
process by default, under ``WEBCLEAN_PAGE_TIMEOUT``), never on the reactor
thread: an HTML result page is parsed there, as the ``news`` spider's pages are.
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import scrapy
from scrapy.exceptions import CloseSpider
from scrapy.http import TextResponse
from scrapy.spidermiddlewares.httperror import HttpError
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.threads import deferToThread

from webclean_scrapy.crawlstate.emitted import claim_page
from webclean_scrapy.downloadermiddlewares.extraction import META_SKIP
from webclean_scrapy.downloadermiddlewares.guard import trust_endpoint
from webclean_scrapy.fingerprint import canonical_key
from webclean_scrapy.items import CleanedPage
from webclean_scrapy.spiders.base import (
    SpiderArgumentError,
    WebcleanSpider,
    is_html,
    parse_positive_int,
    refuse_start,
)
from webclean_scrapy.spiders.engines import SearchEngine, SearchEngineError, get_engine, read_result_page

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from twisted.python.failure import Failure
    from typing_extensions import Self  # typing.Self: Python 3.11

#: Stop after this many result pages even when ``max_results`` is not reached
#: (engines repeat results across pages; this bounds a query that keeps doing so).
DEFAULT_MAX_SEARCH_PAGES = 50


def html_file_name(rank: int, url: str) -> str:
    """``0007-<12 hex>.html``: sorts by rank, unique per URL."""
    return f"{rank:04d}-{hashlib.sha1(url.encode('utf-8')).hexdigest()[:12]}.html"


class HarvestSpider(WebcleanSpider):
    """Fetch a search engine's top results for one query and keep their main text.

    Arguments (``-a name=value``): ``query`` (required), ``max_results``
    (200), ``engine`` (``searxng`` or a ``WEBCLEAN_SEARCH_ENGINES`` name),
    ``search_url``, ``save_html`` (a directory for the raw pages),
    ``max_search_pages`` (50), ``search_robots`` (``obey``, or ``ignore`` to
    fetch the result pages of a search endpoint whose robots.txt forbids
    them -- your own SearXNG, say; the result pages themselves always follow
    ``ROBOTSTXT_OBEY``).
    """

    name = "harvest"
    stats_prefix = "harvest/"
    errors_key = "failed"
    # Result pages come one after another; their depth is not a crawl depth.
    custom_settings = {"DEPTH_LIMIT": 0}

    def __init__(
        self,
        query: str | None = None,
        max_results: str | int = 200,
        engine: str = "searxng",
        search_url: str | None = None,
        save_html: str | None = None,
        max_search_pages: str | int = DEFAULT_MAX_SEARCH_PAGES,
        search_robots: str = "obey",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if not query or not str(query).strip():
            raise SpiderArgumentError("the harvest spider needs -a query=WORDS")
        self.query = str(query).strip()
        self.max_results = parse_positive_int("max_results", max_results)
        self.max_search_pages = parse_positive_int("max_search_pages", max_search_pages)
        self.engine_name = engine
        self.search_url = search_url
        if search_robots not in ("obey", "ignore"):
            raise SpiderArgumentError(f"-a search_robots= must be 'obey' or 'ignore', got {search_robots!r}")
        self.ignore_search_robots = search_robots == "ignore"
        self.save_dir = Path(save_html) if save_html else None
        if self.save_dir is not None:
            try:
                self.save_dir.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise SpiderArgumentError(f"-a save_html: cannot create {save_html}: {exc.strerror or exc}") from None
        self.engine: SearchEngine | None = None
        self.taken = 0
        self._seen: set[str] = set()

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> Self:
        spider = super().from_crawler(crawler, *args, **kwargs)
        try:
            spider.engine = get_engine(spider.engine_name, crawler.settings, spider.search_url)
        except SearchEngineError as exc:  # -a engine= / -a search_url=, or the settings naming engines
            refuse_start(crawler, cls.name, exc)
            raise
        return spider

    async def start(self) -> AsyncIterator[scrapy.Request]:
        yield self.search_request(0)

    def search_request(self, index: int) -> scrapy.Request:
        assert self.engine is not None
        # The search endpoint is the user's choice (often a SearXNG on localhost): the
        # address guard trusts this request (not a redirect from it, nor results that
        # point back at the endpoint's host).
        meta: dict[str, Any] = {META_SKIP: True, "harvest_page": index}
        if self.ignore_search_robots:
            meta["dont_obey_robotstxt"] = True
        request = scrapy.Request(
            self.engine.page_url(self.query, index),
            callback=self.parse_search,
            errback=self.search_failed,
            meta=meta,
            dont_filter=True,
        )
        return trust_endpoint(request)

    async def parse_search(self, response: Response) -> AsyncIterator[scrapy.Request]:
        assert self.engine is not None
        self.inc("search_pages")
        index = response.meta["harvest_page"]
        content_type = response.headers.get(b"Content-Type")
        try:
            urls = await self.offloader.run(
                read_result_page,
                self.engine,
                response.body,
                response.url,
                content_type.decode("latin-1") if content_type else None,
                label=response.url,
            )
        except Exception as exc:  # not JSON, not the expected shape, over WEBCLEAN_PAGE_TIMEOUT...
            self.inc("bad_search_pages")
            self.search_broken(index, response.url, f"unreadable answer ({type(exc).__name__}: {exc})")
            return
        self.inc("results_seen", len(urls))
        if not urls:
            self.inc("exhausted")
            return
        for request in self.take(urls, claim_page(response.request)):
            yield request
        if self.taken < self.max_results:
            if index + 1 < self.max_search_pages:
                yield self.search_request(index + 1)
            else:
                self.inc("max_search_pages_reached")

    def take(self, urls: list[str], page: str | None = None) -> Iterator[scrapy.Request]:
        """Requests for the results of one result page not taken yet, up to ``max_results``;
        *page*: what the claims are made for (:func:`~webclean_scrapy.crawlstate.emitted.claim_page`)."""
        for url in urls:
            if self.taken >= self.max_results:
                return
            if urlsplit(url).scheme not in ("http", "https"):
                self.inc("skipped_results")
                continue
            key = canonical_key(url)
            if key in self._seen:
                self.inc("duplicate_results")
                continue
            # Every worker of a distributed crawl reads the same result pages and
            # ranks alike; the shared store gives each result to one of them. Claimed
            # before it is remembered: a claim Redis failed raises, and the result page,
            # fetched again, offers this result again (its claim, if it ran, held for it).
            claimed = self.emitted.claim([result_key(key)], page)
            self._seen.add(key)
            self.taken += 1
            if not claimed:
                self.inc("results_taken_elsewhere")
                continue
            self.inc("results_taken")
            # dont_filter: every taken result must reach parse_result or result_failed,
            # so the stats add up even when two results redirect to one page.
            yield scrapy.Request(
                url,
                callback=self.parse_result,
                errback=self.result_failed,
                meta={"harvest_rank": self.taken},
                dont_filter=True,
            )

    def search_failed(self, failure: Failure) -> None:
        self.count_failure(failure, "search_errors")
        if failure.check(HttpError):
            reason = f"HTTP {failure.value.response.status}"
        else:
            reason = f"{type(failure.value).__name__}: {failure.value}"
        self.search_broken(failure.request.meta["harvest_page"], failure.request.url, reason)  # type: ignore[attr-defined]  # Scrapy sets Failure.request

    def search_broken(self, index: int, url: str, reason: str) -> None:
        """Log a result page that brought no results because the engine failed, at ERROR.

        Without results there is no corpus: when the first page fails the
        crawl closes with ``finish_reason = "search_failed"``. A later page
        only ends the paging; the results taken so far are still fetched.
        """
        self.logger.error(
            "Search engine %s failed on result page %d (%s): %s; %d result(s) taken so far",
            self.engine_name,
            index + 1,
            url,
            reason,
            self.taken,
        )
        if self.taken == 0:
            raise CloseSpider("search_failed")

    async def parse_result(self, response: Response) -> AsyncIterator[CleanedPage]:
        rank = response.meta["harvest_rank"]
        if not isinstance(response, TextResponse) or not is_html(response):
            self.inc("non_html")
            return
        if self.save_dir is not None:
            path = self.save_dir / html_file_name(rank, response.url)
            # Off the reactor thread: a slow disk must not stall the downloads.
            await maybe_deferred_to_future(deferToThread(path.write_bytes, response.body))
            self.inc("saved_html")
        self.inc("items")
        yield CleanedPage.from_response(response, query=self.query, rank=rank)

    def result_failed(self, failure: Failure) -> None:
        self.count_failure(failure, self.errors_key)

    def emitted_keys(self, item: Any) -> list[str] | None:
        """The result an item came from, as far as an item read back from a job's output tells
        (its URL: a result that redirected is fetched again after a crash). Items written as
        zyte-common-items (``WEBCLEAN_ITEM_CLASS``) carry no ``rank``: their body field marks them."""
        url = item.get("url")
        ours = item.get("rank") is not None or "articleBody" in item or "itemMain" in item
        return [result_key(canonical_key(url))] if url and ours else None


def result_key(url_key: str) -> str:
    """Store key (:mod:`webclean_scrapy.crawlstate.emitted`) of a taken result."""
    return f"result:{url_key}"
