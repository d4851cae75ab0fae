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


def matches_title(page: Page) -> np.ndarray:
    """Blocks whose text is the page's ``<title>``/``og:title`` or its start or end."""
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
    normalised = [
        " ".join(text.casefold().split()) if len(text) <= _MAX_HEADLINE_CHARS else None for text in page.texts
    ]
    out = np.fromiter(map(matching.__contains__, normalised), bool, len(normalised))
    for index, text in enumerate(normalised):
        if text is not None and len(text) > _MAX_HEADLINE_CHARS:
            out[index] = any(text == title or title.startswith(text) or title.endswith(text) for title in titles)
    return out
