"""A page the chain keeps almost nothing of, where an independent extractor finds several times more text: decoded
again at lower thresholds until the chain keeps as much.

The networks sometimes rank a page's main text (a forum's posts, a listing's items, a collection's entries, now and
then a news article's paragraphs) just under the threshold while keeping a few lines of furniture.  Nothing on the
page itself tells that apart from a page whose short text is right, so a second opinion decides: Resiliparse's
main-content extractor (rule-based, in C++, a millisecond a page), asked only where the chain keeps little of the
page (:func:`required_ratio`).  Where its text holds more than the required ratio times the characters the chain
keeps, the labeller decodes the page again, with the rules, at each of :data:`THRESHOLDS` below the model's own in
turn, and keeps the first labels that hold as many characters as the second opinion (the lowest threshold's where
none does).  The blocks this keeps name :data:`REASON` in their ``rule``.  The other extractor's text is only a
measure: every label still comes from the model.

Why two sets of conditions: a page likely to be an article usually has its short text right, and the other
extractor keeps the readers' comments under it; so an article is asked only where the chain keeps under a twentieth
of it and under 1,000 characters, and trusted only where the other extractor finds ten times as much.  Other pages
are asked under a tenth and 3,000 characters kept, and trusted at three times.  Measured out of fold (several seeds
of two recipes) and on the validation pages: docs/research/quality-round4.rst, "A second opinion on pages kept
almost empty" and "Articles kept almost empty".
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Collection

import numpy as np
from lxml import etree

from ...page import Page
from ...page.walk import within_size
from .rules import PageTypeGuess
from .rules.inputs import page_lengths

logger = logging.getLogger(__name__)

#: The rule name given to the blocks the step keeps (``Block.rule``, the full block records); also the name that
#: ``skip_rules`` takes to turn the step off.
REASON = "second_opinion"
#: The share of the page's characters under which the chain may have missed the page's text.
MAX_KEPT_SHARE = 0.1
#: Characters kept over which the chain's text is taken to be a page's text already (an article under a long
#: comment section, which the other extractor keeps).
MAX_KEPT_CHARS = 3000
#: How many times the chain's characters the other extractor's text must hold.
MIN_RATIO = 3.0
#: A page at least this likely an article is asked and trusted on the stricter terms below.
MAX_ARTICLE_PROBABILITY = 0.8
#: The share of a likely article's characters under which the chain may have missed its text.
ARTICLE_MAX_KEPT_SHARE = 0.05
#: Characters kept over which a likely article's text is taken to be there already (the other extractor keeps the
#: comments under it).
ARTICLE_MAX_KEPT_CHARS = 1000
#: How many times the chain's characters the other extractor must find on a likely article.
ARTICLE_MIN_RATIO = 10.0
#: The thresholds tried, highest first (those under the model's own threshold only).
THRESHOLDS = (0.35, 0.3, 0.25, 0.2, 0.15, 0.1, 0.07, 0.05)
#: Resiliparse's time grows with the elements times their depth (a 4,000-deep chain of elements takes a quarter of a
#: second, 200,000 nested ones hours): a page with more elements, or more elements times its depth, than these is
#: not given to it, and it reads the page as parsed here (nesting deeper than ``flatten.MAX_NESTING`` unwrapped).
MAX_ELEMENTS = 50_000
MAX_ELEMENTS_TIMES_DEPTH = 2_000_000


@functools.cache
def _load_extractor():
    try:
        from resiliparse.extract.html2text import extract_plain_text
    except ImportError:  # an install without it labels as the model alone would
        logger.warning("resiliparse is not installed: the second_opinion step is off (pip install resiliparse)")
        return None
    return extract_plain_text


def small_enough(root) -> bool:
    """Whether the tree under ``root`` has at most :data:`MAX_ELEMENTS` elements and at most
    :data:`MAX_ELEMENTS_TIMES_DEPTH` elements times its depth (the count stops as soon as it has more)."""
    return within_size(root, MAX_ELEMENTS, MAX_ELEMENTS_TIMES_DEPTH)


def other_extractor_chars(root) -> int:
    """The characters of the main text that Resiliparse finds in the page parsed as ``root`` (0 where it is missing,
    fails, or the page is too large for it: :func:`small_enough`)."""
    extract_plain_text = _load_extractor()
    if extract_plain_text is None or root is None or not small_enough(root):
        return 0
    try:
        html = etree.tostring(root, encoding="unicode", method="html")
        return len(extract_plain_text(html, main_content=True) or "")
    except Exception:  # one odd page is labelled as the model alone would, never an error
        logger.debug("resiliparse failed on a page", exc_info=True)
        return 0


def required_ratio(kept: int, total: int, article: float) -> float | None:
    """How many times the ``kept`` characters the other extractor must find on a page of ``total`` characters that
    the page-type classifier gives ``article`` probability of being an article; ``None`` where the chain's labels
    stand without asking it."""
    if article >= MAX_ARTICLE_PROBABILITY:
        asked = kept < ARTICLE_MAX_KEPT_SHARE * total and kept < ARTICLE_MAX_KEPT_CHARS
        return ARTICLE_MIN_RATIO if asked else None
    return MIN_RATIO if kept < MAX_KEPT_SHARE * total and kept < MAX_KEPT_CHARS else None


def wanted_chars(page: Page, labels: np.ndarray, page_type: PageTypeGuess, skipped: Collection[str]) -> int:
    """The characters the chain should keep on ``page`` (the other extractor's), or 0 where the chain's ``labels``
    stand: the step is ``skipped``, the page has no type, :func:`required_ratio` does not ask the other extractor,
    or it finds no more than the required ratio times what the labels keep."""
    if REASON in skipped:
        return 0
    total, kept = int(page_lengths(page).sum()), kept_chars(page, labels)
    if required_ratio(kept, total, 0.0) is None and required_ratio(kept, total, 1.0) is None:
        return 0  # asked on neither terms, whatever the page's type: it is not classified here for it
    probabilities = page_type.probabilities
    if not probabilities:
        return 0
    ratio = required_ratio(kept, total, probabilities.get("article", 0.0))
    if ratio is None:
        return 0
    found = other_extractor_chars(page.root)
    return found if found > ratio * kept else 0


def kept_chars(page: Page, labels: np.ndarray) -> int:
    return int(page_lengths(page)[labels != 0].sum())


def decode_lower(page: Page, own_threshold: float, wanted: int, decode: Callable[[float], tuple]) -> tuple | None:
    """The step's decoding: ``decode(threshold)`` (a tuple whose first item is the labels) at each of
    :data:`THRESHOLDS` under ``own_threshold`` in turn, the first result that keeps ``wanted`` characters or more (the
    last where none does); ``None`` where no threshold lies under the model's own."""
    result = None
    for threshold in (t for t in THRESHOLDS if t < own_threshold):
        result = decode(threshold)
        if kept_chars(page, result[0]) >= wanted:
            break
    return result
