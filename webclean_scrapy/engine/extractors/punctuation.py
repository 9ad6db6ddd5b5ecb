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

import math
from dataclasses import dataclass

import numpy as np

from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.extraction import Extractor
from webclean_scrapy.engine.extractors import get_extractor, register
from webclean_scrapy.engine.options import extractor_name
from webclean_scrapy.engine.text.marks import COMMAS, FULL_STOPS
from webclean_scrapy.engine.trace import Trace
from webclean_scrapy.errors import ExtractionError

__all__ = [
    "COMMAS",
    "FULL_STOPS",
    "DivColumns",
    "PunctuationExtractor",
    "average_score",
    "count_chars",
    "div_scores",
    "nearest_marked",
    "score_divs",
    "select_div",
]


def count_chars(text: str, chars: str) -> int:
    return sum(map(text.count, chars))


#: Comma counts below this have a cube int64 holds (2**63 - 1 >= 2_097_151**3);
#: from it on the cube is taken in Python's integers, as the score's definition does.
_EXACT_CUBE_BELOW = 2_097_152


@dataclass(frozen=True, slots=True)
class DivColumns:
    """The page's DIVs as columns, in document order (one entry per ``<div>``),
    with the counts and score of each one's direct text.

    Columns rather than an object per DIV: a page of a million DIVs (20 MB)
    costs a few int64 entries per DIV, not a Python object, a list of
    children and a dict entry each (docs/SECURITY.md, "Memory per page").
    """

    containers: np.ndarray  #: each DIV's container (an index into :attr:`Document.container_columns`)
    parents: np.ndarray  #: each DIV's nearest DIV ancestor, as a position in these columns (-1: none)
    first_blocks: np.ndarray  #: the block range of each DIV's subtree, inclusive (both -1 without text)
    last_blocks: np.ndarray
    commas: np.ndarray  #: CS
    chars: np.ndarray  #: CL
    anchor_chars: np.ndarray  #: ACL
    anchor_punctuation: np.ndarray  #: ACFL
    scores: np.ndarray  #: ``CS^3 * (CL / ACL) / ACFL^2`` (float64; see :func:`div_scores`)
    block_divs: np.ndarray  #: each block's nearest DIV, as a position in these columns (-1: none)

    def __len__(self) -> int:
        return len(self.containers)


def div_scores(
    commas: np.ndarray, chars: np.ndarray, anchor_chars: np.ndarray, anchor_punctuation: np.ndarray
) -> np.ndarray:
    """``CS^3 * (CL / ACL) / ACFL^2``, with ACL and ACFL of 0 counted as 1.

    A zero denominator means "no links" or "no punctuation in links", the
    best case; counting it as 1 keeps such DIVs at the top instead of
    dividing by zero, and is continuous with a DIV holding one anchor
    character or one anchor full stop. The cube is exact (an integer, then
    rounded once to float64, as ``int ** 3 * float`` rounds it): a DIV with
    millions of commas scores what the definition says instead of wrapping
    around in int64.
    """
    cubes = commas**3
    big = np.flatnonzero(commas >= _EXACT_CUBE_BELOW)
    cubes = cubes.astype(np.float64)
    if len(big):
        cubes[big] = [float(int(count) ** 3) for count in commas[big].tolist()]
    ratio = chars.astype(np.float64) / np.maximum(anchor_chars, 1).astype(np.float64)
    return cubes * ratio / (np.maximum(anchor_punctuation, 1) ** 2).astype(np.float64)


def nearest_marked(parents: np.ndarray, marked: np.ndarray) -> np.ndarray:
    """For each node of a tree given by *parents* (-1 for a root), its
    nearest ancestor-or-self that is *marked*, or -1.

    Pointer doubling over whole columns: every pointer that has not reached
    a marked node jumps to where its target points, so the distances double
    and it takes about log2(depth) passes, without an object per node.
    """
    count = len(parents)
    # Node ``count`` is a marked sentinel standing for "none".
    up = np.where(marked, np.arange(count), parents)
    up[up < 0] = count
    up = np.append(up, count)
    done = np.append(marked, True)
    pending = np.flatnonzero(~done[up])
    while len(pending):
        up[pending] = up[up[pending]]
        pending = pending[~done[up[pending]]]
    up = up[:count]
    up[up == count] = -1
    return up


def score_divs(doc: Document) -> DivColumns:
    """The page's DIVs, their tree and their direct text's counts and scores.

    Each container belongs to its nearest DIV (itself, for a DIV), found for
    all containers at once (:func:`nearest_marked`); each block's counts go
    to its holder's nearest DIV as whole-column sums.
    """
    columns = doc.container_columns
    blocks = doc.block_columns
    is_div = np.fromiter((tag == "div" for tag in columns.tags), dtype=bool, count=len(columns))
    containers = np.flatnonzero(is_div)
    size = len(containers)
    # Each container's nearest DIV as a position among the DIVs (-1: none).
    nearest = nearest_marked(columns.parents, is_div)
    positions = np.cumsum(is_div) - 1
    nearest = np.where(nearest >= 0, positions[nearest], -1)
    del positions
    above = columns.parents[containers]
    parents = np.where(above >= 0, nearest[np.maximum(above, 0)], -1)
    owner = nearest[blocks.holders]
    del nearest
    held = owner >= 0
    divs = owner[held]
    # Whole numbers, exact in float64: back to int64 for the score.
    commas = np.bincount(divs, weights=blocks.count(COMMAS)[held], minlength=size).astype(np.int64)
    chars = np.bincount(divs, weights=blocks.chars[held], minlength=size).astype(np.int64)
    anchor_chars = np.bincount(divs, weights=blocks.anchor_chars[held], minlength=size).astype(np.int64)
    linked = np.flatnonzero(held & (blocks.anchor_chars > 0))
    marks = COMMAS + FULL_STOPS
    anchor_texts = blocks.anchor_texts
    linked_marks = np.fromiter(
        (count_chars(anchor_texts[block], marks) for block in linked.tolist()), dtype=np.int64, count=len(linked)
    )
    anchor_punctuation = np.bincount(owner[linked], weights=linked_marks, minlength=size).astype(np.int64)
    return DivColumns(
        containers=containers,
        parents=parents,
        first_blocks=columns.first_blocks[containers],
        last_blocks=columns.last_blocks[containers],
        commas=commas,
        chars=chars,
        anchor_chars=anchor_chars,
        anchor_punctuation=anchor_punctuation,
        scores=div_scores(commas, chars, anchor_chars, anchor_punctuation),
        block_divs=owner,
    )


def select_div(divs: DivColumns) -> int | None:
    """The best DIV after the parent check (a position in *divs*), or
    ``None`` when nothing scores.

    DIVs scoring above the average (over all DIVs) are *selected*. From the
    best DIV, climb the DIV tree: while the parent DIV is selected itself or
    holds a selected DIV outside the current one (the article is split over
    sibling DIVs), move up to the parent. The result is the lowest DIV
    ancestor of the best one that covers the selected DIVs around it.

    The parent adds a selected DIV exactly when some selected DIV has that
    parent as its nearest ancestor-or-self on the best DIV's chain of
    ancestors; one :func:`nearest_marked` pass over the DIVs finds that for
    all of them. The average is :func:`math.fsum`'s, correctly rounded
    whatever the order or the Python version.
    """
    if not len(divs):
        return None
    scores = divs.scores
    best = int(np.argmax(scores))
    if scores[best] <= 0:
        return None
    selected = scores > average_score(scores)
    chain = [best]
    while (parent := int(divs.parents[chain[-1]])) >= 0:
        chain.append(parent)
    on_chain = np.zeros(len(divs), dtype=bool)
    on_chain[chain] = True
    joins = nearest_marked(divs.parents, on_chain)[selected]
    adds = np.bincount(joins[joins >= 0], minlength=len(divs))
    step = 0
    while step + 1 < len(chain) and adds[chain[step + 1]]:
        step += 1
    return chain[step]


def average_score(scores: np.ndarray) -> float:
    """The selection cut: the mean DIV score (:func:`math.fsum`, exact)."""
    return math.fsum(scores) / len(scores)


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
        divs = score_divs(doc)
        chosen = select_div(divs)
        if chosen is None:
            if trace is None or not self.fallback.traceable:
                return self.fallback.extract_text(doc)
            text = self.fallback.extract_text(doc, trace=trace)  # type: ignore[call-arg]
            trace.fact("punctuation", f"no DIV scores above zero: the {self.fallback.name} fallback decided")
            return text
        if trace is not None:
            _trace_divs(trace, divs, chosen)
        first, last = int(divs.first_blocks[chosen]), int(divs.last_blocks[chosen])
        if first < 0:
            return ""
        return doc.block_columns.text(slice(first, last + 1))


def _trace_divs(trace: Trace, divs: DivColumns, chosen: int) -> None:
    """Record the DIV scores and the chosen DIV in *trace*."""
    scores = divs.scores
    average = average_score(scores)
    best = int(np.argmax(scores))
    owners = divs.block_divs
    trace.units("block", len(owners))
    trace.score(
        np.where(owners >= 0, scores[np.maximum(owners, 0)], 0.0) if len(owners) else np.zeros(0),
        "nearest DIV's score CS^3 x (CL/ACL) / ACFL^2",
        average,
    )
    first, last = int(divs.first_blocks[chosen]), int(divs.last_blocks[chosen])
    inside = slice(first, last + 1) if first >= 0 else slice(0, 0)
    trace.keep(inside)
    trace.reason(inside, "inside the chosen DIV")
    outside = np.ones(len(owners), dtype=bool)
    outside[inside] = False
    trace.reason(outside & (owners < 0), "outside any DIV")
    trace.reason(outside, "outside the chosen DIV")
    trace.fact("DIVs scored", len(divs))
    trace.fact("average DIV score (selection cut)", round(average, 1))
    trace.fact("best DIV", f"container {int(divs.containers[best])} <div>, score {scores[best]:.1f}")
    trace.fact(
        "chosen DIV (after the parent check)",
        f"container {int(divs.containers[chosen])} <div>, blocks {first}..{last}",
    )
    trace.confidence = None
