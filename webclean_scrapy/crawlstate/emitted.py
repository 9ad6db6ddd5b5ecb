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
  the worker that claimed it.
* With ``JOBDIR`` (:mod:`webclean_scrapy.crawlstate.jobdir`), either store is seeded
  from the items the job already wrote: in memory, every key of them; in
  Redis, the worker's own claims that never reached its outputs (it was
  killed in between) are released, so those articles are emitted again.

:func:`open_store` picks the store from the settings.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from webclean_scrapy.crawlstate.jobdir import JobDir
from webclean_scrapy.crawlstate.outage import redis_errors
from webclean_scrapy.settings import WebcleanSettings

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

#: Request meta key: while true, the request still holds something not yet
#: emitted (a ``news`` fallback item), so a distributed worker's in-flight
#: ledger keeps it (:mod:`webclean_scrapy.crawlstate.distributed`) to redo it after a crash.
META_HOLD = "webclean_hold"

#: Keys of one item, given an item read back from an output (``None``: not this spider's item).
KeysOf = Callable[[dict[str, Any]], "Iterable[str] | None"]


class EmittedStore:
    """The keys of the items already emitted."""

    def seen(self, keys: Iterable[str]) -> bool:
        """Whether any of *keys* belongs to an emitted item."""
        raise NotImplementedError

    def claim(self, keys: Iterable[str]) -> bool:
        """Record *keys* and return ``True``, unless one of them is known (then nothing changes)."""
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

    def seen(self, keys: Iterable[str]) -> bool:
        return not self.keys.isdisjoint(keys)

    def claim(self, keys: Iterable[str]) -> bool:
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


#: All of ARGV[2:] absent from hash KEYS[1] -> set them to ARGV[1] (the owner), return 1; else 0.
_CLAIM = """
for i = 2, #ARGV do
    if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 1 then return 0 end
end
for i = 2, #ARGV do redis.call('HSET', KEYS[1], ARGV[i], ARGV[1]) end
return 1
"""
#: Delete ARGV[2:] from hash KEYS[1] where they are still owned by ARGV[1].
_RELEASE = """
local n = 0
for i = 2, #ARGV do
    if redis.call('HGET', KEYS[1], ARGV[i]) == ARGV[1] then redis.call('HDEL', KEYS[1], ARGV[i]); n = n + 1 end
end
return n
"""


class RedisEmittedStore(EmittedStore):
    """Keys in the Redis hash *key* (field: item key, value: the worker that claimed it)."""

    def __init__(self, server: Any, key: str, owner: str) -> None:
        self.server = server
        self.key = key
        self.owner = owner
        self._pending_open: tuple[JobDir, KeysOf] | None = None
        self._uncertain: set[str] = set()  # keys of claims a Redis error left undecided
        self._claim = server.register_script(_CLAIM)
        self._release = server.register_script(_RELEASE)

    def seen(self, keys: Iterable[str]) -> bool:
        keys = list(keys)
        if not keys:
            return False
        owners = self.server.hmget(self.key, keys)
        return any(owner and not self._mine_maybe(key, owner) for key, owner in zip(keys, owners))

    def _mine_maybe(self, key: str, owner: str) -> bool:
        """Whether *key* may be held by a claim of this worker whose reply a Redis error lost."""
        return owner == self.owner and key in self._uncertain

    def claim(self, keys: Iterable[str]) -> bool:
        """A claim whose reply a timeout lost may have run: on the page's retry, keys all held by
        that undecided claim of this worker mean it went through."""
        keys = sorted(set(keys))
        try:
            claimed = bool(self._claim(keys=[self.key], args=[self.owner, *keys]))
        except redis_errors():
            self._uncertain.update(keys)
            raise
        if not claimed and self._uncertain.intersection(keys):
            owners = self.server.hmget(self.key, keys)
            claimed = all(self._mine_maybe(key, owner) for key, owner in zip(keys, owners))
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
        mine = [
            field for field, owner in self.server.hscan_iter(self.key) if owner == self.owner and field not in written
        ]
        released = 0
        for start in range(0, len(mine), 500):
            released += self._release(keys=[self.key], args=[self.owner, *mine[start : start + 500]])
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
