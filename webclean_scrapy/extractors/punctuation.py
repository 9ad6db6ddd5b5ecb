"""``punctuation``: Posch's punctuation-based DIV scoring.

Running prose is full of commas and full stops; navigation, link lists and
footers are not, and what punctuation they have sits inside links. Each DIV
is scored on its *direct* text -- the text whose nearest DIV ancestor is that
DIV -- as::

    score = CS**3 * (CL / ACL) / ACFL**2

with CS the commas, CL the content length, ACL the anchor content length and
ACFL the commas and full stops inside anchors. The best DIV, widened by the
parent check, is the main content.

Everything is read from :attr:`Document.containers` and their blocks (the
walk counted each block's commas, :attr:`BlockColumns.marks`, and
:attr:`Block.anchor_text` gives the punctuation inside links): no tree work.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..document import Container, Document
from ..errors import ExtractionError
from ..extraction import Extractor
from ..options import extractor_name
from ..trace import Trace
from . import get_extractor, register

#: Commas: ASCII, fullwidth, ideographic enumeration comma (and its halfwidth
#: form), Arabic comma.
COMMAS = ",，、､،"
#: Full stops: sentence-final marks, ASCII and CJK (fullwidth and halfwidth).
FULL_STOPS = ".。．｡!！?？"


def count_chars(text: str, chars: str) -> int:
    return sum(map(text.count, chars))


@dataclass(slots=True)
class DivScore:
    """The counts and score of one DIV (direct text only)."""

    container: Container
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
        return self.commas ** 3 * (self.chars / max(self.anchor_chars, 1)) / max(self.anchor_punctuation, 1) ** 2


def score_divs(doc: Document, owners: list[DivScore | None] | None = None) -> list[DivScore]:
    """One :class:`DivScore` per ``<div>``, in document order, with the DIV tree.

    Containers are in document order, so a container's parent is seen before
    it and its nearest DIV is known in one pass. *owners*, if given (one
    entry per block), receives each block's nearest DIV (for the trace).
    """
    nearest: dict[int, DivScore | None] = {}
    scores: list[DivScore] = []
    commas = doc.block_columns.count(COMMAS).tolist()
    for container in doc.containers:
        above = nearest.get(id(container.parent)) if container.parent is not None else None
        if container.tag == "div":
            own = DivScore(container, parent=above)
            if above is not None:
                above.children.append(own)
            scores.append(own)
            above = own
        nearest[id(container)] = above
        if above is None or not container.direct_blocks:
            continue
        if owners is not None:
            for block in container.direct_blocks:
                owners[block.index] = above
        for block in container.direct_blocks:
            above.commas += commas[block.index]
            above.chars += block.chars
            above.anchor_chars += block.anchor_chars
            if block.anchor_text:
                above.anchor_punctuation += count_chars(block.anchor_text, COMMAS + FULL_STOPS)
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
        container = chosen.container
        if trace is not None:
            _trace_divs(trace, owners or [], scores, chosen)
        if container.first_block < 0:
            return ""
        return doc.block_columns.text(slice(container.first_block, container.last_block + 1))


def _trace_divs(trace: Trace, owners: list[DivScore | None], scores: list[DivScore], chosen: DivScore) -> None:
    """Record the DIV scores and the chosen DIV in *trace*."""
    values = [s.score for s in scores]
    average = sum(values) / len(values)
    best = scores[max(range(len(scores)), key=values.__getitem__)]
    trace.units("block", len(owners))
    trace.score([owner.score if owner is not None else 0.0 for owner in owners],
                "nearest DIV's score CS^3 x (CL/ACL) / ACFL^2", average)
    container = chosen.container
    inside = slice(container.first_block, container.last_block + 1) if container.first_block >= 0 else slice(0, 0)
    trace.keep(inside)
    trace.reason(inside, "inside the chosen DIV")
    outside = np.ones(len(owners), dtype=bool)
    outside[inside] = False
    trace.reason(outside & np.array([owner is None for owner in owners], dtype=bool), "outside any DIV")
    trace.reason(outside, "outside the chosen DIV")
    trace.fact("DIVs scored", len(scores))
    trace.fact("average DIV score (selection cut)", round(average, 1))
    trace.fact("best DIV", f"container {best.container.index} <div>, score {best.score:.1f}")
    trace.fact("chosen DIV (after the parent check)",
               f"container {container.index} <div>, blocks {container.first_block}..{container.last_block}")
    trace.confidence = None
