"""Which workers of a distributed crawl are busy, so that an empty shared queue does not end one too early.

The shared queue is empty for a moment whenever every queued request has been
taken: at the start, while the first worker still reads robots.txt and the
sitemaps, or later while the others fetch the pages that will queue the next
links. A worker that closed then would leave the whole crawl to the others.
Each worker therefore keeps a *busy mark* in the sorted set
``<spider>:busy`` (member: the worker's id, score: when the mark expires, in
Redis's clock): set when it takes a request, renewed while its engine is
working, dropped when it goes idle. A worker whose queue is empty closes only
when no other worker holds a live mark; a worker killed while busy holds the
others back at most ``WEBCLEAN_REDIS_IDLE_TIMEOUT`` seconds, the marks' lifetime.
"""

from __future__ import annotations

from typing import Any

#: Drop the expired marks of KEYS[1]; return how many live ones belong to others than ARGV[1].
_OTHERS = """
local t = redis.call('TIME')
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', t[1] * 1000 + math.floor(t[2] / 1000))
local n = redis.call('ZCARD', KEYS[1])
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then n = n - 1 end
return n
"""

#: Lua for scripts that set a mark, one alone or with taking a request: ``mark(key, worker, ttl_ms)``
#: sets *worker*'s mark in sorted set *key* to expire *ttl_ms* from now (Redis's clock: one for all machines).
MARK_FUNCTION = """
local function mark(key, member, ttl)
    local t = redis.call('TIME')
    redis.call('ZADD', key, t[1] * 1000 + math.floor(t[2] / 1000) + tonumber(ttl), member)
end
"""
_MARK = MARK_FUNCTION + "mark(KEYS[1], ARGV[1], ARGV[2])"


class BusyMarks:
    """One worker's view of the busy marks in the sorted set *key*."""

    def __init__(self, server: Any, key: str, worker: str, timeout: float) -> None:
        self.server = server
        self.key = key
        self.worker = worker
        #: The marks' lifetime, in milliseconds (as :data:`MARK_FUNCTION` takes it).
        self.ttl_ms = max(1, round(timeout * 1000))
        self._mark = server.register_script(_MARK)
        self._others = server.register_script(_OTHERS)

    def mark(self) -> None:
        """This worker is busy for the next ``timeout`` seconds."""
        self._mark(keys=[self.key], args=[self.worker, self.ttl_ms])

    def clear(self) -> None:
        """This worker is idle: it queues nothing more until it takes a request again."""
        self.server.zrem(self.key, self.worker)

    def others_busy(self) -> int:
        """How many other workers hold a live mark."""
        return int(self._others(keys=[self.key], args=[self.worker]))
