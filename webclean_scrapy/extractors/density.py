"""``density``: Arias, Deschacht & Moens (2009), the longest-string region.

The page is the list of strings cut at structural tags: every structural tag
opens a string and text goes to the last string. :attr:`Block.position` is
that string's index (empty strings included), so the paper's list is the
document's blocks grouped by position. The main content
is taken to be one contiguous region of long strings grown from the longest
string of the page. Read from :class:`~webclean_scrapy.document.BlockColumns`
(positions and texts): no per-block objects.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..document import Document
from ..extraction import Extractor
from ..options import integer, number, one_of
from ..trace import Trace
from . import register


def density_region(
    positions: Sequence[int],
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

    Lengths are character counts with whitespace collapsed. One pass to group,
    one each way: linear in the number of blocks.

    *trace* (:mod:`webclean_scrapy.trace`) receives each block's string
    length as its score with ``cutoff`` as the threshold, the region as the
    kept blocks, the reasons (the longest string, in the region, too short,
    beyond the gap), and the series ``positions`` / ``lengths`` (one entry
    per paper string) and ``region`` / ``longest`` (indexes into them) that
    ``webclean plot`` draws.
    """
    if not texts:
        if trace is not None:
            trace.units("block", 0)
        return 0, -1
    # (position, length, first block index, last block index) per paper string
    strings: list[list[int]] = []
    for index, (position, text) in enumerate(zip(positions, texts)):
        if strings and strings[-1][0] == position:
            group = strings[-1]
            group[1] += 1 + len(text)
            group[3] = index
        else:
            strings.append([position, len(text), index, index])
    at = [group[0] for group in strings] if unit == "positions" else list(range(len(strings)))
    best = max(range(len(strings)), key=lambda i: strings[i][1])
    cutoff = c1 * strings[best][1]

    left = best
    for i in range(best - 1, -1, -1):
        if at[left] - at[i] > c2:
            break
        if strings[i][1] >= cutoff:
            left = i
    right = best
    for i in range(best + 1, len(strings)):
        if at[i] - at[right] > c2:
            break
        if strings[i][1] >= cutoff:
            right = i
    if trace is not None:
        _trace_region(trace, strings, at, best, left, right, cutoff, c2, len(texts))
    return strings[left][2], strings[right][3]


def _trace_region(
    trace: Trace,
    strings: list[list[int]],
    at: list[int],
    best: int,
    left: int,
    right: int,
    cutoff: float,
    c2: int,
    count: int,
) -> None:
    """Record :func:`density_region`'s strings, cutoff and region in *trace*."""
    trace.units("block", count)
    lengths = [0] * count
    for _, length, first, last in strings:
        lengths[first : last + 1] = [length] * (last - first + 1)
    trace.score(lengths, "string length (chars)", cutoff)
    first, last = strings[left][2], strings[right][3]
    trace.keep(slice(first, last + 1))
    trace.reason(slice(strings[best][2], strings[best][3] + 1), "the longest string: the region starts here")
    trace.reason(slice(first, last + 1), "inside the densest region")
    for side, edge, beyond in (
        ("before", left, range(left - 1, -1, -1)),
        ("after", right, range(right + 1, len(strings))),
    ):
        for i in beyond:
            group = strings[i]
            if abs(at[i] - at[edge]) <= c2 and group[1] < cutoff:
                why = f"{side} the region: shorter than the cutoff {cutoff:.0f}"
            else:
                why = f"{side} the region: more than c2={c2} strings from it"
            trace.reason(slice(group[2], group[3] + 1), why)
    trace.fact("longest string (chars)", strings[best][1])
    trace.fact("cutoff = c1 x longest", round(cutoff, 1))
    trace.fact("region (blocks)", f"{first}..{last}")
    trace.series.update(positions=at, lengths=[group[1] for group in strings], region=(left, right), longest=best)
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
        first, last = density_region(blocks.positions.tolist(), blocks.texts, o["c1"], o["c2"], o["unit"], trace)
        return blocks.text(slice(first, last + 1))
