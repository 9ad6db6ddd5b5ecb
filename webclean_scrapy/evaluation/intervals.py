"""How far a dataset's figure can be trusted: bootstrap intervals by site.

A dataset's figure is computed over its pages, and its pages are a sample:
another sample of the same kind of pages would give another figure. How
much another is what decides whether 0.8785 "misses" a goal of 0.88, or
whether one extractor's lead over another on a hundred listing pages is a
lead at all. Pages of one site share a template, so they fail or succeed
together; resampling pages one by one would count one site's fifty pages
as fifty independent trials and give intervals far too narrow. The
resampling unit is therefore the site (the cluster bootstrap): draw as
many sites as the dataset has, with replacement, and compute the figure
over the pages of the sites drawn.

Both figures of the benchmarks are ratios of sums over pages: WCXB's word
F1 is a mean over pages, the article benchmark's shingle F1 the F1 of two
means (precision over the pages with output, recall over the pages with
gold text). So each page gives a few columns (a score and a 1 for the
mean), a resample sums its sites' columns, and the figure is computed from
the sums (:func:`cluster_bootstrap`).

A gap between two extractors is measured on the same pages, so its
interval comes from the two figures computed on the same resamples (a
paired bootstrap), which is much narrower than the two extractors'
intervals side by side: a hard page is hard for both.

Percentile intervals from a fixed seed: the same pages and scores always
give the same interval. The resamples are drawn in chunks, so memory stays
bounded on a corpus of any size.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from typing import NamedTuple

import numpy as np

from webclean_scrapy.evaluation.metrics import shingle_page_terms

#: Resamples per interval: on ``wcxb-dev``'s cross-validated scores, an end
#: of the interval moves by 0.0004 (standard deviation over 20 seeds) for a
#: half-width of 0.014, and by 0.0017 for a page type's 0.058: a few
#: percent of the interval, for about 0.07 s of numpy (1,500 pages).
RESAMPLES = 2000
#: The interval's coverage.
LEVEL = 0.95
#: Numbers drawn and summed per chunk at most (resamples x clusters x columns).
_CHUNK_CELLS = 4_000_000

#: Column sums of the pages drawn, shape ``(..., columns)``, to the figure, shape ``(...)``.
Statistic = Callable[[np.ndarray], np.ndarray]


class Interval(NamedTuple):
    """A figure over pages and its bootstrap interval."""

    #: The figure of all the pages (a mean, an F1, a gap between two).
    value: float
    low: float
    high: float
    #: Pages the figure is over.
    pages: int
    #: Clusters (sites) the pages come from: the resampling unit.
    clusters: int

    def excludes(self, value: float) -> bool:
        """Whether *value* lies outside the interval (a gap whose interval
        excludes 0 is a gap at this level)."""
        return not self.low <= value <= self.high


def cluster_bootstrap(
    columns: np.ndarray,
    clusters: Sequence[Hashable],
    statistic: Statistic,
    *,
    resamples: int = RESAMPLES,
    level: float = LEVEL,
    seed: int = 0,
) -> Interval:
    """The figure *statistic* makes of the column sums of all pages
    (*columns*: one row per page), and its percentile interval under
    resampling the pages' *clusters* (one per page, e.g. their site) with
    replacement. One cluster gives an interval of zero width: with a single
    site, the sample says nothing about other sites; a few clusters (under
    about 20) give an interval too narrow to trust."""
    table = np.asarray(columns, dtype=np.float64)
    if table.ndim != 2 or len(clusters) != len(table):
        raise ValueError(f"one cluster per page needed: {len(clusters)} clusters for {len(table)} pages")
    if not 0 < level < 1:
        raise ValueError(f"level must lie between 0 and 1, not {level}")
    if resamples < 1:
        raise ValueError(f"resamples must be 1 or more, not {resamples}")
    if not len(table):
        return Interval(0.0, 0.0, 0.0, 0, 0)
    index: dict[Hashable, int] = {}
    ids = np.fromiter((index.setdefault(c, len(index)) for c in clusters), dtype=np.int64, count=len(table))
    n = len(index)
    per_cluster = np.zeros((n, table.shape[1]))
    np.add.at(per_cluster, ids, table)
    # Exact sums (math.fsum): the figure of all pages is the report's own, whatever the clusters.
    observed = float(statistic(np.array([math.fsum(column) for column in table.T])))
    if n == 1:
        return Interval(observed, observed, observed, len(table), 1)
    rng = np.random.default_rng(seed)
    figures = np.empty(resamples)
    chunk = max(1, _CHUNK_CELLS // (n * table.shape[1]))
    for start in range(0, resamples, chunk):
        drawn = rng.integers(0, n, size=(min(chunk, resamples - start), n))
        figures[start : start + len(drawn)] = statistic(per_cluster[drawn].sum(axis=1))
    tail = (1 - level) / 2
    low, high = np.quantile(figures, [tail, 1 - tail])
    return Interval(observed, float(low), float(high), len(table), n)


def _mean_columns(values: Sequence[float] | np.ndarray) -> np.ndarray:
    scores = np.asarray(values, dtype=np.float64)
    if scores.ndim != 1:
        raise ValueError("one value per page needed")
    return np.column_stack([scores, np.ones_like(scores)])


def _mean(sums: np.ndarray) -> np.ndarray:
    return sums[..., 0] / sums[..., 1]


def bootstrap_interval(
    values: Sequence[float] | np.ndarray,
    clusters: Sequence[Hashable],
    *,
    resamples: int = RESAMPLES,
    level: float = LEVEL,
    seed: int = 0,
) -> Interval:
    """The mean of *values* (one per page: WCXB's word F1) and its interval
    (:func:`cluster_bootstrap`)."""
    return cluster_bootstrap(_mean_columns(values), clusters, _mean, resamples=resamples, level=level, seed=seed)


def paired_gap(
    first: Sequence[float] | np.ndarray,
    second: Sequence[float] | np.ndarray,
    clusters: Sequence[Hashable],
    *,
    resamples: int = RESAMPLES,
    level: float = LEVEL,
    seed: int = 0,
) -> Interval:
    """The mean of *first* minus *second* (two scores of the same pages)
    and its interval: the mean gap, resampled."""
    a, b = np.asarray(first, dtype=np.float64), np.asarray(second, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"the two scores must cover the same pages: {a.size} and {b.size} values")
    return bootstrap_interval(a - b, clusters, resamples=resamples, level=level, seed=seed)


def _shingle_columns(counts: Sequence[tuple[float, float, float]]) -> np.ndarray:
    """Per page: its precision and 1 if it is in the precision mean (0, 0
    if not), the same for recall (:func:`~.metrics.shingle_page_terms`)."""
    rows = []
    for tp, fp, fn in counts:
        precision, recall = shingle_page_terms(tp, fp, fn)
        rows.append(
            (precision or 0.0, float(precision is not None), recall or 0.0, float(recall is not None)),
        )
    return np.array(rows, dtype=np.float64).reshape(-1, 4)


def _shingle_f1(sums: np.ndarray) -> np.ndarray:
    """The benchmark's dataset F1 from the sums of :func:`_shingle_columns`
    (:func:`~.metrics.shingle_dataset_prf`: a mean over no page is 0)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(sums[..., 1] > 0, sums[..., 0] / sums[..., 1], 0.0)
        recall = np.where(sums[..., 3] > 0, sums[..., 2] / sums[..., 3], 0.0)
        return np.where(precision + recall > 0, 2 * precision * recall / (precision + recall), 0.0)


def _shingle_f1_gap(sums: np.ndarray) -> np.ndarray:
    return _shingle_f1(sums[..., :4]) - _shingle_f1(sums[..., 4:])


def shingle_f1_interval(
    counts: Sequence[tuple[float, float, float]],
    clusters: Sequence[Hashable],
    *,
    resamples: int = RESAMPLES,
    level: float = LEVEL,
    seed: int = 0,
) -> Interval:
    """The article benchmark's shingle F1 of the pages' *counts* (each
    :func:`~.metrics.shingle_counts`) and its interval."""
    return cluster_bootstrap(
        _shingle_columns(counts), clusters, _shingle_f1, resamples=resamples, level=level, seed=seed
    )


def shingle_f1_gap(
    first: Sequence[tuple[float, float, float]],
    second: Sequence[tuple[float, float, float]],
    clusters: Sequence[Hashable],
    *,
    resamples: int = RESAMPLES,
    level: float = LEVEL,
    seed: int = 0,
) -> Interval:
    """The shingle F1 of *first* minus that of *second* (two extractors'
    counts on the same pages) and its interval, both figures computed on the
    same resamples."""
    if len(first) != len(second):
        raise ValueError(f"the two scores must cover the same pages: {len(first)} and {len(second)} pages")
    columns = np.hstack([_shingle_columns(first), _shingle_columns(second)])
    return cluster_bootstrap(columns, clusters, _shingle_f1_gap, resamples=resamples, level=level, seed=seed)
