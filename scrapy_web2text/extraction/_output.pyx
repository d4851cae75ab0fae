# cython: language_level=3
"""The compiled twins of :func:`.output.block_xpaths` and of the heading climb of :func:`.output.find_title`: the
same paths and headings, read from libxml2's nodes.

:func:`.output.block_xpaths` is the reference and documents every step; ``tests/page/test_speedups.py`` holds the two to
identical paths.  A crawl asks for every block's path (the items' block records), and the Python original spends
most of its time asking lxml for proxies, tags, ``id`` values and parents (the measured cost: docs/speed.rst).
Here the same steps follow libxml2's ``parent``/``children``/``next`` pointers
(lxml's public C API), keyed by node address, and make a Python object only for what is returned.

A page where the original would read a name this module does not (an element in a namespace, whose lxml tag is
``{uri}name``) or whose block sits in something other than an element gets ``None``: the caller runs the original.
"""

from cpython.unicode cimport PyUnicode_DecodeUTF8
from libc.stdlib cimport calloc, free
from libc.string cimport strcmp, strlen
from lxml.includes cimport tree
from lxml.includes.tree cimport const_xmlChar, xmlAttr, xmlNode

cimport lxml.includes.etreepublic as cetree


cetree.import_lxml__etree()

#: lxml's version this module was compiled against (:mod:`scrapy_web2text.page.twins` checks the major version).
COMPILED_LXML_VERSION = cetree.LXML_VERSION_STRING.decode("ascii")


cdef enum:
    _NAME_SLOTS = 32  # distinct child names _AnchoredPaths._number_children counts in C


class NotReadable(Exception):
    """The page holds a node only the Python original reads exactly."""


cdef inline str _utf8(const_xmlChar* value):
    return PyUnicode_DecodeUTF8(<char*>value, strlen(<const char*>value), NULL)


cdef inline bint _element_like(xmlNode* node) noexcept nogil:
    """What lxml's ``getparent()`` returns as a parent (``_isElement``): not the document or a text node."""
    return node.type == tree.XML_ELEMENT_NODE or node.type == tree.XML_COMMENT_NODE or \
        node.type == tree.XML_ENTITY_REF_NODE or node.type == tree.XML_PI_NODE


cdef inline xmlNode* _parent(xmlNode* node) noexcept nogil:
    """``getparent()``: the parent, or NULL at the root element."""
    cdef xmlNode* parent = node.parent
    if parent is not NULL and _element_like(parent):
        return parent
    return NULL


cdef object _identifier(xmlNode* node):
    """``element.get("id")`` of an element (its ``id`` attribute in no namespace), ``None`` for other nodes or
    without one.  A value made of other nodes than text (lxml joins them through libxml2) is not read here."""
    if node.type != tree.XML_ELEMENT_NODE:
        return None
    cdef xmlAttr* attribute = node.properties
    cdef xmlNode* child
    cdef const_xmlChar* name
    while attribute is not NULL:
        name = attribute.name  # "id", compared byte by byte: every attribute of the page is tested
        if attribute.ns is NULL and name[0] == 105 and name[1] == 100 and name[2] == 0:
            child = attribute.children
            if child is NULL:
                return ""
            if child.next is NULL and (child.type == tree.XML_TEXT_NODE or child.type == tree.XML_CDATA_SECTION_NODE):
                return _utf8(child.content) if child.content is not NULL else ""
            raise NotReadable()
        attribute = attribute.next
    return None


cdef struct _Slot:
    size_t key
    size_t value


cdef class _NodeMap:
    """An open-addressing table from node addresses to a word, in C: the walk asks it once or more per block and
    per ancestor, and a dict would box every address into a Python int first."""

    cdef _Slot* slots
    cdef size_t mask
    cdef size_t used

    def __cinit__(self):
        self.mask = 1023
        self.used = 0
        self.slots = <_Slot*>calloc(self.mask + 1, sizeof(_Slot))
        if self.slots is NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.slots)

    cdef inline size_t _index(self, size_t key) noexcept nogil:
        return ((key >> 4) * <size_t>11400714819323198485ULL >> 20) & self.mask

    cdef size_t get(self, size_t key) noexcept nogil:
        """The value stored for ``key``, 0 if none (no value stored is 0)."""
        cdef size_t index = self._index(key)
        while self.slots[index].key != 0:
            if self.slots[index].key == key:
                return self.slots[index].value
            index = (index + 1) & self.mask
        return 0

    cdef int put(self, size_t key, size_t value) except -1:
        cdef size_t index
        if 2 * (self.used + 1) > self.mask + 1:
            self._grow()
        index = self._index(key)
        while self.slots[index].key != 0 and self.slots[index].key != key:
            index = (index + 1) & self.mask
        if self.slots[index].key == 0:
            self.used += 1
        self.slots[index].key = key
        self.slots[index].value = value
        return 0

    cdef int _grow(self) except -1:
        cdef _Slot* old = self.slots
        cdef size_t size = self.mask + 1, position
        self.slots = <_Slot*>calloc(2 * size, sizeof(_Slot))
        if self.slots is NULL:
            self.slots = old
            raise MemoryError()
        self.mask = 2 * size - 1
        self.used = 0
        for position in range(size):
            if old[position].key != 0:
                self.put(old[position].key, old[position].value)
        free(old)
        return 0


cdef class _AnchoredPaths:
    """Each node's anchored path, built from its parent's: ``//*[@id="X"]`` for a node whose ``id`` is unique in the
    page, else the parent's path and the node's step (``/name[k]`` among same-named element siblings, ``/name``
    without any), as :class:`.output._AbsolutePaths` numbers them, each parent's children once.  The same path as
    the original's absolute path of the owner with the part above its nearest uniquely identified ancestor
    replaced by that anchor.

    ``paths`` maps each node to its path's place in ``known`` (plus one: 0 is "none"), ``steps`` each numbered
    child to its position among its same-named siblings and their count (``position << 32 | count``)."""

    cdef _NodeMap paths
    cdef _NodeMap steps
    cdef list known
    cdef set unique
    cdef object tree
    cdef object document
    cdef Py_ssize_t limit

    def __cinit__(self, object tree, object document, set unique, Py_ssize_t limit):
        self.limit = limit
        self.paths = _NodeMap()
        self.steps = _NodeMap()
        self.known = []
        self.unique = unique
        self.tree = tree
        self.document = document

    cdef str path(self, xmlNode* node):
        cdef size_t place = self.paths.get(<size_t>node)
        if place:
            return self.known[place - 1]
        cdef list chain = []
        while node is not NULL:
            place = self.paths.get(<size_t>node)
            if place:
                break
            chain.append(<size_t>node)
            node = _parent(node)
        cdef str path = "" if node is NULL else self.known[place - 1]
        cdef xmlNode* parent
        cdef size_t key, step
        for key in reversed(chain):
            node = <xmlNode*>key
            if node.type != tree.XML_ELEMENT_NODE or node.ns is not NULL:
                raise NotReadable()
            parent = _parent(node)
            identifier = _identifier(node) if self.unique else None
            if identifier is not None and identifier in self.unique:
                path = f'//*[@id="{identifier}"]'
            elif parent is NULL:
                path = _cut(self.tree.getpath(cetree.elementFactory(self.document, node)), self.limit)  # the root
            else:
                step = self.steps.get(key)
                if not step:
                    self._number_children(parent)
                    step = self.steps.get(key)
                if step & 0xFFFFFFFF > 1:
                    path = _cut(f"{path}/{_utf8(node.name)}[{step >> 32}]", self.limit)
                else:
                    path = _cut(f"{path}/{_utf8(node.name)}", self.limit)
            self.known.append(path)
            self.paths.put(key, len(self.known))
        return path

    cdef int _number_children(self, xmlNode* parent) except -1:
        """Each element child's position among the children of its name, and their count, into ``steps``.

        The names are kept in a small table (a parent's children have few distinct names), compared by address:
        libxml2 keeps one copy of each name in the document's dictionary, and lxml moves the names of elements it
        moves between documents into the target's; by text where the addresses differ, in case a tree was built
        otherwise.  A parent with more distinct names than the table holds is numbered with a dict."""
        cdef const_xmlChar* names[_NAME_SLOTS]
        cdef size_t totals[_NAME_SLOTS]
        cdef size_t seen[_NAME_SLOTS]
        cdef int distinct = 0, slot
        cdef xmlNode* child = parent.children
        while child is not NULL:
            if child.type == tree.XML_ELEMENT_NODE:
                if child.ns is not NULL:
                    raise NotReadable()
                slot = _name_slot(names, distinct, child.name)
                if slot == distinct:
                    if distinct == _NAME_SLOTS:
                        return self._number_children_by_dict(parent)
                    names[slot] = child.name
                    totals[slot] = 0
                    seen[slot] = 0
                    distinct += 1
                totals[slot] += 1
            child = child.next
        child = parent.children
        while child is not NULL:
            if child.type == tree.XML_ELEMENT_NODE:
                slot = _name_slot(names, distinct, child.name)
                seen[slot] += 1
                self.steps.put(<size_t>child, (seen[slot] << 32) | totals[slot])
            child = child.next
        return 0

    cdef int _number_children_by_dict(self, xmlNode* parent) except -1:
        cdef dict totals = {}
        cdef dict seen = {}
        cdef xmlNode* child = parent.children
        cdef size_t count
        while child is not NULL:
            if child.type == tree.XML_ELEMENT_NODE:
                if child.ns is not NULL:
                    raise NotReadable()
                name = _utf8(child.name)
                totals[name] = totals.get(name, 0) + 1
            child = child.next
        child = parent.children
        while child is not NULL:
            if child.type == tree.XML_ELEMENT_NODE:
                name = _utf8(child.name)
                count = seen.get(name, 0) + 1
                seen[name] = count
                self.steps.put(<size_t>child, (count << 32) | <size_t>totals[name])
            child = child.next
        return 0


cdef inline int _name_slot(const_xmlChar** names, int distinct, const_xmlChar* name) noexcept nogil:
    """The slot of ``name`` among the first ``distinct`` names (the same address, else the same text), or
    ``distinct`` if it is not there."""
    cdef int slot
    for slot in range(distinct):
        if names[slot] == name:
            return slot
    for slot in range(distinct):
        if strcmp(<const char*>names[slot], <const char*>name) == 0:
            return slot
    return distinct


cdef set _unique_identifiers(xmlNode* top):
    """The ``id`` values that occur once under ``top`` (itself included) and hold no ``"``."""
    cdef dict seen = {}
    cdef xmlNode* node = top
    while node is not NULL:
        if node.type == tree.XML_ELEMENT_NODE and node.properties is not NULL:
            identifier = _identifier(node)
            if identifier:
                seen[identifier] = seen.get(identifier, 0) + 1
        # Pre-order: the first child, else the next sibling of the node or of its nearest ancestor below top.
        if node.children is not NULL and node.type == tree.XML_ELEMENT_NODE:
            node = node.children
            continue
        while node is not top and node.next is NULL:
            node = node.parent
        node = NULL if node is top else node.next
    return {identifier for identifier, count in seen.items() if count == 1 and '"' not in identifier}


cdef xmlNode* _owner_node(tuple item) except NULL:
    """The node a block's ``(element, is_tail)`` belongs to: the element, or its parent for a tail."""
    cdef cetree._Element element = item[0]
    if element is None:
        raise NotReadable()
    cdef xmlNode* parent
    if item[1]:
        parent = _parent(element._c_node)
        if parent is not NULL:
            return parent
    return element._c_node


cdef str _cut(str path, Py_ssize_t limit):
    """:func:`.output.cut_xpath`: ``//`` and the longest run of last whole steps that fits in ``limit``."""
    if len(path) <= limit:
        return path
    cdef Py_ssize_t start = len(path) - (limit - 1), boundary
    if path.startswith('//*[@id="'):
        start = max(start, path.index('"]') + 2)
    boundary = path.find("/", start)
    if boundary < 0:
        boundary = path.rfind("/")
    return "/" + path[boundary:]


def block_xpaths(cetree._Element root, list block_elements, Py_ssize_t limit):
    """:func:`.output.block_xpaths` for a page with a root, each path cut to ``limit`` characters; ``None`` where the
    original must run."""
    cdef _AnchoredPaths anchored
    cdef list paths = []
    try:
        anchored = _AnchoredPaths(root.getroottree(), root._doc, _unique_identifiers(root._c_node), limit)
        for item in block_elements:
            paths.append(anchored.path(_owner_node(item)))
    except NotReadable:
        return None
    return paths


cdef inline bint _is_lower_case_of(const_xmlChar* name, const char* lower) noexcept nogil:
    """``name.lower() == lower`` for an ASCII ``lower`` (a byte outside ASCII never lowers to ASCII here)."""
    cdef const unsigned char* byte = <const unsigned char*>name
    cdef const unsigned char* wanted = <const unsigned char*>lower
    cdef unsigned char c
    while wanted[0]:
        c = byte[0]
        if 65 <= c <= 90:
            c += 32
        if c != wanted[0]:
            return False
        byte += 1
        wanted += 1
    return byte[0] == 0


cdef inline bint _heading(xmlNode* node) noexcept nogil:
    """The element's local name, lower-cased, is ``h1`` to ``h6`` (lxml's tag, ``rpartition("}")`` and ``lower()``
    give the same): one test of the name's bytes, as the title asks it of every block."""
    if node.type != tree.XML_ELEMENT_NODE:
        return False
    cdef const unsigned char* name = <const unsigned char*>node.name
    return (name[0] == 104 or name[0] == 72) and 49 <= name[1] <= 54 and name[2] == 0


cdef enum:
    _MAX_INLINE_NAMES = 16


def first_blocks_of_headings(list block_elements, tuple inline_names):
    """(index of the first block, heading element) for each heading some block's text climbs to, in block order:
    from the block's element (its parent for a tail) up through elements named in ``inline_names``
    (:func:`.output.find_title`'s climb).  ``None`` where a block has no element."""
    cdef tuple inline = tuple(name.encode("ascii") for name in inline_names)
    # The names as C strings, compared without a Python loop per element (``inline`` keeps them alive).
    cdef const char* inline_c[_MAX_INLINE_NAMES]
    cdef Py_ssize_t inline_count = len(inline), position
    if inline_count > _MAX_INLINE_NAMES:
        raise ValueError(f"at most {_MAX_INLINE_NAMES} inline names")
    for position in range(inline_count):
        inline_c[position] = <bytes>inline[position]
    cdef set seen = set()
    cdef list found = []
    cdef xmlNode* heading
    cdef cetree._Element element
    cdef Py_ssize_t index = 0
    cdef bint climbs
    for item in block_elements:
        if item[0] is None:
            return None
        element = item[0]
        heading = _owner_node(item)
        while heading is not NULL and not _heading(heading):
            climbs = False
            if heading.type == tree.XML_ELEMENT_NODE:
                for position in range(inline_count):
                    if _is_lower_case_of(heading.name, inline_c[position]):
                        climbs = True
                        break
            heading = _parent(heading) if climbs else NULL
        if heading is not NULL and <size_t>heading not in seen:
            seen.add(<size_t>heading)
            found.append((index, cetree.elementFactory(element._doc, heading)))
        index += 1
    return found
