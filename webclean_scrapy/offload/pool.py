"""A supervised pool of worker processes, one page each, replaced when they crash or stall."""

from __future__ import annotations

import concurrent.futures
import logging
import multiprocessing
import queue
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from typing import TYPE_CHECKING, Any, TypeVar

from webclean_scrapy.errors import PageTimeoutError, WorkerCrashError
from webclean_scrapy.offload.worker import build_extractor, init_worker

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.context import BaseContext
    from multiprocessing.process import BaseProcess


_T = TypeVar("_T")

logger = logging.getLogger(__name__)

#: A page that kills this many worker processes is skipped.
MAX_PAGE_CRASHES = 2
#: Seconds a new worker process may take to import the extractor and say it is ready.
WORKER_START_TIMEOUT = 120.0
#: Seconds past ``WEBCLEAN_PAGE_TIMEOUT`` before a worker that did not give
#: the page up by itself (stuck in C code, where Python signals wait) is killed.
KILL_GRACE = 2.0


_IN_PAGE = False


def _on_alarm(signum: int, frame: Any) -> None:
    if _IN_PAGE:
        raise PageTimeoutError("page extraction exceeded WEBCLEAN_PAGE_TIMEOUT")


def _worker_main(conn: Connection, name: Any, options: dict[str, Any], timeout: float | None) -> None:
    """A worker process: build the extractor (:func:`~webclean_scrapy.offload.worker.init_worker`),
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
