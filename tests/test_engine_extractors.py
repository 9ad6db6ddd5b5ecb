"""The published methods, pinned on small hand-written pages.

Each test states the paper's rule it checks; numbers in the comments are
computed by hand, not copied from the implementation.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pages import br_page
from webclean_scrapy import Document, ExtractionError, extract, get_extractor
from webclean_scrapy.engine.extractors.density import density_region
from webclean_scrapy.engine.extractors.punctuation import (
    COMMAS,
    FULL_STOPS,
    DivColumns,
    average_score,
    count_chars,
    div_scores,
    nearest_marked,
    score_divs,
    select_div,
)
from webclean_scrapy.engine.extractors.ttr import SourceLine, absolute_derivative, smooth, tag_ratios, tagged_lines


def text_of(name: str, html: str, **options: Any) -> str:
    return extract(html, extractor=name, **options).text


# -- density (Arias, Deschacht & Moens 2009) ---------------------------------


LONG = "L" * 30  # maxL = 30, cutoff = 0.333 * 30 = 9.99
MID = "m" * 12  # >= cutoff


def test_density_positions_count_empty_strings():
    doc = Document.from_html(br_page("a", "", "", "b"))
    assert [b.text for b in doc.blocks] == ["a", "b"]
    assert doc.blocks[1].position - doc.blocks[0].position == 3


def test_density_region_joins_a_long_string_4_away_but_not_5_away():
    # MID is 4 positions left of LONG (joins), the next MID 5 right (does not).
    html = br_page(MID, "", "", "", LONG, "", "", "", "", "far" * 4)
    assert text_of("density", html).splitlines() == [MID, LONG]


def test_density_region_grows_step_by_step():
    # Each MID is 4 from the current boundary, so the region chains over all.
    html = br_page(MID, "", "", "", "x" * 11, "", "", "", LONG)
    assert text_of("density", html).splitlines() == [MID, "x" * 11, LONG]


def test_density_keeps_short_strings_inside_the_region():
    html = br_page("nav", LONG, "ok", MID, "end", "", "", "", "", "", "footer text")
    assert text_of("density", html).splitlines() == [LONG, "ok", MID]


def test_density_cutoff_is_c1_times_longest():
    # cutoff 9.99: 10 characters extend the region, 9 do not.
    assert text_of("density", br_page("t" * 10, LONG)).splitlines() == ["t" * 10, LONG]
    assert text_of("density", br_page("n" * 9, LONG)).splitlines() == [LONG]
    # A higher c1 raises the cutoff above 12.
    assert text_of("density", br_page(MID, LONG), c1=0.5).splitlines() == [LONG]


def test_density_unit_strings_ignores_empty_strings():
    html = br_page(MID, "", "", "", "", "", "", LONG)
    assert text_of("density", html).splitlines() == [LONG]
    assert text_of("density", html, unit="strings").splitlines() == [MID, LONG]


def test_density_empty_page_and_bad_options():
    assert density_region([], []) == (0, -1)
    assert text_of("density", "") == ""
    with pytest.raises(ExtractionError):
        get_extractor("density", c2=-1)
    with pytest.raises(ExtractionError):
        get_extractor("density", unit="words")


# -- ttr (Weninger & Hsu 2008; CETR 2010) ------------------------------------


def test_ttr_smoothing_is_a_truncated_mean_of_radius_2():
    values = np.array([0.0, 0.0, 10.0, 0.0, 0.0, 5.0])
    expected = [10 / 3, 10 / 4, 10 / 5, 15 / 5, 15 / 4, 5 / 3]
    assert smooth(values, 2) == pytest.approx(expected)


def test_ttr_ratio_is_chars_per_tag_or_chars_without_tags():
    lines = [SourceLine("abcd", 2), SourceLine("abc", 0), SourceLine("", 3)]
    assert list(tag_ratios(lines)) == [2.0, 3.0, 0.0]


def test_ttr_absolute_derivative_looks_ahead_alpha_lines():
    values = np.array([0.0, 3.0, 6.0, 9.0, 0.0])
    # |mean(3,6,9) - 0| = 6, |mean(6,9,0) - 3| = 2, |mean(9,0) - 6| = 1.5, |0 - 9| = 9, last 0
    assert list(absolute_derivative(values, 3)) == pytest.approx([6, 2, 1.5, 9, 0])


def test_tagged_lines_clean_the_source():
    html = (
        "<html><head><style>p{}</style>\n"
        "<script>var s = '<p>x</p>';\n</script></head><body>\n"
        "\n"
        "<!-- a remark\n spanning lines -->\n"
        '<p class="a"\n   id="b">Fish &amp; chips, <b>hot</b></p>\n'
        "   \n"
        "<div>one</div><div>two</div>\n"
        "</body></html>"
    )
    lines = tagged_lines(Document.from_html(html))
    assert lines == [
        SourceLine("", 2),  # <html><head> (the style is gone)
        SourceLine("", 2),  # </head><body> (the script and its inner newline are gone)
        SourceLine("Fish & chips, hot", 4),  # the two-line <p> tag counts once
        SourceLine("one two", 4),
        SourceLine("", 2),
    ]


def test_a_long_minified_line_reads_as_a_short_one():
    # One physical line of 20,000 tags (the pieces are joined a few thousand
    # at a time) and over 64 KB of text (its whitespace collapsed without a
    # list of its words): the same line as piece by piece.
    words = [f"w{i}" for i in range(10_000)]
    html = "<html><body>" + "".join(f"<p> {w}\u00a0 &amp;\t</p>" for w in words) + "</body></html>"
    (line,) = tagged_lines(Document.from_html(html))
    assert line.tags == 2 * len(words) + 4
    assert line.text == " ".join(f"{w} &" for w in words)
    assert len(line.text) > 1 << 16


def ratio_lines(ratios: list[int]) -> list[SourceLine]:
    """Lines with the given TTRs (a ratio of r is r characters and one tag; 0 is a bare tag)."""
    return [SourceLine("w" * r, 1) if r else SourceLine("", 1) for r in ratios]


def test_ttr_threshold_is_coefficient_times_standard_deviation():
    lines = ratio_lines([0] * 5 + [50] * 3 + [0] * 5)
    # smoothed: 0 0 0 10 20 30 30 30 20 10 0 0 0 ; mean 150/13, E[x^2] 3700/13,
    # std = sqrt(3700/13 - (150/13)^2) = 12.31
    mask = get_extractor("ttr").content_mask(lines)
    assert list(np.flatnonzero(mask)) == [4, 5, 6, 7, 8]  # > 12.31
    mask = get_extractor("ttr", coefficient=2.0).content_mask(lines)
    assert list(np.flatnonzero(mask)) == [5, 6, 7]  # > 24.62


@pytest.mark.parametrize("clustering", ["kmeans", "em", "farthest_first"])
def test_ttr_clustering_keeps_the_high_ratio_lines(clustering):
    lines = ratio_lines([0] * 8 + [80] * 6 + [0] * 8)
    mask = get_extractor("ttr", clustering=clustering, radius=0).content_mask(lines)
    assert list(np.flatnonzero(mask)) == list(range(8, 14))


def test_ttr_one_cluster_is_all_or_nothing():
    lines = ratio_lines([0] * 8 + [80] * 6 + [0] * 8)
    # One cluster: its mean (21.8) vs the std (36.4): not content.
    assert not get_extractor("ttr", clustering="kmeans", clusters=1, radius=0).content_mask(lines).any()


def test_ttr_prediction_marks_the_origin_cluster_non_content():
    lines = ratio_lines([0] * 8 + [80] * 6 + [0] * 8)
    mask = get_extractor("ttr", clustering="prediction").content_mask(lines)
    assert mask[9:13].all()  # the body of the high block
    assert not mask[:4].any() and not mask[-4:].any()  # far from it


def test_ttr_rejects_bad_options():
    for options in (
        {"clustering": "dbscan"},
        {"clusters": 4},
        {"clusters": 0},
        {"clustering": "prediction", "clusters": 1},
        {"lines": "dom"},
    ):
        with pytest.raises(ExtractionError):
            get_extractor("ttr", **options)


MINIFIED = (
    "<html><body><ul><li><a href='/'>Home</a></li><li><a href='/a'>About</a></li>"
    "<li><a href='/n'>News</a></li><li><a href='/c'>Contact</a></li></ul>"
    "<div><p>" + "The minified article keeps going with plenty of prose. " * 6 + "</p>"
    "<p>" + "A second paragraph that is also long enough to matter here. " * 6 + "</p></div>"
    "<ul><li><a href='/t'>Terms</a></li><li><a href='/p'>Privacy</a></li></ul></body></html>"
)


def test_ttr_structural_lines_split_a_minified_page():
    doc = Document.from_html(MINIFIED)
    assert len(tagged_lines(doc)) == 1
    assert len(tagged_lines(doc, break_at_structural=True)) > 10
    faithful = text_of("ttr", MINIFIED)
    structural = text_of("ttr", MINIFIED, lines="structural")
    assert "Home" in faithful  # one line: all or nothing
    assert "Home" not in structural and "Privacy" not in structural
    assert "minified article" in structural and "second paragraph" in structural


# -- punctuation (Posch) -----------------------------------------------------


def test_punctuation_counts_cjk_marks():
    assert count_chars("一，二、三。好！吗？", COMMAS) == 2
    assert count_chars("一，二、三。好！吗？", FULL_STOPS) == 3


def test_punctuation_score_worked_example():
    doc = Document.from_html(
        "<div>Alpha, beta, gamma and delta. See <a href='x'>the, docs.</a>"
        "<p>Inner, paragraph</p><div>Nested, not counted.</div></div>"
    )
    divs = score_divs(doc)
    # Direct text (the <p> has no DIV of its own, the nested DIV does):
    # "Alpha, beta, gamma and delta. See the, docs." + "Inner, paragraph"
    assert divs.commas[0] == 4  # CS
    assert divs.chars[0] == 37 + 15  # CL, non-whitespace characters
    assert divs.anchor_chars[0] == 9  # ACL: "the," + "docs."
    assert divs.anchor_punctuation[0] == 2  # ACFL: "," and "."
    assert divs.scores[0] == pytest.approx(4**3 * (52 / 9) / 2**2)  # 92.44
    # The nested DIV: its own text, its parent the outer DIV.
    assert (divs.commas[1], divs.chars[1], divs.parents.tolist()) == (1, 18, [-1, 0])


def test_punctuation_zero_guards_count_as_one():
    doc = Document.from_html("<div>One, two, three</div><div>No commas at all</div>")
    divs = score_divs(doc)
    assert (divs.anchor_chars[0], divs.anchor_punctuation[0]) == (0, 0)
    assert divs.scores.tolist() == [2**3 * 13, 0]  # CS^3 * CL / 1 / 1^2; no commas


def prose(n: int, word: str = "word") -> str:
    return " ".join(f"{word}, and more words." for _ in range(n))


def test_punctuation_selects_the_best_div_when_its_parent_adds_nothing():
    html = (
        "<div id='page'><div id='main'><div id='article'>" + prose(8) + "</div></div>"
        "<div id='side'>" + prose(1, "aside") + "</div></div>"
    )
    doc = Document.from_html(html)
    divs = score_divs(doc)
    chosen = select_div(divs)
    assert chosen is not None and doc.element(int(divs.containers[chosen])).get("id") == "article"
    assert "aside" not in text_of("punctuation", html)


def test_punctuation_parent_check_climbs_to_cover_sibling_divs():
    html = (
        "<div id='page'><ul><li><a href='/'>Home, sweet.</a></li></ul>"
        "<div id='story'><div id='part1'>" + prose(8, "first") + "</div>"
        "<div id='part2'>" + prose(6, "second") + "</div></div>"
        "<div id='foot'>Copyright. <a href='/t'>Terms, and. Privacy.</a></div></div>"
    )
    doc = Document.from_html(html)
    divs = score_divs(doc)
    by_id = {doc.element(container).get("id"): div for div, container in enumerate(divs.containers.tolist())}
    score = divs.scores.__getitem__
    average = average_score(divs.scores)
    assert average == pytest.approx(divs.scores.mean())
    assert score(by_id["part1"]) > score(by_id["part2"]) > average > score(by_id["foot"])
    assert select_div(divs) == by_id["story"]  # part2, a sibling above average, pulls the choice up one level
    text = text_of("punctuation", html)
    assert "first," in text and "second," in text and "Copyright" not in text and "Home" not in text


def test_punctuation_falls_back_to_density():
    no_divs = br_page("nav", LONG, "ok", MID)
    assert text_of("punctuation", no_divs) == text_of("density", no_divs) == "\n".join([LONG, "ok", MID])
    no_commas = "<div>" + "<br>".join(["nav", LONG, MID]) + "</div>"
    assert text_of("punctuation", no_commas) == text_of("density", no_commas)
    assert text_of("punctuation", no_commas, fallback="baseline") == "\n".join(["nav", LONG, MID])
    with pytest.raises(ExtractionError):
        get_extractor("punctuation", fallback="punctuation")


def test_punctuation_anchor_punctuation_skips_hidden_and_nested_blocks():
    doc = Document.from_html(
        "<div>Lead, text <a href='a'>one, two.</a> more, <span hidden><a>x.</a></span>"
        "<p>para <a href='b'>three.</a></p> tail <a href='c'>four</a></div>"
    )
    divs = score_divs(doc)
    assert divs.anchor_punctuation.tolist() == [3]  # ",", "." in the first link, "." in the <p> link


def _naive_nearest_marked(parents: list[int], marked: list[bool]) -> list[int]:
    out = []
    for node in range(len(parents)):
        while node >= 0 and not marked[node]:
            node = parents[node]
        out.append(node)
    return out


@pytest.mark.parametrize("seed", range(20))
def test_nearest_marked_ancestor_by_pointer_doubling(seed):
    rng = np.random.default_rng(seed)
    size = int(rng.integers(1, 400))
    # Parents before children, several roots, chains as deep as the tree allows.
    parents = np.array(
        [-1] + [int(rng.integers(-1, node)) if rng.random() < 0.5 else node - 1 for node in range(1, size)]
    )
    marked = rng.random(size) < rng.random()
    assert nearest_marked(parents, marked).tolist() == _naive_nearest_marked(parents.tolist(), marked.tolist())


def test_nearest_marked_on_a_small_tree():
    #  0 ─ 1* ─ 2 ─ 3        (* marked)
    #        └ 4*
    #  5 ─ 6
    parents = np.array([-1, 0, 1, 2, 1, -1, 5])
    marked = np.array([False, True, False, False, True, False, False])
    assert nearest_marked(parents, marked).tolist() == [-1, 1, 1, 1, 4, -1, -1]


def _naive_select(parents: list[int], scores: list[float]) -> int:
    """The parent check as first written: selected DIVs counted per subtree, bottom-up."""
    average = sum(scores) / len(scores)
    below = [int(score > average) for score in scores]
    for div in reversed(range(len(parents))):
        if parents[div] >= 0:
            below[parents[div]] += below[div]
    current = max(range(len(scores)), key=scores.__getitem__)
    while parents[current] >= 0 and below[parents[current]] > below[current]:
        current = parents[current]
    return current


@pytest.mark.parametrize("seed", range(30))
def test_parent_check_in_one_pass_agrees_with_subtree_counts(seed):
    rng = np.random.default_rng(seed)
    size = int(rng.integers(1, 300))
    parents = np.array([-1] + [int(rng.integers(-1, div)) for div in range(1, size)])
    scores = np.where(rng.random(size) < 0.6, 0.0, rng.integers(1, 1000, size) * 1.0)
    scores[int(rng.integers(size))] = 2000.0
    none = np.zeros(size, dtype=np.int64)
    divs = DivColumns(
        containers=np.arange(size),
        parents=parents,
        first_blocks=none,
        last_blocks=none,
        commas=none,
        chars=none,
        anchor_chars=none,
        anchor_punctuation=none,
        scores=scores,
        block_divs=none,
    )
    assert select_div(divs) == _naive_select(parents.tolist(), scores.tolist())


def test_punctuation_score_is_exact_past_the_int64_cube():
    # 3,000,000 commas: their cube passes int64, yet the score is the
    # definition's, the exact integer rounded once.
    commas = np.array([3_000_000, 2_097_151, 12], dtype=np.int64)
    chars = np.array([9_000_001, 7_000_003, 40], dtype=np.int64)
    anchor_chars = np.array([0, 7, 3], dtype=np.int64)
    anchor_punctuation = np.array([5, 0, 1], dtype=np.int64)
    expected = [
        c**3 * (length / max(linked, 1)) / max(marks, 1) ** 2
        for c, length, linked, marks in zip(
            commas.tolist(), chars.tolist(), anchor_chars.tolist(), anchor_punctuation.tolist()
        )
    ]
    assert div_scores(commas, chars, anchor_chars, anchor_punctuation).tolist() == expected


# -- all methods on a realistic page -----------------------------------------

ARTICLE = [
    "The city council approved the new cycling plan on Tuesday, after a debate that lasted "
    "almost four hours and drew hundreds of residents to the town hall.",
    "Under the plan, twelve kilometres of protected lanes will be built over the next two years, "
    "connecting the railway station, the university and the old harbour district.",
    "Supporters said the lanes would make streets safer for children, while shop owners worried "
    "about losing parking spaces, deliveries and, in their words, passing trade.",
    "The mayor, who cast the deciding vote, promised a review after the first year, adding that "
    "the council would publish monthly figures on traffic, accidents and air quality.",
]

REALISTIC = (
    """<!DOCTYPE html>
<html lang="en">
<head>
  <title>Council approves cycling plan</title>
  <style>body { font-family: sans-serif; }</style>
  <script>window.analytics = {"page": "article", "id": 123};</script>
</head>
<body>
  <div id="header">
    <ul class="nav">
      <li><a href="/">Home</a></li>
      <li><a href="/news">News</a></li>
      <li><a href="/sport">Sport</a></li>
      <li><a href="/weather">Weather</a></li>
      <li><a href="/contact">Contact</a></li>
    </ul>
  </div>
  <div id="content">
    <div class="article">
      <h1>Council approves cycling plan</h1>
"""
    + "".join(f"      <p>{p}</p>\n" for p in ARTICLE)
    + """    </div>
  </div>
  <div id="footer">
    <ul>
      <li><a href="/about">About us</a></li>
      <li><a href="/privacy">Privacy policy</a></li>
      <li><a href="/terms">Terms of use</a></li>
    </ul>
    <p>Copyright 2024 Example News Ltd.</p>
  </div>
</body>
</html>
"""
)


@pytest.mark.parametrize(
    "name,options",
    [
        ("density", {}),
        ("density", {"unit": "strings"}),
        ("ttr", {}),
        ("ttr", {"lines": "structural"}),
        ("ttr", {"clustering": "kmeans"}),
        ("ttr", {"clustering": "em"}),
        ("ttr", {"clustering": "farthest_first"}),
        ("ttr", {"clustering": "prediction"}),
        ("punctuation", {}),
    ],
)
def test_methods_keep_the_article_and_drop_the_footer(name, options):
    text = text_of(name, REALISTIC, **options)
    for paragraph in ARTICLE:
        assert paragraph in text
    assert "Copyright" not in text and "Privacy policy" not in text
    assert "window.analytics" not in text and "font-family" not in text


@pytest.mark.parametrize(
    "name, repeated",
    [
        ("density", "a, b.\na, b.\na, b."),
        ("ttr", "a, b. a, b. a, b."),
        ("punctuation", "a, b."),
    ],
)
def test_methods_on_empty_and_odd_input(name, repeated):
    for html in ("", "   ", "<html></html>"):
        assert text_of(name, html) == ""
    assert text_of(name, "plain text, no tags.") == "plain text, no tags."
    assert text_of(name, "<div>a, b.</div>" * 3) == repeated
    assert text_of(name, "<" * 1000) == "<" * 1000  # not a tag: text
