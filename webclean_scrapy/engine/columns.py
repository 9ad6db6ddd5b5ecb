"""The walk's tables: a page's blocks and containers as columns.

Entry *i* of each column is block (container) *i*, in document order: strings in lists,
numbers in numpy arrays, so that every built-in method reads them with whole-column
operations. The walk (:mod:`webclean_scrapy.engine.document`) fills them; linked
:class:`~webclean_scrapy.engine.views.Block` and :class:`~webclean_scrapy.engine.views.Container`
objects are built from them only when asked for.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

import numpy as np

from webclean_scrapy.engine.html.compiled import compiled_walk as _compiled_walk
from webclean_scrapy.engine.html.walk import MAX_MARKS
from webclean_scrapy.engine.html.walk import count_in_ranges as python_count_in_ranges
from webclean_scrapy.engine.text.marks import PUNCTUATION_MARKS
from webclean_scrapy.engine.text.scripts import CJK_CHARACTER_WEIGHT, CJK_RANGES


def int64_column(column: bytes) -> np.ndarray:
    """A walk's column (``bytes`` of int64) as a read-only array, no copy."""
    return np.frombuffer(column, dtype=np.int64)


#: Block indexes turned into Python ints at a time by :meth:`BlockColumns.text`.
TEXT_CHUNK = 4096


class BlockColumns:
    """A page's blocks as columns: entry *i* of each is block *i*, in document order.

    This is what the walk produces and what the methods read (whole-column
    numpy operations); :class:`~webclean_scrapy.engine.views.Block` objects are
    built from it only when :attr:`Document.blocks
    <webclean_scrapy.engine.document.Document.blocks>` is asked for. ``texts``
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

    ``tags`` and ``attributes`` (the :data:`~webclean_scrapy.engine.html.tags.DESCRIPTIVE_ATTRIBUTES` present,
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
