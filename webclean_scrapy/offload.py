"""Where extraction runs, so it never stalls Scrapy's reactor.

Extraction is CPU work (a tree walk in Python, milliseconds to seconds per
page); done in a callback it freezes every download, timer and signal of the
crawl for that long. An :class:`Offloader` runs it elsewhere, with at most
``WEBCLEAN_WORKERS`` pages at a time (``WEBCLEAN_OFFLOAD``):

``"process"`` (the default)
    A :class:`~concurrent.futures.ProcessPoolExecutor`. The raw body crosses
    the process boundary and is parsed there; the spider parses it again if it
    uses selectors. Real parallelism, and the reactor keeps the GIL: the
    lowest stalls and the best throughput measured (``docs/BENCHMARKS.md``).
    A worker that dies (out of memory on a monstrous page) fails the pages in
    flight only: the pool is rebuilt. Workers that cannot start at all fall
    back to threads.
``"thread"``
    A :class:`~concurrent.futures.ThreadPoolExecutor`. The worker builds the
    :class:`~webclean_scrapy.Document` from ``response.selector.root``, so the
    tree is parsed once (in the worker) and the spider's selectors reuse it.
``"none"``
    Inline on the reactor thread (for debugging and as the benchmark baseline).

The awaitable returned works under any Scrapy setup: the asyncio reactor,
reactorless asyncio, and the plain Twisted reactor.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import multiprocessing
import time
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, TypeVar

try:
    from scrapy.utils.asyncio import is_asyncio_available
except ImportError:  # Scrapy 2.13
    from scrapy.utils.reactor import is_asyncio_reactor_installed, is_reactor_installed

    def is_asyncio_available() -> bool:
        """Scrapy 2.13 has no reactorless mode: asyncio means the asyncio reactor, or no reactor at all."""
        return not is_reactor_installed() or is_asyncio_reactor_installed()

from .document import Document, built_page
from .extractors import get_extractor

if TYPE_CHECKING:
    from scrapy.http import TextResponse

    from .extraction import Extraction, Extractor
    from .settings import WebcleanSettings

_T = TypeVar("_T")

logger = logging.getLogger(__name__)

@dataclass(frozen=True, slots=True)
class PageResult:
    """What a worker sends back: the extraction, the canonical URL, the time spent."""

    extraction: Extraction
    canonical_url: str | None
    seconds: float


def _run(extractor: Extractor, doc_factory: Callable[[], Document]) -> PageResult:
    start = time.perf_counter()
    with built_page(doc_factory) as doc:
        extraction = extractor.extract(doc)
        canonical = doc.canonical_url
    return PageResult(extraction, canonical, time.perf_counter() - start)


def extract_response(extractor: Extractor, response: TextResponse) -> PageResult:
    """Extract from a response, reusing Scrapy's parsed tree (parsed here if not yet)."""
    return _run(extractor, lambda: Document(response.selector.root, url=response.url, source=response.text))


def extract_markup(extractor: Extractor | None, html: bytes | str, url: str | None,
                   content_type: str | None) -> PageResult:
    """Extract from raw bytes (decoded with *content_type*'s charset) or a str.

    *extractor* ``None`` means this process's worker extractor (see
    :func:`_init_process_worker`). Raises
    :class:`~webclean_scrapy.errors.NotHTMLError` for binary bytes.
    """
    method = extractor if extractor is not None else _WORKER_EXTRACTOR
    assert method is not None, "extract_markup(None, ...) outside a webclean worker process"
    return _run(method, lambda: Document.from_html(html, url=url, encoding=content_type))


_WORKER_EXTRACTOR: Extractor | None = None


def _init_process_worker(name: Any, options: dict[str, Any]) -> None:
    global _WORKER_EXTRACTOR
    _WORKER_EXTRACTOR = get_extractor(name, **options)


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
        self.workers = settings.workers
        self._name = settings.extractor
        self._options = dict(settings.extractor_options)
        # Built here, in the calling thread, so a bad name or option fails the
        # crawl at start-up rather than page by page in the workers.
        self.extractor = get_extractor(self._name, **self._options)
        self._executor: concurrent.futures.Executor | None = None
        self._closed = False
        self._process_ok = False  # a worker process has returned a page
        if self.mode == "process":
            # Start the workers now, at crawler set-up: started lazily, their
            # launch would stall the reactor on the first page.
            self._pool().submit(int)

    @classmethod
    def for_crawler(cls, crawler: Any, settings: WebcleanSettings) -> Offloader:
        """The crawler's shared offloader, created (and its shutdown hooked) on first use."""
        offloader = getattr(crawler, "_webclean_offloader", None)
        if offloader is None or offloader._closed:
            from scrapy import signals

            offloader = cls(settings)
            offloader.log_start(crawler)
            crawler._webclean_offloader = offloader
            # spider_closed comes after the pipelines closed: no page is pending then.
            crawler.signals.connect(offloader.close, signal=signals.spider_closed, weak=False)
        return offloader

    def log_start(self, crawler: Any) -> None:
        """The crawl's one start-up line: which extractor runs, where, with how many workers."""
        name = getattr(self.extractor, "name", None) or type(self.extractor).__name__
        asked = "" if self._name == name else f" (WEBCLEAN_EXTRACTOR={self._name!r})"
        options = f", options {self._options}" if self._options else ""
        where = "inline on the reactor thread" if self.mode == "none" else \
            f"{self.workers} {self.mode} worker{'s' if self.workers != 1 else ''}"
        logger.info("webclean: extractor %s%s%s, WEBCLEAN_OFFLOAD=%s, %s",
                    name, asked, options, self.mode, where, extra={"crawler": crawler})

    @property
    def in_process(self) -> bool:
        """True when work runs in this process and may touch the response object."""
        return self.mode != "process"

    def _pool(self) -> concurrent.futures.Executor:
        if self._executor is None:
            if self.mode == "process":
                methods = multiprocessing.get_all_start_methods()
                context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
                self._executor = concurrent.futures.ProcessPoolExecutor(
                    max_workers=self.workers, mp_context=context,
                    initializer=_init_process_worker, initargs=(self._name, self._options),
                )
            else:
                self._executor = concurrent.futures.ThreadPoolExecutor(
                    max_workers=self.workers, thread_name_prefix="webclean")
        return self._executor

    async def _submit(self, func: Callable[..., PageResult], *args: Any) -> PageResult:
        if self.mode == "none":
            return func(*args)
        pool = self._pool()
        try:
            result = await await_concurrent(pool.submit(func, *args))
        except BrokenProcessPool:
            if self._executor is pool:
                self._executor = None
                pool.shutdown(wait=False, cancel_futures=True)
            if self.mode == "process" and self._process_ok:
                raise  # a worker died (killed, out of memory): only the pages in flight fail
            # The pool never worked: workers cannot start here (an extractor
            # that is not importable in a fresh process, a sandbox without
            # multiprocessing). Threads do the same job without that need.
            if self.mode == "process":
                logger.warning("webclean: worker processes failed to start; extracting in threads instead")
                self.mode = "thread"
            return await self._submit(extract_markup, self.extractor, *args[1:])
        if self.mode == "process":
            self._process_ok = True
        return result

    async def extract_response(self, response: TextResponse) -> PageResult:
        """Extract an HTML response (its raw bytes go to worker processes)."""
        if self.in_process:
            return await self._submit(extract_response, self.extractor, response)
        # The same charset rules as Scrapy's (header, BOM, <meta>), applied in the worker.
        content_type = response.headers.get(b"Content-Type")
        return await self._submit(
            extract_markup, None, response.body, response.url,
            content_type.decode("latin-1") if content_type else None,
        )

    async def extract_markup(self, html: bytes | str, url: str | None = None,
                             content_type: str | None = None) -> PageResult:
        """Extract raw markup (bytes in any charset, or str)."""
        extractor = self.extractor if self.in_process else None
        return await self._submit(extract_markup, extractor, html, url, content_type)

    def close(self) -> None:
        """Shut the pool down; pending pages are cancelled (the crawl is over)."""
        self._closed = True
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)
