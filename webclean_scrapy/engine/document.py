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

The walk fills two tables, :class:`BlockColumns` and
:class:`ContainerColumns` (strings in lists, numbers in numpy arrays):
every built-in method reads them with whole-column operations. Linked
:class:`~webclean_scrapy.engine.views.Block` and
:class:`~webclean_scrapy.engine.views.Container` objects are built from them only
when asked for (:attr:`Document.blocks`, :attr:`Document.containers`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import cached_property, lru_cache
from urllib.parse import urljoin, urlsplit

import numpy as np
from lxml import etree

from webclean_scrapy.engine.html.parsing import parse_page, parser_bytes, recover_tree
from webclean_scrapy.engine.html.screen import screen_markup
from webclean_scrapy.engine.html.walk import MAX_MARKS
from webclean_scrapy.engine.html.walk import count_in_ranges as python_count_in_ranges
from webclean_scrapy.engine.html.walk import walk as python_walk
from webclean_scrapy.engine.memo import PageMemo
from webclean_scrapy.engine.text.encoding import decode_html, double_encoded, undo_double_encoding
from webclean_scrapy.engine.text.marks import PUNCTUATION_MARKS
from webclean_scrapy.engine.text.scripts import CJK_CHARACTER_WEIGHT, CJK_RANGES
from webclean_scrapy.engine.views import Block, Container, build_views
from webclean_scrapy.errors import ExtractionError

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

#: ``<link rel>`` as the XPath ``//link[contains(concat(' ', translate(normalize-space(@rel),
#: 'CANONICAL', 'canonical'), ' '), ' canonical ')]`` reads it: split at XML
#: whitespace, those letters lower-cased, one word of it ``canonical``.
_XML_SPACE = re.compile(r"[ \t\r\n]+")
_CANONICAL_LETTERS = str.maketrans("CANOIL", "canoil")
#: Language names some pages declare instead of a code (``lang="english"``),
#: in English and in the language itself, mapped to ISO 639-1 so per-language
#: figures group them with the coded pages.
_LANGUAGE_NAMES: dict[str, str] = {
    "english": "en",
    "german": "de",
    "deutsch": "de",
    "french": "fr",
    "français": "fr",
    "francais": "fr",
    "spanish": "es",
    "español": "es",
    "espanol": "es",
    "italian": "it",
    "italiano": "it",
    "portuguese": "pt",
    "português": "pt",
    "portugues": "pt",
    "dutch": "nl",
    "nederlands": "nl",
    "russian": "ru",
    "русский": "ru",
    "chinese": "zh",
    "中文": "zh",
    "japanese": "ja",
    "日本語": "ja",
    "polish": "pl",
    "polski": "pl",
    "czech": "cs",
    "čeština": "cs",
    "swedish": "sv",
    "svenska": "sv",
    "norwegian": "no",
    "norsk": "no",
    "danish": "da",
    "dansk": "da",
    "finnish": "fi",
    "suomi": "fi",
    "turkish": "tr",
    "türkçe": "tr",
    "arabic": "ar",
    "greek": "el",
    "korean": "ko",
    "한국어": "ko",
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
#: read: what those readers compute grows with the containers, and beside a
#: tree that large it would set the page's peak. A tree :meth:`Document.from_html`
#: parsed is pruned by its walk, which frees what it has read as it goes
#: (the containers counted before the walk), so the walk's tables never sit
#: beside the whole tree either. Real pages have a few thousand containers
#: (6,614 at most on the datasets' 60 largest pages), where pruning costs
#: time (up to a tenth of the extraction) and saves nothing that matters.
PRUNE_TREE_ABOVE = 100_000
#: A page whose source has more characters than this also hands the memory
#: of its dropped tree back to the system (:func:`_trim_heap`) in
#: :meth:`Document.release_tree`. Below it the freed tree stays in the C
#: heap, where the next pages' trees and arrays reuse it: a trim returns
#: every free page of the heap at once, and the pages after fault them back
#: in (about 2,000 page faults a trim: 2.5% of the extraction time on
#: Readability's pages, 5 of 116 above 1 MB, and 5% on `wcxb-dev`'s), while
#: the peak stays the same on the datasets' largest pages and the hostile
#: pages (docs/BENCHMARKS.md, session 23). A huge tree is still handed back,
#: so a worker that met one does not keep its memory; the walk that frees a
#: pathological tree and :meth:`Document.prune_tree` trim as before.
TRIM_HEAP_ABOVE = 4_000_000

_DESCRIPTIVE_BYTES: tuple[bytes, ...] = tuple(name.encode() for name in DESCRIPTIVE_ATTRIBUTES)
_MARK_BYTES: tuple[bytes, ...] = tuple(mark.encode() for mark in PUNCTUATION_MARKS)

try:
    import webclean_scrapy.engine.html._walk as _compiled_walk
except ImportError:  # not built (no C compiler at install): the Python walk runs
    _compiled_walk = None

#: Whether :class:`Document` uses the compiled walk; ``False`` when the
#: extension is not built. Setting it to ``False`` forces the Python walk.
COMPILED_WALK: bool = _compiled_walk is not None


@lru_cache(maxsize=1)
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or ``None`` on other C libraries."""
    try:
        import ctypes

        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
        return trim
    except (OSError, AttributeError):
        return None


def _trim_heap() -> None:
    """Hand the C heap's free memory back to the system. A freed lxml tree
    stays in glibc's heap, where Python's own objects (allocated in
    arenas of their own) cannot reuse it: without this, a huge page's
    memory would not fall when its tree is dropped. Every free page goes
    at once, and the next pages fault back in what they use: called only
    for huge or pathological trees (:data:`TRIM_HEAP_ABOVE`)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


def _prune(root: etree._Element, tags: tuple[str, ...], attributes: tuple[str, ...]) -> None:
    """Remove from *root* every subtree holding no element of *tags* and no
    element carrying one of *attributes* (see :meth:`Document.prune_tree`).

    The kept elements are found by two scans in C (``iter`` and an XPath);
    only their ancestors' children are then visited, and each run of
    children to drop goes with one slice deletion (libxml2 frees a removed
    subtree at once when no Python proxy points into it).
    """
    kept: list[etree._Element] = list(root.iter(*tags)) if tags else []
    if attributes:  # the elements carrying them (``/..``: faster than testing every element)
        kept += etree.XPath(" | ".join(f"//@{name}/.." for name in attributes))(root)
    keep = set(kept)
    paths: set[etree._Element] = {root}  # the kept elements' ancestors
    for element in kept:
        parent = element.getparent()
        while parent is not None and parent not in paths:
            paths.add(parent)
            parent = parent.getparent()
    del kept
    for parent in paths:
        if parent in keep:
            continue  # kept whole
        # Runs of children neither kept nor on a path, deleted last first.
        runs: list[list[int]] = []
        child = None
        for index, child in enumerate(parent):
            if child in keep or child in paths:
                continue
            if runs and runs[-1][1] == index:
                runs[-1][1] = index + 1
            else:
                runs.append([index, index + 1])
        del child
        for start, stop in reversed(runs):
            del parent[start:stop]


def _walk_function(root: etree._Element) -> Callable[..., tuple]:
    """The walk to run on *root*: the compiled one when it was built and
    *root* is an lxml HTML tree (and :data:`COMPILED_WALK` is on), else
    the Python reference (:func:`webclean_scrapy.engine.html.walk.walk`)."""
    if COMPILED_WALK and _compiled_walk is not None and _compiled_walk.is_html_tree(root):
        return _compiled_walk.walk
    return python_walk


@lru_cache(maxsize=8)
def _attribute_xpaths(name: str) -> tuple[etree.XPath, etree.XPath]:
    return etree.XPath(f"//*/@{name}", smart_strings=False), etree.XPath(f"//*[@{name}]")


#: What :func:`survey` returns: elements by tag, attribute values, attribute
#: holders, and attribute values per tag.
SurveyResult = tuple[
    dict[str, list[etree._Element]], list[list[str]], list[list[etree._Element]], list[list[str | None]]
]


def survey(
    root: etree._Element,
    tags: tuple[str, ...],
    values: tuple[str, ...] = (),
    holders: tuple[str, ...] = (),
    tag_values: tuple[tuple[str, str], ...] = (),
) -> SurveyResult:
    """What is looked up outside the walk's tables, in one pass over the tree:

    * *root*'s elements of each tag of *tags*, by tag (``root.iter(*tags)``);
    * for each attribute name of *values*, its values on every element of
      the document (``//*/@name``);
    * for each attribute name of *holders*, the elements that have it
      (``//*[@name]``);
    * for each ``(tag, attribute)`` pair of *tag_values* (a tag not in
      *tags*), the attribute's value on each of *root*'s elements of that
      tag, ``None`` where it has none: ``[el.get(attribute) for el in
      root.iter(tag)]``;

    each in document order. The compiled walk's module does it in one pass
    over libxml2's nodes, making element proxies only for the elements
    returned (about a third of the time of three searches), and none for
    *tag_values*' elements (a page's links, its most numerous elements,
    are read for their addresses alone); lxml's own ``iter``, ``get`` and
    XPath are the fallback, with the same results. A tag in both *tags*
    and *tag_values* is refused (``ValueError``): the compiled pass reads
    each element one way.
    """
    if any(tag in tags for tag, _ in tag_values):
        raise ValueError("a tag of tag_values is also in tags")
    if COMPILED_WALK and _compiled_walk is not None and _compiled_walk.is_html_tree(root):
        found: SurveyResult = _compiled_walk.survey(
            root,
            tags,
            tuple(name.encode() for name in values),
            tuple(name.encode() for name in holders),
            tuple((tag, attribute.encode()) for tag, attribute in tag_values),
        )
        return found
    by_tag: dict[str, list[etree._Element]] = {tag: [] for tag in tags}
    keep = {tag: elements.append for tag, elements in by_tag.items()}
    for element in root.iter(*tags):
        keep[element.tag](element)
    return (
        by_tag,
        [_attribute_xpaths(name)[0](root) for name in values],
        [_attribute_xpaths(name)[1](root) for name in holders],
        [[element.get(attribute) for element in root.iter(tag)] for tag, attribute in tag_values],
    )


@lru_cache(maxsize=4)
def _encoded(names: tuple[str, ...]) -> tuple[bytes, ...]:
    return tuple(name.encode() for name in names)


def _int64(column: bytes) -> np.ndarray:
    """A walk's column (``bytes`` of int64) as a read-only array, no copy."""
    return np.frombuffer(column, dtype=np.int64)


#: Block indexes turned into Python ints at a time by :meth:`BlockColumns.text`.
TEXT_CHUNK = 4096


class BlockColumns:
    """A page's blocks as columns: entry *i* of each is block *i*, in document order.

    This is what the walk produces and what the methods read (whole-column
    numpy operations); :class:`~webclean_scrapy.engine.views.Block` objects are
    built from it only when :attr:`Document.blocks` is asked for. ``texts``
    holds each block's text (whitespace collapsed), ``anchor_texts`` the
    text inside its ``<a>`` elements (``""`` when none); the int64 arrays
    hold its ``positions`` (see :class:`~webclean_scrapy.engine.views.Block`), its
    ``holders`` (the index of the container directly holding it), its
    ``chars`` and ``anchor_chars`` (non-whitespace characters, all and
    inside links) and its ``lengths`` and ``anchor_lengths``, the same
    counts with each CJK character counted
    :data:`~webclean_scrapy.engine.text.scripts.CJK_CHARACTER_WEIGHT` times
    (:func:`weigh_cjk_characters`; the very ``chars`` arrays on a page
    without one): what a rule or model asking how much text a block holds
    reads, so that a paragraph of Chinese is not a short line to it (the
    published methods read characters, as their papers count them). The
    :data:`PUNCTUATION_MARKS` in each block's text are counted by
    :meth:`count` (stored sparse: one entry per block and mark present, as
    most blocks hold few marks or none; :attr:`marks` is the dense table).
    """

    __slots__ = (
        "texts",
        "anchor_texts",
        "positions",
        "holders",
        "chars",
        "anchor_chars",
        "lengths",
        "anchor_lengths",
        "_mark_keys",
        "_mark_counts",
    )

    def __init__(
        self,
        texts: list[str],
        anchor_texts: list[str],
        positions: np.ndarray,
        holders: np.ndarray,
        chars: np.ndarray,
        anchor_chars: np.ndarray,
        mark_keys: np.ndarray,
        mark_counts: np.ndarray,
    ) -> None:
        self.texts = texts
        self.anchor_texts = anchor_texts
        self.positions = positions
        self.holders = holders
        self.chars = chars
        self.anchor_chars = anchor_chars
        self.lengths = chars
        self.anchor_lengths = anchor_chars
        #: ``block * MAX_MARKS + k`` for each block holding mark *k*, and how many times.
        self._mark_keys = mark_keys
        self._mark_counts = mark_counts

    def __len__(self) -> int:
        return len(self.texts)

    def text(self, indexes: Iterable[int] | np.ndarray | slice = slice(None)) -> str:
        """The output text of the blocks at *indexes* (default: all), one block
        per line. An array of indexes is read :data:`TEXT_CHUNK` at a time, so
        that the kept blocks of a page of a million never become a list of a
        million Python ints."""
        texts = self.texts
        if isinstance(indexes, slice):
            return "\n".join(texts[indexes])
        if isinstance(indexes, np.ndarray):
            return "\n".join(
                [
                    texts[i]
                    for start in range(0, len(indexes), TEXT_CHUNK)
                    for i in indexes[start : start + TEXT_CHUNK].tolist()
                ]
            )
        return "\n".join([texts[i] for i in indexes])

    def count(self, marks: str, blocks: slice = slice(None)) -> np.ndarray:
        """How many of the characters *marks* each block's text holds (each
        of them one of :data:`PUNCTUATION_MARKS`), as int64: for every
        block, or for the range *blocks* (a slice, step 1), so that a
        consumer reading them a range at a time holds no whole-page array.
        One compiled pass over the range's entries when the walk was built
        (``_walk.mark_counts``), else :meth:`python_count`, its reference."""
        if _compiled_walk is None:
            return self.python_count(marks, blocks)
        wanted = _mark_bits(marks)
        start, stop = self._range(blocks)
        out = np.zeros(stop - start, dtype=np.int64)
        _compiled_walk.mark_counts(self._mark_keys, self._mark_counts, wanted, start, out)
        return out

    def python_count(self, marks: str, blocks: slice = slice(None)) -> np.ndarray:
        """:meth:`count` by numpy: the entries of the range, those of the
        wanted marks, summed per block."""
        bits = _mark_bits(marks)
        wanted = np.zeros(MAX_MARKS, dtype=bool)
        wanted[[k for k in range(MAX_MARKS) if bits >> k & 1]] = True
        start, stop = self._range(blocks)
        keys, counts = self._mark_keys, self._mark_counts
        if start or stop < len(self.texts):
            # The entries are in block order (the walk appends them so).
            low, high = np.searchsorted(keys, [start * MAX_MARKS, stop * MAX_MARKS])
            keys, counts = keys[low:high], counts[low:high]
        chosen = wanted[keys & (MAX_MARKS - 1)]
        # Sums of whole numbers below 2**53: exact in float64.
        return np.bincount(keys[chosen] // MAX_MARKS - start, weights=counts[chosen], minlength=stop - start).astype(
            np.int64
        )

    def _range(self, blocks: slice) -> tuple[int, int]:
        """The blocks ``start:stop`` of the range *blocks* (step 1)."""
        start, stop, step = blocks.indices(len(self.texts))
        if step != 1:
            raise ValueError("count() reads a range of blocks, step 1")
        return start, max(start, stop)

    @property
    def marks(self) -> np.ndarray:
        """Row *k* counts :data:`PUNCTUATION_MARKS` ``[k]`` in each block's
        text: a ``(len(PUNCTUATION_MARKS), blocks)`` int64 array, made on
        each call (the methods read :meth:`count`)."""
        dense = np.zeros(MAX_MARKS * len(self.texts), dtype=np.int64)
        dense[self._mark_keys] = self._mark_counts
        return dense.reshape(len(self.texts), MAX_MARKS)[:, : len(PUNCTUATION_MARKS)].T.copy()


@lru_cache(maxsize=64)
def _mark_bits(marks: str) -> int:
    """Bit *k* set for each mark of *marks* that is :data:`PUNCTUATION_MARKS`
    ``[k]``; ``ValueError`` for any other character."""
    try:
        return sum({1 << PUNCTUATION_MARKS.index(mark) for mark in marks})
    except ValueError:
        raise ValueError(f"only {PUNCTUATION_MARKS!r} are counted, not all of {marks!r}") from None


class ContainerColumns:
    """A page's containers (structural elements) as columns, in document
    order: parents come before their children, the root is entry 0.

    ``tags`` and ``attributes`` (the :data:`DESCRIPTIVE_ATTRIBUTES` present,
    a dict; the page's containers without any share one empty dict, not to
    be modified) are lists; the int64 arrays hold each container's
    ``parents`` (index, -1 for the root), its subtree's block range
    ``first_blocks`` to ``last_blocks`` inclusive (both -1 without text),
    and its subtree's ``chars`` and ``anchor_chars``, and ``lengths`` and
    ``anchor_lengths`` (as :class:`BlockColumns`').
    """

    __slots__ = (
        "tags",
        "attributes",
        "parents",
        "first_blocks",
        "last_blocks",
        "chars",
        "anchor_chars",
        "lengths",
        "anchor_lengths",
    )

    def __init__(
        self,
        tags: list[str],
        attributes: list[dict[str, str]],
        parents: np.ndarray,
        first_blocks: np.ndarray,
        last_blocks: np.ndarray,
        chars: np.ndarray,
        anchor_chars: np.ndarray,
    ) -> None:
        self.tags = tags
        self.attributes = attributes
        self.parents = parents
        self.first_blocks = first_blocks
        self.last_blocks = last_blocks
        self.chars = chars
        self.anchor_chars = anchor_chars
        self.lengths = chars
        self.anchor_lengths = anchor_chars

    def __len__(self) -> int:
        return len(self.tags)


_CJK_BOUNDS = np.array([bound for pair in CJK_RANGES for bound in pair], dtype=np.int64)


def cjk_characters(texts: list[str]) -> np.ndarray:
    """Each of *texts*' CJK characters (:data:`~webclean_scrapy.engine.text.scripts.CJK_RANGES`),
    as int64: one compiled pass when the walk was built
    (``_walk.count_in_ranges``), else its Python reference."""
    if _compiled_walk is None:
        return np.array(python_count_in_ranges(texts, list(CJK_RANGES)), dtype=np.int64)
    out = np.empty(len(texts), dtype=np.int64)
    _compiled_walk.count_in_ranges(texts, _CJK_BOUNDS, out)
    return out


def text_length(text: str) -> int:
    """*text*'s length with each CJK character counted
    :data:`~webclean_scrapy.engine.text.scripts.CJK_CHARACTER_WEIGHT` times (whitespace
    included, unlike the columns' lengths): for a length read off a string
    rather than the walk's tables, a title or a meta description."""
    if text.isascii():
        return len(text)
    return len(text) + int(cjk_characters([text])[0]) * (CJK_CHARACTER_WEIGHT - 1)


def weigh_cjk_characters(blocks: BlockColumns, containers: ContainerColumns) -> None:
    """Set the columns' ``lengths`` and ``anchor_lengths``: their ``chars``
    and ``anchor_chars`` with each CJK character counted
    :data:`~webclean_scrapy.engine.text.scripts.CJK_CHARACTER_WEIGHT` times. A page
    without one keeps the ``chars`` arrays themselves (nothing copied; an
    ASCII block's text is not even read); a container's extra is its
    subtree's block range's (a running sum)."""
    extra = cjk_characters(blocks.texts)
    if not extra.any():
        return
    extra *= CJK_CHARACTER_WEIGHT - 1
    anchor_extra = cjk_characters(blocks.anchor_texts) * (CJK_CHARACTER_WEIGHT - 1)
    blocks.lengths = blocks.chars + extra
    blocks.anchor_lengths = blocks.anchor_chars + anchor_extra
    containers.lengths = containers.chars + _subtree_sums(extra, containers)
    containers.anchor_lengths = containers.anchor_chars + _subtree_sums(anchor_extra, containers)


def _subtree_sums(per_block: np.ndarray, containers: ContainerColumns) -> np.ndarray:
    """*per_block* summed over each container's block range (0 without text)."""
    running = np.zeros(len(per_block) + 1, dtype=np.int64)
    np.cumsum(per_block, out=running[1:])
    first, last = containers.first_blocks, containers.last_blocks
    return np.where(first >= 0, running[last + 1] - running[np.maximum(first, 0)], 0)


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
                _HIDDEN_STYLE.search,
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
        readers after it will not look at (``extraction.TREE_READS``): the
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
            from webclean_scrapy.engine.extraction import TREE_READS  # extraction reads Document: imported on use

            tags, names = TREE_READS
            release = ((PRUNE_TREE_ABOVE, _encoded(tags), _encoded(names), _trim_heap),)
        texts, anchor_texts, block_numbers, mark_numbers, tags, attributes, container_numbers, concealed, *freed = walk(
            root,
            _REVEAL_KINDS if reveal else _WALK_KINDS,
            _HIDDEN_STYLE.search,
            _DESCRIPTIVE_BYTES,
            _MARK_BYTES,
            None,
            reveal,
            _REVEALABLE,
            *release,
        )
        if freed and freed[0]:
            tree.pruned = True
        self.block_columns = BlockColumns(texts, anchor_texts, *map(_int64, block_numbers), *map(_int64, mark_numbers))
        self.container_columns = ContainerColumns(tags, attributes, *map(_int64, container_numbers))
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
        _prune(tree.root, tuple(tags), tuple(attributes))
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
        elements, the lists of :func:`elements.tagged_elements` and
        :func:`elements.attribute_survey`): they would keep the nodes
        alive, and they point into a tree about to change or go. The link
        addresses the same survey read (:func:`elements.link_hrefs`) go
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
                return " ".join(self.block_columns.texts[first : int(columns.last_blocks[index]) + 1])
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
                if (meta.get("http-equiv") or "").lower() == "content-language" or meta.get("property") == "og:locale":
                    candidates.append(meta.get("content"))
        for value in candidates:
            if value and value.strip():
                primary = re.split(r"[-_,;\s]", value.strip().lower())[0]
                return _LANGUAGE_NAMES.get(primary, primary) or None
        return None

    @cached_property
    def canonical_url(self) -> str | None:
        """``<link rel="canonical">`` resolved against the page URL (http/https only).

        Read from the page's ``<link>`` elements that
        :func:`~webclean_scrapy.engine.html.elements.tagged_elements` sorts out anyway
        (the page type and the metadata read them too), in document order:
        no search of the whole tree of its own."""
        from webclean_scrapy.engine.html.elements import tagged_elements  # elements reads Document: imported on use

        for link in tagged_elements(self)["link"]:
            rel = link.get("rel")
            if rel is None or "canonical" not in _XML_SPACE.split(rel.translate(_CANONICAL_LETTERS)):
                continue
            href = link.get("href")
            if href is None:
                continue
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
