# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""The keep/drop decoding of a page's blocks, compiled (see
:mod:`webclean_scrapy.engine.extractors.webclean.continuity`).

Why it exists: the decoding is a loop over every block of every page, a
few float operations each; in Python that is a few percent of a page's
extraction, in C nothing. Same decisions as
:func:`~webclean_scrapy.engine.extractors.webclean.continuity.python_runs`, the
reference (the tests compare both), ties broken the same way.
"""

import numpy as np


def best_runs(const double[::1] votes, double switch_cost):
    """1 where the highest-scoring sequence of decisions keeps the block."""
    cdef Py_ssize_t n = votes.shape[0], j
    states = np.zeros(n, dtype=np.uint8)
    if n == 0:
        return states
    came = np.zeros((n, 2), dtype=np.uint8)
    cdef unsigned char[::1] s = states
    cdef unsigned char[:, ::1] c = came
    cdef double drop = 0.0, keep = votes[0], stay, switch, new_drop, new_keep
    with nogil:
        for j in range(1, n):
            stay = drop
            switch = keep - switch_cost
            if stay >= switch:
                new_drop = stay
            else:
                new_drop = switch
                c[j, 0] = 1
            switch = drop - switch_cost
            stay = keep
            if switch > stay:
                new_keep = switch + votes[j]
            else:
                new_keep = stay + votes[j]
                c[j, 1] = 1
            drop = new_drop
            keep = new_keep
        s[n - 1] = keep > drop
        for j in range(n - 1, 0, -1):
            s[j - 1] = c[j, 1] if s[j] else c[j, 0]
    return states
