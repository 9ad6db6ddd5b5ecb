"""A cheap look at markup before libxml2 parses it, for pages built to stall the parser.

libxml2 checks each new attribute of an element against all the previous
ones, so its time grows with the square of the attributes on one element: a
0.3 MB page can stall a worker for as long as the crawl lets it (figures:
docs/BENCHMARKS.md, "Hostile pages"). No real page comes near: elements
carry a handful of attributes, a few dozen at most.

:func:`screen_markup` finds elements with more than
:data:`MAX_ATTRIBUTES_PER_ELEMENT` attributes in one linear pass of the
regular-expression engine (possessive quantifiers, no backtracking; about
as fast as a byte search, see ``docs/BENCHMARKS.md``) and neutralises them:
the element keeps its first :data:`MAX_ATTRIBUTES_PER_ELEMENT` attributes,
the rest are cut. The page's text is untouched, so the page is still
extracted; the cut is reported (``webclean/screened/attributes``).

Memory is bounded the same way: a page with more than :data:`MAX_TAGS` tags
is cut after that many (:func:`screen_tags`, ``webclean/screened/tags``),
and its extraction says it is truncated.

The screen is a fast path, not the guarantee: markup it does not foresee is
bounded by ``WEBCLEAN_PAGE_TIMEOUT`` (:mod:`webclean_scrapy.offload`). Each
check is one small function listed in :data:`SCREENS`, so other checks
(nesting depth, say) extend it without touching the callers.
"""

from __future__ import annotations

import re
from collections.abc import Callable

#: Most attributes one element may keep; beyond it they are cut before parsing
#: (a thousand still parse in milliseconds; the cost grows with their square).
MAX_ATTRIBUTES_PER_ELEMENT = 1000

# The page is read as an HTML tokenizer reads it, so that "<" inside quoted
# attribute values, comments and scripts is not taken for a tag: text, then
# comments, raw-text elements (script, style), tags with at most the allowed
# attributes, end tags and other markup, until a tag with too many attributes
# (or the end). Possessive quantifiers throughout: the engine never
# backtracks, so the pass is linear in the page's length.
#
# One attribute: optional separators (blanks or "/"; none needed after a
# quoted value), a name, an optional value -- quoted (where ">" does not end
# the tag) or unquoted.
_ATTRIBUTE = rb"""(?:[\s/]*+[^\s/>][^\s/>=]*+(?:\s*+=\s*+(?:"[^"]*+"|'[^']*+'|[^\s>]*+))?+)"""
_TAG_NAME = rb"<[A-Za-z][^\s/>]*+"
_TAG_END = rb"(?!" + _ATTRIBUTE + rb")[\s/]*+>?+"


def _raw_text(name: bytes, allowed: bytes) -> bytes:
    return (
        rb"(?i:<"
        + name
        + rb"(?![^\s/>]))"
        + _ATTRIBUTE
        + allowed
        + _TAG_END
        + rb"(?:[^<]++|<(?!/(?i:"
        + name
        + rb")))*+"
    )


def scan_pattern(limit: int) -> re.Pattern[bytes]:
    """The scan for tags with more than *limit* attributes (:data:`_SCAN`
    allows :data:`MAX_ATTRIBUTES_PER_ELEMENT`; the tests build smaller ones
    to compare with the compiled scan)."""
    allowed = rb"{0,%d}+" % limit
    return re.compile(
        rb"(?:[^<]++"  # text
        rb"|<!--(?:[^-]++|-(?!->))*+(?:-->)?+"  # comment
        rb"|"
        + _raw_text(rb"script", allowed)
        + rb"|"
        + _raw_text(rb"style", allowed)
        + rb"|"
        + _TAG_NAME
        + _ATTRIBUTE
        + allowed
        + _TAG_END  # start tag
        + rb"|</[^>]*+>?+|<[!?][^>]*+>?+|<(?![A-Za-z/!?])"  # end tag, doctype / PI, a lone "<"
        + rb")*+"
        + rb"("
        + _TAG_NAME
        + _ATTRIBUTE
        + allowed
        + rb")?+"  # an overloaded tag: its allowed part
        + rb"("
        + _ATTRIBUTE
        + rb"*+)"  # ... and the attributes cut
    )


_SCAN = scan_pattern(MAX_ATTRIBUTES_PER_ELEMENT)


try:
    from webclean_scrapy.engine.html._screen import count_byte as _compiled_count
    from webclean_scrapy.engine.html._screen import scan as _compiled_scan
except ImportError:  # not built (no C compiler at install): the regular expression runs
    _compiled_count = _compiled_scan = None


def _overloaded(body: bytes, start: int) -> tuple[int, int] | None:
    """Where :data:`_SCAN` matched from *start* finds the first tag with
    too many attributes: the end of its allowed part and of the attributes
    cut, or ``None``. The compiled scan (:mod:`webclean_scrapy.engine.html._screen`,
    the same tokenizer in C, about five times faster) when it was built."""
    if _compiled_scan is not None:
        found: tuple[int, int] | None = _compiled_scan(body, start, MAX_ATTRIBUTES_PER_ELEMENT)
        return found
    match = _SCAN.match(body, start)
    assert match is not None  # every part of the pattern may be empty
    return None if match.group(1) is None else (match.end(1), match.end())


#: Most tags (``<``) a page is parsed with; the markup after that many is cut
#: before parsing, and the extraction says it is truncated. libxml2 builds
#: about two 120-byte nodes per tag, so a page of tiny paragraphs becomes a
#: tree twenty times its size; the cut bounds the tree (about 60 MB) whatever
#: the page's size. The largest of 4,417 real pages in the evaluation sets
#: holds 22,000 tags.
MAX_TAGS = 250_000
#: :func:`screen_tags` counts in slices of this many bytes: one C-speed count
#: each, and a search for single tags only in the slice where the limit falls.
_COUNT_SLICE = 1 << 20


def screen_tags(body: bytes) -> bytes | None:
    """*body* cut before its tag number :data:`MAX_TAGS` + 1, or ``None``
    when it holds no more (one count of its ``<``, compiled when built: the
    common case; none for a body shorter than the limit)."""
    if len(body) <= MAX_TAGS:
        return None
    if (body.count(b"<") if _compiled_count is None else _compiled_count(body, 60)) <= MAX_TAGS:
        return None
    seen = 0
    start = 0
    while True:  # the count above says the limit falls inside the body
        end = start + _COUNT_SLICE
        in_slice = body.count(b"<", start, end)
        if seen + in_slice > MAX_TAGS:
            break
        seen += in_slice
        start = end
    at = start - 1
    for _ in range(MAX_TAGS + 1 - seen):
        at = body.find(b"<", at + 1)
    return body[:at]


def screen_attributes(body: bytes) -> bytes | None:
    """*body* with every element cut to :data:`MAX_ATTRIBUTES_PER_ELEMENT`
    attributes, or ``None`` when no element has more (the common case: one
    pass of the scan, nothing copied)."""
    parts: list[bytes] = []
    start = 0
    while True:
        found = _overloaded(body, start)
        if found is None:
            break
        allowed, cut = found
        parts.append(body[start:allowed])
        start = cut
        if start == len(body):
            break
    if not parts:
        return None
    parts.append(body[start:])
    return b"".join(parts)


#: The checks :func:`screen_markup` runs, in order: ``(reason, check)``; a
#: check returns the neutralised bytes, or ``None`` when it found nothing.
SCREENS: list[tuple[str, Callable[[bytes], bytes | None]]] = [
    ("tags", screen_tags),
    ("attributes", screen_attributes),
]
#: The screens whose cut drops part of the page's text: the extraction is then truncated.
TRUNCATING_SCREENS = frozenset(("tags",))


def screen_markup(body: bytes) -> tuple[bytes, tuple[str, ...]]:
    """Neutralise pathological markup in the UTF-8 (or any ASCII-compatible)
    bytes about to be parsed.

    Returns the bytes to parse and the reasons of the checks that changed
    them (empty, and *body* itself, for ordinary pages).
    """
    reasons: list[str] = []
    for reason, check in SCREENS:
        screened = check(body)
        if screened is not None:
            body = screened
            reasons.append(reason)
    return body, tuple(reasons)
