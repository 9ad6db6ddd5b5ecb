"""Runs of kept blocks (``webclean``'s continuity decoding): worked
examples, the compiled decoding against its Python reference, and the
decoding inside the extractor's selection."""

from __future__ import annotations

import numpy as np
import pytest

from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.extractors import webclean
from webclean_scrapy.engine.extractors.webclean import continuity
from webclean_scrapy.engine.extractors.webclean.model import load_model
from webclean_scrapy.engine.page_type import PAGE_TYPES
from webclean_scrapy.engine.trace import Trace


@pytest.mark.parametrize(
    ("votes", "cost", "states"),
    [
        # A weak "drop" between two strong "keeps" is bridged when two switches cost more than it.
        ([3.0, -0.5, 3.0], 1.0, [1, 1, 1]),
        ([3.0, -0.5, 3.0], 0.2, [1, 0, 1]),
        # A weak "keep" alone among strong "drops" is dropped.
        ([-3.0, 0.5, -3.0], 1.0, [0, 0, 0]),
        ([-3.0, 0.5, -3.0], 0.2, [0, 1, 0]),
        # A run at the start and at the end: a switch costs once.
        ([0.8, 2.0, -2.0, -2.0], 1.0, [1, 1, 0, 0]),
        ([-2.0, -2.0, 0.4, 2.0], 1.0, [0, 0, 1, 1]),
        # Ties: the last block keeps only when keeping is strictly better.
        ([0.0], 1.0, [0]),
        ([], 1.0, []),
    ],
)
def test_the_decoding_on_worked_examples(votes, cost, states):
    assert continuity.python_runs(np.array(votes), cost).tolist() == states


def test_the_compiled_decoding_makes_the_reference_decisions():
    compiled = pytest.importorskip("webclean_scrapy.engine.extractors.webclean._continuity")
    rng = np.random.default_rng(14)
    for _ in range(2000):
        n = int(rng.integers(0, 80))
        # Rounded votes make ties, which both must break the same way.
        votes = rng.normal(0, 2, n).round(int(rng.integers(0, 3)))
        cost = float(rng.choice([0.25, 0.5, 1.0, 2.0]))
        assert np.asarray(compiled.best_runs(votes, cost)).tolist() == continuity.python_runs(votes, cost).tolist()


def test_votes_weigh_the_margin_by_length():
    votes = continuity.block_votes(np.array([0.5, 0.9, 0.9, 0.1, 0.0]), np.array([10, 10, 400, 10, 10]), 0.5)
    assert votes[0] == 0.0
    assert 0 < votes[1] < votes[2]  # the same probability counts more on a paragraph than on a label
    assert votes[3] == pytest.approx(-votes[1])
    assert votes[4] < votes[3] < 0  # a vetoed block votes hard against, and finitely
    assert np.isfinite(votes).all()


def test_kept_runs_never_keeps_a_vetoed_block_and_without_a_cost_is_the_threshold():
    chars = np.array([300, 40, 300])
    assert continuity.kept_runs(np.array([0.9, 0.3, 0.9]), chars, 0.4, 2.0).tolist() == [True, True, True]
    assert continuity.kept_runs(np.array([0.9, 0.0, 0.9]), chars, 0.4, 2.0).tolist() == [True, False, True]
    assert continuity.kept_runs(np.array([0.9, 0.3, 0.9]), chars, 0.4, 0.0).tolist() == [True, False, True]


def test_a_run_bridges_prose_but_not_links():
    """A block under the threshold is kept inside a run only when it is
    mostly not links: the same weak block bridges two paragraphs as a
    byline, not as a link row; one reaching the threshold is kept either way."""
    chars = np.array([300, 40, 300, 20])
    probabilities = np.array([0.9, 0.3, 0.9, 0.3])
    unlinked = np.zeros(4, dtype=int)
    assert continuity.kept_runs(probabilities, chars, 0.4, 5.0, unlinked).tolist() == [True, True, True, True]
    linked = np.array([0, 40, 0, 20])
    assert continuity.kept_runs(probabilities, chars, 0.4, 5.0, linked).tolist() == [True, False, True, False]
    half = np.array([0, 19, 0, 10])  # under half links: prose with a link in it
    assert continuity.kept_runs(probabilities, chars, 0.4, 5.0, half).tolist() == [True, True, True, False]
    strong = np.array([0.9, 0.5, 0.9, 0.3])
    assert continuity.kept_runs(strong, chars, 0.4, 5.0, linked).tolist() == [True, True, True, False]


def test_a_listing_run_does_not_sweep_in_the_footer_links():
    """A short page whose paragraph is followed by a footer link row: on a
    page read with a high switch cost (a listing's), the run ends at the
    paragraph and the link row, under the threshold, stays out."""
    paragraph = "The council met on Monday and approved the new library, which opens in the spring. " * 4
    doc = Document.from_html(
        f"<html><body><p>{paragraph}</p><div><a href=/contact>Contact</a> <a href=/imprint>Imprint</a></div>"
        "</body></html>"
    )
    blocks = doc.block_columns
    probabilities = np.array([0.9, 0.06])
    kept = webclean.select_blocks(blocks.texts, blocks.chars, blocks.anchor_chars, probabilities, 0.1, switch_cost=2.0)
    assert kept.tolist() == [0]
    plain = continuity.kept_runs(probabilities, blocks.chars, 0.1, 2.0)  # without the link shares: swept in
    assert plain.tolist() == [True, True]


def test_the_selection_keeps_runs_and_says_why():
    paragraph = "The council met on Monday and approved the new library, which opens in the spring. " * 3
    doc = Document.from_html(
        "<html><body><ul><li><a href=/a>Home</a></li><li><a href=/b>News</a></li></ul>"
        f"<p>{paragraph}</p><p>By Ann Smith, staff writer</p><p>{paragraph.upper()}</p>"
        "<ul><li><a href=/c>Sport</a></li></ul><p>Share this</p><ul><li><a href=/d>Weather</a></li></ul></body></html>"
    )
    blocks = doc.block_columns
    assert len(blocks) == 8
    probabilities = np.array([0.02, 0.02, 0.95, 0.3, 0.95, 0.02, 0.45, 0.02])

    def select(cost: float, trace: Trace | None = None) -> list[int]:
        return webclean.select_blocks(
            blocks.texts, blocks.chars, blocks.anchor_chars, probabilities, 0.4, trace=trace, switch_cost=cost
        ).tolist()

    assert select(0.0) == [2, 4, 6]  # the plain threshold: the byline out, "Share this" in
    trace = Trace()
    trace.units("block", len(blocks))
    assert select(1.0, trace) == [2, 3, 4]
    assert trace.reasons[3] == "continuity: below the threshold, kept within a run"
    assert trace.reasons[6] == "continuity: at or above the threshold, dropped outside the runs"
    assert trace.facts["switch cost"] == 1.0


def test_the_shipped_model_has_a_switch_cost_for_every_page_type():
    model = load_model()
    assert set(model.switch_costs_by_page_type) == set(PAGE_TYPES)
    assert all(0 <= cost <= 2 for cost in model.switch_costs_by_page_type.values())
    assert model.switch_cost_for("no such type") == 0.0


def test_the_extractor_reads_runs_with_the_shipped_thresholds_only():
    """An article page (the shipped article cost is above 0) is read as
    runs, and the trace says with which cost; a hand-set threshold reads
    none, so its output is exactly the blocks reaching it."""
    from webclean_scrapy.engine.extractors import get_extractor

    paragraph = (
        "The river flooded the lower town on Tuesday night, and by morning the water had reached the "
        "steps of the old market hall, where volunteers were stacking sandbags against the doors."
    )
    page = (
        "<html><head><title>Flood in the lower town</title>"
        '<meta property="og:type" content="article"></head><body>'
        '<nav><ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li></ul></nav>'
        f"<article><h1>Flood in the lower town</h1><p>{paragraph}</p><p>{paragraph[::-1]}</p>"
        f"<p>{paragraph.upper()}</p></article><footer>Contact us</footer></body></html>"
    )
    doc = Document.from_html(page)
    assert webclean.load_model().switch_cost_for("article") > 0
    trace = Trace()
    get_extractor("webclean").extract_text(doc, trace)
    assert trace.facts["page type"] == "article"
    assert trace.facts["switch cost"] == webclean.load_model().switch_cost_for("article")
    trace = Trace()
    text = get_extractor("webclean", threshold=0.4).extract_text(Document.from_html(page), trace)
    assert "switch cost" not in trace.facts
    assert paragraph in text
