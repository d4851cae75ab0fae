"""A page with nothing to keep: what the model and the rules kept is only the site's furniture and its legal line.

A page whose text a script inserts, crawled without rendering, holds no main text, only its navigation, its links
and a footer; the model keeps its likeliest blocks all the same (the footer's "© 2024 Acme Media Ltd."), and the
rules that drop furniture spare it because it is all the page kept.  :func:`furniture_only` says so: every kept
block is in a landmark (navigation, header, footer, complementary, or a class or id naming a footer), in a link or a
copyright line, at least one is a copyright line, and together they hold under :data:`MAX_FURNITURE_CHARS`
characters.  The copyright line is required: a short list of links in a widget whose class names a footer can be a
page's whole text (a shop's categories with their counts), and emptying the page loses it (out of fold:
docs/research/quality-round4.rst, "A page with nothing to keep: the legal line required").  At the model's own
threshold (a threshold given is applied as it is, as for the second decoding), the labeller then keeps nothing and
names this module's reason in each dropped block's ``rule``, :data:`REASON`; a crawl counts the page under
``web2text/empty/furniture_only``.

On the 365 validation pages no page comes out different: the pages the model keeps only landmark or link blocks of
hold a headline (no legal line) or over 2,000 characters (an article inside a ``<header>``).
"""

from __future__ import annotations

import re

import numpy as np

from ...page import Page
from ...page.tags import ANCESTOR_KEYWORD_BITS, ANCESTOR_TAG_BITS
from .rules.furniture import LANDMARK_BITS

#: The rule name given to the blocks a page with nothing to keep drops (``Block.rule``, the full block records).
REASON = "furniture_only"
#: Kept text at least this long is a page's text, whatever holds it.
MAX_FURNITURE_CHARS = 300
#: A site's legal line: a copyright notice.
LEGAL_LINE = re.compile(r"©|\(c\)|copyright|all rights reserved", re.I)
_LANDMARKS = LANDMARK_BITS | ANCESTOR_TAG_BITS["header"]
_FOOTERS = ANCESTOR_TAG_BITS["footer"]
_FOOTER_KEYWORD = ANCESTOR_KEYWORD_BITS["footer"]


def furniture_only(page: Page, labels: np.ndarray) -> bool:
    """Whether the kept blocks of ``labels`` are only furniture around a legal line (module docstring)."""
    kept = np.flatnonzero(labels)
    if not len(kept) or len(page.in_link) != len(page):
        return False
    texts = page.texts
    if sum(len(texts[index]) for index in kept.tolist()) >= MAX_FURNITURE_CHARS:
        return False
    tags, keywords = page.ancestor_tags[kept], page.ancestor_keywords[kept]
    legal = np.fromiter((bool(LEGAL_LINE.search(texts[index])) for index in kept.tolist()), bool, len(kept))
    if not legal.any():
        return False
    footer = ((tags & _FOOTERS) != 0) | ((keywords & _FOOTER_KEYWORD) != 0)
    furniture = ((tags & _LANDMARKS) != 0) | footer | page.in_link[kept].astype(bool) | legal
    return bool(furniture.all())
