"""Bytes to text: the charset rules Scrapy applies to responses, corrected
where they break the HTML standard.

Order (w3lib's ``html_to_unicode``, as in Scrapy): byte-order mark, the HTTP
``Content-Type`` charset given by the caller, ``<meta charset>`` /
``http-equiv``, then detection. Detection is deliberately cheap: strict UTF-8,
else Windows-1252, which is what browsers fall back to for Western pages and
never fails to decode. Three corrections (:func:`html_encoding`):

* ``<meta charset="utf-16">`` (or UTF-32) means UTF-8: a page whose bytes
  could be read to find that ``<meta>`` is not UTF-16 (HTML standard,
  "prescan"). Scrapy decodes such ASCII pages as UTF-16, i.e. as CJK garbage.
* A BOM-less body declared UTF-16 by HTTP is read in the byte order its
  first character shows (``<`` is ``3C 00`` in little endian), instead of
  Python's big-endian guess.
* A body declared in a legacy charset (by HTTP or ``<meta>``: ISO-8859-1,
  Windows-1252, GB2312...) whose bytes are valid UTF-8, non-ASCII ones
  included, is UTF-8 (:func:`yields_to_utf8`). Servers send Apache's
  default ``ISO-8859-1`` for UTF-8 pages, and pages re-saved as UTF-8 keep
  their old ``<meta>``: a browser shows them as mojibake (``donâ€™t``,
  Chinese as other, meaningless Chinese), which a corpus must not keep. Text
  truly in a legacy charset practically never forms valid UTF-8: its
  accented letters and double-byte characters are not followed by the
  continuation bytes UTF-8 requires. Pure-ASCII bodies keep their
  declaration (ISO-2022-JP is 7-bit).

Every extraction path (the process workers, the thread pool, the pipeline,
``webclean extract``) decodes with these rules, so the same bytes give the
same text whichever way they are extracted.
"""

from __future__ import annotations

import codecs

from w3lib.encoding import (
    html_body_declared_encoding,
    html_to_unicode,
    http_content_type_encoding,
    read_bom,
    to_unicode,
)

from .errors import NotHTMLError

#: Magic numbers of common binary formats that crawls meet (images, PDF,
#: archives, office documents, fonts, media). Checked before any decoding.
BINARY_SIGNATURES: tuple[bytes, ...] = (
    b"\x89PNG",
    b"GIF87a",
    b"GIF89a",
    b"\xff\xd8\xff",
    b"%PDF",
    b"PK\x03\x04",
    b"\x1f\x8b",
    b"BM",
    b"RIFF",
    b"OggS",
    b"fLaC",
    b"ID3",
    b"\x00\x00\x01\x00",
    b"wOFF",
    b"wOF2",
    b"\x7fELF",
    b"MZ",
    b"Rar!",
    b"7z\xbc\xaf",
    b"\xd0\xcf\x11\xe0",
    b"II*\x00",
    b"MM\x00*",
    b"%!PS",
    b"\x00asm",
)


def _detect(body: bytes) -> str:
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return "cp1252"
    return "utf-8"


#: C0 control bytes that text does not contain (tab, LF, FF, CR and ESC, used
#: by ISO-2022 encodings, are left out).
_CONTROL_BYTES = bytes(b for b in range(32) if b not in (9, 10, 12, 13, 27))


def _is_wide(encoding: str | None) -> bool:
    return encoding is not None and encoding.replace("_", "-").lower().startswith(("utf-16", "utf-32"))


def looks_binary(body: bytes, content_type: str | None = None) -> bool:
    """True when *body* is a known binary format or full of control bytes.

    One stray NUL (or a few) in a page does not make it binary: more than
    one control byte in twenty of the first kilobyte does (random or
    compressed data has one in ten). UTF-16/32 pages legitimately contain
    NULs, so a body that starts with a byte-order mark, or whose HTTP
    *content_type* declares UTF-16/32, is never called binary for its NULs.
    """
    head = body[:1024]
    if head.startswith((b"\xff\xfe", b"\xfe\xff", b"\xef\xbb\xbf")):
        return False
    stripped = head.lstrip()
    controls = len(head) - len(head.translate(None, _CONTROL_BYTES))
    many_controls = controls > max(1, len(head) // 20)
    if stripped.startswith(BINARY_SIGNATURES):
        # "BM"/"MZ"/"ID3" are also plausible text starts; only trust them with a NUL.
        if stripped[:2] in (b"BM", b"MZ") or stripped.startswith(b"ID3"):
            return b"\x00" in head
        return True
    if content_type and _is_wide(http_content_type_encoding(content_type)):
        return False
    return many_controls


def _utf16_order(body: bytes, encoding: str) -> str:
    """The byte order of a BOM-less body declared ``utf-16``/``utf-32`` without one."""
    name = encoding.replace("_", "-").lower()
    if name == "utf-16":
        return "utf-16-be" if body[:1] == b"\x00" and body[1:2] != b"\x00" else "utf-16-le"
    if name == "utf-32":
        return "utf-32-be" if body[:3] == b"\x00\x00\x00" else "utf-32-le"
    return encoding


def yields_to_utf8(body: bytes, declared: str) -> bool:
    """Whether *body*, declared in the legacy (single- or double-byte)
    charset *declared*, is UTF-8 all the same: it holds non-ASCII bytes and
    they are all valid UTF-8 (see the module docstring). UTF-16/32
    declarations are settled before (:func:`html_encoding`)."""
    try:
        if codecs.lookup(declared).name == "utf-8" or body.isascii():
            return False
        body.decode("utf-8")
    except (LookupError, UnicodeDecodeError):
        return False
    return True


def html_encoding(body: bytes, content_type: str | None = None) -> str | None:
    """The charset *body* is decoded with, when the BOM, the HTTP *content_type*
    or a ``<meta>`` settles it (``None``: detection decides). See the module
    docstring for the three corrections to Scrapy's rules."""
    bom, _ = read_bom(body)
    if bom:
        return bom
    declared = http_content_type_encoding(content_type) if content_type else None
    if declared:
        if _is_wide(declared):
            return _utf16_order(body, declared)
        return "utf-8" if yields_to_utf8(body, declared) else declared
    declared = html_body_declared_encoding(body)
    if declared and (_is_wide(declared) or yields_to_utf8(body, declared)):
        return "utf-8"
    return declared


def decode_html(body: bytes, content_type: str | None = None) -> tuple[str, str]:
    """Return ``(encoding, text)`` for raw page bytes.

    Raises :class:`NotHTMLError` for binary input. Bytes invalid in the
    declared charset are replaced (U+FFFD), never fatal.
    """
    if looks_binary(body, content_type):
        raise NotHTMLError("input is binary, not HTML")
    encoding = html_encoding(body, content_type)
    if encoding is None:
        # No BOM, header or <meta>: html_to_unicode would scan for the <meta>
        # again, then decode the whole body twice (strictly in :func:`_detect`,
        # then with replacement). A valid UTF-8 body decodes alike both ways.
        try:
            return "utf-8", body.decode("utf-8")
        except UnicodeDecodeError:
            return "cp1252", to_unicode(body, "cp1252")
    charset = f"text/html; charset={encoding}" if encoding else None
    encoding, text = html_to_unicode(charset, body, auto_detect_fun=_detect)
    return encoding, text


def decoded_alike(body: bytes, content_type: str | None, scrapy_encoding: str) -> bool:
    """Whether Scrapy's choice of charset for a response (*scrapy_encoding*)
    is the one :func:`decode_html` makes, so its decoded text can be reused."""
    return (html_encoding(body, content_type) or _detect(body)) == scrapy_encoding
