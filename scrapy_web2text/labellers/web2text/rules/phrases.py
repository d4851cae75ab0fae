"""Blocks whose whole text is a phrase of page furniture: an ad's label or a prompt of the page's interface.

A news site labels each ad slot inside its article ("Advertisement", "Anzeige", "Reklama", "広告"), and the model
keeps the label with the text around it, sure of it; a forum or a shop asks its readers
to "Click to expand" or go "Back to top".  Such a block is never main text, in any language, and its words say so
whatever its markup.  Only a block that is the phrase and nothing else goes ("Advertising" as an item of a list of
services stays, as does a sentence about advertisements).
"""

from __future__ import annotations

from bisect import bisect_right

import numpy as np

from ....page import Page
from .inputs import page_lengths
from .vocabulary import FURNITURE_PHRASE

#: The longest block that can be one of the phrases, with blanks and punctuation around it.
MAX_PHRASE_CHARS = 60


def furniture_phrases(page: Page, labels: np.ndarray) -> np.ndarray:
    """Kept blocks whose whole text is one of :data:`~.vocabulary.AD_LABELS` or
    :data:`~.vocabulary.INTERFACE_PROMPTS`."""
    found = np.zeros(len(page), bool)
    short_blocks = np.flatnonzero((labels != 0) & (page_lengths(page) <= MAX_PHRASE_CHARS))
    if not len(short_blocks):
        return found
    short = short_blocks.tolist()
    ends = np.cumsum(page_lengths(page)[short_blocks] + 1)  # past each text and its line break
    starts = [0, *ends[:-1].tolist()]
    joined = "\n".join(map(page.texts.__getitem__, short))  # block texts hold no line break: one line each
    for match in FURNITURE_PHRASE.finditer(joined):
        found[short[bisect_right(starts, match.start()) - 1]] = True
    return found
