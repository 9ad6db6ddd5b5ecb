"""A user's own Scrapy project, outside this repository, adds our components
through settings alone and gets cleaned items from ``scrapy crawl -O``: by
hand (the components in ``DOWNLOADER_MIDDLEWARES``/``ITEM_PIPELINES``) or
with the one-line add-on (``ADDONS``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from _crawl import make_project, run_project_crawl
from components import PNG
from pages import ARTICLE_P1, ARTICLE_P2, gazette_article

SETTINGS = """
BOT_NAME = "outside"
SPIDER_MODULES = ["outside.spiders"]
ROBOTSTXT_OBEY = False
TELNETCONSOLE_ENABLED = False
LOG_LEVEL = "INFO"

# Twisted's own reactor, not asyncio's: worker results come back as Deferreds.
TWISTED_REACTOR = "twisted.internet.epollreactor.EPollReactor"
REMOTE_CONTROL_ENABLED = False  # it needs asyncio (and warns without it)

DOWNLOADER_MIDDLEWARES = {"webclean_scrapy.downloadermiddlewares.extraction.WebcleanMiddleware": 540}
ITEM_PIPELINES = {
    "webclean_scrapy.pipelines.WebcleanPipeline": 300,
    "webclean_scrapy.pipelines.MinTextFilterPipeline": 310,
}
"""

#: The one-line alternative: the add-on enables the same components.
ADDON_SETTINGS = """
BOT_NAME = "outside"
SPIDER_MODULES = ["outside.spiders"]
ROBOTSTXT_OBEY = False
TELNETCONSOLE_ENABLED = False
LOG_LEVEL = "INFO"

ADDONS = {"webclean_scrapy.Addon": 0}
# The test site is on 127.0.0.1, which the add-on's address guard refuses by default.
WEBCLEAN_ALLOW_PRIVATE_ADDRESSES = True
"""

SPIDERS = '''
import scrapy

from webclean_scrapy.downloadermiddlewares.extraction import extraction_of


class RawSpider(scrapy.Spider):
    """Knows nothing of webclean: yields raw bodies, the pipeline cleans them."""

    name = "raw"

    async def start(self):
        for path in ("/article", "/photo.png", "/short"):
            yield scrapy.Request(self.base + path)

    def parse(self, response):
        yield {"url": response.url, "html": response.body}


class MetaSpider(scrapy.Spider):
    """Reads what the middleware attached."""

    name = "meta"

    async def start(self):
        for path in ("/article", "/photo.png", "/short"):
            yield scrapy.Request(self.base + path)

    def parse(self, response):
        extraction = extraction_of(response)
        yield {"url": response.url, "text": extraction.text if extraction else "",
               "title": extraction.title if extraction else ""}
'''


BROKEN_EXTRACTOR = '''
from webclean_scrapy import Extractor


class BrokenExtractor(Extractor):
    """Raises on every page, like a buggy extractor of the user's own."""

    name = "broken"

    def extract_text(self, doc):
        raise RuntimeError("cannot read this page")
'''


def make_outside_project(root: Path, settings: str = SETTINGS) -> Path:
    return make_project(root, "outside", settings, {"broken.py": BROKEN_EXTRACTOR, "spiders/__init__.py": SPIDERS})


def crawl(project: Path, spider: str, base: str, **settings: str) -> tuple[list[dict], str]:
    """``scrapy crawl <spider> -O ...`` in *project*, with only the installed package, as a user would have it."""
    result = run_project_crawl(
        spider, project / "out", project, args={"base": base}, settings={"LOG_LEVEL": "INFO", **settings}
    )
    return result.items, result.log


@pytest.mark.parametrize("settings", [SETTINGS, ADDON_SETTINGS], ids=["manual", "addon"])
def test_outside_project(tmp_path, local_site, settings):
    base = local_site(
        {
            "/article": (200, {"Content-Type": "text/html; charset=utf-8"}, gazette_article()),
            "/photo.png": (200, {"Content-Type": "image/png"}, PNG),
            # 181 characters of text: under the default WEBCLEAN_MIN_TEXT_CHARS (200).
            "/short": (
                200,
                {"Content-Type": "text/html"},
                f"<html><body><article><h1>Brief</h1><p>{ARTICLE_P1}</p></article></body></html>",
            ),
        }
    )
    project = make_outside_project(tmp_path / "project", settings)

    items, log = crawl(project, "raw", base)
    assert len(items) == 1, items  # the PNG has no text, /short is under 200 chars
    item = items[0]
    assert item["url"] == base + "/article" and "html" not in item
    assert item["title"] == "Old bridge to close for repairs"
    assert ARTICLE_P1 in item["text"] and ARTICLE_P2 in item["text"]
    assert item["text_chars"] == len(item["text"]) and item["language"] == "en"
    assert "'webclean/dropped/too_short': 1" in log and "'webclean/dropped/empty': 1" in log
    assert "'webclean/skipped/non_html': 1" in log  # the PNG, seen by the middleware
    assert "'webclean/skipped/binary': 1" in log  # ... and its bytes, by the pipeline

    items, log = crawl(project, "meta", base)
    assert [i["url"] for i in items] == [base + "/article"]
    assert ARTICLE_P1 in items[0]["text"] and items[0]["title"] == "Old bridge to close for repairs"
    assert "'webclean/dropped/too_short': 1" in log and "'webclean/dropped/empty': 1" in log

    # What the log says: one start-up line, drops below WARNING, no warnings at all.
    assert log.count("webclean: extractor webclean (WEBCLEAN_EXTRACTOR='default'), WEBCLEAN_OFFLOAD=process") == 1
    assert "INFO: Dropped: no main text" in log  # the PNG; the short page's drop is a DEBUG line
    assert "WARNING" not in log, log[-3000:]


def test_swallowed_extraction_errors_are_logged_in_the_crawl(tmp_path, local_site):
    base = local_site({"/article": (200, {"Content-Type": "text/html"}, gazette_article())})
    project = make_outside_project(tmp_path / "project", ADDON_SETTINGS)
    items, log = crawl(
        project, "meta", base, WEBCLEAN_EXTRACTOR="outside.broken.BrokenExtractor", WEBCLEAN_OFFLOAD="thread"
    )
    assert items == []  # no text: dropped as empty, at INFO
    assert f"WARNING: Extraction failed for {base}/article: RuntimeError: cannot read this page" in log, log[-3000:]
    assert "'webclean/errors/RuntimeError': 1" in log
