"""The numbering of a page's CDOM nodes, after the walk (:mod:`.walk`): ``Page.node_table`` and the block columns.

:func:`number_nodes` is the reference; ``_numbering.pyx`` is its compiled twin (``tests/page/test_speedups.py`` holds
the two to identical pages).  Nodes were made in post-order, where a subtree is one run ending at its root: in
pre-order a node comes after the nodes of the subtrees to its left (the run before its own) and after its
ancestors, so its pre-order number is the start of its run plus its depth.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .nodes import ATTRIBUTES_ID, DEPTH, END_BLOCK, FIRST_BLOCK, N_CHILDREN, NODE_COLUMNS, PARENT, TAGS_ID

#: The per-block columns the walk records, each the ``Page`` attribute of that name (int64; bool if in
#: ``_BOOL_BLOCK_COLUMNS``): the text's, in the order of the row :meth:`.Walker.add_block` appends for a block, then
#: the open element's state's, in the order of the state's row (a new column: a name here, a value in that row).
TEXT_COLUMNS = ("starts", "ends", "break_before", "space_before")
STATE_COLUMNS = ("path_ids", "in_link", "ancestor_tags", "ancestor_keywords")
BLOCK_COLUMNS = TEXT_COLUMNS + STATE_COLUMNS
_BOOL_BLOCK_COLUMNS = frozenset({"in_link", "break_before", "space_before"})


def _unchain(links: list[tuple[int, str, str]], chain: int) -> tuple[tuple[str, ...], str]:
    """The tags and the attributes of a chain, outermost first."""
    tags, attributes = [], []
    while chain >= 0:
        chain, tag, attribute = links[chain]
        tags.append(tag)
        if attribute:
            attributes.append(attribute)
    return tuple(tags), " ".join(attributes)


def number_nodes(walker: Any) -> None:
    """Number the CDOM nodes the :class:`.Walker` made in pre-order into ``page.node_table``; fill the block
    columns."""
    count = len(walker.node_chains)  # the root is the last node made
    n_children = np.array(walker.node_sizes, np.int64)
    parents = np.full(count, -1, np.int64)
    parents[walker.children] = np.repeat(np.arange(count), n_children)
    depth_list = [0] * count  # parents are made after their children: walk down from the root
    parent_list = parents.tolist()
    for node in range(count - 2, -1, -1):
        depth_list[node] = depth_list[parent_list[node]] + 1
    depths = np.array(depth_list, np.int64)
    run_starts = np.array(walker.node_run_starts, np.int64)
    preorder = run_starts + depths
    is_leaf = n_children == 0
    leaves_through = np.cumsum(is_leaf)  # leaves up to and including each node (post-order)
    order = np.empty(count, np.int64)
    order[preorder] = np.arange(count)
    node_table = np.empty((count, len(NODE_COLUMNS)), np.int64)
    node_table[:, PARENT] = np.where(parents >= 0, preorder[parents], -1)[order]
    node_table[:, DEPTH] = depths[order]
    node_table[:, FIRST_BLOCK] = (leaves_through[run_starts] - is_leaf[run_starts])[order]
    node_table[:, END_BLOCK] = leaves_through[order]
    node_table[:, N_CHILDREN] = n_children[order]
    # Equal tag lists and attribute strings are stored once and numbered in pre-order of first use (the empty
    # attributes first): the features compare and look up numbers, and nodes share the objects.
    node_chains = np.array(walker.node_chains, np.int64)[order]
    used, first_use = np.unique(node_chains, return_index=True)
    links = list(walker.chains)
    tag_ids: dict[tuple[str, ...], int] = {}
    attribute_ids = {"": 0}
    numbers = np.zeros((len(links), 2), np.int64)
    for chain in used[np.argsort(first_use)].tolist():
        tags, attributes = _unchain(links, chain)
        numbers[chain] = (
            tag_ids.setdefault(tags, len(tag_ids)),
            attribute_ids.setdefault(attributes, len(attribute_ids)),
        )
    node_table[:, TAGS_ID] = numbers[node_chains, 0]
    node_table[:, ATTRIBUTES_ID] = numbers[node_chains, 1]
    fill_page(walker, node_table, tag_ids, attribute_ids, preorder[is_leaf])


def fill_page(walker: Any, node_table: np.ndarray, tag_ids: dict, attribute_ids: dict, block_nodes: np.ndarray) -> None:
    """The last step of :func:`number_nodes` and of its compiled twin: the numbered nodes (``node_table`` in
    pre-order; tag lists and attribute strings in id order), the blocks' nodes and the block columns the walk
    recorded."""
    page = walker.page
    page.distinct_tags[:], page.distinct_attributes[:] = tag_ids, attribute_ids
    page.node_table, page.block_nodes = node_table, block_nodes
    del page.nodes  # made from node_table on first read (Page.__getattr__)
    text_columns = np.array(walker.block_rows, np.int64).reshape(-1, len(TEXT_COLUMNS) + 1)
    state_columns = np.array(walker.state_rows, np.int64).reshape(-1, len(STATE_COLUMNS))[text_columns[:, -1]]
    for names, columns in ((TEXT_COLUMNS, text_columns), (STATE_COLUMNS, state_columns)):
        for position, name in enumerate(names):
            column = columns[:, position]
            setattr(page, name, column.astype(bool) if name in _BOOL_BLOCK_COLUMNS else column)
