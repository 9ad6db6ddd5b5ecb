"""Content-extraction metrics from the literature, as pure functions.

Every function takes ``(extracted, gold)`` -- plain strings, or :class:`Text`
objects that cache their tokens so one gold text can be scored against
several extractors without re-tokenizing -- and returns a :class:`PRF` or a
scalar. The heavy lifting is C-backed (rapidfuzz's bit-parallel LCS and
Levenshtein, numpy) or linear (the suffix automaton), so a full evaluation of
thousands of pages takes minutes. ``docs/EVALUATION.md`` gives each metric's
paper and normalisation.

Conventions shared by all precision/recall metrics: an empty extraction has
precision 0, an empty gold text has recall 0, and an empty extraction of an
empty gold text is perfect (1, 1, 1).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from functools import cached_property
from typing import Any, NamedTuple

import numpy as np

from webclean_scrapy.errors import install_hint
from webclean_scrapy.evaluation.substring import SuffixAutomaton, longest_common_substring
from webclean_scrapy.evaluation.tokenize import tokenize

#: Pseudo-count added to every word type of the union vocabulary, in both
#: distributions, before computing the KL divergence (which is infinite as
#: soon as the extraction misses one gold word).
KL_SMOOTHING = 0.01

#: Shingle length of the article-extraction benchmark.
SHINGLE_SIZE = 4

#: WCXB's word tokens: ``\w+`` runs of the lowercased text (a run of CJK
#: characters is one token: that is the benchmark's definition, kept as is).
WORD_RE = re.compile(r"\w+")


class PRF(NamedTuple):
    precision: float
    recall: float
    f1: float


def prf(common: float, extracted_size: float, gold_size: float) -> PRF:
    """Precision, recall and F1 from the size of the overlap and of each side."""
    if not extracted_size and not gold_size:
        return PRF(1.0, 1.0, 1.0)
    precision = common / extracted_size if extracted_size else 0.0
    recall = common / gold_size if gold_size else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return PRF(precision, recall, f1)


class Text:
    """A text with its derived forms computed once, on demand."""

    def __init__(self, raw: str | None) -> None:
        self.raw = raw or ""

    @cached_property
    def compact(self) -> str:
        """All whitespace removed (the character metrics ignore layout)."""
        return "".join(self.raw.split())

    @cached_property
    def collapsed(self) -> str:
        """Whitespace runs collapsed to one space, ends stripped."""
        return " ".join(self.raw.split())

    @cached_property
    def folded(self) -> str:
        """:attr:`collapsed`, lowercased (what snippets are looked up in)."""
        return self.collapsed.lower()

    @cached_property
    def typography_folded(self) -> str:
        """:attr:`folded` with its typography folded (:func:`fold_typography`):
        what snippets are looked up in when ``fold=True``."""
        return " ".join(fold_typography(self.folded).split())

    @cached_property
    def automaton(self) -> SuffixAutomaton:
        """Suffix automaton of :attr:`compact` (built once, matched many times)."""
        return SuffixAutomaton(self.compact)

    @cached_property
    def tokens(self) -> list[str]:
        return tokenize(self.raw)

    @cached_property
    def counts(self) -> Counter[str]:
        return Counter(self.tokens)

    @cached_property
    def word_counts(self) -> Counter[str]:
        """Bag of WCXB word tokens: ``re.findall(r"\\w+", text.lower())``."""
        return Counter(WORD_RE.findall(self.raw.lower()))

    @cached_property
    def shingles(self) -> Counter[tuple[str, ...]]:
        """4-token shingles; a text shorter than that is one shingle."""
        tokens = self.tokens
        n = SHINGLE_SIZE
        if not tokens:
            return Counter()
        if len(tokens) <= n:
            return Counter([tuple(tokens)])
        return Counter(zip(*(tokens[i:] for i in range(n))))


def as_text(value: str | Text | None) -> Text:
    return value if isinstance(value, Text) else Text(value)


# -- character metrics -------------------------------------------------
def require_distances() -> Any:
    """rapidfuzz's C distances (the ``[eval]`` extra), for the three metrics that align sequences."""
    try:
        from rapidfuzz import distance
    except ImportError as exc:
        raise ImportError(
            f"the LCS, CleanEval and edit-distance metrics need rapidfuzz: {install_hint('eval')}"
        ) from exc
    return distance


def lcs_prf(extracted: str | Text, gold: str | Text) -> PRF:
    """Longest common *subsequence* of characters, whitespace ignored
    (Arias, Deschacht & Moens)."""
    e, g = as_text(extracted).compact, as_text(gold).compact
    return prf(require_distances().LCSseq.similarity(e, g), len(e), len(g))


def lcstring(extracted: str | Text, gold: str | Text) -> str:
    """The longest common *substring* of the two texts, whitespace kept."""
    return longest_common_substring(as_text(extracted).raw, as_text(gold).raw)


def lcstring_prf(extracted: str | Text, gold: str | Text) -> PRF:
    """Longest common substring of characters, whitespace ignored."""
    e, g = as_text(extracted), as_text(gold)
    common = len(g.automaton.longest_common_substring(e.compact)) if e.compact and g.compact else 0
    return prf(common, len(e.compact), len(g.compact))


def edit_distance_ratio(extracted: str | Text, gold: str | Text) -> float:
    """Levenshtein distance / gold length (Weninger & Hsu); lower is better.

    Both texts have their whitespace collapsed first, so line breaks versus
    spaces cost nothing. An empty gold text divides by 1.
    """
    e, g = as_text(extracted).collapsed, as_text(gold).collapsed
    return require_distances().Levenshtein.distance(e, g) / max(len(g), 1)


# -- token metrics -----------------------------------------------------
def cleaneval_prf(extracted: str | Text, gold: str | Text) -> PRF:
    """CleanEval 2007: tokens aligned by a longest common subsequence of the
    two token sequences (what the scorer's ``diff`` alignment computes)."""
    e, g = as_text(extracted).tokens, as_text(gold).tokens
    common = require_distances().LCSseq.similarity(e, g) if e and g else 0
    return prf(common, len(e), len(g))


def voc_prf(extracted: str | Text, gold: str | Text) -> PRF:
    """``voc_eval`` (Barbaresi & Lejeune): overlap of the vocabularies (word types)."""
    e, g = as_text(extracted).counts.keys(), as_text(gold).counts.keys()
    return prf(len(e & g), len(e), len(g))


def occ_prf(extracted: str | Text, gold: str | Text) -> PRF:
    """``occ_eval`` (Barbaresi & Lejeune): overlap of word occurrences (multisets)."""
    e, g = as_text(extracted).counts, as_text(gold).counts
    return prf((e & g).total(), e.total(), g.total())


def word_prf(extracted: str | Text, gold: str | Text) -> PRF:
    """WCXB's word P/R/F1 (Foley 2026, ``evaluate.py``): bags of lowercase
    ``\\w+`` tokens, overlap = multiset intersection. Unlike the other token
    metrics it folds case and keeps a run of CJK characters as one token."""
    e, g = as_text(extracted).word_counts, as_text(gold).word_counts
    return prf((e & g).total(), e.total(), g.total())


def _frequency_vectors(extracted: Text, gold: Text, unseen_bin: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Token counts of both texts over their union vocabulary (plus one empty
    bin standing for every other word when *unseen_bin*)."""
    e, g = extracted.counts, gold.counts
    vocabulary = list(e.keys() | g.keys())
    size = len(vocabulary) + unseen_bin
    ev = np.zeros(size)
    gv = np.zeros(size)
    ev[: len(vocabulary)] = np.fromiter((e.get(w, 0) for w in vocabulary), float, len(vocabulary))
    gv[: len(vocabulary)] = np.fromiter((g.get(w, 0) for w in vocabulary), float, len(vocabulary))
    return ev, gv


def kl_divergence(extracted: str | Text, gold: str | Text, smoothing: float = KL_SMOOTHING) -> float:
    """KL(gold || extracted) of the word distributions, in nats; 0 is perfect.

    Additive smoothing: *smoothing* is added to the count of every type of the
    union vocabulary and of one extra bin for unseen words, in both
    distributions, so words missing from one side give a large but finite
    divergence (and an empty side is uniform, never equal to a real text).
    """
    e, g = as_text(extracted), as_text(gold)
    if not e.counts and not g.counts:
        return 0.0
    ev, gv = _frequency_vectors(e, g, unseen_bin=True)
    p = (gv + smoothing) / (gv.sum() + smoothing * len(gv))
    q = (ev + smoothing) / (ev.sum() + smoothing * len(ev))
    return float(np.sum(p * np.log(p / q)))


def cosine_distance(extracted: str | Text, gold: str | Text) -> float:
    """1 - cosine similarity of the word-count vectors; 0 is perfect, 1 disjoint."""
    ev, gv = _frequency_vectors(as_text(extracted), as_text(gold))
    ne, ng = float(np.linalg.norm(ev)), float(np.linalg.norm(gv))
    if not ne and not ng:
        return 0.0
    if not ne or not ng:
        return 1.0
    return max(0.0, 1.0 - float(ev @ gv) / (ne * ng))


def euclidean_distance(extracted: str | Text, gold: str | Text) -> float:
    """Euclidean distance of the *relative* word frequencies (each vector sums
    to 1, so text length alone does not count); 0 is perfect, at most sqrt(2)."""
    ev, gv = _frequency_vectors(as_text(extracted), as_text(gold))
    if ev.sum():
        ev /= ev.sum()
    if gv.sum():
        gv /= gv.sum()
    return float(np.linalg.norm(ev - gv))


# -- 4-gram shingles (article-extraction benchmark) ---------------------
def shingle_counts(extracted: str | Text, gold: str | Text) -> tuple[float, float, float]:
    """One page's (tp, fp, fn) over shingle multisets, normalised to sum to 1
    so long pages do not outweigh short ones; (0, 0, 0) when both are empty."""
    e, g = as_text(extracted).shingles, as_text(gold).shingles
    tp = (e & g).total()
    fp = (e - g).total()
    fn = (g - e).total()
    total = tp + fp + fn
    if not total:
        return 0.0, 0.0, 0.0
    return tp / total, fp / total, fn / total


def _precision(tp: float, fp: float, fn: float) -> float:
    if fp == fn == 0:
        return 1.0
    return tp / (tp + fp) if tp + fp else 0.0


def _recall(tp: float, fp: float, fn: float) -> float:
    if fp == fn == 0:
        return 1.0
    return tp / (tp + fn) if tp + fn else 0.0


def shingle_prf(extracted: str | Text, gold: str | Text) -> PRF:
    """One page's shingle precision, recall and F1."""
    tp, fp, fn = shingle_counts(extracted, gold)
    precision, recall = _precision(tp, fp, fn), _recall(tp, fp, fn)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return PRF(precision, recall, f1)


def shingle_page_terms(tp: float, fp: float, fn: float) -> tuple[float | None, float | None]:
    """One page's terms of the benchmark's two means (:func:`shingle_dataset_prf`):
    its precision if it has output, its recall if it has gold text (``None``:
    the page is not in that mean). A page whose gold and output are both
    empty is in both, perfect."""
    return (
        _precision(tp, fp, fn) if tp + fp or not fn else None,
        _recall(tp, fp, fn) if tp + fn or not fp else None,
    )


def shingle_dataset_prf(counts: Iterable[tuple[float, float, float]]) -> PRF:
    """Dataset score of the benchmark: mean precision over pages with output,
    mean recall over pages with gold text, F1 of the two means.

    A page whose gold and output are both empty counts as perfect in both
    means (the benchmark drops it). With no page at all, everything is 0.
    """
    precisions: list[float] = []
    recalls: list[float] = []
    for tp, fp, fn in counts:
        page_precision, page_recall = shingle_page_terms(tp, fp, fn)
        if page_precision is not None:
            precisions.append(page_precision)
        if page_recall is not None:
            recalls.append(page_recall)
    precision = math.fsum(precisions) / len(precisions) if precisions else 0.0
    recall = math.fsum(recalls) / len(recalls) if recalls else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return PRF(precision, recall, f1)


# -- snippets (WCXB's with / without lists) ---------------------------------
def normalise_snippet(snippet: str) -> str:
    """Whitespace runs collapsed to one space, ends stripped, lowercased."""
    return " ".join(snippet.split()).lower()


#: Typographic characters and their plain forms: curly and low quotes and
#: primes to ``'`` and ``"``, hyphens and dashes (and the minus sign) to
#: ``-``, the ellipsis to ``...``; the invisible zero-width space, word
#: joiner, byte-order mark and soft hyphen removed. No-break and thin spaces
#: need nothing: they are whitespace, collapsed with the rest. Joiners
#: (U+200C, U+200D) stay: Persian, the Indic scripts and emoji spell with them.
TYPOGRAPHY = str.maketrans(
    {
        **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033", '"'),
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
        "\u2026": "...",
        **dict.fromkeys("\u200b\u2060\ufeff\u00ad"),
    }
)


def fold_typography(text: str) -> str:
    """*text* with :data:`TYPOGRAPHY` applied: ``It’s “done” — …`` reads
    ``It's "done" - ...``. WCXB's gold texts and snippets are typed with
    straight quotes where most pages print curly ones; without folding, a
    snippet holding an apostrophe is missed by every extractor alike."""
    return text.translate(TYPOGRAPHY)


def snippet_hits(extracted: str | Text, snippets: Iterable[str], fold: bool = False) -> tuple[int, int]:
    """How many of *snippets* are found in the extracted text, and how many
    there are (blank snippets aside).

    A snippet is found when it is a substring of the text after both are
    lowercased and have their whitespace runs collapsed to one space (so a
    snippet spanning two blocks matches whatever line breaks the extractor
    puts between them). No other normalisation: punctuation and quotes
    count, unless *fold*, which folds both sides' typography first
    (:func:`fold_typography`).
    """
    wanted = [s for s in (normalise_snippet(fold_typography(s) if fold else s) for s in snippets) if s]
    if not wanted:
        return 0, 0
    text = as_text(extracted).typography_folded if fold else as_text(extracted).folded
    return sum(1 for s in wanted if s in text), len(wanted)


def snippet_rate(extracted: str | Text, snippets: Iterable[str]) -> float | None:
    """The fraction of *snippets* found in the extracted text
    (:func:`snippet_hits`), or None when there is no snippet (a rate over
    nothing is not 0 and not 1)."""
    found, total = snippet_hits(extracted, snippets)
    return found / total if total else None


def snippet_prf(with_found: int, with_total: int, without_found: int) -> PRF:
    """Snippet precision, recall and F1 pooled over a dataset's pages, as
    trafilatura's evaluation counts them: a ``with`` snippet found is a true
    positive, one missed a false negative, a ``without`` snippet found a
    false positive. P = TP / (TP + FP), R = TP / (TP + FN)."""
    precision = with_found / (with_found + without_found) if with_found + without_found else 0.0
    recall = with_found / with_total if with_total else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return PRF(precision, recall, f1)


# -- everything at once -----------------------------------------------
#: Per-page metrics averaged over a dataset (the shingle scores are
#: aggregated from :func:`shingle_counts` instead, as the benchmark does).
MEAN_METRICS = (
    "word_f1",
    "word_precision",
    "word_recall",
    "lcs_f1",
    "lcstring_f1",
    "edr",
    "cleaneval_f1",
    "voc_f1",
    "occ_f1",
    "kl",
    "cosine",
    "euclidean",
)


def score_page(extracted: str | Text, gold: str | Text) -> dict[str, object]:
    """Every metric for one page: :data:`MEAN_METRICS` plus ``shingle_counts``."""
    e, g = as_text(extracted), as_text(gold)
    words = word_prf(e, g)
    return {
        "shingle_counts": shingle_counts(e, g),
        "word_f1": words.f1,
        "word_precision": words.precision,
        "word_recall": words.recall,
        "lcs_f1": lcs_prf(e, g).f1,
        "lcstring_f1": lcstring_prf(e, g).f1,
        "edr": edit_distance_ratio(e, g),
        "cleaneval_f1": cleaneval_prf(e, g).f1,
        "voc_f1": voc_prf(e, g).f1,
        "occ_f1": occ_prf(e, g).f1,
        "kl": kl_divergence(e, g),
        "cosine": cosine_distance(e, g),
        "euclidean": euclidean_distance(e, g),
    }


# -- metadata ------------------------------------------------------------------

#: The metadata fields scored against a dataset's gold (WCXB's ``title``,
#: ``author``, ``date``) and the keys of their figures in a report.
METADATA_KEYS = ("title_exact", "title_f1", "author_exact", "date_same_day")


def normalise_field(value: str | None) -> str:
    """A title or author name reduced to what a reader would compare: its
    lowercase ``\\w+`` words, space-separated (case, punctuation, quotes,
    dashes and whitespace do not count)."""
    return " ".join(WORD_RE.findall(value.lower())) if value else ""


def title_scores(extracted: str | None, gold: str) -> tuple[float, float]:
    """(normalised exact match, token F1) of a title against the gold title.
    Token F1 is :func:`word_prf`'s over the two titles' bags of words."""
    exact = float(normalise_field(extracted) == normalise_field(gold))
    return exact, word_prf(extracted or "", gold).f1


def author_exact(extracted: str | None, gold: str | None) -> float:
    """1.0 when the normalised author equals the gold one; a null (or empty)
    gold author is matched only by an empty answer."""
    return float(normalise_field(extracted) == normalise_field(gold))


def same_day(extracted: str | None, gold: str) -> float:
    """1.0 when the extracted ISO date or datetime falls on the gold day
    (its own calendar date, before any time-zone conversion). A gold date
    given to the month (``YYYY-MM``) is matched by any day of that month."""
    if not extracted:
        return 0.0
    gold = gold.strip()
    return float(extracted.strip()[: len(gold)] == gold and len(extracted.strip()) >= len(gold))


def score_metadata(
    title: str | None,
    author: str | None,
    date: str | None,
    *,
    gold_title: str | None,
    gold_author: str | None,
    gold_date: str | None,
) -> dict[str, float | None]:
    """:data:`METADATA_KEYS` of one page: ``None`` for a figure the gold
    cannot judge (no gold title; no gold date -- the date is scored on dated
    pages only). The author is judged on every page that has a gold title,
    the sign that the page's metadata was annotated at all."""
    scores: dict[str, float | None] = dict.fromkeys(METADATA_KEYS)
    if gold_title:
        scores["title_exact"], scores["title_f1"] = title_scores(title, gold_title)
        scores["author_exact"] = author_exact(author, gold_author)
    if gold_date:
        scores["date_same_day"] = same_day(date, gold_date)
    return scores
