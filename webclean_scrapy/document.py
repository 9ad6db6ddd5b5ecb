"""The document model every extractor shares: parse once, clean once, walk once.

A page becomes a :class:`Document` in three steps, each done exactly once:

1. **Parse** with lxml's HTML parser (or reuse a root Scrapy/parsel already
   parsed, untouched: the walk below never mutates the tree).
2. **Clean** while walking: ``script``, ``style``, ``noscript``, ``template``
   and other non-rendered subtrees, comments, processing instructions and
   hidden elements (``hidden`` attribute, inline ``display:none`` or
   ``visibility:hidden``) are skipped, their tail text kept.
3. **Walk** the tree once, iteratively (so 10,000-deep nesting cannot raise
   ``RecursionError``; compiled in :mod:`webclean_scrapy._walk`, which reads
   libxml2's nodes directly, with ``lxml.etree.iterwalk`` as the reference
   and fallback), cutting the text into blocks at *structural tags* -- the
   string list of Arias, Deschacht & Moens -- and recording one container
   per structural element, with its parent, block range and subtree
   character and anchor counts, which DOM-based methods (Posch's DIV
   scoring, the flagship) read without touching lxml again.

The walk fills two tables, :class:`BlockColumns` and
:class:`ContainerColumns` (strings in lists, numbers in numpy arrays): the
flagship reads them with whole-column operations. The linked
:class:`Block` and :class:`Container` objects, which the published methods
walk, are views built from them on first use (:attr:`Document.blocks`,
:attr:`Document.containers`), so a page whose extractor never asks for
them never allocates them.

Line-based methods (text-to-tag ratio) read :meth:`Document.tagged_lines`,
computed lazily from the decoded source.
"""

from __future__ import annotations

import gc
import html
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import cached_property
from typing import NamedTuple
from urllib.parse import urljoin, urlsplit

import numpy as np
from lxml import etree

from .encoding import decode_html
from .errors import ExtractionError
from .screen import screen_markup

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

#: Attributes the walk copies onto each :class:`Container` (``attributes``):
#: what the markup says an element is. The walk is on the element anyway;
#: reading them back through lxml later costs a call per container.
DESCRIPTIVE_ATTRIBUTES: tuple[str, ...] = ("class", "id", "role", "itemprop")

#: The punctuation marks the walk counts in every block's text
#: (:attr:`BlockColumns.marks`): sentence ends and commas in their ASCII,
#: CJK full-width and half-width forms, the ideographic and the Arabic
#: comma, and the semicolon -- every mark a method here reads, counted
#: once, during the pass that collapses the block's whitespace.
PUNCTUATION_MARKS: str = ".。．｡!！?？,，、､،;"

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

_CANONICAL_XPATH = etree.XPath(
    "//link[contains(concat(' ', translate(normalize-space(@rel), 'CANONICAL', 'canonical'), ' '),"
    " ' canonical ')]/@href"
)
#: Language names some pages declare instead of a code (``lang="english"``),
#: in English and in the language itself, mapped to ISO 639-1 so per-language
#: figures group them with the coded pages.
_LANGUAGE_NAMES: dict[str, str] = {
    "english": "en", "german": "de", "deutsch": "de", "french": "fr", "français": "fr",
    "francais": "fr", "spanish": "es", "español": "es", "espanol": "es", "italian": "it",
    "italiano": "it", "portuguese": "pt", "português": "pt", "portugues": "pt", "dutch": "nl",
    "nederlands": "nl", "russian": "ru", "русский": "ru", "chinese": "zh", "中文": "zh",
    "japanese": "ja", "日本語": "ja", "polish": "pl", "polski": "pl", "czech": "cs",
    "čeština": "cs", "swedish": "sv", "svenska": "sv", "norwegian": "no", "norsk": "no",
    "danish": "da", "dansk": "da", "finnish": "fi", "suomi": "fi", "turkish": "tr",
    "türkçe": "tr", "arabic": "ar", "greek": "el", "korean": "ko", "한국어": "ko",
}
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)

#: Each tag's part in the walk, as the compiled walk reads it: 1 structural
#: (opens a container), 2 break, 3 dropped, 4 dropped and structural, 5 ``a``.
_WALK_KINDS: dict[str, int] = {
    **{tag: 2 if tag in BREAK_TAGS else 1 for tag in STRUCTURAL_TAGS},
    **{tag: 4 if tag in STRUCTURAL_TAGS else 3 for tag in DROPPED_TAGS},
    "a": 5,
}

#: The walk that reveals (see :meth:`Document._walk`): ``<noscript>`` is a
#: container like any other, and nothing is hidden by attribute or style.
_REVEAL_KINDS: dict[str, int] = {**_WALK_KINDS, "noscript": 1}
#: A page whose visible text is shorter than this is walked again, revealing.
REVEAL_BELOW = 500

_DESCRIPTIVE_BYTES: tuple[bytes, ...] = tuple(name.encode() for name in DESCRIPTIVE_ATTRIBUTES)
_MARK_BYTES: tuple[bytes, ...] = tuple(mark.encode() for mark in PUNCTUATION_MARKS)

try:
    from . import _walk as _compiled_walk
except ImportError:  # not built (no C compiler at install): the Python walk runs
    _compiled_walk = None

#: Whether :class:`Document` uses the compiled walk; ``False`` when the
#: extension is not built. Setting it to ``False`` forces the Python walk.
COMPILED_WALK: bool = _compiled_walk is not None

#: Plain ``etree.HTMLParser``: lxml.html's parser would call a Python class
#: lookup for every element proxy, which costs more than the walk itself.
#: ``collect_ids=False``: no hash table of ``id`` attributes (nothing here
#: looks elements up by id), 10% off the parse.
_PARSER = etree.HTMLParser(encoding="utf-8", huge_tree=True, recover=True, collect_ids=False)


class BlockColumns:
    """A page's blocks as columns: entry *i* of each is block *i*, in document order.

    This is what the walk produces and what the flagship model reads
    (whole-column numpy operations); :class:`Block` objects are built from
    it only when :attr:`Document.blocks` is asked for. ``texts`` holds each
    block's text (whitespace collapsed), ``anchor_texts`` the text inside its
    ``<a>`` elements (``""`` when none); the int64 arrays hold its
    ``positions`` (see :class:`Block`), its ``holders`` (the index of the
    container directly holding it), its ``chars`` and ``anchor_chars``
    (non-whitespace characters, all and inside links), and ``marks``: row
    *k* counts :data:`PUNCTUATION_MARKS` ``[k]`` in each block's text
    (:meth:`count` adds rows up).
    """

    __slots__ = ("texts", "anchor_texts", "positions", "holders", "chars", "anchor_chars", "marks")

    def __init__(self, texts: list[str], anchor_texts: list[str], numbers: np.ndarray) -> None:
        self.texts = texts
        self.anchor_texts = anchor_texts
        #: Rows of one ``(4 + len(PUNCTUATION_MARKS), n)`` array, in the
        #: compiled walk's ``B_*`` order, then one row per mark.
        self.positions, self.holders, self.chars, self.anchor_chars = numbers[:4]
        self.marks = numbers[4:]

    def __len__(self) -> int:
        return len(self.texts)

    def text(self, indexes: Iterable[int] | slice = slice(None)) -> str:
        """The output text of the blocks at *indexes* (default: all), one block per line."""
        if isinstance(indexes, slice):
            return "\n".join(self.texts[indexes])
        texts = self.texts
        return "\n".join([texts[i] for i in indexes])

    def count(self, marks: str) -> np.ndarray:
        """How many of the characters *marks* each block's text holds (each
        of them one of :data:`PUNCTUATION_MARKS`)."""
        try:
            rows = [PUNCTUATION_MARKS.index(mark) for mark in marks]
        except ValueError:
            raise ValueError(f"only {PUNCTUATION_MARKS!r} are counted, not all of {marks!r}") from None
        return self.marks[rows].sum(axis=0)


class ContainerColumns:
    """A page's containers (structural elements) as columns, in document
    order: parents come before their children, the root is entry 0.

    ``tags`` and ``attributes`` (the :data:`DESCRIPTIVE_ATTRIBUTES` present,
    a dict) are lists; the int64 arrays hold each container's ``parents``
    (index, -1 for the root), its subtree's block range ``first_blocks`` to
    ``last_blocks`` inclusive (both -1 without text), and its subtree's
    ``chars`` and ``anchor_chars``.
    """

    __slots__ = ("tags", "attributes", "parents", "first_blocks", "last_blocks", "chars", "anchor_chars")

    def __init__(self, tags: list[str], attributes: list[dict[str, str]], numbers: np.ndarray) -> None:
        self.tags = tags
        self.attributes = attributes
        #: Rows of one ``(5, n)`` array, in the compiled walk's ``C_*`` order.
        self.parents, self.first_blocks, self.last_blocks, self.chars, self.anchor_chars = numbers

    def __len__(self) -> int:
        return len(self.tags)


class _ElementFinder:
    """Each container's lxml element, found the first time one is asked for.

    The compiled walk makes no element proxies (they cost more than the rest
    of a container); they are found by walking again, asking for them. The
    tree must not have been modified since the page was walked: a different
    sequence of container tags is refused. Shared by a page's containers,
    and holding no reference to them or to the document, so no cycle.
    """

    __slots__ = ("root", "tags", "elements", "reveal")

    def __init__(self, root: etree._Element, tags: list[str],
                 elements: list[etree._Element] | None = None, reveal: bool = False) -> None:
        self.root = root
        self.tags = tags
        self.elements = elements
        self.reveal = reveal

    def __call__(self) -> list[etree._Element]:
        if self.elements is None:
            assert _compiled_walk is not None  # made by the compiled walk only
            elements: list[etree._Element] = []
            _compiled_walk.walk(self.root, _REVEAL_KINDS if self.reveal else _WALK_KINDS, _HIDDEN_STYLE.search,
                                _DESCRIPTIVE_BYTES, _MARK_BYTES, elements, self.reveal)
            if [element.tag for element in elements[1:]] != self.tags[1:]:
                raise RuntimeError("the tree was modified after the page was walked")
            self.elements = elements
        return self.elements


class Container:
    """One structural element, with the totals of its subtree: a view of
    one entry of :class:`ContainerColumns`, linked to its neighbours.

    ``chars`` and ``anchor_chars`` count non-whitespace characters of all
    blocks below; ``direct_blocks`` are the blocks whose nearest structural
    ancestor is this element; ``attributes`` holds what the markup says the
    element is (class, id, role, itemprop), copied during the walk.
    """

    __slots__ = (
        "index", "_elements", "tag", "attributes", "parent", "depth", "children", "direct_blocks",
        "chars", "anchor_chars", "block_count", "first_block", "last_block",
    )

    def __init__(self, index: int, elements: _ElementFinder, tag: str, attributes: dict[str, str],
                 parent: Container | None, first_block: int, last_block: int, chars: int,
                 anchor_chars: int) -> None:
        #: Position in :attr:`Document.containers` (document order), so
        #: per-container data can live in lists instead of dicts.
        self.index = index
        self._elements = elements
        self.tag = tag
        #: The element's :data:`DESCRIPTIVE_ATTRIBUTES` that are present.
        self.attributes = attributes
        self.parent = parent
        self.depth: int = 0 if parent is None else parent.depth + 1
        self.children: list[Container] = []
        self.direct_blocks: list[Block] = []
        self.chars = chars
        self.anchor_chars = anchor_chars
        #: Index range (inclusive) in :attr:`Document.blocks`; both -1 when
        #: the subtree holds no text.
        self.first_block = first_block
        self.last_block = last_block
        self.block_count = last_block - first_block + 1 if first_block >= 0 else 0

    @property
    def element(self) -> etree._Element:
        """The lxml element (found on first use: see :class:`_ElementFinder`)."""
        return self._elements()[self.index]

    def __repr__(self) -> str:
        return f"<Container {self.tag} depth={self.depth} chars={self.chars} blocks={self.block_count}>"


class Block:
    """A non-empty string between two structural tags, whitespace collapsed:
    a view of one entry of :class:`BlockColumns`.

    ``position`` is the block's index in the string list of Arias et al.:
    the number of structural tags *opened* before it. Every structural tag
    starts a new string and text after a closing tag goes to the last string,
    so several blocks (``<p>b</p>c``: "b" and "c") can share a position, and
    positions without text are the paper's empty strings. ``chars`` and
    ``anchor_chars`` count non-whitespace characters; ``anchor_text`` is the
    text inside ``<a>`` elements (``""`` when none).
    """

    __slots__ = ("index", "position", "text", "container", "chars", "anchor_chars", "anchor_text")

    def __init__(self, index: int, position: int, text: str, container: Container,
                 chars: int, anchor_text: str, anchor_chars: int) -> None:
        self.index = index
        self.position = position
        self.text = text
        self.container = container
        self.chars = chars
        self.anchor_text = anchor_text
        self.anchor_chars = anchor_chars

    @property
    def tag(self) -> str:
        return self.container.tag

    @property
    def link_density(self) -> float:
        return self.anchor_chars / self.chars if self.chars else 0.0

    def __repr__(self) -> str:
        return f"<Block {self.index} <{self.tag}> {self.text[:40]!r}>"


def _words_and_chars(text: str) -> tuple[str, int]:
    """*text* with whitespace collapsed, and its non-whitespace characters."""
    words = text.split()
    joined = " ".join(words)
    return joined, len(joined) - len(words) + 1 if words else 0


class Document:
    """A parsed page: its blocks and containers, as columns (what the
    walk makes, what fast methods read) and as linked objects (built on
    first use of :attr:`blocks` or :attr:`containers`)."""

    #: Reasons the markup was neutralised before parsing
    #: (:func:`~webclean_scrapy.screen.screen_markup`); set by :meth:`from_html`.
    screened: tuple[str, ...] = ()

    def __init__(self, root: etree._Element, *, url: str | None = None,
                 source: str | None = None, encoding: str | None = None,
                 truncated: bool | None = None) -> None:
        if truncated is None:  # a tree parsed elsewhere (Scrapy's selector): checked here
            root, truncated = recover_tree(root, source)
        #: Whether the tree holds only part of the page: libxml2 stopped at
        #: its nesting limit and the markup could not be repaired (see
        #: :func:`recover_tree`). The text is then not the whole page's.
        self.truncated = truncated
        self.root = root
        self.url = url
        self.encoding = encoding
        self._source = source
        self._views: tuple[list[Block], list[Container]] | None = None
        self._elements: _ElementFinder
        self.block_columns: BlockColumns
        self.container_columns: ContainerColumns
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
            data = bytes(html)
            encoding, text = decode_html(data, content_type)
            # Valid UTF-8 (most of the web) goes to libxml2 as the original
            # bytes: no re-encoding copy. Anything else is parsed from the
            # decoded text (re-encoded as UTF-8), so the charset decision stays ours.
            body: bytes | None = None if encoding != "utf-8" or "\ufffd" in text or b"\x00" in data else data
        elif isinstance(html, str):
            text = html
            encoding = encoding or "unicode"
            body = None
        else:
            raise ExtractionError(f"a page is bytes or str, got {type(html).__name__}")
        if body is None:
            body = text.replace("\x00", "").encode("utf-8", "replace")
        # Pathological markup is neutralised before libxml2 sees it (screen.py).
        body, screened = screen_markup(body)
        if screened:
            text = body.decode("utf-8", "replace")
        root, truncated = parse_page(text, body)
        doc = cls(root, url=url, source=text, encoding=encoding, truncated=truncated)
        doc.screened = screened
        return doc

    # -- the walk -----------------------------------------------------
    def _walk(self) -> None:
        """Cut the text into blocks and build the container table, in one pass.

        The compiled walk (:mod:`webclean_scrapy._walk`) does it when it was
        built and the tree is an lxml HTML document; otherwise, or when
        :data:`COMPILED_WALK` is switched off, :meth:`_walk_python` does.
        Both produce the same columns (tested page by page).

        A page whose visible text is shorter than :data:`REVEAL_BELOW`
        characters is walked a second time, *revealing*: ``<noscript>``
        content counts (Discourse forums serve their posts to crawlers
        there) and the ``hidden`` attribute and hiding inline styles are
        ignored (React's streamed HTML parks the page in ``<div hidden>``
        until a script moves it). The revealing walk is kept when it finds
        more than twice the text (:attr:`revealed`).
        """
        self.revealed = False
        self._walk_once(False)
        visible = int(self.container_columns.chars[0]) if len(self.container_columns) else 0
        if visible < REVEAL_BELOW:
            kept = self.block_columns, self.container_columns, self._elements
            self._walk_once(True)
            if int(self.container_columns.chars[0]) > 2 * visible + 100:
                self.revealed = True
            else:
                self.block_columns, self.container_columns, self._elements = kept

    def _walk_once(self, reveal: bool) -> None:
        if COMPILED_WALK and _compiled_walk is not None and _compiled_walk.is_html_tree(self.root):
            texts, anchor_texts, block_numbers, tags, attributes, container_numbers = _compiled_walk.walk(
                self.root, _REVEAL_KINDS if reveal else _WALK_KINDS, _HIDDEN_STYLE.search,
                _DESCRIPTIVE_BYTES, _MARK_BYTES, None, reveal)
            self.block_columns = BlockColumns(texts, anchor_texts, np.frombuffer(
                block_numbers, dtype=np.int64).reshape(4 + len(_MARK_BYTES), -1))
            self.container_columns = ContainerColumns(
                tags, attributes, np.frombuffer(container_numbers, dtype=np.int64).reshape(5, -1))
            self._elements = _ElementFinder(self.root, tags, reveal=reveal)
        else:
            self._walk_python(reveal)

    def _walk_python(self, reveal: bool = False) -> None:
        """The walk through lxml's Python API: the reference definition.

        Hot loop: local names only; whitespace-only strings (the newlines
        between tags, most of them) never make a block.
        """
        root = self.root
        structural = STRUCTURAL_TAGS | {"noscript"} if reveal else STRUCTURAL_TAGS
        dropped = DROPPED_TAGS - {"noscript"} if reveal else DROPPED_TAGS
        breaks = BREAK_TAGS
        hidden_style = _HIDDEN_STYLE.search
        descriptive = DESCRIPTIVE_ATTRIBUTES

        pieces: list[str] = []
        has_text = False  # does ``pieces`` hold more than whitespace?
        anchor_pieces: list[str] = []
        anchors: list[etree._Element] = []  # open <a> elements
        position = 0
        # The block table, column by column (BlockColumns' order)...
        texts: list[str] = []
        anchor_texts: list[str] = []
        blocks: tuple[list[int], ...] = tuple([] for _ in range(4 + len(PUNCTUATION_MARKS)))
        positions, holders, block_chars, block_anchor_chars = blocks[:4]
        mark_counts = tuple(zip(blocks[4:], PUNCTUATION_MARKS))
        # ... and the container table (ContainerColumns' order).
        tags: list[str] = [root.tag if isinstance(root.tag, str) else "html"]
        attributes_of: list[dict[str, str]] = [
            {name: value for name, value in root.items() if name in descriptive}]
        elements: list[etree._Element] = [root]
        containers: tuple[list[int], ...] = ([-1], [0], [-1], [0], [0])
        parents, firsts, lasts, chars_of, anchor_chars_of = containers
        current = 0
        skipped = None

        def cut() -> None:
            """End the current string: a block if it holds text, else nothing."""
            nonlocal has_text
            if has_text:
                text, chars = _words_and_chars("".join(pieces))
                anchor, anchor_chars = _words_and_chars("".join(anchor_pieces)) if anchor_pieces else ("", 0)
                texts.append(text)
                anchor_texts.append(anchor)
                positions.append(position)
                holders.append(current)
                block_chars.append(chars)
                block_anchor_chars.append(anchor_chars)
                for column, mark in mark_counts:
                    column.append(text.count(mark))
                chars_of[current] += chars
                anchor_chars_of[current] += anchor_chars
                has_text = False
            pieces.clear()
            anchor_pieces.clear()

        def close() -> int:
            """Finish the open container; its parent is the open one."""
            if len(texts) > firsts[current]:
                lasts[current] = len(texts) - 1
            else:
                firsts[current] = -1
            parent = parents[current]
            if parent >= 0:
                chars_of[parent] += chars_of[current]
                anchor_chars_of[parent] += anchor_chars_of[current]
            return parent

        walker = etree.iterwalk(root, events=("start", "end", "comment", "pi"))
        for event, el in walker:
            if event == "start":
                tag = el.tag  # comments and PIs arrive as their own events
                opens = False
                if tag in structural and el is not root:
                    # Every structural tag, hidden or not, starts a new string.
                    if pieces:
                        cut()
                    position += 1
                    opens = tag not in breaks
                style = el.get("style")
                if tag in dropped or (not reveal and (el.get("hidden") is not None
                                                      or (style is not None and hidden_style(style)))):
                    walker.skip_subtree()
                    skipped = el
                    continue
                if opens:
                    attributes = el.items()  # one call; most elements have none
                    tags.append(tag)
                    attributes_of.append({name: value for name, value in attributes if name in descriptive}
                                         if attributes else {})
                    elements.append(el)
                    parents.append(current)
                    firsts.append(len(texts))
                    lasts.append(-1)
                    chars_of.append(0)
                    anchor_chars_of.append(0)
                    current = len(tags) - 1
                elif tag == "a":
                    anchors.append(el)
                text = el.text
                if text:
                    pieces.append(text)
                    if not has_text and not text.isspace():
                        has_text = True
                    if anchors:
                        anchor_pieces.append(text)
                continue
            if event == "end":
                # Identity checks instead of re-reading ``el.tag``: the
                # element that ends is either the open container's, the
                # innermost open anchor, a skipped subtree or an inline tag.
                if el is skipped:
                    skipped = None
                elif el is elements[current]:
                    if current:
                        if pieces:
                            cut()
                        current = close()
                elif anchors and el is anchors[-1]:
                    anchors.pop()
                    if anchor_pieces:
                        anchor_pieces.append(" ")  # two links' texts stay two words
            tail = el.tail
            if tail and el is not root:
                pieces.append(tail)
                if not has_text and not tail.isspace():
                    has_text = True
                if anchors:
                    anchor_pieces.append(tail)
        cut()
        while current >= 0:  # the root, and any left open by a truncated tree
            current = close()
        self.block_columns = BlockColumns(texts, anchor_texts,
                                          np.array(blocks, dtype=np.int64).reshape(len(blocks), -1))
        self.container_columns = ContainerColumns(tags, attributes_of,
                                                  np.array(containers, dtype=np.int64).reshape(5, -1))
        self._elements = _ElementFinder(root, tags, elements)

    # -- the object views ---------------------------------------------
    @property
    def blocks(self) -> list[Block]:
        """The blocks as :class:`Block` objects, in document order."""
        return (self._views or self._build_views())[0]

    @property
    def containers(self) -> list[Container]:
        """The containers as a tree of :class:`Container` objects, in document order."""
        return (self._views or self._build_views())[1]

    def _build_views(self) -> tuple[list[Block], list[Container]]:
        """Make the linked objects of both tables, once (for the methods
        that walk a tree of objects rather than read columns)."""
        columns = self.container_columns
        elements = self._elements
        containers: list[Container] = []
        for index, (tag, attributes, parent, first, last, chars, anchor_chars) in enumerate(zip(
                columns.tags, columns.attributes, columns.parents.tolist(), columns.first_blocks.tolist(),
                columns.last_blocks.tolist(), columns.chars.tolist(), columns.anchor_chars.tolist())):
            above = containers[parent] if parent >= 0 else None
            container = Container(index, elements, tag, attributes, above, first, last, chars, anchor_chars)
            if above is not None:
                above.children.append(container)
            containers.append(container)
        block_columns = self.block_columns
        blocks: list[Block] = []
        for index, (text, anchor_text, position, holder, chars, anchor_chars) in enumerate(zip(
                block_columns.texts, block_columns.anchor_texts, block_columns.positions.tolist(),
                block_columns.holders.tolist(), block_columns.chars.tolist(), block_columns.anchor_chars.tolist())):
            container = containers[holder]
            block = Block(index, position, text, container, chars, anchor_text, anchor_chars)
            container.direct_blocks.append(block)
            blocks.append(block)
        self._views = blocks, containers
        return self._views

    def element(self, container: int) -> etree._Element:
        """The lxml element of container *container* (an index into
        :attr:`container_columns`), without building the object views."""
        return self._elements()[container]

    # -- views --------------------------------------------------------
    @property
    def source(self) -> str:
        """The decoded page source (serialised from the tree if not given)."""
        if self._source is None:
            self._source = etree.tostring(self.root, method="html", encoding="unicode")
        return self._source

    def _head_elements(self, tag: str) -> Iterable[etree._Element]:
        """``<tag>`` elements of ``<head>`` (the whole page if it has no head).

        The walk skips ``<head>``; these few lookups read it directly instead
        of running ``//``-XPath over the whole tree.
        """
        head = self.root.find("head")
        return (head if head is not None else self.root).iter(tag)

    @cached_property
    def title(self) -> str:
        """og:title, else the first visible ``<h1>``, else ``<title>``; whitespace collapsed."""
        for meta in self._head_elements("meta"):
            if meta.get("property") == "og:title" or meta.get("name") in ("og:title", "twitter:title"):
                value = " ".join((meta.get("content") or "").split())
                if value:
                    return value
        columns = self.container_columns
        tags = columns.tags
        index = -1
        while True:  # the first h1 holding text
            try:
                index = tags.index("h1", index + 1)
            except ValueError:
                break
            first = int(columns.first_blocks[index])
            if first >= 0:
                return " ".join(self.block_columns.texts[first:int(columns.last_blocks[index]) + 1])
        for element in self._head_elements("title"):
            value = " ".join("".join(element.itertext()).split())
            if value:
                return value
        return ""

    @cached_property
    def language(self) -> str | None:
        """The page's declared language (``<html lang>``, ``content-language``
        or ``og:locale``), lower-cased primary subtag such as ``"en"``."""
        root = self.root
        candidates = [root.get("lang"), root.get("xml:lang")]
        if not any(candidates):
            for meta in self._head_elements("meta"):
                if ((meta.get("http-equiv") or "").lower() == "content-language"
                        or meta.get("property") == "og:locale"):
                    candidates.append(meta.get("content"))
        for value in candidates:
            if value and value.strip():
                primary = re.split(r"[-_,;\s]", value.strip().lower())[0]
                return _LANGUAGE_NAMES.get(primary, primary) or None
        return None

    @cached_property
    def canonical_url(self) -> str | None:
        """``<link rel="canonical">`` resolved against the page URL (http/https only)."""
        for href in _CANONICAL_XPATH(self.root):
            href = href.strip()
            if not href:
                continue
            url = urljoin(self.url or "", href)
            if urlsplit(url).scheme in ("http", "https"):
                return url
        return None

    def release(self) -> None:
        """Break the reference cycles of the object views, if they were built.

        Parents and children point at each other, so without this a finished
        page waits for Python's cycle collector. :func:`built_page` calls it
        so a page is freed the moment its extraction is done. The columns
        hold no cycles; the views are built again if asked for after.
        """
        # Every cycle runs through a container's ``children`` (parent <->
        # child) or ``direct_blocks`` (container <-> block): clearing those
        # two breaks them all, and the upward links die with their targets.
        if self._views is not None:
            for container in self._views[1]:
                container.children = container.direct_blocks = None  # type: ignore[assignment]
            self._views = None

    def text_of(self, blocks: Iterable[Block]) -> str:
        """Blocks as output text: one block per line (:meth:`BlockColumns.text`)."""
        return self.block_columns.text([block.index for block in blocks])

    def tagged_lines(self, break_at_structural: bool = False) -> list[SourceLine]:
        """The source as Weninger & Hsu's text-to-tag-ratio lines.

        ``script`` and ``style`` elements and comments are removed from the
        source first (an unclosed one runs to the end, as in a browser); each
        remaining line becomes a :class:`SourceLine` holding its visible text
        (tags stripped -- structural ones count as a space --, entities
        decoded, whitespace collapsed) and the number of tags on it. Lines with neither text nor tags -- empty lines -- are
        dropped. A tag spanning several lines counts once, on the line where
        it starts: its inner newlines are not line breaks.

        With *break_at_structural* every tag named in :data:`STRUCTURAL_TAGS`
        also starts a new line, so minified pages (the whole page on one
        physical line) still give a per-block ratio profile.
        """
        source = _SOURCE_NON_TEXT.sub("", self.source)
        source = source.replace("\r\n", "\n").replace("\r", "\n")
        # Past the last ">" no tag can close; tokenising only up to it keeps
        # the tag regex from rescanning the tail for every stray "<".
        end = source.rfind(">") + 1
        pieces = _SOURCE_TAG.split(source[:end])
        pieces[-1] += source[end:]

        lines: list[SourceLine] = []
        text: list[str] = []
        tags = 0

        def flush() -> None:
            value = " ".join(html.unescape("".join(text)).split()) if text else ""
            if value or tags:
                lines.append(SourceLine(value, tags))
            text.clear()

        for i, piece in enumerate(pieces):
            if i % 2:  # a tag (odd pieces of a split on a capturing group)
                name = _SOURCE_TAG_NAME.match(piece)
                if name and name.group(1).lower() in STRUCTURAL_TAGS:
                    if break_at_structural:
                        flush()
                        tags = 0
                    else:
                        text.append(" ")  # "</p><p>" separates words
                tags += 1
                continue
            first, *rest = piece.split("\n")
            text.append(first)
            for chunk in rest:
                flush()
                tags = 0
                text.append(chunk)
        flush()
        return lines


class SourceLine(NamedTuple):
    """One line of cleaned source: its visible text and how many tags it holds."""

    text: str
    tags: int


#: What Weninger & Hsu strip from the source before counting: scripts,
#: styles and remarks (comments). Lazy and anchored on ``\Z`` so an unclosed
#: one is consumed in one linear match.
_SOURCE_NON_TEXT = re.compile(
    r"<script\b.*?(?:</script\s*>|\Z)|<style\b.*?(?:</style\s*>|\Z)|<!--.*?(?:-->|\Z)",
    re.I | re.S,
)
#: A tag: "<" then a letter, "/", "!" or "?" (so "a < b" stays text).
_SOURCE_TAG = re.compile(r"(<[A-Za-z/!?][^>]*>)")
_SOURCE_TAG_NAME = re.compile(r"</?([A-Za-z][A-Za-z0-9]*)")


@contextmanager
def built_page(factory: Callable[[], Document]) -> Iterator[Document]:
    """Build a :class:`Document` for one unit of work and free it right after.

    A page allocates many small objects (its strings and attribute dicts,
    and thousands of linked objects when a method asks for
    :attr:`Document.blocks`) that live exactly as long as its extraction.
    Python's cycle collector would traverse them several times meanwhile
    (measured with the object model: about a quarter of the extraction
    time), so it is paused while the page is built and used, and the page's
    reference cycles are broken at the end so reference counting frees it
    at once.
    The collector is only re-enabled if it was enabled on entry (another
    thread doing the same keeps it off a little longer, never for good).
    """
    paused = gc.isenabled()
    if paused:
        gc.disable()
    doc = None
    try:
        doc = factory()
        yield doc
    finally:
        if doc is not None:
            doc.release()
        if paused:
            gc.enable()


def parse_html(text: str, utf8_body: bytes | None = None) -> etree._Element:
    """Parse decoded markup with lxml's HTML parser; never returns ``None``.

    The text is handed to libxml2 as UTF-8 bytes (a ``str`` carrying an XML
    encoding declaration would be refused by lxml); *utf8_body*, when the
    caller has the page as valid UTF-8 bytes already, skips that encoding.
    NUL characters are removed, as parsel does.
    """
    body = utf8_body if utf8_body is not None else text.replace("\x00", "").encode("utf-8", "replace")
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
_NOTHING_KEPT = re.compile(
    r"(?:\s|<!--.*?-->|<script\b.*?</script\s*>|<style\b.*?</style\s*>)*+\Z", re.I | re.S)


def has_text_after_html(text: str) -> bool:
    """Whether *text* holds markup after its first ``</html>`` (comments,
    scripts, styles and whitespace aside). libxml2 stops at that tag;
    browsers go on reading the rest into ``<body>``."""
    # ``str.find`` runs at memory speed, a case-blind regular expression at
    # a third of it: the regular expression only reads pages without a
    # lower-case (or upper-case) end tag, or from the one found.
    at = text.find("</html")
    if at < 0:
        at = text.find("</HTML")
    match = _HTML_END_TAG.search(text, max(at, 0))
    return match is not None and _NOTHING_KEPT.match(text, match.end()) is None


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
_END_PRIORITY = {"div": 150, "td": 160, "th": 160, "tr": 170, "thead": 180, "tbody": 180, "tfoot": 180,
                 "table": 190, "head": 200, "body": 200, "html": 220}


def flatten_markup(text: str, limit: int = FLATTEN_DEPTH) -> str:
    """*text* with no element nested deeper than about *limit*: past it,
    start and end tags are dropped, structural ones (:data:`STRUCTURAL_TAGS`)
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
            if all(_END_PRIORITY.get(open_, 100) <= priority for open_ in stack[at + 1:]):
                del stack[at:]
        elif len(stack) >= limit:
            keep = False  # the end of an element dropped above
        if not keep:
            pieces.append(text[done:match.start()])
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
    limit with no source to repair stays, flagged as truncated.
    """
    if source is not None and has_text_after_html(source):
        return parse_page(source)
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
    if last_depth(root) < SUSPICIOUS_DEPTH:
        return root, False
    return recover_tree(root, text)
