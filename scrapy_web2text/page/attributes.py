"""A guard against elements with huge numbers of attributes, run before libxml2 sees the page.

libxml2 checks each new attribute of an element against the ones before it: an element with 100,000 attributes
takes it seconds (quadratic), holding the GIL, so one such page stalls every spider of the process.  A page that may
hold an element with more than :data:`MAX_ATTRIBUTES` attributes (found by one bounded regex search) is rewritten
with the attributes past that number removed from such elements; ``Page.stripped_attributes`` records it.  Only
``class`` and ``id`` feed the features, and real pages stay far below the cap.
"""

from __future__ import annotations

import re

from .compiled import SPEEDUPS
from .flatten import _ATTRIBUTE_STEP, _RAW_TEXT_END, _TAG_NAME, _markup_declaration_end
from .tags import RAW_TEXT_TAGS

#: Attributes kept per element.
MAX_ATTRIBUTES = 256

# A start tag with at least MAX_ATTRIBUTES attribute-like tokens.  Atomic groups and possessive parts; no part runs
# over a "<", so an attempt reads at most MAX_ATTRIBUTES tokens however many "<" the text holds: linear.  It may
# count more attributes than the tokenizer (a "<" starts a token here), never fewer.
_CROWDED_TAG = re.compile(
    r"""<[A-Za-z][^\t\n\f\r />"'=<]*+(?>[\t\n\f\r /]*+(?>[^\t\n\f\r />"'=<]++(?>[\t\n\f\r ]*+=[\t\n\f\r ]*+"""
    r"""(?>"[^"]*+"|'[^']*+'|[^\t\n\f\r >"'<]*+))?|[="'<][^\t\n\f\r />"'=<]*+)){""" + str(MAX_ATTRIBUTES) + "}"
)


def may_have_crowded_tags(html: str) -> bool:
    """Whether some start tag of ``html`` may have more than :data:`MAX_ATTRIBUTES` attributes."""
    if SPEEDUPS is not None:
        return SPEEDUPS.crowded_tag(html, MAX_ATTRIBUTES)
    return _CROWDED_TAG.search(html) is not None


def strip_excess_attributes(html: str, cap: int = MAX_ATTRIBUTES) -> tuple[str, int]:
    """``html`` with the attributes of each start tag past the first ``cap`` removed, and how many tags changed."""
    if SPEEDUPS is not None:
        cuts = SPEEDUPS.excess_attribute_cuts(html, cap, RAW_TEXT_TAGS, _RAW_TEXT_END)
    else:
        cuts = excess_attribute_cuts(html, cap)
    out: list[str] = []
    kept_until = 0
    for cut, tag_end in cuts:
        out += (html[kept_until:cut], ">")
        kept_until = tag_end
    out.append(html[kept_until:])
    return "".join(out), len(cuts)


def excess_attribute_cuts(html: str, cap: int = MAX_ATTRIBUTES) -> list[tuple[int, int]]:
    """For each start tag of ``html`` with more than ``cap`` attributes: where its first ``cap`` attributes end and
    where the tag ends.

    One forward scan with the tokenizer of :mod:`.flatten` (the HTML standard's), so linear.  The reference of the
    compiled twin (``_attributes.pyx``), which :func:`strip_excess_attributes` runs where it is built: on pages
    whose scripts the search of :func:`may_have_crowded_tags` reads as tags (``i<n;`` followed by hundreds of
    words), this scan is slow in Python.
    """
    cuts: list[tuple[int, int]] = []
    position = 0
    length = len(html)
    while True:
        start = html.find("<", position)
        if start < 0 or start + 1 >= length:
            break
        if html[start + 1] in "!?":
            position = _markup_declaration_end(html, start)
            continue
        name_match = _TAG_NAME.match(html, start + 1)
        if name_match is None:
            position = start + 1
            continue
        cursor, attributes, cut = name_match.end(), 0, -1
        while cursor < length:
            step = _ATTRIBUTE_STEP.match(html, cursor)
            if step.group("end"):
                cursor = step.end()
                break
            attributes += 1
            if attributes == cap + 1:
                cut = cursor  # the tag is kept up to here
            cursor = step.end()
            if step.group("value_end"):
                break
            quote = step.group("quote")
            if quote:
                close = html.find(quote, cursor)
                cursor = close + 1 if close >= 0 else length
        if cut >= 0:
            cuts.append((cut, cursor))
        position = cursor
        name = name_match.group(1).lower()
        if html[start + 1] != "/" and name in RAW_TEXT_TAGS:
            close = _RAW_TEXT_END[name].search(html, position)
            position = close.start() if close else length
    return cuts
