"""The markup lexicon (``webclean.lexicon``): the per-container sums score
every block exactly as its definition (the words of :func:`block_words`)."""

from __future__ import annotations

import gzip
import random
from pathlib import Path

import numpy as np
import pytest

from pages import sample_page
from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.extractors.webclean import MarkupLexicon, block_words, load_model
from webclean_scrapy.engine.extractors.webclean.lexicon import pack, unpack

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"

PAGE = sample_page("lexicon-page.html")


def reference_scores(lexicon: MarkupLexicon, doc: Document) -> np.ndarray:
    return np.array([lexicon.score_words(words) for words in block_words(doc)])


def compiled_rows(lexicon: MarkupLexicon) -> dict[str, dict[str, tuple[float, ...]]]:
    """The compiled loop's memo (packed rows) as the reference keeps it."""
    return {name: {value: unpack(row) for value, row in rows.items()} for name, rows in lexicon._packed_sums.items()}


def test_words_name_each_level_of_the_markup() -> None:
    doc = Document.from_html(PAGE)
    words = dict(zip(doc.block_columns.texts, block_words(doc)))
    quoted = words["A quoted line."]
    # The holder's tag; the parent's tag and words; the grandparent's words; the ancestors' above.
    assert quoted == [
        "0Tp",
        "1Tdiv", "1c:wp", "1c:block", "1c:quote",
        "2c:post", "2c:entry", "2c:content", "2i:articlebody",
        "ai:page", "ac:single", "ac:post",
    ]  # fmt: skip
    # Digits split words and one-letter pieces are dropped ("card-12" is "card").
    assert words["Another post"][:3] == ["0Tli", "0c:card", "0c:card"]
    assert words["Text straight in the body."] == ["0Tbody", "0c:single", "0c:post", "1Thtml"]


def test_per_container_sums_are_the_definition() -> None:
    doc = Document.from_html(PAGE)
    vocabulary = sorted({w for words in block_words(doc) for w in words})
    rng = random.Random(7)
    lexicon = MarkupLexicon({w: rng.uniform(-2, 2) for w in vocabulary if rng.random() < 0.8}, -0.4)
    assert np.allclose(lexicon.block_scores(doc), reference_scores(lexicon, doc), rtol=0, atol=1e-12)
    # A word without weight still counts in the block's number of words.
    assert lexicon.score_words(["unknown"]) == pytest.approx(-0.4)
    assert lexicon.score_words(["0Tdiv", "unknown"]) == pytest.approx(-0.4 + lexicon.weights.get("0Tdiv", 0) / 2**0.5)


def test_the_compiled_sums_are_the_reference() -> None:
    """``_features.lexicon_sums`` and ``lexicon_scores`` give exactly
    what their Python references give, memo cold and warm."""
    pytest.importorskip("webclean_scrapy.engine._features")
    doc = Document.from_html(PAGE)
    vocabulary = sorted({w for words in block_words(doc) for w in words})
    rng = random.Random(11)
    weights = {w: rng.uniform(-2, 2) for w in vocabulary}
    compiled = MarkupLexicon(weights, 0.25).block_scores(doc)
    assert np.array_equal(compiled, MarkupLexicon(weights, 0.25).block_scores(doc, compiled=False))
    warm = MarkupLexicon(weights, 0.25)
    warm.block_scores(doc, compiled=False)
    assert np.array_equal(warm.block_scores(doc), compiled)


def test_the_compiled_value_sums_are_the_reference() -> None:
    """A value the memo has not seen is read in C (``_features.value_sums``):
    the same words as the reference's ``[a-z]{2,}`` over the lower-cased
    value, so the same rows, bit for bit, for values with digits, single
    letters, other scripts and letters that lower-case to ASCII (the Kelvin
    sign, the dotted capital I)."""
    pytest.importorskip("webclean_scrapy.engine._features")
    values = [
        "", "a", "ab", "post-12345 card_item", "ÀBC déf ghi", "İstanbul-Card", "\u212aelvin-box",
        "main\tnav\nbar  x", "日本語 header", "UPPER lower MiXeD", "z" * 300, "ab1cd2ef",
    ]  # fmt: skip
    vocabulary = {"ab", "card", "item", "post", "box", "nav", "bar", "header", "upper", "lower", "mixed", "cd", "ef"}
    rng = random.Random(5)
    weights = {
        f"{level}{initial}:{word}": rng.uniform(-2, 2) for level in "012a" for initial in "cir" for word in vocabulary
    }
    compiled, reference = MarkupLexicon(weights, 0.1), MarkupLexicon(weights, 0.1)
    html = "".join(
        f'<div class="{v}" id="{v}x" role="{v}" itemprop="{v}"><p>{i} words</p></div>' for i, v in enumerate(values)
    )
    doc = Document.from_html(f"<html><body>{html}</body></html>")
    assert np.array_equal(compiled.block_scores(doc), reference.block_scores(doc, compiled=False))
    # Each loop keeps its own memo, the same rows (bit for bit: packed doubles).
    assert not compiled._sums and not reference._packed_sums
    assert compiled_rows(compiled) == reference._sums and len(compiled._packed_sums["class"]) == len(values)
    for name, rows in reference._sums.items():
        for value, row in rows.items():
            assert compiled._packed_sums[name][value] == pack(row)


def test_the_compiled_sums_refuse_rows_not_packed() -> None:
    """A memo row or a weight row that is not doubles packed in ``bytes``
    (the compiled loop reads their bytes) is refused, not read."""
    _features = pytest.importorskip("webclean_scrapy.engine._features")
    attributes = [{"class": "card"}]
    parents = np.array([-1], dtype=np.int64)
    for memo, by_word in (
        ({"class": {"card": (0.0,) * 5}}, {}),
        ({"class": {"card": pack([0.0] * 4)}}, {}),
        ({}, {"c": {"card": (1.0,) * 4}}),
        ({}, {"c": {"card": pack([1.0] * 5)}}),
    ):
        with pytest.raises(TypeError):
            _features.lexicon_sums(attributes, parents, memo, by_word, 10, np.zeros((2, 7)))
    with pytest.raises(ValueError):
        _features.lexicon_sums(attributes, parents, {}, {}, 10, np.zeros((1, 6)))
    table = np.zeros((2, 7))
    _features.lexicon_sums(attributes, parents, {}, {"c": {"card": pack([1.0, 2.0, 3.0, 4.0])}}, 10, table)
    assert table[0].tolist() == [1.0, 2.0, 3.0, 4.0, 1.0, 4.0, 1.0]


def test_the_compiled_scores_refuse_indexes_past_the_tables() -> None:
    """``_features.lexicon_scores`` reads the table at each block's holder
    and its ancestors: a holder or an ancestor past the containers, or a
    table too small, is refused, not read."""
    _features = pytest.importorskip("webclean_scrapy.engine._features")
    tags, own, above = ["body", "p"], {"body": 0.5, "p": 0.25}, {"body": 1.0, "p": 2.0}
    parents = np.array([-1, 0], dtype=np.int64)
    table = np.zeros((3, 7))
    table[1, 0] = 3.0
    out = np.empty(1)
    _features.lexicon_scores(table, np.array([1], dtype=np.int64), parents, tags, own, above, 0.5, out)
    assert out.tolist() == [(3.0 + 0.25 + 1.0) / 2**0.5 + 0.5]
    for holders, up in (([2], parents), ([-1], parents), ([1], np.array([-1, 7], dtype=np.int64))):
        with pytest.raises(IndexError):
            _features.lexicon_scores(table, np.array(holders, dtype=np.int64), up, tags, own, above, 0.0, out)
    with pytest.raises(ValueError):
        _features.lexicon_scores(np.zeros((2, 7)), np.array([1], dtype=np.int64), parents, tags, own, above, 0.0, out)


def test_clearing_the_memos_forgets_the_lexicons_sums() -> None:
    from webclean_scrapy.engine.extractors.webclean import clear_keyword_memos

    lexicon = load_model().lexicon
    doc = Document.from_html(PAGE)
    scores = lexicon.block_scores(doc)
    assert lexicon._packed_sums
    lexicon.block_scores(doc, compiled=False)
    assert lexicon._sums
    clear_keyword_memos()
    assert not lexicon._sums and not lexicon._packed_sums
    assert np.array_equal(lexicon.block_scores(doc), scores)


def test_a_page_without_blocks_scores_nothing() -> None:
    doc = Document.from_html("<html><body><div class='x'></div></body></html>")
    assert load_model().lexicon.block_scores(doc).shape == (0,)


def test_the_shipped_lexicon_scores_like_its_definition_on_real_pages() -> None:
    if not DATA.is_dir():
        pytest.skip("no annotated pages at ../shared/data")
    lexicon = load_model().lexicon
    assert lexicon.weights and all(w[0] in "012a" for w in lexicon.weights)
    paths = sorted(DATA.glob("*/html/*.html.gz"))[::97]
    for path in paths:
        doc = Document.from_html(gzip.decompress(path.read_bytes()))
        scores = lexicon.block_scores(doc)
        assert np.allclose(scores, reference_scores(lexicon, doc), rtol=0, atol=1e-9), path
        assert np.array_equal(scores, lexicon.block_scores(doc, compiled=False)), path
        # Each memo made from cold: the compiled one and the reference's hold the same rows.
        compiled, reference = MarkupLexicon(lexicon.weights, lexicon.bias), MarkupLexicon(lexicon.weights, lexicon.bias)
        assert np.array_equal(compiled.block_scores(doc), reference.block_scores(doc, compiled=False)), path
        assert compiled_rows(compiled) == reference._sums, path
