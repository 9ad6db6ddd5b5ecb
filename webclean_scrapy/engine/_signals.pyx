# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""Per-container loops of the page-type signals and of the block features'
keyword codes, compiled (see :mod:`webclean_scrapy.engine.page_type`).

Why it exists: :func:`~webclean_scrapy.engine.page_type.page_signals` reads every
container's attributes, every class / id name and every repeatable
container once per page, and the block features read every container's
class, id, role and itemprop again for its keyword code, in Python loops
of dictionary and string operations that cost a sixth of a bare parse
together; its per-block sums, tag flags and repeated groups were numpy
passes over the blocks and containers, a few dozen calls of a few
thousand instructions each. These are the same loops in C, doing the same
operations in the same order (sums of whole numbers, exact in any order):
the Python functions they replace (``attribute_names``,
``unknown_names``, ``family_counts``, ``group_numbers``,
``numeric_blocks``, ``link_figures``, ``add_words``, ``tag_codes``,
``block_stats``, ``repetition``, ``price_starts``, ``phrase_counts``
in ``page_type.reference``; ``container_codes`` in the ``webclean``
extractor's ``keywords``; ``_python_structure_keys``, ``_depths``,
``_heading_levels`` in its ``features``; ``_python_structural_groups`` in
its ``consensus``) stay the references and the fallbacks, and
``tests/test_engine_page_type_signals.py`` (the consensus groups:
``tests/test_engine_extractors_webclean_consensus.py``) compares both.
"""

from cpython.dict cimport PyDict_SetItem, PyDict_Size
from cpython.object cimport PyObject

import numpy as np

from webclean_scrapy.engine.text._words cimport next_word


cdef extern from "Python.h":
    # A borrowed reference or NULL, an error raised only by a key's __eq__
    # or __hash__ (PyDict_GetItem would save and restore the error state
    # around every lookup).
    PyObject* PyDict_GetItemWithError(object d, object key) except? NULL
    # PEP 393 strings, read and written in place.
    object PyUnicode_New(Py_ssize_t size, Py_UCS4 maxchar)
    unsigned char* PyUnicode_1BYTE_DATA(object text)
    int PyUnicode_KIND(object text)
    void* PyUnicode_DATA(object text)
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t index)
    bint PyUnicode_IS_ASCII(object text)
    ctypedef unsigned char Py_UCS1
    ctypedef unsigned short Py_UCS2


#: A string's code unit, by its PEP 393 kind: the loops over a string's
#: characters are made once per kind, each reading its array directly (a
#: read through ``PyUnicode_READ`` tests the kind at every character).
ctypedef fused code_unit:
    Py_UCS1
    Py_UCS2
    Py_UCS4


cdef Py_ssize_t count_hyphens(const code_unit* s, Py_ssize_t start, Py_ssize_t stop) noexcept nogil:
    cdef Py_ssize_t i, found = 0
    for i in range(start, stop):
        found += s[i] == 45  # "-"
    return found


cdef Py_ssize_t hyphens(str text, Py_ssize_t start, Py_ssize_t stop):
    """How many ``-`` ``text[start:stop]`` holds."""
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    if kind == 1:
        return count_hyphens(<const Py_UCS1*> data, start, stop)
    if kind == 2:
        return count_hyphens(<const Py_UCS2*> data, start, stop)
    return count_hyphens(<const Py_UCS4*> data, start, stop)


cdef inline object memo_value(object memo, object key):
    """``memo[key]`` (a dict, or a dict subclass whose ``__missing__``
    computes and keeps a missing value), with one hash when the key is there."""
    cdef PyObject* found = PyDict_GetItemWithError(memo, key)
    if found is NULL:
        return memo[key]
    return <object> found


cdef inline object key_number(dict numbering, object key):
    """The number of *key* in *numbering*, the next one (its size) for a key
    not seen yet: keys numbered in order of first use."""
    cdef PyObject* found = PyDict_GetItemWithError(numbering, key)
    if found is not NULL:
        return <object> found
    number = PyDict_Size(numbering)
    PyDict_SetItem(numbering, key, number)
    return number


cdef inline bint ascii_space(unsigned char c) noexcept:
    """Whether the ASCII byte *c* is whitespace to ``str.split()``."""
    return c == 32 or 9 <= c <= 13 or 28 <= c <= 31


cdef int count_names(dict name_counts, str value, object times) except -1:
    """Add *times* to the count of each name of ``value.lower().split()``,
    in order; an ASCII value is cut and lower-cased in place, one new
    string per name."""
    cdef Py_ssize_t i = 0, start, j, n
    cdef const unsigned char* data
    cdef unsigned char* out
    cdef unsigned char c
    cdef object name
    if not PyUnicode_IS_ASCII(value):
        for name in value.lower().split():
            name_counts[name] = name_counts.get(name, 0) + times
        return 0
    data = PyUnicode_1BYTE_DATA(value)
    n = len(value)
    while i < n:
        while i < n and ascii_space(data[i]):
            i += 1
        if i == n:
            break
        start = i
        while i < n and not ascii_space(data[i]):
            i += 1
        name = PyUnicode_New(i - start, 127)
        out = PyUnicode_1BYTE_DATA(name)
        for j in range(start, i):
            c = data[j]
            out[j - start] = c + 32 if 65 <= c <= 90 else c
        name_counts[name] = name_counts.get(name, 0) + times
    return 0


def attribute_names(list tags, list attributes, heading_tags):
    """Per container its ``class`` value (``""`` without one); the ``role``
    and ``itemprop`` values (lower-cased) in document order; how many
    headings have an ``id``; and each class / id name (the values
    lower-cased, split at whitespace) with how often it occurs. The empty
    value, the most common, names nothing and is not counted."""
    cdef Py_ssize_t i, n = len(tags)
    cdef Py_ssize_t heading_ids = 0
    cdef list classes = [], ids = [], roles = [], itemprops = []
    cdef dict values = {}, name_counts = {}
    cdef dict a
    cdef object value, times
    for i in range(n):
        a = <dict> attributes[i]
        if not a:
            classes.append("")
            continue
        value = a.get("class", "")
        if len(a) > ("class" in a):  # an id, role or itemprop
            if "id" in a:
                ids.append(a["id"])
                heading_ids += tags[i] in heading_tags
            if "role" in a:
                roles.append(a["role"].lower())
            if "itemprop" in a:
                itemprops.append(a["itemprop"].lower())
        classes.append(value)
        if value:
            values[value] = values.get(value, 0) + 1
    for value in ids:  # after every class value, as Counter(classes).update(ids)
        if value:
            values[value] = values.get(value, 0) + 1
    for value, times in values.items():
        count_names(name_counts, value, times)
    return classes, roles, itemprops, heading_ids, name_counts


def unknown_names(dict names, dict known):
    """The keys of *names* not in *known*, in order."""
    cdef list missing = []
    cdef object name
    for name in names:
        if name not in known:
            missing.append(name)
    return missing


def family_counts(dict name_counts, dict name_bits, int groups):
    """Per family (bit *k* of *name_bits*' values), the summed counts of the
    names carrying it."""
    cdef long long[64] counts
    cdef long long bits, times
    cdef int k
    cdef object name
    for k in range(groups):
        counts[k] = 0
    for name, count in name_counts.items():
        bits = name_bits[name]
        times = count
        k = 0
        while bits:
            if bits & 1:
                counts[k] += times
            bits >>= 1
            k += 1
    return [counts[k] for k in range(groups)]


def group_numbers(list items, list parents, list tags, list classes):
    """Per item (a container index), the index of the first item sharing its
    parent, tag and class: its group's number (int64 array)."""
    cdef Py_ssize_t k, n = len(items)
    cdef dict first_of = {}
    out = np.empty(n, dtype=np.int64)
    cdef long long[::1] numbers = out
    cdef object i
    for k in range(n):
        i = items[k]
        numbers[k] = first_of.setdefault((parents[i], tags[i], classes[i]), i)
    return out


cdef inline bint one_of(Py_UCS4 c, int kind, void* data, Py_ssize_t n):
    """Whether *c* is one of the *n* characters of a string's *data*."""
    cdef Py_ssize_t i
    for i in range(n):
        if PyUnicode_READ(kind, data, i) == c:
            return True
    return False


def phrase_counts(str text, str strip, dict phrases, Py_ssize_t longest):
    """How often each of *phrases*' keys is a whole line of *text* once the
    characters of *strip* are stripped from both ends: ``Counter(filter(
    phrases.__contains__, map(str.strip, text.split("\\n"), repeat(strip))))``,
    its reference (``page_type.reference.phrase_counts``), without a string per
    line: only a stripped line of 1 to *longest* characters (the longest
    key's length) is made and looked up."""
    cdef Py_ssize_t n = len(text), start = 0, end, a, b, k
    cdef int kind = PyUnicode_KIND(text), strip_kind = PyUnicode_KIND(strip)
    cdef void* data = PyUnicode_DATA(text)
    cdef void* strip_data = PyUnicode_DATA(strip)
    cdef Py_ssize_t strip_n = len(strip)
    cdef Py_UCS4 c
    cdef dict counts = {}
    cdef object line
    cdef unsigned char[128] stripped
    for k in range(128):
        stripped[k] = one_of(<Py_UCS4> k, strip_kind, strip_data, strip_n)
    while start <= n:
        end = start
        while end < n and PyUnicode_READ(kind, data, end) != 10:  # "\n"
            end += 1
        a, b = start, end
        while a < b:
            c = PyUnicode_READ(kind, data, a)
            if not (stripped[c] if c < 128 else one_of(c, strip_kind, strip_data, strip_n)):
                break
            a += 1
        while b > a:
            c = PyUnicode_READ(kind, data, b - 1)
            if not (stripped[c] if c < 128 else one_of(c, strip_kind, strip_data, strip_n)):
                break
            b -= 1
        if 0 < b - a <= longest:
            line = text[a:b]
            if line in phrases:
                counts[line] = counts.get(line, 0) + 1
        start = end + 1
    return counts


def numeric_blocks(list texts):
    """How many of *texts* are digits alone once ``,`` and ``.`` are taken
    out (``str.isdigit``: Unicode digits count, an empty rest does not)."""
    cdef Py_ssize_t found = 0
    cdef str text
    cdef Py_UCS4 c
    cdef bint digits, seen
    for text in texts:
        digits = True
        seen = False
        for c in text:
            if c == u"," or c == u".":
                continue
            if not c.isdigit():
                digits = False
                break
            seen = True
        found += digits and seen
    return found


cdef tuple string_keywords(str words, dict keyword_cache, scan, Py_ssize_t cache_size, long long strong_rank,
                           long long meta_rank, long long evidence_shift):
    """``keywords._keywords(words)`` for a string missing from *keyword_cache*
    (which it then holds): *scan* (the keyword matcher's ``fold``) reads the
    string whole, lower-cased. No keyword holds whitespace, and none looks
    around at one, so the string's matches are its tokens' matches: the
    same evidence bits and best rank as the reference's token by token,
    without a memo of the tokens."""
    cdef long long bits, own, sign
    bits, own = scan(words.lower())
    sign = 0 if own < 0 else 1 if own >= strong_rank else -1 if own < meta_rank else 0
    found = (bits << evidence_shift, own, sign)
    if len(keyword_cache) >= cache_size:
        keyword_cache.clear()
    keyword_cache[words] = found
    return found


def container_flags(list tags, list attributes, const long long[::1] parents, const long long[::1] chars,
                    dict tag_codes, dict keyword_cache, scan, dict role_codes, tuple constants):
    """The keyword code of every container holding text and the sign of its
    own class / id (int64 and int8 arrays indexed like the containers): the loop of
    ``webclean_scrapy.engine.extractors.webclean.keywords.container_codes``, its
    reference, in C, with the reading of a class / id string missing from
    *keyword_cache* (``keywords._keywords``) by *scan* (the keyword
    matcher's ``fold``); *constants* are that module's code layout and memo
    bound."""
    return read_containers(tags, attributes, parents, chars, tag_codes, keyword_cache, scan, role_codes, constants,
                           None)[:2]


def container_flags_and_keys(list tags, list attributes, const long long[::1] parents, const long long[::1] chars,
                             dict tag_codes, dict keyword_cache, scan, dict role_codes, tuple constants,
                             group_memo):
    """:func:`container_flags` and, from the same reading of each container's
    class and id, what :func:`structure_keys` gives every container holding
    text (in order) from a fresh numbering: its ``STRUCTURE_GROUPS`` bits
    (uint8) and its (tag, class) key number (int32), and the number of keys.
    Why: the block features read every container's attributes for both,
    and a second pass over a page's scattered dicts costs as much as the
    first. *group_memo* is looked up by the keyword reading's string, its
    class and id joined by one space only when both are there (the group
    scan reads tokens: the same bits as ``structure_keys``' "class id")."""
    return read_containers(tags, attributes, parents, chars, tag_codes, keyword_cache, scan, role_codes, constants,
                           group_memo)


cdef tuple read_containers(list tags, list attributes, const long long[::1] parents, const long long[::1] chars,
                           dict tag_codes, dict keyword_cache, scan, dict role_codes, tuple constants, group_memo):
    """The loop of :func:`container_flags`, and :func:`container_flags_and_keys`'
    structure keys when *group_memo* is not ``None``."""
    cdef long long inherited, hidden_code, area, inner_mask, strong_code, code, evidence, parent
    cdef long long hidden_rank, comment_rank, content_rank, meta_rank, strong_rank, evidence_shift, own, inner
    cdef Py_ssize_t index, n = len(tags), cache_size
    cdef double half_page
    cdef bint keys_too = group_memo is not None
    cdef dict a, numbering = {}
    cdef object cls, ident, role, itemprop, words, found, sign
    (inherited, hidden_rank, hidden_code, comment_rank, area, content_rank, inner_mask, meta_rank,
     strong_code, strong_rank, evidence_shift, cache_size) = constants
    if keys_too and not isinstance(group_memo, dict):
        raise TypeError("the group memo is a dict")
    if len(attributes) != n or parents.shape[0] < n or chars.shape[0] < n:
        raise ValueError("one attribute table, parent and length per container")
    # Arrays, not lists: held for the whole scoring (a list holds a pointer
    # and, for a code above 256, an object per container); a child reads
    # its parent's code from the array.
    codes = np.zeros(n, dtype=np.int64)
    signs = np.zeros(n, dtype=np.int8)
    groups = np.zeros(n if keys_too else 0, dtype=np.uint8)
    keys = np.zeros(n if keys_too else 0, dtype=np.int32)
    if n == 0:
        return codes, signs, groups, keys, 0
    cdef long long[::1] code_of = codes
    cdef signed char[::1] sign_of = signs
    cdef unsigned char[::1] group_of = groups
    cdef int[::1] key_of = keys
    half_page = chars[0] / 2.0
    for index in range(n):
        if chars[index] == 0:
            continue
        parent = parents[index]
        code = tag_codes.get(tags[index], 0)
        if parent >= 0:
            code |= code_of[parent] & inherited
        a = attributes[index]
        cls = None
        if a:
            cls = a.get("class")
            ident = a.get("id")
            role = a.get("role")
            itemprop = a.get("itemprop")
            if cls or ident:
                words = cls + " " + ident if cls and ident else cls or ident
                found = keyword_cache.get(words)
                if not found:
                    found = string_keywords(words, keyword_cache, scan, cache_size, strong_rank, meta_rank,
                                            evidence_shift)
                evidence = found[0]
                own = found[1]
                sign = found[2]
                if own == hidden_rank and chars[index] > half_page:
                    # Most of the page "hidden": a class a script removes on load.
                    evidence &= ~hidden_code
                    own = -1
                code |= evidence
                if own >= 0:
                    if own == comment_rank and chars[index] <= half_page:
                        code |= area
                    inner = code & inner_mask
                    if own != content_rank or not (0 < inner <= meta_rank):
                        code = code & ~inner_mask | (own + 1)
                    sign_of[index] = sign
                if keys_too:
                    group_of[index] = memo_value(group_memo, words)
            if role:
                code |= <long long> role_codes.get(role.strip().lower(), 0)
            if itemprop and "articlebody" in itemprop.lower():
                code = code & ~inner_mask | strong_code
        code_of[index] = code
        if keys_too:
            key_of[index] = key_number(numbering, (tags[index], cls or None))
    return codes, signs, groups, keys, len(numbering)


def structure_keys(const int[::1] indexes, list tags, list attributes, group_memo, numbering,
                   unsigned char[::1] own, int[::1] keys):
    """Per container of *indexes* (in order): its ``STRUCTURE_GROUPS`` bits,
    read from *group_memo* (a dict subclass) by its ``"class id"`` string
    (``memo[words]``, which fills the memo for a string not yet seen), and
    the number of its (tag, class) key in *numbering* (a dict subclass,
    numbered in order of first use, as its ``__missing__`` does), written
    into *own* and *keys* at the container's index (no list per container,
    no conversion of one into the arrays). The reference is
    ``features._python_structure_keys``."""
    cdef Py_ssize_t k, index, n = min(len(tags), len(attributes), own.shape[0], keys.shape[0])
    cdef dict a
    cdef object cls, ident, words
    if not isinstance(group_memo, dict) or not isinstance(numbering, dict):
        raise TypeError("the memo and the numbering are dicts")
    for k in range(indexes.shape[0]):
        index = indexes[k]
        if not 0 <= index < n:
            raise IndexError(f"container {index} is past the arrays")
        a = <dict> attributes[index]
        if a:
            cls = a.get("class") or None
            ident = a.get("id") or ""
            words = (cls if cls is not None else "") + " " + ident
        else:
            cls = None
            words = " "
        own[index] = memo_value(group_memo, words)
        keys[index] = key_number(<dict> numbering, (tags[index], cls))


def depths(const long long[::1] parents, const unsigned char[::1] own):
    """Per container: its depth, the root 1 (int32), and the OR of its own
    and its ancestors' *own* bits (uint8), in one pass over the containers,
    parents before their children (``features._python_depths``, the
    reference, jumps pointers instead); ``None`` when a parent does not come
    before its child (the caller then runs the reference)."""
    cdef Py_ssize_t i, n = parents.shape[0]
    cdef long long parent
    if own.shape[0] != n:
        raise ValueError("one own value per container")
    depth = np.empty(n, dtype=np.int32)
    inherited = np.empty(n, dtype=np.uint8)
    cdef int[::1] depth_of = depth
    cdef unsigned char[::1] inherited_of = inherited
    for i in range(n):
        parent = parents[i]
        if parent < 0:
            depth_of[i] = 1
            inherited_of[i] = own[i]
        elif parent < i:
            depth_of[i] = depth_of[parent] + 1
            inherited_of[i] = own[i] | inherited_of[parent]
        else:
            return None
    return depth, inherited


def heading_levels(list tags, dict levels):
    """Per container, ``levels.get(tag, 0)`` (int8): its heading level, 0
    if not a heading. The reference is ``features._python_heading_levels``
    (``np.fromiter`` over ``map``, a method call and a conversion per
    container)."""
    cdef Py_ssize_t i, n = len(tags)
    cdef object found
    out = np.zeros(n, dtype=np.int8)
    cdef signed char[::1] level_of = out
    for i in range(n):
        found = levels.get(tags[i])
        if found is not None:
            level_of[i] = found
    return out


def tag_codes(list tags, const long long[::1] parents, dict codes, tuple layout):
    """Per container its own tag code (int8), the OR of its tag's and its
    ancestors' flag bits, the root's own excepted (int64), and how many
    containers have each counted tag (a list): ``page_type.reference.tag_codes``,
    its reference, in one pass (parents come before their children)."""
    cdef long long own_shift, counted_shift, code, parent
    cdef Py_ssize_t i, n = len(tags), counted_size
    cdef object found
    own_shift, counted_shift, counted_size = layout
    own = np.zeros(n, dtype=np.int8)
    flags = np.zeros(n, dtype=np.int64)
    counted = np.zeros(counted_size + 1, dtype=np.int64)
    cdef signed char[::1] own_of = own
    cdef long long[::1] flags_of = flags
    cdef long long[::1] count_of = counted
    for i in range(n):
        found = codes.get(tags[i])
        code = 0 if found is None else <long long> found
        count_of[code >> counted_shift] += 1
        own_of[i] = (code >> own_shift) & 7
        if i == 0:
            continue
        code &= (1LL << own_shift) - 1
        parent = parents[i]
        if parent >= 0:
            code |= flags_of[parent]
        flags_of[i] = code
    return own, flags, counted[1:].tolist()


def block_stats(const long long[::1] chars, const long long[::1] anchors, const long long[::1] holders,
                const long long[::1] ends, const long long[::1] flags, const signed char[::1] own,
                const long long[::1] parents, const long long[::1] share_bits, list texts):
    """The per-block sums and counts of ``page_type.page_signals``, in one
    pass over the blocks: its reference is ``page_type.reference.block_stats``
    (whose docstring lists what is returned). Every sum is of whole
    numbers, so the same as numpy's in any order."""
    cdef Py_ssize_t i, k, m = len(chars), n = len(flags), bits = len(share_bits)
    cdef long long c, a, bf, bo, above, linked_count = 0, long_chars = 0, sentence_chars = 0, max_chars = 0
    cdef long long short_count = 0, prose_blocks = 0, p_chars = 0, div_chars = 0, heading_count = 0
    cdef long long linked_headings = 0, headline_count = 0, headline_chars = 0, max_holder = 0, max_mass = 0
    cdef bint linked, heading
    cdef list short_texts = [], heading_texts = [], priced_texts = [], priced = []
    holder_sums = np.zeros(n, dtype=np.int64)
    mass = np.zeros(n, dtype=np.int64)
    under = np.zeros(bits, dtype=np.int64)
    headings = np.zeros(m, dtype=np.bool_)
    cdef long long[::1] holder_of = holder_sums
    cdef long long[::1] mass_of = mass
    cdef long long[::1] under_of = under
    cdef unsigned char[::1] heading_of = headings.view(np.uint8)
    for i in range(m):
        c = chars[i]
        a = anchors[i]
        linked = <double> a >= 0.8 * <double> c
        linked_count += linked
        if c >= 150:
            long_chars += c
        if ends[i] > 0:
            sentence_chars += c
        if c > max_chars:
            max_chars = c
        holder_of[holders[i]] += c
        if c <= 40:
            short_count += 1
            short_texts.append(texts[i])
        if c <= 60:
            priced.append(i)
            priced_texts.append(texts[i])
        if c >= 80 and <double> a < 0.3 * <double> c:
            prose_blocks += 1
            above = parents[holders[i]]
            mass_of[above if above >= 0 else 0] += c
        bf = flags[holders[i]]
        for k in range(bits):
            if bf & share_bits[k]:
                under_of[k] += c
        heading = (bf & share_bits[bits - 1]) != 0
        heading_of[i] = heading
        heading_count += heading
        linked_headings += heading and linked
        bo = own[holders[i]]
        if bo == 1:
            p_chars += c
        elif bo == 2:
            div_chars += c
        elif bo == 3:
            heading_texts.append(texts[i])
        if linked and a >= 25:
            headline_count += 1
            headline_chars += c
    for i in range(n):
        if holder_of[i] > max_holder:
            max_holder = holder_of[i]
        if mass_of[i] > max_mass:
            max_mass = mass_of[i]
    return (
        linked_count, long_chars, sentence_chars, max_chars, max_holder, short_count, prose_blocks, max_mass,
        under.tolist(), p_chars, div_chars, heading_count, linked_headings, headline_count, headline_chars,
        short_texts, heading_texts, np.array(priced, dtype=np.int64), priced_texts, headings,
    )


def repetition(const signed char[::1] own, const long long[::1] chars, const long long[::1] anchor_chars,
               const long long[::1] parents, list tags, list classes, const long long[::1] first_blocks,
               const long long[::1] last_blocks, const unsigned char[::1] price_mask,
               const unsigned char[::1] heading_blocks, first_group):
    """The repeated-group figures of ``page_type.signals._repetition_features``:
    its reference, ``page_type.reference.repetition`` (whose docstring lists
    what is returned), in C loops; *first_group* breaks ties
    (called with their first items, in order). Every sum is of whole numbers."""
    cdef Py_ssize_t i, k, n = len(own), m = len(price_mask), count = 0, live = 0
    cdef long long g, lo, hi, c, a, groups = 0, groups5 = 0, max_size = 0, best_chars = -1, top
    cdef bint has_price, has_heading, long_item
    cdef dict first_of = {}
    cdef list tied = []
    cdef object key
    if n == 0:
        return None
    items_array = np.empty(n, dtype=np.int64)
    cdef long long[::1] items = items_array
    for i in range(1, n):
        if (own[i] == 0 or own[i] == 2) and chars[i] > 0:
            items[count] = i
            count += 1
    if count < 3:
        return None
    group_array = np.empty(count, dtype=np.int64)
    sizes_array = np.zeros(n, dtype=np.int64)
    sums_array = np.zeros((2, n), dtype=np.int64)
    cdef long long[::1] group_of = group_array
    cdef long long[::1] size = sizes_array
    cdef long long[:, ::1] sums = sums_array  # chars, anchors, then the per-member counts
    for k in range(count):
        i = items[k]
        key = (parents[i], tags[i], classes[i])
        g = first_of.setdefault(key, i)
        group_of[k] = g
        size[g] += 1
    for k in range(count):
        g = group_of[k]
        if size[g] < 3:
            continue
        live += 1
        sums[0, g] += chars[items[k]]
        sums[1, g] += anchor_chars[items[k]]
    if live == 0:
        return None
    for i in range(n):
        if size[i] >= 3:
            groups += 1
            groups5 += size[i] >= 5
            if size[i] > max_size:
                max_size = size[i]
            if sums[0, i] > best_chars:
                best_chars = sums[0, i]
                tied = [i]
            elif sums[0, i] == best_chars:
                tied.append(i)
    top = tied[0] if len(tied) == 1 else first_group(tied)
    figures = (groups, groups5, max_size, top, size[top], sums[0, top], sums[1, top])
    # Per member (an item holding blocks): prices, headings, long unlinked text.
    price_cum_array = np.zeros(m + 1, dtype=np.int64)
    heading_cum_array = np.zeros(m + 1, dtype=np.int64)
    cdef long long[::1] price_cum = price_cum_array
    cdef long long[::1] heading_cum = heading_cum_array
    for i in range(m):
        price_cum[i + 1] = price_cum[i] + price_mask[i]
        heading_cum[i + 1] = heading_cum[i] + heading_blocks[i]
    cdef long long[::1] per = np.zeros(6, dtype=np.int64)
    cdef long long[:, ::1] member = np.zeros((6, n), dtype=np.int64)
    cdef bint any_member = False
    for k in range(count):
        g = group_of[k]
        i = items[k]
        if size[g] < 3 or first_blocks[i] < 0:
            continue
        any_member = True
        lo = first_blocks[i]
        hi = last_blocks[i] + 1
        has_price = price_cum[hi] - price_cum[lo] > 0
        has_heading = heading_cum[hi] - heading_cum[lo] > 0
        c = chars[i]
        a = anchor_chars[i]
        long_item = c >= 150 and <double> a < 0.3 * <double> c
        member[0, g] += has_price
        member[1, g] += has_heading
        member[2, g] += long_item
        member[3, g] += c if long_item else 0
        member[4, g] += a > 0 and c <= 400
        member[5, g] += c <= 200 and (has_price or has_heading)
    if not any_member:
        return figures + (None,)
    for k in range(6):
        for i in range(n):
            if member[k, i] > per[k]:
                per[k] = member[k, i]
    return figures + ((per[0], per[1], per[2], per[3], per[4], per[5]),)


def add_words(set tokens, str text, str prefix):
    """Add to *tokens* *prefix* (ASCII) joined to each run of two or more
    ASCII lower-case letters of *text*: ``tokens.update(map(prefix.__add__,
    page_type.reference.words(text)))``, its reference, with one new string per run
    and no copies of the text."""
    cdef Py_ssize_t j, start, end = 0, n = len(text), p = len(prefix)
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef unsigned char* out
    cdef object word
    cdef bytes head = prefix.encode("ascii")
    cdef const unsigned char* head_bytes = head
    while True:
        start = next_word(kind, data, n, end, &end)
        if start < 0:
            break
        word = PyUnicode_New(p + end - start, 127)
        out = PyUnicode_1BYTE_DATA(word)
        for j in range(p):
            out[j] = head_bytes[j]
        for j in range(start, end):
            out[p + j - start] = <unsigned char> PyUnicode_READ(kind, data, j)
        tokens.add(word)


def price_starts(str text, str symbols, str separators, str suffix_symbols, tuple codes):
    """Where the matches of ``page_type.reference.PRICE`` start in *text*, left to
    right and not overlapping, as ``finditer`` finds them (the reference,
    ``page_type.reference.price_starts``): a symbol of *symbols* with a digit
    after it, one whitespace character allowed between; or a digit, a run of
    digits and *separators*, then one of *suffix_symbols* or of the *codes*.
    Digits and whitespace are the regular expression's ``\\d`` and ``\\s``
    (``str.isdecimal``, ``str.isspace``).

    The run after a digit is greedy and none of the suffixes opens with a
    character of the run, so a suffix is only looked for where the run
    ends; where none is, no digit of the run starts a match either (each
    one's run ends there too), and the scan goes on from the run's end."""
    cdef Py_ssize_t i = 0, j, k, n = len(text), end, size
    cdef int kind = PyUnicode_KIND(text), symbols_kind = PyUnicode_KIND(symbols)
    cdef int separators_kind = PyUnicode_KIND(separators), suffix_kind = PyUnicode_KIND(suffix_symbols)
    cdef void* data = PyUnicode_DATA(text)
    cdef void* symbols_data = PyUnicode_DATA(symbols)
    cdef void* separators_data = PyUnicode_DATA(separators)
    cdef void* suffix_data = PyUnicode_DATA(suffix_symbols)
    cdef Py_ssize_t symbols_n = len(symbols), separators_n = len(separators), suffix_n = len(suffix_symbols)
    cdef Py_UCS4 c
    cdef str code
    cdef list starts = []
    # ASCII characters' roles, from the arguments: 1 a symbol, 2 a separator.
    cdef unsigned char[128] ascii
    for k in range(128):
        ascii[k] = one_of(<Py_UCS4> k, symbols_kind, symbols_data, symbols_n)
        ascii[k] |= 2 * one_of(<Py_UCS4> k, separators_kind, separators_data, separators_n)
    while i < n:
        c = PyUnicode_READ(kind, data, i)
        if c < 128 and not (48 <= c <= 57) and not ascii[c]:
            i += 1  # the common case: nothing a price opens with
            continue
        if c.isdecimal():
            j = i + 1
            while j < n:
                c = PyUnicode_READ(kind, data, j)
                if c < 128:
                    if not (48 <= c <= 57 or ascii[c] & 2):
                        break
                elif not (c.isdecimal() or one_of(c, separators_kind, separators_data, separators_n)):
                    break
                j += 1
            end = -1
            if j < n:
                if one_of(PyUnicode_READ(kind, data, j), suffix_kind, suffix_data, suffix_n):
                    end = j + 1
                else:
                    c = PyUnicode_READ(kind, data, j)
                    for code in codes:
                        size = len(code)
                        if <Py_UCS4> code[0] == c and text.startswith(code, j):
                            end = j + size
                            break
            if end >= 0:
                starts.append(i)
                i = end
            else:
                i = j
            continue
        if (ascii[c] & 1 if c < 128 else one_of(c, symbols_kind, symbols_data, symbols_n)) and i + 1 < n:
            c = PyUnicode_READ(kind, data, i + 1)
            if c.isdecimal():
                starts.append(i)
                i += 2
                continue
            if c.isspace() and i + 2 < n and PyUnicode_READ(kind, data, i + 2).isdecimal():
                starts.append(i)
                i += 3
                continue
        i += 1
    return starts


#: The fragments of :func:`link_figures`, at most this many.
DEF MAX_FRAGMENTS = 64
#: Buckets of fragments by their first two characters.
DEF PAIR_BUCKETS = 1024


cdef struct Fragments:
    Py_ssize_t count
    const unsigned char* text[MAX_FRAGMENTS]
    Py_ssize_t size[MAX_FRAGMENTS]
    Py_ssize_t chain[MAX_FRAGMENTS]  # the next fragment of the same bucket, -1 at the end
    Py_ssize_t heads[PAIR_BUCKETS]  # each bucket's first fragment, -1 for none
    bint starts[128]  # the characters a fragment starts with


cdef inline Py_ssize_t pair_bucket(unsigned int first, unsigned int second) noexcept nogil:
    return ((first << 5) ^ second) & (PAIR_BUCKETS - 1)


cdef inline unsigned int folded(unsigned int c, bint fold) noexcept nogil:
    """*c*, an ASCII capital lower-cased when *fold*."""
    return c + 32 if fold and 65 <= c <= 90 else c


cdef void count_fragments(const code_unit* s, Py_ssize_t n, bint fold, Fragments* fragments,
                          long long* counts) noexcept nogil:
    """Add to *counts* the occurrences of each of *fragments* in the *n*
    characters at *s* (their ASCII capitals lower-cased when *fold*), as
    ``str.count`` counts them: left to right, not overlapping. A position
    is tried only when its character starts a fragment, and then only the
    fragments sharing its first two characters."""
    cdef Py_ssize_t i, j, k, size
    cdef Py_ssize_t free_from[MAX_FRAGMENTS]
    cdef unsigned int c
    cdef const unsigned char* fragment
    for k in range(fragments.count):
        free_from[k] = 0
    for i in range(n - 1):
        c = folded(s[i], fold)
        if c >= 128 or not fragments.starts[c]:
            continue
        k = fragments.heads[pair_bucket(c, folded(s[i + 1], fold))]
        while k >= 0:
            size = fragments.size[k]
            if i >= free_from[k] and i + size <= n:
                fragment = fragments.text[k]
                j = 0
                while j < size and folded(s[i + j], fold) == fragment[j]:
                    j += 1
                if j == size:
                    counts[k] += 1
                    free_from[k] = i + size
            k = fragments.chain[k]


cdef void count_in(str text, bint fold, Fragments* fragments, long long* counts) noexcept:
    """:func:`count_fragments` over *text*, read as its kind's code units."""
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t n = len(text)
    if kind == 1:
        count_fragments(<const Py_UCS1*> data, n, fold, fragments, counts)
    elif kind == 2:
        count_fragments(<const Py_UCS2*> data, n, fold, fragments, counts)
    else:
        count_fragments(<const Py_UCS4*> data, n, fold, fragments, counts)


def link_figures(list hrefs, list fragments):
    """How many of the ``<a>`` elements' non-empty ``href`` values (*hrefs*,
    ``None`` for a link without one) name a slug, and how often each of
    *fragments* (ASCII bytes of two characters or more, at most 64) occurs
    in them lower-cased: ``page_type.reference.link_figures``, its reference,
    without joining the addresses. An ASCII address is lower-cased as it
    is read; any other by ``str.lower``."""
    cdef Py_ssize_t k, b, slugs = 0, n, end, cut
    cdef Fragments table
    cdef long long counts[MAX_FRAGMENTS]
    cdef str href
    cdef bytes fragment
    cdef object value
    if len(fragments) > MAX_FRAGMENTS:
        raise ValueError("at most 64 fragments")
    table.count = len(fragments)
    for b in range(PAIR_BUCKETS):
        table.heads[b] = -1
    for b in range(128):
        table.starts[b] = False
    for k in range(table.count - 1, -1, -1):
        fragment = fragments[k]
        if len(fragment) < 2 or not fragment.isascii():
            raise ValueError("fragments are ASCII, of two characters or more")
        table.text[k] = fragment  # held by the list
        table.size[k] = len(fragment)
        b = pair_bucket(fragment[0], fragment[1])
        table.chain[k] = table.heads[b]
        table.heads[b] = k
        table.starts[fragment[0]] = True
        counts[k] = 0
    for value in hrefs:
        if not value:
            continue
        href = value
        n = len(href)
        if PyUnicode_IS_ASCII(href):
            count_in(href, True, &table, counts)
        else:
            count_in(href.lower(), False, &table, counts)
        if n <= 20 or hyphens(href, 0, n) < 3:
            continue
        end = n
        while end > 0 and href[end - 1] == u"/":
            end -= 1
        cut = end - 1
        while cut >= 0 and href[cut] != u"/":
            cut -= 1
        slugs += hyphens(href, cut + 1, end) >= 3
    return slugs, [counts[k] for k in range(table.count)]


cdef Py_ssize_t table_slot(const long long* table, Py_ssize_t size, long long key) noexcept nogil:
    """The slot of *key* in an open-addressing table of *size* (a power of
    two) slots, -1 marking a free one: its own, or the free one it takes."""
    cdef Py_ssize_t at = <Py_ssize_t> ((<unsigned long long> key * 11400714819323198485ULL) >> 17) & (size - 1)
    while table[at] != -1 and table[at] != key:
        at = (at + 1) & (size - 1)
    return at


def structural_groups(list tags, list attributes, const long long[::1] parents, const long long[::1] holders,
                      Py_ssize_t min_repeats, Py_ssize_t max_levels, long long chain_step):
    """Per block: its consensus group's number, or -1 (``consensus.
    _python_structural_groups``, the reference, which the tests compare):
    the containers' (tag, class) keys numbered in order of first use, the
    siblings sharing one counted, each block's walk up from its holder to
    the first repeated container (at most *max_levels*), the chain of keys
    rolled as the reference rolls it (64 bits, wrapping), and the groups
    numbered in order of their first block. Why: the reference is a dozen
    numpy passes and two sorts, and its keys came with the structure
    groups' bits, which it does not read."""
    cdef Py_ssize_t nc = parents.shape[0], n = holders.shape[0], i, level, size = 16, at, count = 0
    cdef long long node, unit, parent, key, numbers = 0
    cdef unsigned long long chain, code
    cdef dict numbering = {}
    cdef dict a
    cdef object cls, found_key
    cdef PyObject* found
    if len(tags) != nc or len(attributes) != nc:
        raise ValueError("one tag and one attribute table per container")
    groups_array = np.full(n, -1, dtype=np.int64)
    cdef long long[::1] groups = groups_array
    if n == 0:
        return groups_array
    keys_array = np.empty(nc, dtype=np.int64)
    repeated_array = np.zeros(nc, dtype=np.uint8)
    cdef long long[::1] keys = keys_array
    cdef unsigned char[::1] repeated = repeated_array
    for i in range(nc):
        a = <dict> attributes[i]
        cls = (a.get("class") or None) if a else None
        found_key = (tags[i], cls)
        found = PyDict_GetItemWithError(numbering, found_key)
        if found is NULL:
            PyDict_SetItem(numbering, found_key, numbers)
            keys[i] = numbers
            numbers += 1
        else:
            keys[i] = <long long> <object> found
    # Siblings sharing a key: one count per (parent, key) pair.
    while size < 2 * nc:
        size *= 2
    table_array = np.full(size, -1, dtype=np.int64)
    tally_array = np.zeros(size, dtype=np.int64)
    slot_array = np.empty(nc, dtype=np.intp)
    cdef long long[::1] table = table_array, tally = tally_array
    cdef Py_ssize_t[::1] slot = slot_array
    for i in range(nc):
        parent = parents[i]
        if not -1 <= parent < nc:
            raise IndexError(f"container {i}'s parent {parent} is past the containers")
        key = (parent if parent > 0 else 0) * numbers + keys[i]
        at = table_slot(&table[0], size, key)
        table[at] = key
        tally[at] += 1
        slot[i] = at
    for i in range(nc):
        repeated[i] = tally[slot[i]] >= min_repeats
    repeated[0] = 0  # the root has no siblings
    # Each block's unit and chain; the groups numbered by first block, in a
    # table of the codes (any 64-bit value: a flag marks the slots taken).
    size = 16
    while size < 2 * n:
        size *= 2
    codes_array = np.empty(size, dtype=np.uint64)
    taken_array = np.zeros(size, dtype=np.uint8)
    number_array = np.empty(size, dtype=np.int64)
    cdef unsigned long long[::1] codes = codes_array
    cdef unsigned char[::1] taken = taken_array
    cdef long long[::1] number = number_array
    for i in range(n):
        node = holders[i]
        if not -1 <= node < nc:
            raise IndexError(f"block {i}'s holder {node} is past the containers")
        chain = 0
        unit = -1
        for level in range(max_levels):
            if node <= 0:
                break
            chain = chain * <unsigned long long> chain_step + <unsigned long long> keys[node] + 1
            if repeated[node]:
                unit = node
                break
            node = parents[node]
        if unit < 0:
            continue
        code = chain * <unsigned long long> chain_step + <unsigned long long> parents[unit]
        at = <Py_ssize_t> ((code * 11400714819323198485ULL) >> 17) & (size - 1)
        while taken[at] and codes[at] != code:
            at = (at + 1) & (size - 1)
        if not taken[at]:
            taken[at] = 1
            codes[at] = code
            number[at] = count
            count += 1
        groups[i] = number[at]
    return groups_array
