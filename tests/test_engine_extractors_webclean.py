"""The flagship ``webclean`` extractor on small hand-written pages."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pages import DAILY_NAV, DAILY_PARAGRAPHS, DAILY_RELATED, daily_article, sample_page
from webclean_scrapy import extract
from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.extractors import get_extractor, resolve_extractor_class, webclean
from webclean_scrapy.engine.extractors.webclean import convention
from webclean_scrapy.engine.page_type import PAGE_TYPES
from webclean_scrapy.engine.trace import Trace
from webclean_scrapy.errors import ExtractionError


def lines(html: str | bytes) -> list[str]:
    return extract(html, extractor="webclean").text.splitlines()


def test_is_the_default_extractor():
    assert resolve_extractor_class("default") is webclean.WebcleanExtractor
    assert extract(daily_article()).extractor == "webclean"


def test_article_kept_and_boilerplate_removed():
    result = extract(daily_article(), extractor="webclean")
    text = result.text
    for paragraph in DAILY_PARAGRAPHS:
        assert paragraph in text.splitlines()
    for chrome in [
        "Politics",
        "Accept all",
        "Share on Facebook",
        "Advertisement",
        "Privacy policy",
        "Copyright 2024",
        "Great article",
        *DAILY_RELATED,
    ]:
        assert chrome not in text, chrome
    assert result.title == "Flood in the lower town"


def test_no_script_or_css_leftovers():
    text = extract(daily_article(), extractor="webclean").text
    assert "tracking" not in text and "function" not in text and "color" not in text


def test_headings_and_list_items_on_their_own_lines():
    body = """<h2>What happens next</h2>
    <p>The inquiry will look at three questions, each of which the council must answer in public before the end
    of the year, according to the terms of reference published on Wednesday.</p>
    <ul><li>Who was responsible for inspecting the levee since the last repair in 2011?</li>
    <li>Whether the warning sirens worked as designed, and why some streets did not hear them?</li>
    <li>How the emergency budget for the clean-up will be shared between the town and the region?</li></ul>"""
    got = lines(daily_article(body))
    assert "What happens next" in got
    assert "Who was responsible for inspecting the levee since the last repair in 2011?" in got
    assert "How the emergency budget for the clean-up will be shared between the town and the region?" in got


def test_table_cells_kept():
    body = """<p>The table below lists the water levels measured at the three gauges along the river during the
    night, as published by the regional water authority on its website the next morning.</p>
    <table><tr><th>Gauge station</th><th>Peak level</th></tr>
    <tr><td>Railway bridge north gauge</td><td>4.82 metres above normal</td></tr>
    <tr><td>Market hall south gauge</td><td>3.95 metres above normal</td></tr></table>"""
    text = extract(daily_article(body), extractor="webclean").text
    assert "Railway bridge north gauge" in text
    assert "4.82 metres above normal" in text


def test_no_duplicated_blocks():
    caption = "The flooded market hall seen from the bridge (Photo: J. Doe)"
    repeated = f"<figure><figcaption>{caption}</figcaption></figure><p>{DAILY_PARAGRAPHS[1]}</p>" * 3
    got = lines(daily_article(repeated))
    assert got.count(caption) <= 1
    assert len(got) == len(set(got)) or all(len(line) >= 100 for line in got if got.count(line) > 1)
    strict = get_extractor("webclean", deduplicate=0).extract_text(Document.from_html(daily_article(repeated)))
    assert DAILY_PARAGRAPHS[1] in strict.splitlines()
    assert len(strict.splitlines()) == len(set(strict.splitlines()))


def test_repeats_follow_the_page_types_rule():
    """By default the repeat rule is the one shipped for the page's
    predicted type: a long paragraph shown twice stays twice where the rule
    is :data:`DEDUPLICATE_BELOW` and once where it is ``0``."""
    model = webclean.load_model()
    assert set(model.deduplicate_by_page_type) == set(PAGE_TYPES)
    assert model.deduplicate_for("article") == webclean.DEDUPLICATE_BELOW
    quote = (
        "The mayor said that the town would rebuild the levee before the winter, whatever the inquiry finds, "
        "and that the shops on the main street would get help with their losses."
    )
    page = daily_article(f"<p>{quote}</p><p>{DAILY_PARAGRAPHS[2]}</p><p>{quote}</p>")
    result = extract(page, extractor="webclean")
    rule = model.deduplicate_for(result.page_type)
    assert result.text == extract(page, extractor="webclean", deduplicate=rule).text
    copies = {d: extract(page, extractor="webclean", deduplicate=d).text.count(quote) for d in (-1, 0, 100)}
    assert copies == {-1: 2, 0: 1, 100: 2}


def test_a_tables_repeated_cells_are_kept():
    """A table's repeated values ("Optional" down a column) are its data,
    not a template's chrome: no repeat rule drops a table cell, while the
    same short text repeated outside the table still goes."""
    rows = "".join(
        f"<tr><td>{name}</td><td>String</td><td>Optional</td></tr>"
        for name in ("gauge_id", "station_name", "river_name", "peak_level")
    )
    body = f"""<p>{DAILY_PARAGRAPHS[0]}</p><table><tr><th>Field</th><th>Type</th><th>Use</th></tr>{rows}</table>
    <p>Optional</p><p>Optional</p>"""
    doc = Document.from_html(daily_article(body))
    cells = webclean.table_cells(doc)
    texts = doc.block_columns.texts
    assert [texts[i] for i in cells.nonzero()[0]].count("Optional") == 4
    assert texts.count("Optional") == 6
    # The training script reads the same mask from the block feature.
    k_td = webclean.block_features(doc)[:, webclean.BLOCK_FEATURES.index("k_td")]
    assert ((k_td > 0) == cells).all()
    for rule in (0, 100):
        kept = webclean.content_indexes(doc, threshold=0.0, deduplicate=rule)
        kept_texts = [texts[i] for i in kept]
        assert kept_texts.count("String") == 4
        # The four cells; the two copies outside the table repeat a kept text.
        assert kept_texts.count("Optional") == 4
    none = webclean.content_indexes(doc, threshold=0.0, deduplicate=-1)
    assert [texts[i] for i in none].count("Optional") == 6
    # The selection asks only about the blocks whose text repeats.
    repeated = np.array([texts.count(text) > 1 for text in texts])
    assert (webclean.table_cells(doc, among=repeated) == cells & repeated).all()
    assert not webclean.table_cells(doc, among=np.zeros(len(texts), dtype=bool)).any()
    blocks = doc.block_columns
    for rule in (-1, 0, 5, 100):
        chosen = [
            webclean.select_blocks(
                texts, blocks.chars, blocks.anchor_chars, np.ones(len(texts)), 0.5, rule, repeatable=cells, **given
            ).tolist()
            for given in ({}, {"repeated": repeated})
        ]
        assert chosen[0] == chosen[1]
        assert [texts[i] for i in chosen[0]].count("Optional") == (
            4 if rule in (0, 100) else 6
        )  # "Optional" is 8 characters


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
      <article><h1>下町で洪水</h1>{"".join(f"<p>{s}</p>" for s in sentences)}</article>
      <footer><a href="/terms">利用規約</a> <a href="/privacy">プライバシー</a></footer></body></html>"""
    result = extract(html.encode("shift_jis", "replace"), extractor="webclean", encoding="shift_jis")
    for sentence in sentences:
        assert sentence in result.text
    assert "利用規約" not in result.text
    assert result.language == "ja"


ARABIC_STORY = (
    "غمرت مياه الأمطار الغزيرة شوارع المدينة القديمة ليلة أمس، ووصلت إلى أبواب السوق الكبير؛ وعمل "
    "المتطوعون حتى الصباح لوضع أكياس الرمل أمام المحلات.",
    "هل صمد السد الذي بني عام ١٩٦٢؟ قال مسؤولو البلدية إن معظمه صمد، لكن جزءا قريبا من الجسر الحديدي "
    "انهار، وإن المهندسين سيفحصونه هذا الأسبوع.",
    "تمكن كثير من السكان من نقل سياراتهم وأثاثهم إلى الطوابق العليا، لكن عددا من المتاجر في الشارع "
    "الرئيسي فقد كل بضاعته.",
    "وأعلنت المحافظة أنها ستحقق في صيانة السدود، وأن التعويضات ستصرف للمتضررين خلال الشهر المقبل.",
)
AMHARIC_STORY = (
    "ትናንት ማታ የጣለው ከባድ ዝናብ የከተማዋን አሮጌ መንገዶች አጥለቀለቀ። በጎ ፈቃደኞች እስከ ጠዋት ድረስ የአሸዋ ከረጢቶችን አስቀመጡ።",
    "የማዘጋጃ ቤቱ ባለሥልጣናት እንዳሉት አብዛኛው ግድብ ጸንቶ ቆሟል፣ ነገር ግን ከብረት ድልድዩ አጠገብ ያለው ክፍል ፈርሷል። መሐንዲሶች በዚህ ሳምንት ይመረምሩታል።",
    "ብዙ ነዋሪዎች መኪኖቻቸውንና የቤት ዕቃዎቻቸውን ወደ ላይኛው ፎቅ ማንሳት ችለዋል፤ ሆኖም በዋናው መንገድ ላይ ያሉ አንዳንድ ሱቆች ሁሉንም ዕቃቸውን አጥተዋል።",
    "ክልሉ የግድቦቹን ጥገና እንደሚመረምር አስታውቋል። ካሳው በሚቀጥለው ወር ይከፈላል።",
)


@pytest.mark.parametrize(
    ("language", "direction", "paragraphs", "menu", "terms"),
    [
        ("ar", "rtl", ARABIC_STORY, ("الرئيسية", "أخبار", "اقتصاد", "رياضة"), "شروط الاستخدام"),
        ("am", "ltr", AMHARIC_STORY, ("መነሻ", "ዜና", "ኢኮኖሚ", "ስፖርት"), "የአጠቃቀም ውል"),
    ],
)
def test_article_in_a_script_of_its_own_kept(language, direction, paragraphs, menu, terms):
    """An Arabic and an Amharic news story (their own question marks,
    commas and full stops) in a plain ``<div>``, between a menu, a sidebar
    of links and a footer: the story is kept, the chrome is not."""
    links = "".join(f'<li><a href="/{i}">{word}</a></li>' for i, word in enumerate(menu))
    sidebar = "".join(f'<li><a href="/story/{i}">{word} {i}</a></li>' for i, word in enumerate(menu * 3))
    html = f"""<html lang="{language}" dir="{direction}"><head><meta charset="utf-8"><title>{menu[1]}</title></head>
      <body><header><ul class="menu">{links}</ul></header>
      <div class="main"><h1>{paragraphs[0][:30]}</h1>{"".join(f"<p>{p}</p>" for p in paragraphs)}</div>
      <div class="sidebar"><ul>{sidebar}</ul></div>
      <footer><a href="/terms">{terms}</a></footer></body></html>"""
    result = extract(html, extractor="webclean")
    for paragraph in paragraphs:
        assert paragraph in result.text
    assert terms not in result.text and menu[2] not in result.text
    assert result.detected_language == language


@pytest.mark.parametrize(
    "html",
    [
        b"",
        b"   ",
        "",
        "<html></html>",
        "<html><body><div></div></body></html>",
        "<p",
        "<<<>>>",
        "<html><body><p>unclosed <b>bold <i>text",
    ],
)
def test_empty_or_broken_input_gives_clean_result(html):
    result = extract(html, extractor="webclean")
    assert isinstance(result.text, str)
    assert result.extractor == "webclean"


def test_deeply_nested_input_does_not_crash():
    html = "<div>" * 2000 + "<p>" + DAILY_PARAGRAPHS[0] + "</p>" + "</div>" * 2000
    assert DAILY_PARAGRAPHS[0] in extract(html, extractor="webclean").text


def test_threshold_option_trades_recall():
    page = daily_article()
    everything = get_extractor("webclean", threshold=0.0).extract_text(Document.from_html(page))
    nothing = get_extractor("webclean", threshold=1.01).extract_text(Document.from_html(page))
    assert "Privacy policy" in everything and nothing == ""
    with pytest.raises(ExtractionError):
        get_extractor("webclean", thresold=0.5)


def test_probabilities_are_the_shipped_ensemble_on_the_feature_rows(monkeypatch):
    """What the extractor keeps is the model file's ensemble applied to
    :func:`block_features`' rows, the markup lexicon's scores and the
    page-type probabilities, vetoes and the group consensus aside; the
    compiled tree walk and the numpy reference agree."""
    import dataclasses

    import numpy as np

    from webclean_scrapy.engine import trees
    from webclean_scrapy.engine.page_type import page_type_of

    shipped = webclean.load_model()
    alone = dataclasses.replace(shipped, consensus_by_page_type={})
    monkeypatch.setattr(webclean, "load_model", lambda: alone)
    doc = Document.from_html(daily_article())
    rows = webclean.block_features(doc)
    assert rows.shape == (len(doc.block_columns), len(webclean.BLOCK_FEATURES))
    types = page_type_of(doc)[1]
    model = webclean.load_model()
    lexicon = [model.lexicon.score_words(words) for words in webclean.block_words(doc)]
    rows = np.hstack([rows, np.array(lexicon)[:, None], np.tile(types, (len(rows), 1))])
    assert rows.shape[1] == len(webclean.MODEL_FEATURES)
    expected = model.probabilities(rows)
    got = webclean.block_probabilities(doc)
    kept = got > 0
    assert kept.any() and got[kept].tolist() == pytest.approx(expected[kept].tolist(), abs=1e-12)
    monkeypatch.setattr(trees, "COMPILED_TREES", False)
    assert model.probabilities(rows).tolist() == pytest.approx(expected.tolist(), abs=1e-9)


def test_reader_comments_dropped_unless_asked_for():
    thread = "".join(
        f'<li class="comment-entry"><div class="comment-meta">{name} wrote:</div>'
        f'<div class="comment-body"><p>{text}</p></div></li>'
        for name, text in [
            (
                "Martha",
                "I live on the main street and the water came up much faster than the article says, "
                "we lost the whole ground floor of the shop within an hour of the first warning.",
            ),
            (
                "Tom",
                "The levee has been a problem for years, everyone in the lower town knew it, and the council "
                "kept postponing the repairs because the budget was spent on the new ring road instead.",
            ),
        ]
    )
    page = daily_article(
        f'</article><section class="comments-area"><h3>2 comments</h3><ol>{thread}</ol></section><article>'
    )
    default = lines(page)
    assert DAILY_PARAGRAPHS[0] in default
    assert not any("ground floor of the shop" in line or "ring road" in line for line in default)
    kept = extract(page, extractor="webclean", comments=True).text
    assert "ground floor of the shop" in kept and DAILY_PARAGRAPHS[0] in kept


def test_comment_named_wrapper_holding_the_article_is_not_a_thread():
    # Some sites name the whole page or article wrapper after its comment state.
    page = daily_article().replace(
        '<main><article class="article">', '<main class="comments-open"><article class="article has-comments">'
    )
    got = lines(page)
    for paragraph in DAILY_PARAGRAPHS:
        assert paragraph in got


SHORT_NEWS = (
    "The town council approved the renovation of the public library at its meeting on Monday evening. "
    "Work on the roof and the reading room will start in April and should be finished before the summer "
    "holidays. During the works, books can be borrowed from the temporary branch in the old school building "
    "on Church Street, which opens on weekdays from nine to five. The council thanked the volunteers of the "
    "library association for their support."
)


def test_short_article_straight_inside_a_div_is_never_empty():
    """A short municipal news item: about 500 characters straight inside a
    ``<div>`` after two images, no ``<p>``, between a menu and a footer.
    The page has readable text, so the extraction must not be empty."""
    menu = "".join(f'<li><a href="/{w.lower()}">{w}</a></li>' for w in DAILY_NAV)
    page = f"""<html><head><title>Library renovation</title></head><body>
      <div class="top"><ul class="menu">{menu}</ul></div>
      <div class="news-item"><img src="/logo.png" alt=""><img src="/library.jpg" alt="">{SHORT_NEWS}</div>
      <div class="footer"><a href="/contact">Contact</a> <a href="/imprint">Imprint</a></div>
    </body></html>"""
    text = extract(page, extractor="webclean").text
    assert SHORT_NEWS in text
    assert "Imprint" not in text


def test_the_fallback_keeps_prose_when_nothing_passes_the_threshold():
    # Even with a model that found nothing above its threshold, a page whose
    # best block is prose gives that prose, never an empty text.
    import numpy as np

    def select(doc: Document, probabilities: np.ndarray, fallback: bool = True) -> list[int]:
        blocks = doc.block_columns
        return webclean.select_blocks(
            blocks.texts, blocks.chars, blocks.anchor_chars, probabilities, 0.5, fallback=fallback
        ).tolist()

    doc = Document.from_html(f"<html><body><div>{SHORT_NEWS}</div><div><a href='/x'>Home</a></div></body></html>")
    low = np.array([0.02, 0.001])
    assert select(doc, low) == [0] and select(doc, low, fallback=False) == []
    hub = Document.from_html("<html><body>" + "".join(f"<li><a href='/{i}'>Story {i}</a></li>" for i in range(30)))
    assert select(hub, np.full(30, 0.02)) == []


def test_a_small_page_is_kept_whole():
    """A page with under ``FALLBACK_MIN_CHARS`` characters of text in all
    keeps every block the vetoes leave, whatever their probabilities; a
    larger page keeps only what reaches the threshold."""
    import numpy as np

    def select(doc: Document, probabilities: np.ndarray, fallback: bool = True) -> list[int]:
        blocks = doc.block_columns
        return webclean.select_blocks(
            blocks.texts, blocks.chars, blocks.anchor_chars, probabilities, 0.5, fallback=fallback
        ).tolist()

    small = Document.from_html("<html><body><h2>Opening hours</h2><p>Mon-Fri 9-17</p><p>Sat 10-14</p></body></html>")
    assert select(small, np.array([0.9, 0.1, 0.3])) == [0, 1, 2]
    assert select(small, np.array([0.9, 0.0, 0.3])) == [0, 2]  # a vetoed block stays out
    assert select(small, np.array([0.9, 0.1, 0.3]), fallback=False) == [0]
    trace = Trace()
    trace.units("block", 3)
    blocks = small.block_columns
    webclean.select_blocks(blocks.texts, blocks.chars, blocks.anchor_chars, np.array([0.9, 0.1, 0.3]), 0.5, trace=trace)
    assert trace.reasons == ["small page: every block the vetoes leave"] * 3
    assert "small page" in trace.facts
    text = extract("<html><body><h2>Test Case 1</h2><img src=a.jpg><h2>Test Case 2</h2></body></html>").text
    assert text.split() == ["Test", "Case", "1", "Test", "Case", "2"]
    large = Document.from_html("<html><body>" + "".join(f"<p>{SHORT_NEWS}</p>" for _ in range(2)) + "</body></html>")
    assert select(large, np.array([0.9, 0.1]), fallback=True) == [0]


#: A short discussion thread: (author, post) pairs.
TELESCOPE_POSTS = [
    (
        "alice",
        "My first telescope was a small refractor, and I would still recommend one to anybody starting "
        "out: it needs no collimation, cools down quickly and shows the moon and planets well.",
    ),
    (
        "bob",
        "A six inch dobsonian gives you far more light for the money. The mount is simple, it sets up in "
        "a minute, and you will see galaxies and clusters that a small refractor cannot show at all.",
    ),
    (
        "carol",
        "Whatever you buy, learn the sky with binoculars and a star atlas first. Most beginners give up "
        "because they cannot find anything, not because their telescope is not good enough.",
    ),
]


def test_forum_posts_marked_up_as_comments_are_the_content():
    """On a forum thread the posts sit in comment-named markup; they are the
    main text there, while the same markup under an article is vetoed."""
    posts = TELESCOPE_POSTS
    thread = "".join(
        f'<div class="comment post" id="post_{i}"><div class="comment-meta"><a href="/u/{name}">{name}</a>'
        f' <span class="post-date">Mar {i + 3}</span></div><div class="comment-body cooked"><p>{text}</p></div></div>'
        for i, (name, text) in enumerate(posts)
    )
    menu = "".join(f'<li><a href="/c/{w.lower()}">{w}</a></li>' for w in DAILY_NAV)
    page = f"""<html><head><title>Best first telescope? - Beginners - Stargazers Forum</title>
      <meta property="og:type" content="website">
      <script type="application/ld+json">{{"@context": "https://schema.org", "@type": "DiscussionForumPosting",
        "headline": "Best first telescope?"}}</script></head>
      <body><header><nav><ul>{menu}</ul></nav></header>
      <main><h1>Best first telescope?</h1><div class="comments topic-posts">{thread}</div></main>
      <footer><a href="/about">About</a> <a href="/privacy">Privacy</a></footer></body></html>"""
    result = extract(page, extractor="webclean", url="https://forum.example/t/best-first-telescope/4145")
    assert result.page_type == "forum"
    for _, text in posts:
        assert text in result.text


def test_vetoes_apply_by_predicted_page_type(monkeypatch):
    """Which vetoes apply is the model file's choice per page type: the
    same hidden tab panel is ruled out where the policy vetoes ``hidden``
    and scored by the model where it does not."""
    import dataclasses

    import numpy as np

    from webclean_scrapy.engine.page_type import page_type_of

    panel = (
        "Shipping is free on orders over fifty euros, returns are accepted within thirty days, "
        "and every lamp comes with a two year warranty on the electronics."
    )
    page = daily_article(f'<div class="tab-pane hidden"><p>{panel}</p></div>')
    doc = Document.from_html(page)
    index = doc.block_columns.texts.index(panel)
    masks = webclean.veto_masks(doc)
    assert masks.shape == (len(webclean.VETOES), len(doc.block_columns))
    assert masks[webclean.VETOES.index("hidden")][index]
    kind = page_type_of(doc)[0]
    shipped = webclean.load_model()
    everything = dataclasses.replace(shipped, vetoes_by_page_type={kind: webclean.VETOES})
    nothing = dataclasses.replace(shipped, vetoes_by_page_type={kind: ()})
    monkeypatch.setattr(webclean, "load_model", lambda: everything)
    assert webclean.block_probabilities(doc)[index] == 0.0
    monkeypatch.setattr(webclean, "load_model", lambda: nothing)
    probabilities = webclean.block_probabilities(doc)
    assert probabilities[index] > 0.0
    assert np.all(probabilities > 0.0)


def test_vetoes_that_hold_give_way_when_they_would_leave_almost_nothing():
    import numpy as np

    chars = np.array([100, 400, 400, 100])
    probabilities = np.array([0.6, 0.8, 0.9, 0.1])
    comments = np.array([[False, True, True, False]])  # one row: the comment-area veto
    everything = ("comment_area",)
    # The veto would leave 100 of the 900 characters the model keeps at 0.5: over 10%, it holds.
    assert webclean.vetoes_that_hold(probabilities, comments, everything, 0.5, chars) == everything
    # At a cut that keeps only the two vetoed blocks, it would leave nothing: it gives way.
    assert webclean.vetoes_that_hold(probabilities, comments, everything, 0.75, chars) == ()
    # Where the model keeps nothing, the vetoes stay (the fallback picks among what they leave).
    assert webclean.vetoes_that_hold(probabilities, comments, everything, 0.95, chars) == everything
    assert webclean.vetoes_that_hold(probabilities, comments, (), 0.75, chars) == ()


def test_vetoes_hold_when_what_they_leave_is_a_paragraph_of_prose():
    import numpy as np

    chars = np.array([90, 500, 500, 10])
    probabilities = np.array([0.6, 0.8, 0.9, 0.1])
    comments = np.array([[False, True, True, False]])
    everything = ("comment_area",)
    # They would leave 90 of 1,090 characters, under 10%: a 90-character paragraph is still an article...
    unlinked = np.zeros(4, dtype=np.int64)
    assert webclean.vetoes_that_hold(probabilities, comments, everything, 0.5, chars, unlinked) == everything
    # ... and a 90-character link is not.
    linked = np.array([90, 0, 0, 0])
    assert webclean.vetoes_that_hold(probabilities, comments, everything, 0.5, chars, linked) == ()


def test_thread_in_comment_markup_is_kept_when_the_veto_would_leave_nothing(monkeypatch):
    """A discussion whose posts are marked up as a comment list, on a page
    no forum markup announces: the comment-area veto would leave only the
    heading of what the model keeps, so it gives way."""
    import dataclasses

    posts = TELESCOPE_POSTS
    thread = "".join(
        f'<li class="comment" id="comment-{i}"><div class="comment-author"><a href="/u/{name}">{name}</a></div>'
        f'<div class="comment-content"><p>{text}</p></div></li>'
        for i, (name, text) in enumerate(posts)
    )
    # The sidebar's links are short: long ones make the page a listing,
    # where a link list is content and one of them may be kept beside the
    # heading, leaving the veto over its 10% (the test then reads one link's
    # probability, not the rule).
    links = "".join(f'<li><a href="/topic/{i}">Topic {i}</a></li>' for i in range(40))
    page = f"""<html><head><title>Best first telescope?</title></head><body>
      <div id="content"><h1>Best first telescope?</h1><ol class="comment-list">{thread}</ol></div>
      <aside><ul>{links}</ul></aside>
      <footer><p>Copyright 2025 Example Astronomy Club. All rights reserved.</p></footer></body></html>"""
    doc = Document.from_html(page)
    in_area = webclean.veto_masks(doc)[webclean.VETOES.index("comment_area")]
    assert all(in_area[doc.block_columns.texts.index(text)] for _, text in posts)
    shipped = webclean.load_model()
    every_veto = dataclasses.replace(
        shipped, vetoes_by_page_type=dict.fromkeys(shipped.vetoes_by_page_type, webclean.VETOES)
    )
    monkeypatch.setattr(webclean, "load_model", lambda: every_veto)
    url = "https://example.org/best-first-telescope"
    kept = extract(page, extractor="webclean", url=url).text
    assert all(text in kept for _, text in posts)
    monkeypatch.setattr(webclean, "VETOES_YIELD_BELOW", 0.0)
    assert not any(text in extract(page, extractor="webclean", url=url).text for _, text in posts)


def test_indic_and_urdu_sentence_ends_count_as_stops():
    """A Hindi paragraph ends its sentences with the danda (``।``), an Urdu
    one with ``۔``: the stop features count them, as they count ``.`` and
    ``。``, so such prose does not read as a menu."""
    import numpy as np

    from webclean_scrapy.engine.extractors.webclean.features import BLOCK_FEATURES

    hindi = "शहर में मंगलवार रात भारी बारिश हुई। स्वयंसेवक दरवाज़ों के सामने रेत की बोरियाँ लगा रहे थे।"
    urdu = "شہر میں منگل کی رات شدید بارش ہوئی۔ رضاکار دروازوں کے سامنے ریت کی بوریاں رکھ رہے تھے۔"
    doc = Document.from_html(f"<html><body><p>{hindi}</p><p>{urdu}</p><p>Home</p></body></html>")
    rows = webclean.block_features(doc)
    stops, ends = rows[:, BLOCK_FEATURES.index("stops")], rows[:, BLOCK_FEATURES.index("ends_stop")]
    assert (stops[:2] > 0).all() and stops[2] == 0
    assert np.array_equal(ends, [1.0, 1.0, 0.0])
    assert doc.block_columns.count("।").tolist() == [2, 0, 0]
    assert doc.block_columns.count("۔").tolist() == [0, 2, 0]


def test_sentence_ends_and_commas_of_other_scripts_count():
    """Arabic prose asks with ``؟`` and lists with ``،`` and ``؛``; Amharic,
    Armenian, Burmese, Khmer and Tibetan end sentences with marks of their
    own; Chinese and Japanese exclaim and ask with the full-width ``！？``.
    The stop, comma and sentence-end features count each, as they count
    ``.``, ``,`` and ``;``: a paragraph in any of these scripts reads as
    prose, and a menu of the same words still does not."""
    import numpy as np

    from webclean_scrapy.engine.extractors.webclean.features import BLOCK_FEATURES

    prose = {
        "arabic": "هل كانت الأمطار غزيرة؟ نعم، غمرت المياه الشوارع؛ وعمل المتطوعون طوال الليل",
        "amharic": "ትናንት ማታ ከባድ ዝናብ ዘነበ። በጎ ፈቃደኞች ሌሊቱን ሙሉ ሠሩ።",
        "armenian": "Երեկ գիշեր ուժեղ անձրև եկավ։ Կամավորները ամբողջ գիշեր աշխատեցին։",
        "burmese": "မနေ့ညက မိုးသည်းထန်စွာ ရွာသွန်းခဲ့သည်။ စေတနာ့ဝန်ထမ်းများ တစ်ညလုံး အလုပ်လုပ်ခဲ့ကြသည်။",
        "khmer": "កាលពីយប់មិញមានភ្លៀងធ្លាក់ខ្លាំង។ អ្នកស្ម័គ្រចិត្តបានធ្វើការពេញមួយយប់។",
        "tibetan": "མདང་དགོང་ཆར་པ་དྲག་པོ་བབས། ལས་ཀ་ནུབ་གང་བྱས།",
        "chinese": "昨晚下了大雨！志愿者们工作了一整夜吗？是的，他们都在",
    }
    body = "".join(f"<p>{text}</p>" for text in prose.values())
    doc = Document.from_html(f"<html><body>{body}<p>الرئيسية</p></body></html>")
    rows = webclean.block_features(doc)
    stops, commas, ends = (rows[:, BLOCK_FEATURES.index(name)] for name in ("stops", "commas", "ends_stop"))
    assert (stops[:-1] > 0).all() and stops[-1] == 0
    # Ending in a stop: all but the Arabic and Chinese paragraphs (their last
    # sentences run on) and the menu item.
    assert np.array_equal(ends, [0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0])
    arabic = list(prose).index("arabic")
    assert commas[arabic] > 0 and commas[list(prose).index("chinese")] > 0
    assert doc.block_columns.count("؟").tolist()[arabic] == 1
    assert doc.block_columns.count("،؛").tolist()[arabic] == 2
    assert doc.block_columns.count("！？").tolist()[list(prose).index("chinese")] == 2


def test_reads_as_article_when_a_hubs_kept_text_is_nearly_link_free():
    """A page predicted a listing or a collection is extracted as an
    article when what its policy keeps is at most 10% links and the
    article type is not unlikely (worked examples of the rule)."""
    import numpy as np

    chars = np.array([400, 300, 50, 50])
    anchors = np.array([0, 20, 50, 50])
    types = np.zeros(len(PAGE_TYPES))
    types[PAGE_TYPES.index("article")], types[PAGE_TYPES.index("listing")] = 0.3, 0.7
    assert webclean.reads_as_article("listing", types, [0, 1], chars, anchors)  # 20 / 700 links
    assert webclean.reads_as_article("collection", types, [0, 1, 2], chars, anchors)  # 70 / 750 = 9.3%
    assert not webclean.reads_as_article("listing", types, [0, 1, 2, 3], chars, anchors)  # 120 / 800 = 15%
    assert not webclean.reads_as_article("listing", types, [2, 3], chars, anchors)  # all links
    assert not webclean.reads_as_article("listing", types, [], chars, anchors)  # nothing kept
    for kind in ("article", "forum", "product", "documentation", "service"):
        assert not webclean.reads_as_article(kind, types, [0, 1], chars, anchors)
    types[PAGE_TYPES.index("article")] = webclean.HUB_ARTICLE_MIN - 0.01
    assert not webclean.reads_as_article("listing", types, [0, 1], chars, anchors)


def test_a_news_page_predicted_a_listing_is_kept_under_the_article_policy(monkeypatch):
    """A news article framed by headline sidebars, predicted a listing: its
    kept text is its paragraphs (no links), so the article policy
    decides and the trace says so. A real listing (linked headlines) keeps
    its own policy."""
    import dataclasses

    import numpy as np

    shipped = webclean.load_model()
    # The listing policy made strict (only the fallback's prose survives), so
    # that it and the article policy give different texts on this page.
    strict = dataclasses.replace(shipped, thresholds_by_page_type={**shipped.thresholds_by_page_type, "listing": 0.99})
    monkeypatch.setattr(webclean, "load_model", lambda: strict)

    def kept(html: str, kind: str, article: float) -> tuple[list[int], Trace]:
        types = np.zeros(len(PAGE_TYPES))
        types[PAGE_TYPES.index("article")], types[PAGE_TYPES.index(kind)] = article, 1.0 - article
        monkeypatch.setattr(webclean, "page_type_of", lambda doc: (kind, types))
        trace = Trace()
        return webclean.content_indexes(Document.from_html(html), trace=trace), trace

    page = daily_article()
    as_listing, trace = kept(page, "listing", 0.0)
    assert not any(name.startswith("read as an article") for name in trace.facts)
    as_article, _ = kept(page, "article", 0.3)
    assert as_listing != as_article
    reread, trace = kept(page, "listing", 0.3)
    assert reread == as_article
    assert "read as an article (predicted listing)" in trace.facts
    assert trace.facts["threshold for article pages"] == strict.threshold_for("article")

    cards = "".join(
        f'<div class="card"><h2><a href="/story/{i}">Headline number {i} of the day</a></h2><p>Teaser {i}.</p></div>'
        for i in range(12)
    )
    hub = f"<html><head><title>Latest news</title></head><body><h1>Latest news</h1>{cards}</body></html>"
    monkeypatch.setattr(webclean, "load_model", lambda: shipped)
    headlines, trace = kept(hub, "listing", 0.3)
    assert headlines
    assert not any(name.startswith("read as an article") for name in trace.facts)
    assert headlines == kept(hub, "listing", 0.0)[0]


def test_a_hub_read_as_an_article_is_reported_an_article(monkeypatch):
    """The extraction reports the page type the extractor acted on: a page
    predicted a listing whose kept text reads as an article is an
    ``article`` in ``Extraction.page_type`` (what the ``news`` spider sorts
    stories from hubs by); the same page with no article probability, and
    a real listing, stay listings."""
    import numpy as np

    import webclean_scrapy.engine.extraction as extraction_module
    from webclean_scrapy.engine.page_type.articles import PageSignals, classify

    extractor = webclean.WebcleanExtractor()

    def reported(html: str, kind: str, article: float) -> tuple[str | None, bool]:
        types = np.zeros(len(PAGE_TYPES))
        types[PAGE_TYPES.index("article")], types[PAGE_TYPES.index(kind)] = article, 1.0 - article
        predicted = lambda doc: (kind, types)  # noqa: E731
        monkeypatch.setattr(webclean, "page_type_of", predicted)
        monkeypatch.setattr(extraction_module, "page_type_of", predicted)
        doc = Document.from_html(html)
        extraction = extractor.extract(doc)
        assert extraction.text
        return extraction.page_type, webclean.read_as_article(doc)

    story = daily_article()
    assert reported(story, "listing", 0.3) == ("article", True)
    assert reported(story, "listing", 0.0) == ("listing", False)
    assert reported(story, "article", 0.9) == ("article", False)
    cards = "".join(
        f'<div class="card"><h2><a href="/story/{i}">Headline number {i} of the day</a></h2><p>Teaser {i}.</p></div>'
        for i in range(12)
    )
    hub = f"<html><head><title>Latest news</title></head><body><h1>Latest news</h1>{cards}</body></html>"
    assert reported(hub, "listing", 0.3) == ("listing", False)
    # The news spider's page-type rule follows the reported type.
    url = "https://news.example/2025/05/12/river-floods"
    assert "page_type:+2" in classify(PageSignals(url=url, page_type="article")).reasons
    assert "page_type:-2" in classify(PageSignals(url=url, page_type="listing")).reasons


def test_a_hub_read_as_an_article_reads_its_metadata_as_an_article(monkeypatch):
    """The metadata follows the reported type too: an organisation named as
    author is the brand on a listing and the byline on an article, so a
    hub read as an article reports it, read from what the first reading
    kept (a large page's tree is gone by then), and a listing does not."""
    import numpy as np

    import webclean_scrapy.engine.extraction as extraction_module
    import webclean_scrapy.engine.metadata as metadata_module

    by_agency = '<script type="application/ld+json">{"@type": "NewsArticle", "headline": "Flood",'
    by_agency += ' "author": {"@type": "Organization", "name": "Harbour Wire Service"}}</script>'
    story = daily_article(extra_head=by_agency)

    def read(kind: str, article: float, release_tree: bool) -> tuple[str | None, str | None]:
        types = np.zeros(len(PAGE_TYPES))
        types[PAGE_TYPES.index("article")], types[PAGE_TYPES.index(kind)] = article, 1.0 - article
        predicted = lambda doc: (kind, types)  # noqa: E731
        for module in (webclean, extraction_module, metadata_module):
            monkeypatch.setattr(module, "page_type_of", predicted)
        monkeypatch.setattr(extraction_module, "RELEASE_TREE_ABOVE", 0 if release_tree else 10**9)
        extraction = webclean.WebcleanExtractor().extract(
            Document.from_html(story, url="https://gazette.example/flood")
        )
        return extraction.page_type, extraction.author

    for release_tree in (False, True):
        assert read("listing", 0.3, release_tree) == ("article", "Harbour Wire Service")
        assert read("listing", 0.0, release_tree) == ("listing", None)
        assert read("article", 0.9, release_tree) == ("article", "Harbour Wire Service")


# -- the article-body convention (:mod:`webclean.convention`) -------------------------

FIGURE = (
    '<figure><img src="/flood.jpg" alt=""><figcaption>Volunteers stack sandbags against the doors of the old '
    "market hall on Wednesday morning, as the water keeps rising in the lower town.</figcaption></figure>"
)


def convention_page(before: str = "", inside: str = "") -> str:
    """An article whose body holds *inside* after its second paragraph, *before* between the headline and the body."""
    paragraphs = "".join(f"<p>{p}</p>" for p in DAILY_PARAGRAPHS[:2])
    rest = "".join(f"<p>{p}</p>" for p in DAILY_PARAGRAPHS[2:])
    return f"""<!DOCTYPE html><html lang="en"><head><title>Flood in the lower town | Daily Example</title></head>
    <body><header><a href="/">Daily Example</a></header>
      <main><article><h1>Flood in the lower town</h1>{before}
        <div class="story-body">{paragraphs}{inside}{rest}</div>
      </article></main></body></html>"""


def kept_lines(html: str, **options: Any) -> list[str]:
    return extract(html, extractor="webclean", **options).text.splitlines()


def test_the_headline_is_the_title_not_the_text():
    html = convention_page()
    result = extract(html, extractor="webclean")
    assert result.title == "Flood in the lower town"
    assert "Flood in the lower town" not in result.text.splitlines()
    assert result.text.splitlines()[0] == DAILY_PARAGRAPHS[0]
    assert kept_lines(html, include_title=True)[0] == "Flood in the lower town"


@pytest.mark.parametrize(
    "text", ["", "Flood in the lower town", "İSTANBUL'da sel: 3 ölü", "a--b c_d 42 ÉTÉ", "x " * 50]
)
def test_the_headline_check_reads_the_same_first_words(text):
    for count in (1, 3, 5, 60):
        assert convention.first_words(text, count) == convention.words(text)[:count]


def test_a_figure_caption_is_dropped_unless_captions_are_asked_for():
    html = convention_page(inside=FIGURE)
    caption = "Volunteers stack sandbags"
    assert any(line.startswith(caption) for line in kept_lines(html, include_captions=True))
    for options in ({}, {"include_captions": False}):
        kept = kept_lines(html, **options)
        assert not any(line.startswith(caption) for line in kept)
        assert all(paragraph in kept for paragraph in DAILY_PARAGRAPHS)


def test_a_credit_line_is_dropped_unless_captions_are_asked_for():
    html = convention_page(inside='<p class="pic">(Image: GETTY)</p><p>Photo: Jane Doe, AP</p>')
    options: dict[str, Any]
    for options in ({}, {"include_captions": False}):
        kept = kept_lines(html, **options)
        assert "(Image: GETTY)" not in kept and "Photo: Jane Doe, AP" not in kept
    kept = kept_lines(html, include_captions=True)
    assert "(Image: GETTY)" in kept and "Photo: Jane Doe, AP" in kept


def test_furniture_lines_are_dropped_and_prose_about_them_is_not():
    prose = "Advertisement revenue fell by a third, the paper said, and it will read more letters on air."
    html = convention_page(
        inside=f"<p>ADVERTISEMENT</p><p>Continue Reading Below</p><p>{prose}</p><p>Share: Post Email</p>"
    )
    kept = kept_lines(html)
    assert "ADVERTISEMENT" not in kept and "Continue Reading Below" not in kept and "Share: Post Email" not in kept
    assert prose in kept and DAILY_PARAGRAPHS[2] in kept


def test_an_advert_box_named_by_its_label_is_dropped():
    advert = "Fenwick Garden Centre: seed potatoes, onion sets and fruit bushes now in stock at low prices."
    box = f'<div class="box"><span>Advertisement</span><p>{advert}</p></div>'
    kept = kept_lines(convention_page(inside=box))
    assert advert not in kept and DAILY_PARAGRAPHS[3] in kept


def test_the_rules_in_words():
    from webclean_scrapy.engine.extractors.webclean import convention

    assert convention.credit_line("(Image: GETTY)") and convention.credit_line("Foto: dpa")
    assert convention.credit_line("The mayor at the levee on Tuesday. Photograph: Jane Doe/Reuters")
    assert not convention.credit_line("The photo shows the levee before the flood, taken in 1962.")
    assert convention.furniture_line("Anzeige") and convention.furniture_line("Publicité")
    assert convention.furniture_line("Реклама") and convention.furniture_line("Most read")
    for line in ("Подробнее", "Διαβάστε επίσης:", "Zobacz także", "查看更多", "分享到"):
        assert convention.furniture_line(line), line
    assert convention.furniture_line("Share: Post Email") and convention.furniture_line("Facebook Twitter Email")
    assert not convention.furniture_line("Read more about the levee in our archive of flood coverage.")
    assert convention.byline_text("By Owen Pritchard · 7 March 2025")
    assert convention.byline_text("PUBLISHED: 10:48, Tue, Nov 19, 2019 | UPDATED: 11:02, Tue, Nov 19, 2019")
    assert convention.byline_text("Tue, Nov 19, 2019 10:48 GMT")
    assert not convention.byline_text("By then, the roads had closed.")
    assert not convention.byline_text("Versions: 00 01 02 03 04")
    title = [convention.words("Flood in the lower town | Daily Example")]
    assert convention.repeats_title(convention.words("Flood in the lower town"), title)
    assert not convention.repeats_title(convention.words("Flood"), title)


def test_a_byline_before_the_body_is_dropped_when_the_rule_applies():
    from webclean_scrapy.engine.extractors.webclean import convention

    html = convention_page(before='<p class="by">By Jane Doe</p>')
    doc = Document.from_html(html)
    kept = np.arange(len(doc.block_columns))
    drops = convention.convention_drops(doc, kept, rules=convention.RULES)
    assert [doc.block_columns.texts[i] for i in kept[drops["byline"]]] == ["By Jane Doe"]


def test_an_article_text_leaves_its_byline_and_dateline_to_author_and_date():
    html = convention_page(before='<p class="by">By Jane Doe</p><p>PUBLISHED: 10:48, Tue, Nov 19, 2019</p>')
    result = extract(html, extractor="webclean")
    assert result.page_type == "article"
    assert "By Jane Doe" not in result.text and "PUBLISHED" not in result.text
    assert DAILY_PARAGRAPHS[0] in result.text


def test_the_byline_rule_reads_articles_only():
    from webclean_scrapy.engine.extractors.webclean import convention

    doc = Document.from_html(convention_page(before='<p class="by">By Jane Doe</p>'))
    kept = np.arange(len(doc.block_columns))
    assert "byline" in convention.convention_drops(doc, kept, article=True)
    assert "byline" not in convention.convention_drops(doc, kept, article=False)


def test_text_markdown_and_html_follow_the_same_blocks():
    html = convention_page(inside=FIGURE + "<p>ADVERTISEMENT</p>")
    result = extract(html, extractor="webclean", output=["markdown", "html"], include_captions=False)
    for dropped in ("Volunteers stack sandbags", "ADVERTISEMENT", "Flood in the lower town"):
        assert dropped not in result.text and dropped not in result.markdown and dropped not in result.html
    assert DAILY_PARAGRAPHS[2] in result.markdown and DAILY_PARAGRAPHS[2] in result.html


def test_convention_options_are_checked_and_passed_through():
    from webclean_scrapy.settings import WebcleanSettings

    with pytest.raises(ExtractionError):
        get_extractor("webclean", include_title="yes")
    with pytest.raises(ValueError, match="include_captions"):
        WebcleanSettings(extractor_options={"include_captions": "no"})
    with pytest.raises(ExtractionError, match="include_captions"):
        get_extractor("webclean", include_captions=None)
    options = {"include_title": True, "include_captions": True}
    assert WebcleanSettings(extractor_options=options).extractor_options == options
    assert get_extractor("webclean", **options).options["include_title"] is True


def test_the_trace_names_the_convention_rule():
    trace = Trace()
    doc = Document.from_html(convention_page(inside="<p>ADVERTISEMENT</p>"))
    kept = webclean.content_indexes(doc, trace=trace)
    texts = doc.block_columns.texts
    assert "ADVERTISEMENT" not in [texts[i] for i in kept]
    assert trace.reasons[texts.index("ADVERTISEMENT")] == "convention: furniture"
    assert np.flatnonzero(trace.kept).tolist() == kept


def test_share_bar_vocabularies_are_disjoint():
    # share_bar counts each word in the first vocabulary that holds it.
    from webclean_scrapy.engine.extractors.webclean import convention

    vocabularies = (convention._SHARE_NETWORKS, convention._SHARE_OPENERS, convention._SHARE_FILLERS)
    for i, first in enumerate(vocabularies):
        for second in vocabularies[i + 1 :]:
            assert not first & second


# -- never empty, never the wrong block ------------------------------------------------

NEWS_URL = "https://www.northgategazette.example/news/2024/05/03/new-crossing-station-road"
CROSSING = (
    "A new pedestrian crossing will be built on Station Road this summer, next to the primary school, "
    "after a petition signed by more than 600 parents.",
    "Work is due to begin on 22 July and take four weeks. The road will stay open, with temporary traffic lights.",
)


@pytest.mark.parametrize(
    "name, url, body",
    [
        (
            "short-paywalled-article.html",
            "https://www.valleytimes.example/news/mill-lane-flats-plan-rejected-4412",
            ("Plans for 48 flats on the former dairy site in Mill Lane have been refused",),
        ),
        (
            "short-municipal-news.html",
            "https://www.talheim.example/aktuelles/neue-oeffnungszeiten-buergerbuero",
            ("Ab dem 1. April ist das Bürgerbüro im Rathaus", "Die Gemeindeverwaltung bittet um Verständnis"),
        ),
    ],
)
def test_a_short_article_comes_out_with_its_text(name, url, body):
    """A few hundred characters of body beside a larger frame (menus, teasers, an address footer)."""
    text = extract(sample_page(name), url=url).text
    assert all(part in text for part in body), text
    assert "Registered in England" not in text and "Bürgerservice" not in text and "Impressum" not in text


def test_a_short_article_under_a_long_comment_thread_is_the_article():
    html = sample_page("article-under-comment-thread.html")
    text = extract(html, url=NEWS_URL).text
    assert all(paragraph in text for paragraph in CROSSING)
    assert "hours ago" not in text and "potholes" not in text
    with_comments = extract(html, url=NEWS_URL, comments=True).text
    assert all(paragraph in with_comments for paragraph in CROSSING) and "potholes" in with_comments


def test_a_teaser_section_after_the_body_is_not_the_article():
    html = sample_page("article-over-teaser-cards.html")
    text = extract(html, url=NEWS_URL).text
    assert all(paragraph in text for paragraph in CROSSING)
    assert "More from Northgate" not in text and "engineering works" not in text and "sourdough" not in text


def test_teaser_headings_in_words():
    from webclean_scrapy.engine.extractors.webclean import convention

    for heading in (
        "More from Northgate",
        "Related stories",
        "Lesen Sie auch",
        "Читайте также",
        "Материалы по теме",
        "Σχετικά άρθρα",
        "Czytaj też",
        "相关新闻",
        "Most read",
    ):
        assert convention.teaser_heading(heading), heading
    assert not convention.teaser_heading("More from the council on Tuesday, when the budget is set.")
    assert not convention.teaser_heading("Results")


def test_a_news_category_page_is_a_listing_of_its_items():
    """Teaser cards are the content of a listing: the page is not read as one article, and its
    text is the items' titles and teasers, without the pagination or the site's navigation."""
    result = extract(sample_page("news-category-listing.html"), url="https://www.northgategazette.example/news/local/")
    assert result.page_type == "listing" and result.page_type_confidence > 0.5
    lines = result.text.splitlines()
    assert "Town council agrees budget for summer festival" in lines
    assert "Swimming pool reopens after roof repairs" in lines
    assert sum("The library will now stay open" in line for line in lines) == 1
    assert "Next page" not in result.text and "Letters" not in lines


# -- the convention's fast paths against their definitions ---------------------------


def _credit_line_as_defined(text: str) -> bool:
    from webclean_scrapy.engine.extractors.webclean import convention as c

    if len(text) > c.CREDIT_MAX_CHARS:
        return False
    if c._CREDIT_OPENING.match(text):
        return True
    if ":" in text and c._CREDIT_CLOSING.search(text[-c._CLOSING_TAIL :]):
        return True
    if len(text) > 150:
        return False
    tail = text[-c._AGENCY_TAIL :].lower()
    return c._AGENCY_CLOSING.search(tail) is not None


def _furniture_line_as_defined(text: str) -> bool:
    from webclean_scrapy.engine.extractors.webclean import convention as c

    line = c.words(text)
    if not line:
        return False
    if len(line) <= c.FURNITURE_MAX_WORDS and " ".join(line) in c.FURNITURE_LINES:
        return True
    return c.share_bar(line)


#: Pieces of the short lines the rules read: their words, their punctuation, prose.
_LINE_PIECES = (
    "Photo", "photograph", "(Image", "Foto", "Bild", "credit", "Credits", "Getty Images", "AP Photo", "AFP",
    "Reuters", "PA Wire", "EPA-EFE", "dpa", "Jane Doe", "/", ":", "：", "(", ")", ".", "!", "?", ",", " ",
    "  ", "\n", "by", "von", "Share", "this", "article", "Facebook", "Twitter", "Email", "Advertisement",
    "ANZEIGE", "Read more", "Most read", "Реклама", "広告", "the", "levee", "rose", "on Tuesday",
    "İ", "ſ", "Σ", "1962", "…",
)  # fmt: skip


def _random_lines(count: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    return ["".join(rng.choice(_LINE_PIECES, int(rng.integers(1, 12)))) for _ in range(count)]


def test_the_screened_line_rules_decide_as_their_definitions():
    from webclean_scrapy.engine.extractors.webclean import convention as c

    lines = _random_lines(20_000, 3) + [
        "(Image: GETTY)",
        "Foto: dpa",
        "The mayor at the levee on Tuesday. Photograph: Jane Doe/Reuters",
        "The levee (Photo: AP)",
        "The levee. (Photo: AP.)",
        "Volunteers at the hall. Getty Images",
        "Volunteers at the hall, AP Photo/Jane Doe.",
        "Share: Post Email",
        "Facebook Twitter Email",
    ]
    for line in lines:
        assert c.credit_line(line) == _credit_line_as_defined(line), line
        assert c.furniture_line(line) == _furniture_line_as_defined(line), line
        assert c.ad_label(line) == (" ".join(c.words(line)) in c._AD_LABELS), line


def _caption_pages() -> list[str]:
    """Nested figures, captions, named caption boxes and listings, at random depths and sizes."""
    rng = np.random.default_rng(8)
    openers = (
        "<figure>", "<figcaption>", '<div class="wp-caption-text">', '<span id="photo-credit">',
        '<div class="credit-card">', "<ul><li>", "<pre>", "<table><tr><td>", "<blockquote>", "<div>",
        "<section>", "<p>",
    )  # fmt: skip
    closers = {
        o: "".join(f"</{t}>" for t in reversed([p.split()[0].strip("<>") for p in o.split("><")])) for o in openers
    }
    pages = []
    for _ in range(60):
        parts = []
        for _ in range(int(rng.integers(3, 15))):
            chosen = rng.choice(openers, int(rng.integers(1, 10)))
            text = "Sandbags against the market hall doors. " * int(rng.integers(1, 50))
            parts.append("".join(chosen) + text + "".join(closers[o] for o in reversed(chosen)))
        pages.append(f"<html><body><article>{''.join(parts)}</article></body></html>")
    return [*pages, convention_page(inside=FIGURE), daily_article()]


def test_the_compiled_caption_walk_makes_the_reference_decisions():
    compiled = pytest.importorskip("webclean_scrapy.engine.extractors.webclean._convention")
    from webclean_scrapy.engine.extractors.webclean import convention as c

    assert compiled.KINDS == (c._PLAIN, c._CONTENT, c._FIGCAPTION, c._FIGURE, c._NAMED)
    found = 0
    for html in _caption_pages():
        doc = Document.from_html(html)
        kept = np.arange(len(doc.block_columns), dtype=np.int64)
        reference = [c.in_caption(doc, int(h)) for h in doc.block_columns.holders.tolist()]
        assert c.caption_drops(doc, kept).tolist() == reference
        found += sum(reference)
    assert found  # the pages hold captions, and blocks that are not


#: Short texts around the first words of the furniture lines and advert labels:
#: case, punctuation, digits, "_", other scripts and whitespace before them.
OPENING_PIECES = ["Share", "share", "SHARE", "ad", "Ad", "Anzeige", "Реклама", "广告", "İ", "ß", " ", "\t", ":", "-",
                  "_", "1", "²", "read", "more", "x", "é", "\u200b", "\U0001d400", "Werbung", "on", "", "\n"]  # fmt: skip


def test_the_compiled_opening_words_are_the_reference_ones():
    compiled = pytest.importorskip("webclean_scrapy.engine.extractors.webclean._convention")
    from webclean_scrapy.engine.extractors.webclean import convention as c

    rng = np.random.default_rng(11)
    texts = ["".join(rng.choice(OPENING_PIECES, int(rng.integers(0, 6)))) for _ in range(4000)]
    chars = np.array([len(text) for text in texts], dtype=np.int64)
    indexes = rng.permutation(len(texts))[:3000].astype(np.int64)
    for words in (c._FURNITURE_FIRST_WORDS, c._AD_LABELS):
        for longest in (4, 13, 160):
            for among in (None, indexes):
                expected = c._opening_with(texts, among, chars, longest, words)
                assert compiled.opening_with(texts, among, chars, longest, words) == expected
                assert c.opening_with(texts, among, chars, longest, words) == expected
    assert c._opening_with(texts, None, chars, 160, c._FURNITURE_FIRST_WORDS)  # some do open so


def test_furniture_and_advert_boxes_read_only_the_blocks_opening_with_their_words():
    from webclean_scrapy.engine.extractors.webclean import convention as c

    html = (
        "<html><body><article><p>"
        + "The council met on Tuesday to discuss the flooding of the market square. " * 4
        + "</p><p>Share this article</p><p>Facebook Twitter Email</p><div><p>Advertisement</p><p>Buy now</p></div>"
        + "<p>Read more</p><p>Shared costs rose.</p><p>Ad</p></article></body></html>"
    )
    doc = Document.from_html(html)
    kept = np.arange(len(doc.block_columns), dtype=np.int64)
    texts = doc.block_columns.texts
    lines = [c.furniture_line(text) if len(text) <= c.FURNITURE_MAX_CHARS else False for text in texts]
    drops = c.furniture_drops(doc, kept)
    assert drops.tolist() == (c.ad_boxes(doc) | np.array(lines)).tolist()
    assert sum(lines) == 5 and c.ad_boxes(doc).any()
