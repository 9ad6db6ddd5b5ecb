# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""The document walk of :class:`webclean_scrapy.engine.document.Document`, compiled.

Why it exists: walking the tree through lxml's Python API costs two events
and an element proxy per element plus a Python call per text piece -- more
than parsing the page. This module reads the same libxml2 nodes directly
(the tree lxml already built: nothing is re-parsed, nor changed unless
asked to free what it has read, see :func:`walk`) and returns
the same tables as :func:`webclean_scrapy.engine.html.walk.walk`, the pure-Python walk,
which stays the reference (the tests compare both, column by column, on
edge cases and on dataset pages) and the fallback when this extension was
not built or the tree is not an HTML document. The only Python objects
made per block are its two strings, per container its tag (shared) and
its attribute dict (one empty dict shared by the page's containers without
descriptive attributes): the numbers go to C arrays, one per column,
handed over as one ``bytearray`` per column (no transposed copy), and the
punctuation marks sparse (a row per block and mark present).

The walk holds the GIL, but the Python callbacks it makes (the style
pattern) let other threads run in between, so no other thread may modify
the tree meanwhile -- the same contract as any lxml traversal; the Scrapy
components extract a response before any callback sees it.

The walk visits nodes in document order: an element's start, its text
nodes and children, its end, then its siblings (its ``tail``). That is the
order of ``lxml.etree.iterwalk`` with ``.text`` after each start and
``.tail`` after each end, so every rule of the Python walk carries over.
"""

from cpython.bytearray cimport PyByteArray_AS_STRING, PyByteArray_Resize
from cpython.object cimport PyObject
from cpython.unicode cimport PyUnicode_DecodeUTF8
from libc.stdint cimport int64_t
from libc.stdlib cimport free, realloc
from libc.string cimport memcmp, memcpy, memset, strcmp, strlen

cimport lxml.includes.etreepublic as cetree
from lxml.includes cimport tree

cdef extern from "Python.h":
    bint PyUnicode_IS_ASCII(object text)

cetree.import_lxml__etree()

# libxml2's own functions to unlink and free a node, for the walk that frees
# what it has read (see :func:`walk`'s *release*). lxml links libxml2 into
# its extension and exports its symbols, so they are looked up there at run
# time (``dlsym``); not found, nothing is freed and the walk is the same.
ctypedef void (*node_function)(tree.xmlNode*) noexcept nogil
cdef node_function xml_unlink_node = NULL
cdef node_function xml_free_node = NULL


def _bind_node_functions() -> bool:
    """Find ``xmlUnlinkNode`` and ``xmlFreeNode`` in lxml's extension;
    whether both were found."""
    global xml_unlink_node, xml_free_node
    try:
        import ctypes
        import lxml.etree

        library = ctypes.CDLL(lxml.etree.__file__)
        unlink = ctypes.cast(library.xmlUnlinkNode, ctypes.c_void_p).value
        free_node = ctypes.cast(library.xmlFreeNode, ctypes.c_void_p).value
    except (OSError, AttributeError):
        return False
    if not unlink or not free_node:
        return False
    xml_unlink_node = <node_function> <size_t> unlink
    xml_free_node = <node_function> <size_t> free_node
    return True


#: Whether :func:`walk` can free the nodes it has read (*release*).
CAN_RELEASE: bool = _bind_node_functions()

#: Tag kinds, as :func:`walk`'s *kinds* mapping gives them.
cdef enum:
    KIND_INLINE = 0
    KIND_STRUCTURAL = 1   # opens a container
    KIND_BREAK = 2        # cuts the string, holds no text (br, hr)
    KIND_DROPPED = 3      # never rendered
    KIND_DROPPED_STRUCTURAL = 4
    KIND_ANCHOR = 5
    TAG_CACHE_SIZE = 64  # a power of two

#: The columns of the tables, in the order :func:`walk` returns them
#: (``columns.BlockColumns`` and ``columns.ContainerColumns`` read them
#: in this order).
cdef enum:
    B_POSITION = 0
    B_HOLDER = 1
    B_CHARS = 2
    B_ANCHOR_CHARS = 3
    BLOCK_FIELDS = 4
    MAX_MARKS = 32        # a power of two: a mark entry's key is block * MAX_MARKS + mark
    MARK_KEY = 0          # the two columns of the (sparse) mark counts
    MARK_COUNT = 1
    MARK_FIELDS = 2
    C_PARENT = 0
    C_FIRST = 1
    C_LAST = 2
    C_CHARS = 3
    C_ANCHOR_CHARS = 4
    CONTAINER_FIELDS = 5
    MAX_FIELDS = 8


cdef struct Buffer:
    char* data
    Py_ssize_t size
    Py_ssize_t capacity


cdef int buffer_reserve(Buffer* buf, Py_ssize_t needed) except -1:
    """Make room for *needed* bytes in all."""
    cdef char* grown
    if needed > buf.capacity:
        grown = <char*> realloc(buf.data, needed * 2 + 64)
        if grown is NULL:
            raise MemoryError()
        buf.data = grown
        buf.capacity = needed * 2 + 64
    return 0


cdef int buffer_append(Buffer* buf, const char* text, Py_ssize_t length) except -1:
    buffer_reserve(buf, buf.size + length)
    memcpy(buf.data + buf.size, text, length)
    buf.size += length
    return 0


cdef class Table:
    """Columns of int64, ``fields`` of them, grown a row at a time. Each
    column is stored in a ``bytearray`` of its own, handed over as it is:
    no transposed copy, and no second copy to hand it to numpy."""

    cdef int64_t* columns[MAX_FIELDS]
    cdef list arrays            # the columns' storage, one bytearray each
    cdef Py_ssize_t size        # rows
    cdef Py_ssize_t capacity    # rows
    cdef Py_ssize_t fields

    def __cinit__(self, Py_ssize_t fields):
        if fields > MAX_FIELDS:
            raise ValueError(f"at most {MAX_FIELDS} columns")
        memset(self.columns, 0, sizeof(self.columns))
        self.arrays = [bytearray() for _ in range(fields)]
        self.size = self.capacity = 0
        self.fields = fields

    cdef int reserve(self, Py_ssize_t capacity) except -1:
        """Room for *capacity* rows in all. Pages of a reservation never
        written to are never touched, so an upper bound costs nothing."""
        cdef Py_ssize_t field
        cdef bytearray array
        if capacity > self.capacity:
            for field in range(self.fields):
                array = self.arrays[field]
                PyByteArray_Resize(array, capacity * sizeof(int64_t))
                self.columns[field] = <int64_t*> PyByteArray_AS_STRING(array)
            self.capacity = capacity
        return 0

    cdef Py_ssize_t add(self) except -1:
        """A new row (uninitialised) at the end: its index."""
        if self.size == self.capacity:
            self.reserve(self.capacity + (self.capacity >> 1) + 64)
        self.size += 1
        return self.size - 1

    cdef tuple take(self):
        """The columns, each a ``bytearray`` of ``size`` int64s, in field
        order; the table is empty after."""
        cdef Py_ssize_t field
        for field in range(self.fields):
            PyByteArray_Resize(self.arrays[field], self.size * sizeof(int64_t))
            self.columns[field] = NULL
        out = tuple(self.arrays)
        self.arrays = [bytearray() for _ in range(self.fields)]
        self.size = self.capacity = 0
        return out


cdef struct NodeStack:
    tree.xmlNode** nodes
    Py_ssize_t size
    Py_ssize_t capacity


cdef int stack_push(NodeStack* stack, tree.xmlNode* node) except -1:
    cdef tree.xmlNode** grown
    if stack.size == stack.capacity:
        grown = <tree.xmlNode**> realloc(stack.nodes, (stack.capacity * 2 + 16) * sizeof(tree.xmlNode*))
        if grown is NULL:
            raise MemoryError()
        stack.nodes = grown
        stack.capacity = stack.capacity * 2 + 16
    stack.nodes[stack.size] = node
    stack.size += 1
    return 0


cdef inline Py_ssize_t space_length(const unsigned char* s, Py_ssize_t i, Py_ssize_t n) noexcept nogil:
    """The length in bytes of the whitespace character at ``s[i]`` (0: none).

    Whitespace is what ``str.split()`` splits on (``str.isspace``): ASCII
    \\t-\\r, \\x1c-\\x1f and space; U+0085, U+00A0, U+1680, U+2000-U+200A,
    U+2028, U+2029, U+202F, U+205F and U+3000 (``tests/test_engine_html_walk.py``
    checks this against every code point). Each starts with an ASCII or a
    lead byte, never a continuation byte, so a scan byte by byte finds them
    where the UTF-8 decoder does, invalid bytes around them included.
    """
    cdef unsigned char c = s[i]
    if c < 0x80:
        return c == 0x20 or 0x09 <= c <= 0x0D or 0x1C <= c <= 0x1F
    if c == 0xC2:
        return 2 if i + 1 < n and (s[i + 1] == 0x85 or s[i + 1] == 0xA0) else 0
    if i + 2 >= n:
        return 0
    if c == 0xE2:
        if s[i + 1] == 0x80:
            c = s[i + 2]
            return 3 if 0x80 <= c <= 0x8A or c == 0xA8 or c == 0xA9 or c == 0xAF else 0
        return 3 if s[i + 1] == 0x81 and s[i + 2] == 0x9F else 0
    if c == 0xE1:
        return 3 if s[i + 1] == 0x9A and s[i + 2] == 0x80 else 0
    if c == 0xE3:
        return 3 if s[i + 1] == 0x80 and s[i + 2] == 0x80 else 0
    return 0


# The punctuation marks to count (UTF-8), and for each possible first byte
# the marks that start with it, as a bit mask.
cdef struct Marks:
    unsigned int starting[256]
    # 1 for a byte copied as it is: neither the start of a whitespace
    # character nor of a mark (most of a text's bytes).
    unsigned char plain[256]
    const char* text[MAX_MARKS]
    Py_ssize_t length[MAX_MARKS]
    int count


cdef int marks_init(Marks* marks, tuple texts) except -1:
    """Fill *marks* from *texts* (distinct characters as UTF-8 ``bytes``,
    kept alive by the caller)."""
    cdef bytes mark
    cdef int k
    if len(texts) > MAX_MARKS:
        raise ValueError(f"at most {MAX_MARKS} punctuation marks can be counted")
    memset(marks.starting, 0, sizeof(marks.starting))
    marks.count = len(texts)
    for k, mark in enumerate(texts):
        marks.text[k] = <const char*> mark
        marks.length[k] = len(mark)
        marks.starting[<unsigned char> mark[0]] |= 1u << k
    plain_bytes(marks.plain, marks.starting)
    return 0


cdef void plain_bytes(unsigned char* plain, const unsigned int* starting) noexcept:
    """Fill *plain* (256 entries): 1 for a byte that starts neither a
    whitespace character (:func:`space_length`) nor, with *starting*, a mark."""
    cdef int c
    for c in range(256):
        plain[c] = not (c < 0x80 and (c == 0x20 or 0x09 <= c <= 0x0D or 0x1C <= c <= 0x1F)
                        or c == 0xC2 or c == 0xE1 or c == 0xE2 or c == 0xE3
                        or starting is not NULL and starting[c])


# The plain bytes when no mark is counted.
cdef unsigned char PLAIN_NO_MARKS[256]
plain_bytes(PLAIN_NO_MARKS, NULL)


cdef Py_ssize_t collapse(const char* data, Py_ssize_t n, Buffer* out, Marks* marks, int64_t* counts) except -1:
    """Write ``" ".join(text.split())`` of the UTF-8 *data* to *out*, still
    as UTF-8; return the number of spaces written (words - 1). With *marks*,
    add to ``counts[k]`` each occurrence of mark *k* on the way.

    One pass over bytes instead of a ``str`` per word: splitting and joining
    in Python was half of the walk's cost. Marks, like whitespace, start
    with an ASCII or a lead byte, so they are found where the decoder finds
    them.
    """
    cdef const unsigned char* s = <const unsigned char*> data
    cdef Py_ssize_t i = 0, j = 0, length, spaces = 0
    cdef bint gap = False  # whitespace seen since the last byte written
    cdef unsigned int candidates
    cdef int k
    cdef const unsigned char* plain = PLAIN_NO_MARKS
    if marks is not NULL:
        plain = &marks.plain[0]
    buffer_reserve(out, n)
    while i < n:
        if plain[s[i]]:
            # A run of bytes copied as they are (what the steps below do
            # to each of them), after the space a gap before it leaves.
            if gap:
                out.data[j] = b' '
                j += 1
                spaces += 1
                gap = False
            out.data[j] = data[i]
            j += 1
            i += 1
            while i < n and plain[s[i]]:
                out.data[j] = data[i]
                j += 1
                i += 1
            continue
        length = space_length(s, i, n)
        if length:
            gap = j > 0
            i += length
            continue
        if gap:
            out.data[j] = b' '
            j += 1
            spaces += 1
            gap = False
        if marks is not NULL:
            candidates = marks.starting[s[i]]
            if candidates:
                for k in range(marks.count):
                    if (candidates >> k & 1 and i + marks.length[k] <= n
                            and memcmp(data + i, marks.text[k], marks.length[k]) == 0):
                        counts[k] += 1
                        break
        out.data[j] = data[i]
        j += 1
        i += 1
    out.size = j
    return spaces


def collapse_whitespace(bytes data, tuple marks=()) -> tuple:
    """:func:`collapse` for tests: ``(collapsed text, spaces written, counts of *marks*)``."""
    cdef Buffer out
    cdef Marks table
    cdef int64_t counts[MAX_MARKS]
    cdef Py_ssize_t spaces
    marks_init(&table, marks)
    memset(counts, 0, sizeof(counts))
    out.data = NULL
    out.size = out.capacity = 0
    try:
        spaces = collapse(data, len(data), &out, &table, counts)
        return (PyUnicode_DecodeUTF8(out.data, out.size, "replace"), spaces,
                [counts[k] for k in range(table.count)])
    finally:
        free(out.data)


cdef int count_nodes(tree.xmlNode* top, dict kinds, Py_ssize_t* containers, Py_ssize_t* blocks) except -1:
    """Upper bounds of the containers and blocks the walk of *top* makes:
    the elements that open a container (*top* too), and the text nodes or
    the cuts, whichever are fewer (a block holds text, and ends at a cut:
    a structural or break tag's start, a container's end, the page's end).
    The columns of a page the walk may free (a large one) are then sized
    once instead of grown: growing a dozen arrays side by side leaves the C
    heap full of holes on a page of a million blocks."""
    cdef tree.xmlNode* node = top
    cdef Py_ssize_t opening = 0, cutting = 0, texts = 0
    cdef const unsigned char* cache_names[TAG_CACHE_SIZE]
    cdef int cache_kinds[TAG_CACHE_SIZE]
    cdef size_t slot
    cdef int kind
    memset(cache_names, 0, sizeof(cache_names))
    while True:
        if node.type == tree.XML_ELEMENT_NODE:
            slot = (<size_t> node.name >> 4) & (TAG_CACHE_SIZE - 1)
            if node.ns is NULL and cache_names[slot] == node.name:
                kind = cache_kinds[slot]
            else:
                kind = kinds.get(tag_of(node), KIND_INLINE)
                if node.ns is NULL:
                    cache_names[slot] = node.name
                    cache_kinds[slot] = kind
            opening += kind == KIND_STRUCTURAL
            cutting += kind == KIND_STRUCTURAL or kind == KIND_BREAK or kind == KIND_DROPPED_STRUCTURAL
        elif node.type == tree.XML_TEXT_NODE or node.type == tree.XML_CDATA_SECTION_NODE:
            texts += 1
        if node.type == tree.XML_ELEMENT_NODE and node.children is not NULL:
            node = node.children
            continue
        while node is not top and node.next is NULL:
            node = node.parent
        if node is top:
            break
        node = node.next
    containers[0] = opening + 1
    blocks[0] = min(texts, cutting + opening + 1)
    return 0


cdef bint named_in(const unsigned char* name, tuple names):
    """Whether *name* is one of *names* (``bytes``)."""
    cdef bytes candidate
    for candidate in names:
        if strcmp(<const char*> name, <const char*> candidate) == 0:
            return True
    return False


cdef bint is_kept(tree.xmlNode* node, tuple tags, tuple attributes):
    """Whether the freeing walk must keep *node* with its subtree: an element
    of *tags* or carrying one of *attributes* (by local name, whatever the
    namespace), or any node a Python proxy points to."""
    cdef tree.xmlAttr* attr
    if node._private is not NULL:
        return True
    if node.type != tree.XML_ELEMENT_NODE:
        return False
    if named_in(node.name, tags):
        return True
    attr = node.properties
    while attr is not NULL:
        if named_in(attr.name, attributes):
            return True
        attr = attr.next
    return False


cdef bint holds_kept(tree.xmlNode* top, tuple tags, tuple attributes):
    """Whether *top* or a node below it is kept (:func:`is_kept`): the
    subtrees the walk skips are scanned for it before they are freed."""
    cdef tree.xmlNode* node = top
    while True:
        if is_kept(node, tags, attributes):
            return True
        if node.type == tree.XML_ELEMENT_NODE and node.children is not NULL:
            node = node.children
            continue
        while node is not top and node.next is NULL:
            node = node.parent
        if node is top:
            return False
        node = node.next


cdef bint prune_below(tree.xmlNode* parent, tuple tags, tuple attributes) noexcept:
    """Free what the freeing walk would below *parent*, a subtree it skips
    (hidden) that holds a kept node: each child kept whole, holding one
    (pruned in turn), or freed with the text nodes following it. Returns
    whether anything was freed."""
    cdef tree.xmlNode* child = parent.children
    cdef tree.xmlNode* following
    cdef bint after_freed = False, freed = False
    while child is not NULL:
        following = child.next
        if child.type == tree.XML_TEXT_NODE or child.type == tree.XML_CDATA_SECTION_NODE:
            if after_freed:
                xml_unlink_node(child)
                xml_free_node(child)
        elif is_kept(child, tags, attributes):
            after_freed = False
        elif holds_kept(child, tags, attributes):
            freed |= prune_below(child, tags, attributes)
            after_freed = False
        else:
            xml_unlink_node(child)
            xml_free_node(child)
            after_freed = freed = True
        child = following
    return freed


cdef int flags_reserve(unsigned char** flags, Py_ssize_t* capacity, Py_ssize_t needed) except -1:
    """Room for ``needed`` entries in the array of one flag per open level."""
    cdef unsigned char* grown
    if needed > capacity[0]:
        grown = <unsigned char*> realloc(flags[0], needed * 2 + 64)
        if grown is NULL:
            raise MemoryError()
        flags[0] = grown
        capacity[0] = needed * 2 + 64
    return 0


cdef str attribute_value(tree.xmlAttr* attr):
    """An attribute's value as lxml's ``get`` returns it (``""`` for a bare one)."""
    cdef tree.xmlNode* part = attr.children
    cdef Buffer buf
    if part is NULL:
        return ""
    if part.next is NULL and part.content is not NULL:
        return PyUnicode_DecodeUTF8(<char*> part.content, strlen(<char*> part.content), "replace")
    buf.data = NULL
    buf.size = buf.capacity = 0
    try:
        while part is not NULL:
            if part.content is not NULL:
                buffer_append(&buf, <char*> part.content, strlen(<char*> part.content))
            part = part.next
        return PyUnicode_DecodeUTF8(buf.data, buf.size, "replace") if buf.size else ""
    finally:
        free(buf.data)


cdef str tag_of(tree.xmlNode* node):
    """``element.tag`` as lxml spells it: the name, ``{uri}name`` with a namespace."""
    cdef str name = PyUnicode_DecodeUTF8(<char*> node.name, strlen(<char*> node.name), "replace")
    if node.ns is not NULL and node.ns.href is not NULL:
        return "{%s}%s" % (PyUnicode_DecodeUTF8(<char*> node.ns.href, strlen(<char*> node.ns.href), "replace"), name)
    return name


def is_html_tree(root) -> bool:
    """Can :func:`walk` read this tree? (An lxml element of an HTML document.)"""
    if not isinstance(root, cetree._Element):
        return False
    cdef tree.xmlNode* node = (<cetree._Element> root)._c_node
    return (node is not NULL and node.type == tree.XML_ELEMENT_NODE and node.doc is not NULL
            and node.doc.type == tree.XML_HTML_DOCUMENT_NODE)


cdef class _Walk:
    """State of one walk: the open string (and its text inside links), the
    open container, and the tables being filled: blocks, their punctuation
    marks (one row per block and mark counted at least once) and
    containers."""

    cdef Buffer text
    cdef Buffer anchor
    cdef Buffer collapsed       # scratch space of cut()
    cdef Marks marks            # the punctuation counted per block
    cdef Table blocks
    cdef Table mark_counts
    cdef Table containers
    cdef list texts
    cdef list anchor_texts
    cdef Py_ssize_t current     # the open container's row
    cdef Py_ssize_t position

    def __cinit__(self):
        self.text.data = self.anchor.data = self.collapsed.data = NULL
        self.text.size = self.text.capacity = self.anchor.size = self.anchor.capacity = 0
        self.collapsed.size = self.collapsed.capacity = 0
        self.blocks = Table(BLOCK_FIELDS)
        self.mark_counts = Table(MARK_FIELDS)
        self.containers = Table(CONTAINER_FIELDS)

    def __dealloc__(self):
        free(self.text.data)
        free(self.anchor.data)
        free(self.collapsed.data)

    cdef int add_text(self, const char* content, bint in_anchor) except -1:
        cdef Py_ssize_t length = strlen(content)
        buffer_append(&self.text, content, length)
        if in_anchor:
            buffer_append(&self.anchor, content, length)
        return 0

    cdef int cut(self) except -1:
        """End the current string: a block if it holds text, else nothing.

        Whitespace is collapsed as ``" ".join(text.split())`` collapses it
        in the Python walk (:func:`collapse`), so Unicode spaces (no-break,
        ideographic...) count as whitespace there and here.
        """
        cdef str text, anchor
        cdef int64_t chars, anchor_chars = 0, spaces
        cdef Py_ssize_t row, entry
        cdef int k
        cdef int64_t counts[MAX_MARKS]
        memset(counts, 0, sizeof(counts))
        spaces = collapse(self.text.data, self.text.size, &self.collapsed, &self.marks, counts)
        if self.collapsed.size:
            text = PyUnicode_DecodeUTF8(self.collapsed.data, self.collapsed.size, "replace")
            chars = len(text) - spaces
            anchor = ""
            if self.anchor.size:
                spaces = collapse(self.anchor.data, self.anchor.size, &self.collapsed, NULL, NULL)
                if self.collapsed.size:
                    anchor = PyUnicode_DecodeUTF8(self.collapsed.data, self.collapsed.size, "replace")
                    anchor_chars = len(anchor) - spaces
            self.texts.append(text)
            self.anchor_texts.append(anchor)
            row = self.blocks.add()
            self.blocks.columns[B_POSITION][row] = self.position
            self.blocks.columns[B_HOLDER][row] = self.current
            self.blocks.columns[B_CHARS][row] = chars
            self.blocks.columns[B_ANCHOR_CHARS][row] = anchor_chars
            for k in range(self.marks.count):
                if counts[k]:
                    entry = self.mark_counts.add()
                    self.mark_counts.columns[MARK_KEY][entry] = row * MAX_MARKS + k
                    self.mark_counts.columns[MARK_COUNT][entry] = counts[k]
            self.containers.columns[C_CHARS][self.current] += chars
            self.containers.columns[C_ANCHOR_CHARS][self.current] += anchor_chars
        self.text.size = 0
        self.anchor.size = 0
        return 0

    cdef int open(self, Py_ssize_t parent) except -1:
        """Start a container (the new open one) below row *parent* (-1: none)."""
        cdef Py_ssize_t row = self.containers.add()
        cdef int64_t** columns = self.containers.columns
        columns[C_PARENT][row] = parent
        columns[C_FIRST][row] = self.blocks.size
        columns[C_LAST][row] = -1
        columns[C_CHARS][row] = columns[C_ANCHOR_CHARS][row] = 0
        self.current = row
        return 0

    cdef void close(self) noexcept:
        """Finish the open container: fix its block range (both -1 without
        text), add its totals to its parent, which becomes the open one."""
        cdef int64_t** columns = self.containers.columns
        cdef Py_ssize_t row = self.current
        cdef int64_t parent = columns[C_PARENT][row]
        if self.blocks.size > columns[C_FIRST][row]:
            columns[C_LAST][row] = self.blocks.size - 1
        else:
            columns[C_FIRST][row] = -1
        if parent >= 0:
            columns[C_CHARS][parent] += columns[C_CHARS][row]
            columns[C_ANCHOR_CHARS][parent] += columns[C_ANCHOR_CHARS][row]
        self.current = parent


def walk(root, dict kinds, hidden_style, tuple descriptive, tuple marks, list elements=None, bint reveal=False,
         frozenset revealable=frozenset(), tuple release=None):
    """Walk *root* exactly as :func:`webclean_scrapy.engine.html.walk.walk` (the
    reference, in Python) does; return its tables.

    Returns ``(texts, anchor_texts, block_columns, mark_columns, tags,
    attributes, container_columns, concealed)``: per block its text and the text
    inside its links, per container its tag and its *descriptive*
    attributes (a dict; the containers without any share one empty dict),
    and each table's numbers as a tuple of ``bytearray``, one per column,
    each ``int64``: the ``B_*`` and the ``C_*`` columns, and the punctuation
    marks of *marks* (UTF-8 ``bytes``) as two columns, one row per block
    and mark found in its text at least once: ``block * MAX_MARKS + k``
    for mark *k*, and the count (most blocks hold few marks, or none).
    With *elements* a list, each container's element proxy is appended to
    it, in container order (only when asked: a proxy costs more than the
    rest of a container). With *reveal*, the ``hidden`` attribute and
    hiding inline styles are ignored (see ``Document._walk``). *concealed*
    counts the subtrees skipped that a revealing walk would read: hidden by
    attribute or style, or of a dropped tag in *revealable* (0: revealing
    would walk the same nodes, so give the same tables).

    *kinds* maps a tag to its kind (the module's ``KIND_*`` codes, see
    ``document._WALK_KINDS``), *hidden_style* is the compiled pattern's
    ``search`` and *descriptive* the names (``bytes``) of the attributes
    copied; passing them in keeps one definition of each rule, in
    ``document.py``. Only struct fields of libxml2 are read, and of its
    functions only the two the freeing walk needs, found in lxml's
    extension (:data:`CAN_RELEASE`).

    *release*, ``(containers, tags, attributes, trim)``, frees the tree as it
    is read when the page opens more than *containers* containers (counted
    before the walk): each node left, unless it or a node below it is an
    element of *tags* (``bytes``), carries one of *attributes*, or has a
    Python proxy, is unlinked and freed with its subtree, and so are the
    text nodes following a freed one (its ``tail``); the kept ones are
    whole, with their ancestors -- what ``html.pruning.prune`` keeps. *trim*
    (a callable) hands the freed memory back to the system every so often,
    so the walk's tables do not grow beside the whole tree. The caller
    must own the tree and want no more of it than that; *release* is
    ignored when *elements* is asked for. The last item returned is then
    whether anything was freed.
    """
    cdef tree.xmlNode* top_node = (<cetree._Element> root)._c_node
    cdef cetree._Document doc = (<cetree._Element> root)._doc
    cdef tree.xmlNode* node = top_node
    cdef tree.xmlNode* skipped = NULL
    cdef tree.xmlAttr* attr
    # Open <a> elements and open structural elements (the root excluded),
    # innermost last: both nest, so identity with the last one decides.
    cdef NodeStack anchors, opened
    cdef bint descend, opens, hidden, dropped
    cdef Py_ssize_t concealed = 0
    cdef int kind
    cdef _Walk state = _Walk()
    cdef str tag
    cdef bytes name
    cdef dict attributes, found
    cdef dict no_attributes = {}  # shared by the page's containers without any
    cdef list tags = [], container_attributes = [], cached = []
    cdef const unsigned char* cache_names[TAG_CACHE_SIZE]
    cdef PyObject* cache_tags[TAG_CACHE_SIZE]
    cdef int cache_kinds[TAG_CACHE_SIZE]
    cdef size_t slot
    cdef Py_ssize_t element_count, text_count
    # The freeing walk (*release*): a flag per open level, set when the
    # subtree of the node open at that level holds a kept node; the level
    # of the kept element being read (-1: none); whether the last node left
    # at this level was freed (then a text node following it is its tail).
    cdef bint freeing = False, after_freed = False, kept, freed_any = False
    cdef unsigned char* holds = NULL
    cdef Py_ssize_t holds_capacity = 0, depth = 0, kept_depth = -1, freed = 0
    cdef tuple keep_tags = (), keep_attributes = ()
    cdef object trim = None
    cdef tree.xmlNode* following
    cdef tree.xmlNode* parent_node
    memset(cache_names, 0, sizeof(cache_names))

    anchors.nodes = opened.nodes = NULL
    anchors.size = anchors.capacity = opened.size = opened.capacity = 0
    state.texts = []
    state.anchor_texts = []
    marks_init(&state.marks, marks)
    if release is not None and elements is None and CAN_RELEASE:
        # Only a page that may be freed as it is read (a large one) is
        # counted first: whether it is freed depends on its count, and its
        # columns, sized once, do not leave the C heap full of holes. The
        # count is a pass over every node, a cache miss each; a smaller
        # page's columns grow as they are filled (by half, amortised).
        count_nodes(top_node, kinds, &element_count, &text_count)
        if element_count > release[0]:
            freeing = True
            keep_tags, keep_attributes, trim = release[1], release[2], release[3]
            flags_reserve(&holds, &holds_capacity, 1)
            holds[0] = 1  # the top is never freed
        state.containers.reserve(element_count)
        state.blocks.reserve(text_count)
    state.position = 0
    tags.append(root.tag if isinstance(root.tag, str) else "html")
    found = {name.decode(): value for name in descriptive if (value := root.get(name.decode())) is not None}
    container_attributes.append(found or no_attributes)
    if elements is not None:
        elements.append(root)
    state.open(-1)
    try:
        while True:
            # -- enter ``node`` ------------------------------------------
            descend = False
            if node.type == tree.XML_ELEMENT_NODE:
                # libxml2 interns a document's names: one pointer per tag
                # name, so a small direct-mapped cache skips the decoding
                # and the dict lookup for all but the first of each.
                slot = (<size_t> node.name >> 4) & (TAG_CACHE_SIZE - 1)
                if node.ns is NULL and cache_names[slot] == node.name:
                    tag = <str> cache_tags[slot]
                    kind = cache_kinds[slot]
                else:
                    tag = tag_of(node)
                    kind = kinds.get(tag, KIND_INLINE)
                    if node.ns is NULL:
                        cache_names[slot] = node.name
                        cache_kinds[slot] = kind
                        cache_tags[slot] = <PyObject*> tag
                        cached.append(tag)  # keeps the cached str alive
                opens = False
                if (kind == KIND_STRUCTURAL or kind == KIND_BREAK or kind == KIND_DROPPED_STRUCTURAL) \
                        and node is not top_node:
                    # Every structural tag, hidden or not, starts a new string.
                    if state.text.size:
                        state.cut()
                    state.position += 1
                    opens = kind != KIND_BREAK
                hidden = dropped = kind == KIND_DROPPED or kind == KIND_DROPPED_STRUCTURAL
                attributes = None
                attr = node.properties
                while attr is not NULL and not hidden:
                    if attr.ns is NULL:
                        if strcmp(<const char*> attr.name, b"hidden") == 0:
                            hidden = not reveal
                        elif strcmp(<const char*> attr.name, b"style") == 0:
                            hidden = not reveal and hidden_style(attribute_value(attr)) is not None
                        elif opens:
                            for name in descriptive:
                                if strcmp(<const char*> attr.name, <const char*> name) == 0:
                                    if attributes is None:
                                        attributes = {}
                                    attributes[name.decode()] = attribute_value(attr)
                                    break
                    attr = attr.next
                if freeing and node is not top_node:  # the top is never freed (it has a proxy)
                    kept = kept_depth >= 0 or is_kept(node, keep_tags, keep_attributes)
                    holds[depth] = kept
                    if kept and kept_depth < 0:
                        kept_depth = depth  # kept whole
                    elif not kept and hidden and holds_kept(node, keep_tags, keep_attributes):
                        # Not read, but holding a kept node: cut down here.
                        holds[depth] = 1
                        if prune_below(node, keep_tags, keep_attributes):
                            freed_any = True
                if hidden:
                    skipped = node
                    if not dropped or (revealable and tag in revealable):
                        concealed += 1
                else:
                    descend = True
                    if opens:
                        tags.append(tag)
                        container_attributes.append(no_attributes if attributes is None else attributes)
                        if elements is not None:
                            elements.append(cetree.elementFactory(doc, node))
                        state.open(state.current)
                        stack_push(&opened, node)
                    elif kind == KIND_ANCHOR:
                        stack_push(&anchors, node)
            elif node.type == tree.XML_TEXT_NODE or node.type == tree.XML_CDATA_SECTION_NODE:
                if node.content is not NULL and node.content[0] != 0:
                    state.add_text(<const char*> node.content, anchors.size > 0)
                if freeing:
                    holds[depth] = 0
            elif freeing:
                # Comments, processing instructions and the rest: children
                # as lxml counts them, freed like elements.
                holds[depth] = kept_depth >= 0 or is_kept(node, keep_tags, keep_attributes)
            # Comments, processing instructions and the rest hold no text;
            # the text after them is a sibling node of its own.
            if descend and node.children is not NULL:
                node = node.children
                if freeing:
                    depth += 1
                    flags_reserve(&holds, &holds_capacity, depth + 1)
                    after_freed = False
                continue
            # -- leave ``node``, then each ancestor whose last child it was --
            while True:
                if node.type == tree.XML_ELEMENT_NODE:
                    if node is skipped:
                        skipped = NULL
                    elif opened.size and node is opened.nodes[opened.size - 1]:
                        opened.size -= 1
                        if state.text.size:
                            state.cut()
                        state.close()
                    elif anchors.size and node is anchors.nodes[anchors.size - 1]:
                        anchors.size -= 1
                        if state.anchor.size:
                            buffer_append(&state.anchor, b" ", 1)  # two links' texts stay two words
                if node is top_node:
                    break
                following = node.next
                parent_node = node.parent
                if freeing:
                    if node.type == tree.XML_TEXT_NODE or node.type == tree.XML_CDATA_SECTION_NODE:
                        # A parent's text stays, and so does a kept node's tail.
                        if after_freed and kept_depth < 0:
                            xml_unlink_node(node)
                            xml_free_node(node)
                    elif holds[depth]:
                        holds[depth - 1] = 1
                        after_freed = False
                        if kept_depth == depth:
                            kept_depth = -1
                    else:
                        xml_unlink_node(node)
                        xml_free_node(node)
                        after_freed = freed_any = True
                        freed += 1
                        if freed & 0xFFFF == 0 and trim is not None:
                            trim()
                if following is not NULL:
                    node = following
                    break
                node = parent_node
                if freeing:
                    depth -= 1
            if node is top_node:
                break
        state.cut()
        while state.current >= 0:  # the root, and any left open (unreachable from a whole tree)
            state.close()
    finally:
        free(anchors.nodes)
        free(opened.nodes)
        free(holds)
    if freed_any and trim is not None:
        trim()
    tables = (state.texts, state.anchor_texts, state.blocks.take(), state.mark_counts.take(),
             tags, container_attributes, state.containers.take(), concealed)
    return tables + (freed_any,) if release is not None else tables


def survey(root, tuple tag_names, tuple value_names, tuple element_names, tuple tag_values=()) -> tuple:
    """One pass over *root*'s document for what the page type and the
    metadata look up outside the walk's tables, instead of one search each:

    * the elements of *root*'s subtree (itself included) with each tag of
      *tag_names* (``str``): ``root.iter(*tag_names)``, sorted by tag;
    * per attribute of *value_names* (``bytes``), the values of every
      element's attribute of that name (no namespace) in the document:
      ``//*/@name``;
    * per attribute of *element_names* (``bytes``), the elements having
      it: ``//*[@name]``;
    * per ``(tag, attribute)`` pair of *tag_values* (``str``, ``bytes``; a
      tag not in *tag_names*), the attribute's value on each element of
      that tag in *root*'s subtree, ``None`` where it has none:
      ``[el.get(attribute) for el in root.iter(tag)]``, without the
      element proxies (a page's links are its most numerous elements).

    Each in document order; element proxies are made only for the
    elements returned. Returns ``(tags, values, elements, tag_values)``: a
    dict of lists keyed by tag, and three lists of lists in the order of
    the names.
    """
    cdef tree.xmlNode* root_node = (<cetree._Element> root)._c_node
    cdef cetree._Document doc = (<cetree._Element> root)._doc
    cdef tree.xmlNode* top = <tree.xmlNode*> root_node.doc
    cdef tree.xmlNode* node
    cdef tree.xmlAttr* attr
    cdef bint inside = False
    cdef Py_ssize_t k, slot, n_values = len(value_names), n_elements = len(element_names)
    cdef Py_ssize_t n_tags = len(tag_names)
    cdef bytes name, wanted
    cdef int index
    cdef object value
    cdef const unsigned char* cache_names[TAG_CACHE_SIZE]
    cdef int cache_index[TAG_CACHE_SIZE]
    cdef dict by_tag = {tag: [] for tag in tag_names}
    cdef list tag_lists = [by_tag[tag] for tag in tag_names]
    # The tags of *tag_values* follow *tag_names*': index n_tags + j is pair j.
    cdef list wanted_tags = [tag.encode() for tag in tag_names] + [tag.encode() for tag, _ in tag_values]
    cdef list value_attributes = [attribute for _, attribute in tag_values]
    cdef list values = [[] for _ in range(n_values)]
    cdef list elements = [[] for _ in range(n_elements)]
    cdef list per_tag_values = [[] for _ in range(len(tag_values))]
    cdef list found
    memset(cache_names, 0, sizeof(cache_names))
    node = top.children
    while node is not NULL:
        if node.type == tree.XML_ELEMENT_NODE:
            if node is root_node:
                inside = True
            if inside and node.ns is NULL:
                slot = (<size_t> node.name >> 4) & (TAG_CACHE_SIZE - 1)
                if cache_names[slot] == node.name:
                    index = cache_index[slot]
                else:
                    index = -1
                    for k in range(len(wanted_tags)):
                        name = wanted_tags[k]
                        if strcmp(<const char*> node.name, <const char*> name) == 0:
                            index = k
                            break
                    cache_names[slot] = node.name
                    cache_index[slot] = index
                if index >= n_tags:
                    wanted = value_attributes[index - n_tags]
                    value = None
                    attr = node.properties
                    while attr is not NULL:
                        if attr.ns is NULL and strcmp(<const char*> attr.name, <const char*> wanted) == 0:
                            value = attribute_value(attr)
                            break
                        attr = attr.next
                    (<list> per_tag_values[index - n_tags]).append(value)
                elif index >= 0:
                    (<list> tag_lists[index]).append(cetree.elementFactory(doc, node))
            attr = node.properties
            while attr is not NULL:
                if attr.ns is NULL:
                    # (the first characters compared before the names)
                    for k in range(n_values):
                        name = value_names[k]
                        if attr.name[0] == (<const unsigned char*> name)[0] and strcmp(
                            <const char*> attr.name, <const char*> name
                        ) == 0:
                            (<list> values[k]).append(attribute_value(attr))
                    for k in range(n_elements):
                        name = element_names[k]
                        if attr.name[0] == (<const unsigned char*> name)[0] and strcmp(
                            <const char*> attr.name, <const char*> name
                        ) == 0:
                            found = elements[k]
                            # once per element (a repeated attribute is one element)
                            if not found or (<cetree._Element> found[len(found) - 1])._c_node is not node:
                                found.append(cetree.elementFactory(doc, node))
                attr = attr.next
            if node.children is not NULL:
                node = node.children
                continue
        # leave the node, then each ancestor whose last child it was
        while True:
            if node is root_node:
                inside = False
            if node.next is not NULL:
                node = node.next
                break
            node = node.parent
            if node is NULL or node is top:
                return by_tag, values, elements, per_tag_values
    return by_tag, values, elements, per_tag_values


def mark_counts(const long long[::1] keys, const long long[::1] counts, unsigned long long wanted,
                Py_ssize_t start, long long[::1] out):
    """Add to ``out[block - start]`` the counts of the marks in *wanted* (bit
    *k* for mark *k*) of blocks ``start`` to ``start + len(out)``, from the
    walk's mark entries (*keys* ``block * MAX_MARKS + k`` in block order,
    *counts*): ``BlockColumns.count``'s numpy selection and ``bincount``,
    its reference, in one pass over the range's entries (found by
    bisection)."""
    cdef Py_ssize_t low = 0, high = keys.shape[0], middle, i
    cdef long long first = start * MAX_MARKS, end = (start + out.shape[0]) * MAX_MARKS, key
    if counts.shape[0] != keys.shape[0]:
        raise ValueError("one count per mark entry")
    while low < high:  # the first entry of the range
        middle = (low + high) // 2
        if keys[middle] < first:
            low = middle + 1
        else:
            high = middle
    for i in range(low, keys.shape[0]):
        key = keys[i]
        if key >= end:
            break
        if wanted >> (key & (MAX_MARKS - 1)) & 1:
            out[key // MAX_MARKS - start] += counts[i]


def count_in_ranges(list texts, const long long[::1] ranges, long long[::1] out):
    """Set ``out[i]`` to how many characters of ``texts[i]`` fall in the
    code point *ranges* (``first, last`` pairs, flat, ascending): the
    document model's CJK characters
    (:func:`webclean_scrapy.engine.html.walk.count_in_ranges`, its reference). A string
    with no character at or above the first range (all ASCII, most of any
    Latin page) is not read."""
    cdef Py_ssize_t i, k, pairs = ranges.shape[0] // 2
    cdef long long count, lowest
    cdef Py_UCS4 character
    cdef str text
    if out.shape[0] != len(texts) or ranges.shape[0] % 2:
        raise ValueError("one count per text, and ranges in pairs")
    if pairs == 0:
        out[:] = 0
        return
    lowest = ranges[0]
    for i in range(len(texts)):
        text = <str> texts[i]
        count = 0
        if not PyUnicode_IS_ASCII(text):
            for character in text:
                if character < lowest:
                    continue
                for k in range(pairs):
                    if character <= ranges[2 * k + 1]:
                        if character >= ranges[2 * k]:
                            count += 1
                        break
        out[i] = count
