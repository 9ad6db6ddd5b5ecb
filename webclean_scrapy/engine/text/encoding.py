"""Bytes to text: the charset rules Scrapy applies to responses, corrected
where they break the HTML standard.

Order (w3lib's ``html_to_unicode``, as in Scrapy): byte-order mark, the HTTP
``Content-Type`` charset given by the caller, ``<meta charset>`` /
``http-equiv``, then detection. Detection: UTF-8 (also UTF-8 with a few
broken sequences, :func:`mostly_utf8`), else the legacy encoding Firefox's
detector reads the bytes in (chardetng, through ``chardetng-py``;
:func:`legacy_encoding`). A page saved without its HTTP
header loses its charset, and one in Windows-1251, Shift_JIS, GBK or
ISO-8859-7 read as Windows-1252 (what browsers assume only for Western
pages) is mojibake from its first
letter. Scrapy 2.19 detects with charset-normalizer, which reads Western pages
as Windows-1250, ISO-8859-10 or CP775 (German, Portuguese, English with
curly quotes); chardetng keeps them Windows-1252 and is what a browser
shows. Three corrections (:func:`html_encoding`):

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

One repair of the text itself (:func:`undo_double_encoding`): UTF-8 that was
decoded as Windows-1252 or Latin-1 and saved again as UTF-8 (``Ã©`` for
``é``, ``â€™`` for ``’``, ``Ð¿Ñ€Ð¸`` for ``при``), which CMS exports and
database migrations leave on some pages, is read back as the characters it
stood for. The page is valid UTF-8, so no charset rule sees it; a reader sees
the mojibake, a corpus would keep it, and the words it breaks (``debtâ€”nearly``
is one token) match nothing. ftfy decides, window by window around each
suspect pair, what is mojibake and what is real text (``NÃO``, ``CAFÉ »``).

Every extraction path (the process workers, the thread pool, the pipeline,
``webclean extract``) decodes with these rules, so the same bytes give the
same text whichever way they are extracted.
"""

from __future__ import annotations

import bisect
import codecs
import re
from operator import itemgetter
from urllib.parse import urlsplit

from chardetng_py import EncodingDetector
from ftfy import fix_encoding
from w3lib.encoding import (
    html_body_declared_encoding,
    html_to_unicode,
    http_content_type_encoding,
    read_bom,
    resolve_encoding,
    to_unicode,
)

from webclean_scrapy.errors import NotHTMLError

try:  # an optional extension: see setup.py
    from webclean_scrapy.engine.text._charset import cut_plain_runs as _compiled_cut
except ImportError:  # pragma: no cover - a build without a C compiler
    _compiled_cut = None

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


def undeclared_encoding(body: bytes, url: str | None = None) -> str:
    """The charset of a page that declares none (no BOM, HTTP charset or
    ``<meta>``), as :func:`decode_html` detects it, without decoding the
    page in it; *url*'s top-level domain hints the detection
    (:func:`legacy_encoding`)."""
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return _not_utf8(body, url)[0]
    return "iso2022_jp" if _iso_2022_jp(body, url) else "utf-8"


def is_plain_utf8(body: bytes) -> bool:
    """Whether *body* is valid UTF-8 (ASCII included) without an escape byte:
    every reader takes such a page as UTF-8, with no detection (a 7-bit page
    holding one may be ISO-2022-JP)."""
    if b"\x1b" in body:
        return False
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def detected_encoding(body: bytes, url: str | None = None) -> str | None:
    """The charset detection finds for *body*, a page that declares none,
    when that is not simply UTF-8 as the bytes stand (``None`` then): a
    legacy charset, UTF-8 read despite a few broken sequences
    (:func:`mostly_utf8`), or ISO-2022-JP. A function of bytes alone, so a
    crawl runs it where pages are extracted (:mod:`webclean_scrapy.downloadermiddlewares.charset`)."""
    if is_plain_utf8(body):
        return None
    encoding = undeclared_encoding(body, url)
    if encoding == "utf-8":
        try:
            body.decode("utf-8")
        except UnicodeDecodeError:
            return encoding  # broken sequences: UTF-8 by decision, not as the bytes stand
        return None  # 7-bit, holding an escape byte, and not ISO-2022-JP
    return encoding


def _undeclared(body: bytes, url: str | None) -> tuple[str, str]:
    """``(encoding, text)`` of a page that declares no charset: UTF-8 when it
    is UTF-8, or UTF-8 but for a few broken sequences (:func:`mostly_utf8`),
    else its legacy encoding (:func:`legacy_encoding`). A 7-bit page is
    valid UTF-8 but may be ISO-2022-JP (:func:`_iso_2022_jp`)."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        encoding, decoded = _not_utf8(body, url)
        return encoding, decoded if decoded is not None else to_unicode(body, encoding)
    if _iso_2022_jp(body, url):
        return "iso2022_jp", to_unicode(body, "iso2022_jp")
    return "utf-8", text


def _not_utf8(body: bytes, url: str | None) -> tuple[str, str | None]:
    """The charset of an undeclared page that is not valid UTF-8, and its
    text when finding it decoded the page already (UTF-8 with a few broken
    sequences)."""
    text = body.decode("utf-8", "replace")
    if mostly_utf8(text):
        return "utf-8", text
    return legacy_encoding(body, url), None


def _iso_2022_jp(body: bytes, url: str | None) -> bool:
    """Whether a valid UTF-8 page is ISO-2022-JP: 7-bit, holding an escape
    byte (``ESC $ B`` switches to Japanese), and so named by the detector."""
    return b"\x1b" in body and body.isascii() and legacy_encoding(body, url) == "iso2022_jp"


#: An undeclared page that is not valid UTF-8 is read as UTF-8 all the same
#: when its well-formed multi-byte characters outnumber its broken sequences
#: this many times. Text in a legacy charset forms few valid sequences: none
#: on the shared sets' 133 such pages, and at most 0.4 per broken one on
#: Shift_JIS, EUC-JP, GBK and Windows-874 news pages (their byte pairs
#: sometimes fall in UTF-8's ranges); a UTF-8 page with a stray byte or a cut
#: character has dozens.
UTF8_MAJORITY = 4


def mostly_utf8(text: str) -> bool:
    """Whether *text*, a body decoded as UTF-8 with replacement, is UTF-8 but
    for a few broken sequences (:data:`UTF8_MAJORITY`): read as a legacy
    charset instead, every one of its letters outside ASCII would be
    mojibake, to save the few bytes a CMS or a truncation broke."""
    broken = text.count("\ufffd")
    well_formed = len(text) - len(text.encode("ascii", "ignore")) - broken
    return well_formed >= UTF8_MAJORITY * broken


#: The detector reads at most this many bytes of a page. It costs about 15
#: ms per 200 KB of text outside ASCII (markup next to nothing: it is cut to
#: its ends first, :func:`detection_input`), and a crawl runs it once more
#: per legacy page before the extraction
#: (:mod:`webclean_scrapy.downloadermiddlewares.charset`), so a bound on its time is a bound on
#: its input. On the shared sets' 133
#: undeclared pages that are not UTF-8 (33 of them over 64 KB), reading the
#: first 128 KB or 256 KB gives every page's whole-page answer; 64 KB
#: changes one (an 81 KB CleanEval page, Windows-1250 to Windows-1252).
DETECTION_BYTES = 256 * 1024

#: What an undeclared page that is not UTF-8 falls back to when the detector's
#: answer is not a codec Python has: the Western default, which decodes any byte.
LEGACY_FALLBACK = "cp1252"


#: Bytes of plain ASCII text (printable, tab, LF, CR) kept at each end of a
#: longer run of it in what the detector is given (:func:`detection_input`).
#: Every state the detector carries across such a run is set by the run's
#: last two bytes, and a multi-byte character's trail bytes reach at most
#: three bytes into it; 16 leaves room.
DETECTION_CONTEXT = 16
_PLAIN_ASCII = rb"[\t\n\r\x20-\x7e]"
_LONG_PLAIN_RUN = re.compile(
    rb"(%s{%d})%s+(%s{%d})" % (_PLAIN_ASCII, DETECTION_CONTEXT, _PLAIN_ASCII, _PLAIN_ASCII, DETECTION_CONTEXT)
)


def detection_input(data: bytes) -> bytes:
    """*data* as chardetng needs to see it to make the same guess: each run
    of plain ASCII longer than twice :data:`DETECTION_CONTEXT` cut down to
    its first and last :data:`DETECTION_CONTEXT` bytes.

    Why it is the same guess: chardetng (0.1.x) never scores a pair of
    ASCII bytes ("ASCII pairs never contribute to the score"), its
    single-byte candidates carry across ASCII only the class and case of
    the last one or two bytes, and its CJK candidates' decoders are back in
    their ground state after an ASCII byte that is not a trail byte. The
    markup and scripts of a Western page are such runs, and the detector
    reads every byte of them (a 100 KB page with six accented letters took
    10 ms). An escape byte switches ISO-2022-JP into two-byte mode, where
    ASCII bytes are text: a page holding one is given whole. Tested against
    the whole input on generated pages in every charset the detector names
    and on the shared pages (``tests/test_engine_text_encoding.py``).

    The cut is compiled (``_charset.cut_plain_runs``);
    :func:`python_detection_input` is its reference."""
    if _compiled_cut is None or b"\x1b" in data:
        return python_detection_input(data)
    cut: bytes = _compiled_cut(data, DETECTION_CONTEXT)
    return cut


def python_detection_input(data: bytes) -> bytes:
    """:func:`detection_input` by a regular expression: the reference."""
    if b"\x1b" in data:
        return data
    return _LONG_PLAIN_RUN.sub(rb"\1\2", data)


def legacy_encoding(body: bytes, url: str | None = None) -> str:
    """The legacy encoding of *body*, an undeclared page that is not UTF-8,
    as Firefox reads it: chardetng (``allow_utf8=False``, as a browser calls
    it for HTML), named as Python and w3lib name it (``windows-1251`` is
    ``cp1251``, ``GBK`` is ``gb18030``). The detector reads at most the
    first :data:`DETECTION_BYTES` of the page, as the start of a stream,
    with its long ASCII runs cut short (:func:`detection_input`).

    The top-level domain of the page's *url*, when given, is the detector's
    hint, as a browser gives it: ``.cz`` tips Windows-1250 against
    ISO-8859-2, ``.jp`` the Japanese encodings.
    """
    detector = EncodingDetector()
    detector.feed(detection_input(body[:DETECTION_BYTES]), last=len(body) <= DETECTION_BYTES)
    name = resolve_encoding(detector.guess(tld=top_level_domain(url), allow_utf8=False))
    return name if name else LEGACY_FALLBACK


def top_level_domain(url: str | None) -> bytes | None:
    """The last label of *url*'s host, lower-case ASCII (Punycode for an
    internationalised one), or ``None`` (no URL, an IP address, a label the
    detector would refuse)."""
    if not url:
        return None
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return None
    if not host or "." not in host:
        return None
    label = host.rstrip(".").rsplit(".", 1)[-1]
    try:
        label = label.encode("idna").decode("ascii").lower()
    except UnicodeError:
        return None
    if not label or label.isdigit() or not all(c.isalnum() or c == "-" for c in label):
        return None
    return label.encode("ascii")


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


def decode_html(body: bytes, content_type: str | None = None, url: str | None = None) -> tuple[str, str]:
    """Return ``(encoding, text)`` for raw page bytes (*url*: the page's
    address, whose top-level domain hints the detection, :func:`legacy_encoding`).

    Raises :class:`NotHTMLError` for binary input. Bytes invalid in the
    declared charset are replaced (U+FFFD), never fatal.
    """
    if looks_binary(body, content_type):
        raise NotHTMLError("input is binary, not HTML")
    encoding = html_encoding(body, content_type)
    if encoding is None:
        # No BOM, header or <meta>: html_to_unicode would scan for the <meta>
        # again, then decode the whole body twice (in :func:`undeclared_encoding`, then
        # with replacement).
        return _undeclared(body, url)
    charset = f"text/html; charset={encoding}" if encoding else None
    encoding, text = html_to_unicode(charset, body, auto_detect_fun=lambda data: undeclared_encoding(data, url))
    return encoding, text


def decoded_alike(body: bytes, content_type: str | None, scrapy_encoding: str, url: str | None = None) -> bool:
    """Whether Scrapy's choice of charset for a response (*scrapy_encoding*)
    is the one :func:`decode_html` makes, so its decoded text can be reused."""
    return (html_encoding(body, content_type) or undeclared_encoding(body, url)) == scrapy_encoding


# -- UTF-8 decoded twice ---------------------------------------------------

#: The characters Windows-1252 gives the bytes 0x80-0x9F (five are undefined).
_CP1252_HIGH = "".join(
    bytes([b]).decode("cp1252") for b in range(0x80, 0xA0) if b not in (0x81, 0x8D, 0x8F, 0x90, 0x9D)
)
#: A UTF-8 lead byte read as Latin-1 / Windows-1252 (``Â`` to ``ô``) followed
#: by a continuation byte read so (U+0080-U+00BF, or Windows-1252's
#: punctuation: ``€``, ``’``, ``—``...): a pair no language writes.
_DOUBLE_ENCODED_PAIR = re.compile(f"[\u00c2-\u00f4][\u0080-\u00bf{re.escape(_CP1252_HIGH)}]")
#: The same pair as UTF-8 bytes (U+00C2-U+00F4 is ``C3 82``-``C3 B4``; the
#: second character starts with ``C2``, ``C5``, ``C6``, ``CB`` or ``E2``):
#: :func:`double_encoded` looks for it in the raw body, 0.04 ms on a 280 KB page.
_DOUBLE_ENCODED_BYTES = re.compile(rb"\xc3[\x82-\xb4][\xc2\xc5\xc6\xcb\xe2]")
#: Characters of context on each side of a suspect pair handed to ftfy (cut
#: at whitespace, never across markup): its judgement is about the words
#: around the pair, and a window keeps a 3 MB script holding one pair cheap.
REPAIR_CONTEXT = 300
#: At most this many characters of a page are handed to ftfy; pairs beyond
#: stay as they are (bounded time on a page of nothing but pairs).
REPAIR_BUDGET = 200_000


def double_encoded(body: bytes) -> bool:
    """Whether the UTF-8 *body* holds UTF-8 that was decoded twice: a lead
    and a continuation byte read as Windows-1252, then encoded again."""
    return b"\xc3" in body and _DOUBLE_ENCODED_BYTES.search(body) is not None


def undo_double_encoding(text: str) -> str:
    """*text* with its mojibake read back as the characters it stood for.

    Each suspect pair (:data:`_DOUBLE_ENCODED_PAIR`) and its context, up to
    :data:`REPAIR_CONTEXT` characters each side within the same text node,
    goes to ftfy's ``fix_encoding``, which keeps what is real text. Pairs
    inside a script that is not JSON-LD or inside a style sheet are left
    as they are (:func:`_unread_spans`): nothing reads that text, and a
    framework's multi-megabyte state script can hold more pairs than the
    whole visible page. *text* itself comes back when nothing changed.
    """
    parts: list[str] = []
    done = budget = 0
    changed = False
    unread: list[tuple[int, int]] | None = None
    while (match := _DOUBLE_ENCODED_PAIR.search(text, done)) is not None:
        if unread is None:
            unread = _unread_spans(text)
        after = _span_holding(unread, match.start())
        if after is not None:
            parts.append(text[done:after])
            done = after
            continue
        start = max(done, _window_start(text, match.start()))
        end = _window_end(text, match.end())
        budget += end - start
        if budget > REPAIR_BUDGET:
            break
        window = text[start:end]
        repaired = fix_encoding(window)
        changed = changed or repaired != window
        parts.append(text[done:start])
        parts.append(repaired)
        done = end
    if not changed:
        return text
    parts.append(text[done:])
    return "".join(parts)


#: The start tag of an element whose text is never read: a script or a style sheet.
#: Its attributes stop at a ``<`` as well as at ``>``: each try then reads at most
#: up to the next tag, and a page of ``<script`` with no ``>`` costs one pass, not
#: one per ``<script`` (a start tag with a ``<`` in an attribute value is missed,
#: and its script repaired like any text).
_UNREAD_START = re.compile(r"<(script|style)\b([^<>]*)>", re.I)
#: The end of each (libxml2 ends a script or style at its end tag, whatever it holds).
_UNREAD_END = {"script": re.compile(r"</script", re.I), "style": re.compile(r"</style", re.I)}


def _unread_spans(text: str) -> list[tuple[int, int]]:
    """Where the text of the page's scripts (JSON-LD aside: the metadata and
    the page type read it) and style sheets lies, in order: ``(start, end)``
    offsets. One pass over the page."""
    spans: list[tuple[int, int]] = []
    at = 0
    while (start := _UNREAD_START.search(text, at)) is not None:
        tag = start.group(1).lower()
        end_tag = _UNREAD_END[tag].search(text, start.end())
        end = end_tag.start() if end_tag is not None else len(text)
        if tag == "style" or "ld+json" not in start.group(2).lower():
            spans.append((start.end(), end))
        at = end
    return spans


def _span_holding(spans: list[tuple[int, int]], at: int) -> int | None:
    """The end of the span of *spans* holding offset *at*, if one does."""
    index = bisect.bisect_right(spans, at, key=itemgetter(0)) - 1
    if index >= 0 and spans[index][0] <= at < spans[index][1]:
        return spans[index][1]
    return None


def _window_start(text: str, at: int) -> int:
    """Where the context before *at* starts: :data:`REPAIR_CONTEXT`
    characters back, moved back to a space (within as many again), never
    before the text node's start."""
    low = max(0, at - REPAIR_CONTEXT)
    space = text.rfind(" ", max(0, low - REPAIR_CONTEXT), low)
    start = space + 1 if space >= 0 else low
    return max(start, text.rfind(">", start, at) + 1)


def _window_end(text: str, at: int) -> int:
    """Where the context after *at* ends (the mirror of :func:`_window_start`)."""
    high = min(len(text), at + REPAIR_CONTEXT)
    space = text.find(" ", high, high + REPAIR_CONTEXT)
    end = space if space >= 0 else min(len(text), high + REPAIR_CONTEXT)
    tag = text.find("<", at, end)
    return end if tag < 0 else tag
