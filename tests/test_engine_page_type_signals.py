"""The compiled page-signal loops (``webclean_scrapy.engine._signals``) give exactly
what their Python references in ``page_type.reference`` give."""

from __future__ import annotations

import gzip
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from webclean_scrapy.engine import page_type
from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.extraction import TREE_READS
from webclean_scrapy.engine.html import elements
from webclean_scrapy.engine.page_type import reference, signals, vocabulary

_signals = pytest.importorskip("webclean_scrapy.engine._signals")

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"

#: Pieces of attribute values: keywords of the class families, case,
#: separators, whitespace of several kinds, non-ASCII letters.
NAME_PIECES = [
    "product", "Card", "price", "post", "REPLY", "toc", "nav", "-", "_", "__", " ", "  ", "\t", "\n", "\u00a0",
    "é", "ß", "İ", "md-", "add-to-cart", "x", "1", "",
]  # fmt: skip
TAGS = ["div", "p", "li", "h1", "h2", "h3", "h4", "span", "article", "section", "td"]


def random_value(rng: random.Random) -> str:
    return "".join(rng.choice(NAME_PIECES) for _ in range(rng.randint(0, 6)))


def random_containers(rng: random.Random, count: int) -> tuple[list[str], list[dict[str, str]]]:
    """Tags and attribute dicts as the walk gives them (the empty dict shared)."""
    empty: dict[str, str] = {}
    tags, attributes = [], []
    for _ in range(count):
        tags.append(rng.choice(TAGS))
        found = {name: random_value(rng) for name in ("class", "id", "role", "itemprop") if rng.random() < 0.3}
        attributes.append(found or empty)
    return tags, attributes


def test_attribute_names_on_generated_containers() -> None:
    rng = random.Random(9)
    for _ in range(500):
        tags, attributes = random_containers(rng, rng.randint(0, 60))
        expected = reference.attribute_names(tags, attributes, signals._HEADING_TAGS)
        found = _signals.attribute_names(tags, attributes, signals._HEADING_TAGS)
        assert found == expected
        # The same names in the same order (the name caches fill in that order).
        assert list(found[4]) == list(expected[4])
    assert expected[3] >= 0


def test_attribute_names_cut_ascii_values_as_str_split() -> None:
    """ASCII class and id values are cut and lower-cased in place: every
    ASCII whitespace character ``str.split`` knows (``\\x1c``-``\\x1f``
    included), upper case, and the empty and blank values."""
    rng = random.Random(15)
    pieces = ["Nav", "MENU", "x1", "-", "_", *map(chr, range(33)), "\x7f", "", " "]
    for _ in range(500):
        values = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 8))) for _ in range(rng.randint(0, 12))]
        attributes = [
            {"class": value, "id": value[::-1]} if i % 3 else {"class": value} for i, value in enumerate(values)
        ]
        tags = ["div"] * len(values)
        expected = reference.attribute_names(tags, attributes, signals._HEADING_TAGS)
        found = _signals.attribute_names(tags, attributes, signals._HEADING_TAGS)
        assert found == expected
        assert list(found[4]) == list(expected[4])


def test_family_counts_on_generated_names() -> None:
    rng = random.Random(10)
    groups = len(signals._CLASS_GROUP_NAMES)
    for _ in range(500):
        names = {random_value(rng) + str(i): rng.randint(1, 50) for i in range(rng.randint(0, 40))}
        bits = {name: rng.randrange(1 << groups) for name in names}
        expected = reference.family_counts(names, bits, groups)
        assert _signals.family_counts(names, bits, groups) == expected


def test_name_families_on_generated_and_real_names() -> None:
    """The compiled scan (every keyword contained, overlaps included) gives
    each name the families the runs-of-letters reference gives it: keywords
    inside others (``username``, ``user``), keywords across letters and
    hyphens (``add-to-cart``, ``md-``), non-ASCII letters and digits beside
    them; and the class/id names of every 40th page of the datasets."""
    from webclean_scrapy.engine._features import LiteralMatcher

    assert isinstance(signals._NAME_MATCHER, LiteralMatcher)
    assert signals._name_families == signals._NAME_MATCHER.each_contained
    rng = random.Random(17)
    pieces = [p.lower() for p in NAME_PIECES if p.strip()] + ["username", "user", "a", "dd-to", "wp-block-cover", "ca"]
    batches = [["".join(rng.choice(pieces) for _ in range(rng.randint(1, 6))) for _ in range(20)] for _ in range(500)]
    for path in sorted(DATA.glob("*/html/*.html.gz"))[::40]:
        cc = Document.from_html(gzip.decompress(path.read_bytes())).container_columns
        batches.append(list(reference.attribute_names(cc.tags, cc.attributes, signals._HEADING_TAGS)[4]))
    for names in batches:
        signals._RUN_BITS.clear()
        assert signals._NAME_MATCHER.each_contained(names) == signals._python_name_families(names), names
    assert any(bits for names in batches for bits in signals._NAME_MATCHER.each_contained(names))


def test_platform_counts_on_generated_texts() -> None:
    """The compiled matchers count, per platform family, the words the
    trigram-filtered reference finds: words inside others (``docs`` in
    ``docsearch``, ``wix`` in ``wix-stores``), words split across pieces,
    non-ASCII characters beside them, and more than one matcher's words."""
    assert signals._PLATFORM_MATCHERS is not None and len(signals._PLATFORM_MATCHERS) == 2
    rng = random.Random(5)
    words = list(signals._PLATFORM_WORDS.words)
    pieces = [*words, "/", ".", "-", "x", "é", "https://cdn.", "wp-", "shop", "ify", " ", "中", "dis", "course"]
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randrange(0, 15))) for _ in range(5000)]
    for text in [*texts, " ".join(words), ""]:
        assert signals._platform_counts(text) == signals._python_platform_counts(text), text
    assert signals._platform_counts(" ".join(words)) == [len(set(family)) for family in vocabulary.PLATFORMS.values()]


def test_class_names_words_are_each_names_words() -> None:
    """The page's ``c_`` tokens, read from the class/id names joined, are
    the union of each name's words (its runs of two or more ASCII
    lower-case letters), and the family counts those of the reference,
    from empty memos and from warm ones."""
    rng = random.Random(18)
    for _ in range(300):
        tags, attributes = random_containers(rng, rng.randint(0, 40))
        name_counts = reference.attribute_names(tags, attributes, signals._HEADING_TAGS)[4]
        expected_words = {"c_" + word for name in name_counts for word in reference.words(name)}
        groups = len(signals._CLASS_GROUP_NAMES)
        bits = dict(zip(name_counts, signals._python_name_families(list(name_counts))))
        expected_counts = reference.family_counts(name_counts, bits, groups)
        page_type.clear_name_memos()
        for _ in range(2):  # cold, then warm
            assert signals._class_names(name_counts) == (expected_counts, expected_words)


def test_add_words_on_generated_texts() -> None:
    """Letter runs at the ends and between any characters: upper case,
    digits, non-ASCII letters (one, two and four bytes), a lone surrogate."""
    rng = random.Random(16)
    pieces = NAME_PIECES + ["ab", "q", "Zz", "\ud800", "\U0001d400", "一", "áb", "\n", "12"]
    texts = ["", "a", "ab", "ab cd ab", "\ud800ab"] + [random_value(rng) + rng.choice(pieces) for _ in range(3000)]
    for text in texts:
        for prefix in ("s_", "", "long_prefix_"):
            found, expected = {"s_x"}, {"s_x"}
            _signals.add_words(found, text, prefix)
            reference.add_words(expected, text, prefix)
            assert found == expected, (text, prefix)


def test_link_hrefs_read_as_lxml_gives_them() -> None:
    """Hrefs with entities, non-ASCII (of each string kind), bare or empty values, upper-case
    names, slashes at the end, and anchors without one; the link kinds'
    fragments in any case (the Kelvin sign lower-cases to ``k``)."""
    rng = random.Random(14)
    pieces = ["/", "-", "a", "&amp;", "&#233;", "é", "%20", "how-to-fix-a-tap", "//", "?q=a-b-c", "x" * 20]
    pieces += ["/P/", "CART", "chec\u212aout", "İ", "/Docs/", "/u/u/", ".HTML#", "/products", "Σ", "\U0001d400-"]
    seen = 0
    for _ in range(300):
        anchors = []
        for _ in range(rng.randint(0, 12)):
            href = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
            anchors.append(
                rng.choice([f'<a href="{href}">x</a>', f"<A HREF='{href}'>x</a>", "<a href>x</a>", "<a name=n>x</a>"])
            )
        doc = Document.from_html(f"<html><body><p>{''.join(anchors)}</p></body></html>".encode())
        hrefs = elements.link_hrefs(doc)
        assert hrefs == [a.get("href") for a in doc.root.iter("a")]
        # Read again from the tree cut down to what its readers need (which drops the survey's lists).
        assert doc.prune_tree(*TREE_READS) and elements.link_hrefs(doc) == hrefs
        fragments = signals._LINK_FRAGMENTS + [b"-a", b"a-", b"//", b"xx", b"&a", b"XX", b"/u/u"]
        expected = reference.link_figures(hrefs, fragments)
        assert _signals.link_figures(hrefs, fragments) == expected
        seen += sum(expected[1][: len(signals._LINK_FRAGMENTS)]) > 0
    assert seen > 100


def test_unknown_names() -> None:
    names = {"b": 1, "a": 2, "c": 3, "": 4}
    known = {"a": 0, "": 1}
    assert _signals.unknown_names(names, known) == reference.unknown_names(names, known) == ["b", "c"]


def test_group_numbers_on_generated_containers() -> None:
    rng = random.Random(11)
    for _ in range(300):
        count = rng.randint(3, 80)
        parents = [rng.randint(-1, 5) for _ in range(count)]
        tags = [rng.choice(TAGS[:3]) for _ in range(count)]
        classes = [rng.choice(["", "a", "b", "a b"]) for _ in range(count)]
        items = sorted(rng.sample(range(count), rng.randint(3, count)))
        expected = reference.group_numbers(items, parents, tags, classes)
        found = _signals.group_numbers(items, parents, tags, classes)
        assert found.dtype == expected.dtype == np.int64
        assert np.array_equal(found, expected)


@pytest.mark.parametrize(
    "text",
    ["", "12", "1,234.56", ",", ".,.", "12a", " 12", "²", "٣٤", "一", "1\u00a02", "Ⅻ", "½", "12.", "-1", "𝟘𝟙"],
)
def test_numeric_blocks_follows_str_isdigit(text: str) -> None:
    assert _signals.numeric_blocks([text]) == reference.numeric_blocks([text])


def test_numeric_blocks_counts() -> None:
    texts = ["12", "x", "1,5", "", "٣", "a1"]
    assert _signals.numeric_blocks(texts) == reference.numeric_blocks(texts) == 3


#: Pieces of texts with prices: every symbol, separator, suffix and code,
#: codes cut short or in another case, digits that are decimal in other
#: scripts and some that are not (``²``, ``½``), whitespace of every kind.
PRICE_PIECES = [
    *vocabulary.PRICE_SYMBOLS, *vocabulary.PRICE_SEPARATORS, *vocabulary.PRICE_SUFFIX_SYMBOLS,
    *vocabulary.PRICE_CODES, "eur", "EU", "z", "K", "ру", "1", "12", "0", "9", "٣", "𝟘", "²", "½", "\t", "\n",
    "\u2003", "\u3000", "x", "a", "-", "$$", "ł", "\U0001f600",
]  # fmt: skip


def test_price_starts_on_generated_texts() -> None:
    rng = random.Random(12)
    constants = (vocabulary.PRICE_SYMBOLS, vocabulary.PRICE_SEPARATORS, vocabulary.PRICE_SUFFIX_SYMBOLS)
    for _ in range(20_000):
        text = "".join(rng.choice(PRICE_PIECES) for _ in range(rng.randint(0, 14)))
        found = _signals.price_starts(text, *constants, vocabulary.PRICE_CODES)
        assert found == reference.price_starts(text), repr(text)
    assert signals._price_starts("$5, 12,50 € and 3 kr") == [0, 4, 16]


def test_phrase_counts_on_generated_texts() -> None:
    """Lines made of phrases, the characters stripped around them (ASCII and
    not), other words and whitespace the strip keeps, in texts of one, two
    and four bytes a character: the same counts."""
    rng = random.Random(14)
    phrases = list(signals._PHRASE_OF)
    pieces = [*rng.sample(phrases, 30), *signals._PHRASE_STRIP, "\n", "\n", "x", "é", "\u00a0", "\r", "  "]
    pieces += ["一", "\U0001d400"]  # texts of each string kind
    constants = (signals._PHRASE_STRIP, signals._PHRASE_OF, signals._LONGEST_PHRASE)
    for _ in range(5_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        found = _signals.phrase_counts(text, *constants)
        assert found == dict(reference.phrase_counts(text, *constants)), repr(text)
    assert _signals.phrase_counts("reply\n 12 Reply:\nreply\n\n", *constants) == {"reply": 2}


def generated_page(rng: random.Random) -> bytes:
    """Nested containers of the tags the signals count, flag and group
    (repeated siblings sharing a class), with prices, links, headings and
    prose of several lengths."""
    texts = ["", "x", "$ 12", "Reply", "12,50 €", "word " * 20, "a long sentence of words. " * 8, "2024"]

    def element(depth: int) -> str:
        tag = rng.choice(["div", "li", "article", "section", "p", "h2", "nav", "table", "span", "a", "pre"])
        cls = f' class="{rng.choice(["card", "row", "post", ""])}"' if rng.random() < 0.7 else ""
        inner = "".join(element(depth + 1) for _ in range(rng.randint(0, 4))) if depth < 4 else ""
        link = f'<a href="/p/{rng.randint(0, 9)}">{rng.choice(texts)}</a>' if rng.random() < 0.3 else ""
        return f"<{tag}{cls}>{rng.choice(texts)}{link}{inner}</{tag}>"

    return f"<html><body>{''.join(element(0) for _ in range(rng.randint(1, 6)))}</body></html>".encode()


def comparable(found: tuple) -> list:
    """A result with its arrays as (dtype, list) pairs, to compare with ``==``."""
    return [(value.dtype, value.tolist()) if isinstance(value, np.ndarray) else value for value in found]


def test_block_passes_on_generated_and_real_pages() -> None:
    """The tag codes, the per-block sums and the repeated groups, compiled
    and in Python, on generated pages and every 40th page of the datasets."""
    rng = random.Random(15)
    pages = [generated_page(rng) for _ in range(300)]
    pages += [gzip.decompress(path.read_bytes()) for path in sorted(DATA.glob("*/html/*.html.gz"))[::40]]
    for page in pages:
        doc = Document.from_html(page)
        cc, bc = doc.container_columns, doc.block_columns
        codes = [
            function(cc.tags, cc.parents, signals._TAG_CODES, signals._TAG_LAYOUT)
            for function in (_signals.tag_codes, reference.tag_codes)
        ]
        assert comparable(codes[0]) == comparable(codes[1])
        own, flags, _ = codes[1]
        if not len(bc):
            continue
        arguments = (bc.chars, bc.anchor_chars, bc.holders, bc.count("."), flags, own, cc.parents)
        stats = [
            function(*arguments, signals._SHARE_BITS, bc.texts)
            for function in (_signals.block_stats, reference.block_stats)
        ]
        assert comparable(stats[0]) == comparable(stats[1])
        prices = np.array([rng.random() < 0.2 for _ in range(len(bc))]).view(np.uint8)
        headings = stats[1][19].view(np.uint8)
        classes = [a.get("class", "") for a in cc.attributes]
        groups = [
            function(
                own, cc.chars, cc.anchor_chars, cc.parents, cc.tags, classes, cc.first_blocks, cc.last_blocks,
                prices, headings, lambda tied: signals._first_group(tied, cc.parents.tolist(), cc.tags, classes),
            )
            for function in (_signals.repetition, reference.repetition)
        ]  # fmt: skip
        assert groups[0] == groups[1]


def test_the_page_signals_of_real_pages_are_the_same_with_either() -> None:
    """Every dataset's every 40th page: the whole signal vector and tokens,
    with the compiled loops and with their Python references."""
    paths = sorted(DATA.glob("*/html/*.html.gz"))[::40]
    if not paths:
        pytest.skip(f"evaluation data absent: {DATA}")
    python = {
        "_attribute_names": reference.attribute_names,
        "_family_counts": reference.family_counts,
        "_numeric_blocks": reference.numeric_blocks,
        "_unknown_names": reference.unknown_names,
        "_name_families": signals._python_name_families,
        "_link_figures": reference.link_figures,
        "_tag_codes": reference.tag_codes,
        "_block_stats": reference.block_stats,
        "_repetition": reference.repetition,
        "_add_words": reference.add_words,
        "_price_starts": reference.price_starts,
        "_phrase_counts": reference.phrase_counts,
    }
    for path in paths:
        doc = Document.from_html(gzip.decompress(path.read_bytes()))
        # Each side from empty name memos: each reads the page's names itself.
        page_type.clear_name_memos()
        compiled_signals, compiled_tokens = page_type.page_signals(doc)
        with pytest.MonkeyPatch.context() as patch:
            for name, function in python.items():
                patch.setattr(signals, name, function)
            page_type.clear_name_memos()
            python_signals, python_tokens = page_type.page_signals(doc)
        assert compiled_signals.tobytes() == python_signals.tobytes(), path
        assert compiled_tokens == python_tokens, path


def test_container_flags_on_generated_and_real_pages() -> None:
    """The compiled keyword codes and signs of the block features, against
    the Python loop: generated containers (class, id, role, itemprop in
    every combination, hidden and comment classes on large and small
    subtrees) and every 40th page of the datasets."""
    from webclean_scrapy.engine.extractors.webclean import keywords
    from webclean_scrapy.engine.extractors.webclean.keywords import container_codes

    assert keywords._compiled_flags is _signals.container_flags
    rng = random.Random(12)
    pieces = ["hidden", "comments", "article-body", "content", "byline", "nav", "x", "", " ", "Text"]
    roles = ["main", " Navigation ", "complementary", "", "banner"]
    pages = []
    for _ in range(200):
        body = []
        for _ in range(rng.randint(1, 25)):
            attributes = []
            for name in ("class", "id"):
                if rng.random() < 0.6:
                    attributes.append(f'{name}="{" ".join(rng.choice(pieces) for _ in range(rng.randint(0, 3)))}"')
            if rng.random() < 0.2:
                attributes.append(f'role="{rng.choice(roles)}"')
            if rng.random() < 0.1:
                attributes.append(f'itemprop="{rng.choice(["articleBody", "name", ""])}"')
            text = "word " * rng.choice([0, 1, 5, 60])
            body.append(f"<div {' '.join(attributes)}><p>{text}</p>" + "</div>" * rng.randint(0, 1))
        pages.append(f"<html><body>{''.join(body)}</body></html>".encode())
    pages += [gzip.decompress(path.read_bytes()) for path in sorted(DATA.glob("*/html/*.html.gz"))[::40]]
    for page in pages:
        doc = Document.from_html(page)
        # From empty memos each time: the compiled loop reads new strings itself.
        keywords.clear_keyword_memos()
        compiled = container_codes(doc)
        memo = dict(keywords._KEYWORD_CACHE)
        keywords.clear_keyword_memos()
        reference = container_codes(doc, compiled=False)
        assert [column.dtype for column in compiled] == [column.dtype for column in reference]
        assert [column.tolist() for column in compiled] == [column.tolist() for column in reference]
        assert memo == keywords._KEYWORD_CACHE


class _Columns:
    """The container columns :func:`.keywords.container_codes` reads, generated."""

    def __init__(self, tags: list[str], attributes: list[dict[str, str]], parents: np.ndarray, lengths: np.ndarray):
        self.tags, self.attributes, self.parents, self.lengths = tags, attributes, parents, lengths

    def __len__(self) -> int:
        return len(self.tags)


def test_container_flags_and_keys_on_generated_and_real_pages() -> None:
    """The keyword codes and the structure keys read in one pass give what
    the two references give: the codes, signs and keyword memo of
    ``container_codes`` in Python, and the group bits, key numbers and
    number of keys of ``_python_structure_keys`` over the containers
    holding text (its memo keyed by another spelling of the class and id:
    the bits are the tokens'), on generated containers (odd whitespace,
    case, non-ASCII; empty and missing values) and every 40th page."""
    from types import SimpleNamespace

    from webclean_scrapy.engine.extractors.webclean import features, keywords

    assert keywords._compiled_flags_and_keys is _signals.container_flags_and_keys
    rng = random.Random(21)
    cases: list[Any] = []
    for _ in range(300):
        n = rng.randint(0, 60)
        tags, attributes = random_containers(rng, n)
        parents = np.array([-1 if i == 0 else rng.randrange(i) for i in range(n)], dtype=np.int64)
        lengths = np.array([rng.choice([0, 0, 3, 40, 500]) for _ in range(n)], dtype=np.int64)
        cases.append(_Columns(tags, attributes, parents, lengths))
    for path in sorted(DATA.glob("*/html/*.html.gz"))[::40]:
        cases.append(Document.from_html(gzip.decompress(path.read_bytes())).container_columns)
    for columns in cases:
        doc: Any = SimpleNamespace(container_columns=columns)
        keywords.clear_keyword_memos()
        read = keywords.container_codes_and_keys(
            doc, features.GroupMemo(features._GROUP_MATCHER, features._GROUP_MEMO_SIZE)
        )
        assert read is not None
        codes, signs, own, keys, nk = read
        memo = dict(keywords._KEYWORD_CACHE)
        keywords.clear_keyword_memos()
        expected_codes, expected_signs = keywords.container_codes(doc, compiled=False)
        assert codes.dtype == expected_codes.dtype and signs.dtype == expected_signs.dtype
        assert codes.tolist() == expected_codes.tolist() and signs.tolist() == expected_signs.tolist()
        assert memo == keywords._KEYWORD_CACHE
        held = np.flatnonzero(columns.lengths).astype(np.int32)
        numbering = features.Numbering()
        expected_own = np.zeros(len(columns), dtype=np.uint8)
        expected_keys = np.zeros(len(columns), dtype=np.int32)
        features._python_structure_keys(
            held, columns.tags, columns.attributes, features._GroupMemo(), numbering, expected_own, expected_keys
        )
        assert own.dtype == expected_own.dtype and keys.dtype == expected_keys.dtype
        assert own.tolist() == expected_own.tolist() and keys.tolist() == expected_keys.tolist()
        assert nk == len(numbering)
    mismatched: Any = SimpleNamespace(
        container_columns=_Columns(["div"] * 2, [{}], np.array([-1, 0]), np.array([5, 5]))
    )
    with pytest.raises(ValueError):
        keywords.container_codes_and_keys(mismatched, {})


def test_block_features_are_the_same_read_in_one_pass_or_two() -> None:
    """The block feature rows, the structure keys read with the keyword
    codes or by their own pass: the same bytes."""
    from webclean_scrapy.engine.extractors.webclean import features

    for path in sorted(DATA.glob("*/html/*.html.gz"))[5::40]:
        doc = Document.from_html(gzip.decompress(path.read_bytes()))
        page = features.PageColumns(doc)
        assert page.structure_read is not None or not len(doc.block_columns)
        fused = features.block_features(doc)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(features, "container_codes_and_keys", lambda doc, memo: None)
            assert features.PageColumns(doc).structure_read is None
            separate = features.block_features(doc)
        assert fused.tobytes() == separate.tobytes(), path


def test_depths_on_generated_and_real_trees() -> None:
    """Depths and inherited bits, in one pass and by pointer jumping, on
    generated trees (parents before children) and the datasets' pages; a
    parent after its child is left to the reference."""
    from webclean_scrapy.engine.extractors.webclean import features

    rng = random.Random(16)
    trees = []
    for _ in range(300):
        n = rng.randint(0, 80)
        trees.append(np.array([-1 if i == 0 or rng.random() < 0.05 else rng.randrange(i) for i in range(n)]))
    for path in sorted(DATA.glob("*/html/*.html.gz"))[::40]:
        trees.append(Document.from_html(gzip.decompress(path.read_bytes())).container_columns.parents)
    for parents in trees:
        parents = np.asarray(parents, dtype=np.int64)
        own = np.array([rng.randrange(256) for _ in range(len(parents))], dtype=np.uint8)
        depth, inherited = _signals.depths(parents, own)
        expected = features._python_depths(parents, own)
        assert depth.dtype == expected[0].dtype and inherited.dtype == expected[1].dtype
        assert depth.tolist() == expected[0].tolist() and inherited.tolist() == expected[1].tolist()
    assert _signals.depths(np.array([-1, 2, 0], dtype=np.int64), np.zeros(3, dtype=np.uint8)) is None
    assert features._depths(np.array([-1, 2, 0], dtype=np.int64), np.ones(3, dtype=np.uint8))[0].tolist() == [1, 3, 2]


def test_heading_levels() -> None:
    from webclean_scrapy.engine.extractors.webclean import features

    tags = ["h1", "div", "h6", "H2", "h7", "h3", "", "p", "h2"]
    found = _signals.heading_levels(tags, features._HEADING_LEVELS)
    expected = features._python_heading_levels(tags, features._HEADING_LEVELS)
    assert found.dtype == expected.dtype == np.int8
    assert found.tolist() == expected.tolist() == [1, 0, 6, 0, 0, 3, 0, 0, 2]
    assert _signals.heading_levels([], features._HEADING_LEVELS).tolist() == []


def test_structure_keys_on_generated_and_real_containers() -> None:
    """The block features' per-container group bits and (tag, class) key
    numbers, compiled and in Python, from fresh numberings: the same lists,
    the same numbering (order included) and the same memo entries."""
    from webclean_scrapy.engine.extractors.webclean import features

    assert features.structure_keys is _signals.structure_keys
    rng = random.Random(13)
    cases = [random_containers(rng, rng.randint(0, 60)) for _ in range(300)]
    for path in sorted(DATA.glob("*/html/*.html.gz"))[::40]:
        columns = Document.from_html(gzip.decompress(path.read_bytes())).container_columns
        cases.append((columns.tags, columns.attributes))
    for tags, attributes in cases:
        indexes = np.array(sorted(rng.sample(range(len(tags)), rng.randint(0, len(tags)))), dtype=np.int32)
        results = []
        for function in (_signals.structure_keys, features._python_structure_keys):
            memo, numbering = features._GroupMemo(), features.Numbering()
            own, keys = np.zeros(len(tags), dtype=np.uint8), np.zeros(len(tags), dtype=np.int32)
            function(indexes, tags, attributes, memo, numbering, own, keys)
            results.append((own.tolist(), keys.tolist(), list(numbering.items()), memo))
        assert results[0] == results[1]
    with pytest.raises(IndexError):
        _signals.structure_keys(
            np.array([5], dtype=np.int32),
            ["div"] * 6,
            [{}] * 6,
            {},
            {},
            np.zeros(5, dtype=np.uint8),
            np.zeros(6, dtype=np.int32),
        )
