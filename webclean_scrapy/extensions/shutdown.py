"""A forced shutdown (a second Ctrl-C or SIGTERM) makes ``scrapy crawl`` exit with status 1, not 0.

Scrapy 2.19 answers the second signal by stopping the reactor at once
(``CrawlerProcess._signal_kill``): the spider never closes, feeds and
pipelines are not finished, and yet the command exits 0, so a script or a
supervisor takes the cut crawl for a complete one. The only failure the
``crawl`` command reports is ``CrawlerProcess.bootstrap_failed``, read after
the reactor stops; :class:`ForcedShutdownExitCode` sets it when the reactor
stops while the spider is still open, which only a forced shutdown does
(a finished or gracefully stopped crawl closes its spider first).
"""

from __future__ import annotations

import logging
import signal
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import NotConfigured

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from typing_extensions import Self  # typing.Self: Python 3.11

logger = logging.getLogger(__name__)


class ForcedShutdownExitCode:
    """Extension: when the reactor stops before the spider closed, log it and fail the crawl's process."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.process: Any = None
        self._trigger: Any = None
        crawler.signals.connect(self.engine_started, signal=signals.engine_started)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        if not crawler.settings.getbool("TWISTED_REACTOR_ENABLED", True):
            raise NotConfigured("no Twisted reactor: its shutdown is not watched")
        return cls(crawler)

    def engine_started(self) -> None:
        from twisted.internet import reactor

        self._trigger = reactor.addSystemEventTrigger("before", "shutdown", self.reactor_stopping)
        # Once the reactor runs, Scrapy's signal handlers are in place (an "after startup" trigger).
        reactor.callWhenRunning(reactor.callLater, 0, self._find_process)

    def _find_process(self) -> None:
        """The ``CrawlerProcess`` whose shutdown handler is installed (``None`` under another runner)."""
        process = getattr(signal.getsignal(signal.SIGINT), "__self__", None)
        if hasattr(process, "bootstrap_failed"):
            self.process = process

    def spider_closed(self) -> None:
        from twisted.internet import reactor

        if self._trigger is not None:
            reactor.removeSystemEventTrigger(self._trigger)
            self._trigger = None

    def reactor_stopping(self) -> None:
        self._trigger = None
        logger.error(
            "Forced shutdown: the reactor stopped before the spider closed; its outputs may be incomplete "
            "(exit status 1)"
        )
        if self.process is not None:
            self.process.bootstrap_failed = True
