# cython: language_level=3
"""The word scan shared by the compiled modules (an inline function,
compiled into each module that cimports it): a word is a run of two or
more ASCII lower-case letters, what the references' ``[a-z]{2,}`` finds
(``page_type._words`` and ``lexicon._WORD``)."""


cdef extern from "Python.h":
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t index)


cdef inline Py_ssize_t next_word(int kind, void* data, Py_ssize_t n, Py_ssize_t at, Py_ssize_t* end) noexcept:
    """The start of the first word at or after *at* among the *n*
    characters of a string's *data* (of PEP 393 *kind*), its end in
    *end*; -1 when there is none. Maximal runs, as ``findall`` gives
    them: a run is a word whole or not at all."""
    cdef Py_ssize_t i = at, start
    cdef Py_UCS4 c
    while i < n:
        c = PyUnicode_READ(kind, data, i)
        i += 1
        if not 97 <= c <= 122:
            continue
        start = i - 1
        while i < n:
            c = PyUnicode_READ(kind, data, i)
            if not 97 <= c <= 122:
                break
            i += 1
        if i - start >= 2:
            end[0] = i
            return start
    return -1
