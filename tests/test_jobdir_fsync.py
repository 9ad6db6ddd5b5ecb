"""The JOBDIR feed storage: each item reaches the kernel at once, fsync runs off the calling thread."""

from __future__ import annotations

import os
import threading

from scrapy.spiders import Spider

from webclean_scrapy.crawlstate.jobdir import DurableFileFeedStorage, JobDir


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
