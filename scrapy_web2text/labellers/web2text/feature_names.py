"""The names of the block features (Vogels et al. 2018, §3.3), in the order of the feature matrix's columns.

The paper collects 128 features per block (statistics of the block's CDOM node, its parent, its grandparent and the
whole page) but names only some of them.  The full lists below are a reconstruction around the named ones;
``docs/model.rst`` describes every column.  :mod:`.features` computes them.
"""

from __future__ import annotations

import numpy as np

from ...page.tags import ANCESTOR_KEYWORDS, ANCESTOR_TAGS
from .tag_groups import NODE_TAGS, PARENT_TAGS

# --- the 128 block features -------------------------------------------------

#: Statistics computed for the block's node, its parent and its grandparent.
NODE_STATISTICS = (
    "log_chars",
    "r_words_of_page",
    "log_sentences",
    "r_punctuation",
    "r_dashes",
    "r_periods",
    "r_chars_in_link",
    "ends_with_punctuation",
    "ends_with_question_mark",
    "r_words_with_capital",
    "r_stopwords",
    "avg_word_length",
    "start_rel",
    "end_rel",
    "contains_email",
    "contains_url",
    "contains_year",
    "contains_copyright",
    "log_children",
    "log_blocks",
    "r_digits",
    "r_separators",
    "log_depth",
    "log_words",
)
PAGE_STATISTICS = (
    "page_log_chars",
    "page_log_blocks",
    "page_r_stopwords",
    "page_r_chars_in_link",
    "block_position_rel",
)

BINARY_STATISTICS = frozenset(
    {
        "ends_with_punctuation",
        "ends_with_question_mark",
        "contains_email",
        "contains_url",
        "contains_year",
        "contains_copyright",
    }
)


def _block_feature_names() -> list[str]:
    names = [f"{level}_{stat}" for level in ("node", "parent", "grandparent") for stat in NODE_STATISTICS]
    names += [f"node_is_{group.replace('|', '_')}" for group in NODE_TAGS]
    names += [f"parent_is_{group.replace('|', '_')}" for group in PARENT_TAGS]
    names += [f"inside_{group.split('|')[0]}" for group in ANCESTOR_TAGS[:10]]
    names += [f"ancestor_class_{name}" for name, _ in ANCESTOR_KEYWORDS]
    names += list(PAGE_STATISTICS)
    return names


BLOCK_FEATURES: tuple[str, ...] = tuple(_block_feature_names())

#: Page-level context beyond the paper's features, used by models whose
#: configuration says ``"features": "extended"`` (docs/model.rst).
#: ``region{k}`` is the block's k-th CDOM ancestor; the main region is the
#: deepest node holding at least half of the page's text outside links.
REGION_LEVELS = (3, 5, 8)
EXTENDED_BLOCK_FEATURES: tuple[str, ...] = (
    "inside_hidden",
    "inside_main_content",
    "matches_page_title",
    *(f"region{level}_{stat}" for level in REGION_LEVELS for stat in ("r_chars_of_page", "r_chars_in_link")),
    "inside_main_region",
    "before_main_region",
    "after_main_region",
    "main_region_r_chars_of_page",
)
ALL_BLOCK_FEATURES: tuple[str, ...] = BLOCK_FEATURES + EXTENDED_BLOCK_FEATURES
BLOCK_FEATURE_BINARY = np.array(
    [
        name.split("_", 1)[1] in BINARY_STATISTICS
        or name.startswith(("node_is_", "parent_is_", "inside_", "ancestor_class_", "before_", "after_"))
        or name == "matches_page_title"
        for name in ALL_BLOCK_FEATURES
    ]
)

assert len(BLOCK_FEATURES) == 128, len(BLOCK_FEATURES)


def block_feature_names(extended: bool) -> tuple[str, ...]:
    return ALL_BLOCK_FEATURES if extended else BLOCK_FEATURES
