"""Downloader middleware: a response's text is read in the charset its extraction reads it in.

Scrapy chooses a response's charset by w3lib's rules and, on a page that
declares none, by charset-normalizer; :mod:`webclean_scrapy.engine.text.encoding`
chooses as a browser does (Firefox's detector, the page's top-level domain
as its hint) and corrects three ways Scrapy's rules break the HTML standard
(``<meta charset="utf-16">`` on an ASCII page, BOM-less UTF-16, UTF-8 bytes
declared ``ISO-8859-1``). Where the two differ, the spider's selectors and
``response.text`` read other words than the item's text: a Portuguese or
Turkish page without a charset, read by charset-normalizer as Windows-1250,
has ``Ă`` for ``ã``; a UTF-8 page a server labels ``ISO-8859-1`` (Apache's
default) has ``Ã©`` for ``é`` in every title and link text the spider picks.

:class:`CharsetMiddleware` gives such responses the charset the extraction
uses (a copy of the response with that ``encoding``, Scrapy's own way to fix
a response's charset), so ``response.text``, ``response.css()`` and the
extraction agree, and :class:`~webclean_scrapy.downloadermiddlewares.extraction.WebcleanMiddleware`
reuses Scrapy's decoded text instead of decoding the bytes again. Priority
``585``: ``process_response`` runs from high numbers to low, so it sees the
body after Scrapy's decompression (590) and before meta refresh (580) reads
the text. Counted: ``webclean/charset/detected`` (no charset declared, not
UTF-8: the browser's detector chose) and ``webclean/charset/corrected``
(declared, but read otherwise by the rules above). An undeclared page that
is UTF-8 (or ASCII) is left alone: Scrapy reads it so too. A page whose
charset was detected never reaches charset-normalizer, which costs more than
the check (docs/BENCHMARKS.md, "Charset detection").

Only HTML responses up to ``WEBCLEAN_MAX_HTML_BYTES`` are looked at, as for
the extraction. On the reactor thread, only the cheap part runs
(:func:`charset_check`: the declarations, a UTF-8 check, linear at GB/s).
The detector's part (:func:`~webclean_scrapy.engine.text.encoding.detected_encoding`:
one decoding of the body, then chardetng on at most its first
:data:`~webclean_scrapy.engine.text.encoding.DETECTION_BYTES`) runs where pages are
extracted (``WEBCLEAN_OFFLOAD``: worker processes or threads, under
``WEBCLEAN_PAGE_TIMEOUT``), for the pages that need it: those that declare
no charset and are not UTF-8. If it fails there (a timeout, a worker's
crash), the response goes on as Scrapy reads it, counted as
``webclean/charset/failed``, and the extraction decodes the bytes itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy.http import TextResponse

from webclean_scrapy.downloadermiddlewares.extraction import is_html_response
from webclean_scrapy.engine.text.encoding import detected_encoding, html_encoding, is_plain_utf8, looks_binary
from webclean_scrapy.offload.jobs import explicit_encoding, response_content_type
from webclean_scrapy.offload.offloader import Offloader
from webclean_scrapy.settings import WebcleanComponent, WebcleanSettings
from webclean_scrapy.stats import WebcleanStats

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response


def with_encoding(response: TextResponse, encoding: str) -> TextResponse:
    """A copy of *response* read in *encoding*. ``response.replace(encoding=...)``
    would first read ``response.encoding``, i.e. run Scrapy's detection,
    the work this replaces."""
    attributes = {name: getattr(response, name) for name in response.attributes if name != "encoding"}
    return type(response)(encoding=encoding, **attributes)


#: A charset choice: ``(encoding, reason)``, the reason ``"detected"`` or
#: ``"corrected"`` (the stats' names).
Choice = tuple[str, str]

#: What :func:`charset_check` returns when only the detector can tell
#: (:func:`~webclean_scrapy.engine.text.encoding.detected_encoding`).
DETECT = "detect"


def charset_check(response: TextResponse) -> Choice | None | str:
    """The cheap part of :func:`extraction_charset`, for the reactor thread:
    the choice when the response's charset is set explicitly or declared, or
    its body is plain UTF-8 (:func:`~webclean_scrapy.engine.text.encoding.is_plain_utf8`);
    else :data:`DETECT`: the body's
    :func:`~webclean_scrapy.engine.text.encoding.detected_encoding` decides."""
    if explicit_encoding(response):
        return None
    declared = html_encoding(response.body, response_content_type(response))
    if declared is not None:
        # Declared: Scrapy's choice is cheap to read (no detection runs).
        return None if declared == response.encoding else (declared, "corrected")
    return None if is_plain_utf8(response.body) else DETECT


def detected(encoding: str | None) -> Choice | None:
    """The choice for what :func:`~webclean_scrapy.engine.text.encoding.detected_encoding` found."""
    return None if encoding is None else (encoding, "detected")


def extraction_charset(response: TextResponse) -> Choice | None:
    """``(encoding, reason)`` when the extraction reads *response* in another
    charset than Scrapy would, ``None`` when they agree, or when the
    response's charset was set explicitly (``response.replace(encoding=...)``
    in a middleware of the project's, ``TextResponse(..., encoding=...)``):
    Scrapy reads such a response in that charset, before any rule, and so
    does this."""
    choice = charset_check(response)
    if isinstance(choice, str):  # DETECT
        return detected(detected_encoding(response.body, response.url))
    return choice


class CharsetMiddleware(WebcleanComponent):
    """Read each HTML response in the charset its extraction reads it in."""

    #: Where it goes in ``DOWNLOADER_MIDDLEWARES``: after Scrapy's
    #: ``HttpCompressionMiddleware`` (590) in response order, before
    #: ``MetaRefreshMiddleware`` (580) and the extraction (540).
    PRIORITY = 585

    def __init__(self, crawler: Crawler, settings: WebcleanSettings) -> None:
        super().__init__(crawler, settings)
        self.stats = WebcleanStats(crawler.stats)
        self.offloader = Offloader.for_crawler(crawler, settings)

    async def process_response(self, request: Request, response: Response, spider: object = None) -> Response:
        if not isinstance(response, TextResponse) or not is_html_response(response):
            return response
        if not response.body or len(response.body) > self.settings.max_html_bytes:
            return response
        if looks_binary(response.body, response_content_type(response)):
            return response
        choice = charset_check(response)
        if isinstance(choice, str):  # DETECT
            # The detector's work, where pages are extracted (never on the reactor).
            try:
                found = await self.offloader.run(detected_encoding, response.body, response.url, label=response.url)
            except Exception:  # a worker's timeout or crash: Scrapy's reading stands, the extraction decodes alone
                self.stats.charset("failed")
                return response
            choice = detected(found)
        if choice is None:
            return response
        encoding, reason = choice
        self.stats.charset(reason)
        return with_encoding(response, encoding)
