"""Markdown and clean HTML of what an extractor kept: one walk, two writers.

The text output is the kept blocks' texts, one per line. The formatted
outputs are the *same* blocks, with the structure the page gave them:
headings, (nested) lists, tables, code, block quotes. Nothing is extracted a
second time:

1. **Which blocks were kept.** The extractor runs once with a
   :class:`~webclean_scrapy.engine.trace.Trace`, which every built-in fills with
   its per-block decisions from the very arrays it decides on
   (:func:`kept_blocks`). The kept blocks' texts, joined, must give the
   extraction's text exactly; when they do not (a custom extractor that
   traces nothing or something else), the output lines are matched to the
   page's blocks in order. The text-to-tag ratio (``ttr``) keeps *source
   lines*, not blocks: its lines carry no element, so its Markdown and HTML
   are the text's lines as paragraphs, as is any output that matches no
   blocks.
2. **One walk** over the kept blocks in document order
   (:func:`content_tree`) builds a small tree of :class:`Node` objects from
   each block's structural ancestors, read from the container table
   (:attr:`Document.container_columns
   <webclean_scrapy.engine.document.Document.container_columns>`): no second parse,
   and lxml elements are fetched only for ``<pre>`` (its whitespace) and
   data tables (``colspan``/``rowspan``).
3. **Two writers** print the tree: :func:`to_markdown` (CommonMark with
   GFM pipe tables) and :func:`to_html` (a fragment of ``p``, ``h1``-``h6``,
   ``ul``/``ol``/``li``, ``table``, ``pre``/``code``, ``blockquote``; no
   attributes but ``colspan``/``rowspan``).

Every character of the text output is in both (Markdown escapes what would
be read as syntax), and in the same order, so the text read back from the
Markdown keeps the plain text's shingles (``benchmarks/markdown_fidelity.py``).

Blocks do not record inline markup, so by default neither output has any.
Asked for (:class:`~webclean_scrapy.engine.formats.Markup`: ``links``,
``formatting``, ``images``), it is read from the elements that hold the
kept blocks (:class:`_InlineReader`): each holder's inline content is
walked by the walk's rules (structural tags cut it, dropped and hidden
subtrees are skipped), cut into the same strings, and a block's links,
emphasis, code and images are kept only when that string's text *is* the
block's text; otherwise the block stays plain. Emphasis is written only at
word boundaries (``*`` between two letters is not read as emphasis by
every reader), link and image addresses are made absolute against the
page's ``<base href>`` or URL.

A table is a *data* table, rendered as a table, when it has two columns
or more, holds no nested table, list, heading, code or quote, no cell
longer than :data:`MAX_CELL_CHARS` and no text outside its cells; otherwise it is taken for layout and
its cells' blocks are rendered as the flow they are.
"""

from __future__ import annotations

import html as html_module
import itertools
import logging
import re
import string
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

import numpy as np
from lxml import etree

from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.formats import NO_MARKUP, Markup, check_formats
from webclean_scrapy.engine.html.tags import BREAK_TAGS, DROPPED_TAGS, HEADING_TAGS, HIDDEN_STYLE, STRUCTURAL_TAGS
from webclean_scrapy.engine.trace import Trace

if TYPE_CHECKING:
    from webclean_scrapy.engine.extraction import Extraction, Extractor

logger = logging.getLogger(__name__)

#: How many nested lists and quotes are rendered; deeper ones are flattened
#: into the deepest kept (so a hostile page cannot nest the writers' recursion).
MAX_NESTING = 16
#: A table with a cell longer than this (non-whitespace characters) is
#: taken for layout, as is a table of one column.
MAX_CELL_CHARS = 400
#: Spans larger than this are read as this (HTML itself caps colspan at 1,000).
MAX_SPAN = 100

_LISTS = frozenset({"ul", "ol", "menu", "dir"})
_CONTEXTS = _LISTS | {"li", "blockquote"}
_LEAVES = HEADING_TAGS | {"pre", "table"}
#: Structure inside a table that makes it a layout table.
_NOT_IN_DATA_TABLES = _LISTS | HEADING_TAGS | {"table", "pre", "blockquote", "li"}
_CELLS = frozenset({"td", "th"})


# -- which blocks were kept --------------------------------------------------


def kept_blocks(doc: Document, text: str, trace: Trace | None = None) -> list[int] | None:
    """The indexes of the blocks whose texts make *text*, in order; ``None``
    when *text* is not made of the page's blocks (``ttr``'s source lines).

    *trace* is the extractor's record of this page: its kept blocks are
    taken when they give *text* exactly. Otherwise *text*'s lines are
    matched to the blocks in document order, each to the next block with
    that text (a linear pass).
    """
    texts = doc.block_columns.texts
    if not text:
        return []
    if trace is not None and trace.unit == "block" and trace.kept is not None and len(trace) == len(texts):
        indexes = np.flatnonzero(trace.kept).tolist()
        if "\n".join([texts[i] for i in indexes]) == text:
            return indexes
    indexes = []
    at, count = 0, len(texts)
    for line in text.split("\n"):
        while at < count and texts[at] != line:
            at += 1
        if at == count:
            return None
        indexes.append(at)
        at += 1
    return indexes


def extract_formats(
    extractor: Extractor,
    doc: Document,
    formats: Iterable[str] = (),
    markup: Markup = NO_MARKUP,
    fields: frozenset[str] | None = None,
) -> Extraction:
    """Run *extractor* on *doc*, and fill the extraction's ``markdown`` and
    ``html`` for those of *formats* asked for (``"text"`` is always filled),
    with the inline *markup* asked for; *fields* (``None``: all) are the
    optional fields the extractor fills (:meth:`Extractor.extract
    <webclean_scrapy.engine.extraction.Extractor.extract>`)."""
    wanted = check_formats(formats)
    # Passed only when restricted: an extractor that overrides extract() keeps its signature.
    restrict: dict[str, Any] = {} if fields is None else {"fields": fields}
    if not wanted:
        return extractor.extract(doc, **restrict)
    trace = Trace() if extractor.traceable else None
    extraction = extractor.extract(doc, trace=trace, **restrict)
    add_formats(extraction, doc, wanted, trace, markup)
    return extraction


def add_formats(
    extraction: Extraction,
    doc: Document,
    formats: Iterable[str],
    trace: Trace | None = None,
    markup: Markup = NO_MARKUP,
) -> None:
    """Fill *extraction*'s ``markdown``/``html`` for *formats*, from the
    blocks of *doc* it kept (*trace*: the extractor's record, if any), with
    the inline *markup* asked for."""
    wanted = check_formats(formats)
    if not wanted:
        return
    try:
        nodes = content_tree(doc, kept_blocks(doc, extraction.text, trace), extraction.text, markup)
    except Exception as exc:  # the text is the contract: never lose it to its formatting
        logger.warning(
            "webclean: could not structure %s (%s: %s); its text's lines are its paragraphs",
            doc.url or "a page",
            type(exc).__name__,
            exc,
        )
        nodes = content_tree(doc, None, extraction.text)
    if "markdown" in wanted:
        extraction.markdown = to_markdown(nodes)
    if "html" in wanted:
        extraction.html = to_html(nodes)


# -- the tree ------------------------------------------------------------------


class Span:
    """An inline element of a block's text: ``kind`` is ``a`` (``url``),
    ``em``, ``strong``, ``code`` (``children``: text and spans) or ``img``
    (``url``, ``alt``)."""

    __slots__ = ("kind", "url", "alt", "children")

    def __init__(self, kind: str, url: str | None = None, alt: str = "") -> None:
        self.kind = kind
        self.url = url
        self.alt = alt
        self.children: Inline = []

    def __repr__(self) -> str:
        return f"<Span {self.kind} {self.url or ''} {self.children!r}>"


#: A block's text with its inline markup: strings and :class:`Span` objects.
Inline = list[str | Span]


class Node:
    """One piece of the content: ``kind`` is ``p``, ``h`` (``level``),
    ``list`` (``ordered``), ``li``, ``quote``, ``code`` or ``table``
    (``rows`` of :class:`Cell`, ``caption``). ``inline``: the text with
    its inline markup, when asked for (``None``: the plain ``text``)."""

    __slots__ = ("kind", "text", "children", "level", "ordered", "rows", "caption", "inline")

    def __init__(
        self, kind: str, text: str = "", level: int = 0, ordered: bool = False, inline: Inline | None = None
    ) -> None:
        self.kind = kind
        self.text = text
        self.children: list[Node] = []
        self.level = level
        self.ordered = ordered
        self.rows: list[list[Cell]] = []
        self.caption = ""
        self.inline = inline

    def __repr__(self) -> str:
        return f"<Node {self.kind} {self.text[:30]!r} children={len(self.children)}>"


class Cell:
    """A table cell: its kept text, whether it is a header cell, its spans
    (and its ``inline`` markup, when asked for)."""

    __slots__ = ("text", "header", "colspan", "rowspan", "inline")

    def __init__(
        self, text: str, header: bool, colspan: int = 1, rowspan: int = 1, inline: Inline | None = None
    ) -> None:
        self.text = text
        self.header = header
        self.colspan = colspan
        self.rowspan = rowspan
        self.inline = inline


def content_tree(doc: Document, kept: Sequence[int] | None, text: str = "", markup: Markup = NO_MARKUP) -> list[Node]:
    """The kept blocks as a list of top-level :class:`Node` objects, with
    the inline *markup* asked for.

    *kept* ``None`` (the text is not made of blocks): *text*'s lines as paragraphs.
    """
    if kept is None:
        return [Node("p", line) for line in text.split("\n") if line]
    return _TreeBuilder(doc, kept, _InlineReader(doc, markup) if markup else None).build()


def _span(value: str | None) -> int:
    try:
        return min(max(int(str(value).strip()), 1), MAX_SPAN)
    except (TypeError, ValueError):
        return 1


def _code_text(element: etree._Element) -> str:
    """The text of a ``<pre>`` as a browser shows it: whitespace kept,
    ``<br>`` a line break, non-rendered subtrees left out."""
    pieces: list[str] = []
    skipping = None
    for event, node in etree.iterwalk(element, events=("start", "end")):
        if skipping is not None:
            if event == "end" and node is skipping:
                skipping = None
                if node is not element and node.tail:
                    pieces.append(node.tail)
            continue
        tag = node.tag if isinstance(node.tag, str) else None
        if event == "start":
            if tag is None or tag in DROPPED_TAGS:
                skipping = node
                continue
            if tag == "br":
                pieces.append("\n")
            if node.text:
                pieces.append(node.text)
        elif node is not element and node.tail:
            pieces.append(node.tail)
    code = "".join(pieces)
    if code.startswith("\n"):  # the HTML parser drops a newline right after <pre>; libxml2 may not
        code = code[1:]
    return code.rstrip()


class _TreeBuilder:
    """The walk of :func:`content_tree`: each kept block goes into the
    nodes of its structural ancestors (lists, items, quotes), as a paragraph,
    a heading, or the whole code block / data table it belongs to."""

    def __init__(self, doc: Document, kept: Sequence[int], reader: _InlineReader | None = None) -> None:
        self.doc = doc
        self.reader = reader
        self._figures: dict[int, int] = {}
        self._figures_done: set[int] = set()
        self.kept = list(kept)
        self.kept_mask = np.zeros(len(doc.block_columns), dtype=bool)
        self.kept_mask[self.kept] = True
        columns = doc.container_columns
        self.tags = columns.tags
        self.parents = columns.parents.tolist()
        self.firsts = columns.first_blocks
        self.lasts = columns.last_blocks
        self._chains: dict[int, tuple[list[int], int]] = {}
        self._data_table: dict[int, bool] = {}
        self._ends: list[int] | None = None

    # -- ancestry ---------------------------------------------------------
    def chain(self, holder: int) -> tuple[list[int], int]:
        """The list/item/quote containers above *holder* (root first) and the
        leaf container (heading, ``pre``, data table; -1 for a paragraph)."""
        cached = self._chains.get(holder)
        if cached is not None:
            return cached
        # Up to the nearest ancestor already known (the root is known), then down again.
        path: list[int] = []
        at = holder
        while at > 0 and at not in self._chains:
            path.append(at)
            at = self.parents[at]
        contexts, leaf = self._chains.get(at, ([], -1))
        tags = self.tags
        for index in reversed(path):
            if leaf < 0:
                tag = tags[index]
                if tag in _CONTEXTS:
                    if len(contexts) < MAX_NESTING:
                        contexts = [*contexts, index]
                elif tag in _LEAVES and (tag != "table" or self.is_data_table(index)):
                    leaf = index
            self._chains[index] = contexts, leaf
        return self._chains[holder] if holder > 0 else (contexts, leaf)

    def subtree_end(self, index: int) -> int:
        """One past the last container of *index*'s subtree (containers are in document order)."""
        if self._ends is None:
            count = len(self.tags)
            ends = [count] * count
            stack: list[int] = []
            for i, parent in enumerate(self.parents):
                while stack and stack[-1] != parent:
                    ends[stack.pop()] = i
                stack.append(i)
            self._ends = ends
        return self._ends[index]

    def is_data_table(self, index: int) -> bool:
        known = self._data_table.get(index)
        if known is None:
            tags = self.tags
            inside = range(index + 1, self.subtree_end(index))
            chars = self.doc.container_columns.chars
            known = (
                not any(tags[i] in _NOT_IN_DATA_TABLES for i in inside)
                and not any(tags[i] in _CELLS and chars[i] > MAX_CELL_CHARS for i in inside)
                and any(
                    tags[i] == "tr"
                    and sum(tags[j] in _CELLS and self.parents[j] == i for j in range(i + 1, self.subtree_end(i))) > 1
                    for i in inside
                )
                # no text outside cells and caption (libxml2 leaves stray text in
                # place): the table's rows would move it
                and sum(len(self.blocks_of(i)) for i in inside if tags[i] in _CELLS or tags[i] == "caption")
                == len(self.blocks_of(index))
            )
            self._data_table[index] = known
        return known

    def blocks_of(self, index: int) -> range:
        first = int(self.firsts[index])
        return range(first, int(self.lasts[index]) + 1) if first >= 0 else range(0)

    def kept_text(self, index: int, separator: str = " ") -> str:
        texts = self.doc.block_columns.texts
        return separator.join(texts[b] for b in self.blocks_of(index) if self.kept_mask[b])

    def inline(self, block: int) -> Inline | None:
        """*block*'s text with its inline markup (``None``: none asked for)."""
        return None if self.reader is None else self.reader.inline(block)

    def kept_inline(self, index: int) -> Inline | None:
        """The inline markup of :meth:`kept_text` (blocks joined by a space)."""
        if self.reader is None:
            return None
        joined: Inline = []
        for block in self.blocks_of(index):
            if self.kept_mask[block]:
                joined.extend([" ", *self.reader.inline(block)] if joined else self.reader.inline(block))
        return joined

    def paragraph(self, block: int) -> Node:
        return Node("p", self.doc.block_columns.texts[block], inline=self.inline(block))

    def figure(self, holder: int) -> int:
        """The ``<figure>`` container around *holder* (-1: none)."""
        known = self._figures.get(holder)
        if known is None:
            known, at = -1, holder
            while at > 0:
                if self.tags[at] == "figure":
                    known = at
                    break
                at = self.parents[at]
            self._figures[holder] = known
        return known

    def figure_images(self, holder: int) -> Node | None:
        """The images of the figure around *holder*, as a paragraph, the
        first time one of its blocks is kept (:class:`_InlineReader` leaves
        them out of its blocks)."""
        figure = self.figure(holder)
        if figure < 0 or figure in self._figures_done or self.reader is None:
            return None
        self._figures_done.add(figure)
        images = self.reader.figure_images(self.doc.element(figure))
        if not images:
            return None
        inline: Inline = []
        for image in images:
            inline.extend([" ", image] if inline else [image])
        return Node("p", "", inline=inline)

    # -- the walk -----------------------------------------------------------
    def build(self) -> list[Node]:
        top = Node("root")
        stack: list[tuple[int, Node]] = [(-1, top)]
        done_until = -1  # blocks up to here went into a code block or table already
        last_heading: tuple[int, Node | None] = (-1, None)
        holders = self.doc.block_columns.holders
        texts = self.doc.block_columns.texts
        for block in self.kept:
            if block <= done_until:
                continue
            contexts, leaf = self.chain(int(holders[block]))
            depth = 0  # how much of the open stack this block shares
            while depth + 1 < len(stack) and depth < len(contexts) and stack[depth + 1][0] == contexts[depth]:
                depth += 1
            del stack[depth + 1 :]
            for index in contexts[depth:]:
                self._open(stack, index)
            parent = stack[-1][1]
            if self.reader is not None and self.reader.markup.images:
                images = self.figure_images(int(holders[block]))
                if images is not None:
                    self._add(parent, images)
            if leaf >= 0 and self.tags[leaf] == "table":
                nodes = self._table(leaf)
                done_until = int(self.lasts[leaf])
            elif leaf >= 0 and self.tags[leaf] == "pre":
                nodes = [self._code(leaf)]
                done_until = int(self.lasts[leaf])
            elif leaf >= 0:  # a heading: several blocks of one heading make one
                heading_leaf, heading = last_heading
                if heading_leaf == leaf and heading is not None and parent.children and parent.children[-1] is heading:
                    heading.text += " " + texts[block]
                    if heading.inline is not None:
                        heading.inline.extend([" ", *(self.inline(block) or ())])
                    continue
                node = Node("h", texts[block], level=int(self.tags[leaf][1]), inline=self.inline(block))
                last_heading = (leaf, node)
                nodes = [node]
            else:
                nodes = [self.paragraph(block)]
            for node in nodes:
                self._add(parent, node)
        return top.children

    def _open(self, stack: list[tuple[int, Node]], index: int) -> None:
        tag = self.tags[index]
        parent = stack[-1][1]
        if tag == "blockquote":
            node = Node("quote")
        elif tag == "li":
            if parent.kind != "list":  # an item outside any list: give it one
                implicit = Node("list")
                parent.children.append(implicit)
                stack.append((-2, implicit))
                parent = implicit
            node = Node("li")
        else:
            node = Node("list", ordered=tag == "ol")
        self._add(parent, node)
        stack.append((index, node))

    @staticmethod
    def _add(parent: Node, node: Node) -> None:
        if parent.kind == "list" and node.kind != "li":  # text straight in a list is an item of its own
            item = Node("li")
            item.children.append(node)
            node = item
        parent.children.append(node)

    def _code(self, index: int) -> Node:
        blocks = self.blocks_of(index)
        if self.kept_mask[blocks.start : blocks.stop].all():
            code = _code_text(self.doc.element(index))
            # Only when the element gives every kept word (a parser quirk must not lose text).
            if code.split() == " ".join(self.doc.block_columns.texts[b] for b in blocks).split():
                return Node("code", code)
        return Node("code", self.kept_text(index, "\n"))

    def _table(self, index: int) -> list[Node]:
        """The table node (rows with no kept text left out), with the
        captions that come before its cells; those after them follow it as
        paragraphs (the text's order is kept). A data table has no text
        outside its cells and captions (:meth:`is_data_table`)."""
        tags = self.tags
        rows: list[list[tuple[int, Cell]]] = []
        row_of: dict[int, int] = {}
        before: list[str] = []
        after: list[Node] = []
        for i in range(index + 1, self.subtree_end(index)):
            tag = tags[i]
            if tag == "tr":
                row_of[i] = len(rows)
                rows.append([])
            elif tag in _CELLS:
                row = self.parents[i]
                while row > index and tags[row] != "tr":
                    row = self.parents[row]
                if row not in row_of:  # a cell outside any row starts one
                    row_of[row] = len(rows)
                    rows.append([])
                if row_of[row] < len(rows) - 1:  # back to an earlier row: markup the rows would reorder
                    return self._flow(index)
                element = self.doc.element(i)
                rows[row_of[row]].append(
                    (
                        i,
                        Cell(
                            self.kept_text(i),
                            tag == "th",
                            _span(element.get("colspan")),
                            _span(element.get("rowspan")),
                            self.kept_inline(i),
                        ),
                    )
                )
            elif tag == "caption":
                caption = self.kept_text(i)
                if caption and any(rows):
                    after.append(Node("p", caption))
                elif caption:
                    before.append(caption)
        node = Node("table")
        node.caption = " ".join(before)
        for cells in rows:
            if any(self.kept_mask[b] for i, _ in cells for b in self.blocks_of(i)):
                node.rows.append([cell for _, cell in cells])
        if not node.rows:
            return self._flow(index)
        return [node, *after]

    def _flow(self, index: int) -> list[Node]:
        """A table's kept blocks as paragraphs, in document order."""
        return [self.paragraph(b) for b in self.blocks_of(index) if self.kept_mask[b]]


def grid(rows: list[list[Cell]], text: Callable[[Cell], str] = lambda cell: cell.text) -> list[list[str]]:
    """The table's rows as equal-length lists of cell texts (*text*: what
    a cell's text is written as): a cell spanning several columns or rows
    fills the others with ``""``."""
    out: list[list[str]] = []
    pending: dict[int, int] = {}  # column -> rows still covered by a rowspan above
    for cells in rows:
        line: list[str] = []
        queue = list(cells)
        column = 0
        while queue or any(col >= column for col in pending):
            if pending.get(column):
                pending[column] -= 1
                if not pending[column]:
                    del pending[column]
                line.append("")
                column += 1
                continue
            if not queue:
                break
            cell = queue.pop(0)
            for extra in range(cell.colspan):
                line.append(text(cell) if extra == 0 else "")
                if cell.rowspan > 1:
                    pending[column] = cell.rowspan - 1
                column += 1
        out.append(line)
    width = max((len(line) for line in out), default=0)
    return [line + [""] * (width - len(line)) for line in out]


# -- inline markup ---------------------------------------------------------------

#: Inline elements kept as markup, and what each becomes.
_LINK_TAGS = {"a": "a"}
_FORMATTING_TAGS = {
    "em": "em",
    "i": "em",
    "strong": "strong",
    "b": "strong",
    "code": "code",
    "kbd": "code",
    "samp": "code",
    "tt": "code",
}
#: Link and image targets that are not addresses to follow.
_NOT_TARGETS = ("javascript:", "vbscript:", "data:")
#: Characters browsers remove from an address before reading it.
_URL_DROPPED = re.compile(r"[\t\n\r]")
_WHITESPACE = re.compile(r"(\s+)")
#: Lazy-loading pages put the image's address here and a placeholder in ``src``.
_LAZY_SOURCES = ("data-src", "data-lazy-src", "data-original")


def base_url(doc: Document) -> str:
    """The address the page's relative links are read against: its first
    ``<base href>`` resolved against its URL, else its URL ("" if unknown)."""
    url = doc.url or ""
    root = doc.element(0)
    for base in root.iter("base"):
        href = _URL_DROPPED.sub("", base.get("href") or "").strip()
        if href:
            try:
                return urljoin(url, href)
            except ValueError:
                break
    return url


def resolve_url(base: str, value: str | None) -> str | None:
    """*value* (an ``href`` or ``src``) made absolute against *base*; ``None``
    for an empty, fragment-only, ``javascript:`` or ``data:`` target."""
    value = _URL_DROPPED.sub("", value or "").strip()
    if not value or value.startswith("#") or value.lower().startswith(_NOT_TARGETS):
        return None
    try:
        return urljoin(base, value) if base else value
    except ValueError:  # a malformed address (urllib's IPv6 check)
        return None


class _InlineReader:
    """The inline markup of a page's blocks (:class:`Span` trees), read from
    the element of each block's holder once for all its blocks."""

    def __init__(self, doc: Document, markup: Markup) -> None:
        self.doc = doc
        self.markup = markup
        reveal = bool(getattr(doc, "revealed", False))
        # The walk's rules (document.py): a revealing walk reads <noscript> as a container.
        self.reveal = reveal
        self.structural = STRUCTURAL_TAGS | {"noscript"} if reveal else STRUCTURAL_TAGS
        self.dropped = DROPPED_TAGS - {"noscript"} if reveal else DROPPED_TAGS
        self.kinds = {**(_LINK_TAGS if markup.links else {}), **(_FORMATTING_TAGS if markup.formatting else {})}
        self.base = base_url(doc) if markup.links or markup.images else ""
        self.parents = doc.container_columns.parents
        self.holders = doc.block_columns.holders
        self.texts = doc.block_columns.texts
        self._blocks: dict[int, Inline | None] = {}
        self._taken: set[etree._Element] = set()  # images a figure's paragraph already shows

    def inline(self, block: int) -> Inline:
        """*block*'s text with its markup, or as plain text when the markup
        read does not give the block's text exactly."""
        if block not in self._blocks:
            self._read(int(self.holders[block]))
        found = self._blocks.get(block)
        return found if found is not None else [self.texts[block]]

    def hidden(self, element: etree._Element) -> bool:
        if element.tag in self.dropped:
            return True
        if self.reveal:
            return False
        style = element.get("style")
        return element.get("hidden") is not None or (style is not None and HIDDEN_STYLE.search(style) is not None)

    def image(self, element: etree._Element) -> Span | None:
        src = element.get("src")
        if not src or src.strip().lower().startswith("data:"):
            src = next((element.get(name) for name in _LAZY_SOURCES if element.get(name)), None)
        url = resolve_url(self.base, src)
        if url is None:
            return None
        return Span("img", url, " ".join((element.get("alt") or "").split()))

    def figure_images(self, figure: etree._Element) -> list[Span]:
        """The visible images of a ``<figure>``."""
        images = []
        for element in figure.iter("img"):
            at = element
            while at is not None and at is not figure and not self.hidden(at):
                at = at.getparent()
            if at is figure:
                self._taken.add(element)
                image = self.image(element)
                if image is not None:
                    images.append(image)
        return images

    def _read(self, holder: int) -> None:
        doc = self.doc
        first = int(doc.container_columns.first_blocks[holder])
        last = int(doc.container_columns.last_blocks[holder])
        blocks = (np.flatnonzero(self.holders[first : last + 1] == holder) + first).tolist() if first >= 0 else []
        for block in blocks:
            self._blocks[block] = None
        element = doc.element(holder)
        segments = self._segments(element, self._wrappers(holder, element))
        if len(segments) != len(blocks):
            return
        for block, tokens in zip(blocks, segments):
            inline = _tidy(_inline_tree(tokens))
            # (an image between two spaces keeps both: the text has one)
            if " ".join(_plain(inline).split()) == self.texts[block]:
                self._blocks[block] = inline

    def _wrappers(self, holder: int, element: etree._Element) -> list[tuple[str, str | None]]:
        """The inline elements between *holder*'s element and its parent
        container's (a link around a ``<div>``), outermost first."""
        if not self.kinds or holder <= 0:
            return []
        parent = self.doc.element(int(self.parents[holder]))
        wrappers = []
        at = element.getparent()
        while at is not None and at is not parent:
            kind = self.kinds.get(at.tag) if isinstance(at.tag, str) else None
            if kind is not None:
                wrappers.append((kind, resolve_url(self.base, at.get("href")) if kind == "a" else None))
            at = at.getparent()
        return wrappers[::-1]

    def _segments(self, root: etree._Element, wrappers: list[tuple[str, str | None]]) -> list[list]:
        """The strings the walk cuts *root*'s own text into (those holding
        text), each as tokens: text, ``("o", id, kind, url)`` opening a
        span, ``("c", id)`` closing it, and image :class:`Span` objects."""
        segments: list[list] = []
        opened: list[tuple[etree._Element | None, tuple]] = [
            (None, ("o", -1 - n, kind, url)) for n, (kind, url) in enumerate(wrappers)
        ]
        tokens: list = [token for _, token in opened]
        has_text = False
        kinds, structural, images = self.kinds, self.structural, self.markup.images
        skipped = None
        ids = itertools.count()

        def cut() -> None:
            nonlocal tokens, has_text
            if has_text:
                tokens.extend(("c", token[1]) for _, token in reversed(opened))
                segments.append(tokens)
            tokens = [token for _, token in opened]
            has_text = False

        walker = etree.iterwalk(root, events=("start", "end", "comment", "pi"))
        for event, el in walker:
            if event == "start":
                if el is not root:
                    tag = el.tag
                    if tag in structural:
                        cut()
                    if self.hidden(el) or (tag in structural and tag not in BREAK_TAGS):
                        walker.skip_subtree()
                        skipped = el
                        continue
                    kind = kinds.get(tag)
                    if kind is not None and len(opened) < MAX_NESTING:  # deeper: its text, unmarked
                        url = resolve_url(self.base, el.get("href")) if kind == "a" else None
                        token = ("o", next(ids), kind, url)
                        opened.append((el, token))
                        tokens.append(token)
                    elif tag == "img" and images and el not in self._taken:
                        image = self.image(el)
                        if image is not None:
                            tokens.append(image)
                text = el.text
                if text:
                    tokens.append(text)
                    has_text = has_text or not text.isspace()
                continue
            if event == "end":
                if el is skipped:
                    skipped = None
                elif len(opened) > len(wrappers) and el is opened[-1][0]:
                    tokens.append(("c", opened.pop()[1][1]))
            tail = el.tail
            if tail and el is not root:
                tokens.append(tail)
                has_text = has_text or not tail.isspace()
        cut()
        return segments


def _inline_tree(tokens: list) -> Inline:
    """*tokens* (:meth:`_InlineReader._segments`) as a tree, whitespace
    collapsed as the walk collapses it and moved out of the spans (``*a*
    b``, not ``*a *b``); spans around no content are left out."""
    out: list = []
    pending: list[tuple] = []  # spans opened with no content yet
    space = started = False

    def content(item: str | Span) -> None:
        nonlocal space, started
        if space and started:
            out.append(" ")
        out.extend(pending)
        pending.clear()
        out.append(item)
        space, started = False, True

    for token in tokens:
        if isinstance(token, str):
            for n, piece in enumerate(_WHITESPACE.split(token)):
                if n % 2:
                    space = True
                elif piece:
                    content(piece)
        elif isinstance(token, Span):
            content(token)
        elif token[0] == "o":
            pending.append(token)
        else:
            at = next((n for n, opening in enumerate(pending) if opening[1] == token[1]), -1)
            if at >= 0:
                del pending[at]
            else:
                out.append(token)
    root: Inline = []
    stack = [root]
    for item in out:
        if isinstance(item, str):
            top = stack[-1]
            if top and isinstance(top[-1], str):
                top[-1] += item
            else:
                top.append(item)
        elif isinstance(item, Span):
            stack[-1].append(item)
        elif item[0] == "o":
            span = Span(item[2], item[3])
            stack[-1].append(span)
            stack.append(span.children)
        else:
            stack.pop()
    return root


def _plain(inline: Inline) -> str:
    return "".join(item if isinstance(item, str) else _plain(item.children) for item in inline)


def _tidy(inline: Inline, em: bool = False, strong: bool = False, link: bool = False) -> Inline:
    """Spans that say nothing unwrapped: links without a target or inside
    a link (libxml2 nests them), emphasis inside the same emphasis, markup
    inside code (a link that is all of a code span goes around it)."""
    out: Inline = []
    for item in inline:
        if isinstance(item, str) or item.kind == "img":
            out.append(item)
            continue
        kind = item.kind
        if kind == "code":
            only = item.children[0] if len(item.children) == 1 else None
            if isinstance(only, Span) and only.kind == "a" and only.url is not None and not link:
                code = Span("code")
                code.children = [_plain(only.children)]
                only.children = [code]
                out.append(only)
            else:
                item.children = [_plain(item.children)]
                out.append(item)
            continue
        children = _tidy(item.children, em or kind == "em", strong or kind == "strong", link or kind == "a")
        if (kind == "a" and (item.url is None or link)) or (kind == "em" and em) or (kind == "strong" and strong):
            out.extend(children)
        else:
            item.children = children
            out.append(item)
    return out


# -- Markdown --------------------------------------------------------------------

#: Characters escaped wherever they are; the backslash first. Replaced one
#: by one (``in`` and ``replace`` run at memory speed; most texts hold none).
_ESCAPED = "\\`*_[]<>~"
_ENTITY = re.compile(r"&(?=#?[0-9A-Za-z]+;)")
#: Characters that make a block of their own at the start of a line.
_LINE_START = frozenset("#>+=-|")
_ORDERED_START = re.compile(r"^(\d{1,9})([.)])")


def escape_markdown(text: str) -> str:
    """*text* with every character Markdown would read as syntax escaped
    (CommonMark lets any ASCII punctuation be backslash-escaped)."""
    for char in _ESCAPED:
        if char in text:
            text = text.replace(char, "\\" + char)
    if "&" in text:
        text = _ENTITY.sub(r"\\&", text)
    if text:
        first = text[0]
        if first in _LINE_START:
            text = "\\" + text
        elif first.isdigit():
            text = _ORDERED_START.sub(r"\1\\\2", text)
    return text


def _cell(text: str) -> str:
    return escape_markdown(text).replace("|", "\\|")


#: Characters of a Markdown link destination written as %-escapes
#: (``|``: the destination may be in a table row).
_URL_ESCAPES = str.maketrans({" ": "%20", "(": "%28", ")": "%29", "<": "%3C", ">": "%3E", "\\": "%5C", "|": "%7C"})


def _md_url(url: str) -> str:
    return url.translate(_URL_ESCAPES)


def _boundary(char: str) -> bool:
    """Whether emphasis may start after / end before *char*: CommonMark
    reads ``*`` as emphasis there whatever the emphasised text starts or ends
    with (the start or end of the text, a space, a punctuation mark). Not
    next to another ``*``: delimiter runs would merge (``**a****b**``)."""
    if not char or char.isspace():
        return True
    return char != "*" and (char in string.punctuation or unicodedata.category(char).startswith("P"))


def _lead(item: str | Span, escape: Callable[[str], str]) -> str:
    """The first character *item* is written with (a span: its mark)."""
    if isinstance(item, str):
        return escape(item)[:1]
    return {"a": "[", "img": "!", "code": "`"}.get(item.kind, "*")


def _md_inline(inline: Inline, escape: Callable[[str], str], before: str = "", after: str = "") -> str:
    """*inline* as Markdown, its text written by *escape*; *before* and
    *after*: the characters around it."""
    out: list[str] = []
    for n, item in enumerate(inline):
        if isinstance(item, str):
            out.append(escape(item))
            continue
        kind = item.kind
        if kind == "img":
            alt = escape(item.alt) if item.alt else ""
            out.append(f"![{alt}]({_md_url(item.url or '')})")
        elif kind == "a":
            inner = _md_inline(item.children, escape, "[", "]")
            out.append(f"[{inner}]({_md_url(item.url or '')})" if inner else inner)
        elif kind == "code":
            code = _plain(item.children)
            longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
            if longest > 1 or (escape is _cell and "|" in code):  # a fence, or a cell's pipe: as text
                out.append(escape(code))
            else:
                fence = "`" * (longest + 1)
                pad = " " if code.startswith(("`", " ")) or code.endswith(("`", " ")) else ""
                out.append(f"{fence}{pad}{code}{pad}{fence}")
        else:
            mark = "*" if kind == "em" else "**"
            inner = _md_inline(item.children, escape)  # a run opening both reads as nested: ***a***
            previous = "".join(out)[-1:] or before
            following = _lead(inline[n + 1], escape) if n + 1 < len(inline) else after
            if inner and _boundary(previous) and _boundary(following):
                out.append(f"{mark}{inner}{mark}")
            else:
                out.append(inner)
    return "".join(out)


def _text_md(text: str, inline: Inline | None, escape: Callable[[str], str] = escape_markdown) -> str:
    return escape(text) if inline is None else _md_inline(inline, escape)


def _fence(code: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    return "`" * max(3, longest + 1)


def _md_lines(node: Node) -> list[str]:
    kind = node.kind
    if kind == "p":
        return [_text_md(node.text, node.inline)]
    if kind == "h":
        return ["#" * node.level + " " + _text_md(node.text, node.inline)]
    if kind == "code":
        fence = _fence(node.text)
        return [fence, *node.text.split("\n"), fence]
    if kind == "table":
        table = grid(node.rows, lambda cell: _text_md(cell.text, cell.inline, _cell))
        if not table or not table[0]:
            return []
        lines = [escape_markdown(node.caption), ""] if node.caption else []
        header, *body = table
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "|".join(" --- " for _ in header) + "|")
        lines.extend("| " + " | ".join(row) + " |" for row in body)
        return lines
    if kind == "quote":
        return [("> " + line) if line else ">" for line in _md_join(node.children)]
    if kind == "list":
        lines = []
        for number, item in enumerate(node.children, 1):
            marker = f"{number}. " if node.ordered else "- "
            content = _md_join(item.children) or [""]
            lines.append((marker + content[0]).rstrip())
            pad = " " * len(marker)
            lines.extend(pad + line if line else "" for line in content[1:])
        return lines
    return _md_join(node.children)


def _md_join(nodes: list[Node]) -> list[str]:
    """Blocks one after the other, a blank line between them."""
    lines: list[str] = []
    previous = ""
    for node in nodes:
        rendered = _md_lines(node)
        if not rendered:
            continue
        # A list may follow a paragraph directly (a blank line
        # there would make the enclosing item a loose one).
        if lines and not (node.kind == "list" and previous == "p"):
            lines.append("")
        lines.extend(rendered)
        previous = node.kind
    return lines


def to_markdown(nodes: list[Node]) -> str:
    """CommonMark (with GFM pipe tables) of a :func:`content_tree`."""
    return "\n".join(_md_join(nodes))


# -- HTML ----------------------------------------------------------------------------


def _esc(text: str) -> str:
    return html_module.escape(text, quote=False)


def _html_inline(inline: Inline) -> str:
    out: list[str] = []
    for item in inline:
        if isinstance(item, str):
            out.append(_esc(item))
        elif item.kind == "img":
            out.append(f'<img src="{html_module.escape(item.url or "")}" alt="{html_module.escape(item.alt)}">')
        elif item.kind == "a":
            out.append(f'<a href="{html_module.escape(item.url or "")}">{_html_inline(item.children)}</a>')
        else:
            out.append(f"<{item.kind}>{_html_inline(item.children)}</{item.kind}>")
    return "".join(out)


def _text_html(text: str, inline: Inline | None) -> str:
    return _esc(text) if inline is None else _html_inline(inline)


def _html(node: Node, out: list[str]) -> None:
    kind = node.kind
    if kind == "p":
        out.append(f"<p>{_text_html(node.text, node.inline)}</p>")
    elif kind == "h":
        out.append(f"<h{node.level}>{_text_html(node.text, node.inline)}</h{node.level}>")
    elif kind == "code":
        out.append(f"<pre><code>{_esc(node.text)}</code></pre>")
    elif kind == "table":
        out.append("<table>")
        if node.caption:
            out.append(f"<caption>{_esc(node.caption)}</caption>")
        for row in node.rows:
            cells = []
            for cell in row:
                tag = "th" if cell.header else "td"
                spans = "".join(
                    f' {name}="{value}"'
                    for name, value in (("colspan", cell.colspan), ("rowspan", cell.rowspan))
                    if value > 1
                )
                cells.append(f"<{tag}{spans}>{_text_html(cell.text, cell.inline)}</{tag}>")
            out.append("<tr>" + "".join(cells) + "</tr>")
        out.append("</table>")
    elif kind == "quote":
        out.append("<blockquote>")
        for child in node.children:
            _html(child, out)
        out.append("</blockquote>")
    elif kind == "list":
        tag = "ol" if node.ordered else "ul"
        out.append(f"<{tag}>")
        for item in node.children:
            if len(item.children) == 1 and item.children[0].kind == "p":
                only = item.children[0]
                out.append(f"<li>{_text_html(only.text, only.inline)}</li>")
            else:
                inner: list[str] = []
                for child in item.children:
                    _html(child, inner)
                out.append("<li>" + "\n".join(inner) + "</li>")
        out.append(f"</{tag}>")
    else:
        for child in node.children:
            _html(child, out)


def to_html(nodes: list[Node]) -> str:
    """An HTML fragment of a :func:`content_tree`: block elements, no attributes
    but the tables' ``colspan``/``rowspan``; with inline markup asked for,
    ``a`` (``href``), ``em``, ``strong``, ``code`` and ``img`` (``src``, ``alt``) too."""
    out: list[str] = []
    for node in nodes:
        _html(node, out)
    return "\n".join(out)
