"""The tree-ensemble evaluator the default extractor's models run on."""

from __future__ import annotations

import json

import numpy as np
import pytest

from webclean_scrapy.engine import trees
from webclean_scrapy.engine.trees import TreeEnsemble


def stump_ensemble(classes: int = 1) -> TreeEnsemble:
    """Two trees by hand. Tree 0: x0 <= 0.5 ? (x1 <= 2 ? 1 : 2) : 3.
    Tree 1: a single leaf, -0.5. Padded to four nodes each."""
    inf = np.inf
    feature = np.array([[0, 1, 0, 0, 0], [0, 0, 0, 0, 0]])
    threshold = np.array([[0.5, 2.0, inf, inf, inf], [inf, inf, inf, inf, inf]])
    left = np.array([[1, 2, 2, 3, 4], [0, 1, 2, 3, 4]])
    right = np.array([[4, 3, 2, 3, 4], [0, 1, 2, 3, 4]])
    value = np.array([[0, 0, 1.0, 2.0, 3.0], [-0.5, 0, 0, 0, 0]])
    return TreeEnsemble(feature, threshold, left, right, value, depth=2, classes=classes, base=0.25)


ROWS = np.array([[0.0, 1.0], [0.0, 5.0], [0.5, 2.0], [0.7, -1.0], [9.0, 9.0]])
#: Hand-computed: leaf of tree 0, plus -0.5, plus the base 0.25.
EXPECTED = [1.0 - 0.25, 2.0 - 0.25, 1.0 - 0.25, 3.0 - 0.25, 3.0 - 0.25]


@pytest.mark.parametrize("compiled", [pytest.param(True, marks=pytest.mark.compiled_trees), False])
def test_raw_scores_are_the_leaves_summed(compiled, monkeypatch):
    monkeypatch.setattr(trees, "COMPILED_TREES", compiled)
    ensemble = stump_ensemble()
    assert ensemble.raw(ROWS).tolist() == EXPECTED
    assert ensemble.probabilities(ROWS) == pytest.approx(1 / (1 + np.exp(-np.array(EXPECTED))))
    assert ensemble.raw(np.zeros((0, 2))).shape == (0,)


@pytest.mark.parametrize("compiled", [pytest.param(True, marks=pytest.mark.compiled_trees), False])
def test_multiclass_trees_alternate_classes(compiled, monkeypatch):
    monkeypatch.setattr(trees, "COMPILED_TREES", compiled)
    ensemble = stump_ensemble(classes=2)  # tree 0 is class 0, tree 1 class 1
    raw = ensemble.raw(ROWS)
    assert raw[:, 0].tolist() == [1.25, 2.25, 1.25, 3.25, 3.25]
    assert raw[:, 1].tolist() == [-0.25] * 5
    assert ensemble.probabilities(ROWS).sum(axis=1) == pytest.approx([1.0] * 5)


def test_json_round_trip_keeps_every_threshold():
    ensemble = stump_ensemble()
    again = TreeEnsemble.from_json(json.loads(json.dumps(ensemble.to_json())))
    assert again.raw(ROWS).tolist() == EXPECTED


@pytest.mark.compiled_trees
def test_compiled_and_numpy_agree_on_random_deep_trees(monkeypatch):
    rng = np.random.default_rng(7)
    count, depth, features = 30, 5, 6
    nodes = 2 ** (depth + 1) - 1
    internal = 2**depth - 1
    feature = rng.integers(0, features, size=(count, nodes))
    threshold = rng.normal(size=(count, nodes))
    threshold[:, internal:] = np.inf
    index = np.arange(nodes)
    left = np.where(index < internal, 2 * index + 1, index)
    right = np.where(index < internal, 2 * index + 2, index)
    value = np.where(index >= internal, rng.normal(size=(count, nodes)), 0.0)
    ensemble = TreeEnsemble(feature, threshold, np.tile(left, (count, 1)), np.tile(right, (count, 1)), value, depth)
    rows = rng.normal(size=(203, features))  # not a multiple of the rows evaluated together
    compiled = ensemble.raw(rows)
    monkeypatch.setattr(trees, "COMPILED_TREES", False)
    assert compiled == pytest.approx(ensemble.raw(rows), abs=1e-12)


def test_lightgbm_models_convert_exactly():
    lightgbm = pytest.importorskip("lightgbm")  # the [train] extra
    rng = np.random.default_rng(3)
    rows = rng.normal(size=(600, 5))
    labels = (rows[:, 0] + rows[:, 1] * rows[:, 2] > 0.3).astype(int)
    model = lightgbm.LGBMClassifier(n_estimators=20, num_leaves=7, max_depth=4, verbose=-1).fit(rows, labels)
    ensemble = trees.from_lightgbm(model.booster_.dump_model(), [f"x{i}" for i in range(5)])
    assert ensemble.raw(rows) == pytest.approx(model.predict(rows, raw_score=True), abs=1e-9)
    assert ensemble.features == ("x0", "x1", "x2", "x3", "x4")
