"""What the webclean spiders share: the middleware they need, stats, failures."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import scrapy
from scrapy.exceptions import IgnoreRequest
from scrapy.spidermiddlewares.httperror import HttpError

from scrapy import signals

from webclean_scrapy.emitted import EmittedStore, open_store
from webclean_scrapy.items import META_KEY
from webclean_scrapy.jobdir import JobDir
from webclean_scrapy.jobdir import configure_settings as configure_jobdir
from webclean_scrapy.middleware import WebcleanMiddleware
from webclean_scrapy.settings import WebcleanSettings

from .project import MIDDLEWARE_ORDER

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from scrapy.settings import BaseSettings
    from twisted.python.failure import Failure


def parse_bool(value: Any) -> bool:
    """A spider argument (``-a x=1``) as a bool: 1/true/yes/on are true."""
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in {"1", "true", "yes", "on"}


def parse_positive_int(name: str, value: Any, *, allow_zero: bool = False) -> int:
    """A spider argument as an int, with a clear error instead of a traceback deep in Scrapy."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise ValueError(f"-a {name}= must be an integer, got {value!r}") from None
    if number < 0 or (number == 0 and not allow_zero):
        raise ValueError(f"-a {name}= must be {'>= 0' if allow_zero else '> 0'}, got {number}")
    return number


def configure_crawl_state(settings: BaseSettings) -> None:
    """Durable outputs with ``JOBDIR``, scrapy-redis with ``WEBCLEAN_REDIS_URL`` (before settings freeze)."""
    configure_jobdir(settings)
    if WebcleanSettings.from_settings(settings).redis_url is not None:
        from webclean_scrapy.distributed import configure_settings as configure_redis

        configure_redis(settings)


def is_html(response: Response) -> bool:
    """True when the middleware treated *response* as HTML (its meta key is set)."""
    return META_KEY in response.meta


class WebcleanSpider(scrapy.Spider):
    """Base class: makes sure the extraction middleware runs, counts outcomes in stats.

    The spiders read each page's text from ``response.meta["webclean"]``,
    so the middleware is enabled here when the project did not configure it
    (a project that set it to ``None`` keeps it off, and gets no items).
    """

    #: Prefix of this spider's stats keys (``"news/"``).
    stats_prefix = ""

    #: What this spider already emitted (:mod:`webclean_scrapy.emitted`): in
    #: memory, or in Redis when ``WEBCLEAN_REDIS_URL`` is set; seeded from the
    #: job's outputs when ``JOBDIR`` is set.
    emitted: EmittedStore

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> WebcleanSpider:
        crawler.settings.setdefault_in_component_priority_dict(
            "DOWNLOADER_MIDDLEWARES", WebcleanMiddleware, MIDDLEWARE_ORDER)
        configure_crawl_state(crawler.settings)
        spider = super().from_crawler(crawler, *args, **kwargs)
        spider.emitted = open_store(crawler, spider.name)
        # Now, before the scheduler exists: a restarted Redis worker must release
        # its unwritten claims before its leftover requests are queued again.
        spider.emitted.open(JobDir.of(crawler), spider.emitted_keys)
        crawler.signals.connect(spider._close_emitted, signal=signals.spider_closed)
        return spider

    def _close_emitted(self) -> None:
        self.emitted.close()

    def emitted_keys(self, item: Any) -> list[str] | None:
        """The keys that identify *item* in :attr:`emitted` (``None``: not one of this spider's items).

        Also applied to the items a ``JOBDIR`` job already wrote, read back as dicts.
        """
        return None

    def inc(self, key: str, count: int = 1) -> None:
        self.crawler.stats.inc_value(self.stats_prefix + key, count)

    def count_failure(self, failure: Failure, key: str = "errors") -> None:
        """Count a failed request as ``<key>`` and ``<key>/<reason>``.

        The reason is ``http_<status>`` for HTTP errors, else the exception's
        class name; requests dropped on purpose (robots.txt, offsite:
        :class:`~scrapy.exceptions.IgnoreRequest`) are ``ignored``.
        """
        if failure.check(HttpError):
            reason = f"http_{failure.value.response.status}"
        elif failure.check(IgnoreRequest):
            reason = "ignored"
        else:
            reason = type(failure.value).__name__
        self.inc(key)
        self.inc(f"{key}/{reason}")
