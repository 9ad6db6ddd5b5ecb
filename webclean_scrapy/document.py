"""The document model every extractor shares: parse once, clean once, walk once.

A page becomes a :class:`Document` in three steps, each done exactly once:

1. **Parse** with lxml's HTML parser (or reuse a root Scrapy/parsel already
   parsed, untouched: the walk below never mutates the tree).
2. **Clean** while walking: ``script``, ``style``, ``noscript``, ``template``
   and other non-rendered subtrees, comments, processing instructions and
   hidden elements (``hidden`` attribute, inline ``display:none`` or
   ``visibility:hidden``) are skipped, their tail text kept.
3. **Walk** the tree once, iteratively (``lxml.etree.iterwalk``, so 10,000-deep
   nesting cannot raise ``RecursionError``), cutting the text into
   :class:`Block` strings at *structural tags* -- the string list of Arias,
   Deschacht & Moens -- and building a parallel tree of :class:`Container`
   records (one per structural element) with subtree character and anchor
   counts, which DOM-based methods (Posch's DIV scoring, the flagship) read
   without touching lxml again.

Line-based methods (text-to-tag ratio) read :meth:`Document.source_lines`,
computed lazily from the decoded source.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cached_property

from lxml import etree
from lxml.html import HTMLParser

from .encoding import decode_html

#: Tags that open a new string (Arias et al.: "structural tags such as <p>,
#: <table>, <br>, <div>, <h1>...") extended with HTML5 sectioning and list
#: elements. Text between two of them is one :class:`Block`.
STRUCTURAL_TAGS: frozenset[str] = frozenset(
    """
    address article aside blockquote body br caption center dd details dialog dir div dl dt
    fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 header hgroup hr
    html legend li main menu nav ol p pre section summary table tbody td tfoot th thead tr ul
    button label option textarea
    """.split()
)

#: Void structural tags: they cut the current string but hold no text.
BREAK_TAGS: frozenset[str] = frozenset({"br", "hr"})

#: Subtrees that are never rendered as text (or only as fallback text).
DROPPED_TAGS: frozenset[str] = frozenset(
    """
    script style noscript template head iframe object embed applet svg math canvas
    audio video map datalist select input
    """.split()
)

HEADING_TAGS: frozenset[str] = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})

_HIDDEN_XPATH = etree.XPath(
    "//*[@hidden or contains(@style, 'none') or contains(@style, 'hidden')]"
)
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)

_PARSER = HTMLParser(encoding="utf-8", huge_tree=True, recover=True)


class Container:
    """One structural element, with the totals of its subtree.

    ``chars`` and ``anchor_chars`` count non-whitespace characters of all
    blocks below; ``direct_blocks`` are the blocks whose nearest structural
    ancestor is this element.
    """

    __slots__ = (
        "element", "tag", "parent", "depth", "children", "direct_blocks",
        "chars", "anchor_chars", "block_count", "first_block", "last_block",
    )

    def __init__(self, element: etree._Element, tag: str, parent: Container | None) -> None:
        self.element = element
        self.tag = tag
        self.parent = parent
        self.depth = 0 if parent is None else parent.depth + 1
        self.children: list[Container] = []
        self.direct_blocks: list[Block] = []
        self.chars = 0
        self.anchor_chars = 0
        self.block_count = 0
        #: Index range (inclusive) in :attr:`Document.blocks`; -1 when empty.
        self.first_block = -1
        self.last_block = -1

    @property
    def link_density(self) -> float:
        return self.anchor_chars / self.chars if self.chars else 0.0

    def ancestors(self) -> Iterable[Container]:
        node = self.parent
        while node is not None:
            yield node
            node = node.parent

    def __repr__(self) -> str:
        return f"<Container {self.tag} depth={self.depth} chars={self.chars} blocks={self.block_count}>"


class Block:
    """A non-empty string between two structural tags, whitespace collapsed.

    ``position`` counts *all* strings the walk cut, empty ones included, so a
    method can measure distances in the paper's string list while
    :attr:`Document.blocks` keeps only the strings that carry text.
    """

    __slots__ = ("index", "position", "text", "container", "chars", "anchor_chars")

    def __init__(self, index: int, position: int, text: str, container: Container,
                 chars: int, anchor_chars: int) -> None:
        self.index = index
        self.position = position
        self.text = text
        self.container = container
        self.chars = chars
        self.anchor_chars = anchor_chars

    @property
    def tag(self) -> str:
        return self.container.tag

    @property
    def link_density(self) -> float:
        return self.anchor_chars / self.chars if self.chars else 0.0

    def __repr__(self) -> str:
        return f"<Block {self.index} <{self.tag}> {self.text[:40]!r}>"


def _hidden_elements(root: etree._Element) -> set[etree._Element]:
    """Elements hidden by markup alone; found with one XPath pass in C."""
    hidden = set()
    for el in _HIDDEN_XPATH(root):
        if el.get("hidden") is not None or _HIDDEN_STYLE.search(el.get("style") or ""):
            hidden.add(el)
    return hidden


class Document:
    """A parsed page, its cleaned string list and its container tree."""

    def __init__(self, root: etree._Element, *, url: str | None = None,
                 source: str | None = None, encoding: str | None = None) -> None:
        self.root = root
        self.url = url
        self.encoding = encoding
        self._source = source
        self.blocks: list[Block] = []
        self.containers: list[Container] = []
        #: Number of strings the walk cut, empty ones included.
        self.string_count = 0
        self._walk()

    # -- construction -------------------------------------------------
    @classmethod
    def from_html(cls, html: bytes | str, *, url: str | None = None,
                  encoding: str | None = None) -> Document:
        """Decode (for bytes), parse and walk a page.

        *encoding* is a charset name or a whole ``Content-Type`` header value,
        as received over HTTP; it wins over ``<meta>`` but not over a BOM.
        """
        if isinstance(html, (bytes, bytearray, memoryview)):
            content_type = None
            if encoding:
                content_type = encoding if "=" in encoding or "/" in encoding else f"text/html; charset={encoding}"
            encoding, text = decode_html(bytes(html), content_type)
        else:
            text = html
            encoding = encoding or "unicode"
        return cls(parse_html(text), url=url, source=text, encoding=encoding)

    # -- the walk -----------------------------------------------------
    def _walk(self) -> None:
        root = self.root
        hidden = _hidden_elements(root)
        blocks = self.blocks
        containers = self.containers

        pieces: list[str] = []
        anchor_pieces: list[str] = []
        anchor_depth = 0
        position = 0

        top = Container(root, root.tag if isinstance(root.tag, str) else "html", None)
        containers.append(top)
        current = top
        skipped = None

        def close() -> None:
            nonlocal position
            position += 1
            if not pieces:
                return
            raw = "".join(pieces)
            pieces.clear()
            words = raw.split()
            if not words:
                anchor_pieces.clear()
                return
            text = " ".join(words)
            chars = len(text) - len(words) + 1
            anchor = 0
            if anchor_pieces:
                anchor = len("".join("".join(anchor_pieces).split()))
                anchor_pieces.clear()
            block = Block(len(blocks), position - 1, text, current, chars, anchor)
            blocks.append(block)
            current.direct_blocks.append(block)

        walker = etree.iterwalk(root, events=("start", "end", "comment", "pi"))
        for event, el in walker:
            if event == "start":
                tag = el.tag
                if not isinstance(tag, str):  # entities and other oddities: keep their tail only
                    continue
                if tag in DROPPED_TAGS or el in hidden:
                    walker.skip_subtree()
                    skipped = el
                    if tag in STRUCTURAL_TAGS:
                        close()  # a hidden block still separates its neighbours
                    continue
                if tag in STRUCTURAL_TAGS and el is not root:
                    close()
                    if tag not in BREAK_TAGS:
                        current = Container(el, tag, current)
                        containers.append(current)
                elif tag == "a":
                    anchor_depth += 1
                text = el.text
                if text:
                    pieces.append(text)
                    if anchor_depth:
                        anchor_pieces.append(text)
                continue
            if event == "end":
                if el is skipped:
                    skipped = None
                else:
                    tag = el.tag
                    if tag in STRUCTURAL_TAGS and tag not in BREAK_TAGS and el is not root:
                        close()
                        finished = current
                        current = finished.parent  # type: ignore[assignment]
                        current.children.append(finished)
                    elif tag == "a" and anchor_depth:
                        anchor_depth -= 1
            tail = el.tail
            if tail and el is not root:
                pieces.append(tail)
                if anchor_depth:
                    anchor_pieces.append(tail)
        close()
        self.string_count = position
        self._aggregate()

    def _aggregate(self) -> None:
        """Fill subtree totals bottom-up: containers are in document order, so
        walking the list backwards visits every child before its parent."""
        for container in reversed(self.containers):
            for block in container.direct_blocks:
                container.chars += block.chars
                container.anchor_chars += block.anchor_chars
                container.block_count += 1
            if container.direct_blocks:
                first, last = container.direct_blocks[0].index, container.direct_blocks[-1].index
                container.first_block = first if container.first_block < 0 else min(first, container.first_block)
                container.last_block = max(last, container.last_block)
            parent = container.parent
            if parent is not None:
                parent.chars += container.chars
                parent.anchor_chars += container.anchor_chars
                parent.block_count += container.block_count
                if container.first_block >= 0:
                    if parent.first_block < 0 or container.first_block < parent.first_block:
                        parent.first_block = container.first_block
                    parent.last_block = max(parent.last_block, container.last_block)

    # -- views --------------------------------------------------------
    @property
    def source(self) -> str:
        """The decoded page source (serialised from the tree if not given)."""
        if self._source is None:
            self._source = etree.tostring(self.root, method="html", encoding="unicode")
        return self._source

    @cached_property
    def title(self) -> str:
        """og:title, else the first ``<h1>``, else ``<title>``; whitespace collapsed."""
        root = self.root
        for xpath in (
            "//meta[@property='og:title' or @name='og:title' or @name='twitter:title']/@content",
            "//h1",
            "//title",
        ):
            for found in root.xpath(xpath):
                value = found if isinstance(found, str) else found.text_content()
                value = " ".join(value.split())
                if value:
                    return value
        return ""

    @cached_property
    def language(self) -> str | None:
        """The page's declared language (``<html lang>``, ``content-language``
        or ``og:locale``), lower-cased primary subtag such as ``"en"``."""
        root = self.root
        candidates = [root.get("lang"), root.get("xml:lang")]
        candidates += root.xpath(
            "//meta[translate(@http-equiv,'CONTENTLANGUAGE','contentlanguage')='content-language']/@content"
            "|//meta[@property='og:locale']/@content"
        )
        for value in candidates:
            if value and value.strip():
                return re.split(r"[-_,;\s]", value.strip().lower())[0] or None
        return None

    def text_of(self, blocks: Iterable[Block]) -> str:
        """Blocks as output text: one block per line."""
        return "\n".join(block.text for block in blocks)

    def source_lines(self) -> list[str]:
        """The decoded source split into lines (for line-based methods)."""
        return self.source.splitlines()


def parse_html(text: str) -> etree._Element:
    """Parse decoded markup with lxml's HTML parser; never returns ``None``.

    The text is handed to libxml2 as UTF-8 bytes (a ``str`` carrying an XML
    encoding declaration would be refused by lxml). NUL characters are
    removed, as parsel does.
    """
    body = text.replace("\x00", "").encode("utf-8", "replace")
    root = None
    if body.strip():
        try:
            root = etree.fromstring(body, parser=_PARSER)
        except etree.XMLSyntaxError:
            root = None
    if root is None:
        root = etree.fromstring(b"<html><body></body></html>", parser=_PARSER)
    return root
