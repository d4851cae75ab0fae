"""What the CDOM walk knows of an element, looked up once per distinct element: its tag's properties (block-level,
skipped, ancestor bit) and its class/id (lower-cased, tag path segment, keyword mask).

The caches are shared by all pages (sites repeat their class names on every page) and bounded: by entries, by the
characters they hold, and values over ``_CACHED_VALUE_MAX_CHARS`` are never cached (pages of long class names grew
them on every page).
"""

from __future__ import annotations

import re

from .tags import ANCESTOR_KEYWORDS, ANCESTOR_TAG_BITS, BLOCK_LEVEL_TAGS, SKIPPED_TAGS


def _keyword_needles() -> tuple[dict[str, int], list[tuple[int, re.Pattern, str]]]:
    """The keyword groups as plain words (word → the bits of the groups that list it) and the few alternatives that
    are patterns (``\\bads?\\b``: bit, pattern, the word every match contains)."""
    words: dict[str, int] = {}
    patterns = []
    for bit, (_, pattern) in enumerate(ANCESTOR_KEYWORDS):
        for alternative in pattern.split("|"):
            if re.search(r"\d", alternative):
                raise ValueError(f"keyword {alternative!r} holds a digit: id masks are cached with digits written as 0")
            if re.fullmatch(r"[\w-]+", alternative):
                words[alternative] = words.get(alternative, 0) | 1 << bit
            else:
                required = re.sub(r"\\b|s\?", "", alternative)
                if not re.fullmatch(r"[\w-]+", required):
                    raise ValueError(f"keyword pattern {alternative!r} is not a word with \\b or s?")
                patterns.append((1 << bit, re.compile(alternative), required))
    # One scan finds, at each position of a token, one word starting there (the longest, listed first).  That is all
    # the words starting there as long as no word is the start of a word of another group.
    for word in words:
        for other in words:
            if other != word and other.startswith(word) and words[other] != words[word]:
                raise ValueError(f"keyword {word!r} starts keyword {other!r} of another group")
    return words, patterns


_KEYWORD_WORDS, _KEYWORD_PATTERNS = _keyword_needles()


def first_letter_alternation(words) -> str:
    """An alternation of the literal ``words`` that branches on the first character first: the regular expression
    engine tries alternatives one by one, and most positions then fail at one test.  The longest word comes first
    among those that start alike."""
    rests: dict[str, list[str]] = {}
    for word in sorted(words, key=len, reverse=True):
        rests.setdefault(word[0], []).append(re.escape(word[1:]))
    return "|".join(f"{re.escape(first)}(?:{'|'.join(rest)})" for first, rest in rests.items())


def _scan_pattern(words) -> str:
    """A lookahead (so that overlapping words are all found) for the words, branching on the first character first."""
    return f"(?=({first_letter_alternation(words)}))"


#: Every keyword word at every position of a token, in one scan: faster than a substring test per word, with the
#: same masks.
_KEYWORD_SCAN = re.compile(_scan_pattern(_KEYWORD_WORDS))
#: Whole ``"class id"`` strings → their masks (CDOM nodes' strings are read again for every block below them).
_STRING_MASKS: dict[str, int] = {}


def _scanned_mask(text: str) -> int:
    """The bits of the keyword groups (:data:`~.tags.ANCESTOR_KEYWORDS`) whose pattern matches in ``text``, by one
    scan of the whole text."""
    mask = 0
    for word in _KEYWORD_SCAN.findall(text):
        mask |= _KEYWORD_WORDS[word]
    for bit, pattern, required in _KEYWORD_PATTERNS:
        if required in text and pattern.search(text):
            mask |= bit
    return mask


def keyword_mask(attributes: str) -> int:
    """The keyword bits of a lower-cased ``"class id"`` string (an element's, or a CDOM node's
    ``Page.distinct_attributes``): the union of its tokens' masks."""
    # No keyword spans blank space (the words hold none, and \b sees the same word edges in a token as in the
    # string), so one scan of the whole string gives the union of its tokens' masks: one regular expression call
    # instead of a look-up, a call and a cache entry per token, where most strings and tokens of a new site are new.
    mask = _STRING_MASKS.get(attributes)
    if mask is None:
        mask = _scanned_mask(attributes)
        _cache(_STRING_MASKS, "strings", attributes, mask, len(attributes))
    return mask


#: The caches are shared by all pages (sites repeat their class names on every page), bounded by entries, and values
#: longer than ``_CACHED_VALUE_MAX_CHARS`` are not cached: pages of long class names grew them on every page.
_ATTRIBUTE_CACHE_SIZE = 100_000
_CACHED_VALUE_MAX_CHARS = 256
#: Characters of class and id values each cache may hold before it is cleared.
_CACHE_MAX_CHARS = 4_000_000
_cache_chars = {"classes": 0, "ids": 0, "strings": 0}


def _cache(cache: dict, name: str, key, value, chars: int) -> None:
    """Store ``value`` unless its class/id hold over ``_CACHED_VALUE_MAX_CHARS``; clear a full cache first."""
    if chars > _CACHED_VALUE_MAX_CHARS:
        return
    if len(cache) >= _ATTRIBUTE_CACHE_SIZE or _cache_chars[name] >= _CACHE_MAX_CHARS:
        cache.clear()
        _cache_chars[name] = 0
    cache[key] = value
    _cache_chars[name] += chars


#: A class name in a tag path is cut to this many characters: the blocks
#: below an element repeat its path segment (a huge class token on a
#: ``<div>`` around thousands of paragraphs made gigabytes of tag paths).  Path ids
#: still tell the full class names apart.
TAG_PATH_CLASS_CHARS = 64


#: (tag, class) → (lower-cased class, tag path segment, keyword mask of the class): one lookup per element in the
#: walk.  The id is not in the key: an id is often unique on its page, so a key with it missed for nearly every
#: element that has one, while the same class names repeat on every page of a site.
_CLASS_CACHE: dict[tuple[str, str | None], tuple[str, str, int]] = {}
#: id value (as written) → its keyword mask: the ids of a site's template (``header``, ``content``) repeat.
_ID_MASKS: dict[str, int] = {}


def _describe_class(tag: str, class_name: str | None) -> tuple[str, str, int]:
    """An element's lower-cased class, tag path segment and the class's keyword mask, cached by (tag, class)."""
    if class_name:
        attributes = class_name.strip().lower()
        first_class = class_name.split(None, 1)
        suffix = "." + first_class[0] if first_class else ""
        if len(suffix) > TAG_PATH_CLASS_CHARS + 1:
            suffix = suffix[: TAG_PATH_CLASS_CHARS + 1] + "…"
        mask = _STRING_MASKS.get(attributes)
        described = (attributes, tag + suffix, _scanned_mask(attributes) if mask is None else mask)
        chars = len(class_name)
    else:
        described, chars = ("", tag, 0), 0
    _cache(_CLASS_CACHE, "classes", (tag, class_name), described, chars)
    return described


#: A run of digits in an id value.
_DIGITS = re.compile(r"\d+")


def _id_mask(element_id: str) -> int:
    """The keyword mask of an id value, cached by the value with each run of digits written as one ``0``.

    Pages number their posts, comments and items in their ids (``post-1234``), so an id is most often new.  No
    keyword holds a digit (:func:`_keyword_needles` checks), and a digit is a word character like any other, so the
    digits an id holds do not change its mask: ``post-1234`` and ``post-7`` share one entry."""
    key = _DIGITS.sub("0", element_id)
    mask = _ID_MASKS.get(key)
    if mask is None:
        mask = _scanned_mask(key.lower())
        _cache(_ID_MASKS, "ids", key, mask, len(key))
    return mask


def describe_element(tag: str, class_name: str | None, element_id: str | None) -> tuple[str, str, int]:
    """An element's lower-cased ``"class id"``, tag path segment and keyword mask.

    The mask of ``"class id"`` is the union of the masks of its class and of its id (no keyword spans blank space:
    see :func:`keyword_mask`; lower-casing each part alone gives the same letters, as the blank between them ends a
    word for the one context-dependent rule, the Greek final sigma), and the segment depends on the class alone."""
    attributes, segment, mask = _CLASS_CACHE.get((tag, class_name)) or _describe_class(tag, class_name)
    if element_id:
        attributes = f"{class_name or ''} {element_id}".strip().lower()
        id_mask = _ID_MASKS.get(element_id)
        mask |= _id_mask(element_id) if id_mask is None else id_mask
    return attributes, segment, mask


#: lxml tag → (lower-case local name, is block-level, is skipped, ancestor tag bit, is a link): one dict lookup
#: per element instead of a namespace test, a lower() and three set lookups.
_TAG_TABLE: dict[str, tuple[str, bool, bool, int, bool]] = {}
_TAG_TABLE_SIZE = 10_000


def _describe_tag(raw: str) -> tuple[str, bool, bool, int, bool]:
    if not isinstance(raw, str):  # a comment or processing instruction (lxml's tag is a function): only its tail
        return ("", False, True, 0, False)
    tag = raw.rpartition("}")[2] if raw.startswith("{") else raw
    tag = tag.lower()
    described = (tag, tag in BLOCK_LEVEL_TAGS, tag in SKIPPED_TAGS, ANCESTOR_TAG_BITS.get(tag, 0), tag == "a")
    if len(_TAG_TABLE) >= _TAG_TABLE_SIZE:  # made-up tags are unbounded; real pages use a few dozen
        _TAG_TABLE.clear()
    _TAG_TABLE[raw] = described
    return described
