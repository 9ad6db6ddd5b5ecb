# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""The caption rule's walk up the containers, compiled (see
:mod:`webclean_scrapy.engine.extractors.webclean.convention`).

Why it exists: each kept block's holder is followed up to a few ancestors,
a few integer reads each; in Python that loop was the largest part of the
convention pass. The decisions are those of
:func:`~webclean_scrapy.engine.extractors.webclean.convention.in_caption`,
the reference (the tests compare both). Each container is read once; its
class and id by the Python ``names_caption`` (memoised by their words).
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


cdef int _kind(list tags, list attributes, Py_ssize_t node, names_caption, content_tags) except -1:
    """What container *node* is, as ``convention._caption_kind`` reads it."""
    tag = tags[node]
    if tag == "figcaption":
        return FIGCAPTION
    if tag == "figure":
        return FIGURE
    names = attributes[node]
    if names and names_caption(f"{names.get('class', '')} {names.get('id', '')}"):
        return NAMED
    return CONTENT if tag in content_tags else PLAIN


def in_captions(const long long[::1] holders, const long long[::1] parents, const long long[::1] chars,
                list tags, list attributes, names_caption, content_tags,
                Py_ssize_t depth, long long caption_max, long long figure_max):
    """Per entry of *holders*: whether a block it holds is a caption. What a
    container is comes from its tag, and from its class and id as
    *names_caption* reads them; each container is read once."""
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
                    kind = kinds[node] = _kind(tags, attributes, node, names_caption, content_tags)
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
