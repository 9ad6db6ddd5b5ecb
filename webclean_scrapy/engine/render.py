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
Links and emphasis are not rendered: blocks do not record inline markup.

A table is a *data* table, rendered as a table, when it has two columns
or more, holds no nested table, list, heading, code or quote, no cell
longer than :data:`MAX_CELL_CHARS` and no text outside its cells; otherwise it is taken for layout and
its cells' blocks are rendered as the flow they are.
"""

from __future__ import annotations

import html as html_module
import logging
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np
from lxml import etree

from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.formats import check_formats
from webclean_scrapy.engine.html.tags import DROPPED_TAGS, HEADING_TAGS
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


def extract_formats(extractor: Extractor, doc: Document, formats: Iterable[str] = ()) -> Extraction:
    """Run *extractor* on *doc*, and fill the extraction's ``markdown`` and
    ``html`` for those of *formats* asked for (``"text"`` is always filled)."""
    wanted = check_formats(formats)
    if not wanted:
        return extractor.extract(doc)
    trace = Trace() if extractor.traceable else None
    extraction = extractor.extract(doc, trace=trace)
    add_formats(extraction, doc, wanted, trace)
    return extraction


def add_formats(extraction: Extraction, doc: Document, formats: Iterable[str], trace: Trace | None = None) -> None:
    """Fill *extraction*'s ``markdown``/``html`` for *formats*, from the
    blocks of *doc* it kept (*trace*: the extractor's record, if any)."""
    wanted = check_formats(formats)
    if not wanted:
        return
    try:
        nodes = content_tree(doc, kept_blocks(doc, extraction.text, trace), extraction.text)
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


class Node:
    """One piece of the content: ``kind`` is ``p``, ``h`` (``level``),
    ``list`` (``ordered``), ``li``, ``quote``, ``code`` or ``table``
    (``rows`` of :class:`Cell`, ``caption``)."""

    __slots__ = ("kind", "text", "children", "level", "ordered", "rows", "caption")

    def __init__(self, kind: str, text: str = "", level: int = 0, ordered: bool = False) -> None:
        self.kind = kind
        self.text = text
        self.children: list[Node] = []
        self.level = level
        self.ordered = ordered
        self.rows: list[list[Cell]] = []
        self.caption = ""

    def __repr__(self) -> str:
        return f"<Node {self.kind} {self.text[:30]!r} children={len(self.children)}>"


class Cell:
    """A table cell: its kept text, whether it is a header cell, its spans."""

    __slots__ = ("text", "header", "colspan", "rowspan")

    def __init__(self, text: str, header: bool, colspan: int = 1, rowspan: int = 1) -> None:
        self.text = text
        self.header = header
        self.colspan = colspan
        self.rowspan = rowspan


def content_tree(doc: Document, kept: Sequence[int] | None, text: str = "") -> list[Node]:
    """The kept blocks as a list of top-level :class:`Node` objects.

    *kept* ``None`` (the text is not made of blocks): *text*'s lines as paragraphs.
    """
    if kept is None:
        return [Node("p", line) for line in text.split("\n") if line]
    return _TreeBuilder(doc, kept).build()


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

    def __init__(self, doc: Document, kept: Sequence[int]) -> None:
        self.doc = doc
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
                    continue
                node = Node("h", texts[block], level=int(self.tags[leaf][1]))
                last_heading = (leaf, node)
                nodes = [node]
            else:
                nodes = [Node("p", texts[block])]
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
                            self.kept_text(i), tag == "th", _span(element.get("colspan")), _span(element.get("rowspan"))
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
        texts = self.doc.block_columns.texts
        return [Node("p", texts[b]) for b in self.blocks_of(index) if self.kept_mask[b]]


def grid(rows: list[list[Cell]]) -> list[list[str]]:
    """The table's rows as equal-length lists of cell texts: a cell spanning
    several columns or rows fills the others with ``""``."""
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
                line.append(cell.text if extra == 0 else "")
                if cell.rowspan > 1:
                    pending[column] = cell.rowspan - 1
                column += 1
        out.append(line)
    width = max((len(line) for line in out), default=0)
    return [line + [""] * (width - len(line)) for line in out]


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


def _fence(code: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    return "`" * max(3, longest + 1)


def _md_lines(node: Node) -> list[str]:
    kind = node.kind
    if kind == "p":
        return [escape_markdown(node.text)]
    if kind == "h":
        return ["#" * node.level + " " + escape_markdown(node.text)]
    if kind == "code":
        fence = _fence(node.text)
        return [fence, *node.text.split("\n"), fence]
    if kind == "table":
        table = grid(node.rows)
        if not table or not table[0]:
            return []
        lines = [escape_markdown(node.caption), ""] if node.caption else []
        header, *body = table
        lines.append("| " + " | ".join(map(_cell, header)) + " |")
        lines.append("|" + "|".join(" --- " for _ in header) + "|")
        lines.extend("| " + " | ".join(map(_cell, row)) + " |" for row in body)
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


def _html(node: Node, out: list[str]) -> None:
    kind = node.kind
    if kind == "p":
        out.append(f"<p>{_esc(node.text)}</p>")
    elif kind == "h":
        out.append(f"<h{node.level}>{_esc(node.text)}</h{node.level}>")
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
                cells.append(f"<{tag}{spans}>{_esc(cell.text)}</{tag}>")
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
                out.append(f"<li>{_esc(item.children[0].text)}</li>")
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
    """An HTML fragment of a :func:`content_tree`: block elements only, no attributes
    but the tables' ``colspan``/``rowspan``."""
    out: list[str] = []
    for node in nodes:
        _html(node, out)
    return "\n".join(out)
