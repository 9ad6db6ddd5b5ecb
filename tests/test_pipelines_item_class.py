"""ItemClassPipeline: cleaned pages leave as WEBCLEAN_ITEM_CLASS, other items unchanged."""

from __future__ import annotations

import dataclasses

import pytest
from scrapy.exceptions import NotConfigured
from scrapy.utils.test import get_crawler

from webclean_scrapy.items import CleanedPage
from webclean_scrapy.pipelines.item_class import CONVERTED_STAT, ItemClassPipeline


@dataclasses.dataclass
class Page:
    url: str
    text: str = ""
    title: str | None = None


def pipeline(item_class: str | None) -> ItemClassPipeline:
    return ItemClassPipeline.from_crawler(get_crawler(settings_dict={"WEBCLEAN_ITEM_CLASS": item_class}))


def page() -> CleanedPage:
    return CleanedPage(url="https://a.example/x", title="Title", text="Body text.", extractor="webclean", tags=[])


def test_left_out_without_the_setting() -> None:
    for value in (None, "", "default"):
        with pytest.raises(NotConfigured):
            pipeline(value)


def test_a_bad_class_fails_at_start_up() -> None:
    with pytest.raises(ValueError, match="WEBCLEAN_ITEM_CLASS"):
        pipeline("no.such.module.Item")
    with pytest.raises(ValueError, match="not an item class"):
        pipeline("collections.OrderedDict")


def test_converts_cleaned_pages_and_filled_dicts() -> None:
    pipe = pipeline(f"{__name__}.Page")
    item = pipe.process_item(page())
    assert item == Page(url="https://a.example/x", text="Body text.", title="Title")
    filled = pipe.process_item({"url": "https://b.example/", "text": "T", "extractor": "webclean", "mine": 1})
    assert filled == Page(url="https://b.example/", text="T")
    assert pipe.crawler.stats.get_value(CONVERTED_STAT) == 2


def test_other_items_pass_unchanged() -> None:
    pipe = pipeline("dict")
    for item in ({"url": "https://a.example/", "price": 3}, Page(url="https://a.example/")):
        assert pipe.process_item(item) is item
    converted = pipe.process_item(page())
    assert type(converted) is dict and converted["text"] == "Body text."


def test_zyte_article() -> None:
    zyte_common_items = pytest.importorskip("zyte_common_items")
    article = pipeline("zyte_common_items.Article").process_item(page())
    assert isinstance(article, zyte_common_items.Article)
    assert (article.url, article.headline, article.articleBody) == ("https://a.example/x", "Title", "Body text.")
