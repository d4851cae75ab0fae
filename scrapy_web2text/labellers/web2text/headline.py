"""Which blocks carry the page's headline (the ``matches_page_title`` feature)."""

from __future__ import annotations

import numpy as np

from ...page import Page

#: Blocks longer than this are never the headline (nor its start or end).
_MAX_HEADLINE_CHARS = 300
#: A block shorter than this matches only the whole title, not its start or end.
_MIN_PART_CHARS = 10


def _normalised(text: str) -> str:
    return " ".join(text.casefold().split())


def matches_title(page: Page, lengths: np.ndarray | None = None) -> np.ndarray:
    """Blocks whose text is the page's ``<title>``/``og:title`` or its start or end.  ``lengths``: the block
    texts' lengths, if already computed."""
    titles = {_normalised(t) for t in (page.title, page.og_title) if t}
    if not titles:
        return np.zeros(len(page), bool)
    # The texts that match, in one set: the titles and their starts and ends of ten to 300 characters.  One set
    # look-up per block instead of comparisons with each title; the rare block that case folding made longer than
    # 300 characters ("ﬃ" folds to "ffi") is compared with the titles.
    matching = set(titles)
    for title in titles:
        for length in range(_MIN_PART_CHARS, min(len(title), _MAX_HEADLINE_CHARS) + 1):
            matching.add(title[:length])
            matching.add(title[-length:])
    # Block texts are blank-collapsed by the CDOM walk (as counts.py relies on too) and case folding adds no blank:
    # a text's normalised form is its folded form.  Folding never shortens a text, and nothing matches past the
    # longest title: only the texts up to that length (and 300) are folded, one C-level map over them.
    texts = page.texts
    if lengths is None:
        lengths = np.fromiter(map(len, texts), np.int64, len(texts))
    candidates = np.flatnonzero(lengths <= min(max(map(len, titles)), _MAX_HEADLINE_CHARS)).tolist()
    folded = zip(candidates, map(str.casefold, map(texts.__getitem__, candidates)))
    # A text longer than 300 characters is in ``matching`` only as a whole title; it may still start or end one.
    hits = [
        index
        for index, text in folded
        if text in matching
        or (len(text) > _MAX_HEADLINE_CHARS and any(title.startswith(text) or title.endswith(text) for title in titles))
    ]
    out = np.zeros(len(texts), bool)
    out[hits] = True  # at once: an assignment to a numpy element per block cost more than the look-ups
    return out
