"""A CJK character counts for two letters in the document model's lengths.

Chinese and Japanese take about half the characters English does for the
same sentence, and every length rule of the flagship was set on English
pages: without the weight a Chinese paragraph reads as a short line
(:mod:`webclean_scrapy.engine.text.scripts`).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from pages import layout_page
from webclean_scrapy import extract
from webclean_scrapy.engine import document
from webclean_scrapy.engine.document import Document, prose_chars, text_length
from webclean_scrapy.engine.html.walk import count_in_ranges
from webclean_scrapy.engine.text.scripts import CJK_CHARACTER_WEIGHT, CJK_CHARS, CJK_RANGES

compiled_walk: Any = document._compiled_walk


def test_a_cjk_character_counts_twice_in_blocks_containers_and_links() -> None:
    doc = Document.from_html(
        '<div><p>東京タワーへ行く Tokyo <a href="/x">リンク link</a></p><p>plain text</p></div><p>한국어</p>'
    )
    blocks, containers = doc.block_columns, doc.container_columns
    assert blocks.texts == ["東京タワーへ行く Tokyo リンク link", "plain text", "한국어"]
    # The characters stay what the published methods count...
    assert blocks.chars.tolist() == [20, 9, 3]
    assert blocks.anchor_chars.tolist() == [7, 0, 0]
    # ...and the lengths count each of the 11 + 3 CJK characters twice.
    assert CJK_CHARACTER_WEIGHT == 2
    assert blocks.lengths.tolist() == [31, 9, 6]
    assert blocks.anchor_lengths.tolist() == [10, 0, 0]
    by_tag = dict(zip(containers.tags, zip(containers.lengths.tolist(), containers.anchor_lengths.tolist())))
    assert by_tag["div"] == (40, 10)
    assert by_tag["body"] == (46, 10)
    assert containers.lengths[0] == blocks.lengths.sum()
    assert containers.chars[0] == blocks.chars.sum() == 32


def test_a_page_without_cjk_characters_keeps_its_character_arrays() -> None:
    blocks = Document.from_html(
        "<p>Caf\u00e9 \u201cquoted\u201d \u2014 \u0416\u0443\u0440\u043d\u0430\u043b</p>"
    ).block_columns
    assert blocks.lengths is blocks.chars
    assert blocks.anchor_lengths is blocks.anchor_chars


def test_a_short_chinese_paragraph_reads_as_prose() -> None:
    # 50 ideographs and marks: under the 80 characters of a prose block, but
    # as long as an English paragraph of about 100 letters.
    paragraph = "市政府今天宣布，明年起将在全市范围内推广垃圾分类新办法，居民需要按照四类标准投放生活垃圾。违者罚款。"
    blocks = Document.from_html(f"<p>{paragraph}</p>").block_columns
    assert blocks.chars[0] < document.PROSE_MIN_CHARS <= blocks.lengths[0]
    assert prose_chars(blocks) == blocks.lengths[0]


def test_a_string_read_for_its_length_counts_cjk_characters_twice() -> None:
    # A title or a meta description, which the page type reads off the page.
    assert text_length("New rules | The Daily") == 21
    assert text_length("新办法明年推广 | 本报") == 12 + 9
    assert text_length("") == 0


#: One news page in two languages: its menu, story (title and paragraphs), sidebar and footer.
STORY_ZH = [
    "新办法明年推广",
    "市政府今天宣布，明年起将在全市推广垃圾分类新办法。",
    "居民需要按照四类标准投放生活垃圾，违者将被罚款。",
    "环保部门表示，试点街道的回收率去年提高了三成。",
]
STORY_EN = [
    "New rules from next year",
    "The city said today that it will roll out its new waste sorting rules citywide next year.",
    "Residents must sort household waste into four kinds, or pay a fine.",
    "Officials said recycling in the trial streets rose by a third last year.",
]
CHINESE = layout_page(
    ["首页", "新闻", "体育", "财经"],
    STORY_ZH[0],
    STORY_ZH[1:],
    ["热门文章一", "热门文章二", "热门文章三"],
    "版权所有 © 2026 本报",
)
ENGLISH = layout_page(
    ["Home", "News", "Sports", "Business"], STORY_EN[0], STORY_EN[1:], ["Popular one", "Popular two"], "© The Daily"
)


def test_a_chinese_page_is_cut_as_its_english_translation_is(monkeypatch: pytest.MonkeyPatch) -> None:
    # 113 characters in all: under the 200 below which a page is kept whole
    # (nothing worth cutting on it), though its English translation, 260
    # characters, is cut to its story. Its length, 215, is over it.
    url = "https://news.example.com/2026/11/29/new-rules.html"
    # The headline is the extraction's title, not a line of its text (the article-body convention).
    for page, story in ((ENGLISH, STORY_EN), (CHINESE, STORY_ZH)):
        result = extract(page, url=url)
        assert result.title == story[0]
        assert result.text.splitlines() == story[1:]
    # Counted as characters, the same page keeps its menu, sidebar and footer.
    monkeypatch.setattr(document, "weigh_cjk_characters", lambda blocks, containers: None)
    whole = extract(CHINESE, url=url).text.splitlines()
    assert whole[0] == "首页" and whole[-1] == "版权所有 © 2026 本报"


def test_the_ranges_are_the_tokenizers_cjk_characters() -> None:
    import re

    from webclean_scrapy.evaluation.tokenize import tokenize

    pattern = re.compile(f"[{CJK_CHARS}]")
    for first, last in CJK_RANGES:
        for code in (first - 1, first, last, last + 1):
            inside = any(a <= code <= b for a, b in CJK_RANGES)
            assert bool(pattern.match(chr(code))) == inside, hex(code)
            if inside:
                assert tokenize(f"a{chr(code)}{chr(code)}b") == ["a", chr(code), chr(code), "b"]


@pytest.mark.compiled_walk
def test_the_compiled_count_is_the_python_count() -> None:
    rng = random.Random(36)
    edges = [chr(code) for first, last in CJK_RANGES for code in (first - 1, first, last, last + 1)]
    pool = [*edges, "a", " ", "\u00e9", "\u2014", "\u4e2d", "\u3002", "\U0001f600", "\u0416", "\u0e01"]
    texts = ["", "ascii only", "".join(edges)]
    texts += ["".join(rng.choice(pool) for _ in range(rng.randint(0, 60))) for _ in range(300)]
    bounds = np.array([bound for pair in CJK_RANGES for bound in pair], dtype=np.int64)
    out = np.full(len(texts), -1, dtype=np.int64)
    compiled_walk.count_in_ranges(texts, bounds, out)
    assert out.tolist() == count_in_ranges(texts, list(CJK_RANGES))
    assert out[2] == sum(any(a <= ord(c) <= b for a, b in CJK_RANGES) for c in edges) > len(CJK_RANGES)
    with pytest.raises(ValueError):
        compiled_walk.count_in_ranges(texts, bounds, out[:-1])
