"""Where a spider remembers what it already emitted, so each article comes out once.

A spider describes each item by a few string keys (the ``news`` spider: its
canonical URL keys and its text fingerprint) and asks the store before
emitting: :meth:`EmittedStore.claim` atomically checks that none of the keys
is known and records them all. What a key *is* stays the spider's business;
this module only keeps them, in one of three places:

* :class:`MemoryEmittedStore` (default): a set in the crawl process.
* :class:`RedisEmittedStore` (``WEBCLEAN_REDIS_URL`` set): one Redis hash
  shared by every worker of a distributed crawl, claimed with one Lua
  script so two workers can never both emit one article. Each key records
  the worker that claimed it and the page whose processing claimed it, so
  that a claim whose reply a Redis timeout lost (it ran once Redis woke up)
  counts as that page's own when the page is fetched again, by any worker.
* With ``JOBDIR`` (:mod:`webclean_scrapy.crawlstate.jobdir`), either store is seeded
  from the items the job already wrote: in memory, every key of them; in
  Redis, the worker's own claims that never reached its outputs (it was
  killed in between) are released, so those articles are emitted again.

:func:`open_store` picks the store from the settings.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from webclean_scrapy.crawlstate.jobdir import JobDir
from webclean_scrapy.crawlstate.outage import redis_errors
from webclean_scrapy.settings import WebcleanSettings

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

#: Request meta key: while true, the request still holds something not yet
#: emitted (a ``news`` fallback item), so a distributed worker's in-flight
#: ledger keeps it (:mod:`webclean_scrapy.crawlstate.distributed`) to redo it after a crash.
META_HOLD = "webclean_hold"

#: Request meta key: what the claims made while processing this request are made for (a random id, see
#: :meth:`EmittedStore.claim`), kept by the request's retries after a Redis failure.
META_CLAIM = "webclean_claim"


def claim_page(request: Request | None) -> str | None:
    """What a claim made while processing *request* is made for (:meth:`EmittedStore.claim`): an id in
    its meta, which its retry after a Redis failure keeps, and a copy queued again does not."""
    if request is None:
        return None
    return request.meta.setdefault(META_CLAIM, uuid.uuid4().hex)


#: Keys of one item, given an item read back from an output (``None``: not this spider's item).
KeysOf = Callable[[dict[str, Any]], "Iterable[str] | None"]


class EmittedStore:
    """The keys of the items already emitted."""

    def seen(self, keys: Iterable[str], page: str | None = None) -> bool:
        """Whether any of *keys* belongs to an emitted item (other than one claimed for *page*, see :meth:`claim`)."""
        raise NotImplementedError

    def claim(self, keys: Iterable[str], page: str | None = None) -> bool:
        """Record *keys* and return ``True``, unless one of them is known (then nothing changes).

        *page* names what the claim is made for (the ``news`` spider: the :data:`META_CLAIM` id of the
        page's request), the same when that page is processed again after a failure: keys claimed for
        the same *page* do not count as known.
        """
        raise NotImplementedError

    def open(self, jobdir: JobDir | None, keys_of: KeysOf) -> None:
        """Seed the store from the job's earlier outputs (see the module docstring)."""

    def open_pending(self) -> None:
        """Finish :meth:`open` if it had to wait (Redis unreachable): called once it answers."""

    def close(self) -> None:
        pass


class MemoryEmittedStore(EmittedStore):
    """Keys in a Python set: one process, gone when it ends (unless seeded from a ``JOBDIR``)."""

    def __init__(self) -> None:
        self.keys: set[str] = set()

    def seen(self, keys: Iterable[str], page: str | None = None) -> bool:
        return not self.keys.isdisjoint(keys)

    def claim(self, keys: Iterable[str], page: str | None = None) -> bool:
        # In one process a claim never fails half-way: no page is processed again.
        keys = set(keys)
        if not self.keys.isdisjoint(keys):
            return False
        self.keys |= keys
        return True

    def open(self, jobdir: JobDir | None, keys_of: KeysOf) -> None:
        if jobdir is None:
            return
        count = 0
        for item in jobdir.previous_items():
            keys = keys_of(item)
            if keys:
                self.keys.update(keys)
                count += 1
        if count:
            logger.info("JOBDIR %s: %d items written by earlier runs will not be emitted again", jobdir.root, count)


#: A value of the emitted hash is ``<worker>`` or ``<worker> <page>`` (see :class:`RedisEmittedStore`). Lua:
#: ``value_of(owner, page)``, the value a claim sets; ``owned(v, owner)``, whether value *v* is *owner*'s.
_VALUES = """
local function value_of(owner, page)
    if page == '' then return owner end
    return owner .. ' ' .. page
end
local function owned(v, owner)
    return v == owner or string.sub(v, 1, #owner + 1) == owner .. ' '
end
"""
#: Keys ARGV[3:] of hash KEYS[1], for owner ARGV[1] and page ARGV[2] ('' for none): unless one is held
#: for another page (or for none), set them all to the owner and page and return 1; else 0.
_CLAIM = (
    _VALUES
    + """
for i = 3, #ARGV do
    local v = redis.call('HGET', KEYS[1], ARGV[i])
    if v and (ARGV[2] == '' or string.match(v, '^%S+ (%S+)$') ~= ARGV[2]) then return 0 end
end
local value = value_of(ARGV[1], ARGV[2])
for i = 3, #ARGV do redis.call('HSET', KEYS[1], ARGV[i], value) end
return 1
"""
)
#: Delete ARGV[2:] from hash KEYS[1] where they are still owned by ARGV[1].
_RELEASE = (
    _VALUES
    + """
local n = 0
for i = 2, #ARGV do
    local v = redis.call('HGET', KEYS[1], ARGV[i])
    if v and owned(v, ARGV[1]) then redis.call('HDEL', KEYS[1], ARGV[i]); n = n + 1 end
end
return n
"""
)
#: Set ARGV[2:] of hash KEYS[1], where owned by ARGV[1], to ARGV[1] alone (their items are written: settled).
_SETTLE = (
    _VALUES
    + """
for i = 2, #ARGV do
    local v = redis.call('HGET', KEYS[1], ARGV[i])
    if v and v ~= ARGV[1] and owned(v, ARGV[1]) then redis.call('HSET', KEYS[1], ARGV[i], ARGV[1]) end
end
return 0
"""
)


def _owner(value: str) -> str:
    """The worker of a value of the emitted hash."""
    return value.split(" ", 1)[0]


class RedisEmittedStore(EmittedStore):
    """Keys in the Redis hash *key* (field: item key, value: the worker that claimed it, and the page it claimed
    it for).

    Redis calls can time out and still run once Redis wakes up (a frozen server), so a claim may have gone
    through although its caller got an error. The page is then fetched again
    (:mod:`~webclean_scrapy.crawlstate.pageretry`), possibly by another worker: keys held for the same page are
    that earlier attempt, and the new attempt takes them over (with their worker, for the ``JOBDIR`` release
    below). A claim without a page falls back to this worker's own memory of its undecided claims.
    """

    def __init__(self, server: Any, key: str, owner: str) -> None:
        self.server = server
        self.key = key
        self.owner = owner
        self._pending_open: tuple[JobDir, KeysOf] | None = None
        self._uncertain: set[str] = set()  # keys of page-less claims a Redis error left undecided
        self._claim = server.register_script(_CLAIM)
        self._release = server.register_script(_RELEASE)
        self._settle = server.register_script(_SETTLE)

    def seen(self, keys: Iterable[str], page: str | None = None) -> bool:
        keys = list(keys)
        if not keys:
            return False
        values = self.server.hmget(self.key, keys)
        return any(value and not self._mine_maybe(key, value, page) for key, value in zip(keys, values))

    def _mine_maybe(self, key: str, value: str, page: str | None) -> bool:
        """Whether *key* (held as *value*) may be held by an earlier attempt of this claim whose reply was lost."""
        if page is not None:
            return value.endswith(f" {page}")
        return value == self.owner and key in self._uncertain

    def claim(self, keys: Iterable[str], page: str | None = None) -> bool:
        keys = sorted(set(keys))
        try:
            claimed = bool(self._claim(keys=[self.key], args=[self.owner, page or "", *keys]))
        except redis_errors():
            if page is None:
                self._uncertain.update(keys)
            raise
        if not claimed and page is None and self._uncertain.intersection(keys):
            values = self.server.hmget(self.key, keys)
            claimed = all(value and self._mine_maybe(key, value, None) for key, value in zip(keys, values))
        self._uncertain.difference_update(keys)
        return claimed

    def open(self, jobdir: JobDir | None, keys_of: KeysOf) -> None:
        """After a crash of this worker, release its claims that did not reach its outputs.

        With Redis unreachable, that waits for :meth:`open_pending` (the scheduler calls it once Redis
        answers, before it queues the worker's leftover requests again).
        """
        if jobdir is None or not jobdir.crashed:
            return
        self._pending_open = (jobdir, keys_of)
        try:
            self.open_pending()
        except redis_errors():
            logger.info("Redis unreachable: the claims of worker %s are released once it answers", self.owner)

    def open_pending(self) -> None:
        pending = self._pending_open
        if pending is None:
            return
        self._release_unwritten(*pending)
        self._pending_open = None

    def _release_unwritten(self, jobdir: JobDir, keys_of: KeysOf) -> None:
        written: set[str] = set()
        for item in jobdir.previous_items():
            written.update(keys_of(item) or ())
        mine = [field for field, value in self.server.hscan_iter(self.key) if _owner(value) == self.owner]
        unwritten = [field for field in mine if field not in written]
        released = 0
        for start in range(0, len(unwritten), 500):
            released += self._release(keys=[self.key], args=[self.owner, *unwritten[start : start + 500]])
        # A page of a written item that is fetched again (it was in flight) must find it emitted.
        settled = [field for field in mine if field in written]
        for start in range(0, len(settled), 500):
            self._settle(keys=[self.key], args=[self.owner, *settled[start : start + 500]])
        logger.warning(
            "worker %s restarted after a crash: released %d keys it claimed but never wrote", self.owner, released
        )


def open_store(crawler: Crawler, name: str) -> EmittedStore:
    """The store for spider *name*: Redis when the crawl is distributed, else memory."""
    if WebcleanSettings.from_settings(crawler.settings).redis_url is not None:
        from webclean_scrapy.crawlstate.redis import redis_key, redis_server, worker_id

        return RedisEmittedStore(
            redis_server(crawler.settings), redis_key(crawler.settings, name, "emitted"), worker_id(crawler)
        )
    return MemoryEmittedStore()
