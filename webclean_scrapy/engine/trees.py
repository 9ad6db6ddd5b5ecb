"""Gradient-boosted tree ensembles, evaluated with numpy alone.

The models are fitted at training time (LightGBM, in the ``[train]``
extra) and shipped as JSON; at run time only numpy is needed. Every tree is
padded to the same node table, in which a leaf is a node that sends every
row back to itself, so the whole ensemble is evaluated level by level:
``depth`` rounds of gathers over an ``(rows, trees)`` array of node
indexes, with no Python loop over rows, trees or nodes.

Node tables (one row per tree, one column per node):

* ``feature``: the feature index a node tests (leaves: 0);
* ``threshold``: a row goes left when ``x[feature] <= threshold`` (leaves: +inf);
* ``left`` / ``right``: child node indexes (leaves: themselves);
* ``value``: a leaf's output (internal nodes: 0).

A multi-class ensemble holds ``trees_per_class`` trees per class, class by
class interleaved as LightGBM writes them (tree ``t`` belongs to class
``t % classes``); :meth:`TreeEnsemble.raw` sums each class's leaves.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

try:  # the compiled evaluator (setup.py builds it when a C compiler is there)
    import webclean_scrapy.engine._trees as _compiled
except ImportError:  # pragma: no cover - depends on the build
    _compiled = None

#: Whether :meth:`TreeEnsemble.raw` runs compiled (tests switch it off to
#: compare with the numpy reference).
COMPILED_TREES: bool = _compiled is not None


class TreeEnsemble:
    """A padded, level-by-level evaluable tree ensemble (see the module docstring)."""

    __slots__ = (
        "feature",
        "threshold",
        "left",
        "right",
        "value",
        "depth",
        "classes",
        "base",
        "features",
        "_flat_feature",
        "_flat_threshold",
        "_children",
    )

    def __init__(
        self,
        feature: np.ndarray,
        threshold: np.ndarray,
        left: np.ndarray,
        right: np.ndarray,
        value: np.ndarray,
        depth: int,
        classes: int = 1,
        base: Sequence[float] | float = 0.0,
        features: Sequence[str] = (),
    ) -> None:
        trees, nodes = feature.shape
        self.feature = np.ascontiguousarray(feature, dtype=np.intp)
        self.threshold = np.ascontiguousarray(threshold, dtype=float)
        # Child indexes made absolute in the flattened table, so one gather
        # reads the next node of every (row, tree) pair.
        offset = (np.arange(trees, dtype=np.intp) * nodes)[:, None]
        self.left = (np.asarray(left, dtype=np.intp) + offset).ravel()
        self.right = (np.asarray(right, dtype=np.intp) + offset).ravel()
        self.value = np.ascontiguousarray(value, dtype=float).ravel()
        self.depth = int(depth)
        self.classes = int(classes)
        self.base = np.broadcast_to(np.asarray(base, dtype=float), (self.classes,)).copy()
        self.features = tuple(features)
        self._flat_feature = self.feature.ravel()
        self._flat_threshold = self.threshold.ravel()
        #: Left and right child of each node side by side, for the compiled walk.
        self._children = np.column_stack([self.left, self.right]).ravel()

    @property
    def trees(self) -> int:
        return self.feature.shape[0]

    def raw(self, rows: np.ndarray) -> np.ndarray:
        """The summed leaf values (margins) of *rows*: shape ``(n,)`` for one
        class, ``(n, classes)`` for several."""
        rows = np.ascontiguousarray(rows, dtype=float)
        n = rows.shape[0]
        trees, nodes = self.feature.shape
        if COMPILED_TREES and _compiled is not None:
            out = np.zeros((n, self.classes))
            _compiled.add_leaves(
                rows,
                self._flat_feature,
                self._flat_threshold,
                self._children,
                self.value,
                trees,
                nodes,
                self.depth,
                out,
            )
            out += self.base
            return out[:, 0] if self.classes == 1 else out
        flat_feature = self._flat_feature
        flat_threshold = self._flat_threshold
        node = np.broadcast_to(np.arange(trees, dtype=np.intp) * nodes, (n, trees)).copy()
        row_offset = (np.arange(n, dtype=np.intp) * rows.shape[1])[:, None]
        flat_rows = rows.ravel()
        for _ in range(self.depth):
            x = flat_rows.take(flat_feature.take(node) + row_offset)
            node = np.where(x <= flat_threshold.take(node), self.left.take(node), self.right.take(node))
        leaves = self.value.take(node)
        if self.classes == 1:
            return leaves.sum(axis=1) + self.base[0]
        return leaves.reshape(n, trees // self.classes, self.classes).sum(axis=1) + self.base

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        """Binary: the logistic of the margin; multi-class: the softmax."""
        margin = self.raw(rows)
        if self.classes == 1:
            return 1.0 / (1.0 + np.exp(-np.clip(margin, -30.0, 30.0)))
        margin = margin - margin.max(axis=1, keepdims=True)
        e = np.exp(margin)
        return e / e.sum(axis=1, keepdims=True)

    # -- (de)serialisation ----------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        trees, nodes = self.feature.shape
        offset = (np.arange(trees) * nodes)[:, None]
        return {
            "features": list(self.features),
            "classes": self.classes,
            "depth": self.depth,
            "base": [round(float(b), 6) for b in self.base],
            "feature": self.feature.tolist(),
            "threshold": [[_round(t) for t in row] for row in self.threshold.tolist()],
            "left": (self.left.reshape(trees, nodes) - offset).tolist(),
            "right": (self.right.reshape(trees, nodes) - offset).tolist(),
            "value": [[round(v, 6) for v in row] for row in self.value.reshape(trees, nodes).tolist()],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TreeEnsemble:
        threshold = np.array([[np.inf if t is None else t for t in row] for row in data["threshold"]], dtype=float)
        return cls(
            np.array(data["feature"]),
            threshold,
            np.array(data["left"]),
            np.array(data["right"]),
            np.array(data["value"], dtype=float),
            data["depth"],
            data.get("classes", 1),
            data.get("base", 0.0),
            data.get("features", ()),
        )


def _round(value: float) -> float | None:
    """Thresholds keep full precision (a rounded cut can move a row across
    it); infinity, which JSON lacks, is ``None``."""
    return None if value == np.inf else float(value)


def _empty_tables(trees: int, width: int) -> tuple[np.ndarray, ...]:
    """Padded node tables (feature, threshold, left, right, value) for
    *trees* trees of at most *width* nodes: every node a leaf of value 0
    (its children itself) until filled in."""
    shape = (trees, width)
    left = np.tile(np.arange(width), (trees, 1))
    return (np.zeros(shape, dtype=np.intp), np.full(shape, np.inf), left, left.copy(), np.zeros(shape))


def from_lightgbm(dump: Mapping[str, Any], features: Sequence[str] = ()) -> TreeEnsemble:
    """Convert ``lightgbm.Booster.dump_model()`` output (numerical splits,
    ``decision_type`` ``<=``, missing values treated as zero) into a
    :class:`TreeEnsemble`. Training-time only."""
    infos = dump["tree_info"]
    classes = int(dump.get("num_tree_per_iteration", 1))
    tables = []
    depth = 0
    for info in infos:
        table: list[list[float]] = []  # rows: feature, threshold, left, right, value

        def add(node: Mapping[str, Any], level: int) -> int:
            nonlocal depth
            index = len(table)
            table.append([0, np.inf, index, index, 0.0])
            if "leaf_index" in node or "split_index" not in node:
                table[index][4] = float(node.get("leaf_value", 0.0))
                depth = max(depth, level)
                return index
            if node.get("decision_type", "<=") != "<=":
                raise ValueError("only numerical '<=' splits are supported")
            left = add(node["left_child"], level + 1)
            right = add(node["right_child"], level + 1)
            table[index] = [node["split_feature"], float(node["threshold"]), left, right, 0.0]
            return index

        add(info["tree_structure"], 0)
        tables.append(table)
    feature, threshold, left, right, value = _empty_tables(len(tables), max(len(t) for t in tables))
    for t, table in enumerate(tables):
        for i, (f, thr, lo, hi, v) in enumerate(table):
            feature[t, i], threshold[t, i], left[t, i], right[t, i], value[t, i] = f, thr, lo, hi, v
    return TreeEnsemble(feature, threshold, left, right, value, depth, classes, 0.0, features)


# -- the compact format (node lists in preorder, leaves rounded) -------------


def ensemble_to_json(ensemble: TreeEnsemble, digits: int = 4) -> dict[str, Any]:
    """A compact form of a tree ensemble: each tree as its nodes in
    preorder, an internal node ``[feature, threshold, right]`` (the left
    child is the next node), a leaf its value to *digits* significant
    digits. No padding is stored."""
    trees = []
    feature, threshold = ensemble.feature, ensemble.threshold
    nodes = feature.shape[1]
    left = ensemble.left.reshape(feature.shape) - (np.arange(len(feature)) * nodes)[:, None]
    right = ensemble.right.reshape(feature.shape) - (np.arange(len(feature)) * nodes)[:, None]
    value = ensemble.value.reshape(feature.shape)
    for t in range(len(feature)):
        out: list[Any] = []

        def emit(node: int) -> None:
            if left[t, node] == node:
                out.append(float(f"{value[t, node]:.{digits}g}"))
                return
            entry = [int(feature[t, node]), float(threshold[t, node]), 0]
            out.append(entry)
            emit(int(left[t, node]))
            entry[2] = len(out)
            emit(int(right[t, node]))

        emit(0)
        trees.append(out)
    return {"classes": ensemble.classes, "base": [float(b) for b in ensemble.base], "trees": trees}


def ensemble_from_json(data: Mapping[str, Any], features: Iterable[str] = ()) -> TreeEnsemble:
    """Inverse of :func:`ensemble_to_json`: the padded node tables."""
    trees = data["trees"]
    feature, threshold, left, right, value = _empty_tables(len(trees), max(len(tree) for tree in trees))
    depth = 0
    for t, tree in enumerate(trees):
        levels = [0] * len(tree)
        for i, node in enumerate(tree):
            if isinstance(node, list):
                feature[t, i], threshold[t, i], right[t, i] = node[0], node[1], node[2]
                left[t, i] = i + 1
                levels[i + 1] = levels[node[2]] = levels[i] + 1
            else:
                value[t, i] = node
                depth = max(depth, levels[i])
    return TreeEnsemble(
        feature, threshold, left, right, value, depth, int(data["classes"]), data.get("base", 0.0), tuple(features)
    )
