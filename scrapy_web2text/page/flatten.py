"""Unwrapping nesting deeper than libxml2 accepts, so that no text of such a page is lost.

libxml2 gives up at an element depth of 2048 and drops the rest of the page; :func:`~.parse.parse_page` then parses
the page again through :func:`flatten_nesting`.
"""

from __future__ import annotations

import re

from .tags import BLOCK_LEVEL_TAGS, RAW_TEXT_TAGS, VOID_TAGS

#: When libxml2 stops at its nesting limit (2048 elements, ``huge_tree`` or
#: not), the page is parsed again with the start and end tags nested deeper
#: than this removed; their text stays where it was.  Pages that never hit
#: the limit are parsed exactly once, unchanged.
MAX_NESTING = 1024

_TAG_NAME = re.compile(r"/?([A-Za-z][^\t\n\f\r />]*)")
#: Inside a start tag: its end, or the start of a quoted attribute value.
_TAG_END_OR_VALUE = re.compile(r""">|=[\t\n\f\r ]*(["'])""")


def flatten_nesting(html: str, cap: int = MAX_NESTING) -> str:
    """``html`` with the start and end tags nested deeper than ``cap`` removed.

    A single forward scan (linear time, whatever the input) that models
    nesting the simple way: void elements add none, an end tag closes up to
    its nearest open namesake, stray end tags are ignored; it may count
    deeper than a browser, never much shallower except around implied
    elements.  An unwrapped block-level element leaves a ``<br>`` so its
    text stays a block of its own; comments, doctypes and raw text (script,
    style, ...) pass through untouched.  ``cap=0`` removes every tag.
    """
    out: list[str] = []
    kept_until = 0
    stack: list[str] = []
    open_counts: dict[str, int] = {}
    position = 0
    length = len(html)
    while True:
        start = html.find("<", position)
        if start < 0 or start + 1 >= length:
            break
        following = html[start + 1]
        if following == "!" or following == "?":  # comment, doctype, CDATA, PI
            if html.startswith("<!--", start):
                close = html.find("-->", start + 4)
                position = close + 3 if close >= 0 else length
            else:
                close = html.find(">", start + 2)
                position = close + 1 if close >= 0 else length
            continue
        name_match = _TAG_NAME.match(html, start + 1)
        if name_match is None:  # a lone "<": text
            position = start + 1
            continue
        name = name_match.group(1).lower()
        is_end = following == "/"
        # Find the tag's ">", skipping quoted attribute values.
        cursor = name_match.end()
        while True:
            found = _TAG_END_OR_VALUE.search(html, cursor)
            if found is None:
                cursor = -1
                break
            if found.group(1) is None:
                cursor = found.end()
                break
            close = html.find(found.group(1), found.end())
            if close < 0:
                cursor = -1
                break
            cursor = close + 1
        if cursor < 0:  # the tag never ends: the rest of the page is inside it
            break
        position = cursor
        drop = False
        if not is_end:
            if name in RAW_TEXT_TAGS:
                close = re.compile(r"</" + re.escape(name) + r"[\t\n\f\r />]", re.I).search(html, position)
                position = close.start() if close else length
                if cap == 0:  # drop the raw text along with its tags
                    out.append(html[kept_until:start])
                    kept_until = position
                continue
            if name in VOID_TAGS:
                drop = cap == 0
            else:
                drop = len(stack) >= cap
                stack.append(name)
                open_counts[name] = open_counts.get(name, 0) + 1
        elif open_counts.get(name):
            while True:
                top = stack.pop()
                open_counts[top] -= 1
                if top == name:
                    break
            drop = len(stack) >= cap
        else:
            drop = cap == 0
        if drop:
            out.append(html[kept_until:start])
            out.append("<br>" if cap and name in BLOCK_LEVEL_TAGS else " " if name in BLOCK_LEVEL_TAGS else "")
            kept_until = position
    out.append(html[kept_until:])
    return "".join(out)
