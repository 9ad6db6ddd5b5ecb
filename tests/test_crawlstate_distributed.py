"""Distributed crawls: ``news`` workers sharing one real ``redis-server`` (scrapy-redis).

Each test starts its own Redis (``redis_url`` fixture: own port, own
directory) and real ``scrapy crawl`` subprocesses against the local news
site of ``pages.build_news_site`` (the ``news_site`` fixture).
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import asdict

import pytest

from _crawl import read_items, start_crawl
from http_server import FaultyRoute, TestSite
from pages import ARTICLES, build_news_site

redis = pytest.importorskip("redis")


def assert_article_set(site, items, log=""):
    counts = Counter(item["url"] for item in items)
    assert sorted(counts) == sorted(site.url(a) for a in ARTICLES), log[-3000:]
    assert max(counts.values()) == 1, counts


def test_two_workers_emit_each_article_once(news_site, redis_url, tmp_path):
    args = {"start_urls": news_site.url("/")}
    settings = {"WEBCLEAN_REDIS_URL": redis_url, "DOWNLOAD_DELAY": 0.05, "LOG_LEVEL": "INFO"}
    outs = [tmp_path / f"worker{i}.jsonl" for i in range(2)]
    workers = [start_crawl("news", tmp_path, output=out, args=args, settings=settings) for out in outs]
    logs = [worker.finish().log for worker in workers]
    assert_article_set(news_site, read_items(*outs), "\n".join(logs))
    assert "webclean_scrapy.crawlstate.distributed.RedisScheduler" in logs[0]
    # The state was shared: scrapy-redis's queue and dupefilter, and the emitted keys.
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    emitted = client.hgetall("news:emitted")
    assert sum(key.startswith("text:") for key in emitted) == len(ARTICLES)
    assert client.scard("news:dupefilter") > len(ARTICLES)
    assert client.zcard("news:requests") == 0
    assert not list(client.scan_iter("news:inflight:*"))  # finished workers leave no ledger


def test_worker_killed_and_restarted_loses_nothing(news_site, redis_url, tmp_path):
    """Worker A is killed (``kill -9``) with requests in flight and items claimed; B carries on;
    A restarted with its JOBDIR queues its taken requests again and releases its unwritten claims."""
    args = {"start_urls": news_site.url("/")}
    slow = {
        "WEBCLEAN_REDIS_URL": redis_url,
        "DOWNLOAD_DELAY": 0.25,
        "DOWNLOAD_DELAY_JITTER": 0,
        "LOG_LEVEL": "INFO",
    }
    job_a, job_b = tmp_path / "job-a", tmp_path / "job-b"
    a1, a2, b = tmp_path / "a1.jsonl", tmp_path / "a2.jsonl", tmp_path / "b.jsonl"
    worker_a = start_crawl("news", tmp_path, output=a1, args=args, settings={**slow, "JOBDIR": str(job_a)})
    worker_a.kill_after_items(2)
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    in_flight = sum(client.hlen(key) for key in client.scan_iter("news:inflight:*"))
    assert in_flight > 0  # A had taken requests it never finished
    worker_b = start_crawl("news", tmp_path, output=b, args=args, settings={**slow, "JOBDIR": str(job_b)})
    restarted = start_crawl("news", tmp_path, output=a2, args=args, settings={**slow, "JOBDIR": str(job_a)})
    logs = [worker_b.finish().log, restarted.finish().log]
    assert "restarted after a crash" in logs[1]
    assert "requests it had taken before it stopped are queued again" in logs[1], logs[1][-3000:]
    assert_article_set(news_site, read_items(a1, a2, b), "\n".join(logs))
    assert not list(client.scan_iter("news:inflight:*"))


def test_bad_redis_url_is_a_clear_error(news_site, tmp_path):
    crawl = start_crawl(
        "news",
        tmp_path,
        args={"start_urls": news_site.url("/")},
        settings={"WEBCLEAN_REDIS_URL": "http://127.0.0.1:1/"},
    )
    assert crawl.wait() != 0
    assert "WEBCLEAN_REDIS_URL must be a redis://" in crawl.log


def test_two_harvest_workers_take_each_result_once(search_site, redis_url, tmp_path):
    args = {
        "query": "the",
        "max_results": 6,
        "engine": "searxng",
        "search_url": search_site.url("/search"),
        "search_robots": "ignore",
    }
    outs = [tmp_path / f"harvest{i}.jsonl" for i in range(2)]
    workers = [
        start_crawl("harvest", tmp_path, output=out, args=args, settings={"WEBCLEAN_REDIS_URL": redis_url})
        for out in outs
    ]
    logs = [worker.finish().log for worker in workers]
    b = search_site.base_url
    items = sorted(read_items(*outs), key=lambda item: item["rank"])
    # The single-process crawl's result (test_harvest_searxng), split between the workers.
    assert [(i["rank"], i["url"]) for i in items] == [
        (1, f"{b}/r/one"),
        (4, f"{b}/r/four"),
        (5, f"{b}/r/five"),
        (6, f"{b}/r/six"),
    ], "\n".join(logs)
    for name in ("one", "four", "five", "six"):
        assert search_site.hits.count(f"/r/{name}") == 1, search_site.hits


def test_redis_store_claims_atomically_and_releases_only_its_own(redis_url, tmp_path):
    import json

    from webclean_scrapy.crawlstate.emitted import RedisEmittedStore
    from webclean_scrapy.crawlstate.jobdir import JobDir

    server = redis.Redis.from_url(redis_url, decode_responses=True)
    a, b = RedisEmittedStore(server, "t:emitted", "A"), RedisEmittedStore(server, "t:emitted", "B")
    assert a.claim(["url:1", "text:x"])
    assert not b.claim(["url:2", "text:x"])  # one key known: nothing of it is recorded
    assert b.seen(["text:x"]) and not b.seen(["url:2"]) and not b.seen([])
    assert b.claim(["url:2", "text:y"])
    assert a.claim(["url:3", "text:z"])
    assert server.hgetall("t:emitted") == {
        "url:1": "A",
        "text:x": "A",
        "url:2": "B",
        "text:y": "B",
        "url:3": "A",
        "text:z": "A",
    }
    # A was killed after writing only its first item; restarted, it releases the other claim, not B's.
    out = tmp_path / "a.jsonl"
    out.write_text(json.dumps({"keys": ["url:1", "text:x"]}) + "\n", encoding="utf-8")
    JobDir(tmp_path / "job").record_output(out)
    crashed = JobDir(tmp_path / "job")
    assert crashed.crashed
    a.open(crashed, lambda item: item["keys"])
    assert server.hgetall("t:emitted") == {"url:1": "A", "text:x": "A", "url:2": "B", "text:y": "B"}
    assert a.claim(["url:3", "text:z"])


def test_redis_store_claim_of_a_page_counts_for_its_retry_on_any_worker(redis_url, tmp_path):
    """A claim whose reply a Redis timeout lost may have run: the page, fetched again by any worker,
    finds its keys held for itself and takes them over; no other page can."""
    import json

    from webclean_scrapy.crawlstate.emitted import RedisEmittedStore
    from webclean_scrapy.crawlstate.jobdir import JobDir

    server = redis.Redis.from_url(redis_url, decode_responses=True)
    a, b = RedisEmittedStore(server, "t:emitted", "A"), RedisEmittedStore(server, "t:emitted", "B")
    keys = ["url:1", "text:x"]
    assert a.claim(keys, page="p1")  # its caller saw a timeout: the page is fetched again, by B
    assert not b.seen(keys, page="p1") and b.seen(keys, page="p2") and b.seen(keys)
    assert not b.claim(["url:2", "text:x"], page="p2") and not b.claim(keys)
    assert b.claim(keys, page="p1")
    assert server.hgetall("t:emitted") == {"url:1": "B p1", "text:x": "B p1"}
    # B was killed after writing the item: restarted, it keeps the claim, no longer open to page p1.
    out = tmp_path / "b.jsonl"
    out.write_text(json.dumps({"keys": keys}) + "\n", encoding="utf-8")
    JobDir(tmp_path / "job").record_output(out)
    crashed = JobDir(tmp_path / "job")
    assert crashed.crashed
    b.open(crashed, lambda item: item["keys"])
    assert server.hgetall("t:emitted") == {"url:1": "B", "text:x": "B"}
    assert b.seen(keys, page="p1") and not a.claim(keys, page="p1")


def test_workers_started_together_all_work(redis_url, tmp_path):
    """The second worker opens while the first still waits for robots.txt and the home page, the
    shared queue empty: it waits for the first (busy in Redis) instead of finishing with nothing."""
    site = TestSite()
    build_news_site(site)
    # robots.txt (the spider's and the robots middleware's), which every first request waits for,
    # is held until the second worker is open and waiting.
    opened = threading.Event()
    site.routes["/robots.txt"] = FaultyRoute(**asdict(site.routes["/robots.txt"]), gate=opened)
    for path in ARTICLES:  # slow: the first cannot take every article before the second looks again
        path = path.partition("?")[0]
        site.routes[path] = FaultyRoute(**asdict(site.routes[path]), delay=1.0)
    settings = {
        "WEBCLEAN_REDIS_URL": redis_url,
        "CONCURRENT_REQUESTS": 4,  # the first takes both start requests, and leaves links in the queue later
        "DOWNLOAD_DELAY": 0.1,
        "DOWNLOAD_DELAY_JITTER": 0,
        "LOG_LEVEL": "INFO",
    }
    outs = [tmp_path / f"together{i}.jsonl" for i in range(2)]
    with site:
        args = {"start_urls": site.url("/")}
        first = start_crawl("news", tmp_path, output=outs[0], args=args, settings=settings)
        client = redis.Redis.from_url(redis_url)
        # The first has queued its two start requests and taken both: they wait for robots.txt.
        while "/robots.txt" not in site.hits or client.scard("news:dupefilter") < 2 or client.zcard("news:requests"):
            assert first.proc.poll() is None, first.log[-3000:]
            time.sleep(0.02)
        second = start_crawl("news", tmp_path, output=outs[1], args=args, settings=settings)
        deadline = time.monotonic() + 120
        while "waiting for 1 busy workers" not in second.log:
            assert second.proc.poll() is None, second.log[-3000:]
            assert time.monotonic() < deadline, second.log[-3000:]
            time.sleep(0.05)
        opened.set()
        results = [first.finish(), second.finish()]
    logs = "\n".join(result.log for result in results)
    assert all(result.items for result in results), ([len(result.items) for result in results], logs[-3000:])
    assert_article_set(site, read_items(*outs), logs)
    assert "waiting for 1 busy workers" in results[1].log
    assert all(result.stats.get("finish_reason") == "finished" for result in results)
