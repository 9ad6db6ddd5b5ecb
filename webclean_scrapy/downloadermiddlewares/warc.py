"""WARC recording: every response a crawl fetched, in a WARC file.

:class:`WarcRecorder` is a downloader middleware enabled by ``WEBCLEAN_WARC`` (a file
name template). Reading the records back is :mod:`webclean_scrapy.warcfiles`' job.

Why a downloader middleware at 950, and not an extension on the
``response_downloaded`` signal: both see the response exactly as the download
handler returned it (950 is above every built-in middleware, so its
``process_response`` runs first: before decompression at 590, redirects at
600, retries at 550, and the HTTP cache at 900). But a middleware's
``process_response`` can be a coroutine that *awaits* its record being
written, so a slow disk holds back the downloader (the request stays in the
downloader's active set) instead of piling records up in memory; a signal
handler cannot wait. It also sees the request's final headers (User-Agent,
cookies, Accept-Encoding are set by lower-numbered middlewares) and every
response: robots.txt, redirects, error pages, each retry.

Recorded bytes: the body as received, Content-Encoding (gzip, br...) intact;
only the transfer chunking is already undone by Twisted, so a
``Transfer-Encoding`` header is dropped from the record. Responses served from
Scrapy's HTTP cache (flag ``cached``) were not fetched and are not recorded.

The writer is warcio: one gzip member per record (each record can be read on
its own, and a ``kill -9`` loses at most the record being written), WARC/1.1,
SHA-1 block and payload digests, a ``warcinfo`` record first, then for each
response a ``response`` record and a ``request`` record (``WARC-Concurrent-To``
the response). Compression and digests run on one writer thread, off the
reactor; the file is flushed after every pair and closed at ``spider_closed``.
"""

from __future__ import annotations

import concurrent.futures
import io
import logging
import os
import zlib
from dataclasses import dataclass
from datetime import datetime, timezone
from http import HTTPStatus
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO
from urllib.parse import urlsplit

from webclean_scrapy.errors import install_hint
from webclean_scrapy.settings import WebcleanSettings
from webclean_scrapy.stats import WebcleanStats

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from typing_extensions import Self  # typing.Self: Python 3.11

logger = logging.getLogger(__name__)

#: Place in ``DOWNLOADER_MIDDLEWARES``: above every built-in one (the HTTP cache is 900).
RECORDER_PRIORITY = 950

INSTALL_HINT = install_hint("warc")

#: Response headers that describe the bytes on the wire, not the recorded ones.
_HOP_HEADERS = (b"Transfer-Encoding",)


def warc_path(template: str, spider: Spider, now: datetime | None = None) -> Path:
    """The file name for *spider*: ``%(name)s``, ``%(time)s`` and any spider
    attribute, as in Scrapy's ``FEEDS`` URIs."""
    now = now or datetime.now(tz=timezone.utc)
    params: dict[str, Any] = {key: getattr(spider, key, None) for key in dir(spider) if not key.startswith("__")}
    params["time"] = now.replace(microsecond=0).isoformat().replace(":", "-")
    params["pid"] = os.getpid()
    return Path(template % params)


def _warc_date(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _header_pairs(headers: Any, skip: tuple[bytes, ...] = ()) -> list[tuple[str, str]]:
    """Scrapy ``Headers`` as ``(name, value)`` strings (latin-1, as on the wire)."""
    skipped = {name.lower() for name in skip}
    pairs = []
    for name, values in headers.items():
        if name.lower() in skipped:
            continue
        for value in values:
            pairs.append((name.decode("latin-1"), value.decode("latin-1")))
    return pairs


@dataclass(frozen=True, slots=True)
class _Exchange:
    """One request/response pair, captured on the reactor thread as plain data."""

    url: str
    date: str
    request_line: str
    request_headers: list[tuple[str, str]]
    request_body: bytes
    status_line: str
    protocol: str
    response_headers: list[tuple[str, str]]
    body: bytes
    ip_address: str | None
    truncated: bool

    @classmethod
    def capture(cls, request: Request, response: Response, moment: datetime) -> _Exchange:
        parts = urlsplit(response.url)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        request_headers = _header_pairs(request.headers)
        if not any(name.lower() == "host" for name, _ in request_headers):
            request_headers.insert(0, ("Host", parts.netloc))  # added by the HTTP client on the wire
        try:
            reason = HTTPStatus(response.status).phrase
        except ValueError:
            reason = ""
        protocol = response.protocol if response.protocol and response.protocol.startswith("HTTP/1") else "HTTP/1.1"
        ip = getattr(response, "ip_address", None)
        return cls(
            url=response.url,
            date=_warc_date(moment),
            request_line=f"{request.method} {target} HTTP/1.1",
            request_headers=request_headers,
            request_body=request.body,
            status_line=f"{response.status} {reason}".strip(),
            protocol=protocol,
            response_headers=_header_pairs(response.headers, _HOP_HEADERS),
            body=response.body,
            ip_address=str(ip) if ip is not None else None,
            truncated="dataloss" in response.flags,
        )


#: zlib level of the gzip members. warcio's own is 9; 6 (gzip's default) is
#: measured faster for a file about the same size (docs/BENCHMARKS.md, "WARC").
GZIP_LEVEL = 6


class _GzipMembers:
    """A write stream that makes each record its own gzip member: warcio
    flushes its output once at the end of every record, which ends the member."""

    def __init__(self, file: BinaryIO, level: int = GZIP_LEVEL) -> None:
        self.file = file
        self.level = level
        self._member = self._new()

    def _new(self) -> Any:
        return zlib.compressobj(self.level, zlib.DEFLATED, zlib.MAX_WBITS | 16)

    def write(self, data: bytes) -> None:
        self.file.write(self._member.compress(data))

    def flush(self) -> None:
        self.file.write(self._member.flush())
        self._member = self._new()
        self.file.flush()


class WarcFile:
    """An open WARC file written by warcio (call from one thread at a time)."""

    def __init__(self, path: Path, level: int = GZIP_LEVEL) -> None:
        from warcio.warcwriter import WARCWriter

        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        # Append: a resumed crawl (same name, same JOBDIR) continues the file;
        # a WARC is a plain sequence of records, so that stays valid.
        self._file: BinaryIO = open(path, "ab")  # noqa: SIM115 - closed in close()
        self._lock()
        self._writer = WARCWriter(_GzipMembers(self._file, level), gzip=False, warc_version="1.1")

    def _lock(self) -> None:
        """Refuse a file another process is writing (two workers, one name):
        their records would interleave mid-member and ruin both."""
        try:
            import fcntl
        except ImportError:  # not POSIX: no check
            return
        try:
            fcntl.flock(self._file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._file.close()
            raise OSError(
                f"{self.path} is being written by another process; "
                "give each crawl process its own file, e.g. with %(pid)s in WEBCLEAN_WARC"
            ) from None

    def write_warcinfo(self, info: dict[str, str]) -> int:
        start = self._file.tell()
        self._writer.write_record(self._writer.create_warcinfo_record(self.path.name, info))
        return self._file.tell() - start

    def write_exchange(self, exchange: _Exchange) -> int:
        """Write the response and request records; return the bytes written."""
        from warcio.statusandheaders import StatusAndHeaders

        writer = self._writer
        warc_headers = {"WARC-Date": exchange.date}
        if exchange.ip_address:
            warc_headers["WARC-IP-Address"] = exchange.ip_address
        if exchange.truncated:
            warc_headers["WARC-Truncated"] = "disconnect"
        response = writer.create_warc_record(
            exchange.url,
            "response",
            payload=io.BytesIO(exchange.body),
            length=len(exchange.body),
            warc_headers_dict=warc_headers,
            http_headers=StatusAndHeaders(exchange.status_line, exchange.response_headers, protocol=exchange.protocol),
        )
        request = writer.create_warc_record(
            exchange.url,
            "request",
            payload=io.BytesIO(exchange.request_body),
            length=len(exchange.request_body),
            warc_headers_dict={"WARC-Date": exchange.date},
            http_headers=StatusAndHeaders(exchange.request_line, exchange.request_headers, is_http_request=True),
        )
        start = self._file.tell()
        # Each record ends with a flush to the OS: a kill -9 of the crawl loses
        # at most the record being written.
        writer.write_request_response_pair(request, response)
        return self._file.tell() - start

    def close(self) -> None:
        self._file.close()


class WarcRecorder:
    """Downloader middleware: record every fetched response (and its request) in a WARC file.

    Enabled by ``WEBCLEAN_WARC`` (independent of ``WEBCLEAN_ENABLED``: an
    archive is useful without extraction). Stats: ``webclean/warc/records``,
    ``webclean/warc/bytes`` (compressed bytes written), ``webclean/warc/errors``.
    A write error (disk full) is logged once at ERROR and stops the recording,
    never the crawl.
    """

    def __init__(self, crawler: Crawler, template: str) -> None:
        self.crawler = crawler
        self.template = template
        self.stats = WebcleanStats(crawler.stats)
        self.file: WarcFile | None = None
        self._executor: concurrent.futures.ThreadPoolExecutor | None = None
        self._retired: concurrent.futures.ThreadPoolExecutor | None = None
        self._broken = False  # a write failed: recording stopped

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        from scrapy import signals
        from scrapy.exceptions import NotConfigured

        template = WebcleanSettings.from_crawler(crawler).warc
        if not template:
            raise NotConfigured  # the usual case (the add-on lists it always): no message, no WARNING
        try:
            import warcio  # noqa: F401
        except ImportError:
            raise ImportError(f"WEBCLEAN_WARC needs the warcio package: {INSTALL_HINT}") from None
        recorder = cls(crawler, template)
        # Opened here, not at spider_opened: a bad path fails the crawl at
        # start-up instead of being logged by the signal and ignored.
        assert crawler.spider is not None  # Scrapy builds downloader middlewares after the spider
        recorder.open(crawler.spider)
        crawler.signals.connect(recorder.spider_closed, signal=signals.spider_closed)
        return recorder

    def open(self, spider: Spider) -> None:
        from importlib.metadata import version

        from scrapy import __version__ as scrapy_version

        from webclean_scrapy._version import __version__

        self.file = WarcFile(warc_path(self.template, spider))
        settings = self.crawler.settings
        written = self.file.write_warcinfo(
            {
                "software": f"webclean-scrapy/{__version__} (Scrapy/{scrapy_version}, warcio/{version('warcio')})",
                "format": "WARC File Format 1.1",
                "conformsTo": "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/",
                "isPartOf": spider.name,
                "robots": "obey" if settings.getbool("ROBOTSTXT_OBEY") else "ignore",
                "http-header-user-agent": str(settings.get("USER_AGENT") or ""),
            }
        )
        self.stats.warc_written(1, written)
        self._executor = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="webclean-warc")
        logger.info("webclean: recording responses in %s", self.file.path)

    async def process_response(self, request: Request, response: Response, spider: Spider | None = None) -> Response:
        if self._executor is None or self.file is None or "cached" in response.flags:
            return response
        from webclean_scrapy.offload.offloader import await_concurrent  # here: `webclean extract` needs no Scrapy

        exchange = _Exchange.capture(request, response, datetime.now(tz=timezone.utc))
        future = self._executor.submit(self.file.write_exchange, exchange)
        try:
            # Awaited: at most one pending record per response in flight.
            written = await await_concurrent(future)
        except Exception as exc:  # disk full...: stop recording, keep crawling
            self._failed(exc)
            return response
        except BaseException:
            if future.cancelled():  # queued behind a failed write: recording has stopped
                return response
            raise
        self.stats.warc_written(2, written)
        return response

    def _failed(self, exc: Exception) -> None:
        self.stats.warc_error(exc)
        if self._broken:  # already stopped by an earlier failure
            return
        self._broken = True
        assert self.file is not None
        logger.error(
            "webclean: cannot write %s (%s: %s); WARC recording stopped", self.file.path, type(exc).__name__, exc
        )
        executor, self._executor = self._executor, None
        if executor is not None:
            # Not waited for here (the reactor thread): queued writes are
            # cancelled, the file is closed at spider_closed.
            executor.shutdown(wait=False, cancel_futures=True)
            self._retired = executor

    def spider_closed(self, spider: Spider) -> None:
        for executor in (self._executor, self._retired):
            if executor is not None:
                executor.shutdown(wait=True)  # nothing is pending: the downloads are over
        self._executor = self._retired = None
        if self.file is not None:
            try:
                self.file.close()  # flushes what is buffered
            except OSError as exc:
                self._failed(exc)  # logged unless a write failed already
