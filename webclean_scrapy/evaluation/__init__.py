"""Evaluation of main-text extraction: the literature's metrics and a dataset runner.

Metrics (:mod:`.metrics`) are pure functions over ``(extracted, gold)``
texts; :mod:`.runner` scores our extractors and optional peers on annotated
datasets (``webclean eval``). See ``docs/EVALUATION.md``.
"""

from .dataset import DatasetError, Page, load_dataset
from .metrics import (
    METADATA_KEYS,
    PRF,
    Text,
    author_exact,
    cleaneval_prf,
    cosine_distance,
    edit_distance_ratio,
    euclidean_distance,
    fold_typography,
    kl_divergence,
    lcs_prf,
    lcstring,
    lcstring_prf,
    normalise_field,
    occ_prf,
    same_day,
    score_metadata,
    score_page,
    shingle_counts,
    shingle_dataset_prf,
    shingle_prf,
    snippet_hits,
    snippet_prf,
    snippet_rate,
    title_scores,
    voc_prf,
    word_prf,
)
from .peers import PEERS, PeerUnavailableError, load_peer
from .runner import REPORT_KEYS, SNIPPET_KEYS, Contestants, DatasetReport, evaluate_dataset, format_report
from .substring import longest_common_substring
from .tokenize import tokenize

__all__ = [
    "METADATA_KEYS",
    "PEERS",
    "PRF",
    "REPORT_KEYS",
    "SNIPPET_KEYS",
    "Contestants",
    "DatasetError",
    "DatasetReport",
    "Page",
    "PeerUnavailableError",
    "Text",
    "author_exact",
    "cleaneval_prf",
    "cosine_distance",
    "edit_distance_ratio",
    "euclidean_distance",
    "evaluate_dataset",
    "fold_typography",
    "format_report",
    "kl_divergence",
    "lcs_prf",
    "lcstring",
    "lcstring_prf",
    "load_dataset",
    "load_peer",
    "longest_common_substring",
    "normalise_field",
    "occ_prf",
    "same_day",
    "score_metadata",
    "score_page",
    "shingle_counts",
    "shingle_dataset_prf",
    "shingle_prf",
    "snippet_hits",
    "snippet_prf",
    "snippet_rate",
    "title_scores",
    "tokenize",
    "voc_prf",
    "word_prf",
]
