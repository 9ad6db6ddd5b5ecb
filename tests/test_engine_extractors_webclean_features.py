"""The compiled class/id scans of the block features (``webclean_scrapy.engine._features``)
give exactly what their regular-expression references give."""

from __future__ import annotations

import gzip
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pytest

from webclean_scrapy.engine.extractors.webclean import features, keywords

#: numpy's two memory layouts, both of which the row loops write.
MEMORY_ORDERS: tuple[Literal["C", "F"], ...] = ("C", "F")

_features = pytest.importorskip("webclean_scrapy.engine._features")

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"

#: Pieces of tokens: the keywords themselves, their optional letters and
#: lookaround edges (hyphens, letters, digits), prefixes of keywords that
#: overlap others, non-ASCII letters (some lower-casing to two characters).
TOKEN_PIECES = [
    "ad", "ads", "hide", "hidden", "h", "a", "-", "_", "1", "x", "z", "tag", "tags", "doc", "docs", "side-",
    "read-next", "readnext", "reply", "replies", "sign-up", "signup", "feature", "description", "row", "col",
    "navigation", "sr-only", "screen-reader-text", "invisible", "visually-hidden", "article-body", "postext",
    "comment", "content", "é", "ß", "İ", "ﬃ", "\u00a0",
]  # fmt: skip


#: Pieces of class/id strings: tokens' pieces and the whitespace between them
#: (``str.split`` splits at the no-break space and the tab too).
STRING_PIECES = [*TOKEN_PIECES, " ", "  ", "\t", "\n", "Card", "PRODUCT", "Hidden", "AD"]


def generated(pieces: list[str], count: int, seed: int, most: int) -> list[str]:
    """*count* strings of up to *most* of *pieces*."""
    rng = random.Random(seed)
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(0, most))) for _ in range(count)]


def generated_tokens(count: int, seed: int) -> list[str]:
    return generated(TOKEN_PIECES, count, seed, 6)


def generated_strings(count: int, seed: int) -> list[str]:
    return generated(STRING_PIECES, count, seed, 8)


def page_strings(step: int = 25) -> set[str]:
    """The class/id strings, as written, of a sample of the annotated pages."""
    found: set[str] = set()
    for path in sorted(DATA.glob("*/html/*.html.gz"))[::step]:
        html = gzip.decompress(path.read_bytes()).decode("utf-8", "replace")
        found.update(re.findall(r'(?:class|id)="([^"]*)"', html))
    return found


def page_tokens(step: int = 25) -> set[str]:
    """The lower-cased class/id tokens of a sample of the annotated pages."""
    return {token for words in page_strings(step) for token in words.lower().split()}


def test_the_compiled_scans_are_built() -> None:
    assert keywords.LiteralMatcher is not None
    assert isinstance(keywords._KEYWORD_MATCHER, _features.LiteralMatcher)
    assert features._GROUP_MATCHER is not None
    assert isinstance(features.GROUP_MEMO, _features.GroupMemo)


@pytest.mark.parametrize("seed", [1, 2])
def test_keyword_tokens_match_the_regular_expression(seed: int) -> None:
    tokens = generated_tokens(20_000, seed) + sorted(page_tokens())
    matcher: Any = keywords._KEYWORD_MATCHER  # compiled: no stubs
    for token in tokens:
        bits, rank = matcher.fold(token)
        assert bits << 4 | (rank + 1) == keywords._python_token_keywords(token), token


@pytest.mark.parametrize("seed", [6, 7])
def test_keyword_strings_read_whole_are_read_token_by_token(seed: int) -> None:
    """The compiled reading scans a class/id string whole; the reference
    (``keywords._keywords``) reads it token by token: the same evidence
    and the same first group."""
    matcher: Any = keywords._KEYWORD_MATCHER
    for words in generated_strings(5_000, seed) + sorted(page_strings()):
        keywords._KEYWORD_CACHE.pop(words, None)
        evidence, own, _ = keywords._keywords(words)
        bits, rank = matcher.fold(words.lower())
        assert (bits << keywords._EVIDENCE_SHIFT, rank) == (evidence, own), words


@pytest.mark.parametrize("seed", [3, 4])
def test_group_tokens_match_the_regular_expression(seed: int) -> None:
    matcher: Any = features._GROUP_MATCHER  # compiled: no stubs
    assert matcher is not None
    for token in generated_tokens(20_000, seed) + sorted(page_tokens()):
        assert matcher.fold(token)[0] == features._python_token_groups(token), token


def test_group_strings_match_the_reference() -> None:
    """The compiled memo scans a new string whole, the reference token by
    token: the same bits; the memo keeps them, and empties at its bound."""
    memo = _features.GroupMemo(features._GROUP_MATCHER, 100)
    for words in generated_strings(5_000, 5) + sorted(page_strings()):
        expected = features._python_group_bits(words)
        assert memo[words] == expected, words
        assert dict.get(memo, words) == expected
        assert len(memo) <= 100


def test_literal_alternatives_follow_the_regular_expression_order() -> None:
    # re tries "hidden" before "hide", "ads" before "ad", a branch before the next.
    texts = [text for text, _, _ in keywords.literal_alternatives(r"h(?:idden|ide)|ads?|x(?:y|ies)")]
    assert texts == ["hidden", "hide", "ads", "ad", "xy", "xies"]
    lazy = [text for text, _, _ in keywords.literal_alternatives(r"ad(?:s)??")]
    assert lazy == ["ad", "ads"]
    with pytest.raises(ValueError):
        keywords.literal_alternatives(r"a+")
    with pytest.raises(ValueError):
        keywords.literal_alternatives(r"^ad")


def test_a_matcher_honours_lookarounds_and_leftmost_first_matches() -> None:
    pattern = r"a(?<![a-z]a)ds?(?![a-z])|(?P<g>adv)|ds"
    alternatives = [
        (text, tests, 1 << k, k) for k, (text, tests, _) in enumerate(keywords.literal_alternatives(pattern))
    ]
    matcher = _features.LiteralMatcher(alternatives)
    compiled = re.compile(pattern)
    for text in ["ad", "ads", "bad", "ad-x", "adv", "advads", "x-ads", "ads1", "dsads", "", "é-ad"]:
        expected_bits, expected_rank = 0, -1
        for match in compiled.finditer(text):
            k = next(k for k, (alt, _, _, _) in enumerate(alternatives) if alt == match.group())
            expected_bits |= 1 << k
            expected_rank = k if expected_rank < 0 else min(expected_rank, k)
        assert matcher.fold(text) == (expected_bits, expected_rank), text


def test_a_matcher_finds_its_candidates_by_their_first_two_characters() -> None:
    """Alternatives of one character, of two, sharing their first two
    characters, starting or going on with a character past ASCII (their
    slots found by a search): the scan gives ``re.finditer``'s matches, and
    every alternative contained, overlaps included."""
    texts = ["x", "ab", "abc", "abd", "a", "éa", "aé", "ßb", "b-", "ca", "cab", "\u4e2d\u6587"]
    alternatives = [(text, (), 1 << k, k) for k, text in enumerate(texts)]
    matcher = _features.LiteralMatcher(alternatives)
    compiled = re.compile("|".join(map(re.escape, texts)))
    rng = random.Random(8)
    pieces = [*texts, "b", "c", "d", "é", "ß", "-", " ", "\u4e2d", "z"]
    for _ in range(3_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 7)))
        expected_bits, expected_rank = 0, -1
        for match in compiled.finditer(text):
            k = texts.index(match.group())
            expected_bits |= 1 << k
            expected_rank = k if expected_rank < 0 else min(expected_rank, k)
        assert matcher.fold(text) == (expected_bits, expected_rank), text
        contained = sum(1 << k for k, alternative in enumerate(texts) if alternative in text)
        assert matcher.each_contained([text]) == [contained], text


def sampled_pages(step: int = 40) -> Iterator[tuple[Path, features.PageColumns]]:
    """Every *step*-th dataset page that has blocks, as the features read it
    (the calling test skips when the data is absent)."""
    paths = sorted(DATA.glob("*/html/*.html.gz"))[::step]
    if not paths:
        pytest.skip("no annotated pages")
    for path in paths:
        page = features.PageColumns(features.Document.from_html(gzip.decompress(path.read_bytes())))
        if page.n:
            yield path, page


def chunks(n: int) -> list[tuple[int, int]]:
    """Row ranges of a page of *n* blocks: whole, its last two thirds, its first half."""
    return [(0, n), (n // 3, n), (0, max(1, n // 2))]


def test_the_compiled_structure_rows_are_the_reference_rows() -> None:
    """Every page of a sample, whole and in chunks: the compiled columns of
    ``_Structure.fill`` are those of its numpy reference, bit for bit."""
    width = len(features.STRUCTURE_FEATURES)
    for path, page in sampled_pages():
        structure = features._Structure(page)
        for start, stop in chunks(page.n):
            compiled = np.zeros((stop - start, width), order="F")
            assert structure._compiled_fill(compiled, start), path
            structure._fill_title(compiled, start, stop)
            expected = np.zeros((stop - start, width), order="F")
            structure.python_fill(expected, start, stop)
            assert compiled.tobytes() == expected.tobytes(), path


def test_structure_rows_give_way_past_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """A count past the table of logarithms: the reference writes the rows."""
    path = sorted(DATA.glob("*/html/*.html.gz"))[:1]
    if not path:
        pytest.skip("no annotated pages")
    page = features.PageColumns(features.Document.from_html(gzip.decompress(path[0].read_bytes())))
    structure = features._Structure(page)
    width = len(features.STRUCTURE_FEATURES)
    out = np.zeros((page.n, width), order="F")
    assert not _features.structure_rows(
        out, 0, page.holder, page.parent, structure.keys, structure.count_log, structure.share, structure.same,
        structure.key_ld, structure.key_prose, structure.depth, structure.children, page.first, page.last,
        structure.levels, page.prefix_chars, page.codes, page.cchars, structure.prose_ratio, structure.own,
        structure.inherited, features._count_log_table()[:1], (1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0, 0, 0, 0, 6),
    )  # fmt: skip
    assert not out.any()
    monkeypatch.setattr(features, "_count_log_table", lambda: np.zeros(1))
    filled = np.zeros((page.n, width), order="F")
    structure.fill(filled, 0, page.n)
    expected = np.zeros((page.n, width), order="F")
    structure.python_fill(expected, 0, page.n)
    assert filled.tobytes() == expected.tobytes()


def test_the_compiled_block_rows_are_the_reference_rows() -> None:
    """The block's own columns of ``_BlockFeatures.fill``, compiled, are those
    of its numpy reference, bit for bit, whole and in chunks, in either
    memory order."""
    width = features._STRUCTURE_AT
    for path, page in sampled_pages():
        rows = features._BlockFeatures(page)
        for start, stop in chunks(page.n):
            for order in MEMORY_ORDERS:
                compiled = np.zeros((stop - start, width), order=order)
                assert rows._compiled_fill(compiled, start, stop), path
                expected = np.zeros((stop - start, width), order=order)
                rows.python_fill(expected, start, stop)
                assert compiled.tobytes() == expected.tobytes(), path


def test_block_rows_give_way_past_the_table() -> None:
    """A length past the table of logarithms: nothing is written, and
    ``fill`` runs the reference (``python_fill``) instead."""
    path = sorted(DATA.glob("*/html/*.html.gz"))[:1]
    if not path:
        pytest.skip("no annotated pages")
    page = features.PageColumns(features.Document.from_html(gzip.decompress(path[0].read_bytes())))
    rows = features._BlockFeatures(page)
    stops, commas, semicolons = features._marks(page, slice(0, page.n))
    in_top, in_sibling, share = rows.readability
    out = np.zeros((page.n, features._STRUCTURE_AT))
    assert not _features.block_rows(
        out, 0, page.chars, page.anchors, stops, commas, semicolons, rows.ends_stop.view(np.uint8),
        rows.duplicates.view(np.uint8), in_top.view(np.uint8), in_sibling.view(np.uint8), float(share),
        features._CHAR_STEP_ARRAY, features._LD_STEP_ARRAY, page.holder, page.parent, page.cchars, page.canchors,
        page.codes, keywords.BINARY_MASKS, keywords.BINARY_VALUES, features._log1p_table()[:1],
    )  # fmt: skip
    assert not out.any()
