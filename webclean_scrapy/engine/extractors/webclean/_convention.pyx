# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""The caption rule's walk up the containers, compiled (see
:mod:`webclean_scrapy.engine.extractors.webclean.convention`).

Why it exists: each kept block's holder is followed up to a few ancestors,
a few integer reads each; in Python that loop was the largest part of the
convention pass. The decisions are those of
:func:`~webclean_scrapy.engine.extractors.webclean.convention.in_caption`,
the reference (the tests compare both); what each container is (its tag,
its class and id) is still asked of the Python ``kind_of``, once per
container.
"""

import numpy as np

#: The container kinds of ``convention._caption_kind`` (the tests check they agree).
cdef enum:
    PLAIN = 0
    CONTENT = 1
    FIGCAPTION = 2
    FIGURE = 3
    NAMED = 4

KINDS = (PLAIN, CONTENT, FIGCAPTION, FIGURE, NAMED)


def in_captions(const long long[::1] holders, const long long[::1] parents, const long long[::1] chars,
                kind_of, Py_ssize_t depth, long long caption_max, long long figure_max):
    """Per entry of *holders*: whether a block it holds is a caption."""
    cdef Py_ssize_t n = holders.shape[0], count = parents.shape[0], i, step
    cdef long long node, holder
    cdef int kind, content, answer
    out = np.zeros(n, dtype=np.uint8)
    kinds_array = np.full(count, -1, dtype=np.int8)
    answers_array = np.full(count, -1, dtype=np.int8)
    cdef unsigned char[::1] found = out
    cdef signed char[::1] kinds = kinds_array
    cdef signed char[::1] answers = answers_array
    for i in range(n):
        holder = holders[i]
        if holder < 0:
            continue
        answer = answers[holder]
        if answer < 0:
            answer = 0
            node = holder
            content = 0
            for step in range(depth):
                if node < 0:
                    break
                kind = kinds[node]
                if kind < 0:
                    kind = kinds[node] = kind_of(node)
                if kind == FIGCAPTION or kind == NAMED:
                    answer = chars[node] <= caption_max
                    break
                if kind == FIGURE:
                    answer = not content and chars[node] <= figure_max
                    break
                if kind == CONTENT:
                    content = 1
                node = parents[node]
            answers[holder] = answer
        found[i] = answer
    return out.view(bool)
