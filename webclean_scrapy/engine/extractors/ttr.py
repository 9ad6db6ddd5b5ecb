"""``ttr``: Weninger & Hsu's text-to-tag ratio (TTR, 2008) and CETR (2010).

Every line of the cleaned source gets a ratio -- visible characters per tag --
the ratios are smoothed, and lines are split into content and non-content by
a threshold or by clustering. The source lines are cut here
(:func:`tagged_lines`) from the page's decoded source, not from the walk's
blocks: the method counts tags per line of markup.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator, Sequence
from itertools import chain
from typing import NamedTuple

import numpy as np

from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.extraction import Extractor
from webclean_scrapy.engine.extractors import register
from webclean_scrapy.engine.html.tags import STRUCTURAL_TAGS
from webclean_scrapy.engine.options import integer, number, one_of
from webclean_scrapy.engine.trace import Trace
from webclean_scrapy.errors import ExtractionError


class SourceLine(NamedTuple):
    """One line of cleaned source: its visible text and how many tags it holds."""

    text: str
    tags: int


#: What Weninger & Hsu strip from the source before counting: scripts,
#: styles and remarks (comments). Lazy and anchored on ``\Z`` so an unclosed
#: one is consumed in one linear match.
_SOURCE_NON_TEXT = re.compile(
    r"<script\b.*?(?:</script\s*>|\Z)|<style\b.*?(?:</style\s*>|\Z)|<!--.*?(?:-->|\Z)",
    re.I | re.S,
)
#: A tag: "<" then a letter, "/", "!" or "?" (so "a < b" stays text).
_SOURCE_TAG = re.compile(r"(<[A-Za-z/!?][^>]*>)")
_SOURCE_TAG_NAME = re.compile(r"</?([A-Za-z][A-Za-z0-9]*)")


def tagged_lines(doc: Document, break_at_structural: bool = False) -> list[SourceLine]:
    """The source of *doc* as Weninger & Hsu's text-to-tag-ratio lines.

    ``script`` and ``style`` elements and comments are removed from the
    source first (an unclosed one runs to the end, as in a browser); each
    remaining line becomes a :class:`SourceLine` holding its visible text
    (tags stripped -- structural ones count as a space --, entities
    decoded, whitespace collapsed) and the number of tags on it. Lines
    with neither text nor tags -- empty lines -- are dropped. A tag
    spanning several lines counts once, on the line where it starts: its
    inner newlines are not line breaks.

    With *break_at_structural* every tag named in :data:`STRUCTURAL_TAGS`
    also starts a new line, so minified pages (the whole page on one
    physical line) still give a per-block ratio profile.
    """
    source = _SOURCE_NON_TEXT.sub("", doc.source)
    source = source.replace("\r\n", "\n").replace("\r", "\n")
    # Past the last ">" no tag can close; tokenising only up to it keeps
    # the tag regex from rescanning the tail for every stray "<". The source
    # is split a window at a time, each ending just after a ">" (no tag runs
    # past its first ">", so none is cut), and a line's pieces are joined
    # after each window: a page of a million tags on one line makes no list
    # of its pieces.
    end = source.rfind(">") + 1

    lines: list[SourceLine] = []
    text: list[str] = []
    joined: list[str] = []
    tags = 0

    def flush() -> None:
        if joined:
            joined.append("".join(text))
            raw = "".join(joined)
            joined.clear()
        else:
            raw = "".join(text)
        if raw:
            raw = html.unescape(raw)
            value = " ".join(raw.split()) if len(raw) < _LONG_LINE else _collapse_long_line(raw)
        else:
            value = ""
        if value or tags:
            lines.append(SourceLine(value, tags))
        text.clear()

    # The tail after the last ">" holds no tag: one text piece, never split.
    for pieces in chain(map(_SOURCE_TAG.split, _windows(source, end)), [[source[end:]]]):
        for i, piece in enumerate(pieces):
            if i % 2:  # a tag (odd pieces of a split on a capturing group)
                name = _SOURCE_TAG_NAME.match(piece)
                if name and name.group(1).lower() in STRUCTURAL_TAGS:
                    if break_at_structural:
                        flush()
                        tags = 0
                    else:
                        text.append(" ")  # "</p><p>" separates words
                tags += 1
                continue
            first, *rest = piece.split("\n")
            text.append(first)
            for chunk in rest:
                flush()
                tags = 0
                text.append(chunk)
        if len(text) > 1:
            joined.append("".join(text))
            text.clear()
    flush()
    return lines


#: Characters of source split at a time by :func:`tagged_lines` (a window
#: runs on to the next ">" when it holds none).
_WINDOW = 1 << 16


def _windows(source: str, end: int) -> Iterator[str]:
    """``source[:end]`` in consecutive slices of about :data:`_WINDOW`
    characters, each ending just after a ">" (*end* is just after the last)."""
    start = 0
    while start < end:
        stop = source.rfind(">", start, start + _WINDOW) + 1
        if stop <= start:
            stop = source.find(">", start + _WINDOW) + 1
        yield source[start:stop]
        start = stop


#: A line at least this long has its whitespace collapsed a slice of about
#: this many characters at a time (:func:`_collapse_long_line`).
_LONG_LINE = 1 << 16
_WHITESPACE = re.compile(r"\s")


def _collapse_long_line(text: str) -> str:
    """*text* with every run of whitespace one space and none at either end,
    as ``" ".join(text.split())``, a slice at a time (each slice ending where
    whitespace begins, so no word is cut): a one-line page of a million
    words never holds a million strings."""
    parts: list[str] = []
    start = 0
    while start < len(text):
        space = _WHITESPACE.search(text, start + _LONG_LINE)
        stop = space.start() if space else len(text)
        part = " ".join(text[start:stop].split())
        if part:
            parts.append(part)
        start = stop
    return " ".join(parts)


#: Lloyd / EM iterations are capped so a page never costs more than
#: ``O(MAX_ITERATIONS * lines * clusters)``.
MAX_ITERATIONS = 100


def tag_ratios(lines: Sequence[tuple[str, int]]) -> np.ndarray:
    """TTR per line: characters / tags, or the characters when there is no tag."""
    chars = np.fromiter((len(text) for text, _ in lines), dtype=float, count=len(lines))
    tags = np.fromiter((count for _, count in lines), dtype=float, count=len(lines))
    return np.divide(chars, tags, out=chars.copy(), where=tags > 0)


def smooth(values: np.ndarray, radius: int = 2) -> np.ndarray:
    """Moving mean over ``2 * radius + 1`` lines, the window truncated at both ends.

    ``smoothed[k] = mean(values[max(0, k - radius) : k + radius + 1])``,
    computed from cumulative sums (linear).
    """
    n = len(values)
    if n == 0 or radius <= 0:
        return values.astype(float)
    sums = np.concatenate(([0.0], np.cumsum(values, dtype=float)))
    k = np.arange(n)
    lo = np.maximum(k - radius, 0)
    hi = np.minimum(k + radius + 1, n)
    return (sums[hi] - sums[lo]) / (hi - lo)


def absolute_derivative(smoothed: np.ndarray, alpha: int = 3) -> np.ndarray:
    """CETR's absolute smoothed derivative ``G``.

    ``G[k] = |mean(smoothed[k+1 : k+1+alpha]) - smoothed[k]|``: how far the
    ratio is about to move. The window is truncated at the end; the last line
    has no successor and gets 0.
    """
    n = len(smoothed)
    out = np.zeros(n)
    if n < 2:
        return out
    sums = np.concatenate(([0.0], np.cumsum(smoothed, dtype=float)))
    k = np.arange(n - 1)
    hi = np.minimum(k + 1 + alpha, n)
    out[:-1] = np.abs((sums[hi] - sums[k + 1]) / (hi - k - 1) - smoothed[:-1])
    return out


# -- clustering of the smoothed ratios (1-D) --------------------------------
# Each returns a cluster label per value, labels ordered by ascending centre;
# a value equidistant from two centres goes to the lower one.


def _nearest(values: np.ndarray, centres: np.ndarray) -> np.ndarray:
    return np.abs(values[:, None] - centres[None, :]).argmin(axis=1)


def kmeans_1d(values: np.ndarray, k: int) -> np.ndarray:
    """Lloyd's k-means started from the ``(i + 0.5) / k`` quantiles (deterministic)."""
    centres = np.quantile(values, (np.arange(k) + 0.5) / k)
    labels = _nearest(values, centres)
    for _ in range(MAX_ITERATIONS):
        for j in range(k):
            members = values[labels == j]
            if len(members):
                centres[j] = members.mean()
        order = np.argsort(centres, kind="stable")
        centres = centres[order]
        new = _nearest(values, centres)
        if np.array_equal(new, labels):
            break
        labels = new
    return labels


def em_1d(values: np.ndarray, k: int) -> np.ndarray:
    """A 1-D Gaussian mixture fitted by EM, started from k-means; hard assignment."""
    labels = kmeans_1d(values, k)
    floor = max(values.var(), 1.0) * 1e-6
    means = np.array([values[labels == j].mean() if (labels == j).any() else values.mean() for j in range(k)])
    variances = np.array([values[labels == j].var() if (labels == j).any() else 0.0 for j in range(k)]) + floor
    weights = np.array([(labels == j).mean() for j in range(k)]) + 1e-12
    previous = -np.inf
    resp = np.zeros((len(values), k))
    for _ in range(MAX_ITERATIONS):
        log_p = np.log(weights) - 0.5 * np.log(2 * np.pi * variances) - 0.5 * (values[:, None] - means) ** 2 / variances
        top = log_p.max(axis=1, keepdims=True)
        log_norm = top + np.log(np.exp(log_p - top).sum(axis=1, keepdims=True))
        resp = np.exp(log_p - log_norm)
        likelihood = float(log_norm.sum())
        mass = resp.sum(axis=0) + 1e-12
        weights = mass / mass.sum()
        means = (resp * values[:, None]).sum(axis=0) / mass
        variances = (resp * (values[:, None] - means) ** 2).sum(axis=0) / mass + floor
        if likelihood - previous < 1e-9 * max(1.0, abs(likelihood)):
            break
        previous = likelihood
    # Relabel by ascending mean; argmax keeps the first (lowest) component on ties.
    order = np.argsort(means, kind="stable")
    return resp[:, order].argmax(axis=1)


def farthest_first_1d(values: np.ndarray, k: int) -> np.ndarray:
    """Farthest-first traversal (Hochbaum & Shmoys; Weka's ``FarthestFirst``).

    The first centre is the smallest value (Weka draws it at random; the
    minimum makes the result deterministic), each next one the value farthest
    from all centres so far; every value joins its nearest centre.
    """
    centres = [float(values.min())]
    distance = np.abs(values - centres[0])
    for _ in range(1, k):
        far = int(distance.argmax())
        if distance[far] == 0:
            break
        centres.append(float(values[far]))
        distance = np.minimum(distance, np.abs(values - centres[-1]))
    return _nearest(values, np.sort(np.array(centres)))


CLUSTERERS: dict[str, Callable[[np.ndarray, int], np.ndarray]] = {
    "kmeans": kmeans_1d,
    "em": em_1d,
    "farthest_first": farthest_first_1d,
}


def kmeans_fixed_origin(points: np.ndarray, k: int) -> np.ndarray:
    """CETR's 2-D k-means with one centroid pinned to the origin.

    Returns ``True`` for points *not* in the origin cluster (the content).
    The free centroids start at the points whose distance from the origin is
    at the ``i / (k - 1)`` quantiles, ``i = 1 .. k - 1``.
    """
    norms = np.hypot(points[:, 0], points[:, 1])
    order = np.argsort(norms, kind="stable")
    picks = [order[int(round(i / (k - 1) * (len(points) - 1)))] for i in range(1, k)]
    centres = np.vstack([np.zeros(2), points[picks]]).astype(float)
    labels: np.ndarray | None = None
    for _ in range(MAX_ITERATIONS):
        distance = ((points[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
        new = distance.argmin(axis=1)  # ties go to the origin (index 0)
        if labels is not None and np.array_equal(new, labels):
            break
        labels = new
        for j in range(1, k):
            members = points[labels == j]
            if len(members):
                centres[j] = members.mean(axis=0)
    assert labels is not None  # MAX_ITERATIONS >= 1
    return labels != 0


@register
class TTRExtractor(Extractor):
    """Lines of the source whose smoothed text-to-tag ratio marks them as content.

    ``clustering`` is ``"threshold"`` (TTR > ``coefficient`` x standard
    deviation), ``"kmeans"``, ``"em"``, ``"farthest_first"`` (``clusters``
    groups on the smoothed TTR; groups whose mean exceeds the standard
    deviation are content) or ``"prediction"`` (CETR: 2-D k-means on the
    smoothed TTR and its absolute derivative, the cluster pinned to the origin
    is non-content). ``lines="structural"`` also breaks the source at
    structural tags, for minified pages.

    Trace (``unit="line"``): each line's smoothed ratio as its score, the
    threshold (``coefficient`` x standard deviation, or the standard
    deviation a cluster's mean must exceed), the series ``ttr``,
    ``smoothed``, ``sigma`` and, when clustering, ``labels`` and
    ``centres`` (the clusters' mean smoothed ratio) or, for
    ``prediction``, ``derivative``.
    """

    name = "ttr"
    defaults = {
        "clustering": "threshold",
        "coefficient": 1.0,
        "clusters": 3,
        "radius": 2,
        "alpha": 3,
        "lines": "source",
    }

    rules = {
        "clustering": one_of("threshold", "prediction", *CLUSTERERS),
        "coefficient": number(0),
        "clusters": integer(1, 3),
        "radius": integer(0),
        "alpha": integer(1),
        "lines": one_of("source", "structural"),
    }

    def __init__(self, **options: object) -> None:
        super().__init__(**options)
        if self.options["clustering"] == "prediction" and self.options["clusters"] < 2:
            raise ExtractionError(
                "extractor 'ttr': option clusters must be an integer in [2, 3] with "
                f"clustering='prediction' (it counts the origin cluster), "
                f"got {self.options['clusters']!r}"
            )

    def content_mask(self, lines: Sequence[tuple[str, int]], trace: Trace | None = None) -> np.ndarray:
        """Which of *lines* are content (boolean array)."""
        o = self.options
        if trace is not None:
            trace.units("line", len(lines), [text for text, _ in lines])
        if not lines:
            return np.zeros(0, dtype=bool)
        ratios = tag_ratios(lines)
        smoothed = smooth(ratios, o["radius"])
        sigma = smoothed.std()
        method = o["clustering"]
        if trace is not None:
            trace.series.update(ttr=ratios, smoothed=smoothed, sigma=float(sigma))
            trace.fact("standard deviation of the smoothed TTR", round(float(sigma), 2))
        if method == "threshold":
            mask = smoothed > o["coefficient"] * sigma
            if trace is not None:
                cut = float(o["coefficient"] * sigma)
                trace.score(smoothed, "smoothed text-to-tag ratio", cut)
                trace.fact(
                    "threshold = coefficient x deviation",
                    round(cut, 2),
                    "text-to-tag ratio a line needs to be kept",
                    f"{cut:.2f} (the coefficient × the standard deviation of the smoothed ratios)",
                )
                trace.reason(mask, f"smoothed TTR above the threshold {cut:.2f}")
                trace.reason(~mask, f"smoothed TTR at or below the threshold {cut:.2f}")
            return mask
        if method == "prediction":
            derivative = absolute_derivative(smoothed, o["alpha"])
            mask = kmeans_fixed_origin(np.column_stack((smoothed, derivative)), o["clusters"])
            if trace is not None:
                trace.score(smoothed, "smoothed text-to-tag ratio")
                trace.series["derivative"] = derivative
                trace.reason(mask, "outside the cluster pinned to the origin (content)")
                trace.reason(~mask, "in the cluster pinned to the origin (non-content)")
            return mask
        k = min(o["clusters"], len(np.unique(smoothed)))  # never more groups than distinct values
        labels = CLUSTERERS[method](smoothed, k)
        means = np.bincount(labels, weights=smoothed, minlength=k) / np.maximum(np.bincount(labels, minlength=k), 1)
        mask = means[labels] > sigma
        if trace is not None:
            trace.score(smoothed, "smoothed text-to-tag ratio", float(sigma))
            trace.series.update(labels=labels, centres=means)
            trace.fact("cluster means", [round(float(m), 2) for m in means])
            for j, mean in enumerate(means.tolist()):
                side = "above" if mean > sigma else "at or below"
                trace.reason(labels == j, f"cluster {j + 1} of {k}: mean {mean:.2f} {side} the deviation {sigma:.2f}")
        return mask

    def extract_text(self, doc: Document, trace: Trace | None = None) -> str:
        lines = tagged_lines(doc, break_at_structural=self.options["lines"] == "structural")
        mask = self.content_mask(lines, trace)
        if trace is not None:
            trace.keep(mask & np.fromiter((bool(line.text) for line in lines), dtype=bool, count=len(lines)))
        return "\n".join(line.text for line, keep in zip(lines, mask) if keep and line.text)
