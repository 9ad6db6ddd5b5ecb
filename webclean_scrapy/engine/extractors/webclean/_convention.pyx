# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""The caption rule's walk up the containers, compiled (see
:mod:`webclean_scrapy.engine.extractors.webclean.convention`).

Why it exists: each kept block's holder is followed up to a few ancestors,
a few integer reads each; in Python that loop was the largest part of the
convention pass. The decisions are those of
:func:`~webclean_scrapy.engine.extractors.webclean.convention.in_caption`,
the reference (the tests compare both). Each container is read once; its
class and id by the Python ``names_caption`` (memoised by their words).
The short-line rules' first look at a block's opening word is here too
(:func:`opening_with`).
"""

from cpython.unicode cimport Py_UNICODE_ISALNUM

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


cdef inline bint word_character(Py_UCS4 c) noexcept:
    """``\\w`` of a ``str`` pattern (the regular-expression engine's own
    test): a letter or a digit of any script, or ``_``."""
    return c == u"_" or Py_UNICODE_ISALNUM(c)


cdef object first_word(str text):
    """``_WORD.search(text.lower())``'s word (``\\w+``), ``None`` without one."""
    cdef str lowered = text.lower()
    cdef Py_ssize_t n = len(lowered), start = 0, end
    while start < n and not word_character(lowered[start]):
        start += 1
    if start == n:
        return None
    end = start + 1
    while end < n and word_character(lowered[end]):
        end += 1
    return lowered[start:end]


def opening_with(list texts, indexes, const long long[::1] chars, long long longest, frozenset words):
    """The positions in *indexes* (block indexes; ``None``: every block) of
    the blocks of at most *longest* characters (*chars*) whose text opens
    with a word of *words* (its first word, lower-cased: ``\\w+``).

    Why: a furniture line and an advert label open with one of a few
    dozen words, and most short blocks do not; the rules' Python tests run
    only on these (``convention._opening_with`` is the reference)."""
    cdef Py_ssize_t k, n, block
    cdef const long long[::1] blocks
    cdef list found = []
    cdef object word
    if indexes is None:
        n = len(texts)
    else:
        blocks = indexes
        n = blocks.shape[0]
    if chars.shape[0] != len(texts):
        raise ValueError("one length per block")
    for k in range(n):
        block = k if indexes is None else blocks[k]
        if not 0 <= block < chars.shape[0]:
            raise IndexError(f"block {block} is past the columns")
        if chars[block] > longest:
            continue
        word = first_word(<str> texts[block])
        if word is not None and word in words:
            found.append(k)
    return found
