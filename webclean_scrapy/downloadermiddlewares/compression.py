"""Downloader middleware: flag compressed bodies whose stream does not end.

Scrapy's :class:`~scrapy.downloadermiddlewares.httpcompression.HttpCompressionMiddleware`
decompresses "as much data as possible": a gzip body cut in transfer (a
proxy or server that stops mid-stream, with a ``Content-Length`` that
matches what it sent) comes out as the first part of the page, and nothing
says so. Such a page's text is then a shortened text passed off as whole.

:class:`CompressedBodyCheckMiddleware` runs just before it (priority
``595``: ``process_response`` goes from high numbers to low, and
``HttpCompressionMiddleware`` sits at 590) and checks that a ``gzip`` or
``deflate`` body (``br`` too, when Scrapy can decode it) is a complete
stream, decompressing it in bounded chunks and keeping nothing. A cut body
gets Scrapy's own ``"dataloss"`` response flag -- what Scrapy sets when the
connection drops with ``DOWNLOAD_FAIL_ON_DATALOSS = False`` -- and
``webclean/truncated/<encoding>`` is counted. The response still goes on:
:class:`~webclean_scrapy.downloadermiddlewares.extraction.WebcleanMiddleware` extracts what there
is and marks the :class:`~webclean_scrapy.Extraction` (and the item)
``truncated``, counted as ``webclean/pages/truncated``.

A body that is not compressed data at all (a server that labels plain HTML
``gzip``) is left alone: Scrapy's own handling decides.
"""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING

from webclean_scrapy.settings import WebcleanComponent, WebcleanSettings
from webclean_scrapy.stats import WebcleanStats

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

#: Scrapy's response flag for a body known to be incomplete.
DATALOSS_FLAG = "dataloss"

#: Decompressed bytes produced per step while checking (then dropped).
_STEP = 1 << 20


def is_truncated(response: Response) -> bool:
    """Whether *response*'s body is known to be incomplete (Scrapy's
    ``dataloss`` flag, set by Scrapy or by :class:`CompressedBodyCheckMiddleware`)."""
    return DATALOSS_FLAG in (getattr(response, "flags", None) or ())


def _zlib_complete(data: bytes, wbits: int) -> bool | None:
    """Whether *data* is one or more complete zlib/gzip streams; ``None``
    when it does not start as one."""
    first = True
    while data:
        decompressor = zlib.decompressobj(wbits)
        try:
            decompressor.decompress(data, _STEP)
            while decompressor.unconsumed_tail and not decompressor.eof:
                decompressor.decompress(decompressor.unconsumed_tail, _STEP)
        except zlib.error:
            return None if first else True  # trailing garbage after a whole member
        if not decompressor.eof:
            return False
        data = decompressor.unused_data
        if wbits != 31 or not data.startswith(b"\x1f\x8b"):
            return True  # one deflate stream; or a gzip member and no further one
        first = False
    return True


def _brotli_complete(data: bytes) -> bool | None:
    try:
        import brotli
    except ImportError:
        return None  # Scrapy cannot decode it either
    decompressor = brotli.Decompressor()
    try:
        decompressor.process(data)
    except brotli.error:
        return None
    return bool(decompressor.is_finished())


def body_complete(body: bytes, encoding: str) -> bool | None:
    """Whether *body*, compressed with the HTTP content coding *encoding*,
    is a complete stream: ``True``, ``False`` (cut), or ``None`` (not that
    coding, or one this check does not read)."""
    if encoding in ("gzip", "x-gzip"):
        return _zlib_complete(body, 31)
    if encoding == "deflate":  # zlib-wrapped, or raw deflate as some servers send
        complete = _zlib_complete(body, 15)
        return complete if complete is not None else _zlib_complete(body, -15)
    if encoding == "br":
        return _brotli_complete(body)
    return None


class CompressedBodyCheckMiddleware(WebcleanComponent):
    """Flag (``"dataloss"``) and count responses whose compressed body was cut."""

    #: Where it goes in ``DOWNLOADER_MIDDLEWARES``: just before Scrapy's
    #: ``HttpCompressionMiddleware`` (590) in response order.
    PRIORITY = 595

    def __init__(self, crawler: Crawler, settings: WebcleanSettings) -> None:
        super().__init__(crawler, settings)
        self.stats = WebcleanStats(crawler.stats)

    def process_response(self, request: Request, response: Response, spider: object = None) -> Response:
        if request.method == "HEAD" or is_truncated(response) or not response.body:
            return response
        codings = [
            value.decode("latin-1").strip().lower()
            for header in response.headers.getlist("Content-Encoding")
            for value in header.split(b",")
        ]
        # Only the outermost coding can be checked on the body as received.
        if codings and body_complete(response.body, codings[-1]) is False:
            self.stats.truncated_body(codings[-1])
            response.flags.append(DATALOSS_FLAG)
        return response
