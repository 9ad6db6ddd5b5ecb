"""Block features of the ``webclean`` extractor, one row per block.

Everything is read from the tables the document walk filled
(:class:`~webclean_scrapy.engine.columns.BlockColumns`,
:class:`~webclean_scrapy.engine.columns.ContainerColumns`) and the container
codes of :mod:`.keywords`, then computed as whole-column numpy operations:
no per-block Python object, no XPath, no regular expression per block.

Three families of signals, all language-independent (character counts,
never word counts, so CJK text weighs what it should; CJK punctuation
counts as punctuation):

* **the block** (Kohlschütter's shallow text features): its length and link
  density, punctuation, its neighbours' lengths and link densities, whether
  its text repeats on the page, where it stands;
* **its markup**: the tag that holds it, the evidence its ancestors carry
  (:mod:`.keywords`), whether it lies in the container Readability's
  paragraph scoring picks, the size and link density of its parent and
  grandparent;
* **the page's structure** (:class:`_Structure`): how deep it sits, how many
  containers on the page share its holder's (and parents') tag and class
  and how much of the page's text they hold -- the repeated posts, cards
  and sections of forums, listings and service pages -- the heading level,
  whether it comes before the first ``<h1>``, and a few page-wide figures
  (size, link density) that let the model condition on the kind of page.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator
from functools import lru_cache
from itertools import repeat
from typing import NamedTuple

import numpy as np

from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.extractors.webclean.keywords import (
    BINARY_MASKS,
    BINARY_VALUES,
    COMMENT_AREA_BIT,
    FLAG_NAMES,
    INNER_NAMES,
    KIND_NAMES,
    READABILITY_BIT,
    READABILITY_TAG_PRIOR,
    LiteralMatcher,
    container_codes,
    container_codes_and_keys,
    literal_alternatives,
    remember,
)
from webclean_scrapy.engine.page_type import PAGE_TYPES
from webclean_scrapy.engine.text.marks import COMMAS, FULL_STOPS, SEMICOLONS

#: Thermometer codes of length and link density: a linear model over them
#: is a free step function, the non-linearity Kohlschütter's trees found.
_CHAR_STEPS = (8, 16, 32, 64, 128, 256, 512)
_LD_STEPS = (0.1, 0.33, 0.66, 0.9)

#: Block features computed per block (dense), then per container (the
#: same for every block a container directly holds, so computed once).
BLOCK_DENSE: tuple[str, ...] = (
    "bias",
    "log_chars",
    "link_density",
    "log_prev",
    "log_next",
    "prev_ld",
    "next_ld",
    "stops",
    "commas",
    "ends_stop",
    "linked_short",
    "position",
    "duplicate",
    "rd_top",
    "rd_sibling",
    "rd_share",
)
CONTAINER_DENSE: tuple[str, ...] = (
    "log_parent",
    "parent_ld",
    "log_grand",
    "grand_ld",
    "parent_share",
    "doc_ld",
)
#: Groups of class/id words that name the repeated units of today's page
#: types (forum posts, product details, cards, tabs, code, landing-page
#: sections): one bit each, own and inherited.
STRUCTURE_GROUPS: dict[str, str] = {
    "forum": r"forum|thread|topic|message|answer|question|bbpress|xenforo|discourse|phpbb|vbulletin|postbody|cooked",
    "product": r"product|price|description|spec|detail|feature|pdp|sku|variant|buy|cart|review",
    "card": r"card|item|tile|grid|result|listing|teaser|entry|row|col",
    "tab": r"tab|accordion|collapse|panel|faq|toggle",
    "code": r"code|highlight|syntax|docs?|markdown|rst|sphinx|api",
    "section": r"hero|jumbotron|intro|lead|summary|section|feature|pricing|cta|testimonial",
}
STRUCTURE_FEATURES: tuple[str, ...] = (
    "depth",
    "key_count0",
    "key_share0",
    "sib_same0",
    "key_count1",
    "key_share1",
    "sib_same1",
    "key_count2",
    "key_share2",
    "sib_same2",
    "parent_children",
    "parent_blocks",
    "grand_blocks",
    "heading_level",
    "before_h1",
    "is_title",
    "char_position",
    "page_log_chars",
    "page_log_blocks",
    "page_ld",
    "page_log_containers",
    "top_key_share",
    "in_area",
    "up_share1",
    "up_share2",
    "up_share3",
    "key_ld0",
    "key_prose0",
    "key_ld1",
    "key_prose1",
    "key_ld2",
    "key_prose2",
    "prose_ratio1",
    "prose_ratio2",
    "prose_ratio3",
    "in_prose_top",
    *(f"x_{name}" for name in STRUCTURE_GROUPS),
    *(f"own_{name}" for name in STRUCTURE_GROUPS),
)
#: Feature names, in row order.
BLOCK_FEATURES: tuple[str, ...] = (
    *BLOCK_DENSE,
    *(f"chars_ge_{c}" for c in _CHAR_STEPS),
    *(f"ld_ge_{x}" for x in _LD_STEPS),
    *CONTAINER_DENSE,
    *KIND_NAMES,
    *INNER_NAMES,
    *FLAG_NAMES,
    *STRUCTURE_FEATURES,
)

#: What the model scores: the block's features, its markup lexicon score
#: (:mod:`.lexicon`), then its page's page-type probabilities
#: (:data:`webclean_scrapy.engine.page_type.PAGE_TYPES` order).
MODEL_FEATURES: tuple[str, ...] = (*BLOCK_FEATURES, "markup_lexicon", *(f"page_{name}" for name in PAGE_TYPES))
#: The column of the markup lexicon score, then the page types'.
LEXICON_AT = len(BLOCK_FEATURES)
PAGE_TYPES_AT = LEXICON_AT + 1

_CHARS_AT = len(BLOCK_DENSE)
_LD_AT = _CHARS_AT + len(_CHAR_STEPS)
_CONTAINER_AT = _LD_AT + len(_LD_STEPS)
_KIND_AT = _CONTAINER_AT + len(CONTAINER_DENSE)
_STRUCTURE_AT = _KIND_AT + len(KIND_NAMES) + len(INNER_NAMES) + len(FLAG_NAMES)
#: Sentence ends (a block ending in one reads as prose): every script's
#: (:data:`~webclean_scrapy.engine.text.marks.FULL_STOPS`), as the stop density counts.
_STOPS = FULL_STOPS


#: Counts below this have their ``math.log1p`` in a table (512 KiB).
_LOG_TABLE_SIZE = 1 << 16


@lru_cache(maxsize=1)
def _log1p_table() -> np.ndarray:
    """``math.log1p(i)`` for every ``i < _LOG_TABLE_SIZE``, built on first use (a few ms)."""
    return np.array(list(map(math.log1p, range(_LOG_TABLE_SIZE))))


def _log1p(counts: np.ndarray) -> np.ndarray:
    """``math.log1p`` of character counts, bit for bit, as a table lookup:
    numpy's own log1p differs in the last bit for about 1% of values, and
    the training script's features (:func:`block_features`) stay the ones
    the shipped model was fitted on."""
    table = _log1p_table()
    index = counts.astype(np.intp)
    logs = table.take(np.minimum(index, _LOG_TABLE_SIZE - 1))
    beyond = index >= _LOG_TABLE_SIZE
    if beyond.any():
        logs[beyond] = list(map(math.log1p, counts[beyond].tolist()))
    return logs


class PageColumns:
    """The per-block and per-container arrays the features are computed from,
    gathered from a :class:`Document` once (one attribute read per object
    and field) so that every feature after is a whole-column numpy
    operation: at ~150 blocks a page, a numpy call costs what three Python
    list items do, so per-block Python loops would dominate. What only the
    rows need (link densities, log lengths, ancestors, holders' codes) is
    computed for each chunk of rows (:meth:`densities`, :meth:`lineage`,
    :attr:`block_codes`), and the walk's int64 counts are read as they are,
    not copied to float (every use is a float operation, where numpy
    converts them exactly): on a page of a million blocks, each array per
    block or container held for the whole scoring is 8 MB."""

    __slots__ = (
        "doc",
        "n",
        "texts",
        "chars",
        "anchors",
        "holder",
        "codes",
        "signs",
        "prefix_chars",
        "parent",
        "first",
        "last",
        "cchars",
        "canchors",
        "_repeated",
        "structure_read",
    )

    def __init__(self, doc: Document) -> None:
        blocks = doc.block_columns
        containers = doc.container_columns
        self.doc = doc
        self.n = len(blocks)
        self.texts = blocks.texts
        #: Each block's length, all and inside links (the walk's int64
        #: columns: characters, a CJK one counting for two letters,
        #: :attr:`~webclean_scrapy.engine.columns.BlockColumns.lengths`).
        self.chars = blocks.lengths
        self.anchors = blocks.anchor_lengths
        #: Block -> index of the container directly holding it.
        self.holder = blocks.holders
        #: Container -> its code and its class/id's sign (:func:`.keywords.container_codes`);
        #: compiled, the structure keys come from the same reading of the
        #: class and id, kept until :class:`_Structure` takes them.
        self.structure_read: tuple[np.ndarray, np.ndarray, int] | None = None
        read = container_codes_and_keys(doc, GROUP_MEMO) if structure_keys is not _python_structure_keys else None
        if read is None:
            self.codes, self.signs = container_codes(doc)
        else:
            self.codes, self.signs, own, keys, nk = read
            self.structure_read = own, keys, nk
        self.prefix_chars = np.zeros(self.n + 1)
        np.cumsum(self.chars, out=self.prefix_chars[1:])  # whole numbers below 2**53: exact
        #: Container -> its parent's index (the root's own: 0).
        self.parent = np.maximum(containers.parents, 0).astype(np.int32)
        #: Block range of each container's subtree (both -1 without text).
        self.first = containers.first_blocks
        self.last = containers.last_blocks
        #: Each container's subtree length, all and inside links (int64 columns).
        self.cchars = containers.lengths
        self.canchors = containers.anchor_lengths
        self._repeated: np.ndarray | None = None

    @property
    def repeated(self) -> np.ndarray:
        """Per block: whether its exact text occurs more than once on the
        page (:func:`repeated_texts`), made on first use and kept: the
        features read it, and so does the selection, which drops repeats
        only among these blocks."""
        if self._repeated is None:
            self._repeated = repeated_texts(self.texts)
        return self._repeated

    @property
    def block_codes(self) -> np.ndarray:
        """Block -> its holder's code (made on each call)."""
        return self.codes[self.holder]

    def densities(self, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        """The link densities and ``log1p`` lengths of blocks ``start:stop``."""
        return self.anchors[start:stop] / self.chars[start:stop], _log1p(self.chars[start:stop])

    def lineage(self, rows: slice) -> np.ndarray:
        """Per block of *rows*: its holder and the holder's three nearest
        ancestors (the root repeating), one column each."""
        holder = self.holder[rows]
        lineage = np.empty((len(holder), 4), dtype=np.intp)
        lineage[:, 0] = node = holder
        for k in range(1, 4):
            lineage[:, k] = node = self.parent[node]
        return lineage


# -- the block's own features ----------------------------------------------------


def _marks(page: PageColumns, rows: slice) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per block of *rows*: the number of stops (:data:`~webclean_scrapy.engine.text.marks.FULL_STOPS`,
    every script's), of commas (:data:`~webclean_scrapy.engine.text.marks.COMMAS`, what
    Readability counts, with their CJK and Arabic forms) and of semicolons. The walk counted
    every mark once (:meth:`~webclean_scrapy.engine.columns.BlockColumns.count`);
    read per chunk of rows, they are not held for the whole page."""
    blocks = page.doc.block_columns
    return blocks.count(FULL_STOPS, rows), blocks.count(COMMAS, rows), blocks.count(SEMICOLONS, rows)


def _ends_stop(page: PageColumns) -> np.ndarray:
    """Per block: whether its text ends in a sentence end (:data:`_STOPS`)."""
    return np.fromiter([text[-1] in _STOPS for text in page.texts], dtype=bool, count=page.n)


def repeated_texts(texts: list[str]) -> np.ndarray:
    """Which blocks' exact text occurs more than once on the page.

    Above :data:`_SLICE` blocks, only the texts whose hash is shared are
    counted: a counter of every text takes about 60 bytes a block (a
    dict entry each), the sorted hashes 16."""
    n = len(texts)
    if n <= _SLICE:
        counts = Counter(texts)
        if len(counts) == n:
            return np.zeros(n, dtype=bool)
        return np.fromiter(map(counts.__getitem__, texts), dtype=np.intp, count=n) > 1
    hashes = np.fromiter(map(hash, texts), dtype=np.int64, count=n)
    order = np.argsort(hashes)
    hashes = hashes[order]
    repeated = hashes[1:] == hashes[:-1]
    del hashes
    shared = np.zeros(n, dtype=bool)
    shared[1:] = repeated
    shared[:-1] |= repeated
    del repeated
    candidates = order[shared].tolist()  # the few texts sharing a hash
    del order, shared
    duplicates = np.zeros(n, dtype=bool)
    if candidates:
        counts = Counter(map(texts.__getitem__, candidates))
        duplicates[candidates] = [counts[texts[i]] > 1 for i in candidates]
    return duplicates


#: Readability's share of a paragraph's points for the container's parent
#: (level 0), grandparent, and so on: 1, 1/2, then 1/(3 * level).
_RD_DIVISORS = np.array([1.0, 2.0, 6.0, 9.0, 12.0])


def _readability(page: PageColumns) -> tuple[np.ndarray, np.ndarray, float]:
    """:func:`_python_readability`, in one compiled pass over the blocks and
    the containers they score into when it was built
    (``_features.readability_flags``; the same flags and share: tested)."""
    if _readability_flags is None:
        return _python_readability(page)
    doc = page.doc
    containers = doc.container_columns
    in_top, in_sibling, top = _readability_flags(
        _int64(page.chars),
        _int64(page.holder),
        _int64(page.codes),
        READABILITY_BIT,
        doc.block_columns.count(COMMAS),
        _int64(containers.parents),
        containers.tags,
        READABILITY_TAG_PRIOR,
        np.ascontiguousarray(page.signs, dtype=np.int8),
        _int64(page.cchars),
        _int64(page.canchors),
        _int64(page.first),
        _int64(page.last),
        page.texts,
        _STOPS,
        _RD_DIVISORS,
    )
    if top < 0:
        return in_top, in_sibling, 0.0
    return in_top, in_sibling, page.cchars[top] / (page.cchars[0] or 1)


def _python_readability(page: PageColumns) -> tuple[np.ndarray, np.ndarray, float]:
    """Readability's choice of article container, as block features.

    Arc90/Mozilla Readability scores each paragraph (1 + commas + one point
    per 100 characters, up to 3) into its parent, half into its grandparent
    and a third per level above, up to five levels; containers start from a
    tag prior and +-25 for their class/id, and end multiplied by
    ``1 - link density``. Blocks inside the best container, or inside a
    sibling scoring at least a fifth of it, get a flag.

    The shares are added one at a time in Readability's own order
    (paragraph by paragraph, nearest ancestor first): summed otherwise, a
    near-tie (4.0 against 3.9999999999999996) can flip.

    The two flags are booleans (one byte a block, held for the whole scoring).
    """
    n = page.n
    in_top = np.zeros(n, dtype=bool)
    in_sibling = np.zeros(n, dtype=bool)
    scored = np.flatnonzero((page.chars >= 25) & (page.block_codes & READABILITY_BIT != 0))
    if not scored.size:
        return in_top, in_sibling, 0.0
    commas = page.doc.block_columns.count(COMMAS)[scored]
    points = 1.0 + commas + np.minimum(page.chars[scored] // 100, 3.0)
    # The five ancestors each paragraph scores into (-1 past the root) and
    # its share for each, in Readability's order: paragraph by paragraph,
    # nearest ancestor first.
    nc = len(page.parent)
    up = np.empty(nc + 1, dtype=np.intp)
    up[:nc] = page.parent
    up[0] = up[nc] = -1
    chain = np.empty((scored.size, len(_RD_DIVISORS)), dtype=np.intp)
    node = up[page.holder[scored]]
    for level in range(len(_RD_DIVISORS)):
        chain[:, level] = node
        node = up[node]
    shares = points[:, None] / _RD_DIVISORS
    reached = chain >= 0
    nodes = chain[reached]
    touched = np.zeros(nc, dtype=bool)
    touched[nodes] = True
    scored_nodes = np.flatnonzero(touched)
    tags = page.doc.container_columns.tags
    tag_prior = READABILITY_TAG_PRIOR
    final = np.zeros(nc)
    final[scored_nodes] = [
        tag_prior.get(tags[i], 0) + 25 * sign
        for i, sign in zip(scored_nodes.tolist(), page.signs[scored_nodes].tolist())
    ]
    # ufunc.at adds one share at a time, in order: Readability's own sums.
    np.add.at(final, nodes, shares[reached])
    final[scored_nodes] *= 1 - page.canchors[scored_nodes] / page.cchars[scored_nodes]
    best = float(final.max())
    if best <= 0.0:
        return in_top, in_sibling, 0.0
    # A tie goes to the container scored first, as in Readability's walk.
    top = min(np.flatnonzero(final == best).tolist(), key=lambda i: int((nodes == i).argmax()))
    in_top[int(page.first[top]) : int(page.last[top]) + 1] = True
    parents = page.doc.container_columns.parents
    if parents[top] >= 0:
        threshold = max(10.0, best * 0.2)
        texts = page.texts
        # The siblings' figures as lists: read one by one, array items cost more than the arithmetic.
        siblings = np.flatnonzero(parents == parents[top])
        for sibling, first, last, score, chars, anchors in zip(
            siblings.tolist(),
            page.first[siblings].tolist(),
            page.last[siblings].tolist(),
            final[siblings].tolist(),
            page.cchars[siblings].tolist(),
            page.canchors[siblings].tolist(),
        ):
            if sibling == top or first < 0:
                continue
            keep = score >= threshold
            if not keep and tags[sibling] == "p":
                ld = anchors / chars if chars else 1.0
                keep = (chars > 80 and ld < 0.25) or (ld == 0 and texts[last][-1] in _STOPS)
            if keep:
                in_sibling[first : last + 1] = True
    return in_top, in_sibling, page.cchars[top] / (page.cchars[0] or 1)


_CHAR_STEP_ARRAY = np.array(_CHAR_STEPS, dtype=float)
_LD_STEP_ARRAY = np.array(_LD_STEPS)

_BLOCK_AT = {name: j for j, name in enumerate(BLOCK_FEATURES)}


#: Rows of feature matrix built at a time (:func:`iter_block_matrices`):
#: 4,096 rows of the model's ~130 columns are 4 MB, whatever the page's size.
CHUNK_ROWS = 4096


class _BlockFeatures:
    """What the feature rows need from the whole page, computed once: the
    per-block vectors that depend on other blocks (marks, repeats,
    Readability's choice) and the per-container tables of
    :class:`_Structure`. :meth:`fill` then writes any range of rows.

    The rows of a 10 MB page of a million paragraphs would take 1 GB at
    once; written :data:`CHUNK_ROWS` at a time (and scored at once, see
    :func:`webclean_scrapy.engine.extractors.webclean.block_probabilities`) only
    these vectors live for the whole page: a few dozen bytes per block.
    Every value is computed elementwise as in one whole-page pass, so the
    rows are the same bit for bit (tested)."""

    __slots__ = ("page", "ends_stop", "duplicates", "readability", "structure")

    def __init__(self, page: PageColumns) -> None:
        self.page = page
        self.ends_stop = _ends_stop(page)
        self.duplicates = page.repeated
        self.readability = _readability(page)
        self.structure = _Structure(page)

    def fill(self, matrix: np.ndarray, start: int, stop: int) -> None:
        """Write the :data:`BLOCK_FEATURES` of blocks ``start:stop`` into
        the first columns of *matrix* (zeros, ``stop - start`` rows): the
        block's own columns compiled (``_features.block_rows``) when it was
        built and the page's lengths lie in its table of logarithms, else
        by :meth:`python_fill`, their reference; then :class:`_Structure`'s."""
        if _block_rows is None or not self._compiled_fill(matrix, start, stop):
            self.python_fill(matrix, start, stop)
        self.structure.fill(matrix[:, _STRUCTURE_AT : len(BLOCK_FEATURES)], start, stop)

    def _compiled_fill(self, matrix: np.ndarray, start: int, stop: int) -> bool:
        page = self.page
        stops, commas, semicolons = _marks(page, slice(start, stop))
        in_top, in_sibling, share = self.readability
        return bool(
            _block_rows(
                matrix,
                start,
                page.chars,
                page.anchors,
                stops,
                commas,
                semicolons,
                self.ends_stop.view(np.uint8),
                self.duplicates.view(np.uint8),
                in_top.view(np.uint8),
                in_sibling.view(np.uint8),
                float(share),
                _CHAR_STEP_ARRAY,
                _LD_STEP_ARRAY,
                page.holder,
                page.parent,
                page.cchars,
                page.canchors,
                page.codes,
                BINARY_MASKS,
                BINARY_VALUES,
                _log1p_table(),
            )  # fmt: skip
        )

    def python_fill(self, matrix: np.ndarray, start: int, stop: int) -> None:
        """The block's own columns of :meth:`fill` (all but
        :class:`_Structure`'s), with numpy: the reference of the compiled ones."""
        page = self.page
        n = page.n
        at = _BLOCK_AT
        rows = slice(start, stop)
        # The rows' blocks and their neighbours on either side.
        before, after = max(start - 1, 0), min(stop + 1, n)
        near_lds, near_logs = page.densities(before, after)
        own = slice(start - before, stop - before)
        chars, logs, lds = page.chars[rows], near_logs[own], near_lds[own]
        stops, commas, semicolons = _marks(page, rows)
        # Per block; the neighbours past either end count as empty and all links.
        matrix[:, at["bias"]] = 1.0
        matrix[:, at["log_chars"]] = logs
        matrix[:, at["link_density"]] = lds
        matrix[before - start + 1 :, at["log_prev"]] = near_logs[: stop - 1 - before]
        matrix[: after - start - 1, at["log_next"]] = near_logs[start + 1 - before :]
        matrix[before - start + 1 :, at["prev_ld"]] = near_lds[: stop - 1 - before]
        if start == 0:
            matrix[0, at["prev_ld"]] = 1.0
        matrix[: after - start - 1, at["next_ld"]] = near_lds[start + 1 - before :]
        if stop == n:
            matrix[-1, at["next_ld"]] = 1.0
        matrix[:, at["stops"]] = np.minimum(stops * 40.0 / chars, 3.0)
        matrix[:, at["commas"]] = np.minimum((commas + semicolons) * 40.0 / chars, 3.0)
        matrix[:, at["ends_stop"]] = self.ends_stop[rows]
        matrix[:, at["linked_short"]] = np.where(chars < 40, lds, 0.0)
        matrix[:, at["position"]] = np.arange(start, stop) / n
        matrix[:, at["duplicate"]] = self.duplicates[rows]
        in_top, in_sibling, share = self.readability
        matrix[:, at["rd_top"]], matrix[:, at["rd_sibling"]], matrix[:, at["rd_share"]] = (
            in_top[rows],
            in_sibling[rows],
            share,
        )
        matrix[:, _CHARS_AT:_LD_AT] = chars[:, None] >= _CHAR_STEP_ARRAY
        matrix[:, _LD_AT:_CONTAINER_AT] = lds[:, None] >= _LD_STEP_ARRAY
        # Per holding container (:data:`CONTAINER_DENSE`): its parent's and
        # grandparent's (themselves at the root) size, at least 1, and links.
        doc_chars = page.cchars[0] or 1
        elders = page.lineage(rows)[:, 1:3]
        size = np.maximum(page.cchars[elders], 1.0)
        matrix[:, [at["log_parent"], at["log_grand"]]] = _log1p(size)
        matrix[:, [at["parent_ld"], at["grand_ld"]]] = page.canchors[elders] / size
        matrix[:, at["parent_share"]] = size[:, 0] / doc_chars
        matrix[:, at["doc_ld"]] = page.canchors[0] / doc_chars
        # The holder's kind, innermost named group and evidence bits.
        codes = page.codes[page.holder[rows]]
        matrix[:, _KIND_AT:_STRUCTURE_AT] = codes[:, None] & BINARY_MASKS == BINARY_VALUES


def iter_block_matrices(
    page: PageColumns, width: int = len(BLOCK_FEATURES), chunk: int = CHUNK_ROWS
) -> Iterator[tuple[int, np.ndarray]]:
    """The feature rows (:data:`BLOCK_FEATURES`) of *page*'s blocks, *chunk*
    rows at a time: ``(start, matrix)`` pairs, each matrix *width* columns
    wide (zeros past :data:`BLOCK_FEATURES`, for the caller to fill) and
    made anew, so a consumer that drops it frees it."""
    features = _BlockFeatures(page)
    for start in range(0, page.n, chunk):
        stop = min(start + chunk, page.n)
        # Row by row when compiled, in the layout the tree walk reads (no
        # copy); column by column by the numpy references.
        matrix = np.zeros((stop - start, width), order="C" if _block_rows is not None else "F")
        features.fill(matrix, start, stop)
        yield start, matrix


def block_matrix(page: PageColumns) -> np.ndarray:
    """The feature rows (:data:`BLOCK_FEATURES`), one per block, all at once
    (the training script's view; extraction reads :func:`iter_block_matrices`)."""
    matrix = np.zeros((page.n, len(BLOCK_FEATURES)), order="F")
    if page.n:
        _BlockFeatures(page).fill(matrix, 0, page.n)
    return matrix


_GROUP_RE = re.compile("|".join(f"(?P<{name}>{pattern})" for name, pattern in STRUCTURE_GROUPS.items()))
_GROUP_BITS = {name: 1 << j for j, name in enumerate(STRUCTURE_GROUPS)}


#: Lower-cased class/id token -> its :data:`STRUCTURE_GROUPS` bits, for
#: :func:`_python_group_bits` (the build without a C compiler): tokens
#: (``product-card``, ``row``) recur across sites far more than whole
#: strings do. No group's pattern matches whitespace or looks around, so a
#: string's matches are its tokens' matches: its bits, the OR of theirs.
_GROUP_TOKENS: dict[str, int] = {}


def _token_groups(token: str) -> int:
    """The :data:`STRUCTURE_GROUPS` bits of one lower-cased token, memoised."""
    return remember(_GROUP_TOKENS, token, _python_token_groups(token), _GROUP_TOKENS_SIZE)


def _python_token_groups(token: str) -> int:
    """The :data:`STRUCTURE_GROUPS` bits of one token, by the regular
    expression: the reference of the compiled scan (:data:`_GROUP_MATCHER`)."""
    bits = 0
    for match in _GROUP_RE.finditer(token):
        bits |= _GROUP_BITS[match.lastgroup]  # type: ignore[index]
    return bits


def _python_group_bits(words: str) -> int:
    """The :data:`STRUCTURE_GROUPS` bits of a class/id string: its tokens'
    (memoised) OR. The reference of ``_features.GroupMemo``."""
    bits = 0
    known = _GROUP_TOKENS.get
    for token in words.lower().split():
        found = known(token)
        bits |= _token_groups(token) if found is None else found
    return bits


_GROUP_TOKENS_SIZE = 100_000
#: Entries at which :data:`GROUP_MEMO` is emptied.
_GROUP_MEMO_SIZE = 50_000


def _group_matcher() -> object:
    """The compiled scan of :data:`_GROUP_RE`: each alternative carries its
    named group's bit."""
    names = {number: name for name, number in _GROUP_RE.groupindex.items()}
    return LiteralMatcher(
        [
            (text, assertions, _GROUP_BITS[names[group]] if group else 0, 0)
            for text, assertions, group in literal_alternatives(_GROUP_RE.pattern)
        ]
    )


class _GroupMemo(dict):
    """class/id string -> its :data:`STRUCTURE_GROUPS` bits, memoised
    (bounded): ``memo[words]`` computes a string it has not seen (from its
    tokens' memoised bits), so a page's strings are looked up by one ``map``
    in C. The build without a C compiler's; ``_features.GroupMemo`` is the
    compiled one (the same values: ``tests/test_engine_extractors_webclean_features.py``)."""

    def __missing__(self, words: str) -> int:
        return remember(self, words, _python_group_bits(words), _GROUP_MEMO_SIZE)


_GROUP_MATCHER = None
GROUP_MEMO: dict[str, int] = _GroupMemo()
try:  # the compiled scan (an optional extension: see setup.py)
    from webclean_scrapy.engine._features import GroupMemo

    _GROUP_MATCHER = _group_matcher()
    GROUP_MEMO = GroupMemo(_GROUP_MATCHER, _GROUP_MEMO_SIZE)
except (ImportError, ValueError):  # pragma: no cover - a build without a C compiler
    pass


def clear_group_memos() -> None:
    """Empty the structure groups' memos (:data:`_GROUP_TOKENS`,
    :data:`GROUP_MEMO`): part of
    :func:`~webclean_scrapy.engine.extractors.webclean.clear_keyword_memos`."""
    _GROUP_TOKENS.clear()
    GROUP_MEMO.clear()


class _Structure:
    """The :data:`STRUCTURE_FEATURES` columns: per-container tables built
    once (:meth:`__init__`), block rows written on demand (:meth:`fill`).

    One pass over the containers holding text (parents first) gives each
    its depth, its *key* (tag and ``class`` attribute, as written) and its
    own and inherited :data:`STRUCTURE_GROUPS` bits; whole-array counts
    then give, per key, how many containers share it and how much text
    they hold, per (parent, key) how many siblings repeat it, and per
    container how many of its children hold text.

    *Prose* is a block of 80 characters or more, under 30% links. The share
    of prose in the containers sharing a key (and their link density) tells
    a run of forum posts or product sections (prose) from a run of menu
    items or link cards; the share of prose in the holder's ancestors tells
    a paragraph of the article body from one in a sidebar blurb; and the
    container directly holding the most prose (the article body's usual
    shape) marks its blocks."""

    __slots__ = (
        "page",
        "total",
        "count_log",
        "share",
        "same",
        "key_ld",
        "key_prose",
        "keys",
        "depth",
        "children",
        "levels",
        "first_h1",
        "title",
        "top_key_share",
        "prose_ratio",
        "prose_top",
        "own",
        "inherited",
    )

    def __init__(self, page: PageColumns) -> None:
        # What is held for the whole scoring is kept small: per key (not per
        # container) what containers sharing a key share, counts as int32
        # and bits as bytes, their logarithms taken per chunk of rows in
        # :meth:`fill` (elementwise: the same values); about 30 bytes a
        # container, where one float64 array per figure took 104.
        self.page = page
        doc = page.doc
        columns = doc.container_columns
        nc = len(columns)
        tags = columns.tags
        attributes = columns.attributes
        cchars = page.cchars
        self.total = total = float(cchars[0]) or 1.0
        held = np.flatnonzero(cchars).astype(np.int32)
        # Per container holding text (every ancestor of one holds text too):
        # its own STRUCTURE_GROUPS bits, from its class and id (memoised by
        # that string), and its key, numbered in order of first appearance
        # (the root's key is 0, which the containers without text read).
        # Read a slice of containers at a time: on a page of a million, each
        # list of them would take 8 MB (the list of indexes, 40).
        if page.structure_read is not None:  # read with the keyword codes (PageColumns)
            own, keys, nk = page.structure_read
            page.structure_read = None
        else:
            own = np.zeros(nc, dtype=np.uint8)  # one bit per group: fewer than 8 groups
            numbering = Numbering()
            keys = np.zeros(nc, dtype=np.int32)
            for at in range(0, len(held), _SLICE):
                structure_keys(held[at : at + _SLICE], tags, attributes, GROUP_MEMO, numbering, own, keys)
            nk = len(numbering)
            del numbering
        nk = max(nk, 1)
        # Depth (the root 1) and inherited bits (the container's and its
        # ancestors' own).
        depth, inherited = _depths(columns.parents, own)
        # Per key: containers sharing it and their text; per (parent, key):
        # siblings sharing it; per container: children holding text.
        self.keys = keys
        tables = _structure_tables(page, held, keys, nk, total, depth, inherited)
        self.count_log = np.log1p(tables.counts)
        self.share = tables.share
        #: Per container: how many of its siblings (itself included) share its key.
        self.same = tables.same
        #: Per container: how many of its children hold text.
        self.children = tables.children
        self.prose_top: tuple[int, int] | None = None
        if tables.top >= 0:
            self.prose_top = int(page.first[tables.top]), int(page.last[tables.top]) + 1
        self.key_ld = tables.key_ld
        self.key_prose = tables.key_prose
        self.prose_ratio = tables.prose_ratio
        self.top_key_share = tables.top_key_share
        self.depth = depth
        #: Per container: its heading level (1-6), 0 if not a heading.
        self.levels = _heading_levels(tags, _HEADING_LEVELS)
        first_h1 = np.flatnonzero(self.levels[page.holder] == 1)
        self.first_h1 = int(first_h1[0]) if first_h1.size else 0
        self.title = doc.title.strip().lower()
        self.own = own
        self.inherited = inherited

    def fill(self, out: np.ndarray, start: int, stop: int) -> None:
        """Write the rows of blocks ``start:stop`` into *out* (zeros):
        compiled (``_features.structure_rows``) when it was built and the
        page's counts lie in its table of logarithms, else
        :meth:`python_fill`, its reference."""
        if _structure_rows is None or not self._compiled_fill(out, start):
            self.python_fill(out, start, stop, title=False)
        self._fill_title(out, start, stop)

    def _compiled_fill(self, out: np.ndarray, start: int) -> bool:
        page = self.page
        total = self.total
        prose_top = self.prose_top or (0, 0)
        constants = (
            total,
            math.log1p(total),
            math.log1p(page.n),
            float(page.canchors[0] / total),
            math.log1p(len(self.depth)),
            self.top_key_share,
            COMMENT_AREA_BIT,
            self.first_h1,
            *prose_top,
            len(STRUCTURE_GROUPS),
        )
        return bool(
            _structure_rows(
                out,
                start,
                page.holder,
                page.parent,
                self.keys,
                self.count_log,
                self.share,
                self.same,
                self.key_ld,
                self.key_prose,
                self.depth,
                self.children,
                page.first,
                page.last,
                self.levels,
                page.prefix_chars,
                page.codes,
                page.cchars,
                self.prose_ratio,
                self.own,
                self.inherited,
                _count_log_table(),
                constants,
            )  # fmt: skip
        )

    def _fill_title(self, out: np.ndarray, start: int, stop: int) -> None:
        """The ``is_title`` column: whether the block's text is the page's title."""
        if not self.title:
            return
        title = self.title
        texts = self.page.texts[start:stop]
        at = _STRUCTURE_COLUMN["is_title"]
        if title.isascii():
            # A text whose lower case is an ASCII title has its length
            # (only U+0130 lowers to two characters, one not ASCII).
            size = np.fromiter(map(len, texts), dtype=np.intp, count=len(texts))
            same = [i for i in np.flatnonzero(size == len(title)).tolist() if texts[i].lower() == title]
            out[same, at] = 1.0
        else:
            out[:, at] = [text.lower() == title for text in texts]

    def python_fill(self, out: np.ndarray, start: int, stop: int, title: bool = True) -> None:
        """Write the rows of blocks ``start:stop`` into *out* (zeros), with
        numpy: the reference of the compiled :meth:`fill` (which writes the
        ``is_title`` column itself: *title* false leaves it)."""
        page = self.page
        rows = slice(start, stop)
        n, total, keys = page.n, self.total, self.keys
        lineage = page.lineage(rows)
        holder = lineage[:, 0]
        at = _STRUCTURE_COLUMN
        for level in range(3):
            node = lineage[:, level]
            key = keys[node]
            out[:, at[f"key_count{level}"]] = self.count_log[key]
            out[:, at[f"key_share{level}"]] = self.share[key]
            out[:, at[f"sib_same{level}"]] = np.log1p(self.same[node].astype(float))
            out[:, at[f"key_ld{level}"]] = self.key_ld[key]
            out[:, at[f"key_prose{level}"]] = self.key_prose[key]
        out[:, at["depth"]] = self.depth[holder]
        parents, grandparents = lineage[:, 1], lineage[:, 2]
        out[:, at["parent_children"]] = np.log1p(self.children[parents].astype(float))
        first, last = page.first, page.last
        out[:, at["parent_blocks"]] = np.log1p((last[parents] - first[parents] + 1).astype(float))
        out[:, at["grand_blocks"]] = np.log1p((last[grandparents] - first[grandparents] + 1).astype(float))
        out[:, at["heading_level"]] = self.levels[holder]
        if self.first_h1 > start:
            out[: self.first_h1 - start, at["before_h1"]] = 1.0
        if title:
            self._fill_title(out, start, stop)
        out[:, at["char_position"]] = page.prefix_chars[rows] / total
        out[:, at["page_log_chars"]] = math.log1p(total)
        out[:, at["page_log_blocks"]] = math.log1p(n)
        out[:, at["page_ld"]] = page.canchors[0] / total
        out[:, at["page_log_containers"]] = math.log1p(len(self.depth))
        out[:, at["top_key_share"]] = self.top_key_share
        out[:, at["in_area"]] = page.codes[holder] & COMMENT_AREA_BIT != 0
        for level in (1, 2, 3):
            out[:, at[f"up_share{level}"]] = page.cchars[lineage[:, level]] / total
            out[:, at[f"prose_ratio{level}"]] = self.prose_ratio[lineage[:, level]]
        if self.prose_top is not None:
            first_block, end_block = self.prose_top
            if first_block < stop and end_block > start:
                out[max(first_block, start) - start : min(end_block, stop) - start, at["in_prose_top"]] = 1.0
        own_bits = self.own[holder]
        inherited_bits = self.inherited[holder]
        for j, name in enumerate(STRUCTURE_GROUPS):
            out[:, at[f"x_{name}"]] = inherited_bits >> j & 1
            out[:, at[f"own_{name}"]] = own_bits >> j & 1


#: Containers read at a time where a Python list per container is made.
_SLICE = 1 << 16


class _StructureTables(NamedTuple):
    """The per-key and per-container tables of :class:`_Structure` after its
    keys and depths: what :func:`_python_structure_tables` computes."""

    #: Per key: how many containers holding text share it (float64) and
    #: their share of the page's text.
    counts: np.ndarray
    share: np.ndarray
    #: Per container (int32): siblings holding text that share its
    #: (parent, key) pair, itself included; its children holding text.
    same: np.ndarray
    children: np.ndarray
    #: The container directly holding the most prose (-1: no prose).
    top: int
    #: Per key: the link density and the prose share of its containers.
    key_ld: np.ndarray
    key_prose: np.ndarray
    #: Per container: the share of its subtree's text that is prose.
    prose_ratio: np.ndarray
    #: The largest key's share of the page's text.
    top_key_share: float


def _python_structure_tables(
    page: PageColumns,
    held: np.ndarray,
    keys: np.ndarray,
    nk: int,
    total: float,
    depth: np.ndarray,
    inherited: np.ndarray,
) -> _StructureTables:
    """The tables of :class:`_StructureTables` of *page*, whose containers
    holding text are *held* (int32, in order) and whose containers' key
    numbers (below *nk*) are *keys*; *depth* and *inherited* are set to 0
    for the containers without text. The reference for the compiled
    ``_features.structure_tables``."""
    columns = page.doc.container_columns
    nc = len(columns)
    cchars = page.cchars
    held_keys = keys[held]
    counts = np.bincount(held_keys, minlength=nk).astype(float)
    key_chars = np.bincount(held_keys, weights=cchars[held], minlength=nk)
    share = key_chars / total
    same = _pair_counts(columns.parents[held], held_keys, nk, held, nc)
    held_parents = columns.parents[held]
    children = np.bincount(held_parents[held_parents >= 0], minlength=nc).astype(np.int32)
    del held_parents
    n = page.n
    chars = page.chars
    prose = np.where((chars >= 80) & (page.anchors < 0.3 * chars), chars, 0.0)
    prose_prefix = np.zeros(n + 1)
    prose.cumsum(out=prose_prefix[1:])
    top = -1
    if prose.any():
        direct = np.bincount(page.holder, weights=prose, minlength=nc)
        top = int(direct.argmax())
        del direct
    del prose
    subtree_prose = np.zeros(nc)
    for at in range(0, len(held), _SLICE):
        part = held[at : at + _SLICE]
        subtree_prose[part] = prose_prefix[page.last[part] + 1] - prose_prefix[page.first[part]]
    del prose_prefix
    prose_sums = np.bincount(held_keys, weights=subtree_prose[held], minlength=nk)
    key_anchors = np.bincount(held_keys, weights=page.canchors[held], minlength=nk)
    del held_keys
    key_base = np.maximum(key_chars, 1.0)
    key_ld = key_anchors / key_base
    del key_anchors
    key_prose = prose_sums / key_base
    del key_base, prose_sums
    prose_ratio = subtree_prose / np.maximum(cchars, 1.0)
    del subtree_prose
    unheld = cchars == 0
    depth[unheld] = 0
    inherited[unheld] = 0
    top_key_share = float(key_chars.max()) / total if key_chars.size else 0.0
    return _StructureTables(counts, share, same, children, top, key_ld, key_prose, prose_ratio, top_key_share)


def _structure_tables(
    page: PageColumns,
    held: np.ndarray,
    keys: np.ndarray,
    nk: int,
    total: float,
    depth: np.ndarray,
    inherited: np.ndarray,
) -> _StructureTables:
    """:func:`_python_structure_tables`, in one compiled pass over the blocks
    and one over the containers holding text when it was built (the same
    values, bit for bit: tested)."""
    if _compiled_structure_tables is None:
        return _python_structure_tables(page, held, keys, nk, total, depth, inherited)
    columns = page.doc.container_columns
    found = _compiled_structure_tables(
        _int64(columns.parents),
        held,
        keys,
        nk,
        *map(_int64, (page.cchars, page.canchors, page.chars, page.anchors, page.holder, page.first, page.last)),
        total,
        depth,
        inherited,
    )
    return _StructureTables(*found)


def _int64(column: np.ndarray) -> np.ndarray:
    """*column* as a contiguous int64 array (itself when it is one: the walk's columns are)."""
    return np.ascontiguousarray(column, dtype=np.int64)


def _pair_counts(parents: np.ndarray, keys: np.ndarray, nk: int, held: np.ndarray, nc: int) -> np.ndarray:
    """Per container (*nc* of them, int32): how many of the *held*
    containers share its (parent, key) pair, given the *parents* and *keys*
    (below *nk*) of the held ones; 0 for the others. Sorted pairs and run
    lengths: ``np.unique`` with its inverse and counts would hold about
    twice as many arrays of the held containers' length at once."""
    counts = np.zeros(nc, dtype=np.int32)
    if not len(held):
        return counts
    pairs = parents.astype(np.int32 if (nc + 1) * nk < 2**31 else np.int64)
    pairs *= nk
    pairs += keys
    order = np.argsort(pairs)
    pairs = pairs[order]
    starts = np.empty(len(pairs), dtype=bool)
    starts[0] = True
    np.not_equal(pairs[1:], pairs[:-1], out=starts[1:])
    del pairs
    runs = np.flatnonzero(starts)
    del starts
    lengths = np.diff(runs, append=len(order)).astype(np.int32)
    del runs
    counts[held[order]] = np.repeat(lengths, lengths)
    return counts


def _python_depths(parents: np.ndarray, own: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per container: its depth, the root 1 (int32), and the OR of its own
    and its ancestors' *own* bits (uint8), by pointer jumping: log2(depth)
    numpy passes, whatever the containers' order. The reference for
    :func:`webclean_scrapy.engine._signals.depths`."""
    nc = len(parents)
    depth = np.ones(nc + 1, dtype=np.int32)
    depth[nc] = 0
    inherited = np.zeros(nc + 1, dtype=np.uint8)
    inherited[:nc] = own
    up = np.empty(nc + 1, dtype=np.int32)
    up[:nc] = parents
    up[up < 0] = nc
    up[nc] = nc
    while (up != nc).any():
        depth += depth[up]
        inherited |= inherited[up]
        up = up[up]
    return depth[:nc], inherited[:nc]


def _depths(parents: np.ndarray, own: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_python_depths`, in one compiled pass over the containers
    (parents come before their children) when it was built."""
    found = None if _compiled_depths is None else _compiled_depths(parents, own)
    return _python_depths(parents, own) if found is None else found


try:  # the same tables, compiled (an optional extension: see setup.py)
    from webclean_scrapy.engine._signals import depths as _compiled_depths
except ImportError:  # pragma: no cover - a build without a C compiler
    _compiled_depths = None


class Numbering(dict):
    """Key -> its number, numbered in order of first use (``numbering[key]``)."""

    def __missing__(self, key: object) -> int:
        self[key] = number = len(self)
        return number


def _python_structure_keys(
    indexes: np.ndarray,
    tags: list[str],
    attributes: list[dict[str, str]],
    memo: dict[str, int],
    numbering: Numbering,
    own: np.ndarray,
    keys: np.ndarray,
) -> None:
    """Per container of *indexes* (int32): its :data:`STRUCTURE_GROUPS` bits
    (*memo*, by its ``"class id"`` string) and its (tag, class) key's number
    in *numbering*, written into *own* and *keys* at its index. The
    reference for :func:`webclean_scrapy.engine._signals.structure_keys`."""
    indexes = indexes.tolist()
    found = list(map(attributes.__getitem__, indexes))
    classes = [a.get("class") or None for a in found]
    words = [f"{cls or ''} {a.get('id') or ''}" if a else " " for cls, a in zip(classes, found)]
    own[indexes] = list(map(memo.__getitem__, words))
    keys[indexes] = list(map(numbering.__getitem__, zip(map(tags.__getitem__, indexes), classes)))


try:  # the same loop, compiled (an optional extension: see setup.py)
    from webclean_scrapy.engine._signals import structure_keys as structure_keys
except ImportError:  # pragma: no cover - a build without a C compiler
    structure_keys = _python_structure_keys


_STRUCTURE_COLUMN = {name: j for j, name in enumerate(STRUCTURE_FEATURES)}

try:  # the compiled rows (an optional extension: see setup.py)
    from webclean_scrapy.engine._features import block_rows as _block_rows
    from webclean_scrapy.engine._features import readability_flags as _readability_flags
    from webclean_scrapy.engine._features import structure_rows as _structure_rows
    from webclean_scrapy.engine._features import structure_tables as _compiled_structure_tables
except ImportError:  # pragma: no cover - a build without a C compiler
    _block_rows = _structure_rows = _compiled_structure_tables = _readability_flags = None


@lru_cache(maxsize=1)
def _count_log_table() -> np.ndarray:
    """``np.log1p`` of every count below :data:`_LOG_TABLE_SIZE` (what
    :meth:`_Structure.python_fill` computes for its counts), built on first use."""
    return np.log1p(np.arange(_LOG_TABLE_SIZE, dtype=float))


_HEADING_LEVELS = {f"h{level}": level for level in range(1, 7)}


def _python_heading_levels(tags: list[str], levels: dict[str, int]) -> np.ndarray:
    """Per container, its tag's heading level in *levels* (int8), 0 if not a
    heading. The reference for :func:`webclean_scrapy.engine._signals.heading_levels`."""
    return np.fromiter(map(levels.get, tags, repeat(0, len(tags))), dtype=np.int8, count=len(tags))


try:  # the same lookup, compiled (an optional extension: see setup.py)
    from webclean_scrapy.engine._signals import heading_levels as _heading_levels
except ImportError:  # pragma: no cover - a build without a C compiler
    _heading_levels = _python_heading_levels


def block_features(doc: Document) -> np.ndarray:
    """The feature rows of *doc*'s blocks (:data:`BLOCK_FEATURES`), shape
    ``(blocks, features)``: what the model scores, and what the training
    script fits it on."""
    if not len(doc.block_columns):
        return np.zeros((0, len(BLOCK_FEATURES)))
    return block_matrix(PageColumns(doc))
