# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""py3langid's byte automaton, compiled (see :mod:`webclean_scrapy.language`).

Why it exists: py3langid walks its feature automaton over the text's UTF-8
bytes in a Python loop, two lookups per byte, most of a detection's time.
This is the same walk in C; the counts come out as py3langid's own
``visit_counts`` gives them (a mapping of feature to count, in the order
each feature was first met), so its scoring sees the same input.
:func:`sparse_rows` goes on to what py3langid's ``_sparse_score`` makes of
those counts before its product: the counts as float32 and the features'
half-precision table rows widened to float32, without the dictionary and
numpy's per-element conversions and gathers in between.
"""

from libc.stdlib cimport free, malloc

import numpy as np


cdef Py_ssize_t walk(const unsigned int[::1] nextmove, const long long[::1] rowbase, const int[::1] output,
                     const unsigned char[::1] text, int* found, Py_ssize_t features) except -1:
    """The automaton's outputs over *text*, in order, into *found* (room for
    one per byte); how many. An output at or past *features* (the rows of
    the caller's table; -1: no table) raises ``IndexError``."""
    cdef Py_ssize_t i, hits = 0
    cdef unsigned int state = 0
    cdef int feature
    for i in range(text.shape[0]):
        state = nextmove[rowbase[state] + text[i]]
        feature = output[state]
        if feature >= 0:
            if 0 <= features <= feature:
                raise IndexError(f"feature {feature} is past the table's {features} rows")
            found[hits] = feature
            hits += 1
    return hits


def visit_counts(const unsigned int[::1] nextmove, const long long[::1] rowbase, const int[::1] output,
                 const unsigned char[::1] text):
    """``{feature: count}`` of the automaton's outputs over *text*, in the
    order first met, or ``None`` when there is none (py3langid's
    ``visit_counts``, whose tables these are)."""
    cdef Py_ssize_t i, n = text.shape[0], hits
    cdef int* found = <int*> malloc((n + 1) * sizeof(int))
    cdef dict counts = {}
    if found is NULL:
        raise MemoryError()
    try:
        hits = walk(nextmove, rowbase, output, text, found, -1)
        for i in range(hits):
            key = found[i]
            counts[key] = counts.get(key, 0) + 1
    finally:
        free(found)
    return counts or None


def sparse_rows(const unsigned int[::1] nextmove, const long long[::1] rowbase, const int[::1] output,
                const unsigned char[::1] text, const unsigned short[:, :] table, const float[::1] widen):
    """``(counts, rows)`` of the automaton's outputs over *text*, the
    features in the order first met (as :func:`visit_counts` orders them):
    each feature's count (float32) and its row of *table* (the model's
    float16 table read as its bit patterns) widened through *widen* (every
    bit pattern's float32 value), as py3langid's ``_sparse_score`` gathers
    them; ``None`` when there is no feature. A feature past the table's
    rows raises ``IndexError``, as numpy's gather does."""
    cdef Py_ssize_t i, j, n = text.shape[0], hits = 0, distinct = 0, size = 16
    cdef Py_ssize_t features = table.shape[0], columns = table.shape[1]
    cdef size_t at
    cdef int feature
    cdef int* found = <int*> malloc((n + 1) * sizeof(int))
    cdef int* keys = NULL
    cdef int* slots = NULL
    cdef int* first = NULL
    cdef float[::1] counts
    cdef float[:, ::1] rows
    cdef const unsigned short* source
    cdef float* target
    cdef Py_ssize_t step
    if widen.shape[0] < 65536:
        free(found)
        raise ValueError("widen holds a value for each of the 65,536 bit patterns")
    if found is NULL:
        raise MemoryError()
    try:
        hits = walk(nextmove, rowbase, output, text, found, features)
        if hits == 0:
            return None
        # The distinct features in the order first met: an open-addressing
        # table of at least twice as many slots as hits.
        while size < 2 * hits:
            size *= 2
        keys = <int*> malloc(size * sizeof(int))
        slots = <int*> malloc(size * sizeof(int))
        first = <int*> malloc(hits * sizeof(int))
        if keys is NULL or slots is NULL or first is NULL:
            raise MemoryError()
        for i in range(size):
            keys[i] = -1
        counted = np.zeros(hits, dtype=np.float32)
        counts = counted
        for i in range(hits):
            feature = found[i]
            at = (<size_t> feature * 2654435761u) & (size - 1)
            while keys[at] != -1 and keys[at] != feature:
                at = (at + 1) & (size - 1)
            if keys[at] == -1:
                keys[at] = feature
                slots[at] = distinct
                first[distinct] = feature
                distinct += 1
            counts[slots[at]] += 1
        gathered = np.empty((distinct, columns), dtype=np.float32)
        rows = gathered
        step = table.strides[1] // sizeof(unsigned short)
        for i in range(distinct):
            # The row read through a pointer: a whole table's rows are
            # contiguous (step 1), a subset of its columns strided.
            source = &table[first[i], 0]
            target = &rows[i, 0]
            for j in range(columns):
                target[j] = widen[source[j * step]]
        return counted[:distinct], gathered
    finally:
        free(found)
        free(keys)
        free(slots)
        free(first)
