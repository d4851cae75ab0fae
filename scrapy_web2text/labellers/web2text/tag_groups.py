"""The tag groups the block features test (the block's node's tags, its parent's, headings for the edges), and
each distinct tag list's group bits, looked up once per tag list from a cache shared by all pages; and the ancestor
tag and class/id keyword marks the features see (:func:`ancestor_marks`, :func:`keyword_marks`)."""

from __future__ import annotations

import functools
import operator

import numpy as np

from ...page import Page
from ...page.elements import keyword_mask
from ...page.marks import RULE_ONLY_BITS
from ...page.nodes import ATTRIBUTES_ID, END_BLOCK, FIRST_BLOCK, PARENT, TAGS_ID
from ...page.tags import ANCESTOR_KEYWORD_BITS, ANCESTOR_TAG_BITS

#: Tags of the block's own (collapsed) node: one binary column per group.
NODE_TAGS = (
    "p",
    "a",
    "li",
    "td|th",
    "div",
    "span",
    "h1",
    "h2",
    "h3|h4|h5|h6",
    "b|strong",
    "em|i",
    "option|select",
    "label|button",
    "blockquote|q",
    "pre|code",
    "dt|dd",
    "time",
    "figcaption|caption",
)
#: Tags of the parent node.
PARENT_TAGS = ("p", "ul|ol", "table|tbody|tr", "div", "body", "form", "nav", "span")
#: Headings, for the edge features.
HEADING_TAGS = ("h1|h2|h3|h4|h5|h6",)
#: Every group's bit: the node's groups, then the parent's, then headings.
_GROUP_OFFSETS = {NODE_TAGS: 0, PARENT_TAGS: len(NODE_TAGS), HEADING_TAGS: len(NODE_TAGS) + len(PARENT_TAGS)}
#: tag → the bits of the groups that name it.
_TAG_BITS: dict[str, int] = {}
for _groups, _offset in _GROUP_OFFSETS.items():
    for _column, _group in enumerate(_groups):
        for _tag in _group.split("|"):
            _TAG_BITS[_tag] = _TAG_BITS.get(_tag, 0) | 1 << (_offset + _column)
#: A node's tag list → its group bits, shared by all pages: pages and sites repeat their tag lists.  Bounded by
#: entries; lists over ``_CACHED_TAG_LIST_MAX`` tags (a hostile page's long collapse chains) are not kept.
_TAG_LIST_BITS: dict[tuple[str, ...], int] = {}
_TAG_LIST_CACHE_SIZE = 20_000
_CACHED_TAG_LIST_MAX = 32


def tag_list_bits(page: Page) -> np.ndarray:
    """The group bits of each distinct tag list of the page (index by ``tags_id``): one look-up per list."""
    cache, tag_bits = _TAG_LIST_BITS, _TAG_BITS.get
    out = []
    for tags in page.distinct_tags:
        bits = cache.get(tags)
        if bits is None:
            bits = 0
            for tag in tags:
                bits |= tag_bits(tag, 0)
            if len(tags) <= _CACHED_TAG_LIST_MAX:
                if len(cache) >= _TAG_LIST_CACHE_SIZE:
                    cache.clear()
                cache[tags] = bits
        out.append(bits)
    return np.array(out, np.int64)


def tag_masks(bits: np.ndarray, groups: tuple[str, ...]) -> np.ndarray:
    """(n_distinct_tag_lists, n_groups) booleans from :func:`tag_list_bits`: does the tag list hit the group."""
    offset = _GROUP_OFFSETS[groups]
    return (bits[:, None] >> np.arange(offset, offset + len(groups))) & 1 != 0


def group_bits(bits: np.ndarray, groups: tuple[str, ...]) -> np.ndarray:
    """:func:`tag_list_bits` of ``groups`` alone, the first group's bit at bit 0 (``tag_masks`` packed)."""
    return (bits >> _GROUP_OFFSETS[groups]) & ((1 << len(groups)) - 1)


def group_bit(groups: tuple[str, ...], group: str) -> int:
    """Where ``group`` of ``groups`` is among :func:`tag_list_bits`' bits."""
    return _GROUP_OFFSETS[groups] + groups.index(group)


def group_mask(bits: np.ndarray, groups: tuple[str, ...], group: str) -> np.ndarray:
    """``tag_masks(bits, groups)[:, groups.index(group)]``, without the other groups' columns."""
    return (bits >> group_bit(groups, group)) & 1 != 0


#: Landmarks that are short by nature: one holding more than ``DOMINANT_SHARE`` of the page's characters is markup
#: that never closed (every later element nests inside it) or a page wrapped in ``<header>``, not the page's header
#: or navigation, and does not mark its blocks.  Footers and asides stay: a footer's link directory or a sidebar
#: of widgets can outweigh a short article.
SHORT_LANDMARKS = ("nav", "header")
DOMINANT_SHARE = 0.5
_SHORT_LANDMARK_BITS = functools.reduce(operator.or_, (ANCESTOR_TAG_BITS[tag] for tag in SHORT_LANDMARKS))


def ancestor_marks(page: Page, lengths: np.ndarray | None = None) -> np.ndarray:
    """``page.ancestor_tags`` without the rules' own marks (``marks.RULE_ONLY_BITS``), and without the
    ``nav``/``header`` mark of an element holding most of the page's text.

    A block keeps the mark when a smaller element of the same tag (inside the dominant one) holds it too.  Most
    pages return ``page.ancestor_tags`` itself after one sum per landmark.  ``lengths``: the block texts' lengths,
    if already computed.
    """
    marks = page.ancestor_tags
    if len(marks) and np.bitwise_or.reduce(marks) & RULE_ONLY_BITS:  # the rules' marks: the networks never read them
        marks = marks & ~RULE_ONLY_BITS
    if lengths is None:
        lengths = np.fromiter(map(len, page.texts), np.int64, len(page))
    total = lengths.sum()
    if not total or not len(page.node_table):
        return marks
    # One test for most pages: the landmarks together hold at most half of the text, so neither does.
    if lengths[(marks & _SHORT_LANDMARK_BITS) != 0].sum() <= DOMINANT_SHARE * total:
        return marks
    out, prefix = marks, None
    for tag in SHORT_LANDMARKS:
        bit = ANCESTOR_TAG_BITS[tag]
        if lengths[(marks & bit) != 0].sum() <= DOMINANT_SHARE * total:
            continue  # no element of this tag can hold over half of the text
        if prefix is None:
            prefix = np.concatenate(([0], np.cumsum(lengths)))
            dominant_chars = (
                prefix[page.node_table[:, END_BLOCK]] - prefix[page.node_table[:, FIRST_BLOCK]] > DOMINANT_SHARE * total
            )
        # CDOM nodes whose (collapsed) tag list holds the tag.
        has_tag = np.fromiter((tag in tags for tags in page.distinct_tags), bool, len(page.distinct_tags))
        nodes = has_tag[page.node_table[:, TAGS_ID]]
        out = _without_mark(page, out, bit, nodes, dominant_chars)
    return out


#: The keyword group a page-wide wrapper carries by right (``<body class="single-post">``, ``<div id="main">``
#: around everything): its mark on every block is what the model learnt from (it is common).
PAGE_WIDE_KEYWORDS = ANCESTOR_KEYWORD_BITS["content"]


def keyword_marks(page: Page) -> np.ndarray:
    """``page.ancestor_keywords`` without the boilerplate keyword marks of the elements around every block.

    A keyword on an element around the whole page says nothing about any one block: a ``<body>`` whose classes list
    the site's features (``has-sidebar header-fixed ad-free cookie-consent``) would otherwise make every block look
    like a sidebar, a header, an ad and a cookie banner, and the model drops the whole page.  A block keeps the mark
    when a smaller element (the sidebar itself) gives it too.  Most pages return ``page.ancestor_keywords`` itself
    after one reduction.
    """
    marks = page.ancestor_keywords
    n = len(marks)
    if n < 2:
        return marks
    everywhere = int(np.bitwise_and.reduce(marks)) & ~PAGE_WIDE_KEYWORDS
    if not everywhere:
        return marks
    table = page.node_table
    around = (table[:, FIRST_BLOCK] == 0) & (table[:, END_BLOCK] == n)
    distinct = np.fromiter(map(keyword_mask, page.distinct_attributes), np.int64, len(page.distinct_attributes))
    node_masks = distinct[table[:, ATTRIBUTES_ID]]
    out = marks
    for bit in (1 << b for b in range(int(everywhere).bit_length()) if everywhere >> b & 1):
        # Where every block is marked, each by an element of its own, no node around them has the bit: no change.
        out = _without_mark(page, out, bit, (node_masks & bit) != 0, around)
    return out


def _without_mark(page: Page, marks: np.ndarray, bit: int, nodes: np.ndarray, wide: np.ndarray) -> np.ndarray:
    """``marks`` with ``bit`` cleared on the blocks under the ``wide`` ones of the marking CDOM ``nodes``, except on
    those a node that is not wide (inside the wide one) marks too."""
    dropped = blocks_under(page, nodes & wide)
    if not dropped.any():
        return marks
    kept = blocks_under(page, nodes & ~wide)
    return np.where(dropped & ~kept, marks & ~bit, marks)


def blocks_under(page: Page, nodes: np.ndarray) -> np.ndarray:
    """The blocks inside any of the CDOM nodes selected by the mask ``nodes``, as a mask over the page's blocks.

    A node's blocks are the contiguous run ``first_block:end_block`` (the node table's ``FIRST_BLOCK`` and
    ``END_BLOCK`` columns), nested nodes inside it: one count of open runs per block, linear in nodes and blocks.
    """
    n = len(page)
    selected = page.node_table[nodes]
    if not len(selected):
        return np.zeros(n, bool)  # most pages: no caption, no dominant landmark
    change = np.bincount(selected[:, FIRST_BLOCK], minlength=n + 1) - np.bincount(
        selected[:, END_BLOCK], minlength=n + 1
    )
    return np.cumsum(change[:n]) > 0


def nearest_node_with(page: Page, node: int, tags: frozenset[str], levels: int) -> int:
    """The first CDOM node among ``node`` and its ancestors, ``levels`` of them at most, one of whose tags (those of
    the elements collapsed into it) is in ``tags``; -1 if none (or ``node`` is -1)."""
    table, tag_lists = page.node_table, page.distinct_tags
    for _ in range(levels):
        if node < 0:
            return -1
        if not tags.isdisjoint(tag_lists[table[node, TAGS_ID]]):
            return node
        node = int(table[node, PARENT])
    return -1
