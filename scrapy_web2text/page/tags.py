"""Tag tables shared by every stage that reads a page: what is skipped, what breaks a line, what nests.

They are facts about HTML and about the Web2Text preprocessing (Vogels et al. 2018, §3.1), kept in one place so
that the CDOM walk, the nesting flattener and the baselines' own walk agree.
"""

from __future__ import annotations

#: Elements with nothing to extract (the paper's list plus the obvious).  ``noembed`` is raw text that browsers
#: never show (its markup would show as literal tags); ``math`` goes whole, ``mtext`` included; so does ``svg``,
#: except one that holds a ``foreignObject`` (HTML inside SVG: the walk reads that part).
#: ``<datalist>`` (never shown) is no text, nor is a ruby annotation (``<rt>``, ``<rp>``: "猫" read "ねこ" is the
#: text "猫").  A ``<template>`` is never shown, unless it is a declarative shadow root (docs/robustness.rst).
SKIPPED_TAGS = frozenset(
    """script style noscript template head title meta link base br hr img
    input iframe frame checkbox svg math canvas object embed noembed video audio
    source track map area param picture textarea datalist rt rp""".split()
)

#: The elements inside ``<select>`` lists a page may have as blocks: a list that would go past them is skipped whole
#: (50,000 ``<option>`` filled the block budget and lost the article after the form).  Lists below it stay blocks, as
#: the model was trained on them (the longest list of the corpora has about 1,000 options).
MAX_SELECT_ELEMENTS = 2000

#: A ``<template>`` with one of these attributes is a declarative shadow root, which browsers render: the walk
#: reads it as if it were a ``<div>``'s content.
SHOWN_TEMPLATE_ATTRIBUTES = ("shadowrootmode", "shadowroot")

#: Elements that start a new line in an unstyled rendering.
BLOCK_LEVEL_TAGS = frozenset(
    """address article aside blockquote body caption center dd details dialog
    dir div dl dt fieldset figcaption figure footer form frameset h1 h2 h3 h4
    h5 h6 header hgroup hr br html legend li main menu nav ol option p pre
    section summary table tbody td tfoot th thead tr ul""".split()
)

#: Elements without an end tag: they add no nesting.
VOID_TAGS = frozenset(
    "area base basefont bgsound br col embed frame hr image img input keygen link meta param source track wbr".split()
)
#: Elements whose content is raw text up to their end tag.
RAW_TEXT_TAGS = frozenset("script style textarea title xmp iframe noembed noframes".split())

# Ancestor markers, as bit positions: semantic containers (HTML5 sectioning
# and friends) and class/id keywords.  features.py turns them into columns.
ANCESTOR_TAGS = (
    "nav",
    "header",
    "footer",
    "aside",
    "article",
    "main",
    "form",
    "table",
    "ul|ol",
    "h1|h2|h3|h4|h5|h6",
    "a",
    "p",
)
ANCESTOR_KEYWORDS = (
    ("nav", r"nav|menu"),
    ("footer", r"foot"),
    ("header", r"head|masthead|banner"),
    ("sidebar", r"side|rail"),
    ("comment", r"comment|repl|discuss"),
    ("social", r"share|social|follow"),
    ("ad", r"\bads?\b|advert|sponsor|promo"),
    ("content", r"content|article|post|entry|story|body|text|main"),
    ("related", r"related|recommend|popular|trending"),
    ("pagination", r"breadcrumb|pager|pagination"),
    ("cookie", r"cookie|consent|gdpr|newsletter|subscribe|signup"),
    ("widget", r"widget|module|teaser"),
    ("byline", r"meta|byline|author|date|time"),
    ("caption", r"caption|credit|figure"),
    ("hidden", r"hidden|skip|sr-only|visually"),
)

#: Ancestor tag → its bit in ``Page.ancestor_tags``.
ANCESTOR_TAG_BITS = {tag: 1 << bit for bit, group in enumerate(ANCESTOR_TAGS) for tag in group.split("|")}
#: Class/id keyword name → its bit in ``Page.ancestor_keywords``.
ANCESTOR_KEYWORD_BITS = {name: 1 << bit for bit, (name, _) in enumerate(ANCESTOR_KEYWORDS)}
