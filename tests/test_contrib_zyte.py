"""webclean_scrapy.contrib.zyte: cleaned pages as zyte-common-items, and a crawl that exports them."""

from __future__ import annotations

from typing import Any

import pytest

from _crawl import run_crawl
from conftest import TestSite
from pages import A1, A2
from webclean_scrapy import extract
from webclean_scrapy.contrib.zyte import to_article, to_page_content, to_zyte_item, zyte_date
from webclean_scrapy.items import CleanedPage, convert_item, load_item_class

zyte_common_items = pytest.importorskip("zyte_common_items")

PAGE = (
    '<html lang="de"><head><title>Site | Story</title>'
    '<meta name="author" content="Ada Lovelace, Charles Babbage">'
    '<meta property="article:published_time" content="2025-09-04T10:30:00+02:00">'
    '<meta property="article:modified_time" content="2025-09-05">'
    '<meta property="og:image" content="/lead.jpg">'
    '<meta name="description" content="A summary.">'
    '<link rel="canonical" href="https://news.example/story">'
    "</head><body><nav><a href='/'>Home</a></nav><article><h1>The engine runs</h1>"
    + "".join(f"<p>Paragraph {i} of the story tells what the engine computed on day {i}.</p>" for i in range(12))
    + "</article></body></html>"
)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2025-09-04", "2025-09-04T00:00:00"),
        ("2025-09-04T10:30", "2025-09-04T10:30:00"),
        ("2025-09-04T10:30:00.123+02:00", "2025-09-04T10:30:00+02:00"),
        ("2025-09-04T10:30:00-05:30", "2025-09-04T10:30:00-05:30"),
        ("2025-09-04T10:30:00Z", "2025-09-04T10:30:00Z"),
        ("2025-09-04T10:30:00+00:00", "2025-09-04T10:30:00Z"),
        ("4 September 2025", None),
        ("", None),
        (None, None),
    ],
)
def test_zyte_date(value: str | None, expected: str | None) -> None:
    assert zyte_date(value) == expected


def test_article_from_extraction() -> None:
    extraction = extract(PAGE, "https://news.example/story?utm_source=x", output=("text", "html"))
    article = to_article(extraction)
    assert isinstance(article, zyte_common_items.Article)
    assert article.url == "https://news.example/story?utm_source=x"
    assert article.canonicalUrl == "https://news.example/story"
    assert article.headline == extraction.title and article.headline
    assert article.articleBody == extraction.text.strip() and "Paragraph 11" in article.articleBody
    assert article.articleBodyHtml is not None and "<p>" in article.articleBodyHtml
    assert [a.nameRaw for a in article.authors or []] == ["Ada Lovelace", "Charles Babbage"]
    assert article.datePublished == "2025-09-04T10:30:00+02:00"
    assert article.datePublishedRaw == "2025-09-04T10:30:00+02:00"
    assert article.dateModified == "2025-09-05T00:00:00"
    assert article.inLanguage == "de"
    assert article.mainImage == zyte_common_items.Image(url="https://news.example/lead.jpg")
    assert article.description == "A summary."
    assert article.metadata is not None and article.metadata.dateDownloaded


def test_article_without_formats_or_metadata_leaves_fields_out() -> None:
    page = CleanedPage(url="https://a.example/x", title="", text="  Body.  ", extractor="webclean", tags=[])
    article = to_article(page)
    assert article.articleBody == "Body."
    assert (article.headline, article.articleBodyHtml, article.authors, article.datePublished) == (None,) * 4
    assert (article.mainImage, article.inLanguage, article.canonicalUrl) == (None, None, None)


def test_modification_date_stands_in_for_a_missing_publication_date() -> None:
    article = to_article({"url": "https://a.example/", "text": "x", "date_modified": "2025-01-02T03:04:05Z"})
    assert (article.datePublished, article.dateModified) == ("2025-01-02T03:04:05Z", "2025-01-02T03:04:05Z")


def test_page_content() -> None:
    extraction = extract(PAGE, "https://news.example/story")
    content = to_page_content(extraction)
    assert isinstance(content, zyte_common_items.PageContent)
    assert content.itemMain == extraction.text.strip()
    assert content.title == content.headline == extraction.title
    assert content.canonicalUrl == "https://news.example/story"
    again = to_zyte_item(extraction, zyte_common_items.PageContent)
    assert isinstance(again, zyte_common_items.PageContent) and again.itemMain == content.itemMain


def test_a_url_is_required() -> None:
    with pytest.raises(ValueError, match="URL"):
        to_article({"text": "x"})


def test_other_zyte_classes_are_refused() -> None:
    with pytest.raises(TypeError):
        to_zyte_item({"url": "https://a.example/"}, zyte_common_items.Product)
    with pytest.raises(ValueError, match="Article and PageContent"):
        load_item_class("zyte_common_items.Product")


def test_convert_item_dispatches_zyte_classes() -> None:
    item: Any = convert_item({"url": "https://a.example/", "text": "Body", "title": "T"}, zyte_common_items.Article)
    assert (item.headline, item.articleBody) == ("T", "Body")
    assert load_item_class("zyte_common_items.Article") is zyte_common_items.Article


def test_news_crawl_exports_articles(news_site: TestSite, tmp_path) -> None:
    """The news spider with WEBCLEAN_ITEM_CLASS: Scrapy's feed exporter writes zyte Articles."""
    result = run_crawl(
        "news",
        tmp_path,
        args={"start_urls": news_site.url("/")},
        settings={"WEBCLEAN_ITEM_CLASS": "zyte_common_items.Article", "WEBCLEAN_FORMATS": ["html"]},
    )
    assert "Traceback" not in result.log, result.log[-3000:]
    by_url = {item["url"]: item for item in result.items}
    assert {news_site.url(A1), news_site.url(A2)} <= set(by_url)
    for item in result.items:
        assert "text" not in item and "extractor" not in item
        assert item["headline"] and item["articleBody"] and item["articleBodyHtml"].startswith("<")
        assert zyte_common_items.Article.from_dict(item).url == item["url"]  # the exported shape reads back
    assert result.stat("webclean/item_class/converted") == len(result.items)
    assert result.stat("news/items") == len(result.items)
