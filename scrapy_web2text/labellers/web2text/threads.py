"""Whether a page is a thread of posts: a forum's discussion, a question and its answers.

A thread's posts are its content, where an article's comment section is not; the page-type classifier, trained on
few forums, calls many threads articles, and the rules for articles then drop the posts as comments.  A page is a
thread where it declares itself one (schema.org ``DiscussionForumPosting`` or ``QAPage``, in JSON-LD or
microdata), or where :data:`MIN_POSTS_SHARE` of what the model kept lies in repeated posts: :data:`MIN_POSTS` or
more siblings of one tag and class, each holding an author and a date (:func:`repeated_posts`).  An article's
comments hold less than its text, so the article stays an article.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np
from lxml import etree

from ...page import Page
from .rules.inputs import declared, page_lengths

#: schema.org types by which a page declares itself a thread.
THREAD_TYPES = frozenset({"DiscussionForumPosting", "QAPage"})
#: Siblings alike that make a list of posts.
MIN_POSTS = 3
#: A page whose repeated posts hold this share of the kept characters is a thread.
MIN_POSTS_SHARE = 0.5
#: A post holds a date (a ``<time>`` element, a date class or property) and an author (an author's or a user's
#: class, property or link).
POST_MARKS = etree.XPath(
    "boolean(.//time | .//*[contains(@class, 'date') or @itemprop = 'datePublished' or @itemprop = 'dateCreated'])"
    " and boolean(.//*[contains(@class, 'author') or contains(@class, 'user') or @itemprop = 'author'"
    " or @rel = 'author'])"
)


def thread_page(page: Page, labels: np.ndarray) -> bool:
    """Whether the page declares itself a thread, or repeated posts hold :data:`MIN_POSTS_SHARE` of the characters
    ``labels`` keeps."""
    if not THREAD_TYPES.isdisjoint(declared(page).schema_types):
        return True
    if len(page.block_elements) != len(page.texts) or not labels.any():
        return False
    return bool(repeated_posts(page, labels))


def repeated_posts(page: Page, labels: np.ndarray) -> list[Any]:
    """The posts holding :data:`MIN_POSTS_SHARE` of the kept characters: :data:`MIN_POSTS` or more children of one
    element with the same tag and class, each holding a date and an author (:data:`POST_MARKS`); ``[]`` where none.

    Only the elements holding that much kept text are looked at (the kept blocks' ancestors), and their posts'
    marks looked for last: a page pays for the search where a thread is possible."""
    chars = page_lengths(page)
    kept = np.flatnonzero(labels != 0).tolist()
    held = kept_under_elements(page, kept, chars)
    enough = MIN_POSTS_SHARE * int(chars[kept].sum())
    for parent in [element for element, chars in held.items() if chars >= enough and len(element) >= MIN_POSTS]:
        groups: dict[tuple[Any, str | None], list[Any]] = defaultdict(list)
        for child in parent:
            if isinstance(child.tag, str):
                groups[child.tag, child.get("class")].append(child)
        for group in groups.values():
            alike = len(group) >= MIN_POSTS and sum(held.get(child, 0) for child in group) >= enough
            if alike and all(POST_MARKS(child) for child in group):
                return group
    return []


def kept_under_elements(page: Page, kept: list[int], chars: np.ndarray) -> dict[Any, int]:
    """The kept characters under each element that holds a kept block (``kept``: the kept blocks' numbers), in the
    order the kept blocks reach them, each block's element first, then its ancestors upwards.

    Each element's parent is read once (a block's chain stops at the first element an earlier block reached), and the
    characters are added up the tree once, deepest elements first: a page's blocks share most of their ancestors."""
    held: dict[Any, int] = {}
    parents: dict[Any, Any] = {}
    depths: dict[Any, int] = {}
    for i in kept:
        element = page.block_elements[i][0]
        if element is None:
            continue
        if element not in held:
            chain, node = [], element
            while node is not None and node not in held:
                held[node] = 0
                chain.append(node)
                node = node.getparent()
            depth = -1 if node is None else depths[node]
            for upper, lower in zip([*chain[1:], node], chain):
                parents[lower] = upper
            for element_above in reversed(chain):
                depth += 1
                depths[element_above] = depth
        held[element] += int(chars[i])
    for element in sorted(depths, key=depths.__getitem__, reverse=True):
        parent = parents[element]
        if parent is not None:
            held[parent] += held[element]
    return held
