"""The evaluation metrics: worked examples, edge cases, properties."""

from __future__ import annotations

import math
import random

import pytest

from pages import make_dataset
from webclean_scrapy.evaluation import (
    METADATA_KEYS,
    PRF,
    REPORT_KEYS,
    SNIPPET_KEYS,
    Contestants,
    DatasetError,
    Text,
    cleaneval_prf,
    cosine_distance,
    edit_distance_ratio,
    euclidean_distance,
    evaluate_dataset,
    fold_typography,
    format_report,
    kl_divergence,
    lcs_prf,
    lcstring,
    lcstring_prf,
    load_dataset,
    longest_common_substring,
    occ_prf,
    score_page,
    shingle_counts,
    shingle_dataset_prf,
    shingle_prf,
    snippet_hits,
    snippet_prf,
    snippet_rate,
    tokenize,
    voc_prf,
    word_prf,
)

PRF_METRICS = [lcs_prf, lcstring_prf, cleaneval_prf, voc_prf, occ_prf, shingle_prf, word_prf]


def approx(values, expected):
    assert tuple(values) == pytest.approx(tuple(expected))


# -- tokenizer ---------------------------------------------------------
def test_tokenize_keeps_case_and_drops_punctuation():
    assert tokenize("Hello, World! It's 2024_a.") == ["Hello", "World", "It", "s", "2024_a"]
    assert tokenize("") == [] and tokenize(None) == []


def test_tokenize_cjk_by_character_latin_by_word():
    assert tokenize("我爱北京。Beijing 天安门！") == ["我", "爱", "北", "京", "Beijing", "天", "安", "门"]
    assert tokenize("ひらがなカタカナ") == list("ひらがなカタカナ")
    assert tokenize("한국어 텍스트") == ["한", "국", "어", "텍", "스", "트"]
    # Other scripts without CJK characters keep whole words.
    assert tokenize("Привет мир") == ["Привет", "мир"]


def test_cjk_text_scores_partial_overlap():
    # With \w+ tokens each sentence would be a single token and share nothing.
    result = voc_prf("我爱北京", "我爱上海")
    approx(result, (0.5, 0.5, 0.5))


# -- character metrics ---------------------------------------------------
def test_longest_common_substring_worked_example():
    a = "the dog jumps over the brown fox"
    b = "the fox jumps over the brown dog"
    assert longest_common_substring(a, b) == " jumps over the brown "
    assert lcstring(a, b) == " jumps over the brown "


def test_longest_common_substring_matches_brute_force():
    rng = random.Random(7)

    def brute(a: str, b: str) -> int:
        return max((j - i for i in range(len(a)) for j in range(i + 1, len(a) + 1) if a[i:j] in b), default=0)

    for _ in range(300):
        a = "".join(rng.choices("abc", k=rng.randint(0, 12)))
        b = "".join(rng.choices("abc", k=rng.randint(0, 12)))
        found = longest_common_substring(a, b)
        assert found in a and found in b
        assert len(found) == brute(a, b)


def test_lcstring_prf_ignores_whitespace():
    # compact texts: "abcdxyz" vs "abcd"
    approx(lcstring_prf("ab cd\nxyz", "abcd"), (4 / 7, 1.0, 2 * (4 / 7) / (4 / 7 + 1)))


def test_lcs_prf_on_characters_without_whitespace():
    result = lcs_prf("abcde", "a c e")
    approx(result, (3 / 5, 1.0, 0.75))


def test_edit_distance_ratio_is_levenshtein_over_gold_length():
    assert edit_distance_ratio("kitten", "sitting") == pytest.approx(3 / 7)
    assert edit_distance_ratio("same  text\n", "same text") == 0.0
    assert edit_distance_ratio("", "") == 0.0
    assert edit_distance_ratio("", "abcd") == 1.0


# -- token metrics -----------------------------------------------------
def test_cleaneval_aligns_token_sequences():
    result = cleaneval_prf("the cat sat on the mat", "the cat on the mat, today")
    approx(result, (5 / 6, 5 / 6, 5 / 6))


def test_voc_and_occ():
    approx(voc_prf("a a b c", "a b d"), (2 / 3, 2 / 3, 2 / 3))
    approx(occ_prf("a a b c", "a b d"), (2 / 4, 2 / 3, 2 * 0.5 * (2 / 3) / (0.5 + 2 / 3)))


@pytest.mark.parametrize("metric", PRF_METRICS)
def test_perfect_and_empty_cases(metric):
    text = "Main text of the page, with enough words to make shingles."
    assert metric(text, text) == PRF(1.0, 1.0, 1.0)
    assert metric("", "") == PRF(1.0, 1.0, 1.0)
    assert metric("", text) == PRF(0.0, 0.0, 0.0)
    assert metric(text, "") == PRF(0.0, 0.0, 0.0)


@pytest.mark.parametrize("metric", PRF_METRICS)
def test_swapping_texts_swaps_precision_and_recall(metric):
    a = "one two three four five six seven eight nine ten"
    b = "zero one two three four six seven eight nine ten eleven twelve"
    forward, backward = metric(a, b), metric(b, a)
    approx(forward, (backward.recall, backward.precision, backward.f1))
    assert 0 < forward.f1 < 1


# -- WCXB word P/R/F1 -------------------------------------------------------
def test_word_prf_bags_of_lowercase_words():
    # extracted: the x3, cat x2, dog (6 words); gold: the x2, cat, sat, on, mat, today (7 words).
    # Overlap of the bags: the 2 + cat 1 = 3, so P = 3/6, R = 3/7, F1 = 6/13.
    approx(word_prf("The cat, the CAT! the dog.", "the cat sat on the mat today"), (1 / 2, 3 / 7, 6 / 13))
    # Case and punctuation never count; order does not either.
    assert word_prf("Hello, World!", "world hello") == PRF(1.0, 1.0, 1.0)
    # \w+ keeps digits and underscores in words and splits at apostrophes.
    approx(word_prf("It's snake_case 2024", "it s snake case 2024"), (3 / 4, 3 / 5, 2 / 3))


def test_word_prf_unicode_words():
    # "Straße".lower() stays "straße", "STRASSE".lower() is "strasse": two different words.
    # extracted: die straße ist lang (4); gold: die strasse ist lang die straße (6); overlap 4.
    approx(word_prf("Die Straße ist lang.", "Die STRASSE ist lang. Die Straße."), (1.0, 2 / 3, 0.8))
    # A run of CJK characters is one \w+ token (WCXB's definition, unlike `tokenize`):
    # "日本語のテキスト" is a single word, which "日本語 テキスト" does not contain.
    assert word_prf("日本語 テキスト", "日本語のテキスト") == PRF(0.0, 0.0, 0.0)
    assert word_prf("日本語、テキスト", "日本語 テキスト") == PRF(1.0, 1.0, 1.0)  # "、" is not \w
    approx(word_prf("日本語 English", "日本語"), (0.5, 1.0, 2 / 3))
    assert 0 < occ_prf("日本語 テキスト", "日本語のテキスト").f1 < 1  # the character tokens overlap


def test_word_prf_matches_wcxb_definition():
    import re
    from collections import Counter

    def wcxb(predicted, reference):  # WCXB evaluate.py's word_f1, restated
        pred, ref = re.findall(r"\w+", predicted.lower()), re.findall(r"\w+", reference.lower())
        if not ref:
            return (1.0, 1.0, 1.0) if not pred else (0.0, 0.0, 0.0)
        if not pred:
            return (0.0, 0.0, 0.0)
        overlap = sum((Counter(pred) & Counter(ref)).values())
        p, r = overlap / len(pred), overlap / len(ref)
        return p, r, 2 * p * r / (p + r) if p + r else 0.0

    rng = random.Random(11)
    vocabulary = ["a", "A", "b", "Straße", "日本", "x_1", "über", "...", "", "\n"]
    for _ in range(300):
        e = " ".join(rng.choices(vocabulary, k=rng.randint(0, 8)))
        g = " ".join(rng.choices(vocabulary, k=rng.randint(0, 8)))
        approx(word_prf(e, g), wcxb(e, g))


# -- snippets ------------------------------------------------------------------
def test_snippet_rate_case_and_whitespace_insensitive_substrings():
    text = "Big News\n\nThe cat sat   on the mat.\nPrivacy Policy"
    assert snippet_rate(text, ["big news the CAT", "on the mat.", "cookie settings"]) == pytest.approx(2 / 3)
    assert snippet_rate(text, ["Big\nnews\t The"]) == 1.0  # layout on either side does not count
    assert snippet_rate(text, ["sat on the mat"]) == 1.0
    assert snippet_rate(text, ["cat, sat"]) == 0.0  # punctuation does
    assert snippet_rate(text, ["Policy "]) == 1.0  # ends stripped
    assert snippet_rate("", ["anything"]) == 0.0


def test_snippet_prf_pools_found_and_missed_snippets_over_pages():
    """Trafilatura's evaluation counts: a ``with`` snippet found is a true
    positive, missed a false negative; a ``without`` snippet found a false
    positive. Two pages: 3 of 4 ``with`` found, 2 ``without`` found."""
    first = "Big News\nThe cat sat on the mat.\nPrivacy Policy"
    second = "Add to cart\nA red chair."
    hits = [
        (snippet_hits(first, ["the cat sat", "big news"]), snippet_hits(first, ["privacy policy", "cookies", "x"])),
        (snippet_hits(second, ["a red chair", "blue legs"]), snippet_hits(second, ["add to cart"])),
    ]
    assert hits == [((2, 2), (1, 3)), ((1, 2), (1, 1))]
    with_found = sum(w[0] for w, _ in hits)
    with_total = sum(w[1] for w, _ in hits)
    without_found = sum(wo[0] for _, wo in hits)
    prf = snippet_prf(with_found, with_total, without_found)
    assert (prf.precision, prf.recall) == (pytest.approx(3 / 5), pytest.approx(3 / 4))
    assert prf.f1 == pytest.approx(2 * 0.6 * 0.75 / 1.35)
    assert snippet_prf(0, 3, 0) == (0.0, 0.0, 0.0)  # nothing found at all
    assert snippet_prf(2, 2, 0).f1 == 1.0
    assert snippet_hits("text", [" ", ""]) == (0, 0)


def test_folded_snippets_match_across_typography():
    """WCXB types its snippets with straight quotes; pages print curly ones."""
    text = "It\u2019s \u201cdone\u201d \u2014 mostly\u2026 Wort\u00adtrennung, zero\u200bwidth, 10\u00a0km"
    snippets = ['it\'s "done" - mostly...', "worttrennung", "zerowidth", "10 km"]
    assert snippet_hits(text, snippets) == (1, 4)  # only the no-break space is whitespace already
    assert snippet_hits(text, snippets, fold=True) == (4, 4)
    # Either side may hold the typography; punctuation other than it still counts.
    assert snippet_hits("It's done", ["it\u2019s done"], fold=True) == (1, 1)
    assert snippet_hits("cat, sat", ["cat sat"], fold=True) == (0, 1)
    assert fold_typography("a\u2013b \u2018c\u2019 \u201ed\u201c e\u200df") == "a-b 'c' \"d\" e\u200df"  # joiners stay


def test_snippet_rate_without_snippets_is_none():
    assert snippet_rate("some text", []) is None
    assert snippet_rate("some text", ["", "  \n"]) is None  # blank snippets are no snippets


def test_distribution_distances():
    a, b = "a b c c", "c a b d"
    assert cosine_distance(a, a) == pytest.approx(0.0, abs=1e-12)
    assert euclidean_distance(a, a) == 0.0
    assert kl_divergence(a, a) == pytest.approx(0.0, abs=1e-12)
    assert cosine_distance(a, b) == pytest.approx(cosine_distance(b, a))
    assert euclidean_distance(a, b) == pytest.approx(euclidean_distance(b, a))
    assert kl_divergence(a, b) > 0 and kl_divergence(b, a) > 0
    assert cosine_distance("x y", "z w") == pytest.approx(1.0)
    # relative frequencies: doubling a text changes nothing
    assert euclidean_distance("a b", "a a b b") == 0.0
    assert euclidean_distance("x", "y") == pytest.approx(math.sqrt(2))
    # an empty side is a real difference, not a smoothing artefact
    assert kl_divergence("a b", "") > 0 and kl_divergence("", "a b") > 0
    assert (kl_divergence("", ""), cosine_distance("", ""), euclidean_distance("", "")) == (0.0, 0.0, 0.0)


# -- shingles ------------------------------------------------------------
def test_shingle_counts_hand_computed():
    # gold shingles (a b c d), (b c d e); output (a b c d), (b c d x): tp=fp=fn=1
    approx(shingle_counts("a b c d x", "a b, c d e"), (1 / 3, 1 / 3, 1 / 3))
    approx(shingle_prf("a b c d x", "a b c d e"), (0.5, 0.5, 0.5))
    # repeated shingles count as multisets
    approx(shingle_counts("a b c d a b c d", "a b c d"), (1 / 5, 4 / 5, 0))


def test_short_texts_are_one_shingle():
    assert shingle_prf("hello world", "hello, world!") == PRF(1.0, 1.0, 1.0)
    assert shingle_prf("hello world", "Hello world") == PRF(0.0, 0.0, 0.0)  # case counts
    assert shingle_prf("hello world", "hello there") == PRF(0.0, 0.0, 0.0)


def test_shingle_dataset_aggregation():
    pages = [
        (1 / 3, 1 / 3, 1 / 3),  # P = R = 0.5
        (0.0, 0.0, 1.0),  # empty output: recall 0, left out of the precision mean
        (0.0, 0.0, 0.0),  # empty output for empty gold: perfect
        (0.0, 1.0, 0.0),  # output for empty gold: precision 0, left out of the recall mean
    ]
    result = shingle_dataset_prf(pages)
    approx(result, (0.5, 0.5, 0.5))
    approx(shingle_dataset_prf(pages[:3]), (0.75, 0.5, 0.6))
    assert shingle_dataset_prf([]) == PRF(0.0, 0.0, 0.0)


# -- all at once -----------------------------------------------------------
def test_score_page_on_long_texts_runs():
    rng = random.Random(1)
    words = ["".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(2, 9))) for _ in range(2000)]
    gold = " ".join(rng.choices(words, k=3500))[:20000]
    extracted = "menu home about " * 50 + gold[2000:] + " footer links" * 50
    gold_text = Text(gold)
    scores = score_page(extracted, gold_text)
    assert 0.5 < scores["lcs_f1"] < 1
    assert 0.5 < scores["lcstring_f1"] < 1
    assert 0.5 < scores["cleaneval_f1"] < 1
    assert sum(scores["shingle_counts"]) == pytest.approx(1.0)
    # the gold's cached forms are reused for a second extractor
    assert score_page(gold, gold_text)["lcstring_f1"] == 1.0


def test_evaluate_dataset_with_baseline(tmp_path):
    root = make_dataset(
        tmp_path / "tiny",
        [
            (
                "p1",
                b"<html lang='en'><head><title>T</title></head><body><p>The only text on this page is here.</p>"
                b"</body></html>",
                "The only text on this page is here.",
            ),
            (
                "p2",
                "<html lang='fr'><body><nav>Accueil Menu</nav><p>Le texte principal de la page.</p></body></html>".encode(
                    "latin-1"
                ),
                "Le texte principal de la page.",
            ),
            ("p3", b"\x89PNG\r\n\x1a\n\x00\x00binary", "Gold text the extractor cannot find."),
        ],
    )
    report = evaluate_dataset(root, Contestants(ours=("baseline",)), by_language=True)
    figures = report.summary["baseline"]
    assert tuple(figures) == REPORT_KEYS  # no snippet lists: no snippet rates
    assert figures["word_recall"] == pytest.approx(2 / 3)
    assert figures["shingle_recall"] == pytest.approx(2 / 3)  # the binary page recalls nothing
    assert figures["shingle_precision"] < 1.0  # the nav words of p2
    assert report.failures == {"baseline": 1} and "p3" in report.errors["baseline"]
    assert set(report.by_language) == {"en", "fr"}
    assert report.by_language["en"]["baseline"]["shingle_f1"] == 1.0
    table = format_report(report)
    assert "baseline" in table and "ms/page" in table and "language fr" in table
    assert "word F1" in table and "without" not in table
    assert report.by_type is None and "page type" not in table


def test_evaluate_dataset_with_page_types_and_snippets(tmp_path):
    page = b"<html><body><p>The cat sat on the mat.</p><footer>Privacy Policy</footer></body></html>"
    root = make_dataset(
        tmp_path / "typed",
        [
            ("a", page, "The cat sat on the mat."),
            ("b", page, "The cat sat on the mat."),
            ("c", page, "The cat sat on the mat."),
        ],
        extra={
            "a": {
                "page_type": "article",
                "title": "Cats",
                "author": "A. Writer",
                "date": "2025-01-02",
                "with": ["the cat sat", "a dog"],
                "without": ["privacy policy"],
            },
            "b": {"page_type": "forum", "with": [], "without": ["Cookie settings"]},
            "c": {"title": None, "date": None},
        },
    )
    first = load_dataset(root)[0]
    assert (first.page_type, first.title, first.author, first.date) == ("article", "Cats", "A. Writer", "2025-01-02")
    assert first.with_snippets == ("the cat sat", "a dog") and first.without_snippets == ("privacy policy",)

    report = evaluate_dataset(root, Contestants(ours=("baseline",)), by_type=True)
    figures = report.summary["baseline"]
    assert tuple(figures) == REPORT_KEYS + SNIPPET_KEYS + METADATA_KEYS + ("dated_pages",)
    # page a only has gold metadata: no title, author or date on the page
    assert [figures[k] for k in METADATA_KEYS] == [0.0, 0.0, 0.0, 0.0] and figures["dated_pages"] == 1
    assert figures["with_rate"] == 0.5  # page a only: b's list is empty, c has none
    assert figures["without_rate"] == 0.5  # page a: 1, page b: 0
    # pooled: 1 of 2 "with" found, 1 "without" found (page a's privacy policy)
    approx([figures[k] for k in ("snippet_precision", "snippet_recall", "snippet_f1")], (0.5, 0.5, 0.5))
    assert [figures[f"folded_{k}"] for k in ("snippet_precision", "snippet_recall", "snippet_f1")] == [
        figures[k] for k in ("snippet_precision", "snippet_recall", "snippet_f1")
    ]  # nothing typographic on these pages
    # "the cat sat on the mat privacy policy": 6 of 8 words are gold, all gold words found
    approx([figures[k] for k in ("word_precision", "word_recall", "word_f1")], (3 / 4, 1.0, 6 / 7))
    assert list(report.by_type) == ["article", "forum"]  # page c has no type: left out
    assert report.by_type["forum"]["baseline"]["pages"] == 1
    assert report.by_type["forum"]["baseline"]["word_f1"] == pytest.approx(6 / 7)
    table = format_report(report)
    assert "with  without" in table and "typed / type forum (1 page)" in table


def test_evaluate_dataset_reads_metadata_as_the_reported_page_type(tmp_path, monkeypatch):
    """The metadata scored is the product's: a page the extractor reads as
    an article although the classifier says listing keeps its organisation
    author (what ``Extraction.author`` reports), a listing does not."""
    import numpy as np

    import webclean_scrapy.engine.extractors.webclean as webclean
    import webclean_scrapy.engine.metadata as metadata_module
    import webclean_scrapy.evaluation.runner as runner_module
    from webclean_scrapy.engine.page_type import PAGE_TYPES

    author = '<script type="application/ld+json">{"@type": "NewsArticle", "headline": "Flood",'
    author += ' "author": {"@type": "Organization", "name": "Harbour Wire Service"}}</script>'
    prose = "".join(
        f"<p>The river rose {i} metres overnight and the lower town was evacuated, officials said on Monday.</p>"
        for i in range(2, 9)
    )
    nav = "".join(f'<li><a href="/s{i}">Section {i}</a></li>' for i in range(6))
    page = f"<html><head><title>Flood</title>{author}</head><body><ul>{nav}</ul><h1>Flood</h1>{prose}</body></html>"
    root = make_dataset(
        tmp_path / "story",
        [("s", page.encode(), "Flood")],
        extra={"s": {"title": "Flood", "author": "Harbour Wire Service"}},
    )

    def author_exact(article: float) -> float:
        types = np.zeros(len(PAGE_TYPES))
        types[PAGE_TYPES.index("article")], types[PAGE_TYPES.index("listing")] = article, 1.0 - article
        predicted = lambda doc: ("listing", types)  # noqa: E731
        for module in (webclean, metadata_module, runner_module):
            monkeypatch.setattr(module, "page_type_of", predicted)
        report = evaluate_dataset(root, Contestants(ours=("webclean",)))
        return report.summary["webclean"]["author_exact"]

    assert author_exact(0.3) == 1.0  # read as an article: the organisation is the byline
    assert author_exact(0.0) == 0.0  # a listing: the organisation is the brand


def test_load_dataset_keeps_plain_records_plain(tmp_path):
    root = make_dataset(tmp_path / "plain", [("p", b"<p>x</p>", "x")])
    (page,) = load_dataset(root)
    assert (page.page_type, page.title, page.author, page.date) == (None, None, None, None)
    assert page.with_snippets == () and page.without_snippets == ()


@pytest.mark.parametrize(
    "extra, message",
    [
        ({"with": "one snippet"}, "'with' should be a list of strings"),
        ({"without": [1, 2]}, "'without' should be a list of strings"),
        ({"page_type": ["article"]}, "'page_type' should be a string"),
    ],
)
def test_load_dataset_rejects_malformed_extra_fields(tmp_path, extra, message):
    root = make_dataset(tmp_path / "bad", [("p", b"<p>x</p>", "x")], extra={"p": extra})
    with pytest.raises(DatasetError, match=f"truth.jsonl:1: {message}"):
        load_dataset(root)


def test_load_dataset_rejects_other_layouts(tmp_path):
    with pytest.raises(DatasetError, match="truth.jsonl"):
        load_dataset(tmp_path)
    (tmp_path / "truth.jsonl").write_text('{"id": "gone", "text": "x"}\n')
    with pytest.raises(DatasetError, match="no page"):
        load_dataset(tmp_path)
