"""The bridge from Scrapy's reactor to the workers: :class:`Offloader` picks where a page runs and awaits it."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from scrapy.utils.asyncio import is_asyncio_available

from webclean_scrapy.engine.compiled import compiled_modules
from webclean_scrapy.engine.extractors import get_extractor
from webclean_scrapy.engine.formats import NO_MARKUP
from webclean_scrapy.offload.jobs import PageResult, extract_markup, extract_response, response_content_type
from webclean_scrapy.offload.pool import WorkerPool, WorkersUnavailable

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import TextResponse

    from webclean_scrapy.explain.crawl import ExplainPolicy
    from webclean_scrapy.settings import WebcleanSettings


_T = TypeVar("_T")

#: The defaults of :func:`~webclean_scrapy.offload.jobs.extract_markup`'s arguments after the page.
_PAGE_OPTION_DEFAULTS: tuple[Any, ...] = (False, None, (), NO_MARKUP, None)

logger = logging.getLogger(__name__)


async def await_concurrent(future: concurrent.futures.Future[_T]) -> _T:
    """Await a :class:`concurrent.futures.Future` from a Scrapy coroutine.

    Under asyncio (the default reactor, or reactorless) this is
    :func:`asyncio.wrap_future`; under a plain Twisted reactor, a Deferred
    fired from the reactor thread.
    """
    if is_asyncio_available():
        return await asyncio.wrap_future(future)
    from twisted.internet import reactor
    from twisted.internet.defer import Deferred

    deferred: Deferred[_T] = Deferred()

    def fire(done: concurrent.futures.Future[_T]) -> None:
        exc = done.exception()
        if exc is not None:
            deferred.errback(exc)
        else:
            deferred.callback(done.result())

    future.add_done_callback(lambda done: reactor.callFromThread(fire, done))
    return await deferred


class Offloader:
    """Runs extractions for one crawler with bounded concurrency.

    Shared by the middleware and the pipelines of a crawler (see
    :meth:`for_crawler`), so ``WEBCLEAN_WORKERS`` bounds the whole crawl.
    """

    def __init__(self, settings: WebcleanSettings) -> None:
        self.mode = settings.offload
        assert settings.workers is not None  # resolved by WebcleanSettings
        self.workers = settings.workers
        self.page_timeout = settings.page_timeout
        self.outline = settings.outline
        self._name = settings.extractor
        self._options = dict(settings.extractor_options)
        # Built here, in the calling thread, so a bad name or option fails the
        # crawl at start-up rather than page by page in the workers.
        self.extractor = get_extractor(self._name, **self._options)
        self.explain: ExplainPolicy | None = None
        #: ``WEBCLEAN_FORMATS``: rendered in the worker, with the extraction.
        self.formats = tuple(settings.formats)
        #: ``WEBCLEAN_MARKDOWN_LINKS``/``_FORMATTING``/``_IMAGES``: the inline markup of those formats.
        self.markup = settings.markup
        #: ``WEBCLEAN_FIELDS`` with the formats: the optional fields computed (``None``: all).
        self.fields = settings.wanted_fields
        if settings.explain_dir:
            from webclean_scrapy.explain.crawl import ExplainPolicy

            # Absolute: worker processes need not share the crawl's working directory.
            self.explain = ExplainPolicy(os.path.abspath(settings.explain_dir), settings.explain_below)
        self._threads: concurrent.futures.ThreadPoolExecutor | None = None
        self._processes: WorkerPool | None = None
        self._closed = False
        if self.mode == "process":
            # Start the workers now, at crawler set-up (in the pool's threads,
            # never on the reactor), so the first page does not wait for them.
            self._processes = WorkerPool(self.workers, self._name, self._options, self.page_timeout)

    @classmethod
    def for_crawler(cls, crawler: Crawler, settings: WebcleanSettings) -> Offloader:
        """The crawler's shared offloader, created (and its shutdown hooked) on first use."""
        offloader = getattr(crawler, "_webclean_offloader", None)
        if offloader is None or offloader._closed:
            from scrapy import signals

            offloader = cls(settings)
            offloader.log_start(crawler)
            crawler._webclean_offloader = offloader  # type: ignore[attr-defined]  # per-crawl state
            # spider_closed comes after the pipelines closed: no page is pending then.
            crawler.signals.connect(offloader.close, signal=signals.spider_closed, weak=False)
        return offloader

    def log_start(self, crawler: Crawler) -> None:
        """The crawl's one start-up line: which extractor runs, where, with how many workers, which
        compiled modules loaded; a WARNING when any runs as pure Python."""
        name = getattr(self.extractor, "name", None) or type(self.extractor).__name__
        asked = "" if self._name == name else f" (WEBCLEAN_EXTRACTOR={self._name!r})"
        options = f", options {self._options}" if self._options else ""
        where = (
            "inline on the reactor thread"
            if self.mode == "none"
            else f"{self.workers} {self.mode} worker{'s' if self.workers != 1 else ''}"
        )
        loaded = compiled_modules()
        logger.info(
            "webclean: extractor %s%s%s, WEBCLEAN_OFFLOAD=%s, %s; compiled modules: %s",
            name,
            asked,
            options,
            self.mode,
            where,
            ", ".join(module for module, ok in loaded.items() if ok) or "none",
            extra={"crawler": crawler},
        )
        missing = [module for module, ok in loaded.items() if not ok]
        if missing:
            logger.warning(
                "webclean: pure-Python fallback for %s (installed without a C compiler): the same output, "
                "several times slower; reinstall with a C compiler to build them",
                ", ".join(missing),
                extra={"crawler": crawler},
            )

    @property
    def in_process(self) -> bool:
        """True when work runs in this process and may touch the response object."""
        return self.mode != "process"

    def _thread_pool(self) -> concurrent.futures.ThreadPoolExecutor:
        if self._threads is None:
            self._threads = concurrent.futures.ThreadPoolExecutor(
                max_workers=self.workers, thread_name_prefix="webclean"
            )
        return self._threads

    async def _submit(self, func: Callable[..., _T], *args: Any, label: str = "a page") -> _T:
        if self.mode == "none":
            return func(*args)
        if self.mode == "thread":
            return await await_concurrent(self._thread_pool().submit(func, *args))
        assert self._processes is not None
        try:
            return await await_concurrent(self._processes.submit(func, *args, label=label))
        except WorkersUnavailable as exc:
            # No worker ever started: an extractor that is not importable in a
            # fresh process, a sandbox without multiprocessing. Threads do the
            # same job without that need. (A worker that started and then died
            # is a crash, handled by the pool: never a reason to come here.)
            if self.mode == "process":
                logger.warning("webclean: worker processes failed to start (%s); extracting in threads instead", exc)
                self.mode = "thread"
            if func is extract_markup and args and args[0] is None:  # the worker's extractor: ours
                args = (self.extractor, *args[1:])
            return await self._submit(func, *args)

    async def run(self, func: Callable[..., _T], *args: Any, label: str = "a page") -> _T:
        """``func(*args)`` where pages are extracted, not on the reactor thread.

        For other CPU work on a page's bytes (the ``harvest`` spider reads
        its HTML search result pages here): in process mode *func* and
        *args* must be picklable (a module-level function, bytes, plain
        data), and ``WEBCLEAN_PAGE_TIMEOUT`` and the crash handling apply
        as for an extraction; the work shares the ``WEBCLEAN_WORKERS`` slots.
        """
        return await self._submit(func, *args, label=label)

    async def extract_response(self, response: TextResponse) -> PageResult:
        """Extract an HTML response, with its :class:`~webclean_scrapy.offload.outline.PageOutline`
        when ``WEBCLEAN_OUTLINE`` is on (its raw bytes go to worker processes)."""
        if self.in_process:
            return await self._submit(extract_response, self.extractor, response, *self._options_of_page())
        # Scrapy's charset order (explicit, header, BOM, <meta>) with encoding.py's corrections, in the worker.
        return await self._submit(
            extract_markup,
            None,
            response.body,
            response.url,
            response_content_type(response),
            *self._options_of_page(),
            label=response.url,
        )

    async def extract_markup(
        self, html: bytes | str, url: str | None = None, content_type: str | None = None
    ) -> PageResult:
        """Extract raw markup (bytes in any charset, or str)."""
        extractor = self.extractor if self.in_process else None
        return await self._submit(
            extract_markup, extractor, html, url, content_type, *self._options_of_page(), label=url or "a page"
        )

    def _options_of_page(self) -> tuple[Any, ...]:
        """The job's arguments after the page (outline, explain, formats, markup, fields),
        those at their defaults at the end left out: each is pickled with every page
        sent to a worker process, and a crawl with the defaults sends none."""
        options = (self.outline, self.explain, self.formats, self.markup, self.fields)
        count = len(options)
        while count and options[count - 1] == _PAGE_OPTION_DEFAULTS[count - 1]:
            count -= 1
        return options[:count]

    def close(self) -> None:
        """Shut the pools down once their pending pages are done (the crawl is over)."""
        self._closed = True
        threads, self._threads = self._threads, None
        if threads is not None:
            threads.shutdown(wait=True, cancel_futures=True)
        processes, self._processes = self._processes, None
        if processes is not None:
            processes.shutdown()
