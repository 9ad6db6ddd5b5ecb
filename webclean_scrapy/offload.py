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
import os
import time
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from scrapy.utils.asyncio import is_asyncio_available

from .document import Document, built_page
from .encoding import decoded_alike
from .extractors import get_extractor
from .render import add_formats, extract_formats

if TYPE_CHECKING:
    from scrapy.http import TextResponse

    from .explain.crawl import ExplainPolicy
    from .extraction import Extraction, Extractor
    from .settings import WebcleanSettings

_T = TypeVar("_T")

logger = logging.getLogger(__name__)

@dataclass(frozen=True, slots=True)
class PageResult:
    """What a worker sends back: the extraction, the canonical URL, the time
    spent, and the path of the page's ``WEBCLEAN_EXPLAIN_DIR`` report if one
    was written (``report_failed`` if writing it failed)."""

    extraction: Extraction
    canonical_url: str | None
    seconds: float
    report: str | None = None
    report_failed: bool = False


def _run(extractor: Extractor, doc_factory: Callable[[], Document],
         explain: ExplainPolicy | None = None, formats: tuple[str, ...] = ()) -> PageResult:
    start = time.perf_counter()
    report, failed = None, False
    with built_page(doc_factory) as doc:
        if explain is None:
            extraction = extract_formats(extractor, doc, formats)
        else:
            extraction, trace = explain.extract(extractor, doc)
            add_formats(extraction, doc, formats, trace)
        canonical = doc.canonical_url
        seconds = time.perf_counter() - start
        if explain is not None:
            try:
                report = explain.report(extractor, doc, extraction, trace)
            except Exception as exc:  # a report must never cost the page
                logger.warning("webclean: could not write the explain report of %s: %s", doc.url, exc,
                               exc_info=not isinstance(exc, OSError))
                failed = True
    return PageResult(extraction, canonical, seconds, report, failed)


def extract_response(extractor: Extractor, response: TextResponse,
                     explain: ExplainPolicy | None = None, formats: tuple[str, ...] = ()) -> PageResult:
    """Extract from a response, reusing Scrapy's parsed tree (parsed here if not yet).

    When Scrapy chose another charset than :func:`~webclean_scrapy.encoding.decode_html`
    would (``<meta charset="utf-16">``, a BOM-less UTF-16 body, undeclared
    legacy bytes), the bytes are decoded and parsed afresh instead, so thread
    and process offload give the same text for the same bytes.
    """
    content_type = response.headers.get(b"Content-Type")
    header = content_type.decode("latin-1") if content_type else None
    if not decoded_alike(response.body, header, response.encoding):
        return extract_markup(extractor, response.body, response.url, header, explain, formats)
    return _run(extractor, lambda: Document(response.selector.root, url=response.url, source=response.text),
                explain, formats)


def extract_markup(extractor: Extractor | None, html: bytes | str, url: str | None,
                   content_type: str | None, explain: ExplainPolicy | None = None,
                   formats: tuple[str, ...] = ()) -> PageResult:
    """Extract from raw bytes (decoded with *content_type*'s charset) or a str;
    *formats* (``WEBCLEAN_FORMATS``) are rendered here too, in the worker.

    *extractor* ``None`` means this process's worker extractor (see
    :func:`_init_process_worker`). Raises
    :class:`~webclean_scrapy.errors.NotHTMLError` for binary bytes.
    """
    method = extractor if extractor is not None else _WORKER_EXTRACTOR
    assert method is not None, "extract_markup(None, ...) outside a webclean worker process"
    return _run(method, lambda: Document.from_html(html, url=url, encoding=content_type), explain, formats)


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
        self.explain: ExplainPolicy | None = None
        #: ``WEBCLEAN_FORMATS``: rendered in the worker, with the extraction.
        self.formats = settings.formats
        if settings.explain_dir:
            from .explain.crawl import ExplainPolicy

            # Absolute: worker processes need not share the crawl's working directory.
            self.explain = ExplainPolicy(os.path.abspath(settings.explain_dir), settings.explain_below)
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
            crawler._webclean_offloader = offloader
            # spider_closed comes after the pipelines closed: no page is pending then.
            crawler.signals.connect(offloader.close, signal=signals.spider_closed, weak=False)
        return offloader

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
            return await self._submit(extract_response, self.extractor, response, self.explain, self.formats)
        # The same charset rules as Scrapy's (header, BOM, <meta>), applied in the worker.
        content_type = response.headers.get(b"Content-Type")
        return await self._submit(
            extract_markup, None, response.body, response.url,
            content_type.decode("latin-1") if content_type else None, self.explain, self.formats,
        )

    async def extract_markup(self, html: bytes | str, url: str | None = None,
                             content_type: str | None = None) -> PageResult:
        """Extract raw markup (bytes in any charset, or str)."""
        extractor = self.extractor if self.in_process else None
        return await self._submit(extract_markup, extractor, html, url, content_type, self.explain, self.formats)

    def close(self) -> None:
        """Shut the pool down; pending pages are cancelled (the crawl is over)."""
        self._closed = True
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)
