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
_ALLOWED = rb"{0,%d}+" % MAX_ATTRIBUTES_PER_ELEMENT


def _raw_text(name: bytes) -> bytes:
    return (
        rb"(?i:<"
        + name
        + rb"(?![^\s/>]))"
        + _ATTRIBUTE
        + _ALLOWED
        + _TAG_END
        + rb"(?:[^<]++|<(?!/(?i:"
        + name
        + rb")))*+"
    )


_SCAN = re.compile(
    rb"(?:[^<]++"  # text
    rb"|<!--(?:[^-]++|-(?!->))*+(?:-->)?+"  # comment
    rb"|"
    + _raw_text(rb"script")
    + rb"|"
    + _raw_text(rb"style")
    + rb"|"
    + _TAG_NAME
    + _ATTRIBUTE
    + _ALLOWED
    + _TAG_END  # start tag
    + rb"|</[^>]*+>?+|<[!?][^>]*+>?+|<(?![A-Za-z/!?])"  # end tag, doctype / PI, a lone "<"
    + rb")*+"
    + rb"("
    + _TAG_NAME
    + _ATTRIBUTE
    + _ALLOWED
    + rb")?+"  # an overloaded tag: its allowed part
    + rb"("
    + _ATTRIBUTE
    + rb"*+)"  # ... and the attributes cut
)


def screen_attributes(body: bytes) -> bytes | None:
    """*body* with every element cut to :data:`MAX_ATTRIBUTES_PER_ELEMENT`
    attributes, or ``None`` when no element has more (the common case: one
    pass of the regular-expression engine, nothing copied)."""
    parts: list[bytes] = []
    start = 0
    while True:
        match = _SCAN.match(body, start)
        assert match is not None  # every part of the pattern may be empty
        if match.group(1) is None:
            break
        parts.append(body[start : match.end(1)])
        start = match.end()
        if start == len(body):
            break
    if not parts:
        return None
    parts.append(body[start:])
    return b"".join(parts)


#: The checks :func:`screen_markup` runs, in order: ``(reason, check)``; a
#: check returns the neutralised bytes, or ``None`` when it found nothing.
SCREENS: list[tuple[str, Callable[[bytes], bytes | None]]] = [
    ("attributes", screen_attributes),
]


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
