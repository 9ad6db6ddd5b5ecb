"""The crash-safe ``JOBDIR`` request queue: a real ``scrapy crawl news -s JOBDIR=...`` killed with ``kill -9``
mid-crawl and resumed fetches again only what was in flight (the server's own hit counts say so), and
emits each article once."""

from __future__ import annotations

import sqlite3
from collections import Counter

from _crawl import read_items, start_crawl
from http_server import TestSite
from pages import build_archive_site
from webclean_scrapy.crawlstate.sqlqueue import DB_NAME

#: Requests at once in the killed run: what may be in flight at the kill.
CONCURRENCY = 2
#: Pages a resumed run may fetch again beyond those in flight: the requests acknowledged in the last
#: commit interval before the kill.
SLACK = 3


def test_kill_9_and_resume_fetches_again_only_what_was_in_flight(tmp_path):
    site = TestSite()
    articles = build_archive_site(site)
    job, first, second = tmp_path / "job", tmp_path / "out.jsonl", tmp_path / "out2.jsonl"
    args = {"start_urls": site.url("/"), "max_depth": 10}
    slow = {"DOWNLOAD_DELAY": 0.05, "DOWNLOAD_DELAY_JITTER": 0}
    settings = {"JOBDIR": str(job), "CONCURRENT_REQUESTS": CONCURRENCY, "LOG_LEVEL": "INFO"}
    with site:
        start_crawl("news", tmp_path, output=first, args=args, settings={**settings, **slow}).kill_after_items(20)
        before = list(site.hits)
        assert len(read_items(first)) < len(articles)
        resumed = start_crawl("news", tmp_path, output=second, args=args, settings=settings).finish()
        after = site.hits[len(before) :]

    counts = Counter(item["url"] for item in read_items(first, second))
    assert sorted(counts) == sorted(site.url(path) for path in articles), resumed.log[-3000:]
    assert max(counts.values()) == 1, counts
    # robots.txt is Scrapy's RobotsTxtMiddleware's, fetched by every run; every other page fetched
    # by both runs was in flight at the kill.
    fetched = set(before) - {"/robots.txt"}
    again = [path for path in after if path in fetched]
    assert len(fetched) >= 25  # the kill came mid-crawl: re-crawling would fetch all these again
    refetched = resumed.stat("webclean/resume/refetched")
    assert len(again) <= refetched <= CONCURRENCY + SLACK, (again, refetched)
    assert len(set(after)) == len(after), after  # and nothing twice within the resumed run
    assert "did not stop cleanly" in resumed.log and "resuming from its request queue" in resumed.log
    assert resumed.stat("webclean/job/resumed_after_crash") == 1
    # Finished: every request acknowledged, the queue empty; the fingerprints stay for a later run.
    with sqlite3.connect(job / "webclean" / DB_NAME) as db:
        assert db.execute("SELECT count(*) FROM queue").fetchone() == (0,)
        assert db.execute("SELECT count(*) FROM seen").fetchone()[0] >= len(articles)
