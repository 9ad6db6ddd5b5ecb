# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""The class/id keyword scans and the feature rows of the ``webclean`` block
features, compiled.

The rows: ``_BlockFeatures.fill`` and ``_Structure.fill`` wrote each of
some 120 columns with a numpy call or three, a few thousand instructions
each whatever the page's size; :func:`block_rows` and :func:`structure_rows`
write every row in one loop, with the same arithmetic in the same order,
and their numpy ``python_fill`` stay the references and the fallbacks.

Why it exists: a class or id token the memos have not seen (most of a new
site's) was read by a regular expression of some hundred literal
alternatives, and ``re`` tries every alternative at every position of the
token: about 4 M instructions a page on a site seen for the first time,
more than the rest of the block features together. :class:`LiteralMatcher`
gives the same matches -- leftmost first, the first alternative in the
pattern's order at a position, non-overlapping, lookarounds honoured -- by
trying at each position only the alternatives that start with its two
characters. The alternatives are the regular expression's own, expanded by
``keywords.literal_alternatives`` from its parse; the regular expressions
stay the references and the fallbacks (``keywords._python_token_keywords``,
``features._python_token_groups``), and ``tests/test_engine_extractors_webclean_features.py``
compares both.
"""

cimport cython
from libc.math cimport sqrt
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_CheckExact, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
import numpy as np

from webclean_scrapy.engine.text._words cimport next_word


cdef extern from "Python.h":
    # PEP 393 strings, read in place.
    int PyUnicode_KIND(object text)
    void* PyUnicode_DATA(object text)
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t index)

#: The slot of a character that starts no alternative and is no
#: alternative's second character (see ``LiteralMatcher``).
DEF _OTHER = 0
#: Characters below this code point find their slot in a table; the
#: others (rare in class names) by a search of the few that have one.
DEF _TABLE = 128


cdef inline object remember(dict memo, object key, object value, Py_ssize_t bound):
    """``keywords.remember``: *value* kept under *key* in a memo emptied at
    *bound* entries (a crawl over many sites meets new tokens without end)."""
    if len(memo) >= bound:
        memo.clear()
    memo[key] = value
    return value


@cython.final
cdef class LiteralMatcher:
    """Scans a string for literal alternatives, as ``re.finditer`` would for
    their alternation, and folds the matches into an OR of their *bit* and
    the least of their *rank* (:meth:`fold`); or ORs the bits of every
    alternative the string contains anywhere (:meth:`each_contained`).

    *alternatives*: ``(text, assertions, bit, rank)`` in the pattern's order
    of preference; each assertion ``(offset, negate, charsets)`` requires
    (or, negated, forbids) that the characters from *offset* (relative to
    the match's start) lie in *charsets*, a tuple of ``((low, high), ...)``
    code point ranges, one per character; a span past either end of the
    string never matches.

    The candidates at a position are found by its first two characters:
    each character an alternative starts with or has second gets a *slot*
    (1, 2, ...; every other character :data:`_OTHER`), and a table indexed
    by the pair of slots lists, in the pattern's order, the alternatives
    starting with the first and having the second as their second
    character, or having no second. A position whose character starts no
    alternative costs a table read; one that does, the few alternatives
    sharing its two characters (indexed by the first character alone, a
    position would try every alternative starting with it)."""

    cdef list assertions
    cdef long long[::1] bits
    cdef long long[::1] ranks
    # Every alternative's code points from its third on, one after the
    # other (its first two are the table's): codes[begin[k]:begin[k + 1]].
    cdef int[::1] codes
    cdef Py_ssize_t[::1] begin
    cdef unsigned char[::1] asserts
    cdef Py_ssize_t[::1] lengths
    # Candidates by pair of slots: order[start[p]:start[p + 1]], p the
    # first character's slot times ``slots`` plus the second's.
    cdef Py_ssize_t[::1] order
    cdef Py_ssize_t[::1] start
    cdef unsigned char[::1] ascii_slot
    # The code point of each slot's character at or above _TABLE (-1: none),
    # and how many such slots there are.
    cdef long long[::1] wide
    cdef Py_ssize_t n_wide
    cdef Py_ssize_t slots
    cdef object _keep

    def __init__(self, list alternatives):
        cdef Py_ssize_t k, a, b
        self.assertions = []
        chars = {}  # character -> slot, in order of first use
        for text, assertions, bit, rank in alternatives:
            if not text:
                raise ValueError("an alternative matching the empty string")
            for c in text[:2]:
                chars.setdefault(c, len(chars) + 1)
        if len(chars) >= 255:
            raise ValueError("too many distinct first and second characters")
        self.slots = slots = len(chars) + 1
        ascii_slot = np.zeros(_TABLE, dtype=np.uint8)
        wide = np.full(slots, -1, dtype=np.int64)
        for c, slot in chars.items():
            if ord(c) < _TABLE:
                ascii_slot[ord(c)] = slot
            else:
                wide[slot] = ord(c)
        self.n_wide = int((wide >= 0).sum())
        self.wide = wide
        bits = np.zeros(len(alternatives), dtype=np.int64)
        ranks = np.zeros(len(alternatives), dtype=np.int64)
        asserts = np.zeros(len(alternatives), dtype=np.uint8)
        lengths = np.zeros(len(alternatives), dtype=np.intp)
        codes = []
        begin = [0]
        buckets = [[] for _ in range(slots * slots)]
        for k, (text, assertions, bit, rank) in enumerate(alternatives):
            self.assertions.append(tuple(assertions))
            asserts[k] = bool(assertions)
            lengths[k] = len(text)
            bits[k] = bit
            ranks[k] = rank
            codes.extend(ord(c) for c in text[2:])
            begin.append(len(codes))
            a = chars[text[0]]
            if len(text) > 1:
                buckets[a * slots + chars[text[1]]].append(k)
            else:  # no second character: a candidate whatever follows
                for b in range(slots):
                    buckets[a * slots + b].append(k)
        self.bits = bits
        self.ranks = ranks
        self.asserts = asserts
        self.lengths = lengths
        self.codes = np.array(codes or [0], dtype=np.intc)
        self.begin = np.array(begin, dtype=np.intp)
        self.ascii_slot = ascii_slot
        self.order = np.array([k for bucket in buckets for k in bucket] or [0], dtype=np.intp)
        self.start = np.cumsum([0] + [len(bucket) for bucket in buckets]).astype(np.intp)
        self._keep = (bits, ranks, asserts, lengths, self.codes, self.begin, ascii_slot, wide, self.order, self.start)

    cdef inline Py_ssize_t slot(self, Py_UCS4 c) noexcept:
        """The slot of character *c* (:data:`_OTHER`: none)."""
        cdef Py_ssize_t s
        if c < _TABLE:
            return self.ascii_slot[c]
        if self.n_wide:
            for s in range(1, self.slots):
                if self.wide[s] == c:
                    return s
        return _OTHER

    cdef bint holds(self, int kind, void* data, Py_ssize_t n, Py_ssize_t at, Py_ssize_t k) noexcept:
        """Whether alternative *k*, a candidate at *at* (its first two
        characters, or its one, are there), matches at *at* the string of
        *n* characters whose PEP 393 *kind* and *data* these are."""
        cdef Py_ssize_t i, first = self.begin[k], rest = self.begin[k + 1] - first, p, w
        cdef tuple assertion, charsets, span
        cdef bint inside, negate
        cdef Py_UCS4 c
        if rest:
            if at + 2 + rest > n:
                return False
            for i in range(rest):
                if PyUnicode_READ(kind, data, at + 2 + i) != <Py_UCS4> self.codes[first + i]:
                    return False
        if not self.asserts[k]:
            return True
        for assertion in <tuple> self.assertions[k]:
            p = at + <Py_ssize_t> assertion[0]
            negate = assertion[1]
            charsets = <tuple> assertion[2]
            w = len(charsets)
            inside = 0 <= p and p + w <= n
            i = 0
            while inside and i < w:
                c = PyUnicode_READ(kind, data, p + i)
                inside = False
                for span in <tuple> charsets[i]:
                    if <Py_UCS4> span[0] <= c <= <Py_UCS4> span[1]:
                        inside = True
                        break
                i += 1
            if inside == negate:
                return False
        return True

    cdef inline Py_ssize_t pair_at(self, int kind, void* data, Py_ssize_t n, Py_ssize_t at) noexcept:
        """The pair of slots of the characters at *at* and after (the place
        of its candidates in ``start``), of the string of *n* characters
        whose PEP 393 *kind* and *data* these are; -1 when none of the
        alternatives starts there (the common case, read inline)."""
        cdef Py_ssize_t a = self.slot(PyUnicode_READ(kind, data, at)), p
        if a == _OTHER:
            return -1
        p = a * self.slots
        if at + 1 < n:
            p += self.slot(PyUnicode_READ(kind, data, at + 1))
        return p if self.start[p] < self.start[p + 1] else -1

    cdef Py_ssize_t match_after(self, int kind, void* data, Py_ssize_t n, Py_ssize_t at, Py_ssize_t p,
                                Py_ssize_t after) noexcept:
        """The place in the candidate order (``order``) of the first
        alternative past place *after* (-1: from the first) that matches
        at *at*, whose pair of slots is *p* (:meth:`pair_at`), the string
        of *n* characters whose PEP 393 *kind* and *data* these are; -1
        when none does. The candidates are the alternatives that start
        with the two characters at *at* (or with the one, for an
        alternative of one character), in the pattern's order."""
        cdef Py_ssize_t j
        for j in range(max(self.start[p], after + 1), self.start[p + 1]):
            if self.holds(kind, data, n, at, self.order[j]):
                return j
        return -1

    cdef long long folded(self, str s, long long* best) noexcept:
        """The OR of the bits of *s*'s matches, leftmost first and not
        overlapping (as ``re.finditer``), the least of their ranks in
        *best* (-1: no match)."""
        cdef Py_ssize_t at = 0, n = len(s), j, k, p
        cdef long long bits = 0, rank
        cdef int kind = PyUnicode_KIND(s)
        cdef void* data = PyUnicode_DATA(s)
        best[0] = -1
        while at < n:
            p = self.pair_at(kind, data, n, at)
            j = self.match_after(kind, data, n, at, p, -1) if p >= 0 else -1
            if j < 0:
                at += 1
                continue
            k = self.order[j]
            bits |= self.bits[k]
            rank = self.ranks[k]
            if best[0] < 0 or rank < best[0]:
                best[0] = rank
            at += self.lengths[k]
        return bits

    def fold(self, str s):
        """``(bits, rank)``: the OR of the matches' bits and the least of
        their ranks (-1: no match)."""
        cdef long long best
        cdef long long bits = self.folded(s, &best)
        return bits, best

    cdef long long contained_bits(self, str s) noexcept:
        """The OR of the bits of every alternative occurring anywhere in
        *s*, overlapping occurrences included (``any(text in s)`` per
        alternative, not the leftmost-first scan of :meth:`fold`)."""
        cdef Py_ssize_t at, n = len(s), j, p
        cdef long long bits = 0
        cdef int kind = PyUnicode_KIND(s)
        cdef void* data = PyUnicode_DATA(s)
        for at in range(n):
            p = self.pair_at(kind, data, n, at)
            if p < 0:
                continue
            j = self.match_after(kind, data, n, at, p, -1)
            while j >= 0:
                bits |= self.bits[self.order[j]]
                j = self.match_after(kind, data, n, at, p, j)
        return bits

    def each_contained(self, list strings):
        """Per string of *strings*, the OR of the bits of the alternatives
        it contains (:meth:`contained_bits`): the page type's class/id
        families, a family's bit set when the name contains one of its
        keywords. A name a page shows for the first time was cut into
        runs of letters and searched once per keyword, about 8,000
        instructions a name; this tries at each character only the keywords
        that start with it."""
        cdef str s
        return [self.contained_bits(s) for s in strings]


cdef class GroupMemo(dict):
    """``features._GroupMemo``, compiled: class/id string -> its
    ``STRUCTURE_GROUPS`` bits, a string not yet seen (``memo[words]``)
    scanned whole, lower-cased, by *matcher* (no group's alternative holds
    whitespace or looks around, so a string's matches are its tokens'
    matches) and kept, the memo emptied at *bound* entries: a new string
    costs a scan of its characters, not a Python frame and a memo of its tokens."""

    cdef LiteralMatcher matcher
    cdef Py_ssize_t bound

    def __init__(self, LiteralMatcher matcher, Py_ssize_t bound):
        super().__init__()
        self.matcher = matcher
        self.bound = bound

    def __missing__(self, str words):
        cdef long long rank
        bits = self.matcher.folded(words.lower(), &rank)
        return remember(self, words, bits, self.bound)


def structure_rows(double[:, :] out, Py_ssize_t start, const long long[::1] holder, const int[::1] parent,
                   const int[::1] keys, const double[::1] count_log, const double[::1] share, const int[::1] same,
                   const double[::1] key_ld, const double[::1] key_prose, const int[::1] depth,
                   const int[::1] children, const long long[::1] first, const long long[::1] last,
                   const signed char[::1] levels, const double[::1] prefix_chars, const long long[::1] codes,
                   const long long[::1] cchars, const double[::1] prose_ratio, const unsigned char[::1] own,
                   const unsigned char[::1] inherited, const double[::1] log_table, tuple constants):
    """``features._Structure.fill``'s columns but ``is_title``, compiled: the
    rows of blocks ``start:start + len(out)`` written into *out* (zeros), in
    the reference's column order and with its arithmetic (the ``np.log1p``
    of a count read from *log_table*, that function's values). Returns
    False, having written nothing, when a count lies past the table (the
    caller then runs the reference)."""
    cdef double total, page_log_chars, page_log_blocks, page_ld, page_log_containers, top_key_share
    cdef long long area, first_h1, top_first, top_end, size = log_table.shape[0], count
    cdef Py_ssize_t groups, r, rows = out.shape[0], level, j, b
    cdef Py_ssize_t node[4]
    cdef long long key
    (total, page_log_chars, page_log_blocks, page_ld, page_log_containers, top_key_share, area, first_h1,
     top_first, top_end, groups) = constants
    # The counts' logarithms come from the table: all of them must be in it.
    for r in range(rows):
        node[0] = holder[start + r]
        for level in range(1, 4):
            node[level] = parent[node[level - 1]]
        for level in range(3):
            if same[node[level]] >= size:
                return False
        if children[node[1]] >= size:
            return False
        for level in range(1, 3):
            count = last[node[level]] - first[node[level]] + 1
            if count < 0 or count >= size:
                return False
    for r in range(rows):
        b = start + r
        node[0] = holder[b]
        for level in range(1, 4):
            node[level] = parent[node[level - 1]]
        out[r, 0] = depth[node[0]]
        for level in range(3):
            key = keys[node[level]]
            out[r, 1 + 3 * level] = count_log[key]
            out[r, 2 + 3 * level] = share[key]
            out[r, 3 + 3 * level] = log_table[same[node[level]]]
            out[r, 26 + 2 * level] = key_ld[key]
            out[r, 27 + 2 * level] = key_prose[key]
        out[r, 10] = log_table[children[node[1]]]
        out[r, 11] = log_table[last[node[1]] - first[node[1]] + 1]
        out[r, 12] = log_table[last[node[2]] - first[node[2]] + 1]
        out[r, 13] = levels[node[0]]
        if b < first_h1:
            out[r, 14] = 1.0
        out[r, 16] = prefix_chars[b] / total
        out[r, 17] = page_log_chars
        out[r, 18] = page_log_blocks
        out[r, 19] = page_ld
        out[r, 20] = page_log_containers
        out[r, 21] = top_key_share
        out[r, 22] = 1.0 if codes[node[0]] & area else 0.0
        for level in range(1, 4):
            out[r, 22 + level] = (<double> cchars[node[level]]) / total
            out[r, 31 + level] = prose_ratio[node[level]]
        if top_first <= b < top_end:
            out[r, 35] = 1.0
        for j in range(groups):
            out[r, 36 + j] = (inherited[node[0]] >> j) & 1
            out[r, 36 + groups + j] = (own[node[0]] >> j) & 1
    return True


cdef inline double at_most_3(double x):
    """``np.minimum(x, 3.0)``: a NaN stays one."""
    return 3.0 if x > 3.0 else x


def block_rows(double[:, :] out, Py_ssize_t start, const long long[::1] chars, const long long[::1] anchors,
               const long long[::1] stops, const long long[::1] commas, const long long[::1] semicolons,
               const unsigned char[::1] ends_stop, const unsigned char[::1] duplicates,
               const unsigned char[::1] in_top, const unsigned char[::1] in_sibling, double rd_share,
               const double[::1] char_steps, const double[::1] ld_steps, const long long[::1] holder,
               const int[::1] parent, const long long[::1] cchars, const long long[::1] canchors,
               const long long[::1] codes, const long long[::1] masks, const long long[::1] values,
               const double[::1] log_table):
    """``features._BlockFeatures.fill``'s own columns (``BLOCK_DENSE``, the
    length and link-density steps, ``CONTAINER_DENSE``, the code's binary
    features), compiled: the rows of blocks ``start:start + len(out)``
    written into *out* (zeros), with the reference's arithmetic (``math.log1p``
    read from *log_table*, that function's values). *stops*, *commas* and
    *semicolons* are the rows' own; the other block columns are the page's.
    Returns False, having written nothing, when a length lies past the table
    (the caller then runs the reference)."""
    cdef Py_ssize_t rows = out.shape[0], n = chars.shape[0], size = log_table.shape[0]
    cdef Py_ssize_t r, b, j, col, nchar = char_steps.shape[0], nld = ld_steps.shape[0], nbin = masks.shape[0]
    cdef Py_ssize_t p, g
    cdef long long doc_chars = cchars[0] if cchars[0] else 1, code
    cdef double c, ld, psize, gsize
    for r in range(-1, rows + 1):
        b = start + r
        if 0 <= b < n and not 0 <= chars[b] < size:
            return False
    for r in range(rows):
        b = start + r
        p = parent[holder[b]]
        g = parent[p]
        if not (cchars[p] < size and cchars[g] < size):
            return False
    for r in range(rows):
        b = start + r
        c = <double> chars[b]
        ld = anchors[b] / c
        out[r, 0] = 1.0
        out[r, 1] = log_table[chars[b]]
        out[r, 2] = ld
        if b > 0:
            out[r, 3] = log_table[chars[b - 1]]
            out[r, 5] = anchors[b - 1] / <double> chars[b - 1]
        else:
            out[r, 5] = 1.0
        if b + 1 < n:
            out[r, 4] = log_table[chars[b + 1]]
            out[r, 6] = anchors[b + 1] / <double> chars[b + 1]
        else:
            out[r, 6] = 1.0
        out[r, 7] = at_most_3(stops[r] * 40.0 / c)
        out[r, 8] = at_most_3((commas[r] + semicolons[r]) * 40.0 / c)
        out[r, 9] = ends_stop[b] != 0
        out[r, 10] = ld if c < 40 else 0.0
        out[r, 11] = (<double> b) / n
        out[r, 12] = duplicates[b] != 0
        out[r, 13] = in_top[b] != 0
        out[r, 14] = in_sibling[b] != 0
        out[r, 15] = rd_share
        col = 16
        for j in range(nchar):
            out[r, col + j] = c >= char_steps[j]
        col += nchar
        for j in range(nld):
            out[r, col + j] = ld >= ld_steps[j]
        col += nld
        p = parent[holder[b]]
        g = parent[p]
        psize = <double> (cchars[p] if cchars[p] > 1 else 1)
        gsize = <double> (cchars[g] if cchars[g] > 1 else 1)
        out[r, col] = log_table[<Py_ssize_t> psize]
        out[r, col + 1] = canchors[p] / psize
        out[r, col + 2] = log_table[<Py_ssize_t> gsize]
        out[r, col + 3] = canchors[g] / gsize
        out[r, col + 4] = psize / doc_chars
        out[r, col + 5] = canchors[0] / <double> doc_chars
        col += 6
        code = codes[holder[b]]
        for j in range(nbin):
            out[r, col + j] = (code & masks[j]) == values[j]
    return True



cdef inline const double* packed(object row, Py_ssize_t count) except NULL:
    """The doubles of a packed row (``lexicon.pack``), checked: *count* of them in a ``bytes``."""
    if not PyBytes_CheckExact(row) or PyBytes_GET_SIZE(row) != count * <Py_ssize_t> sizeof(double):
        raise TypeError(f"a lexicon row is {count} doubles packed in bytes")
    return <const double*> PyBytes_AS_STRING(row)


cdef bytes value_sums(dict memo, dict by_word, str name, str value, Py_ssize_t bound):
    """``MarkupLexicon._value_sums``, its reference: the row of one
    attribute value (its words' weights summed at each level, then its
    number of words), kept in ``memo[name]`` as :func:`lexicon_sums` reads
    it (five doubles packed in one ``bytes``). A word is a run of two or
    more ASCII lower-case letters of the lower-cased value (the
    reference's ``[a-z]{2,}``, found by ``findall``: maximal runs); the
    sums are made word by word in the same order, from *by_word*'s rows
    (four doubles packed), so they are the same floats. Most of a new
    site's values miss the memo: in Python this was most of the lexicon's
    time on such a page."""
    cdef object words_of = by_word.get(name[0])
    cdef str lowered = value.lower()
    cdef int kind = PyUnicode_KIND(lowered)
    cdef void* data = PyUnicode_DATA(lowered)
    cdef Py_ssize_t start, end = 0, n = len(lowered), words = 0
    cdef double row[5]
    cdef const double* levels
    cdef object found
    cdef dict per_name
    row[0] = row[1] = row[2] = row[3] = 0.0
    while True:
        start = next_word(kind, data, n, end, &end)
        if start < 0:
            break
        words += 1
        if words_of is not None:
            found = (<dict>words_of).get(lowered[start:end])
            if found is not None:
                levels = packed(found, 4)
                row[0] += levels[0]
                row[1] += levels[1]
                row[2] += levels[2]
                row[3] += levels[3]
    row[4] = <double>words
    per_name = memo.get(name)
    if per_name is None:
        per_name = memo[name] = {}
    return remember(per_name, value, PyBytes_FromStringAndSize(<char*> row, sizeof(row)), bound)


def lexicon_sums(list attributes, const long long[::1] parents, dict memo, dict by_word, Py_ssize_t bound,
                 double[:, ::1] table):
    """``MarkupLexicon``'s per-container sums, in one pass over the
    containers (parents first): columns 0-4 of row *j* of *table* (zeros)
    get the element-wise sum of the rows of container *j*'s attribute
    values (each found in *memo*, attribute name -> value -> row, or made
    by :func:`value_sums` from *by_word*, the lexicon's attribute initial
    -> word -> weights per level, and kept in a memo of at most *bound*
    values per name); columns 5 and 6 the
    running sums of columns 3 and 4 from the root down to *j*. The Python
    loops of ``lexicon.MarkupLexicon._python_sums`` are the reference: a
    page's containers are thousands, most without attributes, and those
    loops cost more than the rest of the lexicon's scoring together.
    Rows and weights are doubles packed in one ``bytes`` each
    (``lexicon.pack``): the memos are large and mostly out of the cache,
    and a tuple of floats is six objects to fetch where this is one."""
    cdef Py_ssize_t index, k, parent, n = len(attributes)
    cdef dict attrs
    cdef object by_value, found
    cdef const double* row
    if parents.shape[0] < n or table.shape[0] < n or table.shape[1] < 7:
        raise ValueError("one parent and one table row of seven columns per container")
    for index in range(n):
        attrs = <dict>attributes[index]
        if attrs:
            for name, value in attrs.items():
                by_value = memo.get(name)
                found = None if by_value is None else (<dict>by_value).get(value)
                if found is None:
                    found = value_sums(memo, by_word, name, value, bound)
                row = packed(found, 5)
                for k in range(5):
                    table[index, k] += row[k]
        parent = parents[index]
        if parent >= 0:
            table[index, 5] = table[index, 3] + table[parent, 5]
            table[index, 6] = table[index, 4] + table[parent, 6]
        else:
            table[index, 5] = table[index, 3]
            table[index, 6] = table[index, 4]


cdef inline long long ancestor(const long long[::1] parents, long long node, Py_ssize_t n) except -1:
    """The parent of *node* (``n``: the root's missing parent, and its own), checked."""
    cdef long long parent
    if node == n:
        return n
    parent = parents[node]
    if parent < 0:
        return n
    if parent >= n:
        raise IndexError(f"container {node}'s parent {parent} is past the containers")
    return parent


def lexicon_scores(const double[:, ::1] table, const long long[::1] holders, const long long[::1] parents,
                   list tags, dict own, dict above, double bias, double[::1] out):
    """``MarkupLexicon.block_scores``' per-block reads, one loop over the
    blocks: each block's score from *table* (see :func:`lexicon_sums`; row
    ``n``, the root's missing parent, zeros) at its holder, parent,
    grandparent and great-grandparent, plus its holder's tag weight in
    *own* and its parent's in *above* (none past the root), divided by the
    square root of its number of words, plus *bias*: the same operations
    in the same order as the numpy passes of ``block_scores`` with
    ``compiled=False`` (its reference), which were a dozen calls of a few
    thousand instructions each on every page, however small."""
    cdef Py_ssize_t i, n = parents.shape[0], m = holders.shape[0]
    cdef long long h, p, g, gg
    cdef double total, words, weight
    if table.shape[0] < n + 1 or table.shape[1] < 7 or out.shape[0] < m or len(tags) < n:
        raise ValueError("a table row per container and one more, a tag per container, a score per block")
    for i in range(m):
        h = holders[i]
        if not 0 <= h < n:
            raise IndexError(f"block {i}'s holder {h} is past the containers")
        p = ancestor(parents, h, n)
        g = ancestor(parents, p, n)
        gg = ancestor(parents, g, n)
        weight = <double>own[tags[h]]
        if p != n:
            weight = weight + <double>above[tags[p]]
        total = table[h, 0] + weight
        words = table[h, 4] + 1
        total += table[p, 1]
        words += table[p, 4] + (1.0 if p < n else 0.0)
        total += table[g, 2]
        words += table[g, 4]
        total += table[gg, 5]
        words += table[gg, 6]
        if words < 1:
            words = 1
        total /= sqrt(words)
        total += bias
        out[i] = total


def structure_tables(const long long[::1] parents, const int[::1] held, const int[::1] keys, Py_ssize_t nk,
                     const long long[::1] cchars, const long long[::1] canchors, const long long[::1] chars,
                     const long long[::1] anchors, const long long[::1] holder, const long long[::1] first,
                     const long long[::1] last, double total, int[::1] depth, unsigned char[::1] inherited):
    """The per-key and per-container tables of ``features._Structure``, in
    a few loops over the blocks and the containers holding text (*held*,
    in order), with the same float operations in the same order as
    ``features._python_structure_tables``, the reference: that one is some
    thirty numpy calls of a few thousand instructions each, whatever the
    page's size. *keys* are the containers' key numbers (below *nk*), the
    other arrays the page's columns; *depth* and *inherited* are set to 0
    for the containers without text. Returns ``(counts, share, same,
    children, top, key_ld, key_prose, prose_ratio, top_key_share)`` (see
    the reference; *top* is -1 on a page without prose)."""
    cdef Py_ssize_t nc = parents.shape[0], n = chars.shape[0], m = held.shape[0]
    cdef Py_ssize_t i, k, h, key, size = 16, at, top = -1
    cdef long long c, parent, pair
    cdef double prose, base, best
    cdef bint any_prose = False
    if (keys.shape[0] != nc or cchars.shape[0] != nc or canchors.shape[0] != nc or first.shape[0] != nc
            or last.shape[0] != nc or depth.shape[0] != nc or inherited.shape[0] != nc
            or anchors.shape[0] != n or holder.shape[0] != n or nk < 1):
        raise ValueError("the columns do not match")
    counts_array = np.zeros(nk)
    key_chars_array = np.zeros(nk)
    key_prose_array = np.zeros(nk)
    key_anchors_array = np.zeros(nk)
    share_array = np.empty(nk)
    same_array = np.zeros(nc, dtype=np.int32)
    children_array = np.zeros(nc, dtype=np.int32)
    subtree_array = np.zeros(nc)
    ratio_array = np.empty(nc)
    prefix_array = np.empty(n + 1)
    direct_array = np.zeros(nc)
    cdef double[::1] counts = counts_array, key_chars = key_chars_array, key_prose = key_prose_array
    cdef double[::1] key_anchors = key_anchors_array, share = share_array, subtree = subtree_array
    cdef double[::1] ratio = ratio_array, prefix = prefix_array, direct = direct_array
    cdef int[::1] same = same_array, children = children_array
    # Prose (80+ characters, under 30% in links), its running sum, and per
    # holder the prose it holds directly.
    prefix[0] = 0.0
    for i in range(n):
        c = chars[i]
        prose = <double> c if c >= 80 and <double> anchors[i] < 0.3 * <double> c else 0.0
        prefix[i + 1] = prefix[i] + prose
        if prose != 0.0:
            any_prose = True
        h = holder[i]
        if not 0 <= h < nc:
            raise IndexError(f"block {i}'s holder {h} is past the containers")
        direct[h] += prose
    if any_prose:
        best = direct[0]
        top = 0
        for k in range(1, nc):
            if direct[k] > best:
                best = direct[k]
                top = k
    # Per key, in the order of the held containers: how many, their text,
    # prose and link text; per container, its subtree's prose and its
    # children holding text.
    for k in range(m):
        h = held[k]
        if not 0 <= h < nc:
            raise IndexError(f"container {h} is past the columns")
        key = keys[h]
        if not 0 <= key < nk:
            raise IndexError(f"key {key} is past the {nk} keys")
        if first[h] < 0 or last[h] + 1 > n:
            raise IndexError(f"container {h} holds no block range")
        subtree[h] = prefix[last[h] + 1] - prefix[first[h]]
        counts[key] += 1.0
        key_chars[key] += <double> cchars[h]
        key_prose[key] += subtree[h]
        key_anchors[key] += <double> canchors[h]
        parent = parents[h]
        if parent >= 0:
            children[parent] += 1
    for key in range(nk):
        share[key] = key_chars[key] / total
        base = key_chars[key] if key_chars[key] > 1.0 else 1.0
        key_anchors[key] = key_anchors[key] / base
        key_prose[key] = key_prose[key] / base
    best = key_chars[0]
    for key in range(1, nk):
        if key_chars[key] > best:
            best = key_chars[key]
    for h in range(nc):
        base = <double> cchars[h]
        ratio[h] = subtree[h] / (base if base > 1.0 else 1.0)
        if cchars[h] == 0:
            depth[h] = 0
            inherited[h] = 0
    # Siblings sharing a key: the held containers per (parent, key) pair,
    # counted in an open-addressing table of at least twice as many slots.
    while size < 2 * m:
        size *= 2
    pairs_array = np.full(size, -1, dtype=np.int64)
    tally_array = np.zeros(size, dtype=np.int32)
    slots_array = np.empty(max(m, 1), dtype=np.intp)
    cdef long long[::1] pairs = pairs_array
    cdef int[::1] tally = tally_array
    cdef Py_ssize_t[::1] slots = slots_array
    for k in range(m):
        h = held[k]
        pair = (parents[h] + 1) * nk + keys[h]
        at = <Py_ssize_t> ((<unsigned long long> pair * 11400714819323198485ULL) >> 20) & (size - 1)
        while pairs[at] != -1 and pairs[at] != pair:
            at = (at + 1) & (size - 1)
        pairs[at] = pair
        tally[at] += 1
        slots[k] = at
    for k in range(m):
        same[held[k]] = tally[slots[k]]
    return (counts_array, share_array, same_array, children_array, top, key_anchors_array, key_prose_array,
            ratio_array, best / total)


def readability_flags(const long long[::1] chars, const long long[::1] holder, const long long[::1] codes,
                      long long bit, const long long[::1] commas, const long long[::1] parents, list tags,
                      dict tag_prior, const signed char[::1] signs, const long long[::1] cchars,
                      const long long[::1] canchors, const long long[::1] first, const long long[::1] last,
                      list texts, stops, const double[::1] divisors):
    """Readability's article container as ``features._python_readability``,
    its reference, finds it: ``(in_top, in_sibling, top)``, the two flags
    per block and the container (-1: none). The paragraphs (blocks of 25+
    characters whose holder's code has *bit*) score into their holder's
    ancestors, one share at a time in the reference's order, the shares and
    the containers' priors the same floats; the tie goes to the container
    scored first. Why: the reference is some twenty numpy calls and a
    Python list per page, most of a small page's block features."""
    cdef Py_ssize_t n = chars.shape[0], nc = parents.shape[0], levels = divisors.shape[0]
    cdef Py_ssize_t i, b, level, k, touched_count = 0, top = -1
    cdef long long node, parent, c, a
    cdef double points, best, threshold, ld
    cdef bint keep
    cdef str text
    if (holder.shape[0] != n or commas.shape[0] != n or len(texts) != n or codes.shape[0] != nc
            or len(tags) != nc or signs.shape[0] != nc or cchars.shape[0] != nc or canchors.shape[0] != nc
            or first.shape[0] != nc or last.shape[0] != nc):
        raise ValueError("the columns do not match")
    in_top_array = np.zeros(n, dtype=bool)
    in_sibling_array = np.zeros(n, dtype=bool)
    cdef unsigned char[::1] in_top = in_top_array.view(np.uint8)
    cdef unsigned char[::1] in_sibling = in_sibling_array.view(np.uint8)
    final_array = np.zeros(nc)
    seen_array = np.zeros(nc, dtype=np.uint8)
    order_array = np.empty(nc, dtype=np.intp)
    cdef double[::1] final = final_array
    cdef unsigned char[::1] seen = seen_array
    cdef Py_ssize_t[::1] order = order_array
    for b in range(n):
        node = holder[b]
        if not 0 <= node < nc:
            raise IndexError(f"block {b}'s holder {node} is past the containers")
        if chars[b] < 25 or codes[node] & bit == 0:
            continue
        points = 1.0 + <double> commas[b]
        points = points + (<double> (chars[b] // 100) if chars[b] // 100 < 3 else 3.0)
        # The holder's parent, then up: the root's parent is none, another
        # container without one has the root for its parent (as in
        # ``PageColumns.parent``).
        for level in range(levels):
            node = -1 if node == 0 else parents[node] if parents[node] > 0 else 0
            if node < 0:
                break
            if not seen[node]:
                seen[node] = 1
                order[touched_count] = node
                touched_count += 1
                final[node] = <double> (tag_prior.get(tags[node], 0) + 25 * signs[node])
            final[node] += points / divisors[level]
    if touched_count == 0:
        return in_top_array, in_sibling_array, -1
    for k in range(touched_count):
        node = order[k]
        final[node] *= 1 - <double> canchors[node] / <double> cchars[node]
    best = final[0]
    for i in range(1, nc):
        if final[i] > best:
            best = final[i]
    if best <= 0.0:
        return in_top_array, in_sibling_array, -1
    for k in range(touched_count):
        if final[order[k]] == best:
            top = order[k]
            break
    for b in range(first[top], last[top] + 1):
        in_top[b] = 1
    parent = parents[top]
    if parent >= 0:
        threshold = best * 0.2 if best * 0.2 > 10.0 else 10.0
        for i in range(nc):
            if parents[i] != parent or i == top or first[i] < 0:
                continue
            keep = final[i] >= threshold
            if not keep and tags[i] == "p":
                c, a = cchars[i], canchors[i]
                ld = <double> a / <double> c if c else 1.0
                text = <str> texts[last[i]]
                # (its last character: no negative index, wraparound is off)
                keep = (c > 80 and ld < 0.25) or (ld == 0 and text[len(text) - 1] in stops)
            if keep:
                for b in range(first[i], last[i] + 1):
                    in_sibling[b] = 1
    return in_top_array, in_sibling_array, top
