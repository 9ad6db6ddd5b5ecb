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

A page is extracted once whichever components are on: a spider that yields
``{"url": response.url, "html": response.text}`` (or ``response.body``) gets
its item filled by :class:`~webclean_scrapy.pipelines.WebcleanPipeline` from
the extraction made here, not from a second one. The middleware lists the
responses it extracted in the crawl's :class:`PageExtractions` (weak
references: an entry goes with its response, which Scrapy holds until the
items of its callback are through the pipelines), and the pipeline reuses a
response's extraction when the item's URL is the response's and its HTML is
the response's body or text, read in the charset the extraction read it in
(:func:`same_markup`). Any other item is extracted by the pipeline, as before.

Extraction runs off the reactor thread (:mod:`webclean_scrapy.offload`).
"""

from __future__ import annotations

import codecs
import logging
import weakref
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from scrapy.http import HtmlResponse, TextResponse

from webclean_scrapy.downloadermiddlewares.compression import is_truncated
from webclean_scrapy.engine.html.parsing import parser_bytes
from webclean_scrapy.engine.text.encoding import double_encoded, html_encoding, is_plain_utf8, looks_binary
from webclean_scrapy.offload.jobs import response_content_type
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
#: ``WEBCLEAN_FIELDS`` (set only when it is): the optional fields the items carry, read by
#: :meth:`CleanedPage.from_response <webclean_scrapy.items.CleanedPage.from_response>`.
META_FIELDS = "webclean_fields"


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


#: Extracted responses :class:`PageExtractions` lists at most (only live ones are
#: listed: past this, the oldest entries go and their items are extracted again).
REUSABLE_PAGES = 4096


@lru_cache(maxsize=64)
def _reads_ascii_as_ascii(encoding: str) -> bool:
    """Whether *encoding* decodes every ASCII byte as that ASCII character."""
    ascii_bytes = bytes(range(128))
    try:
        return codecs.decode(ascii_bytes, encoding) == ascii_bytes.decode("ascii")
    except (LookupError, UnicodeDecodeError):
        return False


def same_markup(html: Any, response: Response) -> bool:
    """Whether *html*, an item's HTML, is what the middleware extracted of
    *response*: its body, or its text decoded in the charset the extraction
    decoded the body in.

    The pipeline extracts ``bytes`` without the response's Content-Type and
    a ``str`` as it stands, so the body counts only when its Content-Type
    changes nothing of its reading, and the text only when Scrapy read it
    in the extraction's charset (or the body is ASCII, which every such
    charset reads alike); a page whose charset only detection could tell is
    not checked here, on the reactor thread: its item is extracted again."""
    if not isinstance(response, TextResponse):
        return False
    body = response.body
    header = response_content_type(response)
    if isinstance(html, bytes):
        return (html is body or html == body) and html_encoding(body, header) == html_encoding(body, None)
    if not isinstance(html, str):
        return False
    text = response.text
    if html is not text and html != text:
        return False
    encoding = html_encoding(body, header)
    if encoding is None:  # declared nowhere: UTF-8 if it is, else what detection finds
        if not is_plain_utf8(body):
            return False
        encoding = "utf-8"
    if encoding != response.encoding and not (body.isascii() and _reads_ascii_as_ascii(response.encoding)):
        return False
    # A str is read back from UTF-8 decoded twice whatever its charset; bytes only when they are UTF-8.
    return encoding == "utf-8" or not double_encoded(parser_bytes(html))


class PageExtractions:
    """The crawl's extracted responses, by URL, for the pipeline to reuse
    (:meth:`extraction_for`): one per crawler (:meth:`for_crawler`), shared
    by :class:`WebcleanMiddleware`, which adds to it, and
    :class:`~webclean_scrapy.pipelines.WebcleanPipeline`. It holds weak
    references only, so it keeps no response alive, and at most
    :data:`REUSABLE_PAGES` of them."""

    def __init__(self, limit: int = REUSABLE_PAGES) -> None:
        self.limit = limit
        self._by_url: dict[str, list[weakref.ref[Response]]] = {}
        self._count = 0

    @classmethod
    def for_crawler(cls, crawler: Crawler) -> PageExtractions:
        pages = getattr(crawler, "_webclean_pages", None)
        if pages is None:
            pages = cls()
            crawler._webclean_pages = pages  # type: ignore[attr-defined]  # per-crawl state
        return pages

    def __len__(self) -> int:
        return self._count

    def add(self, response: Response) -> None:
        """List *response*, whose ``meta["webclean"]`` is set."""
        url = response.url
        self._by_url.setdefault(url, []).append(weakref.ref(response, lambda ref: self._forget(url, ref)))
        self._count += 1
        while self._count > self.limit:
            oldest = next(iter(self._by_url))
            self._forget(oldest, self._by_url[oldest][0])

    def _forget(self, url: str, ref: weakref.ref[Response]) -> None:
        refs = self._by_url.get(url)
        if refs is None or ref not in refs:
            return
        refs.remove(ref)
        self._count -= 1
        if not refs:
            del self._by_url[url]

    def extraction_for(self, html: Any, url: Any) -> tuple[bool, Extraction | None]:
        """``(True, extraction)`` when a listed response of *url* has *html* as
        its markup (:func:`same_markup`): its ``meta["webclean"]``, ``None`` if
        it could not be extracted (too large, an error). ``(False, None)``
        otherwise: the item is to be extracted."""
        if not isinstance(url, str):
            return False, None
        for ref in list(self._by_url.get(url, ())):
            response = ref()
            if response is not None and same_markup(html, response):
                return True, extraction_of(response)
        return False, None


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
        self.pages = PageExtractions.for_crawler(crawler)

    # *spider*: optional, as Scrapy no longer passes it (it warns only where it is required).
    async def process_response(self, request: Request, response: Response, spider: Spider | None = None) -> Response:
        meta: dict[str, Any] = request.meta
        if self.settings.formats:  # every item gets the fields asked for, "" when nothing was extracted
            meta[META_FORMATS] = self.settings.formats
        if self.settings.fields is not None:  # the others were not computed: items leave them out
            meta[META_FIELDS] = self.settings.fields
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
            self.pages.add(response)
            return response
        try:
            result = await self.offloader.extract_response(response)  # type: ignore[arg-type]
        except Exception as exc:  # bad input must never stop the crawl
            self.stats.error(exc)
            log_extraction_error(self.crawler, response.url, exc)
            meta[META_KEY] = None
            self.pages.add(response)
            return response
        extraction = result.extraction
        if is_truncated(response):  # cut in transfer: what the page holds is only its start
            extraction.truncated = True
        meta[META_KEY] = extraction
        meta[META_CANONICAL_URL] = result.canonical_url
        meta[META_OUTLINE] = result.outline
        self.pages.add(response)
        self.stats.screened(result.screened)
        self.stats.extracted(len(response.body), extraction.text, result.seconds, extraction.truncated)
        self.stats.explained(result.report, result.report_failed)
        return response
