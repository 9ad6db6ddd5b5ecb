"""Where extraction runs, so it never stalls Scrapy's reactor.

Extraction is CPU work (parsing, the document walk, the extractor:
milliseconds to seconds per page); done in a callback it freezes every
download, timer and signal of the crawl for that long. An :class:`Offloader`
runs it elsewhere, with at most ``WEBCLEAN_WORKERS`` pages at a time
(``WEBCLEAN_OFFLOAD``):

``"process"`` (the default)
    A :class:`WorkerPool` of processes. The raw body crosses the process
    boundary and is parsed there, once: the worker also returns what the
    spiders read from the page (:mod:`webclean_scrapy.offload.outline`, with
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

import importlib
from typing import Any

#: Where each public name lives. Imported on first use: ``webclean extract`` and the
#: evaluation use :mod:`webclean_scrapy.offload.worker` alone, without Scrapy.
_EXPORTS = {
    "Offloader": "offloader",
    "await_concurrent": "offloader",
    "WorkerPool": "pool",
    "WorkersUnavailable": "pool",
    "PageResult": "jobs",
    "explicit_encoding": "jobs",
    "extract_markup": "jobs",
    "extract_response": "jobs",
    "response_content_type": "jobs",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
