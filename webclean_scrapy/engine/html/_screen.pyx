# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""The attribute screen's scan, compiled (see :mod:`webclean_scrapy.engine.html.screen`).

Why it exists: the screen reads every page before it is parsed, and the
regular-expression engine, linear as the pattern is, spends a third of a
bare parse on it. This is the same tokenizer, byte for byte, in C:
:data:`webclean_scrapy.engine.html.screen._SCAN` stays the reference (and the fallback),
and the tests compare both on generated markup.

Whitespace is the bytes pattern's ``\\s`` (``[ \\t\\n\\r\\f\\v]``) and the
case-blind names (``script``, ``style``) are ASCII, as in a bytes pattern.
"""

from libc.string cimport memchr


cdef inline Py_ssize_t find(const unsigned char* s, Py_ssize_t i, Py_ssize_t n, unsigned char c) noexcept nogil:
    """The first *c* in ``s[i:n]`` (libc's ``memchr``: memory speed), or *n*."""
    cdef const void* at
    if i >= n:
        return n
    at = memchr(s + i, c, n - i)
    return n if at is NULL else <const unsigned char*> at - s


cdef inline bint is_space(unsigned char c) noexcept nogil:
    return c == 32 or 9 <= c <= 13


cdef inline bint is_alpha(unsigned char c) noexcept nogil:
    return (65 <= c <= 90) or (97 <= c <= 122)


cdef inline unsigned char lower(unsigned char c) noexcept nogil:
    return c + 32 if 65 <= c <= 90 else c


cdef bint starts_blind(const unsigned char* s, Py_ssize_t i, Py_ssize_t n, const char* word) noexcept nogil:
    """Whether ``s[i:]`` starts with the lower-case ASCII *word*, case-blind."""
    cdef Py_ssize_t k = 0
    while word[k] != 0:
        if i + k >= n or lower(s[i + k]) != <unsigned char> word[k]:
            return False
        k += 1
    return True


cdef Py_ssize_t attribute(const unsigned char* s, Py_ssize_t i, Py_ssize_t n) noexcept nogil:
    """The end of one attribute (``screen._ATTRIBUTE``) matched at *i*, or -1."""
    cdef Py_ssize_t j = i, k
    cdef unsigned char c, quote
    while j < n and (is_space(s[j]) or s[j] == b'/'):
        j += 1
    if j >= n or s[j] == b'>':
        return -1
    j += 1  # the name's first byte: anything but blanks, "/" and ">" ("=" too)
    while j < n:
        c = s[j]
        if is_space(c) or c == b'/' or c == b'>' or c == b'=':
            break
        j += 1
    k = j
    while k < n and is_space(s[k]):
        k += 1
    if k >= n or s[k] != b'=':
        return j  # no value
    k += 1
    while k < n and is_space(s[k]):
        k += 1
    if k < n and (s[k] == b'"' or s[k] == b"'"):
        quote = s[k]
        j = find(s, k + 1, n, quote)  # values are most of a tag's bytes: memchr, not a byte loop
        if j < n:
            return j + 1
        # no closing quote: the value reads as an unquoted one
    while k < n and not is_space(s[k]) and s[k] != b'>':
        k += 1
    return k


cdef Py_ssize_t attributes(const unsigned char* s, Py_ssize_t i, Py_ssize_t n, Py_ssize_t limit,
                           Py_ssize_t* count) noexcept nogil:
    """Up to *limit* attributes from *i* (``_ATTRIBUTE{0,limit}+``): their end; how many in *count*."""
    cdef Py_ssize_t end
    count[0] = 0
    while count[0] < limit:
        end = attribute(s, i, n)
        if end < 0:
            break
        i = end
        count[0] += 1
    return i


cdef Py_ssize_t tag_rest(const unsigned char* s, Py_ssize_t i, Py_ssize_t n, Py_ssize_t limit) noexcept nogil:
    """A start tag's attributes and end after its name (``_ALLOWED`` then
    ``_TAG_END``): its end, or -1 when it has more than *limit* attributes."""
    cdef Py_ssize_t count
    i = attributes(s, i, n, limit, &count)
    if count == limit and attribute(s, i, n) >= 0:
        return -1
    while i < n and (is_space(s[i]) or s[i] == b'/'):
        i += 1
    if i < n and s[i] == b'>':
        i += 1
    return i


cdef Py_ssize_t raw_text(const unsigned char* s, Py_ssize_t i, Py_ssize_t n, Py_ssize_t limit,
                         const char* name, Py_ssize_t length) noexcept nogil:
    """A raw-text element (``script``, ``style``) at *i*, up to its end tag:
    its end, or -1 when it is not one or has too many attributes."""
    cdef Py_ssize_t j
    if not starts_blind(s, i + 1, n, name):
        return -1
    j = i + 1 + length
    if j < n and not (is_space(s[j]) or s[j] == b'/' or s[j] == b'>'):
        return -1
    j = tag_rest(s, j, n, limit)
    if j < 0:
        return -1
    while True:
        j = find(s, j, n, b'<')
        if j >= n or (j + 1 < n and s[j + 1] == b'/' and starts_blind(s, j + 2, n, name)):
            return j
        j += 1


cdef Py_ssize_t stop(const unsigned char* s, Py_ssize_t i, Py_ssize_t n, Py_ssize_t limit) noexcept nogil:
    """Where ``_SCAN``'s repeated part stops from *i*: the start of the
    first tag with more than *limit* attributes, or *n*."""
    cdef Py_ssize_t j
    cdef unsigned char c
    while i < n:
        if s[i] != b'<':
            i = find(s, i, n, b'<')
            continue
        if i + 3 < n and s[i + 1] == b'!' and s[i + 2] == b'-' and s[i + 3] == b'-':  # a comment
            j = i + 4
            while True:
                j = find(s, j, n, b'-')
                if j >= n:
                    break
                if j + 2 < n and s[j + 1] == b'-' and s[j + 2] == b'>':
                    j += 3
                    break
                j += 1
            i = j
            continue
        j = raw_text(s, i, n, limit, b"script", 6)
        if j < 0:
            j = raw_text(s, i, n, limit, b"style", 5)
        if j >= 0:
            i = j
            continue
        c = s[i + 1] if i + 1 < n else 0
        if is_alpha(c):
            j = i + 2
            while j < n and not (is_space(s[j]) or s[j] == b'/' or s[j] == b'>'):
                j += 1
            j = tag_rest(s, j, n, limit)
            if j < 0:
                return i  # an overloaded tag
            i = j
        elif c == b'/' or c == b'!' or c == b'?':
            j = find(s, i + 2, n, b'>')
            i = j + 1 if j < n else j
        else:
            i += 1  # a lone "<"
    return n


def scan(const unsigned char[::1] body, Py_ssize_t start, Py_ssize_t limit):
    """``screen._SCAN.match(body, start)``, compiled, for a scan allowing
    *limit* attributes: ``None`` when no tag from *start* on has more than
    *limit* attributes, else ``(end(1), end())``: the end of the tag's
    allowed part and of the attributes cut."""
    cdef Py_ssize_t n = body.shape[0], at, allowed, end, count
    cdef const unsigned char* s
    if n == 0 or start >= n:
        return None
    s = &body[0]
    with nogil:
        at = stop(s, start, n, limit)
    if at >= n:
        return None
    end = at + 2
    while end < n and not (is_space(s[end]) or s[end] == b'/' or s[end] == b'>'):
        end += 1
    allowed = attributes(s, end, n, limit, &count)
    end = attributes(s, allowed, n, n + 1, &count)
    return allowed, end




cdef extern from "Python.h":
    int PyUnicode_KIND(object text)
    void* PyUnicode_DATA(object text)
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t index)


def find_ascii(str text, str needle):
    """``text.find(needle)`` for a non-empty ASCII *needle*, at memory speed
    whatever the kind of *text*.

    Why: the parse's check for markup after ``</html>`` looks for the first
    end tag of the whole page, which sits at its end; ``str.find`` reads a
    page holding a character past Latin-1 (two or four bytes a character)
    at a third of the speed this does. libc's ``memchr`` looks for the
    needle's first character as a byte of the raw array, and a hit counts
    only where the character there is that one (in a wider string, the
    same byte is also part of other characters); the rest of the needle is
    compared from there.
    """
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef const unsigned char* raw = <const unsigned char*> data
    cdef Py_ssize_t n = len(text), m = len(needle), size = n * kind, at = 0, i, j
    cdef Py_UCS4 first
    cdef const void* hit
    if m == 0 or not needle.isascii():
        raise ValueError("the needle is a non-empty ASCII string")
    first = ord(needle[0])
    while at < size:
        hit = memchr(raw + at, <int> first, size - at)
        if hit is NULL:
            return -1
        at = <const unsigned char*> hit - raw
        i = at // kind
        if i + m > n:
            return -1
        if PyUnicode_READ(kind, data, i) == first:
            j = 1
            while j < m and PyUnicode_READ(kind, data, i + j) == <Py_UCS4> ord(needle[j]):
                j += 1
            if j == m:
                return i
        at += 1
    return -1


def count_byte(const unsigned char[::1] data, unsigned char byte):
    """``data.count(bytes([byte]))``, in a loop the compiler vectorises.

    Why: the tag screen counts the ``<`` of every page before it is parsed,
    and ``bytes.count`` of one byte reads a byte at a time: on a page of a
    few hundred kilobytes this is three times faster.
    """
    cdef Py_ssize_t i, n = data.shape[0], total = 0
    cdef const unsigned char* s
    if n == 0:
        return 0
    s = &data[0]
    with nogil:
        for i in range(n):
            total += s[i] == byte
    return total
