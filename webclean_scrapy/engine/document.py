"""The document model every extractor shares: parse once, clean once, walk once.

A page becomes a :class:`Document` in three steps, each done exactly once:

1. **Parse** with lxml's HTML parser, recovering what libxml2 would drop
   (:mod:`webclean_scrapy.engine.html.parsing`), or reuse a root Scrapy/parsel already
   parsed, untouched: the walk below never mutates the tree.
2. **Clean** while walking: ``script``, ``style``, ``noscript``, ``template``
   and other non-rendered subtrees, comments, processing instructions and
   hidden elements (``hidden`` attribute, inline ``display:none`` or
   ``visibility:hidden``) are skipped, their tail text kept.
3. **Walk** the tree once, iteratively (so 10,000-deep nesting cannot raise
   ``RecursionError``), cutting the text into blocks at *structural tags*
   -- the string list of Arias, Deschacht & Moens -- and recording one
   container per structural element, with its parent, block range and
   subtree character and anchor counts, which DOM-based methods (Posch's
   DIV scoring, the flagship) read without touching lxml again. The walk
   is compiled (:mod:`webclean_scrapy.engine.html._walk`, reading libxml2's nodes
   directly); :func:`webclean_scrapy.engine.html.walk.walk` is the same walk in Python,
   the reference and the fallback. This module defines the rules both
   follow.

The walk fills two tables, :class:`~webclean_scrapy.engine.columns.BlockColumns` and
:class:`~webclean_scrapy.engine.columns.ContainerColumns` (strings in lists, numbers in numpy arrays):
every built-in method reads them with whole-column operations. Linked
:class:`~webclean_scrapy.engine.views.Block` and
:class:`~webclean_scrapy.engine.views.Container` objects are built from them only
when asked for (:attr:`Document.blocks`, :attr:`Document.containers`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import cached_property, lru_cache

from lxml import etree

from webclean_scrapy.engine.columns import (
    BlockColumns,
    ContainerColumns,
    int64_column,
    text_length,
    weigh_cjk_characters,
)
from webclean_scrapy.engine.html.compiled import compiled_walk as _compiled_walk
from webclean_scrapy.engine.html.compiled import reads_natively
from webclean_scrapy.engine.html.elements import TREE_READS, SurveyResult, tagged_elements
from webclean_scrapy.engine.html.elements import survey as _survey
from webclean_scrapy.engine.html.head import canonical_link, declared_language, meta_title, title_text
from webclean_scrapy.engine.html.parsing import parse_page, parser_bytes, recover_tree
from webclean_scrapy.engine.html.pruning import prune
from webclean_scrapy.engine.html.screen import TRUNCATING_SCREENS, screen_markup
from webclean_scrapy.engine.html.tags import (
    BREAK_TAGS,
    DESCRIPTIVE_ATTRIBUTES,
    DROPPED_TAGS,
    HEADING_TAGS,
    HIDDEN_STYLE,
    STRUCTURAL_TAGS,
)
from webclean_scrapy.engine.html.walk import walk as python_walk
from webclean_scrapy.engine.memo import PageMemo
from webclean_scrapy.engine.memory import trim_heap as _trim_heap
from webclean_scrapy.engine.text.encoding import decode_html, double_encoded, undo_double_encoding
from webclean_scrapy.engine.text.marks import PUNCTUATION_MARKS
from webclean_scrapy.engine.views import Block, Container, build_views
from webclean_scrapy.errors import ExtractionError

__all__ = [
    "BREAK_TAGS",
    "COMPILED_WALK",
    "DESCRIPTIVE_ATTRIBUTES",
    "DROPPED_TAGS",
    "HEADING_TAGS",
    "PROSE_BELOW",
    "PROSE_MIN_CHARS",
    "PRUNE_TREE_ABOVE",
    "PUNCTUATION_MARKS",
    "RELEASE_TREE_ABOVE",
    "REVEAL_BELOW",
    "STRUCTURAL_TAGS",
    "TRIM_HEAP_ABOVE",
    "Block",
    "BlockColumns",
    "Container",
    "ContainerColumns",
    "Document",
    "built_page",
    "prose_chars",
    "survey",
    "text_length",
    "weigh_cjk_characters",
]


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
#: The tags the visible walk drops and the revealing walk reads.
_REVEALABLE: frozenset[str] = frozenset(tag for tag, kind in _REVEAL_KINDS.items() if kind != _WALK_KINDS.get(tag))
#: A page whose visible text is shorter than this is walked again, revealing.
REVEAL_BELOW = 500
#: ... and so is a page whose visible *prose* (blocks of at least
#: :data:`PROSE_MIN_CHARS` characters, under 30% links) is shorter than this.
PROSE_BELOW = 1200
PROSE_MIN_CHARS = 80


def prose_chars(blocks: BlockColumns) -> int:
    """The length of *blocks* that read as prose: blocks of at least
    :data:`PROSE_MIN_CHARS` characters, under 30% of them in links (their
    :attr:`~BlockColumns.lengths`: a CJK character counts for two)."""
    lengths = blocks.lengths
    prose = (lengths >= PROSE_MIN_CHARS) & (blocks.anchor_lengths * 10 < lengths * 3)
    return int(lengths[prose].sum())


#: Pages with more characters of source than this drop their lxml tree
#: before the extraction method runs (:meth:`Document.release_tree`): the
#: tree is the largest thing a page holds, and on smaller pages parsing it
#: again, should anything ask for it after, would cost more than it frees.
RELEASE_TREE_ABOVE = 1_000_000
#: ... and those of them with more containers than this have it pruned
#: (:meth:`Document.prune_tree`) before their metadata and page type are
#: read, so what those readers compute never sits beside a tree that large.
#: Real pages stay far below it, where pruning would cost time and save nothing.
PRUNE_TREE_ABOVE = 100_000
#: A page whose source has more characters than this also hands the memory
#: of its dropped tree back to the system (:func:`~webclean_scrapy.engine.memory.trim_heap`)
#: in :meth:`Document.release_tree`. Below it the freed tree stays in the C heap for the next
#: pages to reuse: a trim costs them the page faults of taking it back, for no lower peak
#: (docs/BENCHMARKS.md, "Hostile pages").
TRIM_HEAP_ABOVE = 4_000_000

_DESCRIPTIVE_BYTES: tuple[bytes, ...] = tuple(name.encode() for name in DESCRIPTIVE_ATTRIBUTES)
_MARK_BYTES: tuple[bytes, ...] = tuple(mark.encode() for mark in PUNCTUATION_MARKS)

#: Whether :class:`Document` uses the compiled walk (and the element survey its
#: compiled pass); ``False`` when the extension is not built. Setting it to
#: ``False`` forces the Python walk.
COMPILED_WALK: bool = _compiled_walk is not None


def _walk_function(root: etree._Element) -> Callable[..., tuple]:
    """The walk to run on *root*: the compiled one when it was built and
    *root* is an lxml HTML tree (and :data:`COMPILED_WALK` is on), else
    the Python reference (:func:`webclean_scrapy.engine.html.walk.walk`)."""
    if reads_natively(root, COMPILED_WALK):
        return _compiled_walk.walk
    return python_walk


def survey(
    root: etree._Element,
    tags: tuple[str, ...],
    values: tuple[str, ...] = (),
    holders: tuple[str, ...] = (),
    tag_values: tuple[tuple[str, str], ...] = (),
) -> SurveyResult:
    """:func:`~webclean_scrapy.engine.html.elements.survey` by the pass :data:`COMPILED_WALK`
    chooses, as a document's own survey (:func:`~webclean_scrapy.engine.html.elements.tagged_elements`) runs it."""
    return _survey(root, tags, values, holders, tag_values, compiled=COMPILED_WALK)


@lru_cache(maxsize=4)
def _encoded(names: tuple[str, ...]) -> tuple[bytes, ...]:
    return tuple(name.encode() for name in names)


class _Tree:
    """A page's lxml tree, which :meth:`Document.release_tree` may drop and
    :meth:`get` then parses again from the source it was parsed from, and
    :meth:`Document.prune_tree` may cut down (:meth:`whole` then parses it
    again)."""

    __slots__ = ("root", "source", "pruned")

    def __init__(self, root: etree._Element, source: str | None) -> None:
        self.root: etree._Element | None = root
        #: The markup the tree was parsed from by :meth:`Document.from_html`
        #: (``None``: a tree parsed elsewhere, never dropped).
        self.source = source
        #: Whether :meth:`Document.prune_tree` cut parts of ``root`` away.
        self.pruned = False

    def get(self) -> etree._Element:
        if self.root is None:
            self.root = parse_page(self.source or "")[0]
            self.pruned = False
        return self.root

    def whole(self) -> etree._Element:
        """The tree, parsed again if it was pruned."""
        if self.pruned:
            self.root = None
        return self.get()


class _ElementFinder:
    """Each container's lxml element, found the first time one is asked for.

    The compiled walk makes no element proxies (they cost more than the rest
    of a container); they are found by walking again, asking for them. The
    tree must not have been modified since the page was walked: a different
    sequence of container tags is refused. Shared by a page's containers,
    and holding no reference to them or to the document, so no cycle.
    """

    __slots__ = ("tree", "tags", "elements", "reveal")

    def __init__(self, tree: _Tree, tags: list[str], reveal: bool = False) -> None:
        self.tree = tree
        self.tags = tags
        self.elements: list[etree._Element] | None = None
        self.reveal = reveal

    def __call__(self) -> list[etree._Element]:
        if self.elements is None:
            assert _compiled_walk is not None  # made by the compiled walk only
            elements: list[etree._Element] = []
            root = self.tree.whole()
            _walk_function(root)(
                root,
                _REVEAL_KINDS if self.reveal else _WALK_KINDS,
                HIDDEN_STYLE.search,
                _DESCRIPTIVE_BYTES,
                _MARK_BYTES,
                elements,
                self.reveal,
            )
            if [element.tag for element in elements[1:]] != self.tags[1:]:
                raise RuntimeError("the tree was modified after the page was walked")
            self.elements = elements
        return self.elements


class Document:
    """A parsed page: its blocks and containers, as columns (what the
    walk makes, what fast methods read) and as linked objects (built on
    first use of :attr:`blocks` or :attr:`containers`)."""

    #: Reasons the markup was neutralised before parsing
    #: (:func:`~webclean_scrapy.engine.html.screen.screen_markup`); set by :meth:`from_html`.
    screened: tuple[str, ...] = ()

    def __init__(
        self,
        root: etree._Element,
        *,
        url: str | None = None,
        source: str | None = None,
        encoding: str | None = None,
        truncated: bool | None = None,
        owns_tree: bool = False,
    ) -> None:
        if truncated is None:  # a tree parsed elsewhere (Scrapy's selector): checked here
            root, truncated = recover_tree(root, source)
        #: Whether the tree holds only part of the page: libxml2 stopped at
        #: its nesting limit and the markup could not be repaired (see
        #: :func:`~webclean_scrapy.engine.html.parsing.recover_tree`). The text is then not the whole page's.
        self.truncated = truncated
        #: *owns_tree*: the tree was parsed from *source* for this document
        #: alone (:meth:`from_html`), so it may be cut down (:meth:`prune_tree`,
        #: the walk), dropped (:meth:`release_tree`) and parsed again.
        self._tree = _Tree(root, source if owns_tree and source is not None else None)
        self.url = url
        self.encoding = encoding
        self._source = source
        self._views: tuple[list[Block], list[Container]] | None = None
        #: What the page's readers computed once for the others (page type, metadata, element survey).
        self.memo = PageMemo()
        self._elements: _ElementFinder
        self.block_columns: BlockColumns
        self.container_columns: ContainerColumns
        self._walk()

    # -- construction -------------------------------------------------
    @classmethod
    def from_html(cls, html: bytes | str, *, url: str | None = None, encoding: str | None = None) -> Document:
        """Decode (for bytes), parse and walk a page.

        *encoding* is a charset name or a whole ``Content-Type`` header value,
        as received over HTTP; it wins over ``<meta>`` but not over a BOM.
        Text read as UTF-8 (and a ``str``) that holds UTF-8 decoded twice
        before it was published (``CafÃ©``) is read back first
        (:func:`~webclean_scrapy.engine.text.encoding.undo_double_encoding`).
        """
        if isinstance(html, (bytes, bytearray, memoryview)):
            content_type = None
            if encoding:
                content_type = encoding if "=" in encoding or "/" in encoding else f"text/html; charset={encoding}"
            data = bytes(html)
            encoding, text = decode_html(data, content_type, url)
            # Valid UTF-8 (most of the web) goes to libxml2 as the original
            # bytes: no re-encoding copy. Anything else is parsed from the
            # decoded text (re-encoded as UTF-8), so the charset decision stays ours.
            body: bytes | None = None if encoding != "utf-8" or "\ufffd" in text or b"\x00" in data else data
            repairable = encoding == "utf-8"
        elif isinstance(html, str):
            text = html
            encoding = encoding or "unicode"
            body = None
            repairable = True
        else:
            raise ExtractionError(f"a page is bytes or str, got {type(html).__name__}")
        if body is None:
            body = parser_bytes(text)
        # UTF-8 decoded twice before it was published (encoding.py) is read back.
        if repairable and double_encoded(body):
            repaired = undo_double_encoding(text)
            if repaired is not text:
                text = repaired
                body = parser_bytes(text)
        # Pathological markup is neutralised before libxml2 sees it (screen.py).
        body, screened = screen_markup(body)
        if screened:
            text = body.decode("utf-8", "replace")
        root, truncated = parse_page(text, body)
        truncated = truncated or not TRUNCATING_SCREENS.isdisjoint(screened)
        doc = cls(root, url=url, source=text, encoding=encoding, truncated=truncated, owns_tree=True)
        doc.screened = screened
        return doc

    # -- the walk -----------------------------------------------------
    def _walk(self) -> None:
        """Cut the text into blocks and build the container table, in one pass.

        The compiled walk (:mod:`webclean_scrapy.engine.html._walk`) does it when it was
        built and the tree is an lxml HTML document; otherwise, or when
        :data:`COMPILED_WALK` is switched off, the Python reference
        (:func:`webclean_scrapy.engine.html.walk.walk`) does. Both produce the same
        columns (tested page by page).

        A page whose visible text is shorter than :data:`REVEAL_BELOW`
        characters (its length: a CJK character counts for two,
        :attr:`BlockColumns.lengths`), or whose visible prose
        (:func:`prose_chars`) is shorter than :data:`PROSE_BELOW`, is
        walked a second time, *revealing*:
        ``<noscript>`` content counts (Discourse forums serve their posts
        to crawlers there) and the ``hidden`` attribute and hiding inline
        styles are ignored (React's streamed HTML parks the page in
        ``<div hidden>`` until a script moves it; shops and CMSs hide a
        page's text in tabs and accordions a script opens). The revealing
        walk is kept (:attr:`revealed`) when it finds more than twice the
        text of a nearly empty page, or more than twice the prose (plus
        500 characters) of a page whose visible part is mostly chrome.
        When the first walk skipped nothing the revealing walk would read
        (no ``<noscript>``, nothing hidden: most pages), the second walk
        would give the same tables and is not made.
        """
        self.revealed = False
        concealed = self._walk_once(False)
        visible = int(self.container_columns.lengths[0]) if len(self.container_columns) else 0
        visible_prose = prose_chars(self.block_columns) if visible >= REVEAL_BELOW else 0
        if concealed and (visible < REVEAL_BELOW or visible_prose < PROSE_BELOW):
            kept = self.block_columns, self.container_columns, self._elements
            self._walk_once(True)
            revealed = int(self.container_columns.lengths[0]) if len(self.container_columns) else 0
            if (visible < REVEAL_BELOW and revealed > 2 * visible + 100) or (
                prose_chars(self.block_columns) > 2 * visible_prose + 500
            ):
                self.revealed = True
            else:
                self.block_columns, self.container_columns, self._elements = kept

    def _walk_once(self, reveal: bool) -> int:
        """Walk the tree (revealing or not) into the columns; return how
        many subtrees it skipped that a revealing walk would read.

        The first walk of a large page whose tree is ours (as
        :meth:`prune_tree` would cut it) frees, as it goes, what the
        readers after it will not look at
        (:data:`~webclean_scrapy.engine.html.elements.TREE_READS`): the
        walk's tables then grow as the tree shrinks instead of beside the
        whole of it. The tree is then pruned; a revealing walk after, which
        must read the whole page, parses it again."""
        tree = self._tree
        root = tree.whole() if reveal else tree.get()
        walk = _walk_function(root)
        release: tuple[tuple[int, tuple[bytes, ...], tuple[bytes, ...], Callable[[], None]], ...] = ()
        if (
            not reveal
            and walk is not python_walk
            and tree.source is not None
            and len(tree.source) > RELEASE_TREE_ABOVE
            and not tree.pruned
        ):
            tags, names = TREE_READS
            release = ((PRUNE_TREE_ABOVE, _encoded(tags), _encoded(names), _trim_heap),)
        texts, anchor_texts, block_numbers, mark_numbers, tags, attributes, container_numbers, concealed, *freed = walk(
            root,
            _REVEAL_KINDS if reveal else _WALK_KINDS,
            HIDDEN_STYLE.search,
            _DESCRIPTIVE_BYTES,
            _MARK_BYTES,
            None,
            reveal,
            _REVEALABLE,
            *release,
        )
        if freed and freed[0]:
            tree.pruned = True
        self.block_columns = BlockColumns(
            texts, anchor_texts, *map(int64_column, block_numbers), *map(int64_column, mark_numbers)
        )
        self.container_columns = ContainerColumns(tags, attributes, *map(int64_column, container_numbers))
        weigh_cjk_characters(self.block_columns, self.container_columns)
        self._elements = _ElementFinder(self._tree, tags, reveal=reveal)
        return int(concealed)

    # -- the object views ---------------------------------------------
    @property
    def blocks(self) -> list[Block]:
        """The blocks as :class:`~webclean_scrapy.engine.views.Block` objects, in
        document order (built on first use: :func:`~webclean_scrapy.engine.views.build_views`)."""
        return (self._views or self._build_views())[0]

    @property
    def containers(self) -> list[Container]:
        """The containers as a tree of :class:`~webclean_scrapy.engine.views.Container`
        objects, in document order (built on first use)."""
        return (self._views or self._build_views())[1]

    def _build_views(self) -> tuple[list[Block], list[Container]]:
        self._views = build_views(self.block_columns, self.container_columns, self._elements)
        return self._views

    def element(self, container: int) -> etree._Element:
        """The lxml element of container *container* (an index into
        :attr:`container_columns`), without building the object views."""
        return self._elements()[container]

    # -- the tree -----------------------------------------------------
    @property
    def root(self) -> etree._Element:
        """The page's lxml tree (parsed again if :meth:`release_tree` dropped
        it; while :meth:`prune_tree` or the walk has it cut down, the pruned tree)."""
        return self._tree.get()

    def prune_tree(self, tags: Iterable[str], attributes: Iterable[str], larger_than: int = 0) -> bool:
        """Free the parts of this document's tree that hold no element of
        *tags* and no element with one of *attributes*: what is kept is
        each such element with its whole subtree, and its ancestors (their
        attributes, not all their text). On a large page the tree is the
        largest thing held, and what is read from it after the walk (the
        metadata, the page type's element signals, the title and language)
        is in a few such elements: freed first, the tree no longer sits
        beside the walk's columns and what those readers compute.

        Until :meth:`release_tree`, :attr:`root` is the pruned tree, so the
        readers must look for nothing else; the elements of the object
        views, and :attr:`root` once the tree is released, come from the
        whole page parsed again. Only a tree :meth:`from_html` parsed is
        pruned, only if its source has more than *larger_than* characters;
        returns whether it was (not when its walk already pruned it, see
        :data:`PRUNE_TREE_ABOVE`: the same cut, made while walking).
        """
        tree = self._tree
        if tree.source is None or len(tree.source) <= larger_than or tree.root is None or tree.pruned:
            return False
        self._forget_elements()
        prune(tree.root, tuple(tags), tuple(attributes))
        tree.pruned = True
        _trim_heap()
        return True

    def release_tree(self, larger_than: int = 0) -> bool:
        """Drop this document's references to its lxml tree, so libxml2 frees
        it (about 15 times the page's size on a page of tiny paragraphs),
        when nothing needs it any more: the columns hold everything the
        built-in methods read. :attr:`root` (and the elements of the object
        views) parse the same source again if asked for after. Only a tree
        :meth:`from_html` parsed is dropped (a tree parsed elsewhere is its
        owner's to keep), and only if its source has more than *larger_than*
        characters; returns whether it was. What was read from the tree
        (metadata, page type, title, language) stays cached. Above
        :data:`TRIM_HEAP_ABOVE` characters the freed memory is handed back
        to the system too.
        """
        tree = self._tree
        if tree.source is None or len(tree.source) <= larger_than:
            return False
        tree.root = None
        self._forget_elements()
        if len(tree.source) > TRIM_HEAP_ABOVE:
            _trim_heap()
        return True

    def _forget_elements(self) -> None:
        """Drop the element proxies cached from the tree (the containers'
        elements, the lists of :func:`~webclean_scrapy.engine.html.elements.tagged_elements` and
        :func:`~webclean_scrapy.engine.html.elements.attribute_survey`): they would keep the nodes
        alive, and they point into a tree about to change or go. The link
        addresses the same survey read (:func:`~webclean_scrapy.engine.html.elements.link_hrefs`) go
        with them, so all its lists always come from one tree."""
        self._elements.elements = None
        self.memo.forget_tree()

    # -- views --------------------------------------------------------
    @property
    def source(self) -> str:
        """The decoded page source (serialised from the tree if not given)."""
        if self._source is None:
            self._source = etree.tostring(self.root, method="html", encoding="unicode")
        return self._source

    @property
    def compiled_walk(self) -> bool:
        """Whether the compiled passes read this page's tree (:data:`COMPILED_WALK`)."""
        return COMPILED_WALK

    @cached_property
    def title(self) -> str:
        """og:title, else the first visible ``<h1>``, else ``<title>``; whitespace collapsed."""
        value = meta_title(self.root)
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
                return " ".join(self.block_columns.texts[first : int(columns.last_blocks[index]) + 1])
        return title_text(self.root)

    @cached_property
    def language(self) -> str | None:
        """The page's declared language (``<html lang>``, ``content-language``
        or ``og:locale``), lower-cased primary subtag such as ``"en"``
        (:func:`~webclean_scrapy.engine.html.head.declared_language`)."""
        return declared_language(self.root)

    @cached_property
    def canonical_url(self) -> str | None:
        """``<link rel="canonical">`` resolved against the page URL (http/https only).

        Read from the page's ``<link>`` elements that
        :func:`~webclean_scrapy.engine.html.elements.tagged_elements` sorts out anyway
        (the page type and the metadata read them too), in document order:
        no search of the whole tree of its own."""
        return canonical_link(tagged_elements(self)["link"], self.url)

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
        """Blocks as output text: one block per line (:meth:`~webclean_scrapy.engine.columns.BlockColumns.text`)."""
        return self.block_columns.text([block.index for block in blocks])


@contextmanager
def built_page(factory: Callable[[], Document]) -> Iterator[Document]:
    """Build a :class:`Document` for one unit of work and free it right after.

    The columns hold no reference cycles; the object views, if a method
    asked for them, do (parents and children point at each other), and
    :meth:`Document.release` breaks them at the end, so reference counting
    frees the whole page at once instead of leaving it to the cycle
    collector.
    """
    doc = None
    try:
        doc = factory()
        yield doc
    finally:
        if doc is not None:
            doc.release()
