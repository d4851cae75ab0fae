"""Per-block text counts of a page, vectorised over its code points.

Every text statistic the features need (characters of a class, words, capitalised words, stop words, digits,
pattern hits) is counted for the whole page at once: the block texts are joined, each code point is looked up in a
table of character properties, and per-block totals come from ``np.bincount`` over the block that owns each
character.  The properties are the ones Python's ``str`` methods and ``re`` use (``\\w`` is ``isalnum()`` or
``_``, ``\\d`` is ``isdecimal()``), so the counts equal those of a loop over the words, exactly; the table is
filled lazily, one ``chr()`` test per distinct code point ever seen.
"""

from __future__ import annotations

import re

import numpy as np

from ...page.twins import load_twin
from .languages import ENGLISH_STOPWORD_SHARE, page_stopwords

#: Words as the regex engine sees them, for the non-English stop-word lists (the packed English path needs none).
_WORD = re.compile(r"\w+")

#: The characters of one word counted in its length (``avg_word_length``): a run of 3,000 ``_`` or a base64 blob
#: read as one word of that length made its block's feature hundreds of standard deviations from anything the
#: model saw, and the network's page-wide layers then dropped every block of the page.  The longest words of
#: real text (German compounds) stay under it.
MAX_WORD_CHARS = 64

#: Character property bits.
(
    WORD,
    UPPER,
    DECIMAL,
    SPACE,
    PUNCTUATION,
    DASH,
    PERIOD,
    SEPARATOR,
    ENDS_SENTENCE,
    QUESTION,
    BLANK,
    SENTENCE_MARK,
    LETTER,
    CASE_EXCEPTION,
) = (1 << b for b in range(14))
_UNKNOWN = 1 << 15
_CHARACTER_CLASSES = {
    SPACE: " ",
    PUNCTUATION: ",.?;:!",
    DASH: "-_/\\",
    PERIOD: ".",
    SEPARATOR: "|•·»«›‹>",
    ENDS_SENTENCE: ".!?:;,\"'”’)",  # a block ending with one of these "ends with punctuation"
    QUESTION: "?",
    SENTENCE_MARK: ".!?",
    LETTER: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    CASE_EXCEPTION: "\u0130\u0131\u017f\u212a",
}
#: One uint16 of property bits per code point (2.2 MB, filled on first sight of each code point).
_PROPERTIES = np.full(0x110000, _UNKNOWN, np.uint16)

#: An address's "@domain.tld" part, and the local part that must end right before its "@".
_EMAIL_DOMAIN = re.compile(r"@[\w-]++\.[\w.]++")
_EMAIL_LOCAL_PART_AT_END = re.compile(r"(?<![\w.+-])[\w.+-]++\Z")
_URL = re.compile(r"https?://|www\.\w")
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
_COPYRIGHT = re.compile(r"©|\(c\)|copyright|all rights reserved", re.I)
_COPYRIGHT_LITERALS = ("©", "(c)", "copyright", "all rights reserved")

STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because
    been before being below between both but by can could did do does doing down
    during each few for from further had has have having he her here hers herself
    him himself his how i if in into is it its itself just me more most my myself
    no nor not now of off on once only or other our ours ourselves out over own
    same she should so some such than that the their theirs them themselves then
    there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours
    yourself yourselves""".split()
)
#: A word of at most ten ASCII letters, lower-cased, packed five bits a letter into an integer: stop words are
#: compared as integers, exactly.  No stop word has a "k" (the Kelvin sign lower-cases to one) and no other
#: character outside ASCII lower-cases to an ASCII letter, so a word with any other character is no stop word.
_PACKED_LETTERS = 10
assert all(word.isascii() and word.isalpha() and "k" not in word and len(word) <= _PACKED_LETTERS for word in STOPWORDS)


def _pack(word: str) -> int:
    return sum((ord(letter) - 96) << (5 * position) for position, letter in enumerate(word))


_PACKED_STOPWORDS = np.array(sorted(map(_pack, STOPWORDS)), np.int64)
#: [first letter, last letter, length] of the stop words (letters 1..26): most words are ruled out by a look-up.
_STOPWORD_SHAPES = np.zeros((27, 27, _PACKED_LETTERS + 1), bool)
for _word in STOPWORDS:
    _STOPWORD_SHAPES[ord(_word[0]) - 96, ord(_word[-1]) - 96, len(_word)] = True


def email_starts(text: str) -> list[int]:
    r"""Where ``re.finditer(r"[\w.+-]+@[\w-]+\.[\w.]+", text)`` starts its matches, in linear time.

    That pattern retries every start inside a long ``a.a.a...`` run and backtracks through the rest of it
    (quadratic).  Its matches are found here from their "@domain.tld" parts instead: a local part is the run of
    ``[\w.+-]`` ending at the "@" (it cannot contain one), cut at the end of the previous match, and the runs
    searched for different "@" are disjoint.
    """
    starts: list[int] = []
    matched_until = 0
    previous_at = -1
    for domain in _EMAIL_DOMAIN.finditer(text):
        at = domain.start()
        local_from = max(matched_until, previous_at + 1)
        previous_at = at
        local = _EMAIL_LOCAL_PART_AT_END.search(text[local_from:at])
        if local is not None:
            starts.append(local_from + local.start())
            matched_until = domain.end()
    return starts


def _describe(code: int) -> int:
    character = chr(code)
    bits = 0
    if character.isalnum() or character == "_":
        bits |= WORD
    if character.isupper():
        bits |= UPPER
    if character.isdecimal():
        bits |= DECIMAL
    if character.isspace():
        bits |= BLANK
    for bit, characters in _CHARACTER_CLASSES.items():
        if character in characters:
            bits |= bit
    return bits


def character_properties(text: str) -> tuple[np.ndarray, np.ndarray]:
    """The code points of ``text`` and their property bits."""
    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), np.uint32)
    properties = _PROPERTIES[codes]
    unknown = properties == _UNKNOWN
    if unknown.any():
        # Filling is idempotent, so threads racing here write the same values.
        for code in np.unique(codes[unknown]).tolist():
            _PROPERTIES[code] = _describe(code)
        properties = _PROPERTIES[codes]
    return codes, properties


def block_lengths(texts: list[str], table: tuple[np.ndarray, bool] | None = None) -> np.ndarray:
    """Each block's length in code points (int64): computed once a page and handed to whatever needs it; read from
    :func:`text_table`'s ``table`` where given."""
    if table is not None:
        return np.ascontiguousarray(table[0][:, _COMPILED_COLUMNS.index("length")])
    return np.fromiter(map(len, texts), np.int64, len(texts))


def _lengths_and_offsets(texts: list[str], lengths: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Each block's length (``lengths`` if given), and where it starts in the blocks joined by "\n"."""
    if lengths is None:
        lengths = block_lengths(texts)
    offsets = np.zeros(len(texts), np.int64)
    np.cumsum(lengths[:-1] + 1, out=offsets[1:])
    return lengths, offsets


def text_table(texts: list[str]) -> tuple[np.ndarray, bool] | None:
    """The compiled counts' table of ``texts`` and whether a character has the ``CASE_EXCEPTION`` bit, for
    :func:`block_counts` and :func:`edge_text_properties` to share; ``None`` without the compiled counts."""
    if compiled_text_counts is None:
        return None
    return compiled_text_counts(texts, _PROPERTIES, _describe, _PACKED_STOPWORDS, _BITS)


def block_counts(
    texts: list[str],
    in_link: np.ndarray,
    table: tuple[np.ndarray, bool] | None = None,
    lengths: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Per-block float counts: characters, words and their kinds, character classes, pattern hits.

    ``email``, ``url``, ``year`` and ``copyright`` are 1 where the block holds at least one match (the features
    only ask whether a node holds one); block texts hold no newline (blank runs are collapsed).  ``table`` is
    :func:`text_table` of ``texts``, if already computed, and ``lengths`` :func:`block_lengths`.
    """
    n = len(texts)
    if table is None:
        table = text_table(texts)
    if lengths is None:
        lengths = block_lengths(texts, table)
    offsets = None  # where each block starts in the blocks joined: only the Python counts and regexes read it
    if table is not None:
        table, case_exception = table
        # One conversion of the whole table; each class is a column of it (the same floats as a conversion each).
        classes = dict(zip(_COMPILED_COLUMNS, table.astype(float).T))
        last, at_blocks = table[:, _COMPILED_COLUMNS.index(_FIRST_LAST[1])], np.flatnonzero(classes["at_signs"])
        joined = None  # the compiled table holds the URL, year and copyright columns: no page string needed
    else:
        # One string for the page; a character's block is known from the block lengths (+1 for the "\n" between).
        joined = "\n".join(texts)
        lengths, offsets = _lengths_and_offsets(texts, lengths)
        classes, last, at_blocks, case_exception = _character_counts(joined, lengths, offsets)
    words = classes["words"]
    stopwords = classes["stopwords"]
    if words.sum() and stopwords.sum() < ENGLISH_STOPWORD_SHARE * words.sum():
        # Not English (or too little text to tell): the page's language's stop-words, chosen by a language
        # identifier on its longest blocks (languages.py); English pages keep the paper's list exactly.
        language_stopwords = page_stopwords(texts)
        if language_stopwords is not None:
            stop = _language_stopwords(joined or "\n".join(texts), language_stopwords)
            word_owner = np.repeat(np.arange(n), words.astype(np.int64))
            stopwords = np.bincount(word_owner[stop], minlength=n).astype(float)
    counts: dict[str, np.ndarray] = {"chars": lengths.astype(float)}
    for name in ("punctuation", "dashes", "periods", "separators", "digits", "words", "word_length", "capital_words"):
        counts[name] = classes[name]
    counts["stopwords"] = stopwords
    counts["link_chars"] = np.where(in_link, lengths, 0).astype(float)
    counts["ends_punct"] = ((last & ENDS_SENTENCE) != 0).astype(float)
    counts["ends_question"] = ((last & QUESTION) != 0).astype(float)
    counts["sentences"] = classes["sentences"]
    if joined is None:
        counts.update(_compiled_pattern_counts(texts, classes, lengths, at_blocks, case_exception))
    else:
        counts.update(_pattern_counts(texts, joined, offsets, counts["digits"], at_blocks, case_exception))
    return counts


def _language_stopwords(joined: str, language_stopwords: frozenset[str]) -> np.ndarray:
    """Whether each word (``\\w+``) of the page's text, in order (as the word starts), is a stop-word of its
    language: the page lower-cased once and the words looked up by the set's own method (a Python loop over the
    words cost as much as the rest of the features)."""
    lowered = joined.lower()
    if len(lowered) == len(joined):
        found = _WORD.findall(lowered)
        return np.fromiter(map(language_stopwords.__contains__, found), bool, len(found))
    # A character whose lower case is longer ("İ") may split or join words differently: one word at a time.
    found = _WORD.findall(joined)
    return np.fromiter((word.lower() in language_stopwords for word in found), bool, len(found))


def _character_counts(
    joined: str, lengths: np.ndarray, offsets: np.ndarray
) -> tuple[dict, np.ndarray, np.ndarray, bool]:
    """The character-class and word counts per block, vectorised over the page's code points; each block's last
    character's property bits; the blocks holding an "@"; whether a character has the ``CASE_EXCEPTION`` bit."""
    n = len(lengths)
    codes, properties = character_properties(joined)
    owner = np.repeat(np.arange(n), lengths + 1)[: len(codes)]

    def per_block(mask: np.ndarray) -> np.ndarray:
        # Sums over each block's run of characters (and the "\n" after it, which no mask holds): one pass.
        return np.add.reduceat(mask, offsets, dtype=np.int64).astype(float)

    counts: dict[str, np.ndarray] = {}
    for name, bit in (("punctuation", PUNCTUATION), ("dashes", DASH), ("periods", PERIOD), ("separators", SEPARATOR)):
        counts[name] = per_block((properties & bit) != 0)
    counts["digits"] = per_block((properties & DECIMAL) != 0)
    # A word starts where a word character follows a non-word one ("\n" between blocks is not one).
    is_word = (properties & WORD) != 0
    word_start = is_word.copy()
    word_start[1:] &= ~is_word[:-1]
    word_starts = np.flatnonzero(word_start)
    word_owner = owner[word_starts]
    counts["words"] = np.bincount(word_owner, minlength=n).astype(float)
    # A word's length counts at most MAX_WORD_CHARS characters: its characters at that distance from its start or
    # further are left out (each character's word start is the last start at or before it).
    positions = np.arange(len(codes), dtype=np.int32 if len(codes) < 2**31 else np.int64)
    word_begins = np.maximum.accumulate(np.where(word_start, positions, 0))
    counts["word_length"] = per_block(is_word & (positions - word_begins < MAX_WORD_CHARS))
    counts["capital_words"] = np.bincount(word_owner[(properties[word_starts] & UPPER) != 0], minlength=n).astype(float)
    counts["stopwords"] = _stopwords(codes, properties, is_word, word_starts, owner, n)
    # r"[.!?]+(?=\s|$)": a run of sentence marks followed by a blank or the end, counted at the run's start.
    marks = (properties & SENTENCE_MARK) != 0
    run_start = marks.copy()
    run_start[1:] &= ~marks[:-1]
    run_end = marks.copy()
    run_end[:-1] &= ~marks[1:]
    after = np.flatnonzero(run_end) + 1
    followed = np.ones(len(after), bool)
    inside = after < len(codes)
    followed[inside] = (properties[after[inside]] & BLANK) != 0
    counts["sentences"] = np.bincount(owner[np.flatnonzero(run_start)[followed]], minlength=n).astype(float)
    last = properties[offsets + lengths - 1]  # each block's last character (block texts are never empty)
    at_blocks = np.flatnonzero(np.bincount(owner[codes == ord("@")], minlength=n))
    return counts, last, at_blocks, bool((properties & CASE_EXCEPTION).any())


def _url_starts(text: str) -> list[int]:
    r"""Where ``text`` has ``https?://`` or ``www\.\w`` (``_URL``): each start, found with ``str.find`` (faster
    than the regex scan).  It also finds a start inside another match ("www.www.x"), in the block of
    that match (matches hold no "\n"), so the blocks holding a match are the same."""
    starts = []
    for literal in ("http://", "https://", "www."):
        found = text.find(literal)
        while found >= 0:
            following = text[found + 4 : found + 5]
            if literal != "www." or following.isalnum() or following == "_":  # \w, as re reads it
                starts.append(found)
            found = text.find(literal, found + 1)
    return starts


def _pattern_counts(
    texts: list[str], joined: str, offsets: np.ndarray, digits: np.ndarray, at_blocks: np.ndarray, case_exception: bool
) -> dict[str, np.ndarray]:
    """1 for the blocks holding an e-mail address, a URL, a year, a copyright notice."""
    n = len(texts)
    counts = {"email": _email_blocks(texts, at_blocks)}
    counts["url"] = _present(n, _owners(offsets, _url_starts(joined)) if "://" in joined or "www." in joined else [])
    four_digits = np.flatnonzero(digits >= 4)
    # A year starts "19" or "20": the substring tests (memchr) rule out most blocks before the regex runs.
    counts["year"] = _present(
        n, [i for i in four_digits.tolist() if ("19" in texts[i] or "20" in texts[i]) and _YEAR.search(texts[i])]
    )
    # The only characters outside ASCII that a case-insensitive ASCII pattern matches are İ ı ſ K (CASE_EXCEPTION),
    # and İ is the only one whose lower() is longer than one character: without them, finding the lower-cased
    # literals in the lower-cased text is matching _COPYRIGHT, at the same offsets.
    if not case_exception:
        lowered, hits = joined.lower(), []
        for literal in _COPYRIGHT_LITERALS:
            found = lowered.find(literal)
            while found >= 0:
                hits.append(found)
                found = lowered.find(literal, found + 1)
        counts["copyright"] = _present(n, _owners(offsets, hits))
    else:
        counts["copyright"] = _copyright_by_regex(joined, offsets)
    return counts


def _compiled_pattern_counts(
    texts: list[str], classes: dict[str, np.ndarray], lengths: np.ndarray, at_blocks: np.ndarray, case_exception: bool
) -> dict[str, np.ndarray]:
    """:func:`_pattern_counts` from the compiled table's ``url``, ``year`` and ``copyright`` columns (0 or 1 per
    block); the copyright column reads ASCII letters in either case, which is ``re.I`` only on pages without a
    ``CASE_EXCEPTION`` character: the others run the regex."""
    counts = {"email": _email_blocks(texts, at_blocks), "url": classes["url"], "year": classes["year"]}
    if case_exception:
        counts["copyright"] = _copyright_by_regex("\n".join(texts), _lengths_and_offsets(texts, lengths)[1])
    else:
        counts["copyright"] = classes["copyright"]
    return counts


def _owners(offsets: np.ndarray, positions: list[int]) -> np.ndarray:
    """The block of each position in the blocks joined by "\n"."""
    return np.searchsorted(offsets, np.asarray(positions, np.int64), side="right") - 1


def _present(n: int, blocks) -> np.ndarray:
    """1.0 at ``blocks``, 0.0 elsewhere."""
    out = np.zeros(n)
    out[np.asarray(blocks, np.int64)] = 1.0
    return out


def _email_blocks(texts: list[str], at_blocks: np.ndarray) -> np.ndarray:
    """1 for the blocks holding an e-mail address; only blocks with an "@" are searched."""
    return _present(len(texts), [i for i in at_blocks.tolist() if email_starts(texts[i])])


def _copyright_by_regex(joined: str, offsets: np.ndarray) -> np.ndarray:
    return _present(len(offsets), _owners(offsets, [m.start() for m in _COPYRIGHT.finditer(joined)]))


def edge_text_properties(
    texts: list[str], table: tuple[np.ndarray, bool] | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per block: its spaces, and its first and its last character's property bits (for the edge features).
    ``table`` is :func:`text_table` of ``texts``, if already computed (it holds these columns too)."""
    if table is None and compiled_text_counts is not None:
        table = compiled_text_counts(texts, _PROPERTIES, _describe, _PACKED_STOPWORDS, _BITS, edges_only=True)
    if table is not None:
        table, _ = table
        # The table's own int64 columns (views): the same property bits, no copies.
        first, last = (table[:, _COMPILED_COLUMNS.index(name)] for name in _FIRST_LAST)
        return table[:, _COMPILED_COLUMNS.index("spaces")], first, last
    lengths, offsets = _lengths_and_offsets(texts)
    codes, properties = character_properties("\n".join(texts))
    spaces = np.add.reduceat(codes == ord(" "), offsets, dtype=np.int64)
    return spaces, properties[offsets], properties[offsets + lengths - 1]


def _stopwords(codes, properties, is_word, word_starts, owner, n: int) -> np.ndarray:
    """Per block, the words (``\\w+``) whose ``lower()`` is a stop word."""
    word_end = is_word.copy()
    word_end[:-1] &= ~is_word[1:]
    word_ends = np.flatnonzero(word_end) + 1
    lengths = word_ends - word_starts
    letters = np.zeros(len(codes) + 1, np.int64)
    np.cumsum((properties & LETTER) != 0, out=letters[1:])
    candidate = (lengths <= _PACKED_LETTERS) & (letters[word_ends] - letters[word_starts] == lengths)
    starts, lengths = word_starts[candidate], lengths[candidate]
    # a..z and A..Z → 1..26
    shapes = (codes[starts].astype(np.int64) | 0x20) - 96, (codes[starts + lengths - 1].astype(np.int64) | 0x20) - 96
    possible = _STOPWORD_SHAPES[shapes[0], shapes[1], lengths]
    starts, lengths = starts[possible], lengths[possible]
    position = np.arange(int(lengths.max(initial=0)))
    letters_at = (codes[np.minimum(starts[:, None] + position, len(codes) - 1)].astype(np.int64) | 0x20) - 96
    letters_at[position >= lengths[:, None]] = 0
    packed = (letters_at << (5 * position)).sum(axis=1)  # the letters' bits do not overlap: the sum is an "or"
    found = np.minimum(np.searchsorted(_PACKED_STOPWORDS, packed), len(_PACKED_STOPWORDS) - 1)
    stop = _PACKED_STOPWORDS[found] == packed
    return np.bincount(owner[starts[stop]], minlength=n).astype(float)


#: The property bits by name, for the compiled counts (one definition of them: this module's).
_BITS = {
    "WORD": WORD,
    "UPPER": UPPER,
    "DECIMAL": DECIMAL,
    "PUNCTUATION": PUNCTUATION,
    "DASH": DASH,
    "PERIOD": PERIOD,
    "SEPARATOR": SEPARATOR,
    "BLANK": BLANK,
    "SENTENCE_MARK": SENTENCE_MARK,
    "LETTER": LETTER,
    "CASE_EXCEPTION": CASE_EXCEPTION,
    "UNKNOWN": _UNKNOWN,
    "PACKED_LETTERS": _PACKED_LETTERS,
    "MAX_WORD_CHARS": MAX_WORD_CHARS,
}
_FIRST_LAST = ("first_properties", "last_properties")
# The compiled counts (``_counts.pyx``) and its table's column names, which come from the same build as the
# function, so they always describe its table; both ``None`` where the twin is not in use.
_COMPILED_COLUMNS, compiled_text_counts = load_twin(__name__, "COLUMNS", "text_counts")
