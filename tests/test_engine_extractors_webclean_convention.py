"""The article-body convention's compiled screens (``webclean/_convention.pyx``)
against the Python tests they leave blocks to (:mod:`webclean.convention`):
every block a rule's test accepts is among a screen's candidates, the
derived word tables hold every word their expressions can match, and the
pass drops the same blocks with the screens as without them."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

from pages import DAILY_PARAGRAPHS, daily_article, sample_page
from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.extractors.webclean import convention as c
from webclean_scrapy.engine.extractors.webclean.keywords import literal_alternatives

SAMPLE_DATA = Path(__file__).resolve().parent / "sample_data"


def compiled_module():
    return pytest.importorskip("webclean_scrapy.engine.extractors.webclean._convention")


def non_space_chars(texts: list[str]) -> np.ndarray:
    """The ``chars`` column of *texts*: their non-whitespace characters."""
    return np.array([sum(not ch.isspace() for ch in text) for text in texts], dtype=np.int64)


def random_texts(pieces: list[str], count: int, seed: int, most: int = 12) -> list[str]:
    rng = np.random.default_rng(seed)
    return ["".join(rng.choice(pieces, int(rng.integers(0, most + 1)))) for _ in range(count)]


# -- the tables the screens read, derived from the expressions ---------------------------


def test_the_credit_word_ends_are_those_of_every_credit_word():
    spelt = [text for text, _, _ in literal_alternatives(c._CREDIT_WORDS)]
    assert len(spelt) == 28 and "fotografía" in spelt and "фото" in spelt
    assert c._CREDIT_WORD_WIDTH == 3
    for word in spelt:
        assert re.fullmatch(c._CREDIT_WORDS, word, re.I), word
        assert word.lower()[:3] in c._CREDIT_PREFIXES and word.lower()[-3:] in c._CREDIT_SUFFIXES, word
    assert all(len(end) == 3 for end in c._CREDIT_PREFIXES | c._CREDIT_SUFFIXES)
    assert "|".join(c._AGENCY_HINTS) == c._AGENCY_HINT.pattern


def test_lower_casing_makes_ascii_only_from_the_characters_the_screens_hand_back():
    """The credit screen reads a tail as ASCII but for these characters, and a stop or a space
    that ends a lower-cased tail as one that ended the tail before."""
    compiled = compiled_module()
    to_ascii, to_stop_or_space = [], []
    for code in range(128, sys.maxunicode + 1):
        lowered = chr(code).lower()
        if any(ord(ch) < 128 for ch in lowered):
            to_ascii.append(code)
        if not chr(code).isspace() and (lowered[-1] in ".!?" or lowered[-1].isspace()):
            to_stop_or_space.append(code)
    assert tuple(to_ascii) == compiled.LOWER_TO_ASCII == (0x130, 0x212A)
    assert to_stop_or_space == []


def test_the_teaser_opening_words_are_the_first_words_of_every_opening():
    # The anchors left out, the openings spell out as literal alternatives of two words or more.
    pattern = c._TEASER_OPENINGS.pattern.replace("^", "").replace(r"\b", "")
    spelt = [text for text, _, _ in literal_alternatives(pattern)]
    assert "more from" in spelt and "d autres articles sur" in spelt and all(" " in text for text in spelt)
    assert {text.split(" ")[0] for text in spelt} == c._TEASER_OPENING_WORDS
    assert {heading.split(" ")[0] for heading in c.TEASER_HEADINGS} <= c._TEASER_FIRST_WORDS


def test_the_caption_name_words_are_the_expression_s_alternatives():
    alternatives = re.sub(r"\(\?!.*\)$", "", c._CAPTION_NAME.pattern).split("|")
    assert tuple(alternatives) == c._CAPTION_NAME_WORDS
    # What the compiled walk's reading of a name assumes of the words ("İ" and the Kelvin sign).
    assert not any(word.endswith("i") or "k" in word for word in c._CAPTION_NAME_WORDS)
    for names in random_texts(["Caption", "CUTLINE", "credit", "card", "-", "_", " ", "İ", "x", "wp"], 3000, 5):
        if c.names_caption(names):
            assert any(word in names.lower() for word in c._CAPTION_NAME_WORDS), names


def test_the_initials_flag_the_first_character_of_each_word():
    flags = c.initials(frozenset({"advert", "ad", "werbung", "広告", ""}))
    assert len(flags) == 128
    assert [chr(code) for code in range(128) if flags[code]] == ["a", "w"]


# -- the caption walk ----------------------------------------------------------------------

NAME_PIECES = ["caption", "CAPTION", "Cutline", "cutlİne", "credit", "CREDİT", "credit-card", "-", " ", "_", "x",
               "CAPTİ", "İ", "\u212a", "photo", "wp", "Crédit"]  # fmt: skip


def test_the_compiled_caption_walk_reads_every_name_the_expression_reads():
    compiled_module()
    rng = np.random.default_rng(31)
    names = random_texts(NAME_PIECES, 400, 37, most=4)
    parts = []
    for i, name in enumerate(names):
        attribute = "class" if i % 2 else "id"
        text = "Sandbags against the market hall doors. " * int(rng.integers(1, 45))
        parts.append(f'<div {attribute}="{name}"><section><p>{text}</p></section></div>')
    doc = Document.from_html("<html><body><article>" + "".join(parts) + "</article></body></html>")
    kept = np.arange(len(doc.block_columns), dtype=np.int64)
    reference = [p for p, holder in enumerate(doc.block_columns.holders.tolist()) if c.in_caption(doc, holder)]
    assert c.caption_positions(doc, kept) == reference
    assert 20 < len(reference) < len(kept) - 20


# -- the credit screen --------------------------------------------------------------------

_CREDIT_SPELT = [text for text, _, _ in literal_alternatives(c._CREDIT_WORDS)]
#: Credit words in three cases, what opens and closes a credit, agencies, prose, and the
#: characters past ASCII that lower-case to ASCII or match an ASCII letter in any case.
CREDIT_PIECES = [
    *_CREDIT_SPELT, *(word.title() for word in _CREDIT_SPELT), *(word.upper() for word in _CREDIT_SPELT),
    "(", ")", ":", "：", "|", "/", " by ", " von ", " de ", "credit ", "Getty Images", "AP Photo", "AFP",
    "Reuters", "Shutterstock", "iStock", "Alamy", "PA Wire", "PA Images", "EPA-EFE", "dpa", "ANP", "ANSA", "EFE",
    "Jane Doe", "the levee rose", "on Tuesday", ".", "!", "?", ",", " ", "  ", "\t", "\u00a0", "\u2003",
    "İ", "\u212a", "ı", "ſ", "é", "Σ", "“", "”", "…", "—", "x",
]  # fmt: skip


def _credit_edges() -> list[str]:
    """Credits and prose around the screen's limits: the 300-, 150-, 200- and 64-character tails."""
    edges = ["", " ", "(", "(  ", ":", ")", "(Photo: AP)", "( Image : GETTY )", "Photo by Jane Doe", "Фото: ТАСС"]
    closings = (" Photograph: Jane Doe/Reuters", " (Photo: AP)", " Getty Images", " AP Photo/Jane Doe", " - dpa")
    for closing in closings:
        for size in (63, 64, 65, 149, 150, 151, 199, 200, 201, 299, 300, 301):
            filler = "The levee held overnight, and the water fell. " * 8
            edges.append(filler[: max(0, size - len(closing))] + closing)
    for size in (63, 64, 65, 199, 200, 201):
        # A stop or a colon just inside or outside a tail.
        edges.append("Credit: Jane Doe" + "x" * size)
        edges.append("Jane Doe. " + "getty images " * (size // 13))
        edges.append("x" * size + ". Getty Images")
    for word in _CREDIT_SPELT:
        for text in (word, word.upper(), f"({word}: X)", f"The levee {word}: Jane Doe", f"A {word} (X)"):
            edges.append(text)
    edges += ["İmage: AP", "PİCTURE: AP", "ımage: AP", "Photoſ: AP", "The levee, ISTOC\u212a", "The levee. İSTOCK"]
    return edges


def test_the_credit_screen_keeps_every_credit_line():
    compiled = compiled_module()
    texts = random_texts(CREDIT_PIECES, 30_000, 7) + _credit_edges()
    chars = non_space_chars(texts)
    kept = np.arange(len(texts), dtype=np.int64)
    candidates = set(c._CREDIT_SCREEN.candidates(texts, kept, chars))
    accepted = {i for i, text in enumerate(texts) if chars[i] <= c.CREDIT_MAX_CHARS and c.credit_line(text)}
    assert accepted <= candidates
    assert len(accepted) > 3000  # the generated lines hold credits of every kind
    # The screen leaves prose alone.
    assert isinstance(c._CREDIT_SCREEN, compiled.CreditScreen)
    assert c._CREDIT_SCREEN.candidates(PROSE, np.arange(len(PROSE), dtype=np.int64), non_space_chars(PROSE)) == []


#: Sentences and headings: nothing a short-line rule drops.
PROSE = [
    *(sentence.strip() + "." for paragraph in DAILY_PARAGRAPHS for sentence in paragraph.split(".") if sentence.strip()),
    "The levee held overnight.", "In the morning, the water fell!", "Photographs of the levee.",
    "Share prices fell by a third on Tuesday.", "On the levee", "The council met: the budget will be set in May.",
]  # fmt: skip


def test_the_credit_screen_reads_kept_blocks_only_and_checks_them():
    texts = ["(Photo: AP)", "The levee held.", "Foto: dpa"]
    chars = non_space_chars(texts)
    assert c._CREDIT_SCREEN.candidates(texts, np.array([2, 1], dtype=np.int64), chars) == [0]
    assert c._CREDIT_SCREEN.candidates(texts, np.array([], dtype=np.int64), chars) == []
    with pytest.raises(IndexError):
        c._CREDIT_SCREEN.candidates(texts, np.array([3], dtype=np.int64), chars)
    with pytest.raises(ValueError):
        c._CREDIT_SCREEN.candidates(texts, np.array([0], dtype=np.int64), chars[:2])


def test_a_credit_screen_takes_only_what_it_can_pack():
    compiled = compiled_module()
    screen = c._CREDIT_SCREEN
    assert screen is not None
    arguments = [300, c._CREDIT_PREFIXES, c._CREDIT_SUFFIXES, 3, c._CREDIT_OPENING.match, 200, 150, 64]
    with pytest.raises(ValueError):
        compiled.CreditScreen(*arguments[:3], 4, *arguments[4:], c._AGENCY_HINTS, c._AGENCY_HINT.search)
    with pytest.raises(ValueError):
        compiled.CreditScreen(*arguments, ("Getty",), c._AGENCY_HINT.search)
    with pytest.raises(ValueError):
        compiled.CreditScreen(*arguments[:1], frozenset({"ph"}), *arguments[2:], ("getty",), None)


# -- the furniture, teaser and advert-label screens ------------------------------------------

FURNITURE_PIECES = [
    *sorted({word for line in c.FURNITURE_LINES for word in line.split(" ")} | c._SHARE_BAR_WORDS),
    "The", "SHARE", "Read", "council", "levee", "x", "1", "_", ":", " ", " ", "\u00a0", "\t", ",", "|", "—", "İ", "é",
]  # fmt: skip


def _screen(texts: list[str], kept: np.ndarray, lengths: np.ndarray | None = None, **rules: bool) -> tuple:
    chars = non_space_chars(texts)
    flags = [rules.get(rule, False) for rule in ("credit", "furniture", "teasers", "labels")]
    screen = c._SCREEN
    assert screen is not None
    return screen.candidates(texts, kept, chars, chars if lengths is None else lengths, *flags)


def test_the_furniture_screen_keeps_every_furniture_line():
    compiled_module()
    lines = [" ".join(line.split(" ")) for line in c.FURNITURE_LINES]
    texts = random_texts(FURNITURE_PIECES, 30_000, 9, most=16) + lines + [line.upper() + "!" for line in lines]
    texts += ["Share: Post Email", "Facebook Twitter Email", "the " * 7, "share " * 12, "share " * 13, "x" * 161]
    texts += ["Advertisement " + "x" * size for size in (140, 145, 146, 150)]
    kept = np.arange(len(texts), dtype=np.int64)
    chars = non_space_chars(texts)
    candidates = set(_screen(texts, kept, furniture=True)[1])
    accepted = {i for i, text in enumerate(texts) if chars[i] <= c.FURNITURE_MAX_CHARS and c.furniture_line(text)}
    assert accepted <= candidates and len(accepted) > 500
    assert _screen(PROSE, np.arange(len(PROSE)), furniture=True)[1] == []


def test_the_teaser_screen_keeps_every_teaser_heading_where_the_rule_looks():
    compiled_module()
    pieces = sorted({word for heading in c.TEASER_HEADINGS for word in heading.split(" ")})
    pieces += sorted(c._TEASER_OPENING_WORDS) + ["from", "Northgate", "the", "x", " ", " ", " ", ":", "İ", "More"]
    texts = random_texts(pieces, 20_000, 13, most=8) + sorted(c.TEASER_HEADINGS) + ["More from Northgate", "x" * 61]
    rng = np.random.default_rng(2)
    lengths = rng.integers(0, 60, len(texts)).astype(np.int64)
    kept = np.sort(rng.permutation(len(texts))[: len(texts) - 500]).astype(np.int64)
    chars = non_space_chars(texts)
    before = np.cumsum(lengths[kept]) - lengths[kept]
    looked_at = (before >= c.TEASERS_AFTER_CHARS) & (chars[kept] <= c.TEASER_HEADING_MAX_CHARS)
    accepted = {p for p in np.flatnonzero(looked_at).tolist() if c.teaser_heading(texts[kept[p]])}
    candidates = set(_screen(texts, kept, lengths, teasers=True)[2])
    assert accepted <= candidates and len(accepted) > 200
    assert _screen(PROSE, np.arange(len(PROSE)), np.full(len(PROSE), 500), teasers=True)[2] == []
    # The first blocks, before the body, are not looked at.
    assert _screen(["Related stories", "Related stories"], np.arange(2), np.array([200, 1]), teasers=True)[2] == [1]


def test_the_advert_labels_are_read_near_the_kept_blocks_only():
    compiled_module()
    pieces = [*sorted(c._AD_LABELS), "Advertisement", "ANZEIGE", "Werbung:", "Ad-free", "x", " ", "İ"]
    texts = random_texts(pieces, 5000, 17, most=3)
    kept = np.arange(0, len(texts), 40, dtype=np.int64)
    chars = non_space_chars(texts)
    reference = c._opening_with(texts, None, chars, c._AD_LABEL_MAX_CHARS, c._AD_LABELS)
    reach = c.AD_BOX_MAX_BLOCKS - 1
    near = [i for i in reference if np.abs(kept - i).min() <= reach]
    assert _screen(texts, kept, labels=True)[3] == near
    assert 0 < len(near) < len(reference)
    assert _screen(texts, kept)[3] == []


# -- the headline's words -------------------------------------------------------------------

WORD_PIECES = ["Flood", "in", "the", "LOWER", "town", " ", "  ", ",", "|", "-", "_", "42", "İstanbul", "ΟΔΟΣ", "Σ",
               "é", "“", "”", "\u212a", "ß", "x" * 40]  # fmt: skip


def test_the_compiled_first_words_are_the_reference_ones():
    compiled = compiled_module()
    texts = random_texts(WORD_PIECES, 5000, 19, most=20) + ["", "   ", "lorem ipsum " * 5000, "ΟΔΟΣ Σ ς"]
    for text in texts:
        for count in (0, 1, 3, 11, 60):
            assert compiled.first_words(text, count) == c.first_words(text, count), (text, count)
    assert c._all_words("Flood in the LOWER town | İstanbul") == c.words("Flood in the LOWER town | İstanbul")


def test_the_compiled_opening_words_read_an_ascii_start_as_the_whole_text():
    """The first word is read in place while the text is ASCII, and from the lower-cased text past it."""
    compiled = compiled_module()
    words = frozenset({"share", "ad", "i", "stanbul", "werbung", "caf"})
    texts = ["Share – now", "Shareé", "Share", " Ad", "Ad\u00e9 x", "İstanbul", "  werbung—", "Café", "caf", "—Share"]
    texts += random_texts(["Share", "Ad", "x", " ", "-", "é", "–", "İ", "Caf", "Werbung"], 3000, 23, most=5)
    chars = non_space_chars(texts)
    expected = c._opening_with(texts, None, chars, 160, words)
    assert compiled.opening_with(texts, None, chars, 160, words, c.initials(words)) == expected
    assert [texts[i] for i in expected[:5]] == ["Share – now", "Share", " Ad", "İstanbul", "  werbung—"]
    with pytest.raises(ValueError):
        compiled.opening_with(texts, None, chars, 160, words, b"\x01" * 127)


# -- the pass, with the screens and without ----------------------------------------------------


def _pages() -> list[str]:
    body = (
        '<figure><img src="/a.jpg"><figcaption>Sandbags at the hall. Photo: Jane Doe/AP</figcaption></figure>'
        "<p>(Image: GETTY)</p><p>Volunteers at the hall. Getty Images</p><p>Advertisement</p>"
        '<div class="ad"><span>Anzeige</span><p>Seed potatoes now in stock.</p></div>'
        "<p>Share: Post Email</p><p>Facebook Twitter Email</p><p>Read more</p>"
        '<p class="CREDIT">Jane Doe</p><div id="Image-Cutline"><p>The levee at dawn.</p></div>'
        '<section><h2>Related stories</h2><ul><li><a href="/1">Bridge to close for repairs</a></li>'
        '<li><a href="/2">Council agrees the budget</a></li></ul></section>'
    )
    pages = [daily_article(body), daily_article(), sample_page("article-over-teaser-cards.html")]
    pages += [path.read_text(encoding="utf-8") for path in sorted(SAMPLE_DATA.glob("*.html"))]
    rng = np.random.default_rng(29)
    for _ in range(20):
        blocks = rng.choice([*random_texts(CREDIT_PIECES + FURNITURE_PIECES, 50, int(rng.integers(1000))),
                             *DAILY_PARAGRAPHS], 40)  # fmt: skip
        pages.append(
            "<html><body><article>" + "".join(f"<p>{text}</p>" for text in blocks) + "</article></body></html>"
        )
    return pages


@pytest.mark.parametrize("options", [{}, {"include_title": True}, {"include_captions": True}, {"article": False}])
def test_the_pass_drops_the_same_blocks_with_its_screens_as_without(monkeypatch, options):
    compiled_module()
    docs = [Document.from_html(html) for html in _pages()]
    kept_sets = [np.arange(len(doc.block_columns), dtype=np.int64) for doc in docs]
    kept_sets += [np.arange(0, len(doc.block_columns), 2, dtype=np.int64) for doc in docs]
    docs = docs + docs

    def run() -> list:
        return [
            (
                c.convention_positions(doc, kept, rules=c.RULES, **options),
                c.convention_drops(doc, kept, rules=c.RULES, **options),
                c.follow_convention(doc, kept, **options),
                {rule: drops(doc, kept).tolist() for rule, drops in RULE_DROPS.items()},
            )
            for doc, kept in zip(docs, kept_sets)
        ]

    screened = run()
    for name in ("_compiled", "_SCREEN", "_CREDIT_SCREEN"):
        monkeypatch.setattr(c, name, None)
    reference = run()
    dropped = 0
    for (positions, masks, (followed, by_rule), alone), (positions_r, masks_r, (followed_r, by_rule_r), alone_r) in zip(
        screened, reference
    ):
        assert positions == positions_r
        assert {rule: mask.tolist() for rule, mask in masks.items()} == {r: m.tolist() for r, m in masks_r.items()}
        assert followed.tolist() == followed_r.tolist()
        assert {r: i.tolist() for r, i in by_rule.items()} == {r: i.tolist() for r, i in by_rule_r.items()}
        assert alone == alone_r
        for rule, found in positions.items():
            assert found == sorted(set(found)) and masks[rule].tolist() == [p in found for p in range(len(masks[rule]))]
        dropped += sum(map(len, positions.values()))
    assert dropped > 50  # the pages hold what every rule drops


RULE_DROPS = {
    "caption": c.caption_drops,
    "credit": c.credit_drops,
    "headline": c.headline_drops,
    "furniture": c.furniture_drops,
    "teasers": c.teaser_drops,
    "byline": c.byline_drops,
}


def test_follow_convention_keeps_what_no_rule_drops_and_names_the_rest():
    doc = Document.from_html(daily_article())
    kept = np.arange(len(doc.block_columns), dtype=np.int64)
    drops = c.convention_drops(doc, kept)
    dropped = np.logical_or.reduce(list(drops.values()))
    assert dropped.any() and not dropped.all()
    followed, by_rule = c.follow_convention(doc, kept)
    assert followed.tolist() == kept[~dropped].tolist() and followed.dtype == kept.dtype
    assert {rule: found.tolist() for rule, found in by_rule.items()} == {
        rule: kept[mask].tolist() for rule, mask in drops.items() if mask.any()
    }
    # A page the convention would empty keeps its blocks.
    only = kept[np.flatnonzero(dropped)[:1]]
    assert c.convention_positions(doc, only) and c.follow_convention(doc, only) == (only, {})
