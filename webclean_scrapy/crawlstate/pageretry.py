"""A page whose callback met a Redis outage is fetched again, not lost.

The "already emitted" check (:mod:`webclean_scrapy.crawlstate.emitted`) asks
Redis from inside the spider's callback. When Redis cannot be reached, the
callback fails with redis-py's ``ConnectionError``, and Scrapy would log a
"Spider error" and drop the page, its article and its links with it.
:class:`RedisPageRetryMiddleware` answers such a failure with a new request for
the same page (past the dupefilter, which saw it already); the scheduler keeps
it until Redis answers (:mod:`webclean_scrapy.crawlstate.outage`). What the
callback had yielded before failing is already on its way, and the spiders
do not yield it twice (their links are marked requested, the article keys
claimed or not). The new request keeps the page's meta, with its claim id
(:data:`~webclean_scrapy.crawlstate.emitted.META_CLAIM`): a claim that failed
but ran once Redis woke up counts as the page's own, whichever worker takes it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from webclean_scrapy.crawlstate.outage import RedisOutage, redis_errors

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from typing_extensions import Self  # typing.Self: Python 3.11

logger = logging.getLogger(__name__)

#: Request meta key: how many times this page was fetched again after a Redis failure.
META_RETRIES = "webclean_redis_retries"
#: After ``SPIDER_MIDDLEWARES_BASE`` (up to 900): the first to see the callback's exception.
ORDER = 950


class RedisPageRetryMiddleware:
    """Spider middleware: a callback that failed for want of Redis gives a new request for its page."""

    def __init__(self, crawler: Crawler) -> None:
        self.stats = crawler.stats
        self.outage = RedisOutage.of(crawler)
        self.errors = redis_errors()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def process_spider_exception(self, response: Response, exception: Exception) -> Iterable[Request] | None:
        # No spider argument: Scrapy 2.19 deprecates it (and warns at start-up when a method asks for it).
        if not isinstance(exception, self.errors) or response.request is None:
            return None
        self.outage.failed(exception)
        request = response.request
        meta: dict[str, Any] = {**request.meta, META_RETRIES: request.meta.get(META_RETRIES, 0) + 1}
        self.stats.inc_value("webclean/redis/pages_retried")
        logger.info(
            "Redis failed while %s was processed (%s: %s): it will be fetched again",
            request.url,
            type(exception).__name__,
            exception,
        )
        return [request.replace(dont_filter=True, meta=meta)]
