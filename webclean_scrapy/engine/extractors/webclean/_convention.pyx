# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""The convention pass's loops over the kept blocks, compiled (see
:mod:`webclean_scrapy.engine.extractors.webclean.convention`).

Why it exists: each rule reads every kept block, and on a typical page
nearly none is what the rule drops; a Python call per block, and a numpy
call per page for each step of a rule's whole-column tests, were most of
the pass. Here are the caption rule's walk up a block's containers (the
decisions of
:func:`~webclean_scrapy.engine.extractors.webclean.convention.in_caption`,
its reference; each container is read once, its class and id by the
Python ``names_caption``, memoised by their words), the short-line
rules' screens, which leave to their Python tests (``credit_line``,
``furniture_line``, ``teaser_heading``: the references, which decide)
only the blocks those may accept, and the headline rule's first words.
The tests compare each with its reference.
"""

from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.unicode cimport Py_UNICODE_ISALNUM, Py_UNICODE_ISSPACE, PyUnicode_FindChar
from libc.string cimport memset

cdef extern from "Python.h":
    bint PyUnicode_IS_ASCII(object text)
    Py_UCS4 PyUnicode_READ_CHAR(object text, Py_ssize_t index) nogil


cdef inline Py_UCS4 at(str text, Py_ssize_t index) noexcept:
    """``text[index]``, for an index known to be in it: the character read in place."""
    return PyUnicode_READ_CHAR(text, index)


#: The container kinds of ``convention._caption_kind`` (the tests check they agree).
cdef enum:
    PLAIN = 0
    CONTENT = 1
    FIGCAPTION = 2
    FIGURE = 3
    NAMED = 4

KINDS = (PLAIN, CONTENT, FIGCAPTION, FIGURE, NAMED)


cdef int _kind(list tags, list attributes, Py_ssize_t node, names_caption, content_tags, tuple name_words) except -1:
    """What container *node* is, as ``convention._caption_kind`` reads it;
    its class and id are read only when one holds one of *name_words*."""
    tag = tags[node]
    if tag == "figcaption":
        return FIGCAPTION
    if tag == "figure":
        return FIGURE
    names = attributes[node]
    if names and (may_hold(names.get("class"), name_words) or may_hold(names.get("id"), name_words)):
        if names_caption(f"{names.get('class', '')} {names.get('id', '')}"):
            return NAMED
    return CONTENT if tag in content_tags else PLAIN


cdef bint may_hold(value, tuple words) except -1:
    """Whether ``value.lower()`` may hold one of *words* (lower-case ASCII):
    not when *value* is ``None``, nor a string that holds none in any
    case. Lower-casing keeps ASCII letters where they are and makes none
    from another character, but for "İ" ("i" and a combining dot: it holds
    a word only if one ends on "i") and the Kelvin sign ("k"); the caption
    names' words end on no "i" and hold no "k" (the tests check)."""
    cdef str text, word
    cdef Py_ssize_t n, i, j, size
    cdef unsigned int c
    if value is None:
        return False
    if not isinstance(value, str):
        return True
    text = <str> value
    n = len(text)
    for word in words:
        size = len(word)
        for i in range(n - size + 1):
            for j in range(size):
                c = at(text, i + j)
                if 65 <= c <= 90:  # "A" to "Z"
                    c += 32
                if c != at(word, j):
                    break
            else:
                return True
    return False


def caption_positions(const long long[::1] kept, const long long[::1] holders, const long long[::1] parents,
                      const long long[::1] chars, list tags, list attributes, names_caption, tuple name_words,
                      content_tags, Py_ssize_t depth, long long caption_max, long long figure_max):
    """The positions in *kept* (block indexes) of the blocks whose holder
    (*holders*) makes them a caption. What a container is comes from its
    tag, and from its class and id as *names_caption* reads them (when
    either holds one of *name_words*, which each name it accepts holds);
    each container is read once, each holder walked up once."""
    cdef Py_ssize_t n = kept.shape[0], count = parents.shape[0], i, step
    cdef long long node, holder, block
    cdef int kind, content, answer
    cdef list found = []
    # Per container: its kind, and the answer for the blocks it holds (-1: not read yet).
    cdef signed char* kinds = <signed char*> PyMem_Malloc(2 * count + 1)
    cdef signed char* answers = kinds + count
    if kinds == NULL:
        raise MemoryError()
    memset(kinds, -1, 2 * count + 1)
    try:
        for i in range(n):
            block = kept[i]
            if not 0 <= block < holders.shape[0]:
                raise IndexError(f"block {block} is past the columns")
            holder = holders[block]
            if not -1 <= holder < count:
                raise IndexError(f"container {holder} is past the columns")
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
                        kind = kinds[node] = _kind(tags, attributes, node, names_caption, content_tags, name_words)
                    if kind == FIGCAPTION or kind == NAMED:
                        answer = chars[node] <= caption_max
                        break
                    if kind == FIGURE:
                        answer = not content and chars[node] <= figure_max
                        break
                    if kind == CONTENT:
                        content = 1
                    node = parents[node]
                    if node >= count:
                        raise IndexError(f"container {node} is past the columns")
                answers[holder] = answer
            if answer:
                found.append(i)
    finally:
        PyMem_Free(kinds)
    return found


cdef inline bint ascii_word_character(Py_UCS4 c) noexcept:
    """``\\w`` of an ASCII character: a letter, a digit or ``_``."""
    return (u"a" <= c <= u"z") or (u"A" <= c <= u"Z") or (u"0" <= c <= u"9") or c == u"_"


cdef inline bint word_character(Py_UCS4 c) noexcept:
    """``\\w`` of a ``str`` pattern (the regular-expression engine's own
    test): a letter or a digit of any script, or ``_``."""
    return c == u"_" or Py_UNICODE_ISALNUM(c)


cdef inline Py_ssize_t ascii_word_start(str text, Py_ssize_t start, Py_ssize_t n, unsigned int* c) noexcept:
    """The first position from *start* holding an ASCII word character or a
    character past ASCII (*n*: none), that character in *c*."""
    while start < n:
        c[0] = at(text, start)
        if c[0] >= 128 or ascii_word_character(c[0]):
            return start
        start += 1
    return n


cdef inline Py_ssize_t ascii_word_end(str text, Py_ssize_t end, Py_ssize_t n, unsigned int* c) noexcept:
    """The first position from *end* holding an ASCII character that is not
    a word's or a character past ASCII (*n*: none), that character in *c*."""
    while end < n:
        c[0] = at(text, end)
        if c[0] >= 128 or not ascii_word_character(c[0]):
            return end
        end += 1
    return n


cdef object first_word(str text, const unsigned char* initials=NULL):
    """``_WORD.search(text.lower())``'s word (``\\w+``), ``None`` without one;
    also ``None`` for a word opening with an ASCII character that has no
    flag in *initials* (one per ASCII character; ``NULL``: all flagged),
    when the text is ASCII up to it: a word the caller looks for none of,
    not made into a string."""
    cdef Py_ssize_t n = len(text), start = 0, end
    cdef unsigned int c
    cdef str lowered
    # While the text is ASCII, lower-casing keeps each character and what it is (a text's
    # lower case is its characters' but for a final sigma): only the word is lowered.
    start = ascii_word_start(text, 0, n, &c)
    if start == n:
        return None
    if c < 128:
        if 65 <= c <= 90:  # "A" to "Z"
            c += 32
        if initials != NULL and not initials[c]:
            return None
        end = ascii_word_end(text, start + 1, n, &c)
        if end == n or c < 128:
            return text[start:end].lower()
    lowered = text.lower()
    n = len(lowered)
    start = 0
    while start < n and not word_character(at(lowered, start)):
        start += 1
    if start == n:
        return None
    end = start + 1
    while end < n and word_character(at(lowered, end)):
        end += 1
    return lowered[start:end]


cdef const unsigned char* initial_flags(bytes initials) except? NULL:
    """*initials* (``None`` or 128 flags, see :func:`first_word`) as :func:`first_word` reads them."""
    if initials is None:
        return NULL
    if len(initials) != 128:
        raise ValueError("one initial flag per ASCII character")
    return <const unsigned char*> initials


def opening_with(list texts, indexes, const long long[::1] chars, long long longest, frozenset words,
                 bytes initials=None):
    """The positions in *indexes* (block indexes; ``None``: every block) of
    the blocks of at most *longest* characters (*chars*) whose text opens
    with a word of *words* (its first word, lower-cased: ``\\w+``).
    *initials* flags the ASCII characters that open one of *words*
    (``convention.initials``): an ASCII text opening otherwise is not read
    further.

    Why: a furniture line and an advert label open with one of a few
    dozen words, and most short blocks do not; the rules' Python tests run
    only on these (``convention._opening_with`` is the reference)."""
    cdef Py_ssize_t k, n, block
    cdef const long long[::1] blocks
    cdef list found = []
    cdef object word
    cdef const unsigned char* flags = initial_flags(initials)
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
        word = first_word(<str> texts[block], flags)
        if word is not None and word in words:
            found.append(k)
    return found


cdef Py_ssize_t next_word(str lowered, Py_ssize_t start, Py_ssize_t n, Py_ssize_t* end) noexcept:
    """Where the next ``\\w+`` word of *lowered* at or after *start* begins
    (*n* without one); its end in *end*."""
    while start < n and not word_character(at(lowered, start)):
        start += 1
    end[0] = start
    while end[0] < n and word_character(at(lowered, end[0])):
        end[0] += 1
    return start


def first_words(str text, Py_ssize_t count):
    """The first *count* ``\\w+`` words of ``text.lower()``, as
    ``convention.first_words`` reads them (the reference).

    Why: the headline rule reads the first few words of a page's first
    blocks; a regular-expression match object per word cost more than
    the comparison they serve, and lower-casing a long paragraph to read
    a dozen words more than both. While the text is ASCII, each word is
    lowered alone (see :func:`first_word`)."""
    cdef Py_ssize_t n = len(text), start = 0, end = 0
    cdef unsigned int c = 0
    cdef list found = []
    cdef str lowered
    while len(found) < count:
        start = ascii_word_start(text, start, n, &c)
        if start == n or c >= 128:
            break
        end = ascii_word_end(text, start + 1, n, &c)
        if end < n and c >= 128:
            break
        found.append(text[start:end].lower())
        start = end
    else:
        return found
    if start == n:
        return found
    # Past ASCII: the whole text lowered, as the reference reads it.
    found = []
    lowered = text.lower()
    n = len(lowered)
    end = 0
    while len(found) < count:
        start = next_word(lowered, end, n, &end)
        if start == n:
            break
        found.append(lowered[start:end])
    return found


cdef Py_ssize_t last_non_space(str text, Py_ssize_t start, Py_ssize_t n) noexcept:
    """The last position of ``text[start:n]`` that ``str.rstrip()`` keeps (``-1``: none)."""
    n -= 1
    while n >= start and Py_UNICODE_ISSPACE(at(text, n)):
        n -= 1
    return n if n >= start else -1


cdef inline bint stop(Py_UCS4 c) noexcept:
    return c == u"." or c == u"!" or c == u"?"


#: The characters past ASCII whose lower case holds an ASCII one: "İ" ("i" and a dot above) and
#: the Kelvin sign ("k"). The tests check there are no others.
LOWER_TO_ASCII = (0x130, 0x212A)


cdef inline bint lower_to_ascii(Py_UCS4 c) noexcept:
    return c == 0x130 or c == 0x212A


cdef enum:
    #: At most this many prefixes, suffixes or agency words in a :class:`CreditScreen`.
    MAX_CODES = 64


cdef class CreditScreen:
    """Which short blocks ``convention.credit_line`` may accept: the others
    fail each of its three tests here, without a Python call.

    * the opening credit (*opening_match*, run only on a text whose first
      *width* characters, after a "(" and spaces, may open a credit word:
      one of *prefixes*, lower-cased, or not ASCII);
    * the closing credit, in the last *closing_tail* characters: after
      their last ":" no stop, and a credit word (one of *suffixes*) before
      it and its spaces; or a ")" to end them, the last "(" before it
      opening a credit word;
    * the agency (texts of at most *agency_longest*): the last
      *agency_tail* characters not ending on a stop, and holding one of
      the agencies' words (*hints*, lower-case ASCII; *hint_search*, on
      them lower-cased, when they are not ASCII).

    Why: nearly every short kept block is prose or a heading, and each of
    ``credit_line``'s tests needs only a few of its characters to fail; the
    closing credit's search, the dearest of them, reads the whole tail. The
    words are packed once, when the screen is made (``convention._CREDIT_SCREEN``),
    so that a block is read without making a string of it."""

    cdef long long longest
    cdef Py_ssize_t width, closing_tail, agency_longest, agency_tail
    cdef object opening_match, hint_search
    cdef unsigned int prefixes[MAX_CODES]
    cdef unsigned int suffixes[MAX_CODES]
    cdef int prefix_count, suffix_count
    cdef bytes hint_bytes
    cdef Py_ssize_t hint_starts[MAX_CODES + 1]
    cdef int hint_count
    # Per pair of ASCII characters: whether an agency word opens with it.
    cdef unsigned char hint_pairs[128 * 128]

    def __init__(self, long long longest, prefixes, suffixes, Py_ssize_t width, opening_match,
                 Py_ssize_t closing_tail, Py_ssize_t agency_longest, Py_ssize_t agency_tail, hints, hint_search):
        if not 1 <= width <= 3:
            raise ValueError("a credit word's ends are read 1 to 3 characters wide")
        self.longest, self.width = longest, width
        self.opening_match, self.hint_search = opening_match, hint_search
        self.closing_tail, self.agency_longest, self.agency_tail = closing_tail, agency_longest, agency_tail
        self.prefix_count = self._pack(prefixes, self.prefixes)
        self.suffix_count = self._pack(suffixes, self.suffixes)
        hints = list(hints)
        if len(hints) > MAX_CODES:
            raise ValueError("too many agency words")
        memset(self.hint_pairs, 0, sizeof(self.hint_pairs))
        self.hint_bytes = "".join(hints).encode("ascii")
        self.hint_starts[0] = 0
        for i, hint in enumerate(hints):
            if len(hint) < 2 or hint != hint.lower() or not hint.isascii():
                raise ValueError(f"an agency word is lower-case ASCII, two letters or more, not {hint!r}")
            self.hint_pairs[ord(hint[0]) * 128 + ord(hint[1])] = True
            self.hint_starts[i + 1] = self.hint_starts[i] + len(hint)
        self.hint_count = len(hints)

    cdef int _pack(self, words, unsigned int* codes) except -1:
        """*words*' ASCII ones, each :meth:`code` of its characters, into *codes*: how many."""
        cdef int count = 0
        for word in words:
            if len(word) != self.width:
                raise ValueError(f"{word!r} is not {self.width} characters")
            if not word.isascii():
                continue  # an ASCII text never matches it: those are the only ones tested
            if count == MAX_CODES:
                raise ValueError("too many credit words")
            codes[count] = self.code(word.lower(), 0)
            count += 1
        return count

    cdef inline unsigned int code(self, str text, Py_ssize_t start) noexcept:
        """``text[start:start + width]``, ASCII, lower-cased, as one number."""
        cdef unsigned int code = 0, c
        cdef Py_ssize_t j
        for j in range(self.width):
            c = at(text, start + j)
            if 65 <= c <= 90:  # "A" to "Z"
                c += 32
            code |= c << (8 * j)
        return code

    cdef bint may_be(self, str text, Py_ssize_t start, unsigned int* codes, int count) noexcept:
        """Whether ``text[start:start + width]`` may be, in any case, one of
        *codes*: not when it is ASCII and is none (a character past ASCII
        may match a letter in any case)."""
        cdef Py_ssize_t j
        cdef unsigned int code
        cdef int i
        for j in range(start, start + self.width):
            if at(text, j) >= 128:
                return True
        code = self.code(text, start)
        for i in range(count):
            if codes[i] == code:
                return True
        return False

    cdef bint holds_hint(self, str text, Py_ssize_t start, Py_ssize_t n) except -1:
        """Whether ``text[start:n].lower()`` holds an agency's word (ASCII).
        A character past ASCII lower-cases to none (each is lower-cased
        alone, but for a final sigma, to another Greek letter), except
        ``LOWER_TO_ASCII``'s: that text is the expression's to read."""
        cdef Py_ssize_t p
        cdef unsigned int c
        cdef unsigned int before = 128  # the character before, lower-cased (128: not ASCII)
        for p in range(start, n):
            c = at(text, p)
            if c >= 128:
                if lower_to_ascii(c):
                    return self.hint_search(text[start:n].lower()) is not None
                before = 128
                continue
            if 65 <= c <= 90:  # "A" to "Z"
                c += 32
            if before < 128 and self.hint_pairs[before * 128 + c] and self.hint_at(text, p - 1, n, before, c):
                return True
            before = c
        return False

    cdef bint hint_at(self, str text, Py_ssize_t p, Py_ssize_t n, unsigned int c, unsigned int d) noexcept:
        """Whether an agency word opening with *c* and *d* (``text[p:p + 2]``,
        lower-cased) is at *p* in ``text[:n]``, in any case."""
        cdef const char* hints = self.hint_bytes
        cdef Py_ssize_t j, size, first
        cdef unsigned int e
        cdef int i
        for i in range(self.hint_count):
            first = self.hint_starts[i]
            size = self.hint_starts[i + 1] - first
            if p + size > n or <unsigned char> hints[first] != c or <unsigned char> hints[first + 1] != d:
                continue
            for j in range(2, size):
                e = at(text, p + j)
                if 65 <= e <= 90:
                    e += 32
                if e != <unsigned char> hints[first + j]:
                    break
            else:
                return True
        return False

    cdef bint may_accept(self, str text) except -1:
        """Whether ``credit_line`` may accept *text* (at most *longest* characters)."""
        cdef Py_ssize_t n = len(text), i, start, colon, last, opening, width = self.width
        i = 1 if n and at(text, 0) == u"(" else 0
        while i < n and Py_UNICODE_ISSPACE(at(text, i)):
            i += 1
        if (i < n and (n - i < width or self.may_be(text, i, self.prefixes, self.prefix_count))
                and self.opening_match(text) is not None):
            return True
        start = n - self.closing_tail if n > self.closing_tail else 0
        colon = PyUnicode_FindChar(text, u":", start, n, -1)
        if colon >= 0:
            last = last_non_space(text, start, n)
            if at(text, last) == u")":
                # "(Photo: Jane Doe)": a credit word opens the last brackets.
                opening = PyUnicode_FindChar(text, u"(", start, last, -1)
                if opening >= 0:
                    i = opening + 1
                    while i < last and Py_UNICODE_ISSPACE(at(text, i)):
                        i += 1
                    if last - i < width or self.may_be(text, i, self.prefixes, self.prefix_count):
                        return True
            i = colon + 1
            while i < n and not stop(at(text, i)):
                i += 1
            if i == n:
                # "Photograph: Jane Doe/Reuters": a credit word ends before the last colon.
                i = colon
                while i > start and Py_UNICODE_ISSPACE(at(text, i - 1)):
                    i -= 1
                if i - start >= width and self.may_be(text, i - width, self.suffixes, self.suffix_count):
                    return True
        if n > self.agency_longest:
            return False
        start = n - self.agency_tail if n > self.agency_tail else 0
        last = last_non_space(text, start, n)
        if last >= 0 and stop(at(text, last)):
            return False
        return self.holds_hint(text, start, n)

    def candidates(self, list texts, const long long[::1] kept, const long long[::1] chars):
        """The positions in *kept* (block indexes) of the blocks of at most
        the screen's *longest* characters (*chars*, and as ``len``) that
        ``credit_line`` may accept."""
        cdef Py_ssize_t k
        cdef long long block
        cdef str text
        cdef list found = []
        if chars.shape[0] != len(texts):
            raise ValueError("one length per block")
        for k in range(kept.shape[0]):
            block = kept[k]
            if not 0 <= block < chars.shape[0]:
                raise IndexError(f"block {block} is past the columns")
            if chars[block] > self.longest:
                continue
            text = <str> texts[block]
            if len(text) <= self.longest and self.may_accept(text):
                found.append(k)
        return found


cdef bint may_be_furniture(str text, frozenset line_words, frozenset bar_words, Py_ssize_t max_words,
                           const unsigned char* initials) except -1:
    """Whether ``convention.furniture_line`` may accept *text*: at most
    *max_words* ``\\w+`` words (lower-cased) the first of which opens a
    furniture line (*line_words*), or at most twice as many, all of a share
    bar (*bar_words*); *initials* flags the ASCII characters that open a
    word of either (see :func:`first_word`). A line opening with "the" or
    "on" (a share bar's fillers) is nearly always prose, and its second
    word says so: the words are read only until neither can hold."""
    cdef Py_ssize_t n, start, end, count = 1
    cdef str lowered
    cdef bint line, bar
    word = first_word(text, initials)
    if word is None:
        return False
    line = word in line_words
    bar = word in bar_words
    if not (line or bar):
        return False
    lowered = text.lower()
    n = len(lowered)
    start = next_word(lowered, 0, n, &end)
    while line or bar:
        start = next_word(lowered, end, n, &end)
        if start == n:
            break
        count += 1
        if count > max_words:
            line = False
        if bar and (count > 2 * max_words or lowered[start:end] not in bar_words):
            bar = False
    return line or bar


cdef class LineScreen:
    """Which kept blocks the short-line rules' Python tests may accept, in
    one pass over the kept blocks (each read once, however many rules look
    at it), and the advert labels near them:

    * ``credit_line``'s (*credit*, a :class:`CreditScreen`);
    * ``furniture_line``'s: blocks of at most *furniture_longest*
      characters that :func:`may_be_furniture` lets through (*line_words*,
      *bar_words*, *max_words*, *furniture_initials*);
    * ``teaser_heading``'s: blocks after at least *teaser_after* of the
      kept blocks' lengths, of at most *teaser_longest* characters, whose
      first word opens a teaser heading (*teaser_words*, *teaser_initials*);
    * ``ad_label``'s, among all blocks: those of at most *label_longest*
      characters opening with a label (*label_words*, *label_initials*) no
      farther than *label_reach* blocks from a kept one (a farther label's
      box holds no kept block).

    Why: a rule's Python test per short block, or a numpy call per step of
    a rule's whole-column tests, cost more than the few blocks a rule
    drops; one call instead of one per rule, as a call's own cost is most
    of a small page's."""

    cdef CreditScreen credit
    cdef long long furniture_longest, teaser_after, teaser_longest, label_longest
    cdef frozenset line_words, bar_words, teaser_words, label_words
    cdef Py_ssize_t max_words, label_reach
    cdef bytes furniture_initials, teaser_initials, label_initials

    def __init__(self, CreditScreen credit, long long furniture_longest, frozenset line_words, frozenset bar_words,
                 Py_ssize_t max_words, bytes furniture_initials, long long teaser_after, long long teaser_longest,
                 frozenset teaser_words, bytes teaser_initials, long long label_longest, frozenset label_words,
                 bytes label_initials, Py_ssize_t label_reach):
        for initials in (furniture_initials, teaser_initials, label_initials):
            initial_flags(initials)
        self.credit = credit
        self.furniture_longest, self.line_words, self.bar_words = furniture_longest, line_words, bar_words
        self.max_words, self.furniture_initials = max_words, furniture_initials
        self.teaser_after, self.teaser_longest = teaser_after, teaser_longest
        self.teaser_words, self.teaser_initials = teaser_words, teaser_initials
        self.label_longest, self.label_words, self.label_initials = label_longest, label_words, label_initials
        self.label_reach = label_reach

    def candidates(self, list texts, const long long[::1] kept, const long long[::1] chars,
                   const long long[::1] lengths, bint credit, bint furniture, bint teasers, bint labels):
        """For each of *credit*, *furniture* and *teasers* asked for, the
        positions in *kept* (block indexes) of its candidates; for
        *labels*, the block indexes of the advert labels' candidates (an
        empty list for each not asked for)."""
        cdef Py_ssize_t k, size = len(texts), first, last, block
        cdef long long length, before = 0
        cdef long long longest = max(self.credit.longest if credit else -1,
                                     self.furniture_longest if furniture else -1,
                                     self.teaser_longest if teasers else -1)
        cdef str text
        cdef list credits = [], lines = [], headings = [], found = []
        cdef const unsigned char* furniture_flags = <const unsigned char*> self.furniture_initials
        cdef const unsigned char* teaser_flags = <const unsigned char*> self.teaser_initials
        cdef const unsigned char* label_flags = <const unsigned char*> self.label_initials
        cdef unsigned char* near
        if chars.shape[0] != size or lengths.shape[0] != size:
            raise ValueError("one length per block")
        for k in range(kept.shape[0]):
            block = kept[k]
            if not 0 <= block < size:
                raise IndexError(f"block {block} is past the columns")
            length = chars[block]
            if length <= longest:
                text = <str> texts[block]
                if credit and length <= self.credit.longest and len(text) <= self.credit.longest:
                    if self.credit.may_accept(text):
                        credits.append(k)
                if furniture and length <= self.furniture_longest:
                    if may_be_furniture(text, self.line_words, self.bar_words, self.max_words, furniture_flags):
                        lines.append(k)
                if teasers and before >= self.teaser_after and length <= self.teaser_longest:
                    word = first_word(text, teaser_flags)
                    if word is not None and word in self.teaser_words:
                        headings.append(k)
            before += lengths[block]
        if labels and size:
            # The blocks no farther than label_reach from a kept one (flags, one per block).
            near = <unsigned char*> PyMem_Malloc(size)
            if near == NULL:
                raise MemoryError()
            try:
                memset(near, 0, size)
                for k in range(kept.shape[0]):
                    first = max(<Py_ssize_t> kept[k] - self.label_reach, 0)
                    last = min(<Py_ssize_t> kept[k] + self.label_reach, size - 1)
                    memset(near + first, 1, last - first + 1)
                for block in range(size):
                    if near[block] and chars[block] <= self.label_longest:
                        word = first_word(<str> texts[block], label_flags)
                        if word is not None and word in self.label_words:
                            found.append(block)
            finally:
                PyMem_Free(near)
        return credits, lines, headings, found
