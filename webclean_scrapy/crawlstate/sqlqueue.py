"""A crash-safe request queue for ``JOBDIR`` crawls: after ``kill -9`` the resumed run fetches
again only the requests that were in flight.

Scrapy's own disk queue and ``requests.seen`` are written at different
times (the queue state on close), so a killed crawl had to start again from
its start URLs and fetch every page a second time. :class:`SqliteScheduler`
keeps the queue and the seen fingerprints in one SQLite database,
``JOBDIR/webclean/requests.sqlite`` (stdlib :mod:`sqlite3`, WAL mode), with
acknowledgement: a request taken for download stays in the database,
marked taken, until Scrapy is entirely done with it (its callback ran, its
items went through the pipelines and feeds, its new requests were queued);
only then is it deleted. Those changes are committed together, in order, so
a kill at any instant leaves a consistent state: a request is either done
(its children queued, its items in the outputs) or queued again. On open,
requests left taken by a killed run are queued again and counted in
``webclean/resume/refetched``.

Set as ``SCHEDULER`` by :func:`webclean_scrapy.crawlstate.jobdir.configure_settings` when
``JOBDIR`` is set without ``WEBCLEAN_REDIS_URL``, unless the project chose a scheduler.
``synchronous=NORMAL``: a killed process loses nothing committed; a power cut may lose the last
commits, which only means fetching those pages again.
"""

from __future__ import annotations

import logging
import pickle
import sqlite3
import time
from collections import deque
from typing import TYPE_CHECKING, Any

from scrapy.core.scheduler import BaseScheduler
from scrapy.utils.request import request_from_dict

from webclean_scrapy.crawlstate.emitted import META_HOLD
from webclean_scrapy.crawlstate.jobdir import JobDir

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from typing_extensions import Self  # typing.Self: Python 3.11

logger = logging.getLogger(__name__)

#: The database's file name in ``JOBDIR/webclean/``.
DB_NAME = "requests.sqlite"
#: Seconds between commits while requests flow: every change in between is lost together on a kill
#: (fetched again, never half-applied); a commit in WAL mode without fsync costs some microseconds.
COMMIT_INTERVAL = 0.05

_SCHEMA = """
CREATE TABLE IF NOT EXISTS queue (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    priority INTEGER NOT NULL,
    taken INTEGER NOT NULL DEFAULT 0,
    data BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS queue_next ON queue (taken, priority DESC, id DESC);
CREATE TABLE IF NOT EXISTS seen (fingerprint BLOB PRIMARY KEY) WITHOUT ROWID;
"""


class SqliteScheduler(BaseScheduler):
    """Scrapy's scheduler contract on one SQLite database: priority queue (highest first, then last
    in first out, as Scrapy's default queues), seen fingerprints, acknowledgement (module docstring).

    Requests that cannot be pickled (a callback that is not a spider method) wait in memory, as
    Scrapy's own disk queues do with them, and are lost on a kill (``webclean/resume/in_memory``).
    """

    def __init__(self, crawler: Crawler, jobdir: JobDir) -> None:
        self.crawler = crawler
        self.stats = crawler.stats
        self.jobdir = jobdir
        self.path = jobdir.dir / DB_NAME
        self.db: sqlite3.Connection | None = None
        self.spider: Spider | None = None
        self._queued = 0
        self._taken: dict[int, Request] = {}  # row id -> request, until Scrapy is done with it
        self._memory: deque[Request] = deque()
        self._last_commit = 0.0

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        jobdir = JobDir.of(crawler)
        if jobdir is None:
            raise ValueError("SqliteScheduler needs JOBDIR")
        return cls(crawler, jobdir)

    def open(self, spider: Spider) -> None:
        self.spider = spider
        db = sqlite3.connect(self.path)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.executescript(_SCHEMA)
        refetched = db.execute("UPDATE queue SET taken = 0 WHERE taken = 1").rowcount
        db.commit()
        self.db = db
        self._queued = db.execute("SELECT count(*) FROM queue").fetchone()[0]
        if self._queued:
            self.stats.set_value("webclean/resume/queued_at_start", self._queued)
        if refetched:
            self.stats.set_value("webclean/resume/refetched", refetched)
        if self.jobdir.crashed:
            logger.warning(
                "JOBDIR %s: the previous run did not stop cleanly (killed?); resuming from its request queue: "
                "%d requests queued, of which %d were in flight when it stopped and are fetched again. "
                "Items already written to this job's outputs are not emitted again.",
                self.jobdir.root,
                self._queued,
                refetched,
            )

    def close(self, reason: str) -> None:
        db, self.db = self.db, None
        if db is None:
            return
        self._acknowledge(everything=reason == "finished")
        if self._taken:  # stopped early: what was in flight is fetched by the next run
            db.executemany("UPDATE queue SET taken = 0 WHERE id = ?", [(row,) for row in self._taken])
            self._taken.clear()
        db.commit()
        db.close()
        if self._memory:
            logger.warning("%d requests that could not be stored in JOBDIR are lost", len(self._memory))

    def __len__(self) -> int:
        return self._queued + len(self._memory)

    def has_pending_requests(self) -> bool:
        return len(self) > 0

    def enqueue_request(self, request: Request) -> bool:
        assert self.db is not None
        if not request.dont_filter:
            fingerprint = self.crawler.request_fingerprinter.fingerprint(request)
            if self.db.execute("INSERT OR IGNORE INTO seen VALUES (?)", (fingerprint,)).rowcount == 0:
                self.stats.inc_value("dupefilter/filtered")
                return False
        try:
            data = pickle.dumps(request.to_dict(spider=self.spider), protocol=4)
        except Exception:  # a callback that is not a spider method, unpicklable meta
            self._memory.append(request)
            self.stats.inc_value("webclean/resume/in_memory")
            self.stats.inc_value("scheduler/enqueued/memory")
        else:
            self.db.execute("INSERT INTO queue (priority, data) VALUES (?, ?)", (request.priority, data))
            self._queued += 1
            self.stats.inc_value("scheduler/enqueued/disk")
        self.stats.inc_value("scheduler/enqueued")
        return True

    def next_request(self) -> Request | None:
        assert self.db is not None
        self._acknowledge()
        request = None
        if self._memory:
            request = self._memory.popleft()
            self.stats.inc_value("scheduler/dequeued/memory")
        elif self._queued:
            row = self.db.execute(
                "SELECT id, data FROM queue WHERE taken = 0 ORDER BY priority DESC, id DESC LIMIT 1"
            ).fetchone()
            if row is not None:
                self.db.execute("UPDATE queue SET taken = 1 WHERE id = ?", (row[0],))
                self._queued -= 1
                request = request_from_dict(pickle.loads(row[1]), spider=self.spider)
                self._taken[row[0]] = request
                self.stats.inc_value("scheduler/dequeued/disk")
        if request is not None:
            self.stats.inc_value("scheduler/dequeued")
        self._commit()
        return request

    def _commit(self, force: bool = False) -> None:
        assert self.db is not None
        now = time.monotonic()
        if self.db.in_transaction and (force or now - self._last_commit >= COMMIT_INTERVAL or not self._taken):
            self.db.commit()
            self._last_commit = now

    def _acknowledge(self, everything: bool = False) -> None:
        """Delete the taken requests Scrapy is done with.

        The engine holds each request it took from the scheduler in its slot's ``inprogress`` set
        until its callback ran, its items went through the pipelines and feeds and its new requests
        were queued (as :meth:`enqueue_request` calls, in this same database). A request whose
        spider still holds something of it (``META_HOLD``: a ``news`` variant waiting for its
        canonical URL) stays until released. ``inprogress`` is not public API: without it, nothing is
        deleted before the crawl finishes (a crash then fetches more again, still losing nothing).
        """
        if not self._taken or self.db is None:
            return
        slot = getattr(getattr(self.crawler, "engine", None), "_slot", None)
        inprogress: Any = getattr(slot, "inprogress", None)
        if everything:
            done = list(self._taken)
        elif inprogress is None:
            return
        else:
            done = [
                row
                for row, request in self._taken.items()
                if request not in inprogress and not request.meta.get(META_HOLD)
            ]
        if done:
            self.db.executemany("DELETE FROM queue WHERE id = ?", [(row,) for row in done])
            for row in done:
                del self._taken[row]
