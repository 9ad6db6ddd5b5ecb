"""webclean_scrapy.contrib.poet: page objects run by scrapy-poet in a real crawl of a project of a user's own."""

from __future__ import annotations

import pytest

from _crawl import make_project, run_crawl
from conftest import TestSite
from pages import A1, A2

pytest.importorskip("scrapy_poet")

SETTINGS = """
BOT_NAME = "poetproject"
SPIDER_MODULES = ["poetproject.spiders"]
ADDONS = {"webclean_scrapy.Addon": 0, "scrapy_poet.Addon": 300}
ROBOTSTXT_OBEY = False
"""

SPIDER = """
import scrapy
from scrapy_poet import DummyResponse

from webclean_scrapy.contrib.poet import CleanedArticlePage, CleanedWebPage


class Pages(scrapy.Spider):
    name = "pages"

    def __init__(self, urls="", **kwargs):
        super().__init__(**kwargs)
        self.start_urls = urls.split(",")

    async def start(self):
        for i, url in enumerate(self.start_urls):
            yield scrapy.Request(url, callback=self.parse if i % 2 == 0 else self.parse_article)

    async def parse(self, response: DummyResponse, page: CleanedWebPage):
        item = await page.to_item()
        item["query"] = type(page).__name__
        yield item

    async def parse_article(self, response: DummyResponse, page: CleanedArticlePage):
        yield await page.to_item()
"""


def test_page_objects_in_a_scrapy_poet_crawl(news_site: TestSite, tmp_path) -> None:
    project = make_project(tmp_path / "project", "poetproject", SETTINGS, {"spiders/__init__.py": SPIDER})
    urls = [news_site.url(A1), news_site.url(A2)]
    result = run_crawl("pages", tmp_path / "out", project=project, args={"urls": ",".join(urls)})
    assert "Traceback" not in result.log, result.log[-3000:]
    by_url = {item["url"]: item for item in result.items}
    assert set(by_url) == set(urls)
    cleaned, article = by_url[urls[0]], by_url[urls[1]]
    assert cleaned["query"] == "CleanedWebPage"  # the CleanedPage item, through the page object
    assert cleaned["extractor"] and len(cleaned["text"]) > 200 and cleaned["title"]
    assert article["headline"] and len(article["articleBody"]) > 200 and "text" not in article
    # One extraction per page: to_item reused the middleware's (which counts each one it makes).
    assert result.stat("webclean/pages/extracted") == 2


def test_page_objects_carry_the_fields_the_crawl_asks_for(news_site: TestSite, tmp_path) -> None:
    """``WEBCLEAN_FIELDS``: the page object's item leaves out what was not computed."""
    project = make_project(tmp_path / "project", "poetproject", SETTINGS, {"spiders/__init__.py": SPIDER})
    url = news_site.url(A1)
    settings = {"WEBCLEAN_FIELDS": ["title"]}
    result = run_crawl("pages", tmp_path / "out", project=project, args={"urls": url}, settings=settings)
    complete = run_crawl("pages", tmp_path / "complete", project=project, args={"urls": url})
    (item,), (full,) = result.items, complete.items
    assert item["title"] == full["title"] and item["text"] == full["text"] and full["detected_language"]
    assert "detected_language" not in item and "author" not in item and "sitename" not in item
