"""Regular-expression substitution in memory linear in the text, for a text of any size.

``pattern.sub`` keeps each piece of the text (between matches, and each replacement) as its own ``str`` until it
joins them, some tens of bytes a match: on a large text node of single-spaced words, markdownify's whitespace
substitution alone took many times the text's size.  A long text is substituted here a slice at a time, each slice
cut where no match can cross, so that the pieces alive at once are a slice's.
"""

from __future__ import annotations

import re
from collections.abc import Callable

#: Characters per slice (a slice's pieces cost a few MB at most).
SLICE = 1 << 16


def substitute(pattern: re.Pattern, replacement: str | Callable, text: str, cut: re.Pattern) -> str:
    """``pattern.sub(replacement, text)``, a slice of about :data:`SLICE` characters at a time.

    A slice ends right after a character that ``cut`` matches: no match of ``pattern`` may take in that character
    and the next one, and none may look past it.  With no such character left, the rest is one slice.
    """
    if len(text) <= SLICE:
        return pattern.sub(replacement, text)
    done, start = [], 0
    while start < len(text):
        found = cut.search(text, start + SLICE)
        end = found.end() if found else len(text)
        done.append(pattern.sub(replacement, text[start:end]))
        start = end
    return "".join(done)
