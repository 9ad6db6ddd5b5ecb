"""The document walk in Python: the reference definition of what
:class:`~webclean_scrapy.engine.document.Document` reads from a tree.

:func:`walk` has the signature and the output of the compiled walk
(``webclean_scrapy.engine.html._walk.walk``), which reads libxml2's nodes directly and
is what runs when it was built; this one walks through lxml's Python API
(``etree.iterwalk``), so it is the one to read, the fallback on machines
without a C compiler or for trees that are not lxml HTML documents, and the
reference the tests hold the compiled walk to, column by column.

The rules (which tags cut the text, which subtrees are dropped or hidden,
which attributes and punctuation marks are recorded) are passed in by the
caller, :mod:`webclean_scrapy.engine.document`, which defines them once for both
walks.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from lxml import etree

#: Tag kinds, as *kinds* gives them (the compiled walk's ``KIND_*``).
KIND_INLINE, KIND_STRUCTURAL, KIND_BREAK, KIND_DROPPED, KIND_DROPPED_STRUCTURAL, KIND_ANCHOR = range(6)
#: A mark entry's key is ``block * MAX_MARKS + mark`` (the compiled walk's).
MAX_MARKS = 32


def _words_and_chars(text: str) -> tuple[str, int]:
    """*text* with whitespace collapsed, and its non-whitespace characters."""
    words = text.split()
    joined = " ".join(words)
    return joined, len(joined) - len(words) + 1 if words else 0


def _columns(*columns: list[int]) -> tuple[bytes, ...]:
    return tuple(np.array(column, dtype=np.int64).tobytes() for column in columns)


def walk(
    root: etree._Element,
    kinds: dict[str, int],
    hidden_style: Callable[[str], object],
    descriptive: tuple[bytes, ...],
    marks: tuple[bytes, ...],
    elements: list[etree._Element] | None = None,
    reveal: bool = False,
    revealable: frozenset[str] = frozenset(),
) -> tuple:
    """Cut the text of *root* into blocks and record its containers, in one pass.

    Arguments and result as the compiled walk's (``webclean_scrapy.engine.html._walk.walk``):
    ``(texts, anchor_texts, block_columns, mark_columns, tags, attributes,
    container_columns, concealed)``, the numbers as one ``bytes`` of ``int64`` per
    column. *kinds* maps tags to ``KIND_*``; *hidden_style* says whether an
    inline ``style`` hides its element; *descriptive* names the attributes
    copied onto containers and *marks* the punctuation counted per block
    (both UTF-8 ``bytes``); *elements*, if a list, receives each
    container's element; *reveal* ignores the ``hidden`` attribute and
    hiding styles; *concealed* counts the subtrees skipped that a revealing
    walk would read (hidden by attribute or style, or of a dropped tag in
    *revealable*).

    Hot loop: local names only; whitespace-only strings (the newlines
    between tags, most of them) never make a block.
    """
    structural = frozenset(
        tag for tag, kind in kinds.items() if kind in (KIND_STRUCTURAL, KIND_BREAK, KIND_DROPPED_STRUCTURAL)
    )
    breaks = frozenset(tag for tag, kind in kinds.items() if kind == KIND_BREAK)
    dropped = frozenset(tag for tag, kind in kinds.items() if kind in (KIND_DROPPED, KIND_DROPPED_STRUCTURAL))
    anchor_tags = frozenset(tag for tag, kind in kinds.items() if kind == KIND_ANCHOR)
    names = frozenset(name.decode() for name in descriptive)
    mark_texts = tuple(enumerate(mark.decode() for mark in marks))
    no_attributes: dict[str, str] = {}  # shared by the page's containers without any

    pieces: list[str] = []
    has_text = False  # does ``pieces`` hold more than whitespace?
    anchor_pieces: list[str] = []
    anchors: list[etree._Element] = []  # open <a> elements
    position = 0
    # The block table, column by column (the compiled walk's B_* order)...
    texts: list[str] = []
    anchor_texts: list[str] = []
    positions: list[int] = []
    holders: list[int] = []
    block_chars: list[int] = []
    block_anchor_chars: list[int] = []
    mark_keys: list[int] = []
    mark_counts: list[int] = []
    # ... and the container table (C_* order).
    tags: list[str] = [root.tag if isinstance(root.tag, str) else "html"]
    attributes_of: list[dict[str, str]] = [
        {name: value for name, value in root.items() if name in names} or no_attributes
    ]
    opened: list[etree._Element] = [root]
    containers: tuple[list[int], ...] = ([-1], [0], [-1], [0], [0])
    parents, firsts, lasts, chars_of, anchor_chars_of = containers
    current = 0
    skipped = None
    concealed = 0

    def cut() -> None:
        """End the current string: a block if it holds text, else nothing."""
        nonlocal has_text
        if has_text:
            text, chars = _words_and_chars("".join(pieces))
            anchor, anchor_chars = _words_and_chars("".join(anchor_pieces)) if anchor_pieces else ("", 0)
            block = len(texts)
            texts.append(text)
            anchor_texts.append(anchor)
            positions.append(position)
            holders.append(current)
            block_chars.append(chars)
            block_anchor_chars.append(anchor_chars)
            for k, mark in mark_texts:
                count = text.count(mark)
                if count:
                    mark_keys.append(block * MAX_MARKS + k)
                    mark_counts.append(count)
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
            if tag in dropped or (
                not reveal and (el.get("hidden") is not None or (style is not None and hidden_style(style)))
            ):
                walker.skip_subtree()
                skipped = el
                if tag not in dropped or tag in revealable:
                    concealed += 1
                continue
            if opens:
                attributes = el.items()  # one call; most elements have none
                tags.append(tag)
                found = {name: value for name, value in attributes if name in names} if attributes else None
                attributes_of.append(found or no_attributes)
                opened.append(el)
                parents.append(current)
                firsts.append(len(texts))
                lasts.append(-1)
                chars_of.append(0)
                anchor_chars_of.append(0)
                current = len(tags) - 1
            elif tag in anchor_tags:
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
            elif el is opened[current]:
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
    if elements is not None:
        elements.extend(opened)
    return (
        texts,
        anchor_texts,
        _columns(positions, holders, block_chars, block_anchor_chars),
        _columns(mark_keys, mark_counts),
        tags,
        attributes_of,
        _columns(*containers),
        concealed,
    )


def count_in_ranges(texts: list[str], ranges: list[tuple[int, int]]) -> list[int]:
    """How many characters of each of *texts* fall in the code point *ranges*
    (``(first, last)`` pairs, ascending): the reference of the compiled
    ``webclean_scrapy.engine.html._walk.count_in_ranges``."""
    return [
        0 if text.isascii() else sum(any(first <= ord(c) <= last for first, last in ranges) for c in text)
        for text in texts
    ]
