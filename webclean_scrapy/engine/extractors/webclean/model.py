"""The shipped block model of the ``webclean`` extractor.

A gradient-boosted tree ensemble over :data:`.features.MODEL_FEATURES`,
fitted by ``benchmarks/train_webclean.py`` (LightGBM, training time only)
and shipped as ``webclean_scrapy/data/webclean_model.json``, which also
holds the markup lexicon (:mod:`.lexicon`), the keep thresholds (one, and
one per predicted page type), the vetoes that apply on each predicted page
type, the repeats dropped on it and the cost of switching between kept and
dropped blocks on it (:mod:`.continuity`). At run time the ensemble is
evaluated by :mod:`webclean_scrapy.engine.trees` (compiled, or numpy): nothing but
numpy is needed. Read once, on first use.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

import numpy as np

from webclean_scrapy.engine.extractors.webclean.features import MODEL_FEATURES
from webclean_scrapy.engine.extractors.webclean.lexicon import MarkupLexicon
from webclean_scrapy.engine.trees import TreeEnsemble

#: Why a block may be ruled out whatever the model says (documented where
#: they are computed, :func:`webclean_scrapy.engine.extractors.webclean.veto_masks`).
VETOES: tuple[str, ...] = ("comment_area", "widget", "hidden", "chrome")

MODEL_FILE = "data/webclean_model.json"

#: Repeats shorter than this many characters are dropped unless the page's
#: predicted type has its own rule (see the extractor's ``deduplicate``).
DEDUPLICATE_BELOW = 100


@dataclass(frozen=True)
class BlockModel:
    """The ensemble that scores blocks and the threshold that keeps them."""

    ensemble: TreeEnsemble
    #: The markup lexicon whose score is one of the ensemble's features.
    lexicon: MarkupLexicon
    #: Minimum content probability of a kept block...
    threshold: float
    #: ... unless the page's predicted type has its own (cross-validated:
    #: listings and collections keep more of their short cards).
    thresholds_by_page_type: dict[str, float]
    #: The :data:`~webclean_scrapy.engine.extractors.webclean.VETOES` reasons that
    #: apply on each predicted page type (cross-validated); a type not
    #: listed gets them all.
    vetoes_by_page_type: dict[str, tuple[str, ...]]
    #: Repeats shorter than this many characters are dropped on each
    #: predicted page type (``0``: every repeat; cross-validated): on forum,
    #: product, collection and service pages a repeated line is a quoted
    #: post, a price, a card or a call to action shown twice, and the gold
    #: keeps it once. A type
    #: not listed gets :data:`DEDUPLICATE_BELOW`.
    deduplicate_by_page_type: dict[str, int] = field(default_factory=dict)
    #: The cost of switching between keeping and dropping from one block to
    #: the next on each predicted page type (:mod:`.continuity`;
    #: cross-validated): a type not listed, and ``0``, keep exactly the
    #: blocks reaching the threshold.
    switch_costs_by_page_type: dict[str, float] = field(default_factory=dict)
    #: How far each block's log-odds move towards its structural group's on
    #: each predicted page type (:mod:`.consensus`; cross-validated): a
    #: forum's posts, built from one template, are kept or dropped
    #: together. A type not listed, and ``0``, leave the model's scores.
    consensus_by_page_type: dict[str, float] = field(default_factory=dict)

    def threshold_for(self, page_type: str) -> float:
        return self.thresholds_by_page_type.get(page_type, self.threshold)

    def vetoes_for(self, page_type: str) -> tuple[str, ...]:
        return self.vetoes_by_page_type.get(page_type, VETOES)

    def deduplicate_for(self, page_type: str) -> int:
        return self.deduplicate_by_page_type.get(page_type, DEDUPLICATE_BELOW)

    def switch_cost_for(self, page_type: str) -> float:
        return self.switch_costs_by_page_type.get(page_type, 0.0)

    def consensus_for(self, page_type: str) -> float:
        return self.consensus_by_page_type.get(page_type, 0.0)

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        """Content probability of each feature row."""
        return self.ensemble.probabilities(rows)


@lru_cache(maxsize=1)
def load_model() -> BlockModel:
    """The shipped model, read once on first use."""
    text = resources.files("webclean_scrapy").joinpath(MODEL_FILE).read_text("utf-8")
    data = json.loads(text)
    if data.get("features") != list(MODEL_FEATURES):
        raise RuntimeError(
            f"{MODEL_FILE} does not match this extractor's features; re-run benchmarks/train_webclean.py"
        )
    vetoes = {kind: tuple(reasons) for kind, reasons in data.get("vetoes_by_page_type", {}).items()}
    unknown = {reason for reasons in vetoes.values() for reason in reasons} - set(VETOES)
    if unknown:
        raise RuntimeError(f"{MODEL_FILE} names unknown vetoes {sorted(unknown)}")
    return BlockModel(
        TreeEnsemble.from_json(data["ensemble"]),
        MarkupLexicon.from_json(data["markup_lexicon"]),
        float(data["threshold"]),
        {kind: float(value) for kind, value in data.get("thresholds_by_page_type", {}).items()},
        vetoes,
        {kind: int(value) for kind, value in data.get("deduplicate_by_page_type", {}).items()},
        {kind: float(value) for kind, value in data.get("switch_costs_by_page_type", {}).items()},
        {kind: float(value) for kind, value in data.get("consensus_by_page_type", {}).items()},
    )
