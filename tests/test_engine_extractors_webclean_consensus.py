"""Repeated units decide together (``webclean``'s group consensus): the
groups the markup makes, the consensus on worked examples, and the
consensus inside the extractor's scoring."""

from __future__ import annotations

import dataclasses
import gzip
from pathlib import Path

import numpy as np
import pytest

from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.extractors import webclean
from webclean_scrapy.engine.extractors.webclean import consensus
from webclean_scrapy.engine.extractors.webclean.consensus import (
    MIN_REPEATS,
    consensus_probabilities,
    structural_groups,
)
from webclean_scrapy.engine.page_type import PAGE_TYPES, page_type_of
from webclean_scrapy.engine.trace import Trace

#: The shared datasets, when present (their pages add to the generated ones).
DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def thread(posts: int, short_post: int | None = None) -> str:
    """A forum thread: a menu, *posts* posts from one template (a byline and
    a body), a footer. Post *short_post* is a one-line reply."""
    body = (
        "I replaced the thermostat last winter and the boiler still cycles every ten minutes, so the "
        "fault must be somewhere else in the heating circuit; has anyone checked the pump's wiring?"
    )
    items = "".join(
        f'<div class="post"><span class="by">member{i}</span>'
        f'<div class="body"><p>{"Same here." if i == short_post else body}</p></div></div>'
        for i in range(posts)
    )
    return (
        "<html><head><title>Boiler keeps cycling - Forum</title></head><body>"
        '<nav><a href="/">Home</a> <a href="/forum">Forum</a></nav>'
        f'<div class="thread">{items}</div><footer>Imprint</footer></body></html>'
    )


def test_blocks_at_the_same_place_in_repeated_units_share_a_group():
    doc = Document.from_html(thread(4))
    texts = doc.block_columns.texts
    groups = structural_groups(doc)
    assert len(groups) == len(texts)
    bylines = [g for t, g in zip(texts, groups) if t.startswith("member")]
    bodies = [g for t, g in zip(texts, groups) if t.startswith("I replaced")]
    assert len(set(bylines)) == 1 and len(set(bodies)) == 1
    assert bylines[0] != bodies[0] and bylines[0] >= 0 and bodies[0] >= 0
    # The menu and the footer are not repeated units.
    assert groups[texts.index("Home Forum")] == -1
    assert groups[texts.index("Imprint")] == -1
    # Numbered from 0 in order of first block.
    assert sorted(set(groups) - {-1}) == [0, 1] and bylines[0] == 0


def test_fewer_repeats_than_the_minimum_make_no_group():
    doc = Document.from_html(thread(MIN_REPEATS - 1))
    assert (structural_groups(doc) == -1).all()
    assert structural_groups(Document.from_html(b"")).shape == (0,)


def test_the_compiled_groups_are_the_reference_groups():
    """Threads of every size, nested listings, and every 25th page of the
    datasets: the compiled pass numbers the groups as the numpy reference."""
    if consensus._compiled_groups is None:
        pytest.skip("the extension was not built")
    listing = "".join(f"<ul class='cards'>{'<li class=card><p>item</p><p>price</p></li>' * k}</ul>" for k in range(6))
    docs = [Document.from_html(thread(posts, short_post=1)) for posts in range(6)]
    docs += [Document.from_html(f"<html><body><div>{listing}</div></body></html>"), Document.from_html(b"")]
    docs += [
        Document.from_html(gzip.decompress(path.read_bytes())) for path in sorted(DATA.glob("*/html/*.html.gz"))[::25]
    ]
    for doc in docs:
        compiled, expected = structural_groups(doc), consensus._python_structural_groups(doc)
        assert compiled.dtype == expected.dtype and compiled.tobytes() == expected.tobytes()
    assert any((structural_groups(doc) >= 0).any() for doc in docs)


def test_the_consensus_on_worked_examples():
    groups = np.array([-1, 0, 0, 0, 1, 1])
    chars = np.array([50, 100, 100, 100, 30, 30])
    p = np.array([0.9, 0.9, 0.9, 0.2, 0.9, 0.1])
    # Weight 0 changes nothing (the same array).
    assert consensus_probabilities(p, groups, chars, 0.0) is p
    full = consensus_probabilities(p, groups, chars, 1.0)
    logit = np.log(p / (1 - p))
    mean = float(np.exp(logit[1:4].mean()) / (1 + np.exp(logit[1:4].mean())))
    # Weight 1: every member of a group of MIN_REPEATS blocks scores the group's mean (equal lengths).
    assert full[1:4] == pytest.approx([mean] * 3)
    assert full[3] > 0.5 > p[3]  # the one weak post of three strong ones is carried
    # Outside a group, and in a group of fewer blocks (two here), nothing moves, to the bit.
    assert full[0] == p[0] and full[4] == p[4] and full[5] == p[5]
    half = consensus_probabilities(p, groups, chars, 0.5)
    assert p[3] < half[3] < full[3]
    assert half[1] < p[1]
    assert p.tolist() == [0.9, 0.9, 0.9, 0.2, 0.9, 0.1]  # the input is not modified


def test_longer_members_weigh_more_in_the_mean():
    groups = np.array([0, 0, 0])
    p = np.array([0.9, 0.1, 0.1])
    long_first = consensus_probabilities(p, groups, np.array([2000, 5, 5]), 1.0)
    short_first = consensus_probabilities(p, groups, np.array([5, 2000, 2000]), 1.0)
    assert long_first[0] > short_first[0]


def test_the_shipped_model_has_a_consensus_weight_for_every_page_type():
    model = webclean.load_model()
    assert set(model.consensus_by_page_type) == set(PAGE_TYPES)
    assert all(0.0 <= weight <= 1.0 for weight in model.consensus_by_page_type.values())
    assert model.consensus_for("no such type") == 0.0


def test_the_scoring_applies_the_page_types_consensus_and_says_so(monkeypatch):
    """With a consensus weight of 1 on the predicted type, the posts' bodies
    score alike (the short reply among them included), and the trace
    names the weight; with 0 the model's own scores stand."""
    doc = Document.from_html(thread(5, short_post=2))
    kind = page_type_of(doc)[0]
    shipped = webclean.load_model()
    texts = doc.block_columns.texts
    bodies = [i for i, t in enumerate(texts) if t.startswith("I replaced") or t == "Same here."]

    def scores(weight: float) -> tuple[np.ndarray, Trace]:
        model = dataclasses.replace(shipped, consensus_by_page_type={kind: weight})
        monkeypatch.setattr(webclean, "load_model", lambda: model)
        trace = Trace()
        return webclean.block_probabilities(doc, trace=trace), trace

    own, trace = scores(0.0)
    assert "group consensus on " + kind + " pages" not in trace.facts
    together, trace = scores(1.0)
    assert trace.facts[f"group consensus on {kind} pages"] == 1.0
    assert np.ptp(together[bodies]) < np.ptp(own[bodies])
    assert together[bodies] == pytest.approx([together[bodies[0]]] * len(bodies))
