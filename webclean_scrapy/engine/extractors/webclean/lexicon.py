"""The markup lexicon: learned weights of the words a page's markup names its parts with.

:mod:`.keywords` reads the class/id words every web developer uses
(``nav``, ``comment``, ``article-body``) from hand-written lists. Today's
sites name their parts in many more words, shared across sites by the
frameworks and themes that made them (``pdp``, ``description``,
``product-tabs``, ``topic-body``, ``card-body``, ``wp-block``...), and no
list foresees them all. The lexicon is a linear model (logistic
regression, fitted by ``benchmarks/train_webclean.py`` on the same labels
as the trees) over the words of the ``class``, ``id``, ``role`` and
``itemprop`` of a block's holder, parent, grandparent and every ancestor
above, each level apart, plus the holder's and the parent's tag. Its
log-odds is one feature of every block (``markup_lexicon``), so the trees
weigh it against everything else. Only words seen on at least a few
training domains have a weight, so no single site's class names count.

The score of a block is ``bias + sum(weights of its words) / sqrt(number
of its words)`` (every word counts in the number, weighted or not), and
the sums are made per container, once: a block reads its holder's,
parent's and grandparent's and the running sum of the ancestors above.
:func:`block_words` lists each block's words: the definition the training
script fits on and the reference :meth:`MarkupLexicon.block_scores` is
tested against.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.extractors.webclean.keywords import remember

try:
    from webclean_scrapy.engine._features import lexicon_scores as _lexicon_scores
    from webclean_scrapy.engine._features import lexicon_sums as _lexicon_sums
except ImportError:  # not built (no C compiler at install): the Python loops run
    _lexicon_sums = _lexicon_scores = None

#: A word of an attribute value: a run of lower-case letters (digits and
#: punctuation split words; ``post-12345`` is ``post``), two letters or more.
_WORD = re.compile(r"[a-z]{2,}")

#: The levels a block's words come from, the prefix of each word: holder,
#: parent, grandparent, every ancestor above.
LEVELS: tuple[str, ...] = ("0", "1", "2", "a")


def value_words(name: str, value: str) -> tuple[str, ...]:
    """The words of one descriptive attribute's value, each prefixed with
    the attribute's initial (``"c:card"``, ``"i:main"``)."""
    prefix = f"{name[0]}:"
    return tuple(prefix + word for word in _WORD.findall(value.lower()))


def attribute_words(attributes: dict[str, str]) -> list[str]:
    """The words of one container's descriptive attributes (class, id,
    role, itemprop)."""
    return [word for name, value in attributes.items() for word in value_words(name, value)]


def block_words(doc: Document) -> list[list[str]]:
    """Each block's words, level-prefixed (``"0c:card"``: the holder's
    class says "card"; ``"1Tli"``: the parent is an ``<li>``): what the
    lexicon scores, one list per block."""
    columns = doc.container_columns
    tags, parents = columns.tags, columns.parents.tolist()
    own = [attribute_words(attributes) if attributes else [] for attributes in columns.attributes]
    result = []
    for holder in doc.block_columns.holders.tolist():
        words = ["0T" + tags[holder], *("0" + w for w in own[holder])]
        level, at = 1, parents[holder]
        while at >= 0:
            if level == 1:
                words.append("1T" + tags[at])
            prefix = LEVELS[min(level, 3)]
            words.extend(prefix + w for w in own[at])
            level, at = level + 1, parents[at]
        result.append(words)
    return result


def pack(row: Iterable[float]) -> bytes:
    """A row of weights or sums as the compiled loop reads it (``_features.lexicon_sums``):
    its doubles in one ``bytes``, one object in a large memo where a tuple of floats is six."""
    values = tuple(row)
    return struct.pack(f"{len(values)}d", *values)


def unpack(row: bytes) -> tuple[float, ...]:
    """:func:`pack`'s floats."""
    return struct.unpack(f"{len(row) // 8}d", row)


#: Per-container sums kept for each attribute value, memoised per lexicon.
_SUMS_SIZE = 1 << 16
#: Containers read per slice by :meth:`MarkupLexicon._python_sums`.
_SLICE = 1 << 12
#: Blocks scored at a time by :meth:`MarkupLexicon.block_scores`.
_BLOCK_SLICE = 1 << 16


@dataclass(frozen=True)
class MarkupLexicon:
    """The fitted weights (level-prefixed words, see :func:`block_words`) and bias."""

    weights: dict[str, float]
    bias: float
    #: Attribute name -> value -> the sums of the value's words' weights
    #: read at each of :data:`LEVELS`, and its number of words.
    _sums: dict[str, dict[str, tuple[float, ...]]] = field(default_factory=dict, compare=False, repr=False)
    #: :attr:`_sums`' rows as the compiled loop keeps them (:func:`pack`):
    #: a memo of its own, so either loop runs after the other.
    _packed_sums: dict[str, dict[str, bytes]] = field(default_factory=dict, compare=False, repr=False)
    #: Attribute initial -> word -> its weight at each of :data:`LEVELS`.
    _by_word: dict[str, dict[str, tuple[float, ...]]] = field(init=False, compare=False, repr=False)
    #: :attr:`_by_word`'s rows packed, for the compiled loop.
    _packed_by_word: dict[str, dict[str, bytes]] = field(init=False, compare=False, repr=False)

    def score_words(self, words: list[str]) -> float:
        """The log-odds of one block from its words (the reference)."""
        get = self.weights.get
        return self.bias + sum(get(w, 0.0) for w in words) / math.sqrt(max(len(words), 1))

    def __post_init__(self) -> None:
        # Attribute initial -> word -> its weights at the four LEVELS: an
        # attribute value's sums are then one lookup per word, with no
        # string made per word and level.
        by_word: dict[str, dict[str, list[float]]] = {}
        for key, weight in self.weights.items():
            level, word = key[0], key[1:]
            if word[1:2] == ":":  # an attribute's word, not a tag ("0Tdiv")
                levels = by_word.setdefault(word[0], {}).setdefault(word[2:], [0.0] * len(LEVELS))
                levels[LEVELS.index(level)] = weight
        object.__setattr__(
            self,
            "_by_word",
            {initial: {word: tuple(levels) for word, levels in words.items()} for initial, words in by_word.items()},
        )
        object.__setattr__(
            self,
            "_packed_by_word",
            {initial: {word: pack(levels) for word, levels in words.items()} for initial, words in by_word.items()},
        )

    def _value_sums(self, name: str, value: str) -> tuple[float, ...]:
        """The row of one attribute value (see :attr:`_sums`), made and memoised:
        what the Python loop (:meth:`_python_sums`) reads for a value not yet
        in the memo, and the reference of the compiled loop's own
        (``_features.value_sums``), which a new site's values mostly take."""
        get = self._by_word.get(name[0], {}).get
        s0 = s1 = s2 = s3 = 0.0
        words = _WORD.findall(value.lower())
        for word in words:
            levels = get(word)
            if levels is not None:
                w0, w1, w2, w3 = levels
                s0 += w0
                s1 += w1
                s2 += w2
                s3 += w3
        return remember(self._sums.setdefault(name, {}), value, (s0, s1, s2, s3, float(len(words))), _SUMS_SIZE)

    def forget(self) -> None:
        """Empty the per-value sums memos (a process that has seen no page)."""
        self._sums.clear()
        self._packed_sums.clear()

    def _python_sums(self, attributes: list[dict[str, str]], parents: np.ndarray, table: np.ndarray) -> None:
        """Columns 0-4 of row *j* of *table* (zeros): the sum of the rows
        of container *j*'s attribute values; columns 5 and 6: the running
        sums of columns 3 and 4 from the root down to *j* (parents come
        first). The reference of ``_features.lexicon_sums``."""
        memo = self._sums
        for at in range(0, len(attributes), _SLICE):
            indexes: list[int] = []
            rows: list[tuple[float, ...]] = []
            for index in range(at, min(at + _SLICE, len(attributes))):
                row = (0.0,) * (len(LEVELS) + 1)
                for name, value in attributes[index].items():
                    found = memo.get(name, {}).get(value) or self._value_sums(name, value)
                    row = tuple(a + b for a, b in zip(row, found))
                if attributes[index]:
                    indexes.append(index)
                    rows.append(row)
            if indexes:
                table[indexes, : len(LEVELS) + 1] = rows
            del indexes, rows
        above, count = table[:, 3].tolist(), table[:, 4].tolist()
        for index, parent in enumerate(parents.tolist()):
            if parent >= 0:
                above[index] += above[parent]
                count[index] += count[parent]
        table[: len(above), 5] = above
        table[: len(count), 6] = count

    def block_scores(self, doc: Document, compiled: bool = True) -> np.ndarray:
        """The log-odds of every block of *doc*, as :meth:`score_words` of
        :func:`block_words` gives them, from per-container sums: one pass
        over the containers with attributes (their values' sums memoised;
        compiled, ``_features.lexicon_sums``, when it was built, else
        :meth:`_python_sums`, its reference: ``compiled=False``),
        the ancestors' running sums made in the same pass, then
        whole-column reads per block, :data:`_BLOCK_SLICE` blocks at a time
        (compiled, one loop over the blocks: ``_features.lexicon_scores``).
        Every per-container temporary is an array (the reference's lists
        are a slice of containers at a time) and every per-block one a
        slice's: a page of a million blocks holds the container table (56
        bytes a container) and the scores here, not Python objects."""
        blocks, columns = doc.block_columns, doc.container_columns
        if not len(blocks):
            return np.zeros(0)
        n = len(columns)
        # Row j: container j's sums at each level and its number of words,
        # then the running sums of the "a" level and of the words from the
        # root down to j; row n stands for the root's missing parent (zeros).
        table = np.zeros((n + 1, len(LEVELS) + 3))
        parents = np.ascontiguousarray(columns.parents, dtype=np.int64)
        holders = blocks.holders
        if compiled and _lexicon_sums is not None and _lexicon_scores is not None:
            _lexicon_sums(columns.attributes, parents, self._packed_sums, self._packed_by_word, _SUMS_SIZE, table)
            scores = np.empty(len(holders))
            own, above = self._tag_tables(columns.tags)
            holder_array = np.ascontiguousarray(holders, dtype=np.int64)
            _lexicon_scores(table, holder_array, parents, columns.tags, own, above, self.bias, scores)
            return scores
        self._python_sums(columns.attributes, parents, table)
        up = np.append(parents, n)
        up[up < 0] = n
        scores = np.empty(len(holders))
        # A slice of blocks at a time: the per-block temporaries (ancestors,
        # sums, word counts) of a page of a million blocks would each be 8 MB.
        for start in range(0, len(holders), _BLOCK_SLICE):
            holder = holders[start : start + _BLOCK_SLICE]
            parent = up[holder]
            total = table[holder, 0] + self._tag_weights(columns.tags, holder, parent, n)
            words = table[holder, 4] + 1
            total += table[parent, 1]
            words += table[parent, 4] + (parent < n)
            grand = up[parent]
            total += table[grand, 2]
            words += table[grand, 4]
            great = up[grand]
            total += table[great, 5]
            words += table[great, 6]
            np.maximum(words, 1, out=words)
            np.sqrt(words, out=words)
            total /= words
            total += self.bias
            scores[start : start + len(holder)] = total
        return scores

    def _tag_tables(self, tags: list[str]) -> tuple[dict[str, float], dict[str, float]]:
        """The weight of each of *tags* as a block's holder and as its parent."""
        get = self.weights.get
        own = {tag: get("0T" + tag, 0.0) for tag in set(tags)}
        return own, {tag: get("1T" + tag, 0.0) for tag in own}

    def _tag_weights(self, tags: list[str], holder: np.ndarray, parent: np.ndarray, root: int) -> np.ndarray:
        """Each block's holder's tag weight plus its parent's (none past
        the root, index *root*), read per block (a page has far fewer
        blocks than containers): the reference of the compiled loop's
        (``_features.lexicon_scores``)."""
        return self._python_tag_weights(tags, holder, parent, root, *self._tag_tables(tags))

    @staticmethod
    def _python_tag_weights(
        tags: list[str], holder: np.ndarray, parent: np.ndarray, root: int, own: dict, above: dict
    ) -> np.ndarray:
        return np.fromiter(
            (own[tags[h]] + (above[tags[p]] if p != root else 0.0) for h, p in zip(holder.tolist(), parent.tolist())),
            dtype=float,
            count=len(holder),
        )

    @classmethod
    def from_json(cls, data: dict) -> MarkupLexicon:
        return cls({str(word): float(weight) for word, weight in data["weights"].items()}, float(data["bias"]))

    def to_json(self) -> dict:
        return {"bias": self.bias, "weights": self.weights}
