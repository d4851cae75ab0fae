"""What a page promotes beside its own text: carousels, teaser cards of other content, calls to action and labels.

:func:`carousel_sections`, :func:`teaser_cards`, :func:`call_to_action_links` and :func:`short_labels` take a page
and its decoded labels and return the kept blocks they find, as a mask; :mod:`.registry` runs the first on
articles and services' pages, the others on services' pages only.  A service's landing page is built of such
parts, and the model keeps many of them with confidence (p(content) of 0.7 to 0.97): a threshold cannot drop them,
their markup and their size can.
"""

from __future__ import annotations

import numpy as np

from ....page import Page
from ....page.tags import ANCESTOR_TAG_BITS
from ..lengths import word_count
from .furniture import aside_sections
from .vocabulary import CAROUSEL_WORDS, TEASER_CARD_WORDS

#: A kept link of fewer words is a button ("Get started", "Learn more", "Book a demo").
MAX_CALL_TO_ACTION_WORDS = 3


def carousel_sections(page: Page, labels: np.ndarray) -> np.ndarray:
    """Kept blocks under an element (not a heading) whose class or id names a carousel or slider
    (:data:`~.vocabulary.CAROUSEL_WORDS`), unless the longest kept block is one of them or less than 100 kept characters
    lie outside them (:func:`~.furniture.comment_sections`' guards: a page that is a slideshow keeps its slides)."""
    return aside_sections(page, labels, CAROUSEL_WORDS, keyword_bits=None, ignored=None)


def teaser_cards(page: Page, labels: np.ndarray) -> np.ndarray:
    """Kept blocks under an element (not a heading) whose class or id names other content of the site
    (:data:`~.vocabulary.TEASER_CARD_WORDS`), with the same guards as :func:`carousel_sections`."""
    return aside_sections(page, labels, TEASER_CARD_WORDS, keyword_bits=None, ignored=None)


def call_to_action_links(page: Page, labels: np.ndarray) -> np.ndarray:
    """Kept link blocks of at most :data:`MAX_CALL_TO_ACTION_WORDS` words on a line of their own: a landing page's
    buttons (a link inside a sentence is part of it)."""
    return _short((labels != 0) & page.in_link & own_lines(page), page.texts, MAX_CALL_TO_ACTION_WORDS)


#: A kept block of fewer words, outside headings and links, is a label: a badge ("New!"), a figure of a mock-up of
#: the product ("FIG 0.2", "Backlog", "8"), a tick of a pricing table ("100%").
MAX_LABEL_WORDS = 2
_HEADING_BIT = ANCESTOR_TAG_BITS["h1"]  # one bit for h1 to h6


def short_labels(page: Page, labels: np.ndarray) -> np.ndarray:
    """Kept blocks of at most :data:`MAX_LABEL_WORDS` words on a line of their own, not in a link nor in a heading.
    A short block inside a line is a fragment of a sentence that inline markup split (a reference page's
    ``<code>`` names: "Set of <code>key-value pairs</code>."), not a label."""
    outside = (labels != 0) & ~page.in_link & ((page.ancestor_tags & _HEADING_BIT) == 0) & own_lines(page)
    return _short(outside, page.texts, MAX_LABEL_WORDS)


def own_lines(page: Page) -> np.ndarray:
    """The blocks that stand on a line of their own: a break before them and before the next block (or none
    after them), as the main text lays them out."""
    breaks = np.asarray(page.break_before, bool)
    if len(breaks) != len(page):  # a page made without the walk's column reads as a break everywhere
        return np.ones(len(page), bool)
    return breaks & np.append(breaks[1:], True)


def _short(among: np.ndarray, texts: list[str], words: int) -> np.ndarray:
    """The blocks of ``among`` (a mask, changed in place) whose text has at most ``words`` words, counted by script
    (:func:`~.lengths.word_count`: a Chinese or Japanese paragraph is not one word)."""
    blocks = np.flatnonzero(among).tolist()
    if blocks:
        among[blocks] = [word_count(texts[i]) <= words for i in blocks]
    return among
