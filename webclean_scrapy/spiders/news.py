"""The ``news`` spider: crawl news sites, one cleaned item per article.

Discovery, from each start URL's site:

* ``robots.txt`` ``Sitemap:`` lines; without any, the common sitemap paths
  (:data:`COMMON_SITEMAP_PATHS`). Sitemap indexes, news sitemaps and gzip
  sitemaps are read with Scrapy's own :class:`~scrapy.utils.sitemap.Sitemap`.
* RSS/Atom feeds announced by ``<link rel="alternate">`` in the pages.

Feeds and sitemaps are parsed where pages are extracted, never on the
reactor thread (:mod:`webclean_scrapy.offload.listings`), and each gives at
most ``WEBCLEAN_MAX_FEED_LINKS`` URLs (stats ``news/feeds/truncated``,
``news/sitemaps/truncated`` count the rest).
* In-site links of every page (articles and hubs alike), up to
  ``DEPTH_LIMIT``. A site is a host with or without ``www.``.

Every HTML page is classified (:mod:`webclean_scrapy.engine.page_type.articles`); hubs are
only followed, articles become :class:`~webclean_scrapy.items.CleanedPage`
items. One article reached under several URLs gives one item: tracking
parameters and fragments are dropped before requesting
(:mod:`webclean_scrapy.fingerprint`, also the dupefilter's fingerprint), a page
whose ``rel=canonical`` names another in-site URL defers to that URL, and a
page whose main text was already emitted is a duplicate.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

import scrapy
from scrapy import signals
from scrapy.exceptions import CloseSpider, DontCloseSpider
from scrapy.http import TextResponse
from scrapy.utils.sitemap import sitemap_urls_from_robots

from webclean_scrapy.crawlstate.emitted import META_HOLD, claim_page
from webclean_scrapy.downloadermiddlewares.extraction import META_CANONICAL_URL, META_SKIP, extraction_of, outline_of
from webclean_scrapy.engine.page_type.articles import (
    MIN_LINK_WORDS,
    classify,
    content_fingerprint,
    headline_matches,
    headline_word_list,
    is_hub_url,
)
from webclean_scrapy.fingerprint import canonical_key, site_of, strip_tracking
from webclean_scrapy.items import CleanedPage
from webclean_scrapy.offload.listings import Listing, feed_root, feed_urls, read_feed, read_sitemap, worker_name
from webclean_scrapy.settings import WebcleanSettings
from webclean_scrapy.spiders.base import (
    SpiderArgumentError,
    WebcleanSpider,
    is_html,
    parse_bool,
    parse_positive_int,
    parse_url,
)

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from twisted.python.failure import Failure
    from typing_extensions import Self  # typing.Self: Python 3.11

    from webclean_scrapy.engine.extraction import Extraction

#: Tried, in order, when robots.txt names no sitemap (or cannot be fetched).
COMMON_SITEMAP_PATHS = ("/sitemap.xml", "/sitemap_index.xml", "/news-sitemap.xml", "/sitemap-news.xml")
#: ``DEPTH_LIMIT`` used when neither the project nor ``-a max_depth`` sets one.
DEFAULT_MAX_DEPTH = 4
#: Request priorities: sitemap/feed entries are likely articles, fetch them early.
PRIORITY_DISCOVERY = 20
PRIORITY_LISTED = 10
PRIORITY_CANONICAL = 15

#: Meta keys this spider sets on its requests.
META_URL_KEY = "news_key"
#: The headline a listing gave the link (its text, when it is part of the listing's main text).
META_HEADLINE = "news_headline"


def read_start_urls(start_urls: str | Iterable[str] | None, start_urls_file: str | None) -> list[str]:
    """Start URLs from ``-a start_urls=a,b`` and/or a file (one per line, ``#`` comments),
    checked by :func:`~webclean_scrapy.spiders.base.parse_url`."""
    urls: list[str] = []
    if isinstance(start_urls, str):
        urls.extend(u.strip() for u in start_urls.split(","))
    elif start_urls:
        urls.extend(start_urls)
    if start_urls_file:
        try:
            lines = Path(start_urls_file).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise SpiderArgumentError(f"-a start_urls_file: cannot read {start_urls_file}: {reason}") from None
        urls.extend(line.split("#", 1)[0].strip() for line in lines)
    result = [strip_tracking(parse_url(url, "-a start_urls")) for url in filter(None, urls)]
    if not result:
        raise SpiderArgumentError("the news spider needs -a start_urls=URL[,URL...] or -a start_urls_file=PATH")
    return result


class NewsSpider(WebcleanSpider):
    """Crawl news sites and keep each article's main text, once.

    Arguments (``-a name=value``): ``start_urls`` (comma-separated),
    ``start_urls_file``, ``max_pages`` (HTML pages to parse, then stop),
    ``max_depth`` (overrides ``DEPTH_LIMIT``), ``sitemaps`` / ``feeds`` /
    ``follow_links`` (``0`` turns a discovery channel off).
    """

    name = "news"
    stats_prefix = "news/"
    custom_settings = {
        # Links, feeds and article signals from the extraction worker: no parse here.
        "WEBCLEAN_OUTLINE": True,
    }

    def __init__(
        self,
        start_urls: str | Iterable[str] | None = None,
        start_urls_file: str | None = None,
        max_pages: str | int | None = None,
        max_depth: str | int | None = None,
        sitemaps: str | bool = True,
        feeds: str | bool = True,
        follow_links: str | bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.start_urls = read_start_urls(start_urls, start_urls_file)
        self.max_pages = parse_positive_int("max_pages", max_pages) if max_pages not in (None, "") else None
        self.max_depth = (
            parse_positive_int("max_depth", max_depth, allow_zero=True) if max_depth not in (None, "") else None
        )
        self.use_sitemaps = parse_bool(sitemaps)
        self.use_feeds = parse_bool(feeds)
        self.follow_links = parse_bool(follow_links)
        self.sites = frozenset(site_of(u) for u in self.start_urls)
        # OffsiteMiddleware backs up our own site check (it also admits subdomains).
        self.allowed_domains = sorted(self.sites)
        self.pages = 0
        self._requested: set[str] = set()  # keys of page requests made
        self._done: set[str] = set()  # keys of page requests answered (any outcome)
        self._fallbacks: dict[str, CleanedPage] = {}  # canonical key -> item of a variant
        self._hubs: set[str] = set()  # keys of pages judged hubs (never a story's canonical)
        self._holding: dict[str, scrapy.Request] = {}  # canonical key -> request of that variant (META_HOLD)
        self._feeds: set[str] = set()
        self.max_feed_links = 0  # WEBCLEAN_MAX_FEED_LINKS, read in from_crawler
        self._truncation_logged = False

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> Self:
        spider = super().from_crawler(crawler, *args, **kwargs)
        settings = crawler.settings
        if spider.max_depth is not None:
            settings.set("DEPTH_LIMIT", spider.max_depth, priority="spider")
        elif settings.getpriority("DEPTH_LIMIT") == 0:  # still Scrapy's default
            settings.set("DEPTH_LIMIT", DEFAULT_MAX_DEPTH, priority="spider")
        crawler.signals.connect(spider.on_idle, signal=signals.spider_idle)
        webclean = WebcleanSettings.from_settings(settings)
        spider.max_feed_links = webclean.max_feed_links
        if webclean.fields is not None and "title" not in webclean.fields:
            # The story-or-hub rule and the content fingerprint read each page's title.
            fields = [*webclean.fields, "title"]
            settings.set("WEBCLEAN_FIELDS", fields, priority=settings.getpriority("WEBCLEAN_FIELDS") or "spider")
        return spider

    # -- start ------------------------------------------------------------
    async def start(self) -> AsyncIterator[Any]:
        roots: dict[str, str] = {}
        for url in self.start_urls:
            yield self.page_request(url, priority=PRIORITY_DISCOVERY)
            parts = urlsplit(url)
            roots.setdefault(f"{parts.scheme}://{parts.netloc}", url)
        if self.use_sitemaps:
            for root in roots:
                yield scrapy.Request(
                    root + "/robots.txt",
                    callback=self.parse_robots,
                    errback=self.robots_failed,
                    priority=PRIORITY_DISCOVERY,
                    meta={META_SKIP: True, "news_root": root},
                )

    # -- requests -----------------------------------------------------------
    def in_site(self, url: str) -> bool:
        return urlsplit(url).scheme in ("http", "https") and site_of(url) in self.sites

    def page_request(self, url: str, *, priority: int = 0, headline: str | None = None) -> scrapy.Request:
        url = strip_tracking(url)
        key = canonical_key(url)
        self._requested.add(key)
        meta: dict[str, Any] = {META_URL_KEY: key}
        if headline:
            meta[META_HEADLINE] = headline
        return scrapy.Request(url, callback=self.parse_page, errback=self.page_failed, priority=priority, meta=meta)

    def budget_left(self) -> bool:
        return self.max_pages is None or self.pages < self.max_pages

    def within_depth(self, response: Response) -> bool:
        """Whether requests made from *response* stay within ``DEPTH_LIMIT``.

        Checked here rather than left to Scrapy's DepthMiddleware so that a URL
        is only marked as requested when it will really be fetched.
        """
        limit = self.crawler.settings.getint("DEPTH_LIMIT")
        return not limit or response.meta.get("depth", 0) < limit

    def follow(
        self, urls: Iterable[str], response: Response, *, priority: int = 0, headlines: dict[str, str] | None = None
    ) -> Iterator[scrapy.Request]:
        """Requests for the in-site, not yet requested page URLs among *urls* linked from *response*.

        *headlines*: URL -> the headline a listing gave it (see :meth:`headlines`).
        """
        return self.follow_keyed(((url, None) for url in urls), response, priority=priority, headlines=headlines)

    def follow_keyed(
        self,
        links: Iterable[tuple[str, str | None]],
        response: Response,
        *,
        priority: int = 0,
        headlines: dict[str, str] | None = None,
    ) -> Iterator[scrapy.Request]:
        """:meth:`follow` for ``(url, canonical key)`` pairs (``None``: computed here); a feed's or
        sitemap's keys come from the worker that read it, not from the reactor thread."""
        if not self.within_depth(response):
            return
        for url, key in links:
            if not self.budget_left():
                return
            if not self.in_site(url):
                self.inc("offsite_links")
                continue
            if (key or canonical_key(url)) in self._requested:
                continue
            yield self.page_request(url, priority=priority, headline=(headlines or {}).get(url))

    def sitemap_request(self, url: str, *, probe: bool = False) -> scrapy.Request:
        return scrapy.Request(
            url,
            callback=self.parse_sitemap,
            errback=self.probe_failed if probe else self.discovery_failed,
            priority=PRIORITY_DISCOVERY,
            meta={META_SKIP: True, "news_probe": probe},
        )

    # -- robots.txt and sitemaps ----------------------------------------------
    def parse_robots(self, response: Response) -> Iterator[scrapy.Request]:
        urls = [u for u in robots_sitemaps(response.body, response.url) if self.in_site(u)]
        if urls:
            for url in urls:
                yield self.sitemap_request(url)
        else:
            yield from self.probe_sitemaps(response.meta["news_root"])

    def robots_failed(self, failure: Failure) -> Iterator[scrapy.Request]:
        yield from self.probe_sitemaps(failure.request.meta["news_root"])  # type: ignore[attr-defined]  # Scrapy sets Failure.request

    def probe_sitemaps(self, root: str) -> Iterator[scrapy.Request]:
        for path in COMMON_SITEMAP_PATHS:
            yield self.sitemap_request(urljoin(root, path), probe=True)

    def probe_failed(self, failure: Failure) -> None:
        """A guessed sitemap path that does not exist is not an error."""
        self.inc("sitemap_probes_missed")

    def discovery_failed(self, failure: Failure) -> None:
        self.count_failure(failure, "discovery_errors")
        self.log_failure(failure)

    async def read_listing(self, func: Any, response: Response, *args: Any) -> Listing | None:
        """*func* (:mod:`webclean_scrapy.offload.listings`) on the response's bytes, where pages are
        extracted; ``None`` when that failed (over ``WEBCLEAN_PAGE_TIMEOUT``, a crashed worker)."""
        try:
            listing = await self.offloader.run(
                func, response.body, response.url, self.max_feed_links, *args, label=response.url
            )
        except Exception as exc:
            self.logger.warning("Could not read the feed or sitemap %s: %s: %s", response.url, type(exc).__name__, exc)
            return None
        if listing is not None and listing.worker != worker_name():
            self.inc("listings/off_reactor")
        return listing

    def count_truncated(self, key: str, response: Response, listing: Listing) -> None:
        """Count the entries a listing held past ``WEBCLEAN_MAX_FEED_LINKS``; log the first such listing."""
        if not listing.truncated:
            return
        self.inc(key, listing.truncated)
        if not self._truncation_logged:
            self._truncation_logged = True
            self.logger.warning(
                "%s lists %d more URLs than WEBCLEAN_MAX_FEED_LINKS (%d): only the first %d are followed "
                "(this is logged once; stats %s count the rest)",
                response.url,
                listing.truncated,
                self.max_feed_links,
                self.max_feed_links,
                "news/feeds/truncated and news/sitemaps/truncated",
            )

    async def parse_sitemap(self, response: Response) -> AsyncIterator[scrapy.Request]:
        probe = response.meta.get("news_probe", False)
        listing = await self.read_listing(read_sitemap, response, self.crawler.settings.getint("DOWNLOAD_MAXSIZE"))
        if listing is None:
            self.inc("sitemap_probes_missed" if probe else "malformed_sitemaps")
            return
        if listing.kind not in ("sitemapindex", "urlset"):
            self.inc("malformed_sitemaps")
            return
        self.inc("sitemaps")
        self.count_truncated("sitemaps/truncated", response, listing)
        if listing.kind == "sitemapindex":
            for loc, _ in listing.links:
                if self.in_site(loc):
                    yield self.sitemap_request(loc)
            return
        self.inc("sitemap_urls", len(listing.links))
        listed_by_site(response)
        for request in self.follow_keyed(listing.links, response, priority=PRIORITY_LISTED):
            yield request

    # -- feeds ------------------------------------------------------------------
    def discover_feeds(self, feeds: Iterable[str]) -> Iterator[scrapy.Request]:
        for url in feeds:
            if url in self._feeds or not self.in_site(url):
                continue
            self._feeds.add(url)
            yield scrapy.Request(
                url,
                callback=self.parse_feed,
                errback=self.discovery_failed,
                priority=PRIORITY_DISCOVERY,
                meta={META_SKIP: True},
            )

    async def parse_feed(self, response: Response) -> AsyncIterator[scrapy.Request]:
        listing = await self.read_listing(read_feed, response)
        if listing is None or listing.kind is None:
            self.inc("malformed_feeds")
            return
        self.inc("feeds")
        self.inc("feed_urls", len(listing.links))
        self.count_truncated("feeds/truncated", response, listing)
        listed_by_site(response)
        for request in self.follow_keyed(listing.links, response, priority=PRIORITY_LISTED):
            yield request

    # -- pages ------------------------------------------------------------------
    def parse_page(self, response: Response) -> Iterator[Any]:
        key = response.meta.get(META_URL_KEY) or canonical_key(response.url)
        self._done.add(key)
        self._done.add(canonical_key(response.url))
        if not isinstance(response, TextResponse) or not is_html(response):
            self.inc("non_html")
            yield from self.release_fallback(key)
            return
        if not self.budget_left():
            self.inc("over_max_pages")
            return
        self.pages += 1
        self.inc("pages")
        # What the page says beyond its text (signals, feeds, links) comes
        # from the extraction worker, which parsed it: never parsed again
        # here, on the reactor thread (a page built to stall the parser
        # would stall the crawl). A page without one (too large, failed,
        # over WEBCLEAN_PAGE_TIMEOUT) gives neither an item nor links.
        extraction = extraction_of(response)
        outline = outline_of(response)
        emitted = is_hub = False
        if extraction is None or outline is None:
            self.inc("unextracted")
        else:
            headline = response.meta.get(META_HEADLINE)
            signals = replace(
                outline.signals, listed_as_story=bool(headline and headline_matches(headline, extraction.title or ""))
            )
            verdict = classify(signals)
            self.logger.debug("%s: %s %+d %s", response.url, verdict.kind, verdict.score, verdict.reasons)
            if verdict.is_article:
                self.inc("articles")
                item_or_request = self.article(response, extraction)
                if item_or_request is not None:
                    emitted = isinstance(item_or_request, CleanedPage)
                    yield item_or_request
            else:
                self.inc("hubs")
                self._hubs.update((key, canonical_key(response.url)))
                is_hub = True
        if not emitted:
            yield from self.release_fallback(key)
        else:
            self.discard_fallback(key)
        if outline is not None and self.use_feeds:
            yield from self.discover_feeds(outline.feeds)
        if outline is not None and self.follow_links:
            headlines = (
                self.headlines(zip(outline.links, outline.link_texts), extraction.text)
                if is_hub and extraction
                else None
            )
            yield from self.follow(outline.links, response, headlines=headlines)
        if not self.budget_left():
            raise CloseSpider("max_pages")

    @staticmethod
    def headlines(links: Iterable[tuple[str, str]], text: str) -> dict[str, str]:
        """The links of a listing that are teasers: their text (a headline) is part of its main text.

        Menu and footer links are not in the main text. The page behind a
        teaser whose headline is its title is a story
        (:attr:`~webclean_scrapy.engine.page_type.articles.PageSignals.listed_as_story`).
        """
        main = " ".join(headline_word_list(text))
        found: dict[str, str] = {}
        for url, anchor in links:
            words = headline_word_list(anchor)
            if len(words) >= MIN_LINK_WORDS and f" {' '.join(words)} " in f" {main} ":
                found.setdefault(url, anchor)
        return found

    def article(self, response: TextResponse, extraction: Extraction) -> CleanedPage | scrapy.Request | None:
        """The item for an article page, unless another URL of it is (or will be) the item.

        Returns ``None`` for a duplicate, or a request for the page's declared
        canonical URL when that in-site URL was not fetched yet: the variant
        waits as a fallback, emitted only if the canonical URL yields nothing.
        """
        fetched = canonical_key(response.url)
        declared = self.trusted_canonical(response)
        canonical = canonical_key(declared) if declared else fetched
        text_key = content_fingerprint(extraction.text, extraction.title or "")
        if self.emitted.seen(emitted_keys((fetched, canonical), text_key), claim_page(response.request)):
            self.inc("duplicates")
            return None
        item = CleanedPage.from_response(response, extraction)
        if declared is None:
            item["canonical_url"] = response.url
        if canonical != fetched and declared and self.in_site(declared) and canonical not in self._done:
            if canonical in self._requested:
                self.defer(canonical, item, response)
                self.inc("deferred_to_canonical")
                return None
            if self.within_depth(response) and self.budget_left():
                self.defer(canonical, item, response)
                self.inc("deferred_to_canonical")
                return self.page_request(declared, priority=PRIORITY_CANONICAL)
        return self.emit(item, response.request)

    def trusted_canonical(self, response: TextResponse) -> str | None:
        """The page's declared canonical URL, unless it names a listing.

        Misconfigured sites declare the home page or the section as every
        story's canonical URL; believed, it makes every story after the first
        a duplicate. A canonical URL shaped like a hub
        (:func:`~webclean_scrapy.engine.page_type.articles.is_hub_url`: home page, tag,
        pagination) or fetched and judged a hub is ignored
        (``news/ignored_canonicals``), and the page is its own canonical URL.
        """
        declared = response.meta.get(META_CANONICAL_URL)
        if not declared or canonical_key(declared) == canonical_key(response.url):
            return declared
        if is_hub_url(declared) or canonical_key(declared) in self._hubs:
            self.inc("ignored_canonicals")
            return None
        return declared

    def emit(self, item: CleanedPage, request: scrapy.Request | None) -> CleanedPage | None:
        """*item*, unless its keys were emitted already; *request*: the page it comes from."""
        if not self.emitted.claim(self.emitted_keys(item) or (), claim_page(request)):
            self.inc("duplicates")
            return None
        self.inc("items")
        return item

    def emitted_keys(self, item: Any) -> list[str] | None:
        """Its fetched and canonical URL keys and its text fingerprint (also for items read back from a job's outputs).

        Items written as zyte-common-items (``WEBCLEAN_ITEM_CLASS``) are read by their
        own field names: ``canonicalUrl``, ``articleBody`` or ``itemMain``, ``headline``.
        """
        url = item.get("url")
        canonical = item.get("canonical_url") or item.get("canonicalUrl")
        text = next((item[name] for name in ("text", "articleBody", "itemMain") if name in item), None)
        title = item.get("title") or item.get("headline") or ""
        if not url or text is None:
            return None
        return emitted_keys((canonical_key(url), canonical_key(canonical or url)), content_fingerprint(text, title))

    def defer(self, key: str, item: CleanedPage, response: Response) -> None:
        """Keep *item* until its canonical URL *key* is answered; its request stays in a
        distributed worker's in-flight ledger meanwhile (``META_HOLD``)."""
        if key in self._fallbacks:
            return
        self._fallbacks[key] = item
        if response.request is not None:
            response.request.meta[META_HOLD] = True
            self._holding[key] = response.request

    def unhold(self, key: str) -> None:
        request = self._holding.pop(key, None)
        if request is not None:
            request.meta[META_HOLD] = False

    def release_fallback(self, key: str) -> Iterator[CleanedPage]:
        """The canonical URL *key* gave no item: emit the variant that deferred to it."""
        item = self._fallbacks.get(key)
        if item is not None:
            if key in self._hubs:  # its declared canonical URL is a listing
                self.inc("ignored_canonicals")
                item["canonical_url"] = item["url"]
            # Kept until the claim answered: a Redis failure retries the page, which releases it again.
            emitted = self.emit(item, self._holding.get(key))
            del self._fallbacks[key]
            self.unhold(key)
            if emitted is not None:
                yield emitted
        else:
            self.unhold(key)

    def discard_fallback(self, key: str) -> None:
        self.unhold(key)
        if self._fallbacks.pop(key, None) is not None:
            self.inc("duplicates")

    def on_idle(self) -> None:
        """Before closing, emit variants whose canonical URL was never answered.

        A safety net (the canonical request may have been dropped by another
        component): items can only leave through a callback, so a ``data:``
        request carries them out. In a distributed crawl another worker may be
        fetching the canonical URL: the variants wait until no other worker works.
        """
        if not self._fallbacks:
            return
        others_working = getattr(self.crawler.engine.scheduler, "others_working", None)
        if others_working is not None and others_working():
            raise DontCloseSpider
        self.crawler.engine.crawl(
            scrapy.Request("data:,", callback=self.flush_fallbacks, dont_filter=True, meta={META_SKIP: True})
        )
        raise DontCloseSpider

    def flush_fallbacks(self, response: Response) -> Iterator[CleanedPage]:
        for key in list(self._fallbacks):
            yield from self.release_fallback(key)

    def page_failed(self, failure: Failure) -> Iterator[CleanedPage]:
        self.count_failure(failure)
        self.log_failure(failure)
        key = failure.request.meta.get(META_URL_KEY) or canonical_key(failure.request.url)  # type: ignore[attr-defined]  # Scrapy sets Failure.request
        self._done.add(key)
        yield from self.release_fallback(key)


def emitted_keys(url_keys: Iterable[str], text_key: str) -> list[str]:
    """Store keys (:mod:`webclean_scrapy.crawlstate.emitted`) of an item's URL keys and text fingerprint."""
    return [*(f"url:{key}" for key in url_keys), f"text:{text_key}"]


def robots_sitemaps(body: bytes, base_url: str) -> list[str]:
    """The ``Sitemap:`` URLs of a robots.txt, by Scrapy's own reader."""
    return list(sitemap_urls_from_robots(body, base_url=base_url))


def listed_by_site(response: Response) -> None:
    """Count the pages a sitemap or feed lists as depth 1, like the home page's links.

    The site itself lists them, so the number of hops through robots.txt and
    sitemap indexes says nothing about how deep they are. It also keeps the
    crawl deterministic: a section reached through a sitemap chain and through
    the home page gets the same depth whichever response arrives first.
    Scrapy's DepthMiddleware derives each request's depth from the meta of the
    response that yielded it, read as the requests come out of the callback.
    """
    response.meta["depth"] = 0


def feed_links(body: bytes) -> list[str] | None:
    """Item links of an RSS 0.9x/1.0/2.0 or Atom feed; ``None`` if *body* is not a feed
    (:func:`~webclean_scrapy.offload.listings.feed_root`; the crawl reads feeds with
    :func:`~webclean_scrapy.offload.listings.read_feed`, in a worker)."""
    parsed = feed_root(body)
    if parsed is None:
        return None
    return [link.strip() for link in feed_urls(*parsed) if link.strip()]
