"""Bytes to text: the same charset rules Scrapy applies to responses.

Order (w3lib's ``html_to_unicode``): byte-order mark, the HTTP
``Content-Type`` charset given by the caller, ``<meta charset>`` /
``http-equiv``, then detection. Detection is deliberately cheap: strict UTF-8,
else Windows-1252, which is what browsers fall back to for Western pages and
never fails to decode.
"""

from __future__ import annotations

from w3lib.encoding import html_to_unicode

from .errors import NotHTMLError

#: Magic numbers of common binary formats that crawls meet (images, PDF,
#: archives, office documents, fonts, media). Checked before any decoding.
BINARY_SIGNATURES: tuple[bytes, ...] = (
    b"\x89PNG", b"GIF87a", b"GIF89a", b"\xff\xd8\xff", b"%PDF", b"PK\x03\x04",
    b"\x1f\x8b", b"BM", b"RIFF", b"OggS", b"fLaC", b"ID3", b"\x00\x00\x01\x00",
    b"wOFF", b"wOF2", b"\x7fELF", b"MZ", b"Rar!", b"7z\xbc\xaf", b"\xd0\xcf\x11\xe0",
    b"II*\x00", b"MM\x00*", b"%!PS", b"\x00asm",
)


def _detect(body: bytes) -> str:
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return "cp1252"
    return "utf-8"


def looks_binary(body: bytes) -> bool:
    """True when *body* is a known binary format or carries NUL bytes.

    UTF-16/32 pages legitimately contain NULs, so a body that starts with a
    UTF-16/32 byte-order mark is never called binary.
    """
    head = body[:1024]
    if head.startswith((b"\xff\xfe", b"\xfe\xff", b"\xef\xbb\xbf")):
        return False
    stripped = head.lstrip()
    if stripped.startswith(BINARY_SIGNATURES):
        # "BM"/"MZ"/"ID3" are also plausible text starts; only trust them with a NUL.
        if stripped[:2] in (b"BM", b"MZ") or stripped.startswith(b"ID3"):
            return b"\x00" in head
        return True
    return b"\x00" in head


def decode_html(body: bytes, content_type: str | None = None) -> tuple[str, str]:
    """Return ``(encoding, text)`` for raw page bytes.

    Raises :class:`NotHTMLError` for binary input. Bytes invalid in the
    declared charset are replaced (U+FFFD), never fatal.
    """
    if looks_binary(body):
        raise NotHTMLError("input is binary, not HTML")
    encoding, text = html_to_unicode(content_type, body, auto_detect_fun=_detect)
    return encoding, text
