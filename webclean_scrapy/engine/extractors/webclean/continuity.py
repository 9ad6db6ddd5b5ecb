"""Keep runs of blocks, not scattered ones: the most likely sequence of
keep/drop decisions over a page's blocks.

The block model scores each block on its own evidence (its neighbours'
lengths and link shares among them), so a page's decisions can flicker: a
short byline or a one-line paragraph between two kept paragraphs falls a
little under the threshold and is cut out of the article, while a "Share
this" line or a lone caption in the chrome around it scores a little over.
A reader sees main text as runs. This is the two-state hidden-Markov
reading of that: each block votes for *keep* by how far its probability
lies above the threshold (in log-odds, weighed by the log of its length,
so a long paragraph's vote counts more than a label's), every switch
between keeping and dropping costs *switch_cost*, and the decisions are
the sequence of highest total vote (Viterbi's algorithm: one pass forward,
one back, linear in blocks). ``switch_cost`` 0 is the plain threshold.

A run bridges prose, not links: a block under the threshold whose text is
mostly link text (a footer's "Contact · Imprint", a "Related" list, a tag
row) is never kept by a run, only by its own probability. Such a row right
after the last paragraph is the chrome's first line, and a high switch
cost (a listing's) would otherwise sweep it in.

The cost is chosen per predicted page type by cross-validation with the
other policies (``benchmarks/train_webclean.py``): listings and documentation take a high one, product pages none.
The decoding itself is compiled (:mod:`webclean_scrapy.engine.extractors.webclean._continuity`); the
Python loop here is its reference and its fallback.
"""

from __future__ import annotations

import numpy as np

try:
    from webclean_scrapy.engine.extractors.webclean._continuity import best_runs as _compiled_runs
except ImportError:  # no C compiler at install: the Python loop, same decisions
    _compiled_runs = None

#: A probability is read as log-odds clipped to this distance from 0 and 1:
#: a vetoed block (probability 0) votes strongly against, not infinitely.
_CLIP = 1e-4
#: A block's vote is its log-odds margin times ``log1p(characters)`` over
#: this: a 20-character line weighs about 1, a 400-character paragraph 2.
_LENGTH_SCALE = 3.0
#: A block with at least this share of its characters in links is *mostly
#: links*: a run does not keep it under the threshold; under it, a block
#: reads as text (:func:`mostly_unlinked`).
LINK_SHARE = 0.5


def mostly_unlinked(anchor_chars: np.ndarray, chars: np.ndarray) -> np.ndarray:
    """Per block: whether under :data:`LINK_SHARE` of its characters are
    link text. The one test of "prose, not a link row" the selection uses:
    runs bridge only such blocks, the fallback and kept comments read only
    such blocks as prose."""
    return anchor_chars < LINK_SHARE * chars


def block_votes(probabilities: np.ndarray, chars: np.ndarray, cut: float) -> np.ndarray:
    """Each block's vote for *keep*: its probability's log-odds minus the
    threshold's, weighed by the log of its length."""
    p = np.clip(probabilities, _CLIP, 1 - _CLIP)
    c = min(max(cut, _CLIP), 1 - _CLIP)
    margin = np.log(p / (1 - p)) - np.log(c / (1 - c))
    return margin * (np.log1p(chars.astype(np.float64)) / _LENGTH_SCALE)


def python_runs(votes: np.ndarray, switch_cost: float) -> np.ndarray:
    """The reference decoding: 1 where the best sequence keeps the block.

    Ties stay in the state the previous block was in; the last block keeps
    only when keeping scores strictly higher."""
    n = len(votes)
    states = np.zeros(n, dtype=np.uint8)
    if not n:
        return states
    came0 = np.zeros(n, dtype=np.uint8)  # best predecessor state of "drop" at j
    came1 = np.zeros(n, dtype=np.uint8)  # ... of "keep" at j
    drop, keep = 0.0, float(votes[0])
    for j, vote in enumerate(votes.tolist()[1:], 1):
        stay, switch = drop, keep - switch_cost
        if stay >= switch:
            new_drop = stay
        else:
            new_drop = switch
            came0[j] = 1
        switch, stay = drop - switch_cost, keep
        if switch > stay:
            new_keep = switch + vote
        else:
            new_keep = stay + vote
            came1[j] = 1
        drop, keep = new_drop, new_keep
    states[-1] = keep > drop
    for j in range(n - 1, 0, -1):
        states[j - 1] = came1[j] if states[j] else came0[j]
    return states


def kept_runs(
    probabilities: np.ndarray,
    chars: np.ndarray,
    cut: float,
    switch_cost: float,
    anchor_chars: np.ndarray | None = None,
) -> np.ndarray:
    """Which blocks the best sequence of decisions keeps (a boolean per
    block); a block whose probability is 0 (vetoed) is never kept, nor,
    given the blocks' *anchor_chars*, one under *cut* that is mostly links
    (at least :data:`LINK_SHARE` of its characters). With *switch_cost* 0
    or less, the blocks reaching *cut*."""
    reaching = probabilities >= cut
    if switch_cost <= 0 or not len(probabilities):
        return reaching
    votes = block_votes(probabilities, chars, cut)
    if _compiled_runs is not None:
        states = np.asarray(_compiled_runs(votes, float(switch_cost)))
    else:
        states = python_runs(votes, float(switch_cost))
    kept = (states == 1) & (probabilities > 0)
    if anchor_chars is not None:
        kept &= reaching | mostly_unlinked(anchor_chars, chars)
    return kept
