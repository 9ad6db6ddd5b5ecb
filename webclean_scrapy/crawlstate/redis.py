"""The one place that makes Redis clients and names Redis keys, for every shared crawl state.

The scheduler and dupefilter (:mod:`webclean_scrapy.crawlstate.distributed`) and the "already
emitted" store (:mod:`webclean_scrapy.crawlstate.emitted`) share a server, a key scheme and a
worker identity; keeping them here lets the store use Redis without importing scrapy-redis.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

from webclean_scrapy.crawlstate.jobdir import JobDir
from webclean_scrapy.settings import WebcleanSettings

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings

#: The setting that makes a crawl distributed.
SETTING = "WEBCLEAN_REDIS_URL"

#: Redis keys: ``<spider>:requests`` and ``<spider>:dupefilter`` (scrapy-redis's defaults),
#: ``<spider>:emitted``, ``<spider>:inflight:<worker id>``.
KEY_FORMAT = "%(spider)s:%(what)s"


#: Client options of every Redis connection of a crawl (scrapy-redis's ``REDIS_PARAMS`` too). Redis
#: calls block the reactor thread: a frozen server must fail them within seconds, so that the outage
#: handling (:mod:`~webclean_scrapy.crawlstate.outage`) warns and retries, rather than after 30 s in
#: silence. A call that timed out may still run once the server wakes: the callers retry idempotently.
CLIENT_PARAMS: dict[str, Any] = {"socket_timeout": 2.0, "socket_connect_timeout": 2.0, "retry_on_timeout": False}


def redis_key(settings: BaseSettings, spider: str, what: str) -> str:
    return KEY_FORMAT % {"spider": spider, "what": what}


def redis_server(settings: BaseSettings) -> Any:
    """A client with text replies, for the emitted keys."""
    import redis

    url = WebcleanSettings.from_settings(settings).redis_url
    if url is None:
        raise ValueError(f"{SETTING} is not set")
    return redis.Redis.from_url(url, decode_responses=True, **CLIENT_PARAMS)


def worker_id(crawler: Crawler) -> str:
    """This worker's identity: kept in its ``JOBDIR`` (stable across restarts), else random."""
    jobdir = JobDir.of(crawler)
    if jobdir is not None:
        return jobdir.worker_id
    existing = getattr(crawler, "_webclean_worker_id", None)
    if existing is None:
        existing = crawler._webclean_worker_id = uuid.uuid4().hex  # type: ignore[attr-defined]
    return existing
