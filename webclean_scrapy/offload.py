"""Where extraction runs, so it never stalls Scrapy's reactor.

Extraction is CPU work (parsing, the document walk, the extractor:
milliseconds to seconds per page); done in a callback it freezes every
download, timer and signal of the crawl for that long. An :class:`Offloader`
runs it elsewhere, with at most ``WEBCLEAN_WORKERS`` pages at a time
(``WEBCLEAN_OFFLOAD``):

``"process"`` (the default)
    A :class:`WorkerPool` of processes. The raw body crosses the process
    boundary and is parsed there, once: the worker also returns what the
    spiders read from the page (:mod:`webclean_scrapy.outline`, with
    ``WEBCLEAN_OUTLINE``). Real
    parallelism, and the reactor keeps the GIL: the lowest stalls and the
    best throughput measured (``docs/BENCHMARKS.md``). Each worker holds one
    page at a time, so a worker that dies (a native crash, the out-of-memory
    killer) concerns that page only: the worker is replaced, the page retried
    once in a fresh one and skipped if it kills that one too
    (:class:`~webclean_scrapy.errors.WorkerCrashError`). A page still running
    after ``WEBCLEAN_PAGE_TIMEOUT`` seconds is abandoned
    (:class:`~webclean_scrapy.errors.PageTimeoutError`), its worker replaced
    if it does not come back by itself. Only workers that cannot start at
    all make the crawl fall back to threads.
``"thread"``
    A :class:`~concurrent.futures.ThreadPoolExecutor`. The worker builds the
    :class:`~webclean_scrapy.Document` from ``response.selector.root``, so the
    tree is parsed once (in the worker). Python threads cannot be stopped:
    ``WEBCLEAN_PAGE_TIMEOUT`` does not apply, and a native crash ends the crawl.
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
import queue
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from typing import TYPE_CHECKING, Any, TypeVar

try:
    from scrapy.utils.asyncio import is_asyncio_available
except ImportError:  # Scrapy 2.13
    from scrapy.utils.reactor import is_asyncio_reactor_installed, is_reactor_installed

    def is_asyncio_available() -> bool:
        """Scrapy 2.13 has no reactorless mode: asyncio means the asyncio reactor, or no reactor at all."""
        return not is_reactor_installed() or is_asyncio_reactor_installed()


from .document import Document, built_page
from .encoding import decoded_alike, double_encoded
from .errors import PageTimeoutError, WorkerCrashError
from .extractors import get_extractor
from .outline import PageOutline, page_outline
from .render import add_formats, extract_formats
from .screen import screen_markup
from .worker import build_extractor, init_worker, worker_state

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.context import BaseContext
    from multiprocessing.process import BaseProcess

    from scrapy.crawler import Crawler
    from scrapy.http import TextResponse

    from .explain.crawl import ExplainPolicy
    from .extraction import Extraction, Extractor
    from .settings import WebcleanSettings

_T = TypeVar("_T")

logger = logging.getLogger(__name__)

#: A page that kills this many worker processes is skipped.
MAX_PAGE_CRASHES = 2
#: Seconds a new worker process may take to import the extractor and say it is ready.
WORKER_START_TIMEOUT = 120.0
#: Seconds past ``WEBCLEAN_PAGE_TIMEOUT`` before a worker that did not give
#: the page up by itself (stuck in C code, where Python signals wait) is killed.
KILL_GRACE = 2.0


@dataclass(frozen=True, slots=True)
class PageResult:
    """What a worker sends back: the extraction, the canonical URL, the time spent,
    the page's outline (when asked for), the screen's reasons (if any), and the
    path of the page's ``WEBCLEAN_EXPLAIN_DIR`` report if one was written
    (``report_failed`` if writing it failed)."""

    extraction: Extraction
    canonical_url: str | None
    seconds: float
    outline: PageOutline | None = None
    screened: tuple[str, ...] = ()
    report: str | None = None
    report_failed: bool = False


def _run(
    extractor: Extractor,
    doc_factory: Callable[[], Document],
    outline: bool = False,
    explain: ExplainPolicy | None = None,
    formats: tuple[str, ...] = (),
) -> PageResult:
    start = time.perf_counter()
    report, failed = None, False
    with built_page(doc_factory) as doc:
        if explain is None:
            extraction = extract_formats(extractor, doc, formats)
        else:
            extraction, trace = explain.extract(extractor, doc)
            add_formats(extraction, doc, formats, trace)
        canonical = doc.canonical_url
        page = page_outline(doc, extraction) if outline else None
        screened = doc.screened
        seconds = time.perf_counter() - start
        if explain is not None:
            try:
                report = explain.report(extractor, doc, extraction, trace)
            except Exception as exc:  # a report must never cost the page
                logger.warning(
                    "webclean: could not write the explain report of %s: %s",
                    doc.url,
                    exc,
                    exc_info=not isinstance(exc, OSError),
                )
                failed = True
    return PageResult(extraction, canonical, seconds, page, screened, report, failed)


def explicit_encoding(response: TextResponse) -> str | None:
    """The charset *response* was made with (its ``encoding`` argument: set by
    :class:`~webclean_scrapy.charset.CharsetMiddleware`, or by a middleware
    of the project's with ``response.replace(encoding=...)``), if any.
    Scrapy keeps it in ``_encoding`` and has no public accessor:
    ``response.encoding`` would run the detection when there is none."""
    return getattr(response, "_encoding", None)


def response_content_type(response: TextResponse) -> str | None:
    """The Content-Type the extraction decodes *response*'s bytes under: the
    HTTP header's, its charset replaced by the one the response was made with
    (:func:`explicit_encoding`), which Scrapy reads before any rule too. The
    :mod:`~webclean_scrapy.encoding` rules still apply to it (UTF-8 bytes
    stay UTF-8), and a page whose charset the middleware detected is not
    detected a second time."""
    content_type = response.headers.get(b"Content-Type")
    header = content_type.decode("latin-1") if content_type else None
    explicit = explicit_encoding(response)
    if not explicit:
        return header
    media_type = header.split(";", 1)[0].strip() if header else ""
    return f"{media_type or 'text/html'}; charset={explicit}"


def extract_response(
    extractor: Extractor,
    response: TextResponse,
    outline: bool = False,
    explain: ExplainPolicy | None = None,
    formats: tuple[str, ...] = (),
) -> PageResult:
    """Extract from a response, reusing Scrapy's parsed tree (parsed here if not yet).

    The bytes are decoded and parsed afresh instead when Scrapy chose another
    charset than :func:`~webclean_scrapy.encoding.decode_html` would
    (``<meta charset="utf-16">``, a BOM-less UTF-16 body, undeclared legacy
    bytes; :class:`~webclean_scrapy.charset.CharsetMiddleware`, when enabled,
    has already given such a response the same charset), so thread and
    process offload give the same text for the same bytes; when the body
    holds UTF-8 decoded twice, which
    :meth:`Document.from_html <webclean_scrapy.document.Document.from_html>`
    reads back (:func:`~webclean_scrapy.encoding.undo_double_encoding`); and
    when the screen would change the page
    (:mod:`webclean_scrapy.screen`): its raw markup must never reach libxml2.
    """
    header = response_content_type(response)
    if (
        screen_markup(response.body)[1]
        or not decoded_alike(response.body, header, response.encoding, response.url)
        or double_encoded(response.body)
    ):
        return extract_markup(extractor, response.body, response.url, header, outline, explain, formats)
    return _run(
        extractor,
        lambda: Document(response.selector.root, url=response.url, source=response.text),
        outline,
        explain,
        formats,
    )


def extract_markup(
    extractor: Extractor | None,
    html: bytes | str,
    url: str | None,
    content_type: str | None,
    outline: bool = False,
    explain: ExplainPolicy | None = None,
    formats: tuple[str, ...] = (),
) -> PageResult:
    """Extract from raw bytes (decoded with *content_type*'s charset) or a str;
    *formats* (``WEBCLEAN_FORMATS``) are rendered here too, in the worker.

    *extractor* ``None`` means this worker process's extractor
    (:func:`~webclean_scrapy.worker.worker_state`). Raises
    :class:`~webclean_scrapy.errors.NotHTMLError` for binary bytes.
    """
    method = extractor if extractor is not None else worker_state()
    return _run(method, lambda: Document.from_html(html, url=url, encoding=content_type), outline, explain, formats)


_IN_PAGE = False


def _on_alarm(signum: int, frame: Any) -> None:
    if _IN_PAGE:
        raise PageTimeoutError("page extraction exceeded WEBCLEAN_PAGE_TIMEOUT")


def _worker_main(conn: Connection, name: Any, options: dict[str, Any], timeout: float | None) -> None:
    """A worker process: build the extractor (:func:`~webclean_scrapy.worker.init_worker`),
    then run one page at a time.

    The time limit is first enforced here, by ``SIGALRM``: Python code (the
    walk, the extractor) is interrupted and the worker lives on. Time spent
    inside C code (libxml2) cannot be interrupted that way; the parent kills
    the worker :data:`KILL_GRACE` seconds later.
    """
    global _IN_PAGE
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the crawl's to handle
    try:
        init_worker(build_extractor, name, options)
    except BaseException as exc:
        conn.send(("failed", _portable(exc)))
        return
    if timeout:
        signal.signal(signal.SIGALRM, _on_alarm)
    conn.send(("ready", None))
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        func, args = job
        try:
            try:
                _IN_PAGE = True
                if timeout:
                    signal.setitimer(signal.ITIMER_REAL, timeout)
                reply = ("ok", func(*args))
            finally:
                _IN_PAGE = False
                if timeout:
                    signal.setitimer(signal.ITIMER_REAL, 0)
        except Exception as exc:
            reply = ("error", _portable(exc))
        try:
            conn.send(reply)
        except Exception as exc:  # an unpicklable result
            conn.send(("error", _portable(exc)))


def _portable(exc: BaseException) -> BaseException:
    """*exc*, or a RuntimeError naming it when it cannot cross the process boundary."""
    import pickle

    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:
        return RuntimeError(f"{type(exc).__name__}: {exc}")


class WorkersUnavailable(RuntimeError):
    """No worker process of this pool ever started (the offloader falls back to threads)."""


@dataclass(eq=False)
class _Job:
    future: concurrent.futures.Future[Any]
    func: Callable[..., Any]
    args: tuple[Any, ...]
    label: str
    crashes: int = 0
    last_exit: str = field(default="")


def _exit_reason(process: BaseProcess) -> str:
    code = process.exitcode
    if code is not None and code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit code {code}"


class _Slot:
    """One worker process and the thread in this process that feeds it.

    The thread sends a page, then waits for the answer, the process's
    death or the deadline, whichever comes first, so it always knows which
    page a dead or stuck worker was on. It never runs on the reactor thread.
    """

    def __init__(self, pool: WorkerPool, index: int) -> None:
        self.pool = pool
        self.process: BaseProcess | None = None
        self.conn: Connection | None = None
        self.thread = threading.Thread(target=self._loop, name=f"webclean-worker-{index}", daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        pool = self.pool
        try:
            self._ensure_process()  # start at once: the first page does not wait for imports
        except Exception as exc:
            pool._start_failed(exc)
        while True:
            job = pool._jobs.get()
            if job is None:
                break
            if not job.future.set_running_or_notify_cancel():
                continue  # cancelled at shutdown
            try:
                self._run(job)
            except BaseException as exc:  # never leave a future pending
                if not job.future.done():
                    job.future.set_exception(exc)
        self._stop_process()

    def _ensure_process(self) -> None:
        if self.process is not None and self.process.is_alive():
            return
        self._stop_process()
        pool = self.pool
        parent, child = pool.context.Pipe()
        process = pool.context.Process(  # type: ignore[attr-defined]
            target=_worker_main,
            args=(child, pool.name, pool.options, pool.timeout),
            name="webclean-worker",
            daemon=True,
        )
        process.start()
        child.close()
        self.process, self.conn = process, parent
        ready = wait([parent, process.sentinel], timeout=WORKER_START_TIMEOUT)
        message: Any = None
        if parent in ready:
            try:
                message = parent.recv()
            except (EOFError, OSError):
                message = None
        if message is not None and message[0] == "ready":
            pool._started()
            return
        self._stop_process()
        if message is not None:
            raise WorkersUnavailable(f"a worker process could not build its extractor: {message[1]!r}")
        raise WorkersUnavailable(f"a worker process exited before it was ready ({_exit_reason(process)})")

    def _stop_process(self, kill: bool = False) -> None:
        process, conn = self.process, self.conn
        self.process = self.conn = None
        if conn is not None:
            try:
                if not kill and process is not None and process.is_alive():
                    conn.send(None)
            except OSError:
                pass
            conn.close()
        if process is not None:
            if kill:
                process.kill()
            process.join(5)
            if process.is_alive():
                process.kill()
                process.join()

    def _run(self, job: _Job) -> None:
        pool = self.pool
        if pool._unavailable is not None and not pool._ever_started:
            job.future.set_exception(WorkersUnavailable(str(pool._unavailable)))
            return
        while True:
            try:
                self._ensure_process()
            except Exception as exc:
                pool._start_failed(exc, job)
                return
            assert self.conn is not None and self.process is not None
            conn, process = self.conn, self.process
            started = time.monotonic()
            try:
                conn.send((job.func, job.args))
                limit = None if pool.timeout is None else pool.timeout + KILL_GRACE
                ready = wait([conn, process.sentinel], timeout=limit)
                reply = conn.recv() if conn in ready else None
            except (EOFError, OSError):
                reply, ready = None, [process.sentinel]
            if reply is not None:
                status, value = reply
                if status == "ok":
                    job.future.set_result(value)
                else:
                    if isinstance(value, PageTimeoutError):
                        pool._timed_out(job, time.monotonic() - started, killed=False)
                    job.future.set_exception(value)
                return
            if not ready:  # the deadline passed: stuck in C code
                self._stop_process(kill=True)
                pool._timed_out(job, time.monotonic() - started, killed=True)
                job.future.set_exception(
                    PageTimeoutError(
                        f"page extraction exceeded WEBCLEAN_PAGE_TIMEOUT ({pool.timeout:g} s); worker replaced"
                    )
                )
                return
            process.join(5)
            job.crashes += 1
            job.last_exit = _exit_reason(process)
            self._stop_process(kill=True)
            if job.crashes >= MAX_PAGE_CRASHES:
                logger.warning(
                    "webclean: %s killed %d worker processes (last: %s); page skipped",
                    job.label,
                    job.crashes,
                    job.last_exit,
                )
                job.future.set_exception(
                    WorkerCrashError(f"the page killed {job.crashes} worker processes (last: {job.last_exit})")
                )
                return
            logger.warning(
                "webclean: a worker process died (%s) on %s; retrying the page in a new worker",
                job.last_exit,
                job.label,
            )


class WorkerPool:
    """``workers`` processes, each extracting one page at a time.

    Unlike :class:`~concurrent.futures.ProcessPoolExecutor`, which queues
    pages inside the worker processes and fails every one of them when any
    worker dies, a page here is handed to a worker only when that worker is
    free: a crash or a timeout concerns exactly one page, and the pool
    replaces the worker. :meth:`submit` returns a
    :class:`concurrent.futures.Future`.
    """

    def __init__(
        self,
        workers: int,
        name: Any,
        options: dict[str, Any],
        timeout: float | None,
        context: BaseContext | None = None,
    ) -> None:
        if context is None:
            methods = multiprocessing.get_all_start_methods()
            context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
        self.context = context
        self.name = name
        self.options = options
        self.timeout = timeout
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._ever_started = False
        self._unavailable: BaseException | None = None
        self._slots = [_Slot(self, i) for i in range(workers)]

    def submit(self, func: Callable[..., _T], *args: Any, label: str = "a page") -> concurrent.futures.Future[_T]:
        future: concurrent.futures.Future[_T] = concurrent.futures.Future()
        if self._unavailable is not None and not self._ever_started:
            future.set_exception(WorkersUnavailable(str(self._unavailable)))
            return future
        self._jobs.put(_Job(future, func, args, label))
        return future

    def worker_pids(self) -> list[int]:
        """Process ids of the worker processes running now.

        For monitoring from outside the pool (``benchmarks/crawl.py`` reads
        their CPU time from ``/proc``): the workers are children of the
        forkserver, not of this process, so ``getrusage`` does not see them.
        A worker replaced after a crash or a timeout has a new pid; the old
        one's CPU time is not counted any more.
        """
        return [
            process.pid
            for process in (slot.process for slot in self._slots)
            if process is not None and process.pid is not None
        ]

    def _started(self) -> None:
        with self._lock:
            self._ever_started = True
            self._unavailable = None

    def _start_failed(self, exc: BaseException, job: _Job | None = None) -> None:
        """A worker could not start. Before any ever did, the pool is unusable
        (:class:`WorkersUnavailable`: the caller uses threads); afterwards only
        the page at hand fails (a transient shortage: out of memory, of PIDs)."""
        with self._lock:
            never = not self._ever_started
            if never and self._unavailable is None:
                self._unavailable = exc
        if job is None:
            return
        if never:
            job.future.set_exception(WorkersUnavailable(str(exc)))
        else:
            logger.warning("webclean: could not start a worker process for %s: %s", job.label, exc)
            job.future.set_exception(exc)

    def _timed_out(self, job: _Job, seconds: float, *, killed: bool) -> None:
        logger.warning(
            "webclean: %s took over WEBCLEAN_PAGE_TIMEOUT (%g s), abandoned after %.1f s%s",
            job.label,
            self.timeout,
            seconds,
            "; its worker was replaced" if killed else "",
        )

    def shutdown(self) -> None:
        """Stop the workers: pages not started yet are cancelled, pages being
        extracted finish (within the time limit)."""
        while True:
            try:
                job = self._jobs.get_nowait()
            except queue.Empty:
                break
            if job is not None:
                job.future.cancel()
        for _ in self._slots:
            self._jobs.put(None)
        for slot in self._slots:
            slot.thread.join()


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
        if settings.explain_dir:
            from .explain.crawl import ExplainPolicy

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
        """The crawl's one start-up line: which extractor runs, where, with how many workers."""
        name = getattr(self.extractor, "name", None) or type(self.extractor).__name__
        asked = "" if self._name == name else f" (WEBCLEAN_EXTRACTOR={self._name!r})"
        options = f", options {self._options}" if self._options else ""
        where = (
            "inline on the reactor thread"
            if self.mode == "none"
            else f"{self.workers} {self.mode} worker{'s' if self.workers != 1 else ''}"
        )
        logger.info(
            "webclean: extractor %s%s%s, WEBCLEAN_OFFLOAD=%s, %s",
            name,
            asked,
            options,
            self.mode,
            where,
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
        """Extract an HTML response, with its :class:`~webclean_scrapy.outline.PageOutline`
        when ``WEBCLEAN_OUTLINE`` is on (its raw bytes go to worker processes)."""
        if self.in_process:
            return await self._submit(
                extract_response, self.extractor, response, self.outline, self.explain, self.formats
            )
        # Scrapy's charset order (explicit, header, BOM, <meta>) with encoding.py's corrections, in the worker.
        return await self._submit(
            extract_markup,
            None,
            response.body,
            response.url,
            response_content_type(response),
            self.outline,
            self.explain,
            self.formats,
            label=response.url,
        )

    async def extract_markup(
        self, html: bytes | str, url: str | None = None, content_type: str | None = None
    ) -> PageResult:
        """Extract raw markup (bytes in any charset, or str)."""
        extractor = self.extractor if self.in_process else None
        return await self._submit(
            extract_markup,
            extractor,
            html,
            url,
            content_type,
            self.outline,
            self.explain,
            self.formats,
            label=url or "a page",
        )

    def close(self) -> None:
        """Shut the pools down once their pending pages are done (the crawl is over)."""
        self._closed = True
        threads, self._threads = self._threads, None
        if threads is not None:
            threads.shutdown(wait=True, cancel_futures=True)
        processes, self._processes = self._processes, None
        if processes is not None:
            processes.shutdown()
