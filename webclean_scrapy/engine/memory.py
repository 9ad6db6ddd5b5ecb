"""Handing the C heap's free memory back to the system after a huge page.

A freed lxml tree stays in glibc's heap, where Python's own objects (allocated in arenas
of their own) cannot reuse it: without a trim, a worker's memory would not fall when a
huge page's tree is dropped.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from functools import lru_cache


@lru_cache(maxsize=1)
def malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or ``None`` on other C libraries."""
    try:
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
        return trim
    except (OSError, AttributeError):
        return None


def trim_heap() -> None:
    """Hand the C heap's free memory back to the system. Every free page goes at once, and
    the next pages fault back in what they use: for huge or pathological trees only
    (:data:`~webclean_scrapy.engine.document.TRIM_HEAP_ABOVE`)."""
    trim = malloc_trim()
    if trim is not None:
        trim(0)
