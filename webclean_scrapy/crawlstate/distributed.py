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

import logging
import uuid
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import DontCloseSpider
from scrapy.utils.asyncio import create_looping_call

from webclean_scrapy.crawlstate.emitted import META_HOLD
from webclean_scrapy.crawlstate.jobdir import JobDir
from webclean_scrapy.crawlstate.redis import SETTING, redis_key, worker_id
from webclean_scrapy.crawlstate.workers import MARK_FUNCTION, BusyMarks
from webclean_scrapy.errors import install_hint
from webclean_scrapy.settings import WebcleanSettings

try:
    from scrapy_redis.dupefilter import RFPDupeFilter
    from scrapy_redis.queue import PriorityQueue
    from scrapy_redis.scheduler import Scheduler
except ImportError as exc:  # an optional dependency
    raise ImportError(f"{SETTING} needs scrapy-redis: {install_hint('redis')} ({exc})") from exc

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings
    from typing_extensions import Self  # typing.Self: Python 3.11

logger = logging.getLogger(__name__)

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
    """With ``WEBCLEAN_REDIS_URL`` set: scrapy-redis's scheduler and dupefilter on that server.

    Set at ``spider`` priority, so the command line (``-s SCHEDULER=...``) still wins.
    """
    url = WebcleanSettings.from_settings(settings).redis_url
    if url is None:
        return
    for name, value in (
        ("SCHEDULER", "webclean_scrapy.crawlstate.distributed.RedisScheduler"),
        ("DUPEFILTER_CLASS", "webclean_scrapy.crawlstate.distributed.RedisDupeFilter"),
        ("SCHEDULER_PERSIST", True),
        ("REDIS_URL", url),
    ):
        settings.set(name, value, priority="spider")


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
    """scrapy-redis's scheduler, adapted to Scrapy 2.19 and made safe against a killed worker."""

    crawler: Crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        scheduler = super().from_crawler(crawler)
        scheduler.crawler = crawler
        return scheduler

    def open(self, spider: Spider) -> None:
        super().open(spider)
        self.jobdir = JobDir.of(self.crawler)
        self.worker = worker_id(self.crawler)
        self.ledger_key = redis_key(self.crawler.settings, spider.name, f"inflight:{self.worker}")
        # Without a JOBDIR nobody would recover this worker's ledger: do not keep one.
        self.ledger = self.jobdir is not None and isinstance(self.queue, PriorityQueue)
        self._pop = self.server.register_script(_POP)
        self._taken: dict[str, Request] = {}  # ledger field -> request, until Scrapy is done with it
        if self.ledger:
            self._requeue_leftovers()
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
        if getattr(self, "busy", None) is not None:
            self.busy.clear()
        if getattr(self, "ledger", False):
            if reason == "finished":
                self.server.delete(self.ledger_key)
            else:
                self._requeue_leftovers()
        super().close(reason)

    def flush(self) -> None:
        """Also drop the emitted keys, busy marks and ledgers (``SCHEDULER_FLUSH_ON_START``: a fresh crawl)."""
        super().flush()
        name = self.spider.name
        keys = [
            redis_key(self.crawler.settings, name, "emitted"),
            redis_key(self.crawler.settings, name, "busy"),
            *self.server.scan_iter(redis_key(self.crawler.settings, name, "inflight:*")),
        ]
        self.server.delete(*keys)

    def enqueue_request(self, request: Request) -> bool:
        if not request.dont_filter and self.df.request_seen(request):
            self.df.log(request, self.spider)
            if self.stats:
                self.stats.inc_value("dupefilter/filtered")
            return False
        self.queue.push(request)
        if self.stats:
            self.stats.inc_value("scheduler/enqueued/redis")
        return True

    def next_request(self) -> Request | None:
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

    def _spider_idle(self) -> None:
        """Nothing to do here: close only if no other worker is busy (it may still queue links)."""
        self.busy.clear()
        others = self.busy.others_busy()
        if not others and not len(self.queue):
            return
        if not self._waiting:
            logger.info("the shared queue is empty; waiting for %d busy workers, which may queue more", others)
            if self.stats:
                self.stats.inc_value("webclean/redis/waits_for_workers")
        self._waiting = True
        raise DontCloseSpider

    def _tick(self) -> None:
        """Renew the busy mark while the engine works; while waiting for others, look at the queue again."""
        engine = getattr(self.crawler, "engine", None)
        try:
            idle = engine.spider_is_idle() if engine is not None else True
        except RuntimeError:  # the spider is closing
            return
        if not idle:
            self.busy.mark()
        if self._waiting:
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
            for field in done:
                del self._taken[field]
            self.server.hdel(self.ledger_key, *done)
