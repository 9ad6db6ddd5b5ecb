# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""py3langid's byte automaton, compiled (see :mod:`webclean_scrapy.engine.text.language`).

Why it exists: py3langid walks its feature automaton over the text's UTF-8
bytes in a Python loop, two lookups per byte, most of a detection's time.
This is the same walk in C; the counts come out as py3langid's own
``visit_counts`` gives them (a mapping of feature to count, in the order
each feature was first met), so its scoring sees the same input.
:func:`sparse_rows` goes on to what py3langid's ``_sparse_score`` makes of
those counts before its product: the counts as float32 and the features'
half-precision table rows widened to float32, without the dictionary and
numpy's per-element conversions and gathers in between.

Both tables are tens of megabytes, and in a crawl the page's own work
between two detections pushes them out of the cache: each walk step and
each gathered row then waits on memory. The walk therefore runs
``CHAINS`` stretches of the text side by side, and the gather asks for
rows a few ahead (:func:`walk`, ``_prefetch_row``): the outputs and rows
are still those of one walk, bit for bit.
"""

from libc.stdlib cimport free, malloc
from libc.string cimport memmove

import numpy as np

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define WEBCLEAN_PREFETCH(address) __builtin_prefetch(address)
    #else
    #define WEBCLEAN_PREFETCH(address) ((void) 0)
    #endif
    """
    void prefetch "WEBCLEAN_PREFETCH" (const void* address) nogil

#: Stretches walked side by side by :func:`walk`; the bytes each stretch
#: after the first is read from before its start (more than the longest
#: byte sequence a state of py3langid's automaton stands for, 6); texts
#: shorter than CHAINS times SHORTEST_STRETCH are walked in one stretch.
cdef enum:
    CHAINS = 8
    WARM_UP = 16
    SHORTEST_STRETCH = 64
    #: Table rows asked for ahead of their gather in :func:`sparse_rows`.
    PREFETCHED_ROWS = 4


cdef Py_ssize_t walk(const unsigned int[::1] nextmove, const long long[::1] rowbase, const int[::1] output,
                     const unsigned char[::1] text, int* found, Py_ssize_t features) except -1:
    """The automaton's outputs over *text*, in order, into *found* (room for
    one per byte); how many. An output at or past *features* (the rows of
    the caller's table; -1: no table) raises ``IndexError``.

    Why several walks at once: each step's table read depends on the one
    before, and the tables (tens of megabytes) are mostly out of the
    cache, so a single walk waits on memory at every byte. The text is cut
    into ``CHAINS`` stretches walked side by side (that many reads in
    flight instead of one: the cold walk of 1,000 characters in half the
    time or less). Each stretch after the first starts from the state
    its first ``WARM_UP`` bytes lead to from the start state: in
    py3langid's automaton (Aho-Corasick: a state stands for the text's
    last few bytes) that is the state a walk from the beginning reaches
    there. Nothing relies on it: where the stretch before ends in another
    state, the stretch is walked again from that one, so the outputs are
    always those of a single walk."""
    cdef Py_ssize_t n = text.shape[0]
    if n < CHAINS * SHORTEST_STRETCH:
        return _walk_from(nextmove, rowbase, output, text, 0, n, 0, found, features, NULL)
    cdef Py_ssize_t starts[CHAINS + 1]
    cdef Py_ssize_t hits[CHAINS]
    cdef unsigned int states[CHAINS]
    cdef unsigned int entry[CHAINS]
    cdef Py_ssize_t k, i, stretch = n // CHAINS, total
    cdef unsigned int state
    cdef int feature
    for k in range(CHAINS):
        starts[k] = k * stretch
        hits[k] = 0
    starts[CHAINS] = n
    # The warm-ups read within the same loop: step i reads byte
    # starts[k] - WARM_UP + i of each stretch, and outputs count from
    # step WARM_UP on (the first stretch, which needs no warm-up, waits).
    for k in range(CHAINS):
        states[k] = 0
    for i in range(stretch + WARM_UP):
        for k in range(CHAINS):
            if k == 0 and i < WARM_UP:
                continue
            state = states[k] = nextmove[rowbase[states[k]] + text[starts[k] - WARM_UP + i]]
            if i < WARM_UP:
                if i == WARM_UP - 1:
                    entry[k] = state
                continue
            feature = output[state]
            if feature >= 0:
                found[starts[k] + hits[k]] = _checked(feature, features)
                hits[k] += 1
    k = CHAINS - 1
    hits[k] += _walk_from(nextmove, rowbase, output, text, starts[k] + stretch, n, states[k],
                          found + starts[k] + hits[k], features, &states[k])
    # Each stretch must have begun where the one before ended; walk it
    # again where it did not (never, in py3langid's automaton).
    for k in range(1, CHAINS):
        if entry[k] != states[k - 1]:
            hits[k] = _walk_from(nextmove, rowbase, output, text, starts[k], starts[k + 1], states[k - 1],
                                 found + starts[k], features, &states[k])
    total = hits[0]
    for k in range(1, CHAINS):
        memmove(found + total, found + starts[k], hits[k] * sizeof(int))
        total += hits[k]
    return total


cdef inline int _checked(int feature, Py_ssize_t features) except -1:
    """*feature* (an automaton output), or ``IndexError`` when it is at or
    past *features*, the rows of the caller's table (-1: no table)."""
    if 0 <= features <= feature:
        raise IndexError(f"feature {feature} is past the table's {features} rows")
    return feature


cdef Py_ssize_t _walk_from(const unsigned int[::1] nextmove, const long long[::1] rowbase, const int[::1] output,
                           const unsigned char[::1] text, Py_ssize_t start, Py_ssize_t stop, unsigned int state,
                           int* found, Py_ssize_t features, unsigned int* last) except -1:
    """One walk over ``text[start:stop]`` from *state*: its outputs into
    *found* (none kept when ``NULL``), how many; the state it ends in into
    *last* (unless ``NULL``)."""
    cdef Py_ssize_t i, hits = 0
    cdef int feature
    for i in range(start, stop):
        state = nextmove[rowbase[state] + text[i]]
        feature = output[state]
        if feature >= 0 and found is not NULL:
            found[hits] = _checked(feature, features)
            hits += 1
    if last is not NULL:
        last[0] = state
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
    cdef const float* wide
    cdef Py_ssize_t step, row_bytes
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
        wide = &widen[0]
        step = table.strides[1] // sizeof(unsigned short)
        row_bytes = columns * step * sizeof(unsigned short)
        for i in range(min(distinct, PREFETCHED_ROWS)):
            _prefetch_row(&table[first[i], 0], row_bytes)
        for i in range(distinct):
            # The rows a few ahead asked for now: each is a few cache lines
            # somewhere in the table's megabytes, read while this one is widened.
            if i + PREFETCHED_ROWS < distinct:
                _prefetch_row(&table[first[i + PREFETCHED_ROWS], 0], row_bytes)
            # The row read through a pointer: a whole table's rows are
            # contiguous (step 1), a subset of its columns strided.
            source = &table[first[i], 0]
            target = &rows[i, 0]
            if step == 1:  # a local pointer and no stride: nothing reloaded per value
                for j in range(columns):
                    target[j] = wide[source[j]]
            else:
                for j in range(columns):
                    target[j] = wide[source[j * step]]
        return counted[:distinct], gathered
    finally:
        free(found)
        free(keys)
        free(slots)
        free(first)


cdef inline void _prefetch_row(const unsigned short* row, Py_ssize_t size) noexcept nogil:
    """Ask for the cache lines of a table row of *size* bytes (a hint only)."""
    cdef Py_ssize_t at
    for at in range(0, size, 64):
        prefetch(<const char*> row + at)
