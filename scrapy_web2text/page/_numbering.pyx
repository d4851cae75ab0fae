# cython: language_level=3
"""The numbering of the CDOM nodes of :func:`.numbering.number_nodes`, compiled: the same steps in loops over C arrays.

:func:`.numbering.number_nodes` is the reference and explains the numbering; ``tests/page/test_speedups.py`` holds
the two to identical node tables, nodes and block columns.  It reads the walk's lists from the walker object and
stores the result with :func:`.numbering.fill_page`, as the Python numbering does.
"""

from libc.stdint cimport int64_t

from .nodes cimport ATTRIBUTES_ID, DEPTH, END_BLOCK, FIRST_BLOCK, N_CHILDREN, NODE_WIDTH, PARENT, TAGS_ID

import numpy as np

from .numbering import fill_page


cdef _int64_array(list values):
    """``np.array(values, np.int64)`` for a list of ints (and bools): one C conversion per item instead of numpy's
    look at each item's type (a quarter of the time, on the walk's lists of a few thousand)."""
    cdef Py_ssize_t n = len(values), i
    out = np.empty(n, np.int64)
    cdef int64_t[::1] view = out
    for i in range(n):
        view[i] = values[i]
    return out


cdef tuple _unchain(list links, Py_ssize_t chain):
    """:func:`.numbering._unchain`: the tags and the attributes of a chain, outermost first (a Python call for each of a
    page's hundred-odd chains cost more than the loop)."""
    cdef list tags = [], attributes = []
    cdef tuple link
    while chain >= 0:
        link = <tuple>links[chain]
        chain = link[0]
        tags.append(link[1])
        if link[2]:
            attributes.append(link[2])
    return tuple(tags), " ".join(attributes)


def number_nodes(walker):
    """:func:`.numbering.number_nodes`: the same numbering and the same ``page`` fields, in loops over C arrays."""
    cdef Py_ssize_t count = len(walker.node_chains)
    sizes_array = _int64_array(walker.node_sizes)
    run_starts_array = _int64_array(walker.node_run_starts)
    chains_array = _int64_array(walker.node_chains)
    children_array = _int64_array(walker.children)
    # The block and state rows as arrays already: fill_page's np.array of them is then a copy.
    walker.block_rows, walker.state_rows = _int64_array(walker.block_rows), _int64_array(walker.state_rows)
    cdef const int64_t[::1] sizes = sizes_array
    cdef const int64_t[::1] run_starts = run_starts_array
    cdef const int64_t[::1] node_chains = chains_array
    cdef const int64_t[::1] children = children_array
    parents_array = np.full(count, -1, np.int64)
    depths_array = np.zeros(count, np.int64)
    preorder_array = np.empty(count, np.int64)
    leaves_array = np.empty(count, np.int64)
    order_array = np.empty(count, np.int64)
    cdef int64_t[::1] parents = parents_array
    cdef int64_t[::1] depths = depths_array
    cdef int64_t[::1] preorder = preorder_array
    cdef int64_t[::1] leaves_through = leaves_array
    cdef int64_t[::1] order = order_array
    cdef Py_ssize_t node, child, position = 0, leaves = 0, row, start
    # Nodes were made in post-order and the children of each inner node are the next entries of ``children``.
    for node in range(count):
        for child in range(sizes[node]):
            parents[children[position]] = node
            position += 1
    for node in range(count - 2, -1, -1):  # parents come after their children: down from the root
        depths[node] = depths[parents[node]] + 1
    for node in range(count):
        preorder[node] = run_starts[node] + depths[node]
        leaves += sizes[node] == 0
        leaves_through[node] = leaves
        order[preorder[node]] = node
    node_table_array = np.empty((count, NODE_WIDTH), np.int64)
    cdef int64_t[:, ::1] node_table = node_table_array
    cdef list links = list(walker.chains)
    numbers_array = np.full((len(links), 2), -1, np.int64)
    cdef int64_t[:, ::1] numbers = numbers_array
    cdef dict tag_ids = {}
    cdef dict attribute_ids = {"": 0}
    cdef int64_t chain
    for row in range(count):
        node = order[row]
        start = run_starts[node]
        node_table[row, PARENT] = preorder[parents[node]] if parents[node] >= 0 else -1
        node_table[row, DEPTH] = depths[node]
        node_table[row, FIRST_BLOCK] = leaves_through[start] - (sizes[start] == 0)
        node_table[row, END_BLOCK] = leaves_through[node]
        node_table[row, N_CHILDREN] = sizes[node]
        # Equal tag lists and attribute strings are numbered in pre-order of first use (the empty attributes first).
        chain = node_chains[node]
        if numbers[chain, 0] < 0:
            tags, attributes = _unchain(links, chain)
            numbers[chain, 0] = tag_ids.setdefault(tags, len(tag_ids))
            numbers[chain, 1] = attribute_ids.setdefault(attributes, len(attribute_ids))
        node_table[row, TAGS_ID] = numbers[chain, 0]
        node_table[row, ATTRIBUTES_ID] = numbers[chain, 1]
    fill_page(walker, node_table_array, tag_ids, attribute_ids, preorder_array[sizes_array == 0])
