"""The ``news`` spider against a local site that misbehaves in every way a real one does.

Pages answer 500, hang past ``DOWNLOAD_TIMEOUT``, reset the connection in
mid-body, exceed ``DOWNLOAD_MAXSIZE``, lie about their Content-Type, send
truncated gzip or redirect in a loop. The crawl must finish, every good
article must come out, each failure is counted under ``news/errors/<reason>``
and logged once, at the level Scrapy itself uses.
"""

from __future__ import annotations

import gzip
import re

import pytest

from _crawl import run_crawl
from test_news_spider import article_html, hub_html, story_paragraphs
from webclean_scrapy.demo.server import LocalSite

GOOD = {
    "/2024/06/01/council-approves-new-harbour-wall/": ("the new harbour wall", "Eastport", "Mayor Ruth Allen"),
    "/2024/06/02/river-survey-finds-returning-otters/": ("the otter survey", "the Dee valley", "Dr Priya Nair"),
    "/2024/06/03/library-extends-weekend-hours/": ("longer library hours", "Millbrook", "Tom Okafor"),
    "/2024/06/04/ferry-timetable-changes-for-summer/": ("the ferry timetable", "Port Carrow", "Ines Moreau"),
    "/2024/06/05/bakery-wins-regional-bread-award/": ("the sourdough award", "Kettleby", "Sam Whitlock"),
}
#: Good articles served with a Content-Type that says they are not HTML.
MISLABELLED = {
    "/2024/06/06/png-labelled-story-about-the-fair/": "image/png",
    "/2024/06/07/octet-stream-story-about-the-choir/": "application/octet-stream",
}
SERVER_ERROR = "/2024/06/10/server-error-story-about-roads/"
HANG = "/2024/06/11/slow-story-about-the-bridge/"
RESET = "/2024/06/12/reset-story-about-the-school/"
HUGE = "/2024/06/13/huge-story-about-the-archive/"
BINARY = "/2024/06/14/binary-served-as-html-page/"
TRUNCATED_GZIP = "/2024/06/15/truncated-gzip-story-about-rain/"
LOOP = "/2024/06/16/redirect-loop-story/"
FAULTS = [SERVER_ERROR, HANG, RESET, HUGE, BINARY, TRUNCATED_GZIP, LOOP]

TIMEOUT = 3  # DOWNLOAD_TIMEOUT of the test crawls, seconds
MAXSIZE = 100_000  # DOWNLOAD_MAXSIZE of the test crawls, bytes
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 20


def story(path: str, topic: str, place: str, person: str) -> str:
    title = " ".join(path.strip("/").split("/")[-1].split("-")).capitalize()
    return article_html(title, story_paragraphs(topic, place, person), canonical="{{BASE}}" + path)


def build_faulty_site(site: LocalSite) -> None:
    site.add("/robots.txt", "User-agent: *\nAllow: /\n", "text/plain")
    site.add("/", hub_html("Valley Courier", [*GOOD, *MISLABELLED, *FAULTS]))
    for path in ("/section/world/", "/section/science/", "/tag/energy/", "/about/", "/privacy/"):
        site.add(path, hub_html(path.strip("/").title(), list(GOOD)[:2]))
    for path, words in GOOD.items():
        site.add(path, story(path, *words))
    for path, content_type in MISLABELLED.items():
        site.add(path, story(path, f"the story at {path[12:30]}", "Hollins Green", "Beth Carey"), content_type)
    body = story(SERVER_ERROR, "road repairs", "Northgate", "Ada Byrne")
    site.add(SERVER_ERROR, body, status=500)
    site.add(HANG, story(HANG, "the bridge", "Westford", "Lee Chan"), delay=60)
    site.add(RESET, story(RESET, "the new school", "Ashby", "Kim Novak"), reset_after=400)
    padding = "<p>" + "An archive paragraph that goes on and on. " * 40 + "</p>"
    site.add(
        HUGE,
        story(HUGE, "the archive", "Oldham", "Ravi Shah").replace(
            "</article>", padding * (MAXSIZE // len(padding) + 2) + "</article>"
        ),
    )
    site.add(BINARY, PNG, "text/html; charset=utf-8")
    page = story(TRUNCATED_GZIP, "the rain", "Fenwick", "Jo March").replace("{{BASE}}", site.base_url)
    whole = gzip.compress(page.encode())
    site.add(TRUNCATED_GZIP, whole[: len(whole) // 2], **{"Content-Encoding": "gzip"})  # type: ignore[arg-type]  # a header name is no identifier
    site.add(LOOP, b"", status=302, Location=site.url(LOOP + "next/"))
    site.add(LOOP + "next/", b"", status=302, Location=site.url(LOOP))


@pytest.fixture(scope="module")
def faulty_site():
    site = LocalSite()
    build_faulty_site(site)
    with site:
        yield site


def crawl(site: LocalSite, tmp_path, **settings):
    return run_crawl(
        "news",
        tmp_path,
        args={"start_urls": site.url("/"), "sitemaps": 0},
        timeout=300,
        settings={"DOWNLOAD_TIMEOUT": TIMEOUT, "DOWNLOAD_MAXSIZE": MAXSIZE, "LOG_LEVEL": "INFO", **settings},
    )


def log_lines(stderr: str, level: str, needle: str) -> list[str]:
    return [line for line in stderr.splitlines() if f"] {level}: " in line and needle in line]


@pytest.fixture(scope="module")
def fault_crawl(faulty_site, tmp_path_factory):
    return crawl(faulty_site, tmp_path_factory.mktemp("faults"))


def test_every_good_article_comes_out(faulty_site, fault_crawl):
    urls = {item["url"] for item in fault_crawl.items}
    expected = {faulty_site.url(p) for p in [*GOOD, *MISLABELLED]}
    assert expected <= urls, fault_crawl.stats
    # Only the truncated gzip page may add an item (its text is whatever survived).
    assert urls - expected <= {faulty_site.url(TRUNCATED_GZIP)}
    assert fault_crawl.stats["finish_reason"] == "finished"
    assert len(urls) == len(fault_crawl.items)
    for item in fault_crawl.items:
        if item["url"] in expected:
            assert "council chamber" in item["text"] and "\ufffd" not in item["text"]


def test_each_failure_is_counted(fault_crawl):
    stats = fault_crawl.prefixed("news/errors")
    assert stats["news/errors/http_500"] == 1
    assert stats["news/errors/DownloadTimeoutError"] == 1
    assert stats["news/errors/DownloadCancelledError"] == 1  # DOWNLOAD_MAXSIZE
    reset = {
        k: v
        for k, v in stats.items()
        if k
        not in {
            "news/errors",
            "news/errors/http_500",
            "news/errors/DownloadTimeoutError",
            "news/errors/DownloadCancelledError",
            "news/errors/ignored",
            "news/errors/redirect_loop",
        }
    }
    assert sum(reset.values()) == 1, stats  # the connection reset, under Scrapy's exception name
    # The redirect loop: dropped by the dupefilter, counted by the spider (request_dropped).
    assert stats["news/errors/redirect_loop"] == 1
    assert stats["news/errors"] == 5 + stats.get("news/errors/ignored", 0)
    # Binary bytes labelled text/html are never extracted.
    assert fault_crawl.stat("webclean/skipped/binary") == 1
    assert fault_crawl.stat("news/non_html") == 1


def test_each_failure_is_logged_once_at_scrapys_level(faulty_site, fault_crawl):
    err = fault_crawl.log
    # HttpErrorMiddleware's own message and level (it stays silent when an errback handles the error).
    assert len(log_lines(err, "INFO", f"Ignoring response <500 {faulty_site.url(SERVER_ERROR)}>")) == 1
    # Download errors: the log formatter's "Error downloading" at ERROR, one line each.
    for path, reason in ((HANG, "took longer than 3.0 seconds"), (RESET, "ResponseDataLossError")):
        lines = log_lines(err, "ERROR", f"Error downloading <GET {faulty_site.url(path)}>: ")
        assert len(lines) == 1 and reason in lines[0], err[-3000:]
    # DOWNLOAD_MAXSIZE: Scrapy's download handler already warned; no second message.
    assert len(log_lines(err, "WARNING", f"{faulty_site.url(HUGE)}")) == 1
    assert not [line for line in err.splitlines() if HUGE in line and "ERROR" in line]
    assert "Traceback" not in err and "Spider error" not in err
    assert len(log_lines(err, "ERROR", "Error downloading")) == 2


def test_retried_failures_are_logged_by_retry_middleware_only(faulty_site, tmp_path):
    result = crawl(faulty_site, tmp_path, RETRY_ENABLED=True, RETRY_TIMES=1)
    assert {faulty_site.url(p) for p in [*GOOD, *MISLABELLED]} <= {i["url"] for i in result.items}
    err = result.log
    for path in (SERVER_ERROR, HANG, RESET):
        gave_up = [line for line in log_lines(err, "ERROR", "Gave up retrying") if faulty_site.url(path) in line]
        assert len(gave_up) == 1, err[-3000:]
    assert not log_lines(err, "ERROR", "Error downloading")
    assert not log_lines(err, "INFO", "Ignoring response <500")
    assert result.stat("news/errors/http_500") == 1 and result.stat("news/errors/DownloadTimeoutError") == 1
    assert result.stat("retry/max_reached") == 3
    assert re.search(r"\] WARNING: .*" + re.escape(faulty_site.url(HUGE)), err)
