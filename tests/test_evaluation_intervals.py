"""Bootstrap intervals by site (``webclean_scrapy.evaluation.intervals``) on worked examples."""

from __future__ import annotations

import numpy as np
import pytest

from webclean_scrapy.evaluation import (
    Interval,
    bootstrap_interval,
    paired_gap,
    shingle_dataset_prf,
    shingle_f1_gap,
    shingle_f1_interval,
)
from webclean_scrapy.evaluation import intervals as intervals_module


def test_two_sites_of_opposite_scores():
    # Two sites, three pages each: one scores 0, the other 1. A resample draws
    # two sites: both the first (mean 0, probability 1/4), one of each (1/2)
    # or both the second (1/4), so the 95% interval runs from 0 to 1.
    interval = bootstrap_interval([0, 0, 0, 1, 1, 1], ["a", "a", "a", "b", "b", "b"])
    assert interval == Interval(0.5, 0.0, 1.0, 6, 2)
    assert interval.excludes(1.5) and not interval.excludes(0.5)


def test_pages_of_one_site_are_not_independent_trials():
    # The same scores: as 40 sites of 5 pages each (a site's pages score
    # alike), or as 200 sites of one page. The clustered interval is wider.
    scores = np.repeat(np.linspace(0.2, 1.0, 40), 5)
    by_site = bootstrap_interval(scores, np.repeat(np.arange(40), 5))
    by_page = bootstrap_interval(scores, np.arange(200))
    assert by_site.value == by_page.value == pytest.approx(0.6)
    assert by_site.clusters == 40 and by_page.clusters == 200
    assert by_site.low < by_site.value < by_site.high
    assert (by_site.high - by_site.low) > 1.8 * (by_page.high - by_page.low)


def test_equal_scores_and_one_site_give_no_width():
    assert bootstrap_interval([0.7] * 4, ["a", "b", "c", "d"]) == Interval(
        pytest.approx(0.7), pytest.approx(0.7), pytest.approx(0.7), 4, 4
    )
    assert bootstrap_interval([0.1, 0.9], ["x", "x"]) == Interval(0.5, 0.5, 0.5, 2, 1)
    assert bootstrap_interval([], []) == Interval(0.0, 0.0, 0.0, 0, 0)


def test_a_paired_gap_sees_through_what_the_pages_share():
    # How hard a page is varies widely from site to site, and the first
    # extractor beats the second by 0.05 on every page: the gap's interval is
    # that, exactly; each extractor's own interval is wide.
    rng = np.random.default_rng(3)
    second = np.repeat(rng.random(30) * 0.8, 10) + rng.random(300) * 0.1
    first = second + 0.05
    sites = [f"site{i // 10}" for i in range(300)]
    gap = paired_gap(first, second, sites)
    assert gap.value == pytest.approx(0.05) and gap.low == pytest.approx(0.05) and gap.high == pytest.approx(0.05)
    alone = bootstrap_interval(first, sites)
    assert alone.high - alone.low > 0.05
    assert not alone.excludes(bootstrap_interval(second, sites).value)  # side by side, the two overlap


def test_the_same_scores_give_the_same_interval_and_chunks_do_not_matter(monkeypatch):
    rng = np.random.default_rng(7)
    scores, sites = rng.random(500), rng.integers(0, 120, 500)
    first = bootstrap_interval(scores, list(sites))
    assert bootstrap_interval(scores, list(sites)) == first
    monkeypatch.setattr(intervals_module, "_CHUNK_CELLS", 1000)  # 8 resamples a chunk instead of all at once
    assert bootstrap_interval(scores, list(sites)) == first
    assert bootstrap_interval(scores, list(sites), seed=1) != first  # the seed is what fixes it
    assert bootstrap_interval(scores, list(sites), level=0.5).high < first.high


def test_the_shingle_f1_of_two_sites():
    # The article benchmark's F1 is that of two means: precision over the
    # pages with output, recall over the pages with gold text. Site a: one
    # page extracted exactly (P 1, R 1). Site b: one page with output and no
    # gold (P 0, and no recall term). All pages: P 1/2, R 1, F1 2/3. A
    # resample of two sites: a+a (F1 1, probability 1/4), a+b (2/3, 1/2) or
    # b+b (precision 0, recall over no page 0: F1 0, 1/4).
    counts = [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0)]
    interval = shingle_f1_interval(counts, ["a", "b"])
    assert interval == Interval(pytest.approx(2 / 3), 0.0, 1.0, 2, 2)
    assert interval.value == pytest.approx(shingle_dataset_prf(counts).f1)


def test_a_shingle_f1_gap_is_computed_on_the_same_resamples():
    rng = np.random.default_rng(5)
    raw = rng.random((200, 3))
    ours = [tuple(row / row.sum()) for row in raw]
    theirs = [(tp * 0.8, fp + tp * 0.2, fn) for tp, fp, fn in ours]  # fewer true shingles on every page
    sites = [i // 4 for i in range(200)]
    gap = shingle_f1_gap(ours, theirs, sites)
    assert gap.value == pytest.approx(shingle_dataset_prf(ours).f1 - shingle_dataset_prf(theirs).f1)
    assert 0 < gap.low < gap.value < gap.high  # better on every page: the gap is established
    assert shingle_f1_gap(ours, ours, sites) == Interval(0.0, 0.0, 0.0, 200, 50)
    alone = shingle_f1_interval(ours, sites)
    assert alone.high - alone.low > gap.high - gap.low  # pairing narrows the interval
    with pytest.raises(ValueError, match="same pages"):
        shingle_f1_gap(ours, theirs[:-1], sites)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="one cluster per page"):
        bootstrap_interval([0.1, 0.2], ["a"])
    with pytest.raises(ValueError, match="level"):
        bootstrap_interval([0.1], ["a"], level=1.0)
    with pytest.raises(ValueError, match="resamples"):
        bootstrap_interval([0.1], ["a"], resamples=0)
    with pytest.raises(ValueError, match="same pages"):
        paired_gap([0.1, 0.2], [0.1], ["a", "b"])
