"""What the components log: swallowed extraction errors, drops, the start-up line.

In-process, through Scrapy's own crawler and log formatter (``caplog``); the
same messages in a real crawl's log are checked in ``test_outside_project.py``.
"""

from __future__ import annotations

import asyncio
import logging

import pytest
from scrapy import Request
from scrapy.exceptions import DropItem
from scrapy.http import HtmlResponse
from scrapy.logformatter import LogFormatter
from scrapy.utils.test import get_crawler

from webclean_scrapy import Extractor
from webclean_scrapy.downloadermiddlewares.extraction import WebcleanMiddleware, extraction_of
from webclean_scrapy.engine import compiled
from webclean_scrapy.pipelines import MinTextFilterPipeline, WebcleanPipeline

#: What a build with a C compiler loads (.ci/run and the README's install have one).
COMPILED = "; compiled modules: walk, screen, langid, charset, trees, signals, features, continuity, convention"

PAGE = b"<html><body><p>Some words on a page that an extractor chokes on.</p></body></html>"


class ChokingExtractor(Extractor):
    """Fails on every page, as a buggy extractor or a bad option would."""

    name = "test-choking"

    def extract_text(self, doc):
        raise ZeroDivisionError("the page broke me")


#: By dotted path, not registered: the registry (which tests/_fuzz.py runs entirely) stays as shipped.
CHOKING = "test_logging.ChokingExtractor"


def crawler_for(**settings):
    return get_crawler(settings_dict={"WEBCLEAN_OFFLOAD": "none", **settings})


def warnings_of(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno == logging.WARNING and r.name.startswith("webclean_scrapy")]


def test_middleware_logs_each_swallowed_error_once_with_url(caplog):
    crawler = crawler_for(WEBCLEAN_EXTRACTOR=CHOKING, LOG_LEVEL="INFO")
    middleware = WebcleanMiddleware.from_crawler(crawler)
    urls = ["https://a.example/one", "https://a.example/two"]
    with caplog.at_level(logging.INFO):
        for url in urls:
            response = HtmlResponse(url, body=PAGE, request=Request(url))
            out = asyncio.run(middleware.process_response(response.request, response))
            assert out is response and extraction_of(response) is None  # the page goes on, without text
    warned = warnings_of(caplog)
    assert [r.getMessage() for r in warned] == [
        f"Extraction failed for {url}: ZeroDivisionError: the page broke me" for url in urls
    ]
    assert not any(r.exc_info for r in warned)  # tracebacks only when the crawl logs DEBUG
    assert crawler.stats.get_value("webclean/errors/ZeroDivisionError") == 2


def test_traceback_of_a_swallowed_error_at_debug_level(caplog):
    middleware = WebcleanMiddleware.from_crawler(crawler_for(WEBCLEAN_EXTRACTOR=CHOKING))
    response = HtmlResponse("https://a.example/", body=PAGE, request=Request("https://a.example/"))
    with caplog.at_level(logging.DEBUG):
        asyncio.run(middleware.process_response(response.request, response))
    (record,) = warnings_of(caplog)
    assert record.exc_info and record.exc_info[0] is ZeroDivisionError


def test_pipeline_logs_a_swallowed_error_with_the_item_url(caplog):
    crawler = crawler_for(WEBCLEAN_EXTRACTOR=CHOKING)
    pipeline = WebcleanPipeline.from_crawler(crawler)
    with caplog.at_level(logging.INFO):
        item = asyncio.run(pipeline.process_item({"url": "https://a.example/item", "html": PAGE}))
    assert item["text"] == ""  # the item is kept
    assert [r.getMessage() for r in warnings_of(caplog)] == [
        "Extraction failed for https://a.example/item: ZeroDivisionError: the page broke me"
    ]
    assert crawler.stats.get_value("webclean/errors") == 1


@pytest.mark.parametrize("text, level", [("", logging.INFO), ("too short", logging.DEBUG)])
def test_drops_are_logged_below_warning(text, level):
    crawler = crawler_for()
    pipeline = MinTextFilterPipeline.from_crawler(crawler)
    with pytest.raises(DropItem) as caught:
        pipeline.process_item({"url": "https://a.example/", "text": text})
    # What Scrapy's log formatter makes of it (the "Dropped: ..." line of the crawl log).
    crawler.spider = crawler._create_spider("test")
    entry = LogFormatter().dropped({"url": "https://a.example/"}, caught.value, None, crawler.spider)
    assert entry["level"] == level


@pytest.mark.parametrize(
    "settings, expected",
    [
        (
            {"WEBCLEAN_OFFLOAD": "thread", "WEBCLEAN_WORKERS": 3, "WEBCLEAN_EXTRACTOR": "baseline"},
            "webclean: extractor baseline, WEBCLEAN_OFFLOAD=thread, 3 thread workers" + COMPILED,
        ),
        (
            {"WEBCLEAN_EXTRACTOR": "default"},
            "webclean: extractor webclean (WEBCLEAN_EXTRACTOR='default'), WEBCLEAN_OFFLOAD=none, inline on the reactor thread"
            + COMPILED,
        ),
        (
            {
                "WEBCLEAN_EXTRACTOR": "density",
                "WEBCLEAN_EXTRACTOR_OPTIONS": {"c2": 5},
                "WEBCLEAN_WORKERS": 1,
                "WEBCLEAN_OFFLOAD": "thread",
            },
            "webclean: extractor density, options {'c2': 5}, WEBCLEAN_OFFLOAD=thread, 1 thread worker" + COMPILED,
        ),
    ],
)
def test_one_start_up_line(caplog, settings, expected):
    crawler = crawler_for(**settings)
    with caplog.at_level(logging.INFO):
        WebcleanMiddleware.from_crawler(crawler)
        WebcleanPipeline.from_crawler(crawler)  # shares the middleware's workers: no second line
        MinTextFilterPipeline.from_crawler(crawler)
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("webclean: extractor")]
    assert lines == [expected]
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    crawler._webclean_offloader.close()


def test_pure_python_fallback_is_a_warning(caplog, monkeypatch):
    # A module the build did not make (as on a machine without a C compiler) is named in a WARNING.
    monkeypatch.setitem(compiled.COMPILED_MODULES, "absent", "webclean_scrapy.engine._not_built")
    crawler = crawler_for(WEBCLEAN_OFFLOAD="none")
    with caplog.at_level(logging.INFO):
        WebcleanMiddleware.from_crawler(crawler)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == [
        "webclean: pure-Python fallback for absent (installed without a C compiler): the same output, "
        "several times slower; reinstall with a C compiler to build them"
    ]
    assert COMPILED in caplog.text
    crawler._webclean_offloader.close()
