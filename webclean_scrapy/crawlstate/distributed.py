"""Distributed crawls on scrapy-redis: N worker processes, one Redis.

``-s WEBCLEAN_REDIS_URL=redis://host:6379/0`` is the only switch
(:func:`configure_settings`, applied by the webclean spiders): the workers
then share scrapy-redis's request queue and dupefilter, and the "already
emitted" keys (:class:`~webclean_scrapy.crawlstate.emitted.RedisEmittedStore`). Start
the same ``scrapy crawl`` command on as many machines as you like.

scrapy-redis 0.9.1 works on current Scrapy with two thin adaptations:

* :class:`RedisDupeFilter`: scrapy-redis fingerprints requests with its own
  function, ignoring ``REQUEST_FINGERPRINTER_CLASS``; ours uses the
  crawler's fingerprinter, so ``/a?utm_source=x`` and ``/a`` stay one request.
* :class:`RedisScheduler`: counts stats without the ``spider`` argument
  Scrapy 2.19 dropped, never clears the shared queue when one worker
  finishes (``SCHEDULER_PERSIST``), and keeps an in-flight ledger so a
  worker killed with ``kill -9`` loses nothing: every request a worker pops
  is moved (in one Lua script) into the hash ``<spider>:inflight:<worker>``
  and removed once Scrapy has entirely finished with it (its callback ran,
  its items went through the pipelines and feeds, its new requests were
  queued). A worker restarted with the same ``JOBDIR`` puts its leftover
  in-flight requests back in the queue. A worker whose shared queue is empty
  does not close while another worker is busy (:mod:`~webclean_scrapy.crawlstate.workers`):
  that one may still queue links.

The spiders need no Redis-specific base class (scrapy-redis's
``RedisSpider`` reads start URLs from Redis with ``start_requests``, which
Scrapy 2.13+ replaced by ``start()``): each worker runs the spider's own
``start()``, and the shared dupefilter drops the start requests another
worker already queued.
"""

from __future__ import annotations

import importlib
import logging
import os
import pickle
import time
import uuid
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import DontCloseSpider
from scrapy.utils.asyncio import create_looping_call
from scrapy.utils.defer import deferred_from_coro, maybe_deferred_to_future
from twisted.internet.task import deferLater

from webclean_scrapy.crawlstate.emitted import META_HOLD
from webclean_scrapy.crawlstate.jobdir import JobDir
from webclean_scrapy.crawlstate.outage import RedisOutage, redis_errors
from webclean_scrapy.crawlstate.pageretry import ORDER as RETRY_ORDER
from webclean_scrapy.crawlstate.pageretry import RedisPageRetryMiddleware
from webclean_scrapy.crawlstate.redis import CLIENT_PARAMS, SETTING, redis_key, worker_id
from webclean_scrapy.crawlstate.workers import MARK_FUNCTION, BusyMarks
from webclean_scrapy.errors import install_hint
from webclean_scrapy.settings import WebcleanSettings

try:
    from scrapy_redis import connection
    from scrapy_redis.dupefilter import RFPDupeFilter
    from scrapy_redis.queue import PriorityQueue
    from scrapy_redis.scheduler import Scheduler
except ImportError as exc:  # an optional dependency
    raise ImportError(f"{SETTING} needs scrapy-redis: {install_hint('redis')} ({exc})") from exc

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings
    from twisted.internet.defer import Deferred
    from typing_extensions import Self  # typing.Self: Python 3.11

logger = logging.getLogger(__name__)

#: The finish reason of a worker that found Redis emptied of the crawl's state.
STATE_LOST = "webclean_redis_state_lost"

#: Pop the first member of sorted set KEYS[1] and return it; record it in hash KEYS[2] under field
#: ARGV[1] unless that is empty (the ledger); mark worker ARGV[2] busy in KEYS[3] for ARGV[3] ms.
_POP = (
    MARK_FUNCTION
    + """
local r = redis.call('ZRANGE', KEYS[1], 0, 0)
if #r == 0 then return false end
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, 0)
if ARGV[1] ~= '' then redis.call('HSET', KEYS[2], ARGV[1], r[1]) end
mark(KEYS[3], ARGV[2], ARGV[3])
return r[1]
"""
)


def configure_settings(settings: BaseSettings) -> None:
    """With ``WEBCLEAN_REDIS_URL`` set: scrapy-redis's scheduler and dupefilter on that server, and
    :class:`~webclean_scrapy.crawlstate.pageretry.RedisPageRetryMiddleware`.

    Set at ``spider`` priority, so the command line (``-s SCHEDULER=...``) still wins.
    """
    url = WebcleanSettings.from_settings(settings).redis_url
    if url is None:
        return
    settings.setdefault_in_component_priority_dict("SPIDER_MIDDLEWARES", RedisPageRetryMiddleware, RETRY_ORDER)
    for name, value in (
        ("SCHEDULER", "webclean_scrapy.crawlstate.distributed.RedisScheduler"),
        ("DUPEFILTER_CLASS", "webclean_scrapy.crawlstate.distributed.RedisDupeFilter"),
        ("SCHEDULER_PERSIST", True),
        ("REDIS_URL", url),
    ):
        settings.set(name, value, priority="spider")
    # Merged over scrapy-redis's own defaults (30 s timeouts) by scrapy-redis.
    settings.set("REDIS_PARAMS", {**CLIENT_PARAMS, **settings.getdict("REDIS_PARAMS")}, priority="spider")


class RedisDupeFilter(RFPDupeFilter):
    """scrapy-redis's shared dupefilter, fingerprinting with the crawler's ``REQUEST_FINGERPRINTER_CLASS``."""

    fingerprinter: Any = None

    @classmethod
    def from_spider(cls, spider: Spider) -> RedisDupeFilter:
        dupefilter = super().from_spider(spider)
        dupefilter.fingerprinter = spider.crawler.request_fingerprinter
        return dupefilter

    def request_fingerprint(self, request: Request) -> str:
        if self.fingerprinter is None:
            return super().request_fingerprint(request)
        return self.fingerprinter.fingerprint(request).hex()

    def close(self, reason: str = "") -> None:
        """Keep the shared fingerprints: other workers are still crawling (scrapy-redis deletes them)."""


class RedisScheduler(Scheduler):
    """scrapy-redis's scheduler, adapted to Scrapy 2.19 and made safe against a killed worker and a Redis outage.

    While Redis is unreachable (:mod:`~webclean_scrapy.crawlstate.outage`) the
    scheduler keeps the requests it is given in memory (:attr:`_pending`), in
    order, and queues them once Redis answers; it reports pending requests
    meanwhile, so the engine never takes the worker for finished.
    """

    crawler: Crawler
    #: Set when Redis lost this crawl's state (the run marker is gone): the worker stops.
    state_lost: bool
    #: In ``JOBDIR``: the requests a worker stopped during an outage could not queue, for its next start.
    PENDING_FILE = "redis-pending.pickle"

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> Self:
        """scrapy-redis's, without its ``ping``: a worker started during an outage waits in :meth:`open`."""
        kwargs: dict[str, Any] = {
            "persist": settings.getbool("SCHEDULER_PERSIST"),
            "flush_on_start": settings.getbool("SCHEDULER_FLUSH_ON_START"),
            "idle_before_close": settings.getint("SCHEDULER_IDLE_BEFORE_CLOSE"),
        }
        for name, setting in (
            ("queue_key", "SCHEDULER_QUEUE_KEY"),
            ("queue_cls", "SCHEDULER_QUEUE_CLASS"),
            ("dupefilter_key", "SCHEDULER_DUPEFILTER_KEY"),
            ("dupefilter_cls", "DUPEFILTER_CLASS"),
            ("serializer", "SCHEDULER_SERIALIZER"),
        ):
            if settings.get(setting):
                kwargs[name] = settings.get(setting)
        if isinstance(kwargs.get("serializer"), str):
            kwargs["serializer"] = importlib.import_module(kwargs["serializer"])
        return cls(server=connection.from_settings(settings), **kwargs)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        scheduler = cls.from_settings(crawler.settings)
        scheduler.stats = crawler.stats
        scheduler.crawler = crawler
        scheduler.outage = RedisOutage.of(crawler)
        scheduler.errors = redis_errors()
        scheduler._pending = deque()  # (request, already through the dupefilter), while Redis is away
        scheduler.state_lost = False
        return scheduler

    def open(self, spider: Spider) -> Deferred[None]:
        """Open once Redis answers (a worker started during an outage waits for it, retrying with backoff)."""
        return deferred_from_coro(self._open(spider))

    async def _open(self, spider: Spider) -> None:
        from twisted.internet import reactor

        while True:
            try:
                self.server.ping()
                break
            except self.errors as exc:
                self.outage.failed(exc)
                await maybe_deferred_to_future(deferLater(reactor, max(0.0, self.outage.next_try - time.monotonic())))
        self.outage.succeeded()
        super().open(spider)
        self.jobdir = JobDir.of(self.crawler)
        self.worker = worker_id(self.crawler)
        self.ledger_key = redis_key(self.crawler.settings, spider.name, f"inflight:{self.worker}")
        self.run_key = redis_key(self.crawler.settings, spider.name, "run")
        # The run marker: gone mid-run means Redis lost its data (restarted without persistence).
        self.server.set(self.run_key, f"{time.time():.0f} {self.worker}", nx=True)
        # Also without a JOBDIR (no restart would recover it): a pop that timed out but ran once Redis woke
        # up is found in the ledger and queued again (_requeue_orphans), not lost.
        self.ledger = isinstance(self.queue, PriorityQueue)
        self._pop = self.server.register_script(_POP)
        self._taken: dict[str, Request] = {}  # ledger field -> request, until Scrapy is done with it
        emitted = getattr(spider, "emitted", None)
        if emitted is not None:  # claims this worker never wrote, before its leftovers are queued again
            emitted.open_pending()
        if self.ledger and self.jobdir is not None:
            self._requeue_leftovers()
        if self.jobdir is not None:
            self._queue_kept()
        self._orphans_possible = False  # set by a failed call: a pop may have run without its reply
        timeout = WebcleanSettings.from_crawler(self.crawler).redis_idle_timeout
        self.busy = BusyMarks(self.server, redis_key(self.crawler.settings, spider.name, "busy"), self.worker, timeout)
        self._waiting = False
        self.crawler.signals.connect(self._spider_idle, signal=signals.spider_idle)
        self._ticker = create_looping_call(self._tick)
        self._ticker.start(min(1.0, timeout / 3), now=False)

    def _requeue_leftovers(self) -> None:
        leftovers = self.server.hgetall(self.ledger_key)
        for field, data in leftovers.items():
            self.queue.push(self.queue._decode_request(data))
            self.server.hdel(self.ledger_key, field)
        if leftovers:
            logger.warning(
                "worker %s: %d requests it had taken before it stopped are queued again", self.worker, len(leftovers)
            )
            if self.stats:
                self.stats.set_value("webclean/redis/requeued_after_crash", len(leftovers))

    def close(self, reason: str) -> None:
        """A finished worker drops its ledger; one stopped early (SIGINT, ``CLOSESPIDER_*``)
        queues what it had taken again, for the other workers."""
        ticker = getattr(self, "_ticker", None)
        if ticker is not None and ticker.running:
            ticker.stop()
        if not hasattr(self, "busy") or self.state_lost:
            return  # never opened, or nothing of this run left in Redis to tidy
        try:
            self._flush_pending()
            self.busy.clear()
            if self.ledger:
                if reason == "finished":
                    self.server.delete(self.ledger_key)
                else:
                    self._sweep_ledger()  # what Scrapy is done with is not fetched again
                    self._requeue_leftovers()
        except self.errors as exc:
            self._keep_pending(exc)
        super().close(reason)

    # -- requests kept across a stop during an outage (JOBDIR) -----------------------
    def _pending_path(self) -> Path | None:
        return None if self.jobdir is None else self.jobdir.dir / self.PENDING_FILE

    def _keep_pending(self, exc: Exception) -> None:
        """Redis is away as the worker stops: write the requests it could not queue to its ``JOBDIR``
        (queued at its next start, :meth:`_queue_kept`); without one they are lost, and the ERROR says how
        to keep them next time."""
        count = len(self._pending)
        path = self._pending_path()
        if not count:
            logger.warning(
                "%s is unreachable as the worker closes (%s); it had no request to queue", self.outage.where, exc
            )
            return
        if path is None:
            logger.error(
                "%s is unreachable as the worker closes: %d requests it could not queue are lost (%s); "
                "a worker with its own JOBDIR keeps them for its next start",
                self.outage.where,
                count,
                exc,
            )
            return
        records = [(self.queue._encode_request(request), checked) for request, checked in self._pending]
        temporary = path.with_name(path.name + ".tmp")
        with open(temporary, "wb") as file:
            pickle.dump(records, file, protocol=pickle.HIGHEST_PROTOCOL)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
        logger.warning(
            "%s is unreachable as the worker closes (%s): the %d requests it could not queue are kept in %s "
            "and queued when this worker starts again with the same JOBDIR",
            self.outage.where,
            exc,
            count,
            path,
        )
        if self.stats:
            self.stats.set_value("webclean/redis/kept_at_close", count)

    def _queue_kept(self) -> None:
        """Queue the requests the previous run kept in ``JOBDIR`` (:meth:`_keep_pending`), ahead of new ones.

        The file goes only once they are all queued: a run killed before that queues them again next time,
        where the dupefilter drops the ones it has seen and the emitted keys keep any page from being emitted
        twice."""
        path = self._pending_path()
        if path is None or not os.path.exists(path):
            return
        with open(path, "rb") as file:
            records = pickle.load(file)  # noqa: S301 -- this worker's own file, written by _keep_pending
        self._pending.extendleft(reversed([(self.queue._decode_request(data), checked) for data, checked in records]))
        try:
            self._flush_pending()
        except self.errors as exc:
            self.outage.failed(exc)  # still kept: in memory now, and in the file until queued
            return
        os.unlink(path)
        if self.stats:
            self.stats.set_value("webclean/redis/queued_from_jobdir", len(records))

    def flush(self) -> None:
        """Also drop the emitted keys, busy marks, run marker and ledgers (``SCHEDULER_FLUSH_ON_START``)."""
        super().flush()
        name = self.spider.name
        keys = [
            redis_key(self.crawler.settings, name, "emitted"),
            redis_key(self.crawler.settings, name, "busy"),
            redis_key(self.crawler.settings, name, "run"),
            *self.server.scan_iter(redis_key(self.crawler.settings, name, "inflight:*")),
        ]
        self.server.delete(*keys)

    # -- queueing, also while Redis is away ------------------------------------------
    def enqueue_request(self, request: Request) -> bool:
        if self.state_lost:
            return False
        if self.outage.down or self._pending:  # in order: behind those still waiting
            self._pending.append((request, False))
            return True
        try:
            return self._enqueue(request, checked=False)
        except self.errors as exc:
            self.outage.failed(exc)
            return True

    def _enqueue(self, request: Request, *, checked: bool | None) -> bool:
        """Through the dupefilter (unless *checked*) into the queue; kept in :attr:`_pending` if Redis fails."""
        try:
            if checked is None:  # a check that failed may have recorded the fingerprint: record, do not drop
                self.df.request_seen(request)
            elif not checked and not request.dont_filter and self.df.request_seen(request):
                self.df.log(request, self.spider)
                if self.stats:
                    self.stats.inc_value("dupefilter/filtered")
                return False
            checked = True
            self.queue.push(request)
        except self.errors:
            # A timed-out call may still have run: retried as "checked maybe" (None), never dropped as seen.
            self._pending.appendleft((request, True if checked else None))
            raise
        if self.stats:
            self.stats.inc_value("scheduler/enqueued/redis")
        return True

    def _flush_pending(self) -> None:
        """Queue the requests kept during an outage; one a dupefilter drops now is reported dropped."""
        if self._pending:
            count = len(self._pending)
            while self._pending:
                request, checked = self._pending.popleft()
                if not self._enqueue(request, checked=checked):
                    self.crawler.signals.send_catch_log(signals.request_dropped, request=request, spider=self.spider)
            logger.info("%d requests kept while %s was unreachable are queued", count, self.outage.where)

    def has_pending_requests(self) -> bool:
        if self._pending or self.outage.down:
            return not self.state_lost  # Redis may hold more: not finished
        try:
            return len(self) > 0
        except self.errors as exc:
            self.outage.failed(exc)
            return True

    def next_request(self) -> Request | None:
        if self.state_lost or not self.outage.may_try():
            return None
        try:
            if self.outage.down and not self._check_run_marker():
                return None
            self._flush_pending()
            request = self._next_request()
        except self.errors as exc:
            self.outage.failed(exc)
            self._orphans_possible = self.ledger
            return None
        if self.outage.down and self.ledger:
            self._requeue_orphans()
        self.outage.succeeded()
        return request

    def _requeue_orphans(self) -> int:
        """Queue again the ledger entries this worker does not hold: pops whose reply a timeout lost
        (the server ran them once it woke up), which would otherwise go with the ledger at the end."""
        orphans = {
            field: data
            for field, data in self.server.hgetall(self.ledger_key).items()
            if (field.decode() if isinstance(field, bytes) else field) not in self._taken
        }
        for field, data in orphans.items():
            self.queue.push(self.queue._decode_request(data))
            self.server.hdel(self.ledger_key, field)
        if orphans:
            logger.info("%d requests taken while %s did not answer are queued again", len(orphans), self.outage.where)
            if self.stats:
                self.stats.inc_value("webclean/redis/requeued_after_outage", len(orphans))
        return len(orphans)

    def _next_request(self) -> Request | None:
        if not isinstance(self.queue, PriorityQueue):  # scrapy-redis's list queues: no ledger
            request = self.queue.pop(self.idle_before_close)
            if request is not None:
                self.busy.mark()
        else:
            if self.ledger:
                self._sweep_ledger()
            field = uuid.uuid4().hex if self.ledger else ""
            data = self._pop(
                keys=[self.queue.key, self.ledger_key, self.busy.key], args=[field, self.worker, self.busy.ttl_ms]
            )
            request = self.queue._decode_request(data) if data else None
            if request is not None and self.ledger:
                self._taken[field] = request
        if request is not None:
            self._waiting = False
            if self.stats:
                self.stats.inc_value("scheduler/dequeued/redis")
        return request

    # -- the run marker ----------------------------------------------------------
    def _check_run_marker(self) -> bool:
        """Whether Redis still holds this crawl's state; if not, stop the worker (:meth:`_state_lost`)."""
        if self.server.exists(self.run_key):
            return True
        self._state_lost()
        return False

    def _state_lost(self) -> None:
        """Redis came back empty: queue, dupefilter and emitted keys are gone, so going on would fetch and emit
        again what the crawl already did. Stop, and say how to recover (docs/DISTRIBUTED.md)."""
        if self.state_lost:
            return
        self.state_lost = True
        logger.error(
            "%s lost this crawl's state (the run marker %s is gone: restarted without persistence, or flushed): "
            "the worker stops (finish reason %s). See docs/DISTRIBUTED.md, 'Redis lost its data'",
            self.outage.where,
            self.run_key,
            STATE_LOST,
        )
        if self.stats:
            self.stats.set_value("webclean/redis/state_lost", 1)
        deferred_from_coro(self.crawler.engine.close_spider_async(reason=STATE_LOST))

    # -- idle workers --------------------------------------------------------------
    def others_working(self) -> bool:
        """Whether the crawl may still go on elsewhere: requests queued, another worker busy, or Redis away.

        The ``news`` spider keeps a page variant until its canonical URL is answered, which another
        worker may be doing: it emits the variant only once this is false.
        """
        if self.outage.down or self.state_lost:
            return not self.state_lost
        try:
            return bool(len(self.queue) or self.busy.others_busy())
        except self.errors as exc:
            self.outage.failed(exc)
            return True

    def _spider_idle(self) -> None:
        """Nothing to do here: close only if no other worker is busy (it may still queue links), Redis
        still holds the crawl's state, and no pop that ran without its reply is left in the ledger."""
        if self.state_lost:
            raise DontCloseSpider  # closing already, with STATE_LOST
        try:
            if self._orphans_possible:
                # A timed-out pop may run after the first calls that answered once Redis was back.
                self._orphans_possible = False
                if self._requeue_orphans():
                    raise DontCloseSpider
            self.busy.clear()
            others = self.busy.others_busy()
            if not others and not len(self.queue):
                # Last, before 'finished': a Redis that came back empty between two ticks looks finished too.
                if not self._check_run_marker():
                    raise DontCloseSpider
                return
        except self.errors as exc:
            self.outage.failed(exc)
            raise DontCloseSpider from None
        if not self._waiting:
            logger.info("the shared queue is empty; waiting for %d busy workers, which may queue more", others)
            if self.stats:
                self.stats.inc_value("webclean/redis/waits_for_workers")
        self._waiting = True
        raise DontCloseSpider

    def _tick(self) -> None:
        """Every second: renew the busy mark while the engine works, check the run marker; while waiting
        (for other workers, or for Redis), have the engine look at the queue again."""
        engine = getattr(self.crawler, "engine", None)
        if self.state_lost or engine is None:
            return
        if not self.outage.down:
            try:
                if not self._check_run_marker():
                    return
                if not engine.spider_is_idle():
                    self.busy.mark()
            except self.errors as exc:
                self.outage.failed(exc)
            except RuntimeError:  # the spider is closing
                return
        if self._waiting or self.outage.down:
            # Scrapy's own look comes every 5 s only: the others' links would all be taken by then.
            nextcall = getattr(getattr(engine, "_slot", None), "nextcall", None)
            if nextcall is not None:
                nextcall.schedule()

    def _sweep_ledger(self) -> None:
        """Drop the ledger entries of the requests Scrapy is done with.

        The engine holds each request it took from the scheduler in its slot's
        ``inprogress`` set (added as the download starts, right after
        :meth:`next_request`) until the callback has run, its items have gone
        through the pipelines and feeds, and its new requests are queued: then
        nothing of it can be lost any more -- unless the spider still holds
        something of it (``META_HOLD``: a ``news`` variant waiting for its
        canonical URL), which keeps the entry until released. ``inprogress`` is not public API;
        without it, entries stay until the worker finishes (a restart after a
        crash then fetches more again, still losing nothing).
        """
        slot = getattr(getattr(self.crawler, "engine", None), "_slot", None)
        inprogress = getattr(slot, "inprogress", None)
        if inprogress is None or not self._taken:
            return
        done = [
            field
            for field, request in self._taken.items()
            if request not in inprogress and not request.meta.get(META_HOLD)
        ]
        if done:
            # Forgotten only once deleted: an entry left in the ledger and not held would count as an orphan.
            self.server.hdel(self.ledger_key, *done)
            for field in done:
                del self._taken[field]
