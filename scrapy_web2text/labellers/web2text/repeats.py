"""Block features of repeated sibling structure: the posts of a thread, the items of a listing or an index.

Nothing among the paper's or the extended features says "this block sits in one of many units built alike", and a
thread's posts or a listing's items, each short and full of links, dates and names, look like boilerplate one by
one.  Here a CDOM node's *signature* is its outermost tag and its ``class``/``id`` values with the digits taken out
(``post-1`` and ``post-2`` alike); its *group* is itself and its siblings of the same signature.  A block reads,
for its ancestors at :data:`REPEAT_LEVELS`, how many units its group holds and what share of the page's text they
hold, and, for its *unit* (the ancestor whose group of at least :data:`MIN_UNITS` holds the most text), that
group's size, depth, text, links and how many of its units hold a year (a post's date).  One sort of the nodes'
group keys and a few ``bincount`` calls a page.  ``docs/model.rst`` describes the columns.
"""

from __future__ import annotations

import re

import numpy as np

from ...page import Page
from ...page.nodes import ATTRIBUTES_ID, PARENT, TAGS_ID
from .feature_names import REPEAT_BLOCK_FEATURES, REPEAT_LEVELS

#: A group of fewer siblings is not a repeated unit (two columns of a layout are not a listing).
MIN_UNITS = 3
#: The deepest ancestor considered as a unit (the chain the extended features read reaches this far).
UNIT_LEVELS = 8

_DIGITS = re.compile(r"\d+")


def _signatures(page: Page) -> np.ndarray:
    """Each CDOM node's signature as a number: its outermost tag and its attributes without digits."""
    table = page.node_table
    tag_ids: dict[str, int] = {}
    first_tag = np.fromiter(
        (tag_ids.setdefault(tags[0] if tags else "", len(tag_ids)) for tags in page.distinct_tags),
        np.int64,
        len(page.distinct_tags),
    )
    attribute_ids: dict[str, int] = {}
    attributes = np.fromiter(
        (attribute_ids.setdefault(_DIGITS.sub("", value), len(attribute_ids)) for value in page.distinct_attributes),
        np.int64,
        len(page.distinct_attributes),
    )
    return first_tag[table[:, TAGS_ID]] * max(len(attribute_ids), 1) + attributes[table[:, ATTRIBUTES_ID]]


def repeat_columns(
    out: np.ndarray, page: Page, chain: np.ndarray, node_chars: np.ndarray, node_links: np.ndarray,
    node_years: np.ndarray, block_chars: np.ndarray,
) -> None:  # fmt: skip
    """Write :data:`.feature_names.REPEAT_BLOCK_FEATURES` into ``out`` (n_blocks, 18).  ``chain``: each block's
    ancestors (levels 0 to at least :data:`UNIT_LEVELS`), the root for those above it; ``node_chars``,
    ``node_links``, ``node_years``: each node's characters, characters in links and year matches;
    ``block_chars``: each block's characters."""
    table = page.node_table
    n_nodes = len(table)
    # A group: the nodes with the same parent and signature.  The root, the only node without a parent, is alone.
    signatures = _signatures(page)
    keys = (table[:, PARENT] + 1) * (int(signatures.max(initial=0)) + 1) + signatures
    _, group, units = np.unique(keys, return_inverse=True, return_counts=True)
    group = group.reshape(n_nodes)
    group_chars = np.bincount(group, weights=node_chars, minlength=len(units))
    group_links = np.bincount(group, weights=node_links, minlength=len(units))
    group_years = np.bincount(group, weights=node_years > 0, minlength=len(units))
    page_chars = max(float(block_chars.sum()), 1.0)
    node_units = units[group]
    n_levels = len(REPEAT_LEVELS)
    levels = chain[:, list(REPEAT_LEVELS)]
    out[:, :n_levels] = np.log1p(node_units[levels] - 1)
    out[:, n_levels : 2 * n_levels] = group_chars[group[levels]] / page_chars
    # The block's unit: of its ancestors in groups of MIN_UNITS or more, the one whose group holds the most text.
    ancestors = chain[:, : UNIT_LEVELS + 1]
    repeated = node_units[ancestors] >= MIN_UNITS
    held = np.where(repeated, group_chars[group[ancestors]], -1.0)
    level = np.argmax(held, axis=1)
    has_unit = repeated.any(axis=1)
    unit_group = group[ancestors[np.arange(len(chain)), level]]
    columns = out[:, 2 * n_levels :]
    columns[:, 0] = np.log1p(units[unit_group])
    columns[:, 1] = np.log1p(level)
    columns[:, 2] = group_chars[unit_group] / page_chars
    columns[:, 3] = group_links[unit_group] / np.maximum(group_chars[unit_group], 1.0)
    columns[:, 4] = np.log1p(group_chars[unit_group] / units[unit_group])
    columns[:, 5] = group_years[unit_group] / units[unit_group]
    columns[~has_unit, :6] = 0.0
    # Inside a repeated container (level 1 up): a post or an item, not a paragraph among its siblings.
    inside = repeated[:, 1:].any(axis=1)
    columns[:, 6] = inside
    columns[:, 7] = block_chars[inside].sum() / page_chars
    assert out.shape[1] == len(REPEAT_BLOCK_FEATURES)
