"""The page-type classifier: a token model and a tree ensemble over the
page signals, as shipped in ``webclean_scrapy/data/page_type_model.json``.

Fitted by ``benchmarks/train_page_type.py`` (the token model's scores it
trains on are out-of-fold) and evaluated with numpy alone
(:class:`~webclean_scrapy.engine.trees.TreeEnsemble`).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Mapping
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.memo import MemoKey
from webclean_scrapy.engine.page_type.signals import STRUCTURE_FEATURES, page_signals
from webclean_scrapy.engine.trees import ensemble_from_json

#: WCXB's seven page types, in the order of the classifier's probabilities.
PAGE_TYPES: tuple[str, ...] = ("article", "forum", "product", "collection", "listing", "documentation", "service")
#: The page types whose main text is a list of other pages (a news site's
#: hubs): the ``news`` spider follows them without emitting them, and the
#: ``webclean`` extractor reads one as an article when what it keeps of it
#: has almost no links (``webclean.reads_as_article``).
HUB_PAGE_TYPES: frozenset[str] = frozenset({"listing", "collection"})
#: The token model's features: its centred score for each page type, and
#: how many of the page's words it knows.
TOKEN_FEATURES: tuple[str, ...] = (*(f"tokens_{t}" for t in PAGE_TYPES), "tokens_known")
PAGE_FEATURES: tuple[str, ...] = STRUCTURE_FEATURES + TOKEN_FEATURES


class TokenModel:
    """A linear model over a page's word tokens (see :func:`page_signals`):
    a vocabulary, int8 weights with one scale per page type, intercepts.

    :meth:`features` gives the :data:`TOKEN_FEATURES`: the seven scores
    minus their mean (only differences between types matter), and the
    number of known tokens (so the trees can tell an unknown language or
    an empty page from a confident score).
    """

    __slots__ = ("vocabulary", "weights", "intercept")

    def __init__(self, vocabulary: Iterable[str], weights: np.ndarray, intercept: np.ndarray) -> None:
        self.vocabulary = {token: i for i, token in enumerate(vocabulary)}
        self.weights = np.asarray(weights, dtype=float).reshape(len(self.vocabulary), len(PAGE_TYPES))
        self.intercept = np.asarray(intercept, dtype=float).reshape(len(PAGE_TYPES))

    def features(self, tokens: Iterable[str]) -> np.ndarray:
        vocabulary = self.vocabulary
        # Summed in vocabulary order: a set's order follows the per-process
        # string hash, and float sums in another order differ in the last bit.
        rows = sorted(map(vocabulary.__getitem__, vocabulary.keys() & tokens))
        scores = self.weights[rows].sum(axis=0) + self.intercept
        return np.append(scores - scores.mean(), len(rows))

    @classmethod
    def quantized(cls, vocabulary: list[str], weights: np.ndarray, intercept: np.ndarray) -> TokenModel:
        """The model as shipped: weights rounded to int8 steps per type."""
        q, scale = _quantize(np.asarray(weights, dtype=float))
        return cls(vocabulary, q * scale, np.round(np.asarray(intercept, dtype=float), 6))

    def to_json(self) -> dict[str, Any]:
        q, scale = _quantize(self.weights)
        return {
            "vocabulary": list(self.vocabulary),
            "scale": [float(s) for s in scale],
            "intercept": [round(float(v), 6) for v in self.intercept],
            "weights": base64.b64encode(q.astype(np.int8).tobytes()).decode("ascii"),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TokenModel:
        vocabulary = data["vocabulary"]
        q = np.frombuffer(base64.b64decode(data["weights"]), dtype=np.int8).reshape(len(vocabulary), -1)
        return cls(vocabulary, q * np.asarray(data["scale"], dtype=float), np.asarray(data["intercept"]))


def _quantize(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """int8 steps and one scale per column (page type)."""
    scale = np.abs(weights).max(axis=0) / 127.0 if weights.size else np.ones(len(PAGE_TYPES))
    scale = np.where(scale > 0, scale, 1.0)
    scale = np.array([float(f"{s:.6g}") for s in scale])
    return np.clip(np.round(weights / scale), -127, 127), scale


class PageTypeModel:
    """The shipped classifier: the token model, and a tree ensemble over
    :data:`PAGE_FEATURES`."""

    __slots__ = ("ensemble", "tokens", "meta")

    def __init__(self, data: Mapping[str, Any]) -> None:
        if tuple(data.get("features", ())) != PAGE_FEATURES:
            raise RuntimeError(
                "page_type_model.json does not match PAGE_FEATURES; re-run benchmarks/train_page_type.py"
            )
        if tuple(data.get("page_types", ())) != PAGE_TYPES:
            raise RuntimeError("page_type_model.json was trained for other page types")
        self.ensemble = ensemble_from_json(data["ensemble"], PAGE_FEATURES)
        self.tokens = TokenModel.from_json(data["tokens"])
        self.meta = dict(data.get("meta", {}))

    @classmethod
    def from_json_text(cls, text: str) -> PageTypeModel:
        return cls(json.loads(text))

    def features(self, doc: Document, url: str | None = None) -> np.ndarray:
        structure, tokens = page_signals(doc, url)
        return np.concatenate([structure, self.tokens.features(tokens)])

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        """Class probabilities of feature rows, shape ``(n, 7)``, columns in
        :data:`PAGE_TYPES` order."""
        return self.ensemble.probabilities(np.atleast_2d(np.asarray(rows, dtype=float)))


@lru_cache(maxsize=1)
def load_model() -> PageTypeModel:
    """The shipped model, read once."""
    text = resources.files("webclean_scrapy").joinpath("data/page_type_model.json").read_text("utf-8")
    return PageTypeModel.from_json_text(text)


def page_features(doc: Document, url: str | None = None) -> np.ndarray:
    """The :data:`PAGE_FEATURES` vector of a walked page (1-D float64,
    finite): :func:`page_signals` and the shipped token model's scores.

    *url* defaults to the document's own (then its canonical link).
    """
    return load_model().features(doc, url)


def predict_page_type(doc: Document, url: str | None = None) -> tuple[str, np.ndarray]:
    """The page's most likely type and the probabilities of all seven
    (in :data:`PAGE_TYPES` order, summing to 1)."""
    model = load_model()
    probabilities = model.probabilities(model.features(doc, url)[None, :])[0]
    return PAGE_TYPES[int(np.argmax(probabilities))], probabilities


_PAGE_TYPE: MemoKey[tuple[str, np.ndarray]] = MemoKey("page_type")


def page_type_of(doc: Document) -> tuple[str, np.ndarray]:
    """:func:`predict_page_type` of *doc* (with its own URL), computed once
    per document: the extractor reads the probabilities as features and the
    :class:`~webclean_scrapy.engine.extraction.Extraction` reports the type."""
    found = doc.memo.get(_PAGE_TYPE)
    if found is None:
        found = doc.memo.set(_PAGE_TYPE, predict_page_type(doc, doc.url))
    return found
