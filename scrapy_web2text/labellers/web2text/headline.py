"""Which blocks carry the page's headline (the ``matches_page_title`` feature)."""

from __future__ import annotations

import numpy as np

from ...page import Page


def _normalised(text: str) -> str:
    return " ".join(text.casefold().split())


def matches_title(page: Page) -> np.ndarray:
    """Blocks whose text is the page's ``<title>``/``og:title`` or its start or end."""
    titles = {_normalised(t) for t in (page.title, page.og_title) if t}
    out = np.zeros(len(page), bool)
    if not titles:
        return out
    for index, text in enumerate(page.texts):
        if len(text) > 300:
            continue
        text = _normalised(text)
        out[index] = any(
            text == title or (len(text) >= 10 and (title.startswith(text) or title.endswith(text))) for title in titles
        )
    return out
