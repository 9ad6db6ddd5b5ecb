"""Crawl-safe ``JOBDIR``: a crawl killed with ``kill -9`` resumes without losing or repeating items.

Scrapy's own job directory survives a graceful stop only: the scheduler
writes its queue state (``requests.queue/active.json``) and the spider's
``state`` on close, while the request fingerprints (``requests.seen``) are
appended as the crawl goes. After ``kill -9`` the two disagree: the resumed
crawl finds its start URLs "already seen", an empty queue, and stops with
nothing. And feed exports buffer items in memory, so the last items before
the kill are lost.

What this module adds when ``JOBDIR`` is set (see ``docs/DISTRIBUTED.md``):

* **Durable outputs.** Local file feeds (``-o``/``-O``/``FEEDS``) are
  written through :class:`DurableFileFeedStorage`: every item line is
  flushed to the kernel as it is exported (a ``kill -9`` cannot lose it),
  ``fsync``-ed by a thread of its own soon after (so that a power cut does
  not either, without the reactor waiting for the disk), and the file is recorded in
  ``JOBDIR/webclean/outputs.txt``. A later run of the same job never
  truncates a recorded output (``-O`` appends instead, with a warning).
* **Outputs are the emitted set.** On resume, the articles already written
  to the job's JSON lines outputs are what counts as emitted
  (:mod:`webclean_scrapy.crawlstate.emitted` reads them back). One write per item, so
  an item is either in an output and never emitted again, or not in any and
  emitted by the resumed run: exactly once, whatever instant the kill hit.
* **A crash-safe request queue.** The scheduler is
  :class:`~webclean_scrapy.crawlstate.sqlqueue.SqliteScheduler` (unless the
  project chose another): queue and seen fingerprints in one SQLite
  database, a request deleted only once its response was processed, so a
  resumed run fetches again only what was in flight at the kill.
* **Crash detection.** ``JOBDIR/webclean/running`` exists while a run is
  active and is removed when the spider closes. A run that finds it knows
  its predecessor was killed. With Scrapy's own scheduler (a project's
  choice), its request queue and fingerprints are then inconsistent, so
  they are set aside (``*.crashed``) and the crawl starts again from its
  start URLs; already written articles come out as duplicates, not items.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any
from urllib.parse import urlsplit

from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.extensions.feedexport import FileFeedStorage
from scrapy.utils.job import job_dir

from webclean_scrapy.settings import WebcleanSettings

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings
    from typing_extensions import Self  # typing.Self: Python 3.11

logger = logging.getLogger(__name__)

#: Sub-directory of ``JOBDIR`` holding webclean's own job state.
STATE_DIR = "webclean"
#: Scrapy's scheduler state in ``JOBDIR``, untrustworthy after a crash.
SCHEDULER_STATE = ("requests.seen", "requests.queue")
DURABLE_STORAGE = "webclean_scrapy.crawlstate.jobdir.DurableFileFeedStorage"
PERSISTENT_SCHEDULER = "webclean_scrapy.crawlstate.sqlqueue.SqliteScheduler"


def _fsync_append(path: Path, line: str) -> None:
    with path.open("a", encoding="utf-8") as f:
        f.write(line + "\n")
        f.flush()
        os.fsync(f.fileno())


def scrapy_scheduler(settings: BaseSettings) -> bool:
    """Whether the crawl's ``SCHEDULER`` is Scrapy's own (which keeps its queue in ``JOBDIR`` files)."""
    scheduler = settings.get("SCHEDULER")
    name = scheduler if isinstance(scheduler, str) else f"{scheduler.__module__}.{scheduler.__qualname__}"
    return name == "scrapy.core.scheduler.Scheduler"


class JobDir:
    """webclean's state in one ``JOBDIR``, shared by the components of one crawl.

    Created once per crawler (:meth:`of`). Creating it decides whether the
    previous run crashed, sets aside Scrapy's scheduler state if so, and marks
    this run as running; :meth:`close` clears the mark.
    """

    def __init__(self, path: str | os.PathLike[str], *, reset_scheduler: bool = True) -> None:
        self.root = Path(path)
        self.dir = self.root / STATE_DIR
        self.dir.mkdir(parents=True, exist_ok=True)
        self.marker = self.dir / "running"
        #: The previous run of this job was killed (it did not close its spider).
        self.crashed = self.marker.exists()
        id_file = self.dir / "worker-id"
        if not id_file.exists():
            _fsync_append(id_file, uuid.uuid4().hex)
        #: Stable across runs of this job: a distributed worker's identity.
        self.worker_id = id_file.read_text(encoding="utf-8").split()[0]
        #: Outputs recorded by earlier runs of this job (read before this run adds its own).
        self.previous_outputs = self.recorded_outputs()
        if self.crashed and reset_scheduler:
            self._set_aside_scheduler_state()
        self.marker.write_text(str(os.getpid()), encoding="utf-8")

    @classmethod
    def of(cls, crawler: Crawler) -> JobDir | None:
        """The crawl's :class:`JobDir` (``None`` without ``JOBDIR``)."""
        path = job_dir(crawler.settings)
        if not path:
            return None
        existing = getattr(crawler, "_webclean_jobdir", None)
        if existing is None:
            # Only Scrapy's own scheduler keeps a queue in JOBDIR that a crash leaves inconsistent.
            existing = cls(path, reset_scheduler=scrapy_scheduler(crawler.settings))
            crawler._webclean_jobdir = existing  # type: ignore[attr-defined]
        return existing

    def _set_aside_scheduler_state(self) -> None:
        moved = []
        for name in SCHEDULER_STATE:
            source = self.root / name
            if source.exists():
                target = self.root / f"{name}.crashed"
                if target.is_dir():
                    shutil.rmtree(target)
                elif target.exists():
                    target.unlink()
                source.rename(target)
                moved.append(name)
        logger.warning(
            "JOBDIR %s: the previous run did not stop cleanly (killed?); its request queue is not on "
            "disk, so the crawl starts again from the start URLs (%s set aside). Items already written "
            "to this job's outputs are not emitted again.",
            self.root,
            ", ".join(moved) or "nothing",
        )

    # -- outputs ------------------------------------------------------------
    def recorded_outputs(self) -> list[Path]:
        path = self.dir / "outputs.txt"
        if not path.exists():
            return []
        seen: dict[str, None] = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                seen.setdefault(line.strip(), None)
        return [Path(p) for p in seen]

    def record_output(self, path: Path) -> None:
        if path.resolve() not in {p.resolve() for p in self.recorded_outputs()}:
            _fsync_append(self.dir / "outputs.txt", str(path.resolve()))

    def previous_items(self) -> Iterator[dict[str, Any]]:
        """Items of the JSON lines outputs written by earlier runs of this job.

        A line cut short by the kill is skipped: that item was not written,
        and the resumed run emits it.
        """
        for path in self.previous_outputs:
            if not path.exists():
                logger.warning("JOBDIR %s: recorded output %s is gone; its items may be emitted again", self.root, path)
                continue
            with path.open("rb") as f:
                for line in f:
                    try:
                        item = json.loads(line)
                    except ValueError:
                        continue  # not JSON lines (csv, xml...), or the line the kill cut
                    if isinstance(item, dict):
                        yield item

    def close(self) -> None:
        self.marker.unlink(missing_ok=True)


class _DurableFile:
    """A binary file whose every ``write`` reaches the kernel before returning,
    and the disk soon after, without the reactor thread waiting for the disk.

    Feed exporters write one item per ``write`` call (JSON lines: one line).
    Each write is flushed at once: once in the kernel, a ``kill -9`` of the
    crawl cannot lose it (only the machine going down could). Making it
    survive that too, ``fsync``, takes milliseconds a call on a real disk, so
    it runs in a thread of its own: one ``fsync`` covers every item written
    since the previous one (a group commit), and :meth:`close` waits for the
    last one.
    """

    def __init__(self, raw: IO[bytes]) -> None:
        self._raw = raw
        self._dirty = threading.Event()
        self._closing = False
        self._error: OSError | None = None
        self._syncer = threading.Thread(target=self._sync_loop, name="webclean-fsync", daemon=True)
        self._syncer.start()

    def write(self, data: bytes) -> int:
        written = self._raw.write(data)
        self._raw.flush()
        self._dirty.set()
        return written

    def _sync_loop(self) -> None:
        fileno = self._raw.fileno()
        while True:
            self._dirty.wait()
            self._dirty.clear()
            if self._closing:
                return
            try:
                os.fsync(fileno)
            except OSError as exc:  # reported by close(), in the crawl's thread
                self._error = exc
                return

    def close(self) -> None:
        if self._raw.closed:
            return
        self._closing = True
        self._dirty.set()
        self._syncer.join()
        try:
            self._raw.flush()
            os.fsync(self._raw.fileno())
        finally:
            self._raw.close()
        if self._error is not None:
            logger.warning("fsync of %s failed during the crawl: %s", getattr(self._raw, "name", "a feed"), self._error)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)


class DurableFileFeedStorage(FileFeedStorage):
    """Scrapy's local file feed storage, flushed per item (fsync-ed off the reactor) and recorded in the ``JOBDIR``.

    Enabled for ``file://`` and plain paths when ``JOBDIR`` is set (see
    :func:`configure_settings`). A file an earlier run of the job wrote is
    appended to, never overwritten: it holds items the job already emitted.
    """

    def __init__(self, uri: str, *, feed_options: dict[str, Any] | None = None, jobdir: JobDir | None = None) -> None:
        super().__init__(uri, feed_options=feed_options)
        self.jobdir = jobdir

    @classmethod
    def from_crawler(cls, crawler: Crawler, uri: str, *, feed_options: dict[str, Any] | None = None) -> Self:
        return cls(uri, feed_options=feed_options, jobdir=JobDir.of(crawler))

    def open(self, spider: Spider) -> IO[bytes]:
        path = Path(self.path)
        if self.jobdir is not None:
            if self.write_mode == "wb" and path.resolve() in {p.resolve() for p in self.jobdir.previous_outputs}:
                logger.warning(
                    "%s holds items of an earlier run of this job (JOBDIR %s): appending, not overwriting",
                    path,
                    self.jobdir.root,
                )
                self.write_mode = "ab"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch()
            self.jobdir.record_output(path)
        return _DurableFile(super().open(spider))  # type: ignore[return-value]

    def store(self, file: IO[bytes]) -> None:
        file.close()


class JobDirExtension:
    """Owns the crawl's :class:`JobDir`: created before the scheduler opens, closed with the spider."""

    def __init__(self, crawler: Crawler, jobdir: JobDir) -> None:
        self.jobdir = jobdir
        self.stats = crawler.stats
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        jobdir = JobDir.of(crawler)
        if jobdir is None:
            raise NotConfigured("JOBDIR is not set")
        return cls(crawler, jobdir)

    def spider_opened(self, spider: Spider) -> None:
        if self.jobdir.crashed:
            self.stats.set_value("webclean/job/resumed_after_crash", 1)

    def spider_closed(self, spider: Spider, reason: str) -> None:
        self.jobdir.close()


#: Feed formats whose files a resumed job reads back (:meth:`JobDir.previous_items`).
READABLE_FORMATS = ("jsonlines", "jsonl")


class JobDirFeedError(ValueError):
    """A local feed a ``JOBDIR`` job could not read back after a crash: refused before the crawl starts."""


def check_feeds(settings: BaseSettings) -> None:
    """Refuse the local feeds of a ``JOBDIR`` job that a resumed run could not read back.

    A post-processed feed (``GzipPlugin``...) keeps items in the compressor's buffer, so ``kill -9``
    loses them, and its file is not JSON lines: the resumed run, which knows what the job emitted
    only by reading its outputs back, would write every item again. Other formats (CSV, XML, a JSON
    array) are not read back either.
    """
    for uri, options in settings.getdict("FEEDS").items():
        uri = str(uri)
        if urlsplit(uri).scheme not in ("", "file") and not (len(uri) > 1 and uri[1] == ":"):  # not C:\...
            continue
        options = options or {}
        if options.get("postprocessing"):
            plugins = ", ".join(getattr(p, "__name__", str(p)).rsplit(".", 1)[-1] for p in options["postprocessing"])
            why = f"it is post-processed ({plugins}): the compressor buffers items a crash would lose"
        elif str(options.get("format", "")).lower() not in READABLE_FORMATS:
            why = f"its format, {options.get('format')!r}, is not JSON lines: a resumed run cannot read it back"
        else:
            continue
        raise JobDirFeedError(
            f"JOBDIR is set, and the feed {uri} cannot make a crash-safe job output: {why}, so a "
            "resumed run would emit its items again. Write a plain JSON lines feed with JOBDIR "
            "(-O out.jsonl) and compress or convert it after the crawl."
        )


def configure_settings(settings: BaseSettings) -> None:
    """With ``JOBDIR`` set: durable local feeds, :class:`JobDirExtension` and, without Redis, the crash-safe
    :data:`PERSISTENT_SCHEDULER` (the project's own choices win).

    Raises :class:`JobDirFeedError` for a local feed the job could not read back (:func:`check_feeds`).
    """
    if not settings.get("JOBDIR"):
        return
    check_feeds(settings)
    settings.setdefault_in_component_priority_dict("EXTENSIONS", JobDirExtension, 0)
    distributed = WebcleanSettings.from_settings(settings).redis_url is not None
    if not distributed and settings.getpriority("SCHEDULER") == 0:  # Scrapy's default, not the project's choice
        settings.set("SCHEDULER", PERSISTENT_SCHEDULER, priority="spider")
    storages = dict(settings.getdict("FEED_STORAGES"))
    for scheme in ("", "file"):
        storages.setdefault(scheme, DURABLE_STORAGE)
    settings.set("FEED_STORAGES", storages, priority=max(settings.getpriority("FEED_STORAGES") or 0, 30))
