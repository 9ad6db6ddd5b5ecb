"""A forced shutdown (Ctrl-C twice) ends ``scrapy crawl`` with a non-zero status; a graceful one still with 0.

Real ``scrapy crawl`` subprocesses against a local site whose article hangs, so that the crawl is
still running when the signals arrive.
"""

from __future__ import annotations

import signal
import time

import pytest

from _crawl import Crawl, start_crawl
from http_server import TestSite

HANGING = "/hangs"


@pytest.fixture
def hanging_site():
    site = TestSite()
    site.add("/robots.txt", "User-agent: *\nAllow: /\n", "text/plain")
    site.add("/", f'<html><body><a href="{HANGING}">a story</a></body></html>')
    site.add_fault(HANGING, "<html><body><p>Never sent in time.</p></body></html>", delay=60.0)
    with site:
        yield site


def wait_for(crawl: Crawl, condition, what: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert crawl.proc.poll() is None, f"the crawl ended before {what}:\n{crawl.log[-3000:]}"
        assert time.monotonic() < deadline, f"no {what} after {timeout} s:\n{crawl.log[-3000:]}"
        time.sleep(0.05)


def interrupted_crawl(site: TestSite, tmp_path, times: int, **settings) -> tuple[int, str]:
    """Start a crawl, send SIGINT *times* times once it waits for the hanging page; its exit code and log."""
    crawl = start_crawl(
        "news",
        tmp_path,
        args={"start_urls": site.url("/"), "sitemaps": 0, "feeds": 0},
        settings={"LOG_LEVEL": "INFO", "DOWNLOAD_TIMEOUT": 30, **settings},
    )
    wait_for(crawl, lambda: HANGING in site.hits, "request for the hanging page")
    crawl.proc.send_signal(signal.SIGINT)
    wait_for(crawl, lambda: "shutting down gracefully" in crawl.log, "graceful shutdown message")
    if times == 2:
        crawl.proc.send_signal(signal.SIGINT)
    return crawl.wait(timeout=120), crawl.log


def test_forced_shutdown_exits_non_zero(hanging_site, tmp_path):
    code, log = interrupted_crawl(hanging_site, tmp_path, times=2)
    assert "forcing unclean shutdown" in log, log[-3000:]
    assert code != 0, log[-3000:]
    assert log.count("] ERROR: Forced shutdown: the reactor stopped before the spider closed") == 1, log[-3000:]


def test_graceful_shutdown_still_exits_zero(hanging_site, tmp_path):
    """The control: one Ctrl-C waits for the hanging download (here until its timeout), closes the spider, exits 0."""
    code, log = interrupted_crawl(hanging_site, tmp_path, times=1, DOWNLOAD_TIMEOUT=8)
    assert code == 0, log[-3000:]
    assert "Spider closed (shutdown)" in log and "Forced shutdown" not in log, log[-3000:]
