"""Pause and resume with nothing lost: ``kill -9`` a real ``scrapy crawl news -s JOBDIR=...``, resume it;
and the JOBDIR feed storage, which hands each item to the kernel at once.

The crawl runs against the local news site of ``pages.build_news_site`` (the ``news_site`` fixture),
slowed down (``DOWNLOAD_DELAY``) so that the kill, which comes as soon as
the output holds a few items, lands mid-crawl however loaded the machine.
"""

from __future__ import annotations

import json
import os
import threading
from collections import Counter

import pytest
from scrapy.spiders import Spider

from _crawl import read_items, start_crawl
from pages import ARTICLES
from webclean_scrapy.crawlstate.jobdir import DurableFileFeedStorage, JobDir

SLOW = {"DOWNLOAD_DELAY": 0.25, "DOWNLOAD_DELAY_JITTER": 0, "LOG_LEVEL": "INFO"}


@pytest.mark.parametrize("same_output", [False, True], ids=["two-outputs", "same-output"])
def test_kill_9_and_resume_emits_every_article_once(news_site, tmp_path, same_output):
    job = tmp_path / "job"
    first = tmp_path / "out.jsonl"
    second = first if same_output else tmp_path / "out2.jsonl"
    args = {"start_urls": news_site.url("/")}
    settings = {**SLOW, "JOBDIR": str(job)}

    start_crawl("news", tmp_path, output=first, args=args, settings=settings).kill_after_items(3)
    written = read_items(first)
    assert 3 <= len(written) < len(ARTICLES)
    assert (job / "webclean" / "running").exists()  # the killed run never closed

    # Resume: -O on the same file appends (it holds the job's items); a new file is just written. Nothing
    # is killed this time, so the resumed crawl runs at full speed (the job keeps no download delay).
    resumed = {"JOBDIR": str(job), "LOG_LEVEL": "INFO"}
    log = start_crawl("news", tmp_path, output=second, args=args, settings=resumed).finish().log
    assert "did not stop cleanly" in log
    items = read_items(first, second) if not same_output else read_items(first)
    counts = Counter(item["url"] for item in items)
    assert sorted(counts) == sorted(news_site.url(a) for a in ARTICLES), log[-3000:]
    assert max(counts.values()) == 1, counts
    # Items written before the kill were not overwritten.
    assert [i["url"] for i in read_items(first)[: len(written)]] == [i["url"] for i in written]
    assert not (job / "webclean" / "running").exists()


def test_graceful_resume_after_finish_emits_nothing_again(news_site, tmp_path):
    """A finished job run again: its queue is empty and every request seen; the emitted set comes from the outputs."""
    job = tmp_path / "job"
    args = {"start_urls": news_site.url("/")}
    settings = {"JOBDIR": str(job), "LOG_LEVEL": "INFO"}
    start_crawl("news", tmp_path, output=tmp_path / "a.jsonl", args=args, settings=settings).finish()
    assert len(read_items(tmp_path / "a.jsonl")) == len(ARTICLES)
    # Forget the queue and its fingerprints: every page is fetched again, yet no article is emitted twice.
    for path in (job / "webclean").glob("requests.sqlite*"):
        path.unlink()
    log = start_crawl("news", tmp_path, output=tmp_path / "b.jsonl", args=args, settings=settings).finish().log
    assert read_items(tmp_path / "b.jsonl") == [], log[-3000:]
    assert "did not stop cleanly" not in log


def test_jobdir_reads_back_only_complete_lines(tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_text(
        json.dumps({"url": "http://a/1", "text": "x"}) + "\n" + '{"url": "http://a/2", "te', encoding="utf-8"
    )
    job = JobDir(tmp_path / "job")
    job.record_output(out)
    assert (tmp_path / "job" / "webclean" / "running").exists()
    again = JobDir(tmp_path / "job")  # the first never closed: a crash
    assert again.crashed and again.worker_id == job.worker_id
    assert [item["url"] for item in again.previous_items()] == ["http://a/1"]
    again.close()
    assert not JobDir(tmp_path / "job").crashed


def test_memory_store_is_seeded_from_the_jobs_outputs(tmp_path):
    from webclean_scrapy.crawlstate.emitted import MemoryEmittedStore

    out = tmp_path / "out.jsonl"
    out.write_text(json.dumps({"keys": ["url:1", "text:x"]}) + "\n" + json.dumps({"other": 1}) + "\n", encoding="utf-8")
    JobDir(tmp_path / "job").record_output(out)
    store = MemoryEmittedStore()
    store.open(JobDir(tmp_path / "job"), lambda item: item.get("keys"))
    assert store.seen(["text:x"]) and not store.claim(["url:9", "url:1"])
    assert store.claim(["url:2", "text:y"]) and not store.claim(["text:y"])


def test_jobdir_extension_listed_by_the_project_keeps_its_priority(tmp_path):
    from scrapy.settings import Settings

    from webclean_scrapy.crawlstate.jobdir import JobDirExtension, configure_settings

    path = "webclean_scrapy.crawlstate.jobdir.JobDirExtension"
    settings = Settings({"JOBDIR": str(tmp_path), "EXTENSIONS": {path: 700}})
    configure_settings(settings)
    assert settings.getdict("EXTENSIONS") == {path: 700}
    settings = Settings({"JOBDIR": str(tmp_path)})
    configure_settings(settings)
    assert settings.getdict("EXTENSIONS") == {JobDirExtension: 0}


# -- the feed storage ------------------------------------------------------------------------------
# The JOBDIR feed storage: each item reaches the kernel at once, fsync runs off the calling thread.
def test_items_are_in_the_file_at_once_and_fsynced_by_another_thread(tmp_path, monkeypatch):
    fsyncs: list[str] = []
    real_fsync = os.fsync

    def recording_fsync(fd: int) -> None:  # the real fsync, and who called it
        fsyncs.append(threading.current_thread().name)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", recording_fsync)
    out = tmp_path / "out.jsonl"
    storage = DurableFileFeedStorage(str(out), jobdir=JobDir(tmp_path / "job"))
    caller = threading.current_thread().name
    file = storage.open(Spider("s"))
    fsyncs.clear()  # the job's own bookkeeping (worker id, outputs.txt) is fsync-ed once, at open
    lines = [b'{"n": %d}\n' % n for n in range(200)]
    for n, line in enumerate(lines):
        file.write(line)
        # What a kill -9 right now would leave: the file as another process reads it.
        assert out.read_bytes() == b"".join(lines[: n + 1])
    assert caller not in fsyncs  # the writer never waited for the disk
    storage.store(file)
    assert fsyncs and fsyncs[-1] == caller  # the last fsync, at close, covers everything
    assert fsyncs.count("webclean-fsync") <= len(lines)  # batched: never more than one per item
    assert out.read_bytes() == b"".join(lines)
    assert file.closed
    storage.store(file)  # closing twice is harmless


@pytest.mark.parametrize(
    ("feed", "options", "why"),
    [
        (
            "out.jsonl.gz",
            {"format": "jsonlines", "postprocessing": ["scrapy.extensions.postprocessing.GzipPlugin"]},
            "it is post-processed (GzipPlugin): the compressor buffers items a crash would lose",
        ),
        ("out.csv", {"format": "csv"}, "its format, 'csv', is not JSON lines"),
    ],
    ids=["gzip", "csv"],
)
def test_jobdir_refuses_a_feed_it_cannot_read_back(news_site, tmp_path, feed, options, why):
    """Killed, a gzip feed lost the items in its compressor and the resumed run wrote them all again:
    with JOBDIR such a feed is refused before anything is fetched, in one ERROR line saying what to do."""
    hits = len(news_site.hits)
    settings = {"JOBDIR": str(tmp_path / "job"), "FEEDS": {str(tmp_path / feed): options}, "LOG_LEVEL": "INFO"}
    crawl = start_crawl("news", tmp_path, args={"start_urls": news_site.url("/")}, settings=settings)
    code = crawl.wait(timeout=120)
    log = crawl.log
    assert code != 0, log[-3000:]
    lines = [line for line in log.splitlines() if "cannot make a crash-safe job output" in line]
    assert len(lines) == 1 and "] ERROR: Cannot start the news spider: JOBDIR is set" in lines[0], log[-3000:]
    assert why in lines[0] and "Write a plain JSON lines feed with JOBDIR (-O out.jsonl)" in lines[0]
    assert "Traceback" not in log and "Task exception was never retrieved" not in log, log[-3000:]
    assert len(news_site.hits) == hits  # nothing fetched
    assert not (tmp_path / feed).exists() and not read_items(crawl.output)
