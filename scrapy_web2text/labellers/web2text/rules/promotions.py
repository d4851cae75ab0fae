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
    """Kept link blocks of at most :data:`MAX_CALL_TO_ACTION_WORDS` words outside running text: a landing page's
    buttons, alone or in a row (a link inside a sentence is part of it)."""
    return _short((labels != 0) & page.in_link & ~in_running_text(page), page.texts, MAX_CALL_TO_ACTION_WORDS)


#: A kept block of fewer words, outside headings and links, is a label: a badge ("New!"), a figure of a mock-up of
#: the product ("FIG 0.2", "Backlog", "8"), a tick of a pricing table ("100%").
MAX_LABEL_WORDS = 2
_HEADING_BIT = ANCESTOR_TAG_BITS["h1"]  # one bit for h1 to h6


def short_labels(page: Page, labels: np.ndarray) -> np.ndarray:
    """Kept blocks of at most :data:`MAX_LABEL_WORDS` words outside running text, not in a link nor in a heading.
    A short block inside a sentence is a fragment that inline markup split (a reference page's ``<code>`` names:
    "Set of <code>key-value pairs</code>."), not a label."""
    outside = (labels != 0) & ~page.in_link & ((page.ancestor_tags & _HEADING_BIT) == 0) & ~in_running_text(page)
    return _short(outside, page.texts, MAX_LABEL_WORDS)


def in_running_text(page: Page) -> np.ndarray:
    """The blocks of lines that hold several blocks, one of them at least outside a link, as the main text lays the
    blocks out (a new line where a break precedes a block): the pieces of a sentence, not a row of buttons nor a
    badge on its own line."""
    n = len(page)
    breaks, links = np.asarray(page.break_before, bool), np.asarray(page.in_link, bool)
    if len(breaks) != n or len(links) != n:  # a page made without the walk's columns: every block on its own line
        return np.zeros(n, bool)
    line = np.cumsum(breaks | (np.arange(n) == 0)) - 1
    blocks, text_blocks = np.bincount(line), np.bincount(line, weights=~links)
    return (blocks[line] >= 2) & (text_blocks[line] >= 1)


def _short(among: np.ndarray, texts: list[str], words: int) -> np.ndarray:
    """The blocks of ``among`` (a mask, changed in place) whose text has at most ``words`` words, counted by script
    (:func:`~.lengths.word_count`: a Chinese or Japanese paragraph is not one word)."""
    blocks = np.flatnonzero(among).tolist()
    if blocks:
        among[blocks] = [word_count(texts[i]) <= words for i in blocks]
    return among
