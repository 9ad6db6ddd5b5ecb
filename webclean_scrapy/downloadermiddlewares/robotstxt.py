"""Scrapy's robots.txt middleware, with every request waiting for robots.txt getting its answer.

Scrapy 2.19's :class:`~scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware`
lets all requests to a host wait on one ``Deferred`` while that host's
robots.txt downloads, each through ``maybe_deferred_to_future``. Under the
asyncio reactor that chains a callback returning ``None``: the first waiter
gets the parser, every other one gets ``None``, which means "no robots.txt",
so they are **fetched even where robots.txt forbids them**. Any crawl whose
first requests to a host come several at once hits it: several start URLs
on one site, or a scrapy-redis worker that joins a crawl and takes a batch
of queued requests at once (found by ``tests/test_crawlstate_distributed.py``).

The fix is the one older Scrapy used: each waiter gets its own ``Deferred``
fired with the result, which is passed on unchanged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware as ScrapyRobotsTxtMiddleware
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.httpobj import urlparse_cached
from twisted.internet.defer import Deferred

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.robotstxt import RobotParser

#: Replaces Scrapy's middleware at the same order.
ORDER = 100


class RobotsTxtMiddleware(ScrapyRobotsTxtMiddleware):
    """``ROBOTSTXT_OBEY`` that holds for requests made while robots.txt is still downloading."""

    async def robot_parser(self, request: Request) -> RobotParser | None:
        pending = self._parsers.get(urlparse_cached(request).netloc)
        if not isinstance(pending, Deferred):
            return await super().robot_parser(request)
        waiter: Deferred[Any] = Deferred()

        def relay(result: Any) -> Any:
            waiter.callback(result)
            return result

        pending.addBoth(relay)
        return await maybe_deferred_to_future(waiter)
