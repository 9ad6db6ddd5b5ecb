"""The flagship ``webclean`` extractor on small hand-written pages."""

from __future__ import annotations

import pytest

from webclean_scrapy import extract
from webclean_scrapy.document import Document
from webclean_scrapy.errors import ExtractionError
from webclean_scrapy.extractors import get_extractor, resolve_extractor_class
from webclean_scrapy.extractors import webclean

PARAGRAPHS = [
    "The river flooded the lower town on Tuesday night, and by morning the water had reached the steps of the old "
    "market hall, where volunteers were stacking sandbags against the doors.",
    "Officials said the levee, built in 1962 and repaired twice since, had held for most of its length, but a "
    "section near the railway bridge gave way shortly after midnight, releasing water into three streets.",
    "Residents described a slow, quiet rise rather than a wave. Many had time to move cars and furniture upstairs, "
    "although several shops on the main street lost their entire stock, according to the chamber of commerce.",
    "The regional government has promised an inquiry into the maintenance of the levee, and engineers are expected "
    "to inspect the damaged section later this week, once the water has fallen below the warning level.",
]

NAV = ["Home", "World", "Politics", "Business", "Technology", "Science", "Sport", "Weather"]
RELATED = ["Storm season starts early this year", "Ten tips for protecting your basement",
           "Why insurance premiums keep rising", "Mayor announces new budget"]


def article_page(body: str = "", extra_head: str = "") -> str:
    nav = "".join(f'<li><a href="/{w.lower()}">{w}</a></li>' for w in NAV)
    related = "".join(f'<li><a href="/r{i}">{t}</a></li>' for i, t in enumerate(RELATED))
    paragraphs = "".join(f"<p>{p}</p>" for p in PARAGRAPHS)
    return f"""<!DOCTYPE html><html lang="en"><head><title>Flood in the lower town</title>
    <style>.x {{ color: red; }} body {{ margin: 0 }}</style>{extra_head}
    <script>var tracking = {{"id": 42}}; function track() {{ return 1; }}</script></head>
    <body>
      <header class="site-header"><a href="/">Daily Example</a><nav class="main-nav"><ul>{nav}</ul></nav></header>
      <div class="cookie-banner">We use cookies to improve your experience. <a href="/ok">Accept all</a></div>
      <main><article class="article">
        <h1>Flood in the lower town</h1>
        <div class="byline">By Jane Doe</div>
        {paragraphs}
        {body}
        <div class="share-tools"><a href="/fb">Share on Facebook</a> <a href="/tw">Share on Twitter</a></div>
      </article>
      <aside class="sidebar"><h3>Related stories</h3><ul>{related}</ul>
        <div class="ad-slot">Advertisement</div></aside>
      <section id="comments" class="comments"><h3>3 comments</h3>
        <div class="comment"><p>First! <a href="/u/bob">bob</a></p></div>
        <div class="comment"><p>Great article, thanks for sharing. <a href="/u/al">al</a></p></div>
      </section></main>
      <footer class="site-footer"><p>Copyright 2024 Daily Example. All rights reserved.</p>
        <ul><li><a href="/about">About us</a></li><li><a href="/privacy">Privacy policy</a></li>
        <li><a href="/terms">Terms of use</a></li><li><a href="/contact">Contact</a></li></ul></footer>
    </body></html>"""


def lines(html: str | bytes) -> list[str]:
    return extract(html, extractor="webclean").text.splitlines()


def test_is_the_default_extractor():
    assert resolve_extractor_class("default") is webclean.WebcleanExtractor
    assert extract(article_page()).extractor == "webclean"


def test_article_kept_and_boilerplate_removed():
    result = extract(article_page(), extractor="webclean")
    text = result.text
    for paragraph in PARAGRAPHS:
        assert paragraph in text.splitlines()
    for chrome in ["Politics", "Accept all", "Share on Facebook", "Advertisement", "Privacy policy",
                   "Copyright 2024", "Great article", *RELATED]:
        assert chrome not in text, chrome
    assert result.title == "Flood in the lower town"


def test_no_script_or_css_leftovers():
    text = extract(article_page(), extractor="webclean").text
    assert "tracking" not in text and "function" not in text and "color" not in text


def test_headings_and_list_items_on_their_own_lines():
    body = """<h2>What happens next</h2>
    <p>The inquiry will look at three questions, each of which the council must answer in public before the end
    of the year, according to the terms of reference published on Wednesday.</p>
    <ul><li>Who was responsible for inspecting the levee since the last repair in 2011?</li>
    <li>Whether the warning sirens worked as designed, and why some streets did not hear them?</li>
    <li>How the emergency budget for the clean-up will be shared between the town and the region?</li></ul>"""
    got = lines(article_page(body))
    assert "What happens next" in got
    assert "Who was responsible for inspecting the levee since the last repair in 2011?" in got
    assert "How the emergency budget for the clean-up will be shared between the town and the region?" in got


def test_table_cells_kept():
    body = """<p>The table below lists the water levels measured at the three gauges along the river during the
    night, as published by the regional water authority on its website the next morning.</p>
    <table><tr><th>Gauge station</th><th>Peak level</th></tr>
    <tr><td>Railway bridge north gauge</td><td>4.82 metres above normal</td></tr>
    <tr><td>Market hall south gauge</td><td>3.95 metres above normal</td></tr></table>"""
    text = extract(article_page(body), extractor="webclean").text
    assert "Railway bridge north gauge" in text
    assert "4.82 metres above normal" in text


def test_no_duplicated_blocks():
    caption = "The flooded market hall seen from the bridge (Photo: J. Doe)"
    repeated = f"<figure><figcaption>{caption}</figcaption></figure><p>{PARAGRAPHS[1]}</p>" * 3
    got = lines(article_page(repeated))
    assert got.count(caption) <= 1
    assert len(got) == len(set(got)) or all(len(line) >= 100 for line in got if got.count(line) > 1)
    strict = get_extractor("webclean", deduplicate=0).extract_text(Document.from_html(article_page(repeated)))
    assert PARAGRAPHS[1] in strict.splitlines()
    assert len(strict.splitlines()) == len(set(strict.splitlines()))


def test_cjk_article_kept():
    sentences = [
        "昨夜の大雨で川が氾濫し、下町の市場の前まで水が迫った。住民たちは朝まで土のうを積み続けた。",
        "市の担当者によると、一九六二年に造られた堤防の大部分は持ちこたえたが、鉄橋の近くの一部が崩れたという。",
        "多くの住民は車や家具を二階へ運ぶ時間があったが、商店街のいくつかの店は在庫をすべて失った。",
        "県は堤防の管理について調査を行うと発表し、技術者が今週中に損傷した部分を点検する予定である。",
    ]
    nav = "".join(f'<li><a href="/{i}">{w}</a></li>' for i, w in enumerate(["ホーム", "ニュース", "経済", "スポーツ"]))
    html = f"""<html lang="ja"><head><meta charset="utf-8"><title>下町で洪水</title></head><body>
      <nav><ul>{nav}</ul></nav>
      <article><h1>下町で洪水</h1>{''.join(f'<p>{s}</p>' for s in sentences)}</article>
      <footer><a href="/terms">利用規約</a> <a href="/privacy">プライバシー</a></footer></body></html>"""
    result = extract(html.encode("shift_jis", "replace"), extractor="webclean", encoding="shift_jis")
    for sentence in sentences:
        assert sentence in result.text
    assert "利用規約" not in result.text
    assert result.language == "ja"


@pytest.mark.parametrize("html", [b"", b"   ", "", "<html></html>", "<html><body><div></div></body></html>",
                                  "<p", "<<<>>>", "<html><body><p>unclosed <b>bold <i>text"])
def test_empty_or_broken_input_gives_clean_result(html):
    result = extract(html, extractor="webclean")
    assert isinstance(result.text, str)
    assert result.extractor == "webclean"


def test_deeply_nested_input_does_not_crash():
    html = "<div>" * 2000 + "<p>" + PARAGRAPHS[0] + "</p>" + "</div>" * 2000
    assert PARAGRAPHS[0] in extract(html, extractor="webclean").text


def test_threshold_option_trades_recall():
    page = article_page()
    everything = get_extractor("webclean", threshold=0.0).extract_text(Document.from_html(page))
    nothing = get_extractor("webclean", threshold=1.01).extract_text(Document.from_html(page))
    assert "Privacy policy" in everything and nothing == ""
    with pytest.raises(ExtractionError):
        get_extractor("webclean", thresold=0.5)


def test_fast_scoring_matches_the_training_features():
    """The run-time scorer folds container features into one number per
    container; it must equal the dot product of the rows the model was fitted on."""
    doc = Document.from_html(article_page())
    weights = webclean.load_model()["block_weights"]
    rows = webclean.block_features(doc)
    assert len(rows) == len(doc.blocks) and len(rows[0]) == len(webclean.BLOCK_FEATURES)
    assert webclean._block_probabilities(doc, weights) == pytest.approx(webclean._score(rows, weights), abs=1e-9)
    context = webclean.context_features(doc, webclean._block_probabilities(doc, weights))
    assert len(context) == len(webclean.CONTEXT_FEATURES)
    rows = webclean.as_rows(context, len(doc.blocks))
    assert len(rows) == len(doc.blocks) and all(len(row) == len(webclean.CONTEXT_FEATURES) for row in rows)


@pytest.mark.parametrize("n", [0, 1, 2, 5, 12])
@pytest.mark.parametrize("radius", [1, 3, 8])
def test_window_means_match_brute_force(n, radius):
    from itertools import accumulate

    chars = [(7 * i) % 11 + 1 for i in range(n)]
    weighted = [c * ((3 * i) % 5) / 4 for i, c in enumerate(chars)]
    got = webclean._window_means(weighted, [0.0, *accumulate(weighted)], [0.0, *accumulate(chars)], chars, radius)
    expected = []
    for i in range(n):
        lo, hi = max(0, i - radius), min(n, i + radius + 1)
        mass = sum(chars[lo:hi]) - chars[i]
        expected.append((sum(weighted[lo:hi]) - weighted[i]) / mass if mass > 0 else 0.5)
    assert got == pytest.approx(expected)


def test_reader_comments_dropped_unless_asked_for():
    thread = "".join(
        f'<li class="comment-entry"><div class="comment-meta">{name} wrote:</div>'
        f'<div class="comment-body"><p>{text}</p></div></li>'
        for name, text in [
            ("Martha", "I live on the main street and the water came up much faster than the article says, "
                       "we lost the whole ground floor of the shop within an hour of the first warning."),
            ("Tom", "The levee has been a problem for years, everyone in the lower town knew it, and the council "
                    "kept postponing the repairs because the budget was spent on the new ring road instead."),
        ])
    page = article_page(f'</article><section class="comments-area"><h3>2 comments</h3><ol>{thread}</ol></section><article>')
    default = lines(page)
    assert PARAGRAPHS[0] in default
    assert not any("ground floor of the shop" in line or "ring road" in line for line in default)
    kept = extract(page, extractor="webclean", comments=True).text
    assert "ground floor of the shop" in kept and PARAGRAPHS[0] in kept


def test_comment_named_wrapper_holding_the_article_is_not_a_thread():
    # Some sites name the whole page or article wrapper after its comment state.
    page = article_page().replace('<main><article class="article">',
                                  '<main class="comments-open"><article class="article has-comments">')
    got = lines(page)
    for paragraph in PARAGRAPHS:
        assert paragraph in got
