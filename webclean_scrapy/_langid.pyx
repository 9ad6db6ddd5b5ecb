# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""py3langid's byte automaton, compiled (see :mod:`webclean_scrapy.language`).

Why it exists: py3langid walks its feature automaton over the text's UTF-8
bytes in a Python loop, two lookups per byte, most of a detection's time.
This is the same walk in C; the counts come out as py3langid's own
``visit_counts`` gives them (a mapping of feature to count, in the order
each feature was first met), so its scoring sees the same input.
"""

from libc.stdlib cimport free, malloc


def visit_counts(const unsigned int[::1] nextmove, const long long[::1] rowbase, const int[::1] output,
                 const unsigned char[::1] text):
    """``{feature: count}`` of the automaton's outputs over *text*, in the
    order first met, or ``None`` when there is none (py3langid's
    ``visit_counts``, whose tables these are)."""
    cdef Py_ssize_t i, n = text.shape[0], hits = 0
    cdef unsigned int state = 0
    cdef int feature
    cdef int* found = <int*> malloc((n + 1) * sizeof(int))
    cdef dict counts = {}
    if found is NULL:
        raise MemoryError()
    try:
        for i in range(n):
            state = nextmove[rowbase[state] + text[i]]
            feature = output[state]
            if feature >= 0:
                found[hits] = feature
                hits += 1
        for i in range(hits):
            key = found[i]
            counts[key] = counts.get(key, 0) + 1
    finally:
        free(found)
    return counts or None
