"""The stage after decoding, one folder: the registry of rules and the rules themselves.

:mod:`.registry` holds the one registry of :class:`Rule` objects (what each finds, the page types it runs on, why,
the research note that measured it), runs them in its order and writes docs/model.rst's table of rules.  The rules
that drop blocks read the page's markup and its decoded labels: :mod:`.furniture` (hidden text, comments, asides,
reviews, bylines, landmarks, text for screen readers), :mod:`.rails` (link rails), :mod:`.promotions` (carousels,
teaser cards, calls to action), :mod:`.phrases` (an ad's label, an interface prompt) and :mod:`.kept_text`
(captions, excerpt teasers, second copies of kept text); :mod:`.gaps` fills the holes in the kept text last.
The words they look for (class and id keywords, phrases, headings, element names) are in :mod:`.vocabulary`;
what several of them read of a page is computed once a page in :mod:`.inputs`.
"""

from .registry import (
    DOCS_TABLE,
    DROPPING,
    FILLS,
    REGISTRY,
    ROUND3,
    RULE_NAMES,
    UNTYPED,
    PageTypeGuess,
    Rule,
    Ruled,
    check_rule_names,
    docs_table,
    drop_after_decoding,
    fill_gaps,
    overruled_rules,
    run_rules,
)

__all__ = [
    "DOCS_TABLE",
    "DROPPING",
    "FILLS",
    "REGISTRY",
    "ROUND3",
    "RULE_NAMES",
    "UNTYPED",
    "PageTypeGuess",
    "Rule",
    "Ruled",
    "check_rule_names",
    "docs_table",
    "drop_after_decoding",
    "fill_gaps",
    "overruled_rules",
    "run_rules",
]
