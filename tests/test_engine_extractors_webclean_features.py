"""The compiled class/id scans of the block features (``webclean_scrapy.engine._features``)
give exactly what their regular-expression references give, and the vectorised features give what
direct, per-block readings of the same definitions give."""

from __future__ import annotations

import gzip
import html
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pytest

from webclean_scrapy.engine import document
from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.extractors import webclean
from webclean_scrapy.engine.extractors.webclean import features, keywords
from webclean_scrapy.engine.text.scripts import CJK_CHARS

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


def test_the_compiled_structure_tables_are_the_reference_tables() -> None:
    """Every page of a sample: the per-key and per-container tables of
    ``_Structure``, compiled, are those of their numpy reference, bit for
    bit, dtypes included, and so are the depths and bits they reset."""
    if features._compiled_structure_tables is None:
        pytest.skip("the extension was not built")
    for path, page in sampled_pages(step=20):
        structure = features._Structure(page)
        held = np.flatnonzero(page.cchars).astype(np.int32)
        nk = int(structure.keys.max()) + 1
        results = []
        for tables in (features._structure_tables, features._python_structure_tables):
            depth, inherited = structure.depth.copy(), structure.inherited.copy()
            depth[page.cchars == 0] = 7
            inherited[page.cchars == 0] = 3
            found = tables(page, held, structure.keys, nk, structure.total, depth, inherited)
            results.append((found, depth, inherited))
        (compiled, *compiled_bits), (expected, *expected_bits) = results
        assert compiled.top == expected.top and compiled.top_key_share == expected.top_key_share, path
        for name in ("counts", "share", "same", "children", "key_ld", "key_prose", "prose_ratio"):
            a, b = getattr(compiled, name), getattr(expected, name)
            assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), (path, name)
        for a, b in zip(compiled_bits, expected_bits):
            assert a.tobytes() == b.tobytes(), path


def test_the_compiled_readability_flags_are_the_reference_flags() -> None:
    """Every page of a sample, and pages made for the ties and the siblings:
    the compiled choice of Readability's container flags the blocks the
    numpy reference flags, with the same share."""
    if features._readability_flags is None:
        pytest.skip("the extension was not built")
    made = [
        "<html><body><div><p>" + "A sentence, with commas, of some length. " * 4 + "</p></div>"
        "<div><p>" + "A sentence, with commas, of some length. " * 4 + "</p></div>"
        "<div><p>Short sibling.</p><p>No stop here</p><p><a href=/x>linked text that is long enough</a></p></div>"
        "</body></html>",
        "<html><body><p>" + "Root paragraph of text, long enough to score. " * 3 + "</p></body></html>",
        "<html><body></body></html>",
    ]
    pages = [features.PageColumns(features.Document.from_html(html)) for html in made]
    for _, page in sampled_pages(step=10):
        pages.append(page)
    for page in pages:
        compiled, expected = features._readability(page), features._python_readability(page)
        assert compiled[0].tobytes() == expected[0].tobytes() and compiled[1].tobytes() == expected[1].tobytes()
        assert compiled[0].dtype == expected[0].dtype == bool and type(compiled[2]) is type(expected[2])
        assert compiled[2] == expected[2]
    assert any(features._python_readability(page)[1].any() for page in pages)


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


# -- vectorised features against per block readings ------------------------------------------------
# The ``webclean`` extractor's vectorised features (public
# :func:`~webclean_scrapy.engine.extractors.webclean.block_features`, named by
# ``BLOCK_FEATURES``) against direct, per-block readings of the same
# definitions (the way the features were first written), so a faster
# formulation cannot drift from the model's.
COLUMN = {name: j for j, name in enumerate(webclean.BLOCK_FEATURES)}


#: The marks as defined, written out here (not imported) so that a change
#: to ``marks.py`` must be made in both places: sentence ends of every
#: script (ASCII, CJK full- and half-width, Indic, Urdu, Arabic, Armenian,
#: Ethiopic, Myanmar, Khmer, Tibetan), commas, semicolons.
STOPS = ".。．｡!！?？।॥۔؟։።။។།"
COMMAS = ",，、､،"
SEMICOLONS = ";；؛"


def counted_marks(text: str) -> tuple[int, int, int, bool]:
    return (
        sum(text.count(mark) for mark in STOPS),
        sum(text.count(mark) for mark in COMMAS),
        sum(text.count(mark) for mark in SEMICOLONS),
        text[-1] in STOPS,
    )


def mark_features(text: str) -> tuple[float, float, float]:
    """The ``stops``, ``commas`` and ``ends_stop`` features as defined:
    marks per 40 characters other than whitespace, a CJK character counting
    for two (at most 3), and whether a stop ends it."""
    stops, commas, semicolons, ends = counted_marks(text)
    chars = len("".join(text.split())) + len(re.findall(f"[{CJK_CHARS}]", text))
    return min(stops * 40.0 / chars, 3.0), min((commas + semicolons) * 40.0 / chars, 3.0), float(ends)


def marks_of(doc: Document) -> list[tuple[float, float, float]]:
    rows = webclean.block_features(doc)
    return [tuple(row) for row in rows[:, [COLUMN["stops"], COLUMN["commas"], COLUMN["ends_stop"]]].tolist()]


TEXTS = [
    "Plain prose, with a comma; and a stop.",
    "No marks at all",
    "标点：你好，世界、再见。",
    "全角！",
    "本当？はい．半角｡",
    "هل هذا صحيح؟ نعم، هذا صحيح؛ شكرا.",
    "ይህ ትክክል ነው። አዎ።",
    "यह सही है। हाँ॥",
    "Սա ճիշտ է։",
    "Why?",
    "Emoji 😀 before, after 😀. And more 😀!",
    "\U0001d400\U0001d401, wide.",
    "a\ud800b, lone surrogate.",
    "x",
]


def page_of(texts: list[str]) -> Document:
    return Document.from_html("".join(f"<p>{html.escape(text)}</p>" for text in texts))


@pytest.mark.parametrize("compiled", [pytest.param(True, marks=pytest.mark.compiled_walk), False])
def test_marks_match_str_count(compiled: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    # The walk counts the marks; the model adds them up. Compared with
    # str.count on the texts the walk produced (a lone surrogate, which
    # cannot be encoded, is replaced before parsing).
    monkeypatch.setattr(document, "COMPILED_WALK", compiled)
    doc = page_of(TEXTS)
    texts = doc.block_columns.texts
    assert len(texts) == len(TEXTS)
    assert marks_of(doc) == [mark_features(t) for t in texts]
    for mark, counts in zip(document.PUNCTUATION_MARKS, doc.block_columns.marks.tolist()):
        assert counts == [t.count(mark) for t in texts]


def test_marks_on_a_long_page():
    texts = ["a, b; c. " * 240_000, "Short, one.", "x" * 10 + "!"]
    doc = page_of(texts)
    assert marks_of(doc) == [mark_features(t.strip()) for t in texts]
    assert doc.block_columns.count(".").tolist() == [240_000, 1, 0]


def test_only_counted_marks_can_be_asked_for():
    doc = page_of(["a, b."])
    assert doc.block_columns.count(",.").tolist() == [2]
    with pytest.raises(ValueError, match="counted"):
        doc.block_columns.count(":")


#: Readability's paragraph containers and tag priors (Arc90/Mozilla).
RD_SCORED = frozenset({"p", "pre", "td", "div", "section", "article", "main", "blockquote", "dd"})
RD_TAG_PRIOR = {
    "div": 5,
    "pre": 3,
    "td": 3,
    "blockquote": 3,
    "address": -3,
    "ol": -3,
    "ul": -3,
    "dl": -3,
    "dd": -3,
    "dt": -3,
    "li": -3,
    "form": -3,
    "th": -5,
    **{f"h{k}": -5 for k in range(1, 7)},
}


def class_sign(node) -> int:
    """Readability's class weight of a container, as a sign: its class/id
    keywords (the ``comment`` class inherits nothing, it is its own)."""
    words = " ".join(filter(None, (node.attributes.get("class"), node.attributes.get("id"))))
    return keywords.class_keywords(words)[2] if words else 0


def readability_reference(doc: Document) -> tuple[list[float], list[float], float]:
    """Readability's paragraph scoring as a walk over the container objects."""
    score: dict = {}
    for block in doc.blocks:
        if block.chars < 25 or block.container.tag not in RD_SCORED:
            continue
        points = 1 + counted_marks(block.text)[1] + min(block.chars // 100, 3)
        node, level = block.container.parent, 0
        while node is not None and level < 5:
            current = score.get(node)
            if current is None:
                current = RD_TAG_PRIOR.get(node.tag, 0) + 25 * class_sign(node)
            score[node] = current + (points if level == 0 else points / 2 if level == 1 else points / (3 * level))
            node, level = node.parent, level + 1
    top, best, final = None, 0.0, {}
    for node, value in score.items():
        final[node] = value = value * (1 - node.anchor_chars / node.chars)
        if value > best:
            top, best = node, value
    n = len(doc.blocks)
    in_top, in_sibling = [0.0] * n, [0.0] * n
    if top is None:
        return in_top, in_sibling, 0.0
    in_top[top.first_block : top.last_block + 1] = [1.0] * (top.last_block + 1 - top.first_block)
    for sibling in top.parent.children if top.parent is not None else ():
        if sibling is top or sibling.first_block < 0:
            continue
        keep = final.get(sibling, 0.0) >= max(10.0, best * 0.2)
        if not keep and sibling.tag == "p":
            ld = sibling.anchor_chars / sibling.chars
            keep = (sibling.chars > 80 and ld < 0.25) or (
                ld == 0 and doc.blocks[sibling.last_block].text[-1] in "。.!?！？"
            )
        if keep:
            in_sibling[sibling.first_block : sibling.last_block + 1] = [1.0] * (
                sibling.last_block + 1 - sibling.first_block
            )
    return in_top, in_sibling, top.chars / doc.containers[0].chars


def random_page(rng: random.Random) -> str:
    """Nested sections of look-alike paragraphs: ties and near-ties between
    sibling and nested containers are common, as on real pages."""
    words = ["flood", "levee", "river", "town", "water", "bridge", "street", "market"]

    def paragraph() -> str:
        text = " ".join(rng.choice(words) for _ in range(rng.choice([4, 6, 20, 40])))
        return text + rng.choice(["", ".", ", and more, still.", "; then, again."])

    def node(depth: int) -> str:
        if depth == 0 or rng.random() < 0.3:
            tag = rng.choice(["p", "p", "li", "td", "span"])
            link = f'<a href="/x">{paragraph()}</a>' if rng.random() < 0.2 else ""
            return f"<{tag}>{paragraph()}{link}</{tag}>"
        tag = rng.choice(["div", "section", "article", "div", "blockquote"])
        cls = rng.choice(["", ' class="content"', ' class="sidebar"', ' id="comments"', ' class="post-body"'])
        return f"<{tag}{cls}>" + "".join(node(depth - 1) for _ in range(rng.randint(1, 4))) + f"</{tag}>"

    return "<html><body>" + "".join(node(5) for _ in range(rng.randint(1, 3))) + "</body></html>"


@pytest.mark.parametrize("seed", range(40))
def test_readability_matches_the_walk(seed):
    doc = Document.from_html(random_page(random.Random(seed)))
    rows = webclean.block_features(doc)
    in_top, in_sibling, share = readability_reference(doc)
    assert rows[:, COLUMN["rd_top"]].tolist() == in_top
    assert rows[:, COLUMN["rd_sibling"]].tolist() == in_sibling
    assert set(rows[:, COLUMN["rd_share"]].tolist()) == {share}


def test_comment_areas_and_codes_agree_with_the_markup():
    html = """<html><body class="single comments-open"><article class="article-body">
      <p>First paragraph of the article body, long enough to count as prose.</p>
      <div class="comment-content"><p>A box named a comment first, though inside the article.</p></div>
    </article><section id="comments"><ol class="commentlist"><li><div class="text">
      <p>Great article, thanks for writing it!</p></div></li></ol></section></body></html>"""
    doc = Document.from_html(html)
    rows = webclean.block_features(doc)
    column = {name: j for j, name in enumerate(webclean.BLOCK_FEATURES)}
    areas = {block.text[:5]: rows[i][column["in_area"]] == 1.0 for i, block in enumerate(doc.blocks)}
    assert areas == {"First": False, "A box": True, "Great": True}
    first = rows[0]
    assert first[column["k_p"]] == first[column["in_article"]] == first[column["kw_strong"]] == 1.0
    assert first[column["inner_strong"]] == 1.0 and first[column["kw_comment"]] == 1.0  # from <body>
    assert sum(first[column[k]] for k in keywords.KIND_NAMES) == 1.0


#: The whole-word groups as first written (look-behind first); the module
#: rewrote them letter-first so the regex engine can skip ahead.
_FIRST_WRITTEN = {
    "kw_hidden": r"(?<![a-z-])(?:hidden|hide|invisible|sr-only|visually-hidden|screen-reader-text)(?![a-z-])",
    "kw_ad": r"(?<![a-z])ads?(?![a-z])|advert|sponsor|promo|dfp|banner|outbrain|taboola|commercial",
}
CLASS_STRINGS = [
    "hidden",
    "x-hidden",
    "hidden-xs",
    "d-none hide",
    "shide",
    "ads",
    "bads",
    "ad-slot",
    "lead ad",
    "tags",
    "tag-list",
    "stagsx",
    "sr-only",
    "visually-hidden",
    "screen-reader-text",
    "invisible",
    "comment-content",
    "side-bar sidebar",
    "post-body entry-content",
    "main-nav menu",
    "related-posts",
    "share-buttons social",
    "byline author",
    "article__body",
    "PostBody",
    "footer-legal copyright",
    "wrapper row col-md-8",
    "",
    "   ",
    "comments-area\tcomment-respond",
    "readnext read-next",
]


@pytest.mark.parametrize("words", CLASS_STRINGS)
def test_keyword_scan_by_tokens_matches_one_scan_of_the_string(words):
    import re

    groups = {name: _FIRST_WRITTEN.get(name, pattern) for name, pattern in keywords.KEYWORD_GROUPS.items()}
    reference = re.compile("|".join(f"(?P<{name}>{pattern})" for name, pattern in groups.items()))
    priority = ["kw_" + name[len("inner_") :] for name in keywords.INNER_NAMES]
    found = {match.lastgroup for match in reference.finditer(words.lower())}
    first = min(found, key=priority.index) if found else None
    keywords.clear_keyword_memos()
    assert keywords.class_keywords(words)[:2] == (found, first)


@pytest.mark.parametrize(
    "words", [*CLASS_STRINGS, "cartab", "product-card__title", "docsapi DOCS", "spec\u00a0tab", "İtem x\x1fcard"]
)
def test_structure_groups_by_tokens_match_one_scan_of_the_string(words):
    """The :data:`STRUCTURE_GROUPS` bits memoised token by token are the bits
    of one scan of the whole string (``cartab``: ``cart`` is matched, the
    ``tab`` it overlaps is not, in either)."""
    from webclean_scrapy.engine.extractors.webclean import features

    bits = 0
    for match in features._GROUP_RE.finditer(words.lower()):
        bits |= features._GROUP_BITS[match.lastgroup]
    features.GROUP_MEMO.clear()
    features._GROUP_TOKENS.clear()
    assert features.GROUP_MEMO[words] == bits
    assert features.GROUP_MEMO[words] == bits  # memoised


def test_clearing_the_memos_empties_every_one_and_changes_no_output():
    """``clear_keyword_memos`` leaves the state of a process that has read
    no page: every memo keyed by markup words is empty (the class/id
    keywords, the structure groups, the lexicon's sums, the page type's
    class families), and a page read from that state comes out as from
    warm memos."""
    from webclean_scrapy import extract
    from webclean_scrapy.engine.extractors.webclean import clear_keyword_memos, features, load_model
    from webclean_scrapy.engine.extractors.webclean import lexicon as lexicon_module
    from webclean_scrapy.engine.page_type import signals

    page = (
        "<html><body><nav class='site-nav menu'><a href='/'>Home</a></nav>"
        "<div class='product-card post-body entry-content' id='main-article'>"
        + "<p class='lead'>A paragraph of prose, long enough to be read as the page's text.</p>" * 5
        + "</div><footer class='footer'>Imprint</footer></body></html>"
    )
    warm = extract(page)
    # The token memos are the references' (the build without a C compiler's):
    # the compiled scans read a new string whole.
    keywords._keywords("no-page-has-this sidebar")
    features._python_group_bits("no-page-has-this card")
    load_model().lexicon._value_sums("class", "no-page-has-this card")
    memos = {
        "keywords": keywords._KEYWORD_CACHE,
        "tokens": keywords._TOKEN_CACHE,
        "group strings": features.GROUP_MEMO,
        "group tokens": features._GROUP_TOKENS,
        "lexicon": load_model().lexicon._sums,
        "page-type names": signals._NAME_BITS,
    }
    if lexicon_module._lexicon_sums is not None:  # the compiled loop's own memo
        memos["lexicon, packed"] = load_model().lexicon._packed_sums
    assert all(memos.values()), [name for name, memo in memos.items() if not memo]
    clear_keyword_memos()
    assert not any(memos.values()), [name for name, memo in memos.items() if memo]
    assert not signals._RUN_BITS and not keywords._MATCH_GROUPS
    cold = extract(page)
    assert (cold.text, cold.page_type, cold.title) == (warm.text, warm.page_type, warm.title)
    assert "A paragraph of prose" in cold.text and "Imprint" not in cold.text
