"""Repeated units decide together: a block's probability moved towards its
group's.

A forum thread is a run of posts built from one template, a listing a run
of cards: the same markup, repeated under one parent. The block model
scores every block on its own evidence, so one post's paragraph can fall
under the threshold while its siblings in the other posts pass (a short
reply, a post that quotes another), and the thread comes out with holes.
The blocks that sit at the same place in repeated units are one kind of
thing on the page, and the page's own markup says so.

A block's **group** is found from its holder upward (at most
:data:`MAX_LEVELS` containers): the first container that is one of
:data:`MIN_REPEATS` or more siblings sharing a tag and class under one
parent is the repeated unit, and the group is that unit's parent with the chain of
(tag, class) keys from the unit down to the holder. The second post's
body paragraph and the fifth's share a group; a post's byline does not
share the body's. A block with no repeated ancestor that close has no
group (-1).

With a **consensus weight** ``w`` (0 or 1, chosen per predicted page type
by cross-validation with the other policies, ``benchmarks/train_webclean.py``),
each block in a group of :data:`MIN_REPEATS` blocks or more has its
log-odds replaced by ``(1 - w) * own + w * group mean``, the mean weighted
by ``log1p(characters)`` as the runs weigh votes (:mod:`.continuity`):
with 1 the group is kept or dropped as one (the vetoes and the runs still
apply to each block after). ``w`` 0 changes nothing. The shipped model
takes it on forum, product, documentation and service pages, where
cross-validation chose it.

Cost: one compiled pass over the containers (their (tag, class) keys and
the siblings sharing one) and one over the blocks (each block's walk up, at
most :data:`MAX_LEVELS` containers, and its group's number); the numpy
reference makes two sorts and :data:`MAX_LEVELS` whole-column steps. Made
only on the page types that use it.
"""

from __future__ import annotations

import numpy as np

from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.extractors.webclean.features import GROUP_MEMO, Numbering, structure_keys

try:  # the groups in one compiled pass (an optional extension: see setup.py)
    from webclean_scrapy.engine._signals import structural_groups as _compiled_groups
except ImportError:  # pragma: no cover - a build without a C compiler
    _compiled_groups = None

#: A unit is repeated when at least this many siblings (itself included) share its tag and class.
MIN_REPEATS = 3
#: How far above its holder a block's repeated unit may be.
MAX_LEVELS = 7
#: Log-odds are read from probabilities clipped this far from 0 and 1.
_CLIP = 1e-6
#: Multiplier of the rolling code of a chain of keys (odd, below 2**31).
_CHAIN_STEP = 1_000_003


def structural_groups(doc: Document) -> np.ndarray:
    """Per block of *doc*: its group number (see the module docstring), or
    -1 when no container within :data:`MAX_LEVELS` of its holder is
    repeated. Numbers are dense from 0, in order of first block. One
    compiled pass over the containers and one over the blocks when it was
    built (``_signals.structural_groups``); :func:`_python_structural_groups`,
    the reference, otherwise."""
    if _compiled_groups is None:
        return _python_structural_groups(doc)
    containers = doc.container_columns
    groups: np.ndarray = _compiled_groups(
        containers.tags,
        containers.attributes,
        np.ascontiguousarray(containers.parents, dtype=np.int64),
        np.ascontiguousarray(doc.block_columns.holders, dtype=np.int64),
        MIN_REPEATS,
        MAX_LEVELS,
        _CHAIN_STEP,
    )
    return groups


def _python_structural_groups(doc: Document) -> np.ndarray:
    """:func:`structural_groups` in numpy: the reference."""
    blocks = doc.block_columns
    n = len(blocks)
    if not n:
        return np.zeros(0, dtype=np.int64)
    containers = doc.container_columns
    # The (tag, class) keys the structure features number (:mod:`.features`), compiled.
    count = len(containers.tags)
    keys = np.zeros(count, dtype=np.int32)
    numbering = Numbering()
    structure_keys(
        np.arange(count, dtype=np.int32),
        containers.tags,
        containers.attributes,
        GROUP_MEMO,
        numbering,
        np.zeros(count, dtype=np.uint8),
        keys,
    )
    keys = keys.astype(np.int64)
    parents = np.asarray(containers.parents, dtype=np.int64)
    # Siblings sharing a key: one count per (parent, key) pair.
    pair = np.maximum(parents, 0) * len(numbering) + keys
    _, pair_index, pair_counts = np.unique(pair, return_inverse=True, return_counts=True)
    repeated = pair_counts[pair_index] >= MIN_REPEATS
    repeated[0] = False  # the root has no siblings
    current = np.asarray(blocks.holders, dtype=np.int64).copy()
    chain = np.zeros(n, dtype=np.int64)
    unit = np.full(n, -1, dtype=np.int64)
    searching = np.ones(n, dtype=bool)
    with np.errstate(over="ignore"):  # the rolling code wraps around, as intended
        for _ in range(MAX_LEVELS):
            live = np.flatnonzero(searching & (current > 0))
            if not live.size:
                break
            at = current[live]
            chain[live] = chain[live] * _CHAIN_STEP + keys[at] + 1
            found = repeated[at]
            unit[live[found]] = at[found]
            searching[live[found]] = False
            current[live[~found]] = parents[at[~found]]
    grouped = np.flatnonzero(unit >= 0)
    groups = np.full(n, -1, dtype=np.int64)
    if grouped.size:
        with np.errstate(over="ignore"):
            codes = chain[grouped] * _CHAIN_STEP + parents[unit[grouped]]
        _, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
        # Dense numbers in order of each group's first block.
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        groups[grouped] = rank[inverse.reshape(-1)]
    return groups


def consensus_probabilities(
    probabilities: np.ndarray, groups: np.ndarray, chars: np.ndarray, weight: float
) -> np.ndarray:
    """*probabilities* with each grouped block's log-odds moved *weight* of
    the way to its group's mean (groups of :data:`MIN_REPEATS` blocks or
    more; weighted by ``log1p`` of *chars*). A new array; *weight* 0 or no
    group returns *probabilities* itself."""
    member = groups >= 0
    if weight <= 0 or not member.any():
        return probabilities
    p = np.clip(probabilities, _CLIP, 1 - _CLIP)
    own = np.log(p / (1 - p))
    g = groups[member]
    size = int(g.max()) + 1
    votes = np.log1p(np.asarray(chars, dtype=float))[member]
    total = np.bincount(g, votes, size)
    mean = np.bincount(g, votes * own[member], size) / np.maximum(total, 1e-12)
    large = np.bincount(g, None, size) >= MIN_REPEATS
    at = np.flatnonzero(member)[large[g]]
    # Blocks outside large groups keep their probabilities exactly.
    result = np.array(probabilities, dtype=float)
    result[at] = 1 / (1 + np.exp(-((1 - weight) * own[at] + weight * mean[groups[at]])))
    return result
