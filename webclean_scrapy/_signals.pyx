# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""Per-container loops of the page-type signals and of the block features'
keyword codes, compiled (see :mod:`webclean_scrapy.page_type`).

Why it exists: :func:`~webclean_scrapy.page_type.page_signals` reads every
container's attributes, every class / id name and every repeatable
container once per page, and the block features read every container's
class, id, role and itemprop again for its keyword code, in Python loops
of dictionary and string operations that cost a sixth of a bare parse
together. These are the same loops in C, doing the same operations in the
same order: the Python
functions they replace (``_attribute_names``, ``_unknown_names``,
``_family_counts``, ``_group_numbers``, ``_numeric_blocks`` in ``page_type``;
``_container_flags`` in the ``webclean`` extractor's ``keywords``) stay the
references and the fallbacks, and ``tests/test_signals.py`` compares both.
"""

cimport lxml.includes.etreepublic as cetree
from cpython.dict cimport PyDict_GetItem, PyDict_SetItem, PyDict_Size
from cpython.object cimport PyObject
from cpython.unicode cimport PyUnicode_DecodeUTF8
from libc.string cimport strcmp, strlen
from lxml.includes cimport tree

import numpy as np

cetree.import_lxml__etree()


cdef object href_of(element):
    """``element.get("href")``, read from the libxml2 node when the value is
    one text node (the HTML parser's way), else asked of lxml."""
    cdef tree.xmlNode* node
    cdef tree.xmlAttr* attr
    cdef tree.xmlNode* part
    if not isinstance(element, cetree._Element):
        return element.get("href")
    node = (<cetree._Element> element)._c_node
    if node is NULL:
        return element.get("href")
    attr = node.properties
    while attr is not NULL:
        if attr.ns is NULL and strcmp(<const char*> attr.name, b"href") == 0:
            break
        attr = attr.next
    if attr is NULL:
        return None
    part = attr.children
    if part is NULL:
        return ""
    if part.next is not NULL or part.type != tree.XML_TEXT_NODE or part.content is NULL:
        return element.get("href")
    try:
        return PyUnicode_DecodeUTF8(<char*> part.content, strlen(<char*> part.content), NULL)
    except UnicodeDecodeError:
        return element.get("href")


cdef Py_ssize_t hyphens(str text, Py_ssize_t start, Py_ssize_t stop):
    cdef Py_ssize_t i, found = 0
    for i in range(start, stop):
        found += text[i] == u"-"
    return found


def link_hrefs(list anchors):
    """The ``<a>`` elements' non-empty ``href`` values, in order, and how
    many of them name a slug (three hyphens or more in an address of more
    than 20 characters, and in its last path segment)."""
    cdef list hrefs = []
    cdef Py_ssize_t slugs = 0, end, cut
    cdef str href
    for element in anchors:
        value = href_of(element)
        if not value:
            continue
        hrefs.append(value)
        href = value
        if len(href) <= 20 or hyphens(href, 0, len(href)) < 3:
            continue
        end = len(href)
        while end > 0 and href[end - 1] == u"/":
            end -= 1
        cut = end - 1
        while cut >= 0 and href[cut] != u"/":
            cut -= 1
        slugs += hyphens(href, cut + 1, end) >= 3
    return hrefs, slugs


def attribute_names(list tags, list attributes, heading_tags):
    """Per container its ``class`` value (``""`` without one); the ``role``
    and ``itemprop`` values (lower-cased) in document order; how many
    headings have an ``id``; and each class / id name (the values
    lower-cased, split at whitespace) with how often it occurs."""
    cdef Py_ssize_t i, n = len(tags)
    cdef Py_ssize_t heading_ids = 0
    cdef list classes = [], ids = [], roles = [], itemprops = []
    cdef dict values = {}, name_counts = {}
    cdef dict a
    cdef object value, name, times
    for i in range(n):
        a = <dict> attributes[i]
        if not a:
            value = ""
        else:
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
        values[value] = values.get(value, 0) + 1
    for value in ids:  # after every class value, as Counter(classes).update(ids)
        values[value] = values.get(value, 0) + 1
    for value, times in values.items():
        for name in value.lower().split():
            name_counts[name] = name_counts.get(name, 0) + times
    return classes, roles, itemprops, heading_ids, name_counts


def unknown_names(dict names, dict known):
    """The keys of *names* not in *known*, in order."""
    cdef list missing = []
    cdef object name
    for name in names:
        if name not in known:
            missing.append(name)
    return missing


def family_counts(dict name_counts, dict name_bits, dict name_words, int groups):
    """Per family (bit *k* of *name_bits*' values), the summed counts of the
    names carrying it; and the union of the names' words."""
    cdef long long[64] counts
    cdef long long bits, times
    cdef int k
    cdef set words = set()
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
        words.update(<tuple> name_words[name])
    return [counts[k] for k in range(groups)], words


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


cdef tuple string_keywords(str words, dict keyword_cache, dict token_cache, token_keywords,
                           Py_ssize_t cache_size, long long strong_rank, long long meta_rank,
                           long long evidence_shift):
    """``keywords._keywords(words)`` for a string missing from *keyword_cache*
    (which it then holds): each token's packed bits from *token_cache*, or
    from *token_keywords* (the regular expression, which fills it)."""
    cdef long long bits = 0, own = -1, rank, packed, sign
    cdef object token, known
    for token in words.lower().split():
        known = token_cache.get(token)
        if known is None:
            known = token_keywords(token)
        packed = known
        bits |= packed >> 4
        rank = (packed & 15) - 1
        if rank >= 0 and (own < 0 or rank < own):
            own = rank
        # (own: the best group rank of any token, -1 for none)
    sign = 0 if own < 0 else 1 if own >= strong_rank else -1 if own < meta_rank else 0
    found = (bits << evidence_shift, own, sign)
    if len(keyword_cache) >= cache_size:
        keyword_cache.clear()
    keyword_cache[words] = found
    return found


def container_flags(list tags, list attributes, const long long[::1] parents, const long long[::1] chars,
                    dict tag_codes, dict keyword_cache, dict token_cache, token_keywords, dict role_codes,
                    tuple constants):
    """The keyword code of every container holding text and the sign of its
    own class / id (int64 and int8 arrays indexed like the containers): the loop of
    ``webclean_scrapy.extractors.webclean.keywords._container_flags``, its
    reference, in C, with the reading of a class / id string missing from
    *keyword_cache* (``keywords._keywords``); *token_keywords* reads a token
    missing from *token_cache*, and *constants* are that module's code
    layout and memo bound."""
    cdef long long inherited, hidden_code, area, inner_mask, strong_code, code, evidence, parent
    cdef long long hidden_rank, comment_rank, content_rank, meta_rank, strong_rank, evidence_shift, own, inner
    cdef Py_ssize_t index, n = len(tags), cache_size
    cdef double half_page
    cdef object a, cls, ident, role, itemprop, words, found, sign
    (inherited, hidden_rank, hidden_code, comment_rank, area, content_rank, inner_mask, meta_rank,
     strong_code, strong_rank, evidence_shift, cache_size) = constants
    # Arrays, not lists: held for the whole scoring (a list holds a pointer
    # and, for a code above 256, an object per container); a child reads
    # its parent's code from the array.
    codes = np.zeros(n, dtype=np.int64)
    signs = np.zeros(n, dtype=np.int8)
    if n == 0:
        return codes, signs
    cdef long long[::1] code_of = codes
    cdef signed char[::1] sign_of = signs
    half_page = chars[0] / 2.0
    for index in range(n):
        if chars[index] == 0:
            continue
        parent = parents[index]
        code = tag_codes.get(tags[index], 0)
        if parent >= 0:
            code |= code_of[parent] & inherited
        a = attributes[index]
        if a:
            cls = a.get("class")
            ident = a.get("id")
            role = a.get("role")
            itemprop = a.get("itemprop")
            if cls or ident:
                words = cls + " " + ident if cls and ident else cls or ident
                found = keyword_cache.get(words)
                if not found:
                    found = string_keywords(words, keyword_cache, token_cache, token_keywords, cache_size,
                                            strong_rank, meta_rank, evidence_shift)
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
            if role:
                code |= <long long> role_codes.get(role.strip().lower(), 0)
            if itemprop and "articlebody" in itemprop.lower():
                code = code & ~inner_mask | strong_code
        code_of[index] = code
    return codes, signs


def name_words(list names, singles):
    """Per name, ``tuple(page_type._words(name))``: its runs of ASCII
    lower-case letters, single letters (*singles*) dropped. The set is built
    the same way (from the runs in order, then the singles taken out), so
    even the tuple's order is the reference's."""
    cdef list out = [], runs
    cdef str name
    cdef Py_ssize_t i, start, n
    cdef Py_UCS4 c
    cdef set found
    for name in names:
        runs = []
        n = len(name)
        start = -1
        for i in range(n):
            c = name[i]
            if 97 <= c <= 122:
                if start < 0:
                    start = i
            elif start >= 0:
                runs.append(name[start:i])
                start = -1
        if start >= 0:
            runs.append(name[start:n])
        found = set(runs)
        found -= singles
        out.append(tuple(found))
    return out


def structure_keys(list indexes, list tags, list attributes, group_memo, numbering):
    """Per container of *indexes* (in order): its ``STRUCTURE_GROUPS`` bits,
    read from *group_memo* (a dict subclass) by its ``"class id"`` string
    (``memo[words]``, which fills the memo for a string not yet seen), and
    the number of its (tag, class) key in *numbering* (a dict subclass,
    numbered in order of first use, as its ``__missing__`` does). The
    reference is ``features._python_structure_keys``."""
    cdef list own = [], keys = []
    cdef dict a
    cdef object index, cls, ident, words, bits, key, number
    cdef PyObject* found
    if not isinstance(group_memo, dict) or not isinstance(numbering, dict):
        raise TypeError("the memo and the numbering are dicts")
    for index in indexes:
        a = <dict> attributes[index]
        if a:
            cls = a.get("class") or None
            ident = a.get("id") or ""
            words = (cls if cls is not None else "") + " " + ident
        else:
            cls = None
            words = " "
        found = PyDict_GetItem(group_memo, words)
        if found is NULL:
            bits = group_memo[words]  # the memo's __missing__ computes and keeps it
        else:
            bits = <object> found
        own.append(bits)
        key = (tags[index], cls)
        found = PyDict_GetItem(numbering, key)
        if found is NULL:
            number = PyDict_Size(numbering)
            PyDict_SetItem(numbering, key, number)
        else:
            number = <object> found
        keys.append(number)
    return own, keys
