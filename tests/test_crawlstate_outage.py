"""Redis outages during a distributed crawl: nothing lost, nothing twice, and the log says so.

Real ``scrapy crawl news`` workers (subprocesses) against a local news site, sharing a real
``redis-server`` (the ``redis_server`` fixture) that the tests kill (``kill -9``) and restart on the
same port, with its append-only file or without, pause (``SIGSTOP``) and resume, or start only after
a worker.
"""

from __future__ import annotations

import signal
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict

import pytest

from _crawl import Crawl, read_items, start_crawl
from http_server import FaultyRoute, TestSite
from pages import A5, ARTICLES, build_news_site

pytest.importorskip("redis")

from webclean_scrapy.crawlstate.distributed import RedisScheduler  # noqa: E402
from webclean_scrapy.crawlstate.jobdir import STATE_DIR  # noqa: E402

WARNING = "has been unreachable for"
BACK = "is reachable again, after"
#: Each worker takes a request or two at a time, slowly: the crawl is still running when Redis goes.
SLOW = {"CONCURRENT_REQUESTS": 2, "DOWNLOAD_DELAY": 0.1, "DOWNLOAD_DELAY_JITTER": 0, "LOG_LEVEL": "INFO"}


@pytest.fixture
def site():
    """The news site, one of its articles slow to answer (so that its callback runs during the outage)."""
    site = TestSite()
    build_news_site(site)
    site.routes[A5] = FaultyRoute(**asdict(site.routes[A5]), delay=2.0)
    with site:
        yield site


def wait_for(condition: Callable[[], bool], crawls: list[Crawl], what: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        for crawl in crawls:
            assert crawl.proc.poll() is None, f"a worker ended before {what}:\n{crawl.log[-3000:]}"
        assert time.monotonic() < deadline, f"no {what} after {timeout} s:\n" + "\n".join(c.log[-2000:] for c in crawls)
        time.sleep(0.05)


def start_workers(site: TestSite, redis_url: str, tmp_path, count: int = 2) -> list[Crawl]:
    settings = {**SLOW, "WEBCLEAN_REDIS_URL": redis_url}
    return [
        start_crawl(
            "news", tmp_path, output=tmp_path / f"w{i}.jsonl", args={"start_urls": site.url("/")}, settings=settings
        )
        for i in range(count)
    ]


def assert_clean_finish(site: TestSite, workers: list[Crawl]) -> list[str]:
    """Each worker finished (exit 0, ``finished``), with one WARNING and one INFO about the outage and no
    lost task; the workers' outputs together hold each article exactly once. The logs."""
    results = [worker.finish() for worker in workers]
    logs = [result.log for result in results]
    joined = "\n".join(logs)
    counts = Counter(item["url"] for item in read_items(*(worker.output for worker in workers)))
    assert sorted(counts) == sorted(site.url(a) for a in ARTICLES), joined[-4000:]
    assert max(counts.values()) == 1, counts
    for result in results:
        assert result.stats["finish_reason"] == "finished", result.stats
        assert "Task exception was never retrieved" not in result.log and "Traceback" not in result.log
        assert "Spider error" not in result.log, result.log[-3000:]
    return logs


def test_redis_killed_and_restarted_with_its_append_only_file(site, redis_server, tmp_path):
    """``kill -9`` of Redis mid-crawl: the workers wait, keep the links they could not queue, fetch again
    the slow article whose "already emitted" check failed, and carry on once Redis is back."""
    redis_server.start()
    workers = start_workers(site, redis_server.url, tmp_path)
    wait_for(lambda: A5 in site.hits, workers, "request for the slow article")
    redis_server.kill()
    wait_for(lambda: all(WARNING in worker.log for worker in workers), workers, "outage warning in every worker")
    wait_for(lambda: any(f"{A5} was processed" in w.log for w in workers), workers, "failed check of the slow article")
    redis_server.start()
    logs = assert_clean_finish(site, workers)
    for log in logs:
        assert log.count(WARNING) == 1 and log.count(BACK) == 1, log[-3000:]
    retried = [line for log in logs for line in log.splitlines() if "it will be fetched again" in line]
    assert any(site.url(A5) in line and "ConnectionError" in line for line in retried), retried


def test_redis_paused(site, redis_server, tmp_path):
    """``SIGSTOP`` for about 10 s, then ``SIGCONT``: the workers' calls time out within seconds, each worker
    says so in one WARNING while Redis is still frozen, and nothing is lost or repeated (calls that timed out
    run once Redis wakes up: their retries must not drop what they did)."""
    redis_server.start()
    workers = start_workers(site, redis_server.url, tmp_path)
    wait_for(lambda: A5 in site.hits, workers, "request for the slow article")
    redis_server.pause()
    paused = time.monotonic()
    try:
        wait_for(lambda: all(WARNING in w.log for w in workers), workers, "outage warning during the pause", 10)
        time.sleep(max(0.0, paused + 10 - time.monotonic()))  # frozen 10 s: several timed-out calls each
    finally:
        redis_server.resume()
    logs = assert_clean_finish(site, workers)
    for log in logs:
        assert log.count(WARNING) == 1 and log.count(BACK) == 1, log[-3000:]


def test_worker_started_during_an_outage_waits_for_redis(site, redis_server, tmp_path):
    workers = start_workers(site, redis_server.url, tmp_path, count=1)
    wait_for(lambda: WARNING in workers[0].log, workers, "outage warning")
    assert not site.hits  # nothing fetched without the shared dupefilter
    redis_server.start()
    (log,) = assert_clean_finish(site, workers)
    assert "Engine slot not assigned" not in log and log.count(BACK) == 1


def test_redis_restarted_without_its_data_stops_the_workers(site, redis_server, tmp_path):
    """A Redis restarted empty (no persistence) would have the workers fetch and emit everything again:
    the missing run marker stops them, with one ERROR each and their own finish reason."""
    redis_server.appendonly = False
    redis_server.start()
    workers = start_workers(site, redis_server.url, tmp_path)
    wait_for(lambda: A5 in site.hits, workers, "request for the slow article")
    redis_server.kill()
    redis_server.start()
    for worker in workers:
        assert worker.wait(timeout=120) == 0, worker.log[-3000:]
        log = worker.log
        lines = [line for line in log.splitlines() if "lost this crawl's state" in line]
        assert len(lines) == 1 and "] ERROR: " in lines[0], log[-3000:]
        assert "'finish_reason': 'webclean_redis_state_lost'" in log, log[-3000:]
        assert "Task exception was never retrieved" not in log and "Traceback" not in log


def test_worker_stopped_during_an_outage_keeps_its_requests_in_its_jobdir(site, redis_server, tmp_path):
    """Ctrl-C while Redis is down: the links the worker could not queue go to its JOBDIR, and its next start
    (Redis back, same JOBDIR) queues them, so the two runs together emit each article exactly once."""
    redis_server.start()
    job = tmp_path / "job"
    settings = {**SLOW, "WEBCLEAN_REDIS_URL": redis_server.url, "JOBDIR": str(job)}
    args = {"start_urls": site.url("/")}
    first = start_crawl("news", tmp_path, output=tmp_path / "first.jsonl", args=args, settings=settings)
    wait_for(lambda: A5 in site.hits, [first], "request for the slow article")
    redis_server.kill()
    wait_for(lambda: f"{A5} was processed" in first.log, [first], "failed check of the slow article")
    first.proc.send_signal(signal.SIGINT)
    assert first.wait(timeout=120) == 0, first.log[-3000:]
    kept = [line for line in first.log.splitlines() if "requests it could not queue are kept in" in line]
    assert len(kept) == 1 and "] WARNING: " in kept[0], first.log[-3000:]
    pending = job / STATE_DIR / RedisScheduler.PENDING_FILE
    assert pending.exists()

    redis_server.start()
    second = start_crawl("news", tmp_path, output=tmp_path / "second.jsonl", args=args, settings=settings)
    result = second.finish()
    assert not pending.exists()
    assert result.stats["webclean/redis/queued_from_jobdir"] >= 1, result.stats
    counts = Counter(item["url"] for item in read_items(first.output, second.output))
    assert sorted(counts) == sorted(site.url(a) for a in ARTICLES), result.log[-4000:]
    assert max(counts.values()) == 1, counts
    for log in (first.log, result.log):
        assert "Task exception was never retrieved" not in log and "Traceback" not in log, log[-3000:]
