"""Read the HTML responses back out of a WARC file, without Scrapy.

:func:`iter_html_records` serves ``webclean extract crawl.warc.gz`` and the datatrove
step: re-extraction without re-crawling. FastWARC reads when installed (the ``[warc]``
extra), warcio otherwise; each record's Content-Encoding is undone here, and a damaged
tail ends the iteration with :class:`WarcFormatError` after every readable record.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from webclean_scrapy.errors import ExtractionError, install_hint

INSTALL_HINT = install_hint("warc")


class WarcFormatError(ExtractionError):
    """The WARC file is malformed or truncated (records before the damage were read)."""


@dataclass(frozen=True, slots=True)
class HtmlRecord:
    """One HTML response from a WARC file, its body decoded (Content-Encoding undone).

    ``error`` is set (and ``body`` empty) when the body could not be decoded.
    """

    url: str
    content_type: str | None
    body: bytes
    offset: int
    error: str = ""


def is_warc(path: str) -> bool:
    """True when the file starts like a WARC (plain or gzip)."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError:
        return False
    if head[:2] == b"\x1f\x8b":
        try:
            head = zlib.decompressobj(zlib.MAX_WBITS | 16).decompress(head, 16)
        except zlib.error:
            return False
    return head.startswith(b"WARC/")


def _html_status(status: int | None, content_type: str | None) -> bool:
    """The records the crawl's middleware extracts: 2xx and a Content-Type mentioning html."""
    return status is not None and 200 <= status < 300 and "html" in (content_type or "").lower()


def warcio_html_response(record: Any) -> tuple[str, str | None] | None:
    """``(url, content_type)`` of a warcio record the crawl's middleware would extract, else ``None``.

    One test for both warcio readers (:func:`iter_html_records`' fallback
    and the datatrove reader): a ``response`` record with HTTP headers, a
    2xx status and an HTML Content-Type (:func:`_html_status`).
    """
    http = record.http_headers
    if record.rec_type != "response" or http is None:
        return None
    content_type = http.get_header("Content-Type")
    try:
        status = int(http.get_statuscode())
    except (TypeError, ValueError):
        status = None
    if not _html_status(status, content_type):
        return None
    return record.rec_headers.get_header("WARC-Target-URI") or "", content_type


def _decoded(body: bytes, encodings: list[str], limit: int) -> bytes:
    """Undo Content-Encoding (last applied first), at most *limit* bytes out."""
    for coding in reversed(encodings):
        if coding in ("", "identity"):
            continue
        if coding in ("gzip", "x-gzip", "deflate"):
            decompressor = zlib.decompressobj(zlib.MAX_WBITS | 32 if coding != "deflate" else zlib.MAX_WBITS)
            try:
                out = decompressor.decompress(body, limit + 1)
            except zlib.error:
                if coding != "deflate":
                    raise
                out = zlib.decompressobj(-zlib.MAX_WBITS).decompress(body, limit + 1)  # raw deflate
        elif coding == "br":
            try:
                import brotli
            except ImportError:
                raise ExtractionError("Content-Encoding br needs the brotli package") from None
            out = brotli.Decompressor().process(body, output_buffer_limit=limit + 1)
        else:
            raise ExtractionError(f"unsupported Content-Encoding {coding!r}")
        if len(out) > limit:
            raise ExtractionError(f"body over {limit} bytes once decoded")
        body = out
    return body


def _content_codings(value: str | None) -> list[str]:
    return [part.strip().lower() for part in (value or "").split(",") if part.strip()]


def _iter_fastwarc(path: str, limit: int) -> Iterator[tuple[int, HtmlRecord | None]]:
    from fastwarc.warc import ArchiveIterator

    with open(path, "rb") as stream:
        try:
            # Transfer chunking undone by FastWARC, Content-Encoding by _decoded (bounded).
            for record in ArchiveIterator(stream, parse_http=True, auto_decode="transfer"):
                offset = record.stream_pos
                http = record.http_headers if record.is_http else None
                if str(record.record_type) != "response" or http is None:
                    yield offset, None
                    continue
                content_type = http.get("Content-Type")
                if not _html_status(http.status_code, content_type):
                    yield offset, None
                    continue
                url = record.headers.get("WARC-Target-URI") or ""
                raw = record.reader.read(limit + 1)
                yield offset, html_record(url, content_type, raw, http.get("Content-Encoding"), offset, limit)
        except Exception as exc:  # FastWARC reports damage as assorted errors
            raise WarcFormatError(f"malformed or truncated WARC ({type(exc).__name__}: {exc})") from exc


def _iter_warcio(path: str, limit: int) -> Iterator[tuple[int, HtmlRecord | None]]:
    from warcio.archiveiterator import ArchiveIterator

    with open(path, "rb") as stream:
        iterator = ArchiveIterator(stream)
        try:
            for record in iterator:
                # get_record_offset() reads the record to its end: call it after reading the body.
                response = warcio_html_response(record)
                if response is None:
                    yield iterator.get_record_offset(), None
                    continue
                url, content_type = response
                # warcio undoes chunking and Content-Encoding as it streams: reading
                # limit + 1 bytes bounds a decompression bomb.
                body = record.content_stream().read(limit + 1)
                offset = iterator.get_record_offset()
                yield offset, html_record(url, content_type, body, None, offset, limit)
        except Exception as exc:  # ArchiveLoadFailed, zlib.error, EOFError...
            raise WarcFormatError(f"malformed or truncated WARC ({type(exc).__name__}: {exc})") from exc


_WARC_LENGTH = re.compile(rb"\r\nContent-Length:[ \t]*(\d+)", re.IGNORECASE)


def tail_damage(path: str, offset: int) -> str:
    """Why the last record, starting at *offset*, is incomplete ("" when it is whole).

    Both readers stop without a word at a file cut short (a crawl killed
    mid-record, a partial copy): the last gzip member is unfinished, or the
    record's block is shorter than its Content-Length. This reads that one
    record again to tell.
    """
    with open(path, "rb") as f:
        f.seek(offset)
        gzipped = f.read(2) == b"\x1f\x8b"
        f.seek(offset)
        inflate = zlib.decompressobj(zlib.MAX_WBITS | 16) if gzipped else None
        head, total = b"", 0
        try:
            while chunk := f.read(1 << 20):
                data = inflate.decompress(chunk) if inflate is not None else chunk
                if len(head) < 65536:
                    head += data[: 65536 - len(head)]
                total += len(data)
                if inflate is not None and inflate.eof:
                    if inflate.unused_data or f.read(1):
                        return "unreadable data after the last record"
                    break
        except zlib.error as exc:
            return f"damaged gzip data ({exc})"
    if inflate is not None and not inflate.eof:
        return "the last gzip member is cut short"
    end = head.find(b"\r\n\r\n")
    length = _WARC_LENGTH.search(head, 0, end if end >= 0 else len(head))
    if end < 0 or length is None:
        return "the last record's header is cut short"
    if total < end + 4 + int(length.group(1)):
        return "the last record is cut short"
    return ""


def html_record(
    url: str, content_type: str | None, raw: bytes, encoding: str | None, offset: int, limit: int
) -> HtmlRecord:
    if len(raw) > limit:
        return HtmlRecord(url, content_type, b"", offset, f"body over {limit} bytes")
    try:
        body = _decoded(raw, _content_codings(encoding), limit)
    except (ExtractionError, zlib.error, OSError) as exc:
        return HtmlRecord(url, content_type, b"", offset, f"cannot decode the body ({exc})")
    except Exception as exc:  # brotli.error and the like
        return HtmlRecord(url, content_type, b"", offset, f"cannot decode the body ({type(exc).__name__}: {exc})")
    return HtmlRecord(url, content_type, body, offset)


def warc_reader() -> str:
    """The reader in use: ``"fastwarc"`` when installed, else ``"warcio"``; raises when neither is."""
    for name in ("fastwarc", "warcio"):
        try:
            __import__(name)
        except ImportError:
            continue
        return name
    raise ExtractionError(f"reading WARC files needs FastWARC or warcio: {INSTALL_HINT}")


def iter_html_records(path: str, *, limit: int = 10 * 1024 * 1024, reader: str | None = None) -> Iterator[HtmlRecord]:
    """The HTML response records of a WARC file (2xx, Content-Type with ``html``),
    in file order, bodies decoded and at most *limit* bytes.

    Raises :class:`WarcFormatError` where the file is damaged, after yielding
    every intact record before it.
    """
    name = reader or warc_reader()
    iterate = _iter_fastwarc if name == "fastwarc" else _iter_warcio
    # One record of look-ahead: an HTML record is yielded once the next record
    # starts, or once the file's end is known to be intact (tail_damage).
    pending: HtmlRecord | None = None
    last = None
    for offset, record in iterate(path, limit):
        if pending is not None:
            yield pending
        pending, last = record, offset
    if last is not None:
        damage = tail_damage(path, last)
        if damage:
            raise WarcFormatError(f"malformed or truncated WARC: {damage} (record at byte {last})")
    if pending is not None:
        yield pending
