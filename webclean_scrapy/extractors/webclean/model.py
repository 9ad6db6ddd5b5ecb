"""The shipped block model of the ``webclean`` extractor.

A gradient-boosted tree ensemble over :data:`.features.MODEL_FEATURES`,
fitted by ``benchmarks/train_webclean.py`` (LightGBM, training time only)
and shipped as ``webclean_scrapy/data/webclean_model.json``, which also
holds the keep thresholds (one, and one per predicted page type). At run time the ensemble is evaluated by
:mod:`webclean_scrapy.trees` (compiled, or numpy): nothing but numpy is
needed. Read once, on first use.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np

from ...trees import TreeEnsemble
from .features import MODEL_FEATURES

MODEL_FILE = "data/webclean_model.json"


@dataclass(frozen=True)
class BlockModel:
    """The ensemble that scores blocks and the threshold that keeps them."""

    ensemble: TreeEnsemble
    #: Minimum content probability of a kept block...
    threshold: float
    #: ... unless the page's predicted type has its own (cross-validated:
    #: listings and collections keep more of their short cards).
    thresholds_by_page_type: dict[str, float]

    def threshold_for(self, page_type: str) -> float:
        return self.thresholds_by_page_type.get(page_type, self.threshold)

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        """Content probability of each feature row."""
        return self.ensemble.probabilities(rows)


@lru_cache(maxsize=1)
def load_model() -> BlockModel:
    """The shipped model, read once on first use."""
    text = resources.files("webclean_scrapy").joinpath(MODEL_FILE).read_text("utf-8")
    data = json.loads(text)
    if data.get("features") != list(MODEL_FEATURES):
        raise RuntimeError(f"{MODEL_FILE} does not match this extractor's features; "
                           "re-run benchmarks/train_webclean.py")
    return BlockModel(TreeEnsemble.from_json(data["ensemble"]), float(data["threshold"]),
                      {kind: float(value) for kind, value in data.get("thresholds_by_page_type", {}).items()})
