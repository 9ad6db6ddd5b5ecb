"""Redis outages of a distributed crawl: told once, retried with backoff, and never the end of a worker.

A worker can do nothing useful without the shared queue, dupefilter and
"already emitted" keys, but it must lose nothing while Redis is away (a
restart, a failover, a network cut): the scheduler keeps the requests it could
not queue, a page whose "already emitted" check failed is fetched again, and
the worker keeps waiting instead of finishing. :class:`RedisOutage` is the
crawl's one record of whether Redis is reachable, shared by those components so
that one outage gives one WARNING (once it outlasted the first retry) and one
INFO when Redis answers again, whichever component met it.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

#: Seconds before the first retry, doubled after each failed one up to :data:`MAX_DELAY`.
FIRST_DELAY = 0.5
MAX_DELAY = 5.0


def redis_errors() -> tuple[type[BaseException], ...]:
    """The errors of a Redis that cannot be reached (or is still loading its data after a restart)."""
    import redis

    return (redis.ConnectionError, redis.TimeoutError)


class RedisOutage:
    """Whether this crawl's Redis is reachable, when to try it again, and what to log."""

    def __init__(self, crawler: Crawler | None = None, *, where: str = "Redis") -> None:
        self.stats = crawler.stats if crawler is not None else None
        self.where = where
        #: ``time.monotonic()`` of the first failure of the current outage; ``None``: Redis is up.
        self.since: float | None = None
        self.next_try = 0.0
        self.delay = FIRST_DELAY
        self.warned = False

    @classmethod
    def of(cls, crawler: Crawler) -> RedisOutage:
        """The crawl's one :class:`RedisOutage` (created on first use)."""
        existing = getattr(crawler, "_webclean_redis_outage", None)
        if existing is None:
            from webclean_scrapy.settings import WebcleanSettings

            url = WebcleanSettings.from_crawler(crawler).redis_url or "Redis"
            existing = cls(crawler, where=f"Redis at {_without_password(url)}")
            crawler._webclean_redis_outage = existing  # type: ignore[attr-defined]
        return existing

    @property
    def down(self) -> bool:
        return self.since is not None

    def may_try(self) -> bool:
        """Whether to call Redis now: always while it is up; during an outage, once the backoff delay passed."""
        return self.since is None or time.monotonic() >= self.next_try

    def failed(self, error: BaseException) -> None:
        """A Redis call failed for want of Redis: start or extend the outage, push the next try back."""
        now = time.monotonic()
        if self.since is None:
            self.since = now
            self.delay = FIRST_DELAY
            if self.stats is not None:
                self.stats.inc_value("webclean/redis/outages")
        elif not self.warned and now - self.since >= FIRST_DELAY:  # it outlasted a retry: worth a WARNING
            self.warned = True
            logger.warning(
                "%s has been unreachable for %.1f s (%s: %s): the worker waits and retries (every %.0f s at "
                "most); it keeps the requests it could not queue and fetches again the pages it could not "
                "check, nothing is dropped",
                self.where,
                now - self.since,
                type(error).__name__,
                error,
                MAX_DELAY,
            )
        self.next_try = now + self.delay
        self.delay = min(MAX_DELAY, self.delay * 2)

    def succeeded(self) -> None:
        """A Redis call went through: the outage, if any, is over."""
        if self.since is None:
            return
        lasted = time.monotonic() - self.since
        if self.warned:
            logger.info("%s is reachable again, after %.1f s", self.where, lasted)
        else:
            logger.debug("%s did not answer for %.1f s", self.where, lasted)
        if self.stats is not None:
            # A float total: inc_value is typed for counts.
            total = self.stats.get_value("webclean/redis/outage_seconds", 0.0) + lasted
            self.stats.set_value("webclean/redis/outage_seconds", round(total, 3))
        self.since = None
        self.warned = False


def _without_password(url: str) -> str:
    """*url* without its credentials, for the log."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    host = parts.hostname or ""
    return f"{host}:{parts.port}" if parts.port else host or url.split("://", 1)[-1]
