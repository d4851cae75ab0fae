"""lxml tree → Collapsed DOM → blocks.

The page is parsed (:mod:`.parse`) with lxml's HTML parser (no network, no entity
expansion), preprocessed as in Vogels et al. (2018, §3.1) and collapsed:
every node with exactly one child is merged with that child, so that
"parent" and "grandparent" mean the semantic parent (two links in sibling
``<li><a>`` share the ``<ul>``).  The leaves of the Collapsed DOM are the
blocks, in document order.

Everything here is iterative: a page nested 100,000 elements deep cannot
raise ``RecursionError``.  libxml2 itself gives up at an element depth of
2048 and drops the rest of the page; such a page is parsed again with its
nesting beyond :data:`~.flatten.MAX_NESTING` unwrapped (see
:func:`~.flatten.flatten_nesting`), so no text is lost.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from lxml import etree

from .compiled import SPEEDUPS
from .elements import _ELEMENT_CACHE, _TAG_TABLE, _describe_element, _describe_tag
from .marks import MARKING_ATTRIBUTES, attribute_marks, head_titles
from .nodes import CDOMNode, nodes_from_table

MAX_BLOCKS = 50_000  # blocks past this number are dropped; Page.truncated says so

#: Trailing segments a tag path keeps (its id tells full paths apart): 100,000-deep pages make no quadratic strings.
TAG_PATH_SEGMENTS = 24

#: Whitespace and C0 control characters: blank in block text (C0 controls show nothing; XML 1.0 forbids them).
_BLANK = re.compile(r"[\s\x00-\x1f]+")
#: Noncharacters that XML 1.0 forbids, as U+FFFD (in the page source and, for trees parsed elsewhere, in blocks).
_NONCHARACTERS = {0xFFFE: 0xFFFD, 0xFFFF: 0xFFFD}


def block_text(raw: str) -> str:
    """A text node as a block's text: blank runs collapsed to one space, trimmed, U+FFFE/U+FFFF (not XML) replaced."""
    text = _BLANK.sub(" ", raw).strip()
    return text.translate(_NONCHARACTERS) if "\ufffe" in text or "\uffff" in text else text


_ANCHOR_WORD = re.compile(r"\w{3,24}|\w+")


@dataclass
class Page:
    """A parsed page: its CDOM nodes and, per block, parallel arrays."""

    source: str
    nodes: list[CDOMNode] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    tag_paths: list[str] = field(default_factory=list)
    #: Per block: CDOM node index, source offsets, flags (numpy arrays).
    block_nodes: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    starts: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    ends: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    path_ids: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    in_link: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    break_before: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    #: Per block: bit masks of ancestor tags / class-id keywords (features.py).
    ancestor_tags: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    ancestor_keywords: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    #: Per CDOM node, the columns of ``NODE_COLUMNS``: parent, depth, first_block, end_block, n_children, and
    #: the node's index in ``distinct_tags`` and in ``distinct_attributes`` (equal ids: equal values).
    node_table: np.ndarray = field(default_factory=lambda: np.zeros((0, 7), np.int64))
    distinct_tags: list[tuple[str, ...]] = field(default_factory=list)
    distinct_attributes: list[str] = field(default_factory=list)
    #: The parsed lxml tree (``None`` for an empty page) and, per block, where its text sits in it:
    #: ``(element, False)`` for ``element.text``, ``(element, True)`` for ``element.tail``.  Output formats
    #: (Markdown, clean HTML, titles, block paths) read them; labellers do not.
    root: Any = field(default=None, repr=False)
    block_elements: list[tuple[Any, bool]] = field(default_factory=list, repr=False)
    truncated: bool = False
    title: str = ""  # the <head>'s <title> and og:title ("" if none)
    og_title: str = ""
    #: libxml2 hit its nesting limit: elements nested deeper than ``MAX_NESTING`` were unwrapped (text kept).
    flattened: bool = False
    #: An element had more than ``attributes.MAX_ATTRIBUTES`` attributes: those past the cap were removed.
    stripped_attributes: bool = False
    #: The page's text was read from its ``<noscript>`` elements (``parse.NOSCRIPT_SHARE``).
    from_noscript: bool = False

    def __len__(self) -> int:
        return len(self.texts)

    def __getattr__(self, name: str) -> Any:
        # Reached only where the ordinary look-up fails: for ``nodes`` on a page the walk filled, which leaves them
        # to be made on first read (:mod:`.nodes`).  Two threads racing here make equal lists; either one is kept.
        if name != "nodes" or "node_table" not in self.__dict__:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        self.nodes = nodes_from_table(self.node_table, self.distinct_tags, self.distinct_attributes)
        return self.nodes


#: The per-block columns the walk records, each the ``Page`` attribute of that name (int64; bool if in
#: ``_BOOL_BLOCK_COLUMNS``): the text's, in the order of the row :meth:`_Walker.walk` appends for a block, then the
#: open element's state's, in the order of the state's row (a new column: a name here, a value in that row).
_TEXT_COLUMNS = ("starts", "ends", "break_before")
_STATE_COLUMNS = ("path_ids", "in_link", "ancestor_tags", "ancestor_keywords")
BLOCK_COLUMNS = _TEXT_COLUMNS + _STATE_COLUMNS
_BOOL_BLOCK_COLUMNS = frozenset({"in_link", "break_before"})
#: The per-node columns of ``Page.node_table``, in order.
NODE_COLUMNS = ("parent", "depth", "first_block", "end_block", "n_children", "tags_id", "attributes_id")


#: The compiled walk and numbering (:mod:`.compiled`), or ``None``: :meth:`_Walker.walk` runs.
compiled_walk, compiled_finish = (SPEEDUPS.walk, SPEEDUPS.finish) if SPEEDUPS is not None else (None, None)


def collect_blocks(page: Page, root, max_blocks: int = MAX_BLOCKS) -> None:
    """Walk the lxml tree under ``root`` into ``page``'s CDOM nodes and blocks (and read the head's titles)."""
    page.title, page.og_title = map(block_text, head_titles(root))
    page.root = root
    walker = _Walker(page, max_blocks)
    if compiled_walk is None or not isinstance(root, etree._Element):
        walker.walk(root)
    elif compiled_walk(walker, root):
        compiled_finish(walker)


# While the page is walked, an open element is a state, shared by the siblings that look alike (same parent state,
# tag, class, id and attribute marks): (number, tag, attributes, path id, ancestor tag mask, ancestor keyword mask,
# in link, segment, block-level), looked up once per element, at its start (its end reads the state).  A CDOM node
# is numbered when it is made (a leaf at its text, an inner node when an element with two or more children closes):
# that is post-order, and ``_finish`` renumbers in pre-order.  A node's tags and attributes are a chain, numbered per
# page: (the chain inside it, the tag and the attributes of the element that collapsed around it), so a collapse is
# one look-up and equal tag lists are one number; only the distinct chains become tuples and strings, at the end.
_NUMBER, _TAG, _ATTRIBUTES, _PATH_ID, _TAG_MASK, _KEYWORD_MASK, _IN_LINK, _SEGMENT, _BLOCK_LEVEL = range(9)
_TEXT_CHAIN = 0  # the chain of a leaf: ("#text",), no attributes


def _unchain(links: list[tuple[int, str, str]], chain: int) -> tuple[tuple[str, ...], str]:
    """The tags and the attributes of a chain, outermost first."""
    tags, attributes = [], []
    while chain >= 0:
        chain, tag, attribute = links[chain]
        tags.append(tag)
        if attribute:
            attributes.append(attribute)
    return tuple(tags), " ".join(attributes)


class _Walker:
    """One pass over the lxml tree: preprocess, collapse, collect blocks.

    The loop body runs twice per element of the page, so it is one function with everything it needs bound to
    locals, flat lists and tuples instead of objects, and per-tag and per-state tables instead of string tests.
    """

    # What the compiled walk and numbering (_cdom.pyx, _numbering.pyx) read of this module, which imports them (the
    # walk's anchor word is _ANCHOR_WORD's match written out there, _unchain is written out in _numbering.pyx:
    # tests/test_speedups.py compares the walks' node tables).
    TEXT_CHAIN, TAG_PATH_SEGMENTS = _TEXT_CHAIN, TAG_PATH_SEGMENTS
    STATE_WIDTH, NODE_WIDTH = len(_STATE_COLUMNS), len(NODE_COLUMNS)
    block_text = staticmethod(block_text)

    def __init__(self, page: Page, max_blocks: int):
        self.page = page
        self.max_blocks = max_blocks
        #: Per block, flat: ``_TEXT_COLUMNS``, then the state number.
        self.block_rows: list[int] = []
        #: Per state number, flat: ``_STATE_COLUMNS``.
        self.state_rows: list[int] = [0] * len(_STATE_COLUMNS)  # the root state
        #: Per CDOM node, in post-order: chain, number of children, first node of its subtree.
        self.node_chains: list[int] = []
        self.node_sizes: list[int] = []
        self.node_run_starts: list[int] = []
        #: The children of the inner nodes, one after the other in node order.
        self.children: list[int] = []
        #: (inner chain, tag, attributes) → chain number, numbered in order.
        self.chains: dict[tuple[int, str, str], int] = {(-1, "#text", ""): _TEXT_CHAIN}

    def walk(self, root) -> None:  # noqa: C901 - one loop on purpose (see the class docstring)
        page = self.page
        source = page.source
        source_length = len(source)
        max_blocks = self.max_blocks
        texts, tag_paths, rows, block_elements = page.texts, page.tag_paths, self.block_rows, page.block_elements
        state_rows, node_chains, chains = self.state_rows, self.node_chains, self.chains
        node_sizes, node_run_starts, all_children = self.node_sizes, self.node_run_starts, self.children
        tag_table, element_cache, anchor_search = _TAG_TABLE, _ELEMENT_CACHE, _ANCHOR_WORD.search
        unmarked = MARKING_ATTRIBUTES.isdisjoint
        paths: dict[tuple[int, str], int] = {}  # (parent path id, segment) → path id
        path_strings: dict[int, str] = {}  # path id → tag path: the id fixes every segment of the path
        states: dict[tuple, tuple] = {}  # (parent state number, lxml tag, class, id[, marks]) → state
        top_children: list[int] = []
        state = (0, "#root", "", 0, 0, 0, False, "", False)
        siblings = top_children
        stack = [(state, siblings)]
        pending_break = False
        cursor = 0
        missed_until: dict[str, int] = {}  # word → end of a window it is absent from
        skipped_element, skipped_block_level = None, False
        events = etree.iterwalk(root, events=("start", "end"))
        for event, element in events:
            if event == "start":
                raw_tag = element.tag
                tag, block_level, skipped, tag_bit, is_link = tag_table.get(raw_tag) or _describe_tag(raw_tag)
                if block_level:
                    pending_break = True
                if skipped:
                    events.skip_subtree()  # its end event comes next
                    skipped_element, skipped_block_level = element, block_level
                    continue
                # Open the element: find its state (tag path segment, path id, ancestor masks) or make it.
                keys = element.keys()
                if keys:
                    get = element.get
                    if unmarked(keys):
                        key = (state[0], raw_tag, get("class"), get("id"))
                    else:
                        key = (state[0], raw_tag, get("class"), get("id"), attribute_marks(get))
                else:
                    key = (state[0], raw_tag)
                opened = states.get(key)
                if opened is None:
                    described = (tag, key[2], key[3]) if len(key) > 2 else (tag, None, None)
                    attributes, segment, keyword_mask = element_cache.get(described) or _describe_element(*described)
                    path_key = (state[_PATH_ID], segment)
                    path_id = paths.get(path_key)
                    if path_id is None:
                        path_id = paths[path_key] = len(paths) + 1
                    if len(key) > 4:
                        tag_bit |= key[4]
                    opened = states[key] = (
                        len(state_rows) // len(_STATE_COLUMNS),
                        tag,
                        attributes,
                        path_id,
                        state[_TAG_MASK] | tag_bit,
                        state[_KEYWORD_MASK] | keyword_mask,
                        state[_IN_LINK] or is_link,
                        segment,
                        block_level,
                    )
                    state_rows += (path_id, opened[_IN_LINK], opened[_TAG_MASK], opened[_KEYWORD_MASK])
                state = opened
                siblings = []
                stack.append((state, siblings))
                raw, is_tail = element.text, False
            else:
                if element is skipped_element:
                    skipped_element = None
                    if skipped_block_level:
                        pending_break = True
                else:
                    closed, children = stack.pop()
                    state, siblings = stack[-1]
                    # An element with nothing below is dropped (the preprocessing step); one with a
                    # single child merges into it (the collapse step).
                    if children:
                        if len(children) == 1:
                            node = children[0]
                            link = (node_chains[node], closed[_TAG], closed[_ATTRIBUTES])
                            node_chains[node] = chains.setdefault(link, len(chains))
                        else:
                            node = len(node_chains)
                            link = (-1, closed[_TAG], closed[_ATTRIBUTES])
                            node_chains.append(chains.setdefault(link, len(chains)))
                            node_sizes.append(len(children))
                            node_run_starts.append(node_run_starts[children[0]])
                            all_children += children
                        siblings.append(node)
                    if closed[_BLOCK_LEVEL]:
                        pending_break = True
                raw, is_tail = element.tail, True
            if not raw or raw.isspace():
                continue
            # The block text: blank runs collapsed.  str.split() splits on exactly the regex's \s; a text that
            # still holds a C0 control (not printable) goes through the regex.
            text = " ".join(raw.split())
            if not text.isprintable():
                text = block_text(raw)
                if not text:
                    continue
            if len(texts) >= max_blocks:
                page.truncated = True
                continue
            # Best-effort source offset: lxml keeps none, so the first word of the text is searched for after
            # the previous block, in a bounded window so that a miss (an entity-escaped word) costs O(window).
            # Where a word is known to be absent the window is not searched again (the cursor only moves on):
            # 5,000 blocks of one word behind a 200 KB attribute searched 5,000 windows of 64 KiB.
            start = cursor if cursor < source_length else source_length
            match = anchor_search(raw)
            if match:
                word = match.group()
                window_end = cursor + 65536
                searched_from = max(cursor, missed_until.get(word, 0) - len(word) + 1) if missed_until else cursor
                found = source.find(word, searched_from, window_end)
                if found >= 0:
                    start = max(found - match.start(), cursor)
                else:
                    if len(missed_until) >= 1024:
                        missed_until.clear()
                    missed_until[word] = window_end
            if start >= cursor:
                cursor = start + len(raw)
            path_id = state[_PATH_ID]
            tag_path = path_strings.get(path_id)
            if tag_path is None:
                segments = [entry[0][_SEGMENT] for entry in stack[-TAG_PATH_SEGMENTS:] if entry is not stack[0]]
                prefix = "…>" if len(stack) > TAG_PATH_SEGMENTS + 1 else ""
                tag_path = path_strings[path_id] = prefix + ">".join([*segments, "#text"])
            texts.append(text)
            tag_paths.append(tag_path)
            block_elements.append((element, is_tail))
            end = start + len(raw)
            rows += (start, end if end < source_length else source_length, pending_break, state[0])
            pending_break = False
            node = len(node_chains)
            siblings.append(node)
            node_chains.append(_TEXT_CHAIN)
            node_sizes.append(0)
            node_run_starts.append(node)
        if len(top_children) > 1:  # the top elements are nodes side by side: a root node holds them
            node_chains.append(chains.setdefault((-1, "#root", ""), len(chains)))
            node_sizes.append(len(top_children))
            node_run_starts.append(node_run_starts[top_children[0]])
            all_children += top_children
        if top_children:
            self._finish()

    def _finish(self) -> None:
        """Number the CDOM nodes in pre-order into ``page.node_table`` and ``page.nodes``; fill the block columns.

        Nodes were made in post-order, where a subtree is one run ending at its root: in pre-order a node comes
        after the nodes of the subtrees to its left (the run before its own) and after its ancestors, so its
        pre-order number is the start of its run plus its depth.
        """
        count = len(self.node_chains)  # the root is the last node made
        n_children = np.array(self.node_sizes, np.int64)
        parents = np.full(count, -1, np.int64)
        parents[self.children] = np.repeat(np.arange(count), n_children)
        depth_list = [0] * count  # parents are made after their children: walk down from the root
        parent_list = parents.tolist()
        for node in range(count - 2, -1, -1):
            depth_list[node] = depth_list[parent_list[node]] + 1
        depths = np.array(depth_list, np.int64)
        run_starts = np.array(self.node_run_starts, np.int64)
        preorder = run_starts + depths
        is_leaf = n_children == 0
        leaves_through = np.cumsum(is_leaf)  # leaves up to and including each node (post-order)
        order = np.empty(count, np.int64)
        order[preorder] = np.arange(count)
        node_table = np.empty((count, len(NODE_COLUMNS)), np.int64)
        parent_rows = np.where(parents >= 0, preorder[parents], -1)
        first_blocks = leaves_through[run_starts] - is_leaf[run_starts]
        for position, column in enumerate((parent_rows, depths, first_blocks, leaves_through, n_children)):
            node_table[:, position] = column[order]
        # Equal tag lists and attribute strings are stored once and numbered in pre-order of first use (the empty
        # attributes first): the features compare and look up numbers, and nodes share the objects.
        node_chains = np.array(self.node_chains, np.int64)[order]
        used, first_use = np.unique(node_chains, return_index=True)
        links = list(self.chains)
        tag_ids: dict[tuple[str, ...], int] = {}
        attribute_ids = {"": 0}
        numbers = np.zeros((len(links), 2), np.int64)
        for chain in used[np.argsort(first_use)].tolist():
            tags, attributes = _unchain(links, chain)
            numbers[chain] = (
                tag_ids.setdefault(tags, len(tag_ids)),
                attribute_ids.setdefault(attributes, len(attribute_ids)),
            )
        node_table[:, 5:] = numbers[node_chains]
        self.fill_page(node_table, tag_ids, attribute_ids, preorder[is_leaf])

    def fill_page(self, node_table: np.ndarray, tag_ids: dict, attribute_ids: dict, block_nodes: np.ndarray) -> None:
        """The last step of :meth:`_finish` and of its compiled twin: the numbered nodes (``node_table`` in pre-order;
        tag lists and attribute strings in id order), the blocks' nodes and the block columns the walk recorded."""
        page = self.page
        page.distinct_tags[:], page.distinct_attributes[:] = tag_ids, attribute_ids
        page.node_table, page.block_nodes = node_table, block_nodes
        del page.nodes  # made from node_table on first read (Page.__getattr__)
        text_columns = np.array(self.block_rows, np.int64).reshape(-1, len(_TEXT_COLUMNS) + 1)
        state_columns = np.array(self.state_rows, np.int64).reshape(-1, len(_STATE_COLUMNS))[text_columns[:, -1]]
        for names, columns in ((_TEXT_COLUMNS, text_columns), (_STATE_COLUMNS, state_columns)):
            for position, name in enumerate(names):
                column = columns[:, position]
                setattr(page, name, column.astype(bool) if name in _BOOL_BLOCK_COLUMNS else column)
