# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""The charset detector's input cut short, compiled (see
:func:`webclean_scrapy.engine.text.encoding.detection_input`, whose regular
expression is the reference and the fallback).

Why it exists: the regular expression takes about 0.2 ms on an average
undeclared legacy page of the shared sets (46 KB), a tenth of what the cut
saves the detector; this loop takes a fifth of that.
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize
from libc.string cimport memcpy


cdef inline bint plain(unsigned char b) noexcept nogil:
    """Printable ASCII, tab, line feed or carriage return."""
    return 0x20 <= b <= 0x7E or b == 0x09 or b == 0x0A or b == 0x0D


def cut_plain_runs(const unsigned char[::1] data, Py_ssize_t keep):
    """*data* (bytes) with each run of plain ASCII longer than ``2 * keep``
    bytes cut down to its first and last *keep* bytes."""
    cdef Py_ssize_t n = data.shape[0], i = 0, start, length, out = 0
    if keep < 0:
        raise ValueError("keep is a number of bytes")
    if n == 0:
        return b""
    result = PyBytes_FromStringAndSize(NULL, n)
    cdef char* target = PyBytes_AS_STRING(result)
    cdef const unsigned char* source = &data[0]
    with nogil:
        while i < n:
            if plain(source[i]):
                start = i
                while i < n and plain(source[i]):
                    i += 1
                length = i - start
                if length > 2 * keep:
                    memcpy(target + out, source + start, keep)
                    memcpy(target + out + keep, source + i - keep, keep)
                    out += 2 * keep
                else:
                    memcpy(target + out, source + start, length)
                    out += length
            else:
                target[out] = <char> source[i]
                out += 1
                i += 1
    return result if out == n else result[:out]
