# cython: language_level=3
"""The CDOM walk of :meth:`.walk.Walker.walk`, compiled: the same loop over libxml2's nodes instead of lxml's proxies.

:meth:`.walk.Walker.walk` is the reference and the documentation of every step; this module is the same steps in
the same order, and ``tests/page/test_speedups.py`` holds the two to identical pages.  What changes is how the tree is
read.  The Python loop asks lxml for an event, a proxy object, the tag, the attribute names, ``class``, ``id``,
``text`` and ``tail`` of every element: Python calls per element, the largest stage of ``extract()``
(issue 13).  Here the loop follows libxml2's ``children``/``next``/``parent`` pointers through lxml's public C API
(``lxml.includes.etreepublic``), reads names, attributes and text straight from the nodes, finds an element's state
in a table keyed by those bytes (:class:`_StateTable`), and makes a Python object only where the walk keeps one: a
tag name, the ``class``/``id`` values of a state not seen before, a text that is not blank, and the proxy of an
element whose text becomes a block.

Node kinds follow lxml's: the walk visits what lxml's ``iterwalk`` visits (elements and entity references), and
``text``/``tail`` join adjacent text and CDATA nodes, skipping XInclude markers, as lxml's ``_collectText`` does.
An element whose attributes lxml would name or read in a way this module does not (a namespaced attribute, a value
that is not plain text nodes) is read through its proxy, as the Python walk reads every element.  What the walk
needs of :mod:`.walk` it reads from the walker object.
"""

from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.pyport cimport PY_SSIZE_T_MAX
from cpython.unicode cimport (
    Py_UNICODE_ISALNUM,
    Py_UNICODE_ISPRINTABLE,
    Py_UNICODE_ISSPACE,
    PyUnicode_1BYTE_KIND,
    PyUnicode_2BYTE_KIND,
    PyUnicode_DATA,
    PyUnicode_DecodeUTF8,
    PyUnicode_FromKindAndData,
    PyUnicode_KIND,
    PyUnicode_READ,
    PyUnicode_Substring,
)
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcmp, memset, strcmp, strlen
from lxml.includes cimport tree
from lxml.includes.tree cimport const_xmlChar, xmlAttr, xmlNode

cimport lxml.includes.etreepublic as cetree

from .elements import _CLASS_CACHE, _ID_MASKS, _TAG_TABLE, _describe_class, _describe_tag, _id_mask
from .marks import MARKING_ATTRIBUTES, attribute_marks
from .tags import MAX_SELECT_ELEMENTS, SHOWN_TEMPLATE_ATTRIBUTES
from .walk import OUTSIDE_SVG, SVG_DRAWING, SVG_HTML


cdef extern from "strings.h" nogil:
    int strcasecmp(const char* a, const char* b)


cetree.import_lxml__etree()

#: lxml's version this module was compiled against: :mod:`.twins` uses the module only under the same major
#: version.
COMPILED_LXML_VERSION = cetree.LXML_VERSION_STRING.decode("ascii")

# The fields of a state tuple (walk.State names them the same).
cdef enum:
    _NUMBER = 0
    _TAG = 1
    _ATTRIBUTES = 2
    _PATH_ID = 3
    _TAG_MASK = 4
    _KEYWORD_MASK = 5
    _IN_LINK = 6
    _SEGMENT = 7
    _BLOCK_LEVEL = 8
    _IN_SVG = 9


#: Entries of the walk's cache of element names (a power of two).
cdef enum:
    _TAG_SLOTS = 64


cdef inline bint _walked(xmlNode* node) noexcept nogil:
    """A node lxml's ``iterwalk(root, events=("start", "end"))`` reports: an element or an entity reference.

    Comments and processing instructions it passes over, tails included (the parser of :mod:`.parse` removes them,
    and a tree from parsel is walked without them).
    """
    return node.type == tree.XML_ELEMENT_NODE or node.type == tree.XML_ENTITY_REF_NODE


cdef inline xmlNode* _first_walked(xmlNode* node) noexcept nogil:
    while node is not NULL and not _walked(node):
        node = node.next
    return node


cdef inline xmlNode* _text_or_skip(xmlNode* node) noexcept nogil:
    """lxml's ``_textNodeOrSkip``: the node if it is text, past XInclude markers, else NULL."""
    while node is not NULL:
        if node.type == tree.XML_TEXT_NODE or node.type == tree.XML_CDATA_SECTION_NODE:
            return node
        if node.type == tree.XML_XINCLUDE_START or node.type == tree.XML_XINCLUDE_END:
            node = node.next
        else:
            return NULL
    return NULL


cdef inline bint _blank(const_xmlChar* content) noexcept nogil:
    """Only characters that ``str.isspace`` calls blank, all of them ASCII (the common blank text between tags)."""
    cdef const unsigned char* byte = <const unsigned char*>content
    while byte[0]:
        if not (byte[0] == 32 or 9 <= byte[0] <= 13 or 28 <= byte[0] <= 31):
            return False
        byte += 1
    return True


#: What :func:`_text` gives for a text of ASCII blanks: the walk keeps no block, only that white space came.
cdef str _BLANK = " "


cdef object _text(xmlNode* node):
    """lxml's ``_collectText`` from ``node``, except that a text of ASCII blanks is :data:`_BLANK`."""
    cdef xmlNode* current = _text_or_skip(node)
    cdef xmlNode* first = current
    cdef const_xmlChar* content = NULL
    cdef int count = 0
    cdef bint blank = True
    while current is not NULL:
        if current.content is not NULL and current.content[0] != 0:
            content = current.content
            if blank and not _blank(content):
                blank = False
        count += 1
        current = _text_or_skip(current.next)
    if content is NULL:
        return None
    if blank:
        return _BLANK
    if count == 1:
        return PyUnicode_DecodeUTF8(<char*>content, strlen(<const char*>content), NULL)
    cdef list parts = []  # joined once: a run of many text nodes stays linear
    current = first
    while current is not NULL:
        if current.content is not NULL:
            parts.append(<bytes>(<const char*>current.content))
        current = _text_or_skip(current.next)
    return b"".join(parts).decode("utf-8")


cdef inline str _utf8(const_xmlChar* value):
    return PyUnicode_DecodeUTF8(<char*>value, strlen(<const char*>value), NULL)


cdef object _tag(xmlNode* node):
    """The tag as lxml names it (``{namespace}name``); ``None`` for an entity reference (lxml's tag is a function)."""
    if node.type != tree.XML_ELEMENT_NODE:
        return None
    cdef const_xmlChar* href = cetree._getNs(node)
    if href is NULL:
        return _utf8(node.name)
    return "{%s}%s" % (_utf8(href), _utf8(node.name))


cdef object _attribute_value(xmlAttr* attribute):
    """An attribute's value from its text nodes (lxml reads the same through libxml2); ``None`` if it has others."""
    cdef xmlNode* child = attribute.children
    if child is NULL:
        return ""
    if child.next is NULL and (child.type == tree.XML_TEXT_NODE or child.type == tree.XML_CDATA_SECTION_NODE):
        return _utf8(child.content) if child.content is not NULL else ""
    cdef list parts = []
    while child is not NULL:
        if child.type != tree.XML_TEXT_NODE and child.type != tree.XML_CDATA_SECTION_NODE:
            return None
        if child.content is not NULL:
            parts.append(<bytes>(<const char*>child.content))
        child = child.next
    return b"".join(parts).decode("utf-8")


cdef inline bint _named(xmlAttr* attribute, const char* name) noexcept nogil:
    return strcmp(<const char*>attribute.name, name) == 0


#: tags.SHOWN_TEMPLATE_ATTRIBUTES as UTF-8.
_SHOWN_TEMPLATE_NAMES = tuple(name.encode("utf-8") for name in SHOWN_TEMPLATE_ATTRIBUTES)


cdef bint _shown_template(xmlNode* node):
    """A declarative shadow root: an attribute of ``tags.SHOWN_TEMPLATE_ATTRIBUTES``, without a namespace (as
    lxml's ``element.get`` reads it)."""
    cdef xmlAttr* attribute = node.properties
    cdef bytes name
    while attribute is not NULL:
        if attribute.ns is NULL:
            for name in _SHOWN_TEMPLATE_NAMES:
                if _named(attribute, name):
                    return True
        attribute = attribute.next
    return False


cdef Py_ssize_t _elements_below(xmlNode* top, Py_ssize_t limit, const char* name) noexcept nogil:
    """The elements below ``top`` in document order, counted up to ``limit`` (lxml's ``iterdescendants`` of
    elements), or ``-1`` at the first whose local name is ``name`` in any case (``NULL``: none is looked for)."""
    cdef xmlNode* node = top.children
    cdef Py_ssize_t count = 0
    while node is not NULL:
        if node.type == tree.XML_ELEMENT_NODE:
            if name is not NULL and strcasecmp(<const char*>node.name, name) == 0:
                return -1
            count += 1
            if count >= limit:
                return count
            if node.children is not NULL:
                node = node.children
                continue
        while node.next is NULL:
            node = node.parent
            if node is top or node is NULL:
                return count
        node = node.next
    return count


def within_size(cetree._Element root, Py_ssize_t max_elements, Py_ssize_t max_product):
    """:func:`.walk.within_size` over libxml2's nodes: whether the tree under ``root`` has at most
    ``max_elements`` elements and at most ``max_product`` elements times its depth (stopping at the first
    element over either)."""
    cdef xmlNode* top = root._c_node
    cdef xmlNode* node = top
    cdef Py_ssize_t elements = 0, depth = 1, deepest = 0
    while node is not NULL:
        if _walked(node):
            elements += 1
            if depth > deepest:
                deepest = depth
            if elements > max_elements or elements * deepest > max_product:
                return False
            if node.type == tree.XML_ELEMENT_NODE and _first_walked(node.children) is not NULL:
                node = _first_walked(node.children)
                depth += 1
                continue
        if node is top:
            return True
        while _first_walked(node.next) is NULL:
            node = node.parent
            depth -= 1
            if node is top or node is NULL:
                return True
        node = _first_walked(node.next)
    return True


#: marks.MARKING_ATTRIBUTES as UTF-8, for comparing with libxml2's attribute names (one list of them: that one).
_MARKING_NAMES = tuple(sorted(name.encode("utf-8") for name in MARKING_ATTRIBUTES))
cdef enum:
    _MAX_MARKING_NAMES = 16
#: The same names as C strings (``_MARKING_NAMES`` keeps them alive): most elements have an attribute that is not a
#: class or id, and each is compared with all of them.
cdef const char* _marking_names[_MAX_MARKING_NAMES]
cdef Py_ssize_t _marking_count = len(_MARKING_NAMES)
if _marking_count > _MAX_MARKING_NAMES:
    raise ImportError(f"more than {_MAX_MARKING_NAMES} marking attributes")
for _position, _name in enumerate(_MARKING_NAMES):
    _marking_names[_position] = <bytes>_name


cdef bint _marking(xmlAttr* attribute) noexcept:
    """The attribute is one of those that can set marks (``marks.MARKING_ATTRIBUTES``)."""
    cdef Py_ssize_t position
    for position in range(_marking_count):
        if strcmp(<const char*>attribute.name, _marking_names[position]) == 0:
            return True
    return False


# ---- The states of the page's elements, looked up without a Python object per element.
#
# :meth:`.walk.Walker.walk` keys an element's state by ``(parent state number, lxml tag, class, id[, marks])`` (only
# the first two without attributes) in a dict.  Built per element, that key costs two decoded strings, a tuple, its
# hash and a dict probe: the largest part of the walk.  Here the same key is read as C values (the names and values
# stay where libxml2 keeps them while the walk runs) and looked up in an open-addressing table of this walk; Python
# strings are made only for a state not seen before.  Keys equal in the Python walk are equal here (byte-equal UTF-8
# names and values, the same shape and marks), so the pages get the same states in the same order.


cdef struct _Key:
    long parent
    const char* name  # NULL: an entity reference (lxml's tag is a function, None in the key)
    const char* namespace  # NULL: none
    const char* class_value  # NULL with class_length -1: no class attribute
    Py_ssize_t class_length
    const char* id_value
    Py_ssize_t id_length
    int shape  # 2: no attributes; 4: class and id; 5: class, id and marks
    long marks
    uint64_t hash


cdef struct _Entry:
    _Key key
    Py_ssize_t state  # index in _StateTable.states; -1: an empty slot


cdef extern from "Python.h":
    # CPython's hash of bytes: SipHash with the process's random key (PYTHONHASHSEED), as str and bytes use.
    Py_hash_t _Py_HashBytes(const void* value, Py_ssize_t length) noexcept


cdef inline uint64_t _mix(uint64_t hash, const char* value, Py_ssize_t length) noexcept:
    """``hash`` combined with the keyed hash of ``length`` bytes of ``value`` (``length`` < 0: absent).  Keyed as a dict
    hashes its strings, so that a page cannot choose keys that collide in the table (probing them one by one would
    take time quadratic in their number)."""
    cdef uint64_t part = 0 if length < 0 else <uint64_t>_Py_HashBytes(value, length)
    return (hash ^ (part + <uint64_t>(length + 2))) * 1099511628211ULL


cdef inline bint _same_text(const char* a, Py_ssize_t a_length, const char* b, Py_ssize_t b_length) noexcept nogil:
    return a_length == b_length and (a_length <= 0 or a == b or memcmp(a, b, a_length) == 0)


cdef inline bint _same_name(const char* a, const char* b) noexcept nogil:
    return a == b or (a is not NULL and b is not NULL and strcmp(a, b) == 0)


cdef class _StateTable:
    """The walk's states by key: ``states[i]`` is the state tuple of the ``i``-th key added."""

    cdef _Entry* entries
    cdef Py_ssize_t capacity
    cdef list states
    cdef list kept  # bytes objects whose buffers keys point into (values read through lxml's proxy)

    def __cinit__(self):
        self.capacity = 256
        self.entries = <_Entry*>PyMem_Malloc(self.capacity * sizeof(_Entry))
        if self.entries is NULL:
            raise MemoryError()
        self._clear(self.entries, self.capacity)
        self.states = []
        self.kept = []

    def __dealloc__(self):
        PyMem_Free(self.entries)

    cdef void _clear(self, _Entry* entries, Py_ssize_t capacity) noexcept:
        cdef Py_ssize_t i
        for i in range(capacity):
            entries[i].state = -1

    cdef Py_ssize_t _slot(self, _Key* key) noexcept:
        """The slot of ``key``, or of the empty slot where it would go."""
        cdef size_t mask = <size_t>self.capacity - 1
        cdef size_t slot = <size_t>key.hash & mask
        cdef _Entry* entry
        while True:
            entry = &self.entries[slot]
            if entry.state < 0:
                return slot
            if (
                entry.key.hash == key.hash
                and entry.key.parent == key.parent
                and entry.key.shape == key.shape
                and entry.key.marks == key.marks
                and _same_name(entry.key.name, key.name)
                and _same_name(entry.key.namespace, key.namespace)
                and _same_text(entry.key.class_value, entry.key.class_length, key.class_value, key.class_length)
                and _same_text(entry.key.id_value, entry.key.id_length, key.id_value, key.id_length)
            ):
                return slot
            slot = (slot + 1) & mask

    cdef object find(self, _Key* key):
        """The state of ``key``, or None."""
        cdef Py_ssize_t state = self.entries[self._slot(key)].state
        return None if state < 0 else self.states[state]

    cdef int add(self, _Key* key, tuple state) except -1:
        """Add ``key`` (not in the table) with its ``state``."""
        if 2 * (len(self.states) + 1) > self.capacity:
            self._grow()
        cdef Py_ssize_t slot = self._slot(key)
        self.entries[slot].key = key[0]
        self.entries[slot].state = len(self.states)
        self.states.append(state)
        return 0

    cdef int _grow(self) except -1:
        cdef _Entry* old = self.entries
        cdef Py_ssize_t old_capacity = self.capacity, i
        cdef _Entry* entries = <_Entry*>PyMem_Malloc(2 * old_capacity * sizeof(_Entry))
        if entries is NULL:
            raise MemoryError()
        self._clear(entries, 2 * old_capacity)
        self.entries, self.capacity = entries, 2 * old_capacity
        for i in range(old_capacity):
            if old[i].state >= 0:
                self.entries[self._slot(&old[i].key)] = old[i]
        PyMem_Free(old)
        return 0

    cdef int keep_text(self, object value, const char** text, Py_ssize_t* length) except -1:
        """Point ``text``/``length`` at ``value``'s UTF-8 (kept alive by the table); ``None``: absent."""
        cdef bytes encoded
        if value is None:
            text[0], length[0] = NULL, -1
            return 0
        encoded = (<str>value).encode("utf-8")
        self.kept.append(encoded)
        text[0], length[0] = <const char*>encoded, len(encoded)
        return 0


cdef inline bint _one_text(xmlAttr* attribute, const char** text, Py_ssize_t* length) noexcept:
    """Point ``text``/``length`` at the attribute's value where it is one text node (or none: ``""``); False
    where lxml joins several nodes or would read it otherwise (the proxy reads it then)."""
    cdef xmlNode* child = attribute.children
    if child is NULL:
        text[0], length[0] = "", 0
        return True
    if child.next is NULL and (child.type == tree.XML_TEXT_NODE or child.type == tree.XML_CDATA_SECTION_NODE):
        if child.content is NULL:
            text[0], length[0] = "", 0
        else:
            text[0], length[0] = <const char*>child.content, strlen(<const char*>child.content)
        return True
    return False


cdef int _read_key(_Key* key, xmlNode* node, long parent_number, object document, _StateTable table) except -1:
    """The key of an element's state, as :meth:`.walk.Walker.walk` builds it from ``keys()`` and ``get``."""
    key.parent = parent_number
    key.marks = 0
    key.class_value, key.class_length = NULL, -1
    key.id_value, key.id_length = NULL, -1
    if node.type == tree.XML_ELEMENT_NODE:
        key.name = <const char*>node.name
        key.namespace = <const char*>cetree._getNs(node)
    else:
        key.name = key.namespace = NULL
    cdef xmlAttr* attribute = node.properties
    cdef bint marked = False, proxied = False
    if attribute is NULL:
        key.shape = 2
    else:
        key.shape = 4
        while attribute is not NULL:
            if attribute.ns is not NULL:
                proxied = True
                break
            if key.class_length < 0 and _named(attribute, "class"):
                if not _one_text(attribute, &key.class_value, &key.class_length):
                    proxied = True
                    break
            elif key.id_length < 0 and _named(attribute, "id"):
                if not _one_text(attribute, &key.id_value, &key.id_length):
                    proxied = True
                    break
            elif not marked and _marking(attribute):
                marked = True
            attribute = attribute.next
        if proxied:
            _read_proxied_key(key, node, document, table)
        elif marked:
            key.marks = _marks(node, document)
            key.shape = 5
    key.hash = _mix(_mix(_mix(_mix(
        14695981039346656037ULL ^ <uint64_t>(key.parent * 31 + key.shape) ^ (<uint64_t>key.marks << 32),
        key.name, -1 if key.name is NULL else strlen(key.name)),
        key.namespace, -1 if key.namespace is NULL else strlen(key.namespace)),
        key.class_value, key.class_length),
        key.id_value, key.id_length)
    return 0


cdef long _marks(xmlNode* node, object document) except? -1:
    """``attribute_marks`` of an element with a marking attribute, from its attributes' values."""
    values = {}
    cdef xmlAttr* attribute = node.properties
    while attribute is not NULL:
        name = _utf8(attribute.name)
        if name not in values:
            value = _attribute_value(attribute)
            if value is None:
                element = cetree.elementFactory(document, node)
                return attribute_marks(element.get)
            values[name] = value
        attribute = attribute.next
    return attribute_marks(values.get)


cdef int _read_proxied_key(_Key* key, xmlNode* node, object document, _StateTable table) except -1:
    """The class, id and marks read through lxml's proxy, exactly as the Python walk reads them (rare attributes)."""
    element = cetree.elementFactory(document, node)
    get = element.get
    table.keep_text(get("class"), &key.class_value, &key.class_length)
    table.keep_text(get("id"), &key.id_value, &key.id_length)
    if MARKING_ATTRIBUTES.isdisjoint(element.keys()):
        key.shape, key.marks = 4, 0
    else:
        key.shape, key.marks = 5, attribute_marks(get)
    return 0


cdef inline object _key_text(const char* value, Py_ssize_t length):
    return None if length < 0 else PyUnicode_DecodeUTF8(value, length, NULL)


cdef extern from "_search.h":
    Py_ssize_t web2text_find(object source, object word, Py_ssize_t start, Py_ssize_t end) except -2


cdef inline Py_ssize_t _find(str source, str word, Py_ssize_t start, Py_ssize_t end) except -2:
    """``source.find(word, start, end)``, without the method call; on two- and four-byte strings a search that
    compares 16 bytes at a time (``_search.h``)."""
    return web2text_find(source, word, start, end)


def find(str source, str word, Py_ssize_t start, Py_ssize_t end):
    """The walk's ``source.find(word, start, end)`` (a function here so that the tests compare it with ``str.find``)."""
    return _find(source, word, start, end)


ctypedef fused _code_unit:
    uint8_t
    uint16_t
    uint32_t


cdef object _collapsed(str raw):
    """``" ".join(raw.split())`` where that text is printable (``str.isprintable``), else ``None`` (the walk then
    asks ``block_text``): one pass over the code points instead of a list of words, a join and a second scan.  A
    text already collapsed is given back as it is."""
    cdef int kind = PyUnicode_KIND(raw)
    cdef void* data = PyUnicode_DATA(raw)
    if kind == PyUnicode_1BYTE_KIND:
        return _collapsed_units(raw, <const uint8_t*>data, kind)
    if kind == PyUnicode_2BYTE_KIND:
        return _collapsed_units(raw, <const uint16_t*>data, kind)
    return _collapsed_units(raw, <const uint32_t*>data, kind)


cdef object _collapsed_units(str raw, const _code_unit* data, int kind):
    """:func:`_collapsed` over the string's own code units (one, two or four bytes), written back at that width: a
    collapsed text needs no wider storage than the text it comes from."""
    cdef Py_ssize_t n = len(raw), i, length = 0
    cdef Py_UCS4 c
    cdef bint space = False, unchanged = True
    cdef _code_unit* out = <_code_unit*>PyMem_Malloc((n + 1) * sizeof(_code_unit))
    if out is NULL:
        raise MemoryError()
    try:
        for i in range(n):
            c = data[i]
            if Py_UNICODE_ISSPACE(c):
                # A blank other than one space between words is dropped or becomes one space: the text changes.
                if c != 32 or space or length == 0:
                    unchanged = False
                space = length > 0
                continue
            if not (32 <= c < 127 if c < 128 else Py_UNICODE_ISPRINTABLE(c)):
                return None
            if space:
                out[length] = 32
                length += 1
                space = False
            out[length] = <_code_unit>c
            length += 1
        if space:  # a blank at the end
            unchanged = False
        if unchanged:
            return raw
        return PyUnicode_FromKindAndData(kind, out, length)
    finally:
        PyMem_Free(out)


def collapsed(str raw):
    """The walk's ``" ".join(raw.split())`` with its printable test (a function here so that the tests compare it)."""
    return _collapsed(raw)


cdef inline bint _word_character(Py_UCS4 c) noexcept:
    """``re``'s ``\\w`` in a str pattern: alphanumeric (``str.isalnum``) or the underscore."""
    return c == 95 or Py_UNICODE_ISALNUM(c)


cdef object _anchor_word(str raw, Py_ssize_t* at):
    """``walk._ANCHOR_WORD.search(raw)``'s word (and its start in ``at``), or ``None``: ``\\w{3,24}|\\w+`` finds
    the first run of word characters, at most 24 of them, whatever its length."""
    cdef Py_ssize_t n = len(raw), start = 0, end
    cdef int kind = PyUnicode_KIND(raw)
    cdef void* data = PyUnicode_DATA(raw)
    while start < n and not _word_character(PyUnicode_READ(kind, data, start)):
        start += 1
    if start == n:
        return None
    end = start + 1
    while end < n and end - start < 24 and _word_character(PyUnicode_READ(kind, data, end)):
        end += 1
    at[0] = start
    return PyUnicode_Substring(raw, start, end)


def anchor_word(str raw):
    """The walk's anchor word and its start, as ``(match.group(), match.start())``, or ``None`` (for the tests)."""
    cdef Py_ssize_t at = 0
    word = _anchor_word(raw, &at)
    return None if word is None else (word, at)


def walk(walker, cetree._Element root):  # noqa: C901 - one loop, as in walk.Walker.walk
    """:meth:`.walk.Walker.walk` over libxml2's nodes: fills ``walker`` exactly as that method does.

    Returns whether the page has blocks (then :func:`.numbering.number_nodes` or its twin numbers the nodes).
    """
    text_chain, block_text = walker.TEXT_CHAIN, walker.block_text
    cdef Py_ssize_t state_width = walker.STATE_WIDTH, segments_kept = walker.TAG_PATH_SEGMENTS
    page = walker.page
    document = root._doc
    cdef str source = page.source
    cdef Py_ssize_t source_length = len(source)
    cdef Py_ssize_t max_blocks = walker.max_blocks
    cdef list texts = page.texts
    cdef list tag_paths = page.tag_paths
    cdef list rows = walker.block_rows
    cdef list block_elements = page.block_elements
    cdef list state_rows = walker.state_rows
    cdef list node_chains = walker.node_chains
    cdef dict chains = walker.chains
    cdef list node_sizes = walker.node_sizes
    cdef list node_run_starts = walker.node_run_starts
    cdef list all_children = walker.children
    cdef dict tag_table = _TAG_TABLE
    cdef dict class_cache = _CLASS_CACHE
    cdef dict id_masks = _ID_MASKS
    cdef dict paths = {}
    cdef dict path_strings = {}
    cdef _StateTable states = _StateTable()
    cdef _Key key
    cdef dict missed_until = {}
    cdef list top_children = []
    cdef tuple state = (0, "#root", "", 0, 0, 0, False, "", False, OUTSIDE_SVG)
    cdef list siblings = top_children
    # The open elements' states and their children's node numbers, two stacks rather than a tuple a level; an
    # element's list is made when its first child is added (None until then: most elements have none).
    cdef list stack = [state]
    cdef list children_stack = [siblings]
    cdef list children
    cdef tuple closed, opened, described, class_described
    cdef bint pending_break = False
    cdef bint pending_space = True, space_before
    cdef Py_ssize_t select_elements_left = MAX_SELECT_ELEMENTS, count
    cdef Py_UCS4 edge
    cdef bint descend, is_tail, skipped, block_level
    cdef Py_ssize_t cursor = 0, start, end, found, window_end, searched_from, word_start = 0
    cdef Py_ssize_t node_number
    cdef xmlNode* top = root._c_node
    cdef xmlNode* node = top
    cdef xmlNode* skipped_node = NULL
    cdef xmlNode* child
    cdef bint skipped_block_level = False
    cdef bint going_down = True
    cdef const_xmlChar* cached_names[_TAG_SLOTS]
    cdef list cached_tags = [None] * _TAG_SLOTS
    cdef size_t slot
    memset(cached_names, 0, sizeof(cached_names))
    while True:
        if going_down:
            # ---- start of an element
            # libxml2 keeps one copy of each element name per document: its address is the cache key.
            slot = (<size_t>node.name >> 4) & (_TAG_SLOTS - 1)
            if node.type == tree.XML_ELEMENT_NODE and node.ns is NULL and cached_names[slot] == node.name:
                raw_tag, described = cached_tags[slot]
            else:
                raw_tag = _tag(node)
                described = tag_table.get(raw_tag) if raw_tag is not None else None
                if described is None:
                    described = _describe_tag(raw_tag)
                if node.type == tree.XML_ELEMENT_NODE and node.ns is NULL:
                    cached_names[slot] = node.name
                    cached_tags[slot] = (raw_tag, described)
            tag, block_level, skipped, tag_bit, is_link = described
            if block_level:
                pending_break = True
            # Walker.skips (templates and svgs are skipped tags, a select is not: one comparison for most elements)
            if skipped:
                if tag == "template":
                    skipped = not _shown_template(node)
                elif tag == "svg":
                    skipped = state[_IN_SVG] == OUTSIDE_SVG and _elements_below(node, PY_SSIZE_T_MAX, b"foreignobject") >= 0
            elif tag == "select":
                count = _elements_below(node, select_elements_left + 1, NULL)
                skipped = count > select_elements_left
                if not skipped:
                    select_elements_left -= count
            descend = not skipped
            if skipped:
                skipped_node, skipped_block_level = node, block_level
                raw = None
            else:
                _read_key(&key, node, state[_NUMBER], document, states)
                opened = states.find(&key)
                if opened is None:
                    # elements.describe_element, inline: the class's description cached, the id's mask added
                    if key.shape > 2:
                        class_name = _key_text(key.class_value, key.class_length)
                        element_id = _key_text(key.id_value, key.id_length)
                        class_described = class_cache.get((tag, class_name))
                        if class_described is None:
                            class_described = _describe_class(tag, class_name)
                        attributes, segment, keyword_mask = class_described
                        if element_id:
                            attributes = f"{class_name or ''} {element_id}".strip().lower()
                            id_mask = id_masks.get(element_id)
                            keyword_mask |= _id_mask(element_id) if id_mask is None else id_mask
                    else:
                        attributes, segment, keyword_mask = "", tag, 0
                    path_key = (state[_PATH_ID], segment)
                    path_id = paths.get(path_key)
                    if path_id is None:
                        path_id = paths[path_key] = len(paths) + 1
                    if key.shape > 4:
                        tag_bit |= key.marks
                    # walk.svg_mode, inline (a Python call per new state otherwise)
                    in_svg = state[_IN_SVG]
                    if tag == "svg":
                        in_svg = SVG_DRAWING
                    elif in_svg == SVG_DRAWING and tag == "foreignobject":
                        in_svg = SVG_HTML
                    opened = (
                        len(state_rows) // state_width,
                        tag,
                        attributes,
                        path_id,
                        state[_TAG_MASK] | tag_bit,
                        state[_KEYWORD_MASK] | keyword_mask,
                        state[_IN_LINK] or is_link,
                        segment,
                        block_level,
                        in_svg,
                    )
                    states.add(&key, opened)
                    state_rows += (path_id, opened[_IN_LINK], opened[_TAG_MASK], opened[_KEYWORD_MASK])
                state = opened
                siblings = None
                stack.append(state)
                children_stack.append(None)
                raw = _text(node.children)
            is_tail = False
        else:
            # ---- end of an element
            if node is skipped_node:
                skipped_node = NULL
                if skipped_block_level:
                    pending_break = True
            else:
                closed = stack.pop()
                children = children_stack.pop()
                state = stack[-1]
                siblings = children_stack[-1]
                if children:
                    if len(children) == 1:
                        node_number = children[0]
                        link = (node_chains[node_number], closed[_TAG], closed[_ATTRIBUTES])
                        node_chains[node_number] = chains.setdefault(link, len(chains))
                    else:
                        node_number = len(node_chains)
                        link = (-1, closed[_TAG], closed[_ATTRIBUTES])
                        node_chains.append(chains.setdefault(link, len(chains)))
                        node_sizes.append(len(children))
                        node_run_starts.append(node_run_starts[children[0]])
                        all_children += children
                    if siblings is None:
                        siblings = children_stack[-1] = [node_number]
                    else:
                        siblings.append(node_number)
                if closed[_BLOCK_LEVEL]:
                    pending_break = True
            raw = _text(node.next)
            is_tail = True
            descend = False
        if raw is not None and state[_IN_SVG] != SVG_DRAWING:
            if raw is _BLANK:
                text = None
            else:
                text = _collapsed(raw)
                if text is None:
                    text = block_text(raw)
            if not text:
                pending_space = True
            elif len(texts) >= max_blocks:
                page.truncated = True
            else:
                edge = raw[0]
                space_before = pending_space or edge <= 32 or Py_UNICODE_ISSPACE(edge)
                edge = raw[len(raw) - 1]
                pending_space = edge <= 32 or Py_UNICODE_ISSPACE(edge)
                start = cursor if cursor < source_length else source_length
                word = _anchor_word(raw, &word_start)
                if word is not None:
                    window_end = cursor + 65536
                    searched_from = cursor
                    if missed_until:
                        searched_from = max(cursor, missed_until.get(word, 0) - len(word) + 1)
                    found = _find(source, word, searched_from, window_end)
                    if found >= 0:
                        start = max(found - word_start, cursor)
                    else:
                        if len(missed_until) >= 1024:
                            missed_until.clear()
                        missed_until[word] = window_end
                if start >= cursor:
                    cursor = start + len(raw)
                path_id = state[_PATH_ID]
                tag_path = path_strings.get(path_id)
                if tag_path is None:
                    segments = [entry[_SEGMENT] for entry in stack[max(len(stack) - segments_kept, 1) :]]
                    prefix = "…>" if len(stack) > segments_kept + 1 else ""
                    tag_path = path_strings[path_id] = prefix + ">".join([*segments, "#text"])
                texts.append(text)
                tag_paths.append(tag_path)
                block_elements.append((cetree.elementFactory(document, node), is_tail))
                end = start + len(raw)
                end = end if end < source_length else source_length
                rows += (start, end, pending_break, space_before, state[_NUMBER])
                pending_break = False
                node_number = len(node_chains)
                if siblings is None:
                    siblings = children_stack[-1] = [node_number]
                else:
                    siblings.append(node_number)
                node_chains.append(text_chain)
                node_sizes.append(0)
                node_run_starts.append(node_number)
        # ---- the next event: the first child, else this element's end, the next sibling or the parent's end
        if going_down:
            if descend:
                child = _first_walked(node.children)
                if child is not NULL:
                    node = child
                    continue
            going_down = False
            continue
        if node is top:
            break
        child = _first_walked(node.next)
        if child is not NULL:
            node = child
            going_down = True
        else:
            node = node.parent
    if len(top_children) > 1:
        node_chains.append(chains.setdefault((-1, "#root", ""), len(chains)))
        node_sizes.append(len(top_children))
        node_run_starts.append(node_run_starts[top_children[0]])
        all_children += top_children
    return bool(top_children)
