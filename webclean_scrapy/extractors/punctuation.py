"""``punctuation``: Posch's punctuation-based DIV scoring.

Running prose is full of commas and full stops; navigation, link lists and
footers are not, and what punctuation they have sits inside links. Each DIV
is scored on its *direct* text -- the text whose nearest DIV ancestor is that
DIV -- as::

    score = CS**3 * (CL / ACL) / ACFL**2

with CS the commas, CL the content length, ACL the anchor content length and
ACFL the commas and full stops inside anchors. The best DIV, widened by the
parent check, is the main content.

Everything is read from the page's columns (:attr:`Document.container_columns`
for the DIV tree, :attr:`Document.block_columns` for the text: the walk
counted each block's commas, and ``anchor_texts`` give the punctuation
inside links): no tree work, and no object per block.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..document import Document
from ..errors import ExtractionError
from ..extraction import Extractor
from ..marks import COMMAS, FULL_STOPS
from ..options import extractor_name
from ..trace import Trace
from . import get_extractor, register

__all__ = ["COMMAS", "FULL_STOPS", "DivScore", "PunctuationExtractor", "count_chars", "score_divs", "select_div"]


def count_chars(text: str, chars: str) -> int:
    return sum(map(text.count, chars))


@dataclass(slots=True)
class DivScore:
    """The counts and score of one DIV (direct text only)."""

    index: int  #: the DIV's container (an index into :attr:`Document.container_columns`)
    first_block: int  #: the block range of the DIV's subtree, inclusive (both -1 without text)
    last_block: int
    commas: int = 0  #: CS
    chars: int = 0  #: CL
    anchor_chars: int = 0  #: ACL
    anchor_punctuation: int = 0  #: ACFL
    children: list[DivScore] = field(default_factory=list, repr=False)  #: nearest DIV descendants
    parent: DivScore | None = field(default=None, repr=False)  #: nearest DIV ancestor

    @property
    def score(self) -> float:
        """``CS^3 * (CL / ACL) / ACFL^2``, with ACL and ACFL of 0 counted as 1.

        A zero denominator means "no links" or "no punctuation in links",
        the best case; counting it as 1 keeps such DIVs at the top instead of
        dividing by zero, and is continuous with a DIV holding one anchor
        character or one anchor full stop.
        """
        return self.commas**3 * (self.chars / max(self.anchor_chars, 1)) / max(self.anchor_punctuation, 1) ** 2


def score_divs(doc: Document, owners: list[DivScore | None] | None = None) -> list[DivScore]:
    """One :class:`DivScore` per ``<div>``, in document order, with the DIV tree.

    Containers are in document order, so a container's parent is seen before
    it and its nearest DIV (itself, for a DIV) is known in one pass over the
    container columns; each block's counts then go to its holder's nearest
    DIV. *owners*, if given (one entry per block), receives each block's
    nearest DIV (for the trace).
    """
    columns = doc.container_columns
    blocks = doc.block_columns
    parents = columns.parents.tolist()
    firsts = columns.first_blocks.tolist()
    lasts = columns.last_blocks.tolist()
    # The nearest DIV of each container, as a position in ``scores`` (-1: none).
    nearest = [-1] * len(parents)
    scores: list[DivScore] = []
    for index, tag in enumerate(columns.tags):
        above = nearest[parents[index]] if parents[index] >= 0 else -1
        if tag == "div":
            own = DivScore(index, firsts[index], lasts[index], parent=scores[above] if above >= 0 else None)
            if above >= 0:
                scores[above].children.append(own)
            above = len(scores)
            scores.append(own)
        nearest[index] = above
    if not scores or not len(blocks):
        return scores
    # Each block's nearest DIV, and the sums per DIV of its blocks' counts
    # (whole numbers, exact in float64; back to int for the score).
    owner = np.array(nearest, dtype=np.intp)[blocks.holders]
    held = owner >= 0
    divs = owner[held]
    size = len(scores)
    commas = np.bincount(divs, weights=blocks.count(COMMAS)[held], minlength=size).astype(np.int64).tolist()
    chars = np.bincount(divs, weights=blocks.chars[held], minlength=size).astype(np.int64).tolist()
    anchor_chars = np.bincount(divs, weights=blocks.anchor_chars[held], minlength=size).astype(np.int64).tolist()
    marks = COMMAS + FULL_STOPS
    anchor_texts = blocks.anchor_texts
    for block in np.flatnonzero(held & (blocks.anchor_chars > 0)).tolist():
        scores[owner[block]].anchor_punctuation += count_chars(anchor_texts[block], marks)
    for div, score in enumerate(scores):
        score.commas, score.chars, score.anchor_chars = commas[div], chars[div], anchor_chars[div]
    if owners is not None:
        for block, div in enumerate(owner.tolist()):
            owners[block] = scores[div] if div >= 0 else None
    return scores


def select_div(scores: list[DivScore]) -> DivScore | None:
    """The best DIV after the parent check, or ``None`` when nothing scores.

    DIVs scoring above the average (over all DIVs) are *selected*. From the
    best DIV, climb the DIV tree: while the parent DIV is selected itself or
    holds a selected DIV outside the current one (the article is split over
    sibling DIVs), move up to the parent. The result is the lowest DIV
    ancestor of the best one that covers the selected DIVs around it.
    """
    if not scores:
        return None
    values = [s.score for s in scores]
    best = max(range(len(scores)), key=values.__getitem__)
    if values[best] <= 0:
        return None
    average = sum(values) / len(values)
    # Selected DIVs per DIV subtree, bottom-up (children follow their parent
    # in document order), so each climbing step is O(1).
    below = {id(s): int(v > average) for s, v in zip(scores, values)}
    for s in reversed(scores):
        if s.parent is not None:
            below[id(s.parent)] += below[id(s)]
    current = scores[best]
    while current.parent is not None and below[id(current.parent)] > below[id(current)]:
        current = current.parent
    return current


@register
class PunctuationExtractor(Extractor):
    """The DIV richest in commas and poorest in linked punctuation, with its text.

    Falls back to ``fallback`` (default: the ``density`` method) when the page
    has no DIV or no DIV scores above zero (no commas anywhere in DIV text).

    Trace: each block's score is its nearest DIV's (its direct text's
    ``CS^3 * (CL / ACL) / ACFL^2``), the threshold the average DIV score
    (DIVs above it are *selected*), the kept blocks those of the chosen
    DIV; facts name the best DIV and the chosen one. With the fallback, the
    fallback's own trace.
    """

    name = "punctuation"
    defaults = {"fallback": "density"}
    rules = {"fallback": extractor_name()}

    def __init__(self, **options: object) -> None:
        super().__init__(**options)
        # Resolved now so a bad name fails at configuration, not on some page.
        if self.options["fallback"] in (self.name, type(self)):
            raise ExtractionError("punctuation: the fallback cannot be the punctuation method itself")
        self.fallback = get_extractor(self.options["fallback"])

    def extract_text(self, doc: Document, trace: Trace | None = None) -> str:
        owners: list[DivScore | None] | None = None if trace is None else [None] * len(doc.block_columns)
        scores = score_divs(doc, owners)
        chosen = select_div(scores)
        if chosen is None:
            if trace is None or not self.fallback.traceable:
                return self.fallback.extract_text(doc)
            text = self.fallback.extract_text(doc, trace=trace)  # type: ignore[call-arg]
            trace.fact("punctuation", f"no DIV scores above zero: the {self.fallback.name} fallback decided")
            return text
        if trace is not None:
            _trace_divs(trace, owners or [], scores, chosen)
        if chosen.first_block < 0:
            return ""
        return doc.block_columns.text(slice(chosen.first_block, chosen.last_block + 1))


def _trace_divs(trace: Trace, owners: list[DivScore | None], scores: list[DivScore], chosen: DivScore) -> None:
    """Record the DIV scores and the chosen DIV in *trace*."""
    values = [s.score for s in scores]
    average = sum(values) / len(values)
    best = scores[max(range(len(scores)), key=values.__getitem__)]
    trace.units("block", len(owners))
    trace.score(
        [owner.score if owner is not None else 0.0 for owner in owners],
        "nearest DIV's score CS^3 x (CL/ACL) / ACFL^2",
        average,
    )
    inside = slice(chosen.first_block, chosen.last_block + 1) if chosen.first_block >= 0 else slice(0, 0)
    trace.keep(inside)
    trace.reason(inside, "inside the chosen DIV")
    outside = np.ones(len(owners), dtype=bool)
    outside[inside] = False
    trace.reason(outside & np.array([owner is None for owner in owners], dtype=bool), "outside any DIV")
    trace.reason(outside, "outside the chosen DIV")
    trace.fact("DIVs scored", len(scores))
    trace.fact("average DIV score (selection cut)", round(average, 1))
    trace.fact("best DIV", f"container {best.index} <div>, score {best.score:.1f}")
    trace.fact(
        "chosen DIV (after the parent check)",
        f"container {chosen.index} <div>, blocks {chosen.first_block}..{chosen.last_block}",
    )
    trace.confidence = None
