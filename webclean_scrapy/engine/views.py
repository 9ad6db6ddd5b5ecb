"""Linked object views of a page's tables: :class:`Block` and :class:`Container`.

The walk produces columns (:class:`~webclean_scrapy.engine.columns.BlockColumns`,
:class:`~webclean_scrapy.engine.columns.ContainerColumns`), and every built-in
method reads those. These objects are for code that is easier to write
as a walk over a tree of objects -- a custom extractor, a notebook, a
test -- and are built only when asked for (:attr:`Document.blocks
<webclean_scrapy.engine.document.Document.blocks>`, :attr:`Document.containers
<webclean_scrapy.engine.document.Document.containers>`), by :func:`build_views`.
Parents and children point at each other:
:meth:`Document.release <webclean_scrapy.engine.document.Document.release>` breaks
those cycles when the page is done.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from lxml import etree

if TYPE_CHECKING:
    from webclean_scrapy.engine.columns import BlockColumns, ContainerColumns


class Container:
    """One structural element, with the totals of its subtree: a view of
    one entry of :class:`~webclean_scrapy.engine.columns.ContainerColumns`,
    linked to its neighbours.

    ``chars`` and ``anchor_chars`` count non-whitespace characters of all
    blocks below; ``direct_blocks`` are the blocks whose nearest structural
    ancestor is this element; ``attributes`` holds what the markup says the
    element is (class, id, role, itemprop), copied during the walk.
    """

    __slots__ = (
        "index",
        "_elements",
        "tag",
        "attributes",
        "parent",
        "depth",
        "children",
        "direct_blocks",
        "chars",
        "anchor_chars",
        "block_count",
        "first_block",
        "last_block",
    )

    def __init__(
        self,
        index: int,
        elements: Callable[[], list[etree._Element]],
        tag: str,
        attributes: dict[str, str],
        parent: Container | None,
        first_block: int,
        last_block: int,
        chars: int,
        anchor_chars: int,
    ) -> None:
        #: Position in :attr:`Document.containers` (document order), so
        #: per-container data can live in lists instead of dicts.
        self.index = index
        self._elements = elements
        self.tag = tag
        #: The element's descriptive attributes that are present.
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
        """The lxml element (found on first use, by walking the tree again)."""
        return self._elements()[self.index]

    def __repr__(self) -> str:
        return f"<Container {self.tag} depth={self.depth} chars={self.chars} blocks={self.block_count}>"


class Block:
    """A non-empty string between two structural tags, whitespace collapsed:
    a view of one entry of :class:`~webclean_scrapy.engine.columns.BlockColumns`.

    ``position`` is the block's index in the string list of Arias et al.:
    the number of structural tags *opened* before it. Every structural tag
    starts a new string and text after a closing tag goes to the last string,
    so several blocks (``<p>b</p>c``: "b" and "c") can share a position, and
    positions without text are the paper's empty strings. ``chars`` and
    ``anchor_chars`` count non-whitespace characters; ``anchor_text`` is the
    text inside ``<a>`` elements (``""`` when none).
    """

    __slots__ = ("index", "position", "text", "container", "chars", "anchor_chars", "anchor_text")

    def __init__(
        self,
        index: int,
        position: int,
        text: str,
        container: Container,
        chars: int,
        anchor_text: str,
        anchor_chars: int,
    ) -> None:
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


def build_views(
    blocks: BlockColumns, containers: ContainerColumns, elements: Callable[[], list[etree._Element]]
) -> tuple[list[Block], list[Container]]:
    """The linked objects of both tables, in document order. *elements*
    gives the containers' lxml elements, in container order, when one is
    first asked for (:attr:`Container.element`)."""
    made: list[Container] = []
    for index, (tag, attributes, parent, first, last, chars, anchor_chars) in enumerate(
        zip(
            containers.tags,
            containers.attributes,
            containers.parents.tolist(),
            containers.first_blocks.tolist(),
            containers.last_blocks.tolist(),
            containers.chars.tolist(),
            containers.anchor_chars.tolist(),
        )
    ):
        above = made[parent] if parent >= 0 else None
        container = Container(index, elements, tag, attributes, above, first, last, chars, anchor_chars)
        if above is not None:
            above.children.append(container)
        made.append(container)
    views: list[Block] = []
    for index, (text, anchor_text, position, holder, chars, anchor_chars) in enumerate(
        zip(
            blocks.texts,
            blocks.anchor_texts,
            blocks.positions.tolist(),
            blocks.holders.tolist(),
            blocks.chars.tolist(),
            blocks.anchor_chars.tolist(),
        )
    ):
        container = made[holder]
        block = Block(index, position, text, container, chars, anchor_text, anchor_chars)
        container.direct_blocks.append(block)
        views.append(block)
    return views, made
