"""Rails of links to other pages: under a heading that announces them ("Related", "Lesen Sie auch", "À lire aussi"),
or as lists of links beside the text.

:func:`announced_rails` takes a page and its decoded labels and returns the kept blocks of such sections, as a mask;
:mod:`.registry` runs it on pages typed as articles, after :mod:`.furniture`'s rules.  A section runs from its
heading to the next heading of the same or a higher rank.  Rails found by their links alone, without such a heading,
lost listings and collections, whose sections look the same (docs/research/quality-round3.rst).

:func:`outlying_link_lists` finds the rails that have no heading by where they sit: lists whose items are links,
outside the element that holds the article's text (a Chinese news page's column of recommended stories, a Japanese
portal's related articles).  :mod:`.registry` runs it last, on articles, when the text's place is known.
"""

from __future__ import annotations

import numpy as np

from ....page import Page
from ....page.nodes import END_BLOCK, FIRST_BLOCK, PARENT, TAGS_ID
from ....page.tags import ANCESTOR_TAG_BITS
from ..tag_groups import blocks_under, nearest_node_with
from .furniture import longest_kept
from .gaps import text_element_range
from .inputs import page_lengths, tag_names
from .vocabulary import LIST_ITEM_TAGS, RAIL_HEADINGS

#: Longer headings are titles that happen to hold such words ("Related parties in the Enron case").
MAX_RAIL_HEADING_CHARS = 80
#: A rail's blocks after its heading have at least this share of their characters in links.
MIN_RAIL_LINK_SHARE = 0.5
#: A rail holds less than this share of the kept text (a page that is only a list keeps it).
MAX_RAIL_SHARE = 0.5

_HEADING_BIT = ANCESTOR_TAG_BITS["h1"]  # one bit for h1 to h6
_RANKS = {f"h{level}": level for level in range(1, 7)}
#: A heading's text sits in the heading element or a few levels below it (``h2 > a > span``).
_HEADING_LEVELS = 8


def announced_rails(page: Page, labels: np.ndarray) -> np.ndarray:
    """Kept blocks of sections under a short heading of :data:`~.vocabulary.RAIL_HEADINGS`, where the blocks after the
    heading have :data:`MIN_RAIL_LINK_SHARE` of their characters in links, the longest kept block is not inside, and the
    section holds less than :data:`MAX_RAIL_SHARE` of the kept text."""
    kept = labels != 0
    rails = np.zeros(len(kept), bool)
    in_headings = np.flatnonzero((page.ancestor_tags & _HEADING_BIT) != 0).tolist()
    if not in_headings or kept.sum() <= 1:
        return rails
    first = _first_announcing_block(page, in_headings)
    if first is None or not kept[first:].any():
        return rails
    # Headings before the first announcing one neither start a rail nor end one.
    runs = heading_runs(heading_ranks(page, [block for block in in_headings if block >= first]))
    lengths = page_lengths(page)
    before = _prefix_sums(lengths, lengths * page.in_link, lengths * kept)  # characters, in links, kept
    longest = longest_kept(kept, lengths)
    for (start, items_from, _), end in zip(runs, section_ends(runs, len(kept))):
        heading = " ".join(page.texts[start:items_from])
        if len(heading) > MAX_RAIL_HEADING_CHARS or start <= longest < end or not RAIL_HEADINGS.search(heading.lower()):
            continue
        items, links, _ = before[:, end] - before[:, items_from]
        kept_inside = before[2, end] - before[2, start]
        if links >= MIN_RAIL_LINK_SHARE * items and kept_inside < MAX_RAIL_SHARE * before[2, -1]:
            rails[start:end] = kept[start:end]
    return rails


#: A list of links has at least this many items that are links (and nearly all of its kept items are).
MIN_LINKED_ITEMS = 3
#: An item is a link when this share of its characters is in links.
MIN_ITEM_LINK_SHARE = 0.9
#: Of a list's items that hold kept text, at least this share are links.
MIN_LINKED_SHARE = 0.8
#: An item's ``li`` element sits at most this many levels above its text (``li > a > span > #text``).
ITEM_DEPTH = 6


#: Up to this many blocks outside the text's element, their list items are looked for one block at a time.
_FEW_BLOCKS = 16


def outlying_link_lists(page: Page, labels: np.ndarray) -> np.ndarray:
    """Kept blocks of lists outside the element that holds the page's text (:func:`~.gaps.text_element_range`)
    whose items are links: :data:`MIN_LINKED_ITEMS` or more items with :data:`MIN_ITEM_LINK_SHARE` of their
    characters in links, :data:`MIN_LINKED_SHARE` of the list's items that hold kept text.  Outside that element
    lies a fifth of the kept characters at most, so the rule never takes most of the text."""
    kept = labels != 0
    lists = np.zeros(len(kept), bool)
    span = text_element_range(page, kept)
    if span is None:
        return lists
    start, end = span
    if LIST_ITEM_TAGS.isdisjoint(tag_names(page)):
        return lists
    outside = np.concatenate((np.flatnonzero(kept[:start]), np.flatnonzero(kept[end:]) + end))
    if len(outside) < MIN_LINKED_ITEMS:  # an item holds one outside block at least
        return lists
    if len(outside) <= _FEW_BLOCKS:  # one by one: no array over the page's nodes to make
        items = {
            nearest_node_with(page, node, LIST_ITEM_TAGS, ITEM_DEPTH) for node in page.block_nodes[outside].tolist()
        }
    else:
        items = set(nearest_nodes_with(page, page.block_nodes[outside], LIST_ITEM_TAGS, ITEM_DEPTH).tolist())
    items.discard(-1)
    if len(items) < MIN_LINKED_ITEMS:
        return lists
    table = page.node_table
    lengths = page_lengths(page)
    before = _prefix_sums(lengths, lengths * page.in_link)  # characters, in links
    by_list: dict[int, list[bool]] = {}
    for item in items:
        first, past = table[item, FIRST_BLOCK], table[item, END_BLOCK]
        chars, in_links = before[:, past] - before[:, first]
        by_list.setdefault(int(table[item, PARENT]), []).append(chars > 0 and in_links >= MIN_ITEM_LINK_SHARE * chars)
    link_lists = np.zeros(len(table), bool)
    for container, linked in by_list.items():
        first, past = table[container, FIRST_BLOCK], table[container, END_BLOCK]
        if first < end and past > start:  # around or inside the text's element
            continue
        link_lists[container] = sum(linked) >= MIN_LINKED_ITEMS and sum(linked) >= MIN_LINKED_SHARE * len(linked)
    return blocks_under(page, link_lists) & kept


def _first_announcing_block(page: Page, in_headings: list[int]) -> int | None:
    """The first block of the heading in which :data:`~.vocabulary.RAIL_HEADINGS` first matches, or ``None``: one search
    over the short heading texts, lower-cased (most pages announce nothing)."""
    texts = page.texts
    blocks = [block for block in in_headings if len(texts[block]) <= MAX_RAIL_HEADING_CHARS]
    found = RAIL_HEADINGS.search(" ".join([texts[block] for block in blocks]).lower())
    if found is None:
        return None
    ends = np.cumsum([len(texts[block].lower()) + 1 for block in blocks])  # past each text and its space
    first = blocks[int(np.searchsorted(ends, found.start(), side="right"))]
    heading_blocks = set(in_headings)
    while first - 1 in heading_blocks:  # back to the heading's first block: "More" | "from the bridge"
        first -= 1
    return first


def heading_ranks(page: Page, in_headings: list[int] | None = None) -> np.ndarray:
    """Each block's heading rank (1 for ``h1`` … 6), 0 outside headings: that of the nearest heading element among
    the block's node and its ancestors.  ``in_headings``: the blocks under a heading, if known."""
    if in_headings is None:
        in_headings = np.flatnonzero((page.ancestor_tags & _HEADING_BIT) != 0).tolist()
    ranks = np.zeros(len(page.texts), np.int64)
    table, tags = page.node_table, page.distinct_tags
    for block in in_headings:
        node = int(page.block_nodes[block])
        for _ in range(_HEADING_LEVELS):
            levels = [_RANKS[tag] for tag in tags[table[node, TAGS_ID]] if tag in _RANKS]
            if levels:
                ranks[block] = min(levels)
                break
            node = int(table[node, PARENT])
            if node < 0:
                break
    return ranks


def heading_runs(ranks: np.ndarray) -> list[tuple[int, int, int]]:
    """Headings as ``(first block, first block after it, rank)``: a run of blocks of one rank is one heading."""
    runs: list[tuple[int, int, int]] = []
    for block in np.flatnonzero(ranks).tolist():
        if runs and runs[-1][1] == block and runs[-1][2] == ranks[block]:
            runs[-1] = (runs[-1][0], block + 1, runs[-1][2])
        else:
            runs.append((block, block + 1, int(ranks[block])))
    return runs


def section_ends(runs: list[tuple[int, int, int]], size: int) -> list[int]:
    """Where each heading's section ends: the first block of the next heading of the same or a higher rank (a lower
    number), else ``size``.  One pass from the end with a stack of the headings still open."""
    ends = [size] * len(runs)
    later: list[tuple[int, int]] = []  # (first block, rank) of later headings, ranks rising towards the top
    for number in range(len(runs) - 1, -1, -1):
        start, _, rank = runs[number]
        while later and later[-1][1] > rank:
            later.pop()
        if later:
            ends[number] = later[-1][0]
        later.append((start, rank))
    return ends


def _prefix_sums(*columns: np.ndarray) -> np.ndarray:
    """(len(columns), n + 1): each column's sums over blocks ``[0, k)``."""
    sums = np.zeros((len(columns), len(columns[0]) + 1), np.float64)
    np.cumsum(np.vstack(columns), axis=1, out=sums[:, 1:])
    return sums


def nearest_nodes_with(page: Page, nodes: np.ndarray, tags: frozenset[str], levels: int) -> np.ndarray:
    """:func:`~..tag_groups.nearest_node_with` of each of ``nodes`` (CDOM node numbers), one level at a time for all
    of them: the first node among each and its ancestors, ``levels`` of them at most, one of whose tags is in
    ``tags``; -1 where none."""
    table = page.node_table
    has_tag = np.fromiter((not tags.isdisjoint(tag_list) for tag_list in page.distinct_tags), bool)
    has_tag = has_tag[table[:, TAGS_ID]] if len(has_tag) else np.zeros(len(table), bool)
    found = np.full(len(nodes), -1, np.int64)
    node = np.array(nodes, np.int64)  # a copy: climbed in place
    for _ in range(levels):
        open_ = np.flatnonzero(node >= 0)
        if not len(open_):
            break
        here = has_tag[node[open_]]
        found[open_[here]] = node[open_[here]]
        node[open_[here]] = -1  # found: looked no further
        climbing = open_[~here]
        node[climbing] = table[node[climbing], PARENT]
    return found
