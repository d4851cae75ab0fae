"""Block features of repeated sibling structure: the posts of a thread, the items of a listing or an index.

Nothing among the paper's or the extended features says "this block sits in one of many units built alike", and a
thread's posts or a listing's items, each short and full of links, dates and names, look like boilerplate one by
one.  Here a CDOM node's *signature* is its outermost tag and its ``class``/``id`` values with the digits taken out
(``post-1`` and ``post-2`` alike); its *group* is itself and its siblings of the same signature.  A block reads,
for its ancestors at :data:`REPEAT_LEVELS`, how many units its group holds and what share of the page's text they
hold, and, for its *unit* (the ancestor whose group of at least :data:`MIN_UNITS` holds the most text), that
group's size, depth, text, links and how many of its units hold a year (a post's date).  ``docs/model.rst``
describes the columns; :func:`.features.block_features` writes them, through the compiled twin of
:func:`repeat_raw_reference` (``_features.pyx``) where it is in use.
"""

from __future__ import annotations

import operator

import numpy as np

from ...page import Page
from ...page.nodes import ATTRIBUTES_ID, PARENT, TAGS_ID
from .feature_names import REPEAT_BLOCK_FEATURES, REPEAT_LEVELS

#: A group of fewer siblings is not a repeated unit (two columns of a layout are not a listing).
MIN_UNITS = 3
#: The deepest ancestor considered as a unit (the chain the extended features read reaches this far).
UNIT_LEVELS = 8
LEVELS = np.array(REPEAT_LEVELS, np.int64)
#: The columns written as counts (or a ratio of counts) whose logarithm the caller takes.
LOG_COLUMNS = np.array(
    [column for column, name in enumerate(REPEAT_BLOCK_FEATURES) if "_log_" in name or name.startswith("unit_log")],
    np.int64,
)

_NO_DIGITS = str.maketrans("", "", "0123456789")
_FIRST = operator.itemgetter(slice(0, 1))


def _numbers(values: list) -> np.ndarray:
    """A number for each value, equal for equal values (a dictionary built and read at C speed, no Python loop)."""
    numbers = dict(zip(values, range(len(values))))
    return np.fromiter(map(numbers.__getitem__, values), np.int64, len(values))


def _signatures(page: Page) -> np.ndarray:
    """Each CDOM node's signature as a number: its outermost tag and its attributes without digits."""
    values = page.distinct_attributes
    # One translation of all the page's distinct values at once; a value holding the separator is read one by one.
    stripped = "\0".join(values).translate(_NO_DIGITS).split("\0")
    if len(stripped) != len(values):
        stripped = [value.translate(_NO_DIGITS) for value in values]
    attributes = _numbers(stripped)
    tags = _numbers(list(map(_FIRST, page.distinct_tags)))
    table = page.node_table
    return tags[table[:, TAGS_ID]] * max(len(attributes), 1) + attributes[table[:, ATTRIBUTES_ID]]


def unit_groups(page: Page) -> tuple[np.ndarray, np.ndarray]:
    """``(group, units)``: each CDOM node's group (the nodes with its parent and its signature; the root, the only
    node without a parent, is alone) and each group's number of nodes."""
    signatures = _signatures(page)
    keys = (page.node_table[:, PARENT] + 1) * (int(signatures.max(initial=0)) + 1) + signatures
    _, group, units = np.unique(keys, return_inverse=True, return_counts=True)
    return np.ascontiguousarray(group.reshape(len(keys)), np.int64), units.astype(np.int64)


def repeat_raw_reference(
    raw: np.ndarray, chain: np.ndarray, group: np.ndarray, units: np.ndarray, totals: np.ndarray,
    at: np.ndarray, block_chars: np.ndarray, page_chars: float,
) -> None:  # fmt: skip
    """Write :data:`.feature_names.REPEAT_BLOCK_FEATURES` into ``raw`` (n_blocks, 18, float64) before the
    logarithms of :data:`LOG_COLUMNS`.  ``chain``: each block's ancestors (levels 0 to :data:`UNIT_LEVELS` at
    least), the root for those above it; ``group``, ``units``: :func:`unit_groups`; ``totals``: each node's summed
    counts, its characters, characters in links and year matches in the columns ``at``; ``block_chars``: each
    block's characters; ``page_chars``: their sum, at least 1.  The reference of the compiled twin
    (``_features.pyx``), which writes the same values in one pass over the nodes and one over the blocks."""
    n_groups = len(units)
    node_chars, node_links, node_years = (totals[:, column] for column in at)
    group_chars = np.bincount(group, weights=node_chars, minlength=n_groups)
    node_units = units[group]
    n_levels = len(LEVELS)
    levels = chain[:, LEVELS]
    raw[:, :n_levels] = node_units[levels] - 1
    raw[:, n_levels : 2 * n_levels] = group_chars[group[levels]] / page_chars
    # The block's unit: of its ancestors in groups of MIN_UNITS or more, the first whose group holds the most text.
    node_held = np.where(node_units >= MIN_UNITS, group_chars[group], -1.0)
    ancestors = chain[:, : UNIT_LEVELS + 1]
    held = node_held[ancestors]
    rows = np.arange(len(chain))
    level = np.argmax(held, axis=1)
    has_unit = held[rows, level] >= 0
    unit_group = group[ancestors[rows, level]]
    unit_units, unit_chars = units[unit_group], group_chars[unit_group]
    group_links = np.bincount(group, weights=node_links, minlength=n_groups)
    group_years = np.bincount(group, weights=node_years > 0, minlength=n_groups)
    columns = raw[:, 2 * n_levels :]
    columns[:, 0] = unit_units
    columns[:, 1] = level
    columns[:, 2] = unit_chars / page_chars
    columns[:, 3] = group_links[unit_group] / np.maximum(unit_chars, 1.0)
    columns[:, 4] = unit_chars / unit_units
    columns[:, 5] = group_years[unit_group] / unit_units
    columns[~has_unit, :6] = 0.0
    # Inside a repeated container (level 1 up): a post or an item, not a paragraph among its siblings.
    inside = (held[:, 1:] >= 0).any(axis=1)
    columns[:, 6] = inside
    columns[:, 7] = block_chars[inside].sum() / page_chars
