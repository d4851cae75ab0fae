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

# Tokenising follows the HTML standard's tokenizer (which libxml2 2.14+ implements too), so that this scan and the
# parser agree on where comments and tags end: a disagreement would shift every later tag and lose the rest of the
# page.  Every pattern is possessive, never backtracks, and each scan step consumes what it matches.
_TAG_NAME = re.compile(r"/?([A-Za-z][^\t\n\f\r />]*+)")
#: Inside a start tag, one step: white space and "/" skipped, then the tag's ">" or one attribute: its name (which
#: may start with "=": ``<div ="x>`` has an attribute named ``="x``), then "=" and its value: the opening quote of
#: a quoted value (its end is found with ``str.find``), a ">" (no value: the tag ends) or an unquoted value.
_ATTRIBUTE_STEP = re.compile(
    r"""[\t\n\f\r /]*+(?:(?P<end>>)|=?[^\t\n\f\r />=]*+[\t\n\f\r ]*+"""
    r"""(?:=[\t\n\f\r ]*+(?:(?P<quote>["'])|(?P<value_end>>)|[^\t\n\f\r >]*+))?)"""
)
#: A comment ends at "-->" or "--!>" (``<!-->`` and ``<!--->`` are empty comments, handled before this).
_COMMENT_END = re.compile(r"--!?>")
#: The end tag of each raw-text element (script, style, ...).
_RAW_TEXT_END = {name: re.compile(r"</" + name + r"[\t\n\f\r />]", re.I) for name in RAW_TEXT_TAGS}


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
            position = _markup_declaration_end(html, start)
            continue
        name_match = _TAG_NAME.match(html, start + 1)
        if name_match is None:
            if following == "/":  # "</>" is dropped, "</ x>" is a bogus comment up to its ">"
                close = html.find(">", start + 2)
                position = close + 1 if close >= 0 else length
            else:  # a lone "<": text
                position = start + 1
            continue
        name = name_match.group(1).lower()
        is_end = following == "/"
        cursor = _start_tag_end(html, name_match.end())
        if cursor < 0:  # the tag never ends: the rest of the page is inside it
            break
        position = cursor
        drop = False
        if not is_end:
            if name in RAW_TEXT_TAGS:
                close = _RAW_TEXT_END[name].search(html, position)
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


def _markup_declaration_end(html: str, start: int) -> int:
    """Where the comment, doctype, CDATA section or processing instruction at ``html[start]`` ends."""
    if html.startswith("<!--", start):
        if html.startswith(">", start + 4):  # "<!-->"
            return start + 5
        if html.startswith("->", start + 4):  # "<!--->"
            return start + 6
        close = _COMMENT_END.search(html, start + 4)
        return close.end() if close else len(html)
    close = html.find(">", start + 2)
    return close + 1 if close >= 0 else len(html)


def _start_tag_end(html: str, cursor: int) -> int:
    """The position after the ">" of the tag whose attributes start at ``cursor``, or -1 if it never ends."""
    length = len(html)
    while cursor < length:
        step = _ATTRIBUTE_STEP.match(html, cursor)
        cursor = step.end()
        if step.group("end") or step.group("value_end"):
            return cursor
        quote = step.group("quote")
        if quote:
            close = html.find(quote, cursor)
            if close < 0:
                return -1
            cursor = close + 1
    return -1
