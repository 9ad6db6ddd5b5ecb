"""Decoded markup to an lxml tree, with what libxml2 would drop recovered.

libxml2 parses what a browser parses, but silently drops part of some pages
a browser shows whole: everything after the first ``</html>``, everything
past 2,048 open elements, a body swallowed by a ``<title>`` whose end tag is
mangled, a body left in the head, everything after a self-closed
``<html/>``. :func:`parse_page` parses once and repairs those cases (a
second parse only on the pages that have one), and says when a tree still
misses part of its page; :class:`~webclean_scrapy.engine.document.Document` builds
every tree through it (docs/SECURITY.md, "No silent text loss").
"""

from __future__ import annotations

import re
from collections.abc import Callable

from lxml import etree

from webclean_scrapy.engine.html.tags import STRUCTURAL_TAGS

try:  # an optional extension: see setup.py
    from webclean_scrapy.engine.html._screen import find_ascii as _compiled_find
except ImportError:  # pragma: no cover - a build without a C compiler
    _compiled_find = None

#: ``str.find`` for an ASCII needle; compiled, it reads a page of two- or
#: four-byte characters at memory speed too (``_screen.find_ascii``).
_find: Callable[[str, str], int] = str.find if _compiled_find is None else _compiled_find

#: Plain ``etree.HTMLParser``: lxml.html's parser would call a Python class
#: lookup for every element proxy, which costs more than the walk itself.
#: ``collect_ids=False``: no hash table of ``id`` attributes (nothing here
#: looks elements up by id), 10% off the parse.
_PARSER = etree.HTMLParser(encoding="utf-8", huge_tree=True, recover=True, collect_ids=False)


def parser_bytes(text: str) -> bytes:
    """*text* as the UTF-8 bytes libxml2 is given: NUL characters removed (as
    parsel does), lone surrogates replaced."""
    return text.replace("\x00", "").encode("utf-8", "replace")


def parse_html(text: str, utf8_body: bytes | None = None) -> etree._Element:
    """Parse decoded markup with lxml's HTML parser; never returns ``None``.

    The text is handed to libxml2 as UTF-8 bytes (a ``str`` carrying an XML
    encoding declaration would be refused by lxml); *utf8_body*, when the
    caller has the page as valid UTF-8 bytes already, skips that encoding.
    NUL characters are removed, as parsel does.
    """
    body = utf8_body if utf8_body is not None else parser_bytes(text)
    root = None
    if body.strip():
        try:
            root = etree.fromstring(body, parser=_PARSER)
        except etree.XMLSyntaxError:
            root = None
    if root is None:
        root = etree.fromstring(b"<html><body></body></html>", parser=_PARSER)
    return root


# -- what libxml2 would drop ---------------------------------------------------

#: libxml2 stops building the tree when this many elements are open
#: (2,048 with ``XML_PARSE_HUGE``, which lxml's ``huge_tree`` sets; there is
#: no option to raise it): everything after that point is silently dropped.
LIBXML2_MAX_DEPTH = 2048
#: A tree whose last element sits this deep is re-parsed from flattened
#: markup (:func:`flatten_markup`); real pages end a few dozen levels deep.
SUSPICIOUS_DEPTH = 256
#: How deep :func:`flatten_markup` lets elements nest.
FLATTEN_DEPTH = 256

_HTML_END_TAG = re.compile(r"</html\b[^>]*>", re.I)
#: What may follow ``</html>`` without loss: nothing the walk would keep.
#: Possessive, so a long tail of them is read once.
_NOTHING_KEPT = re.compile(r"(?:\s|<!--.*?-->|<script\b.*?</script\s*>|<style\b.*?</style\s*>)*+\Z", re.I | re.S)


def has_text_after_html(text: str) -> bool:
    """Whether *text* holds markup after its first ``</html>`` (comments,
    scripts, styles and whitespace aside). libxml2 stops at that tag;
    browsers go on reading the rest into ``<body>``."""
    # A find runs at memory speed, a case-blind regular expression at a
    # fraction of it: the regular expression only reads pages without a
    # lower-case (or upper-case) end tag, or from the one found.
    at = _find(text, "</html")
    if at < 0:
        at = _find(text, "</HTML")
    match = _HTML_END_TAG.search(text, max(at, 0))
    return match is not None and _NOTHING_KEPT.match(text, match.end()) is None


#: A ``<title>`` whose text is longer than this and holds markup has
#: swallowed the page: its end tag is missing or mangled (``</titlevalue``,
#: a chunk of the head cut out by an archive), and libxml2, like a browser,
#: reads everything after it as the title's text, so the body is empty.
RUNAWAY_TITLE_CHARS = 1000
_TITLE_START = re.compile(r"<title\b[^>]*>", re.I)
_TAG_START = re.compile(r"<[A-Za-z/!]")


def has_runaway_title(root: etree._Element) -> bool:
    """Whether *root*'s ``<title>`` swallowed the page (see :data:`RUNAWAY_TITLE_CHARS`)."""
    title = root.find("head/title")
    text = title.text if title is not None else None
    return text is not None and len(text) > RUNAWAY_TITLE_CHARS and _TAG_START.search(text) is not None


def close_runaway_title(text: str) -> str:
    """*text* with its first ``<title>`` closed where its own text must
    end: at the end of its first line or before the first tag, whichever
    comes first. What follows, up to the next tag, is dropped: the debris
    of the mangled head (a script's tail, half an attribute), which no
    browser showed either."""
    start = _TITLE_START.search(text)
    if start is None:
        return text
    tag = _TAG_START.search(text, start.end())
    line = text.find("\n", start.end())
    ends = [at for at in (tag.start() if tag else -1, line) if at >= 0]
    if not ends:
        return text
    # The first tag is at or after the cut: the debris ends there.
    return text[: min(ends)] + "</title>" + text[tag.start() if tag else len(text) :]


#: What a ``<head>`` may hold; any other element opens the body in a browser.
HEAD_ELEMENTS = frozenset(("title", "meta", "link", "style", "script", "base", "noscript", "template"))


def body_left_in_head(root: etree._Element) -> etree._Element | None:
    """The first element of *root*'s ``<head>`` that belongs to the body,
    on a page with no ``<body>`` at all; ``None`` otherwise.

    libxml2 leaves an unknown element met in the head (``<mbox>``, a
    mangled tag) there with everything after it, and a page with no
    ``<body>`` tag then has no body: its text is silently lost. A browser
    opens the body at that element."""
    if root.find("body") is not None:
        return None
    head = root.find("head")
    if head is None:
        return None
    return next((e for e in head if isinstance(e.tag, str) and e.tag not in HEAD_ELEMENTS), None)


#: The page's first ``<html>`` start tag, its attributes and its ``/`` if
#: self-closed.
_HTML_START_TAG = re.compile(r"<html\b[^>]*?(/?)\s*>", re.I)


def reopen_html(root: etree._Element, text: str) -> str | None:
    """*text* with its ``<html .../>`` start tag reopened (its ``/``
    removed) when libxml2 ended the page there; ``None`` otherwise.

    libxml2 closes a self-closed ``<html/>`` (an archive's debris:
    ``<html xmogo.jpg" alt=".." />``) and drops everything after it, so
    the tree is a lone, childless root and the page silently has no text.
    ``html`` is not a void element: a browser ignores the ``/`` and reads
    on. Only a childless root costs a search."""
    if len(root):
        return None
    match = _HTML_START_TAG.search(text)
    if match is None or not match.group(1):
        return None
    return text[: match.start(1)] + text[match.end(1) :]


def move_into_body(root: etree._Element, first: etree._Element) -> None:
    """Move *first* and every sibling after it out of the head into a new
    ``<body>``, as a browser builds the page (see :func:`body_left_in_head`)."""
    # The siblings listed before any moves: moving one ends the iteration.
    etree.SubElement(root, "body").extend([first, *first.itersiblings()])


def last_depth(root: etree._Element) -> int:
    """How many elements deep the last element of *root* (in document
    order) sits, *root* counting 1: when libxml2 stops at its nesting limit,
    every element still open is on this path, so it is that deep."""
    depth = 1
    element = root
    while len(element):
        element = element[-1]
        depth += 1
    return depth


#: An opaque run (comment, raw-text element) or a tag, as libxml2 reads them.
_MARKUP_TOKEN = re.compile(
    r"<!--.*?(?:-->|\Z)|<(script|style|textarea|title|xmp)\b.*?(?:</\1\s*>|\Z)"
    r"|<(/?)([A-Za-z][^\s/>]*)[^>]*>",
    re.I | re.S,
)
_VOID_TAGS = frozenset("area base br col embed hr img input keygen link meta param source track wbr".split())
#: Elements a start tag of the same name closes when it is the open one.
_SELF_CLOSING = frozenset("p li dt dd option tr td th".split())
#: libxml2's end-tag priorities: an end tag does not close elements of a
#: higher priority on its way (it is ignored instead).
_END_PRIORITY = {
    "div": 150,
    "td": 160,
    "th": 160,
    "tr": 170,
    "thead": 180,
    "tbody": 180,
    "tfoot": 180,
    "table": 190,
    "head": 200,
    "body": 200,
    "html": 220,
}


def flatten_markup(text: str, limit: int = FLATTEN_DEPTH) -> str:
    """*text* with no element nested deeper than about *limit*: past it,
    start and end tags are dropped, structural ones (:data:`~webclean_scrapy.engine.html.tags.STRUCTURAL_TAGS`)
    becoming ``<br>`` so the text keeps its line breaks.

    The depth is followed the way libxml2 builds the tree (void elements,
    a ``<p>`` closing an open ``<p>``, end tags closing what they match
    unless an element of higher priority is in the way), erring on the deep
    side, so libxml2 never reaches its own limit on the result. Text is
    never removed. Only pages whose tree reached :data:`SUSPICIOUS_DEPTH`
    get here: it is a linear pass, in Python.
    """
    pieces: list[str] = []
    stack: list[str] = []
    done = 0
    for match in _MARKUP_TOKEN.finditer(text):
        name = match.group(3)
        if name is None:
            continue  # a comment or a raw-text element: kept as it is
        name = name.lower()
        keep = True
        if not match.group(2):  # a start tag
            if name in _VOID_TAGS:
                continue
            if stack and stack[-1] == name and name in _SELF_CLOSING:
                stack.pop()
            if len(stack) < limit:
                stack.append(name)
            else:
                keep = False
        elif name in stack:
            at = len(stack) - 1 - stack[::-1].index(name)
            priority = _END_PRIORITY.get(name, 100)
            if all(_END_PRIORITY.get(open_, 100) <= priority for open_ in stack[at + 1 :]):
                del stack[at:]
        elif len(stack) >= limit:
            keep = False  # the end of an element dropped above
        if not keep:
            pieces.append(text[done : match.start()])
            pieces.append("<br>" if name in STRUCTURAL_TAGS else "")
            done = match.end()
    pieces.append(text[done:])
    return "".join(pieces)


def recover_tree(root: etree._Element, source: str | None) -> tuple[etree._Element, bool]:
    """*root*, or the tree of a repaired *source* when libxml2 dropped part
    of the page, and whether the tree still misses part of it.

    libxml2 drops what follows the first ``</html>`` and everything after
    the point where :data:`LIBXML2_MAX_DEPTH` elements are open, without an
    error. The first is repaired by removing the ``</html>`` tags (browsers
    read on), the second by :func:`flatten_markup`; a tree that reached the
    limit with no source to repair stays, flagged as truncated. A
    ``<title>`` that swallowed the page is closed (:func:`close_runaway_title`),
    a body left in the head is moved out (:func:`body_left_in_head`), a
    self-closed ``<html/>`` reopened (:func:`reopen_html`).
    """
    if source is not None and (
        has_text_after_html(source)
        or has_runaway_title(root)
        or body_left_in_head(root) is not None
        or reopen_html(root, source) is not None
    ):
        return parse_page(source)
    return _recover_depth(root, source)


def _recover_depth(root: etree._Element, source: str | None) -> tuple[etree._Element, bool]:
    """*root*, or the tree of *source* flattened when libxml2 stopped at its
    nesting limit, and whether the tree still misses part of the page."""
    depth = last_depth(root)
    if depth < SUSPICIOUS_DEPTH:
        return root, False
    if source is not None:
        root = parse_html(flatten_markup(source))
        depth = last_depth(root)
    return root, depth >= LIBXML2_MAX_DEPTH


def parse_page(text: str, utf8_body: bytes | None = None) -> tuple[etree._Element, bool]:
    """:func:`parse_html`, with what libxml2 would drop recovered
    (:func:`recover_tree`): the tree, and whether it still misses part of
    the page. Costs one regular-expression scan and a walk down the last
    element's path on ordinary pages."""
    if has_text_after_html(text):
        text = _HTML_END_TAG.sub("", text)
        utf8_body = None
    root = parse_html(text, utf8_body)
    reopened = reopen_html(root, text)
    if reopened is not None:
        text = reopened
        root = parse_html(text)
    if has_runaway_title(root):
        closed = close_runaway_title(text)
        if closed != text:
            text = closed
            root = parse_html(text)
    first = body_left_in_head(root)
    if first is not None:
        move_into_body(root, first)
    if last_depth(root) < SUSPICIOUS_DEPTH:
        return root, False
    return _recover_depth(root, text)
