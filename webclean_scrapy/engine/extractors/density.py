"""``density``: Arias, Deschacht & Moens (2009), the longest-string region.

The page is the list of strings cut at structural tags: every structural tag
opens a string and text goes to the last string. :attr:`Block.position` is
that string's index (empty strings included), so the paper's list is the
document's blocks grouped by position. The main content
is taken to be one contiguous region of long strings grown from the longest
string of the page. Read from :class:`~webclean_scrapy.engine.columns.BlockColumns`
(positions and texts): no per-block objects.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.extraction import Extractor
from webclean_scrapy.engine.extractors import register
from webclean_scrapy.engine.options import integer, number, one_of
from webclean_scrapy.engine.trace import Trace


def density_region(
    positions: Sequence[int] | np.ndarray,
    texts: Sequence[str],
    c1: float = 0.333,
    c2: int = 4,
    unit: str = "positions",
    trace: Trace | None = None,
) -> tuple[int, int]:
    """The ``(first, last)`` block indexes of the content region, ``(0, -1)`` if none.

    *positions* and *texts* are the blocks' (``BlockColumns.positions`` and
    ``.texts``). The paper's strings are the blocks grouped by position
    (text after a closing tag goes to the last string). Start at the longest
    string (the first one on ties); ``cutoff = c1 * maxL``. The region
    ``[l, r]`` grows to the left (right) over a string whose length is at
    least ``cutoff`` and which lies at most ``c2`` strings from the region's
    boundary, and stops when there is no such string. With
    ``unit="positions"`` distances count every string of the paper's list,
    empty ones included; with ``unit="strings"`` only strings with text.
    Everything between ``l`` and ``r`` is kept, short strings included.

    Lengths are character counts with whitespace collapsed. Whole-column
    numpy passes (group, then each side's reach): linear in the number of
    blocks, and no Python object per block or string (a page of a million
    paragraphs is a million strings).

    *trace* (:mod:`webclean_scrapy.engine.trace`) receives each block's string
    length as its score with ``cutoff`` as the threshold, the region as the
    kept blocks, the reasons (the longest string, in the region, too short,
    beyond the gap), and the series ``positions`` / ``lengths`` (one entry
    per paper string) and ``region`` / ``longest`` (indexes into them) that
    ``webclean plot`` draws.
    """
    if not len(texts):
        if trace is not None:
            trace.units("block", 0)
        return 0, -1
    positions = np.asarray(positions, dtype=np.int64)
    count = len(texts)
    # The paper's strings: runs of blocks at one position, a space between each two.
    firsts = np.flatnonzero(np.concatenate(([True], positions[1:] != positions[:-1])))
    lasts = np.append(firsts[1:] - 1, count - 1)
    lengths = np.add.reduceat(np.fromiter(map(len, texts), dtype=np.int64, count=count), firsts) + (lasts - firsts)
    at = positions[firsts] if unit == "positions" else np.arange(len(firsts))
    best = int(lengths.argmax())  # the first of the longest
    cutoff = c1 * int(lengths[best])
    long_enough = lengths >= cutoff
    left = _reach(at, np.flatnonzero(long_enough[:best])[::-1], best, c2)
    right = _reach(at, best + 1 + np.flatnonzero(long_enough[best + 1 :]), best, c2)
    if trace is not None:
        _trace_region(trace, lengths, firsts, lasts, at, best, left, right, cutoff, c2)
    return int(firsts[left]), int(lasts[right])


def _reach(at: np.ndarray, candidates: np.ndarray, best: int, c2: int) -> int:
    """How far the region grows on one side of string *best*: over
    *candidates* (the strings long enough on that side, nearest first) while
    each is at most *c2* from the last one reached (*at*: each string's
    place). The string where it stops, *best* when it does not move."""
    steps = np.abs(np.diff(at[np.concatenate(([best], candidates))]))
    too_far = np.flatnonzero(steps > c2)
    reached = int(too_far[0]) if len(too_far) else len(candidates)
    return int(candidates[reached - 1]) if reached else best


def _trace_region(
    trace: Trace,
    lengths: np.ndarray,
    firsts: np.ndarray,
    lasts: np.ndarray,
    at: np.ndarray,
    best: int,
    left: int,
    right: int,
    cutoff: float,
    c2: int,
) -> None:
    """Record :func:`density_region`'s strings, cutoff and region in *trace*."""
    count = int(lasts[-1]) + 1
    trace.units("block", count)
    trace.score(np.repeat(lengths, lasts - firsts + 1), "string length (chars)", cutoff)
    first, last = int(firsts[left]), int(lasts[right])
    trace.keep(slice(first, last + 1))
    trace.reason(slice(int(firsts[best]), int(lasts[best]) + 1), "the longest string: the region starts here")
    trace.reason(slice(first, last + 1), "inside the densest region")
    places, sizes = at.tolist(), lengths.tolist()
    for side, edge, beyond in (
        ("before", left, range(left - 1, -1, -1)),
        ("after", right, range(right + 1, len(sizes))),
    ):
        for i in beyond:
            if abs(places[i] - places[edge]) <= c2 and sizes[i] < cutoff:
                why = f"{side} the region: shorter than the cutoff {cutoff:.0f}"
            else:
                why = f"{side} the region: more than c2={c2} strings from it"
            trace.reason(slice(int(firsts[i]), int(lasts[i]) + 1), why)
    trace.fact("longest string (chars)", sizes[best])
    trace.fact(
        "cutoff = c1 x longest",
        round(cutoff, 1),
        "length a string needs to join the region",
        f"{cutoff:.1f} characters (c1 × the longest string)",
    )
    trace.fact("region (blocks)", f"{first}..{last}")
    trace.series.update(positions=places, lengths=sizes, region=(left, right), longest=best)
    trace.confidence = None


@register
class DensityExtractor(Extractor):
    """The region of long strings around the longest string of the page.

    ``c1`` scales the cutoff from the longest string's length, ``c2`` is the
    largest gap the region may jump, both at the paper's values; ``unit``
    says what the gap counts: ``"positions"`` (every string of the paper's
    list, empty strings included: the faithful reading) or ``"strings"``
    (strings with text only). Trace: see :func:`density_region`.
    """

    name = "density"
    defaults = {"c1": 0.333, "c2": 4, "unit": "positions"}
    rules = {"c1": number(0, 1), "c2": integer(0), "unit": one_of("positions", "strings")}

    def extract_text(self, doc: Document, trace: Trace | None = None) -> str:
        o = self.options
        blocks = doc.block_columns
        first, last = density_region(blocks.positions, blocks.texts, o["c1"], o["c2"], o["unit"], trace)
        return blocks.text(slice(first, last + 1))
