"""What kind of page is this? A seven-way page-type classifier.

The seven types are WCXB's (Foley 2026): ``article``, ``forum``,
``product``, ``collection`` (a shop's category page), ``listing`` (a news
or blog index, a directory), ``documentation`` and ``service`` (what a
company or institution offers). Extraction differs by type -- a forum
thread keeps every post, a product page its description and
specifications, a listing its teasers -- so the extractor can ask first.

:func:`page_features` reads a :class:`~webclean_scrapy.engine.document.Document`
the walk already made -- no second parse, no tree mutation -- and returns
one vector of :data:`PAGE_FEATURES`: the hand-made signals of
:mod:`.signals` (declared semantics, the URL, markup, repetition, text;
the word lists they look for are :mod:`.vocabulary`'s), then the scores of
a linear model over the page's words (:data:`TOKEN_FEATURES`).
:mod:`.model` holds the classifier: that token model and a LightGBM
multiclass ensemble fitted by ``benchmarks/train_page_type.py``, evaluated
with numpy alone from ``webclean_scrapy/data/page_type_model.json``.
Nothing is keyed to a site.

The package, one concept a module:

* :mod:`.vocabulary`: the hand-written word lists, by family;
* :mod:`.signals`: :func:`page_signals`, the vector and the tokens;
* :mod:`.reference`: the signals' inner loops in Python, the reference
  definitions of the compiled :mod:`webclean_scrapy.engine._signals`;
* :mod:`.model`: the token model, the classifier and :func:`page_type_of`.
"""

from __future__ import annotations

from webclean_scrapy.engine.page_type.model import (
    HUB_PAGE_TYPES,
    PAGE_FEATURES,
    PAGE_TYPES,
    TOKEN_FEATURES,
    PageTypeModel,
    TokenModel,
    load_model,
    page_features,
    page_type_of,
    predict_page_type,
)
from webclean_scrapy.engine.page_type.signals import STRUCTURE_FEATURES, clear_name_memos, page_signals

__all__ = [
    "HUB_PAGE_TYPES",
    "PAGE_FEATURES",
    "PAGE_TYPES",
    "STRUCTURE_FEATURES",
    "TOKEN_FEATURES",
    "PageTypeModel",
    "TokenModel",
    "clear_name_memos",
    "load_model",
    "page_features",
    "page_signals",
    "page_type_of",
    "predict_page_type",
]
