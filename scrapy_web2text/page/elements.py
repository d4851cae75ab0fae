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
_TOKEN_MASKS: dict[str, int] = {}
#: Whole ``"class id"`` strings → their masks: a CDOM node's string of a dozen tokens (a menu item's classes) cost a
#: dozen look-ups in ``_TOKEN_MASKS`` each time it was read, on every block below it.
_STRING_MASKS: dict[str, int] = {}


def _keyword_mask(token: str) -> int:
    """The bits of the keyword groups (:data:`~.tags.ANCESTOR_KEYWORDS`) whose pattern matches in ``token``."""
    mask = 0
    for word in _KEYWORD_SCAN.findall(token):
        mask |= _KEYWORD_WORDS[word]
    for bit, pattern, required in _KEYWORD_PATTERNS:
        if required in token and pattern.search(token):
            mask |= bit
    _cache(_TOKEN_MASKS, "tokens", token, mask, len(token))
    return mask


def keyword_mask(attributes: str) -> int:
    """The keyword bits of a lower-cased ``"class id"`` string (an element's, or a CDOM node's
    ``Page.distinct_attributes``): the union of its tokens' masks."""
    # No keyword spans blank space (and \b sees the same word edges in a token as in the string), so the mask is
    # the union of the tokens' masks; tokens ("row", "container", "entry-content") repeat across sites far more
    # than whole class strings do, and their masks are cached; so are the strings' own.
    mask = _STRING_MASKS.get(attributes)
    if mask is not None:
        return mask
    mask = 0
    for token in attributes.split():
        token_mask = _TOKEN_MASKS.get(token)
        mask |= _keyword_mask(token) if token_mask is None else token_mask
    _cache(_STRING_MASKS, "strings", attributes, mask, len(attributes))
    return mask


#: (class, id) → (lower-cased "class id", tag-path suffix, keyword mask),
#: shared by all pages: sites repeat their class names on every page.
#: Both caches are bounded by entries, and values longer than
#: ``_CACHED_VALUE_MAX_CHARS`` are not cached: pages of long class names
#: grew them on every page.
_ATTRIBUTE_CACHE: dict[tuple[str, str], tuple[str, str, int]] = {}
_ATTRIBUTE_CACHE_SIZE = 100_000
_CACHED_VALUE_MAX_CHARS = 256
#: Characters of class and id values each cache may hold before it is cleared.
_CACHE_MAX_CHARS = 4_000_000
_cache_chars = {"attributes": 0, "elements": 0, "tokens": 0, "strings": 0}


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


def _describe_attributes(class_name: str, element_id: str) -> tuple[str, str, int]:
    key = (class_name, element_id)
    described = _ATTRIBUTE_CACHE.get(key)
    if described is None:
        attributes = f"{class_name} {element_id}".strip().lower()
        classes = class_name.split()
        mask = keyword_mask(attributes)
        suffix = "." + classes[0] if classes else ""
        if len(suffix) > TAG_PATH_CLASS_CHARS + 1:
            suffix = suffix[: TAG_PATH_CLASS_CHARS + 1] + "…"
        described = (attributes, suffix, mask)
        _cache(_ATTRIBUTE_CACHE, "attributes", key, described, len(class_name) + len(element_id))
    return described


#: (tag, class, id) → (attributes, tag path segment, keyword mask): one lookup per element in the walk.
_ELEMENT_CACHE: dict[tuple[str, str | None, str | None], tuple[str, str, int]] = {}


def _describe_element(tag: str, class_name: str | None, element_id: str | None) -> tuple[str, str, int]:
    if class_name or element_id:
        attributes, suffix, mask = _describe_attributes(class_name or "", element_id or "")
        described = (attributes, tag + suffix, mask)
    else:
        described = ("", tag, 0)
    chars = len(class_name or "") + len(element_id or "")
    _cache(_ELEMENT_CACHE, "elements", (tag, class_name, element_id), described, chars)
    return described


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
