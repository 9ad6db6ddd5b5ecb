"""Downloader middleware: extract every HTML response's main text as it arrives.

Enabled by :class:`webclean_scrapy.Addon`, or by hand in
``DOWNLOADER_MIDDLEWARES`` at 540: ``process_response`` runs from high numbers
to low, so 540 sees responses after redirects (600), decompression (590), meta
refresh (580) and retries (550) are dealt with.

For each HTML response the page's :class:`~webclean_scrapy.Extraction` lands
in ``response.meta["webclean"]`` (read it with :func:`extraction_of`):

* HTML = an :class:`~scrapy.http.HtmlResponse`, or a
  :class:`~scrapy.http.TextResponse` whose Content-Type mentions ``html``, whose
  body does not sniff as binary (:func:`~webclean_scrapy.engine.text.encoding.looks_binary`).
  Anything else passes through untouched, without the meta key
  (``webclean/skipped/non_html`` or ``webclean/skipped/binary``).
* ``Request(url, meta={"webclean_skip": True})``: not processed, no meta key
  (``webclean/skipped/requested``).
* Responses whose status is not 2xx (error pages, unfollowed redirects): not
  processed, no meta key (``webclean/skipped/http_status``); Scrapy's
  ``HttpErrorMiddleware`` drops most of them before any callback anyway.
* Bodies over ``WEBCLEAN_MAX_HTML_BYTES``: ``meta["webclean"] = None``
  (``webclean/skipped/too_large``).
* An extractor error: ``meta["webclean"] = None`` (``webclean/errors``), and
  one WARNING with the URL and the exception (its traceback at ``DEBUG`` log
  level); the response still reaches the spider, so no page is lost. So does
  a page over ``WEBCLEAN_PAGE_TIMEOUT`` (``webclean/errors/timeout``) or one
  that killed two worker processes (``webclean/errors/worker_crash``).
* A body known to be incomplete (Scrapy's ``dataloss`` flag, also set by
  :class:`~webclean_scrapy.downloadermiddlewares.compression.CompressedBodyCheckMiddleware` for a
  cut gzip stream) or a tree libxml2 could not finish: extracted, with
  ``Extraction.truncated = True`` (``webclean/pages/truncated``).

With the extraction, ``response.meta["webclean_outline"]`` receives the
page's links, feeds and article signals (:func:`outline_of`), gathered from
the tree the extraction parsed: a spider that reads them instead of calling
``response.css()``/``xpath()`` never parses the page on the reactor thread.

The meta keys are this module's contract with spiders and items, named by
its ``META_*`` constants (:data:`META_KEY`, :data:`META_SKIP`...).

Extraction runs off the reactor thread (:mod:`webclean_scrapy.offload`).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy.http import HtmlResponse, TextResponse

from webclean_scrapy.downloadermiddlewares.compression import is_truncated
from webclean_scrapy.engine.text.encoding import looks_binary
from webclean_scrapy.offload.offloader import Offloader
from webclean_scrapy.settings import WebcleanComponent, WebcleanSettings
from webclean_scrapy.stats import WebcleanStats

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response

    from webclean_scrapy.engine.extraction import Extraction
    from webclean_scrapy.offload.outline import PageOutline

logger = logging.getLogger(__name__)

# -- the meta keys: this middleware's contract with spiders and items ----------
#: Where the page's :class:`~webclean_scrapy.Extraction` lands (``None`` when the
#: page was HTML but could not be extracted: too large, or an error).
META_KEY = "webclean"
#: Request meta flag: ``Request(url, meta={"webclean_skip": True})`` is never extracted.
META_SKIP = "webclean_skip"
#: The page's ``<link rel="canonical">``, resolved.
META_CANONICAL_URL = "webclean_canonical_url"
#: ``WEBCLEAN_KEEP_HTML``; read by :meth:`CleanedPage.from_response <webclean_scrapy.items.CleanedPage.from_response>`.
META_KEEP_HTML = "webclean_keep_html"
#: The page's links, feeds and article signals
#: (:class:`~webclean_scrapy.offload.outline.PageOutline`), read where it was parsed.
META_OUTLINE = "webclean_outline"
#: ``WEBCLEAN_FORMATS``; read by :meth:`CleanedPage.from_response <webclean_scrapy.items.CleanedPage.from_response>`.
META_FORMATS = "webclean_formats"


def extraction_of(response: Response) -> Extraction | None:
    """The :class:`~webclean_scrapy.Extraction` the middleware attached, or ``None``
    (not HTML, skipped, too large, failed, or the middleware is not enabled)."""
    try:
        return response.meta.get(META_KEY)
    except AttributeError:  # a response not tied to a request
        return None


def outline_of(response: Response) -> PageOutline | None:
    """The :class:`~webclean_scrapy.offload.outline.PageOutline` the middleware attached
    with the extraction, or ``None`` (whenever :func:`extraction_of` is)."""
    try:
        return response.meta.get(META_OUTLINE)
    except AttributeError:
        return None


def is_html_response(response: Response) -> bool:
    """HTML by response class or Content-Type (not yet checked for binary bodies)."""
    if isinstance(response, HtmlResponse):
        return True
    if isinstance(response, TextResponse):
        content_type = response.headers.get(b"Content-Type") or b""
        return b"html" in content_type.lower()
    return False


def log_extraction_error(crawler: Crawler, url: str | None, exc: BaseException) -> None:
    """The WARNING for an extraction error that the crawl swallows (the page goes on without text).

    One line per page, naming the URL and the exception; the traceback only
    when the crawl logs DEBUG messages (``LOG_LEVEL``, Scrapy's default), so a
    systematic error does not flood a quieter log.
    """
    level = crawler.settings.get("LOG_LEVEL") or "DEBUG"
    debug = (level if isinstance(level, int) else logging.getLevelName(str(level).upper())) == logging.DEBUG
    logger.warning(
        "Extraction failed for %(url)s: %(error)s: %(message)s",
        {"url": url or "<item without url>", "error": type(exc).__name__, "message": exc},
        exc_info=debug and logger.isEnabledFor(logging.DEBUG),
        extra={"crawler": crawler},
    )


class WebcleanMiddleware(WebcleanComponent):
    """Attach each HTML response's main text at ``response.meta["webclean"]``."""

    def __init__(self, crawler: Crawler, settings: WebcleanSettings) -> None:
        super().__init__(crawler, settings)
        self.stats = WebcleanStats(crawler.stats)
        self.offloader = Offloader.for_crawler(crawler, settings)

    # *spider*: optional, as Scrapy no longer passes it (it warns only where it is required).
    async def process_response(self, request: Request, response: Response, spider: Spider | None = None) -> Response:
        meta: dict[str, Any] = request.meta
        if self.settings.formats:  # every item gets the fields asked for, "" when nothing was extracted
            meta[META_FORMATS] = self.settings.formats
        if meta.get(META_SKIP):
            self.stats.skipped("requested")
            return response
        if not 200 <= response.status < 300:
            self.stats.skipped("http_status")
            return response
        if not is_html_response(response):
            self.stats.skipped("non_html")
            return response
        content_type = response.headers.get(b"Content-Type")
        if looks_binary(response.body, content_type.decode("latin-1") if content_type else None):
            self.stats.skipped("binary")
            return response
        meta[META_KEEP_HTML] = self.settings.keep_html
        if len(response.body) > self.settings.max_html_bytes:
            self.stats.skipped("too_large")
            meta[META_KEY] = None
            return response
        try:
            result = await self.offloader.extract_response(response)  # type: ignore[arg-type]
        except Exception as exc:  # bad input must never stop the crawl
            self.stats.error(exc)
            log_extraction_error(self.crawler, response.url, exc)
            meta[META_KEY] = None
            return response
        extraction = result.extraction
        if is_truncated(response):  # cut in transfer: what the page holds is only its start
            extraction.truncated = True
        meta[META_KEY] = extraction
        meta[META_CANONICAL_URL] = result.canonical_url
        meta[META_OUTLINE] = result.outline
        self.stats.screened(result.screened)
        self.stats.extracted(len(response.body), extraction.text, result.seconds, extraction.truncated)
        self.stats.explained(result.report, result.report_failed)
        return response
