# cython: language_level=3, boundscheck=False, wraparound=False
"""The per-block text counts of :func:`.counts.block_counts`, compiled: one loop over each block's code points.

:func:`.counts.block_counts` is the reference and says what each count means; it computes them with about thirty
whole-page numpy operations (the largest part of the features' time: each is cheap, their fixed costs are not).
This loop reads the same table of character properties (``counts._PROPERTIES``, filled through the same
``counts._describe`` for a code point seen for the first time) and counts per block what those operations count;
``tests/page/test_speedups.py`` holds both to equal results.  The URL, year and copyright tests are
compiled too (:func:`_patterns`, one look at each character that can start a match); the e-mail addresses and the
stop words of other languages stay in Python: they run on few blocks.
"""

from libc.stdint cimport int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memset

import numpy as np

from cpython.unicode cimport PyUnicode_DATA, PyUnicode_KIND

#: The columns of the table :func:`text_counts` returns, in order.
COLUMNS = (
    "punctuation",
    "dashes",
    "periods",
    "separators",
    "digits",
    "words",
    "word_length",
    "capital_words",
    "stopwords",
    "sentences",
    "spaces",
    "at_signs",
    "url",
    "year",
    "copyright",
    "first_properties",
    "last_properties",
    "length",
)
cdef enum:
    _PUNCTUATION, _DASHES, _PERIODS, _SEPARATORS, _DIGITS, _WORDS, _WORD_LENGTH, _CAPITAL_WORDS, _STOPWORDS, \
        _SENTENCES, _SPACES, _AT_SIGNS, _URL, _YEAR, _COPYRIGHT, _FIRST, _LAST, _LENGTH, _COLUMNS

ctypedef fused _code_unit:
    uint8_t
    uint16_t
    uint32_t


cdef struct _Bits:
    # The property bits of counts.py, passed in so that there is one definition of them.
    uint16_t word, upper, decimal, punctuation, dash, period, separator, blank, sentence_mark, letter, case_exception
    uint16_t unknown


cdef enum:
    # Slots of the stop words' hash table (a power of two): at most half of them filled, so that a probe for a word
    # that is none ends after one or two slots.
    _STOPWORD_SLOTS = 512
    _STOPWORD_SHIFT = 64 - 9


cdef struct _Stopwords:
    # The packed words by their hash, 0 in an empty slot (a packed word is never 0).  A binary search of the sorted
    # words mispredicted a branch at most of its seven steps: the table is faster (docs/research/speed-rounds.rst).
    int64_t slots[_STOPWORD_SLOTS]
    int longest
    Py_ssize_t longest_word  # counts.MAX_WORD_CHARS: a word's characters counted in its length


def text_counts(list texts, uint16_t[::1] properties not None, describe, const int64_t[::1] packed not None,
                bits, bint edges_only=False):
    """Per block (rows) the ``COLUMNS``, and whether some character has the ``CASE_EXCEPTION`` bit.

    ``properties`` is the code point → property bits table (filled here through ``describe`` where it holds the
    ``unknown`` bit), ``packed`` the packed English stop words (at most 256), ``bits`` the property bits by name.
    ``edges_only`` fills only what the edge features read: ``spaces`` and the first and last characters' bits.
    """
    cdef _Bits b
    b.word, b.upper, b.decimal = bits["WORD"], bits["UPPER"], bits["DECIMAL"]
    b.punctuation, b.dash, b.period = bits["PUNCTUATION"], bits["DASH"], bits["PERIOD"]
    b.separator, b.blank, b.sentence_mark = bits["SEPARATOR"], bits["BLANK"], bits["SENTENCE_MARK"]
    b.letter, b.case_exception, b.unknown = bits["LETTER"], bits["CASE_EXCEPTION"], bits["UNKNOWN"]
    cdef _Stopwords stopwords
    if packed.shape[0] > _STOPWORD_SLOTS // 2:
        raise ValueError(f"at most {_STOPWORD_SLOTS // 2} stop words, not {packed.shape[0]}")
    memset(stopwords.slots, 0, sizeof(stopwords.slots))
    cdef Py_ssize_t word
    cdef uint64_t slot
    for word in range(packed.shape[0]):
        slot = _stopword_slot(packed[word])
        while stopwords.slots[slot] != 0:
            slot = (slot + 1) & (_STOPWORD_SLOTS - 1)
        stopwords.slots[slot] = packed[word]
    stopwords.longest = bits["PACKED_LETTERS"]
    stopwords.longest_word = bits["MAX_WORD_CHARS"]
    out = np.zeros((len(texts), _COLUMNS), np.int64)
    cdef int64_t[:, ::1] rows = out
    cdef bint case_exception = False
    cdef Py_ssize_t index
    cdef bint unseen
    cdef int kind
    cdef void* data
    for index, text in enumerate(texts):
        kind = PyUnicode_KIND(text)
        data = PyUnicode_DATA(text)
        rows[index, _LENGTH] = len(text)
        # A typed pass finds whether the text has a code point the table has not described yet (rarely, once the
        # common ones are in); only then does the slower pass over its characters as Python strings run.
        if kind == 1:
            unseen = _unseen(<uint8_t*>data, len(text), &properties[0], b.unknown)
        elif kind == 2:
            unseen = _unseen(<uint16_t*>data, len(text), &properties[0], b.unknown)
        else:
            unseen = _unseen(<uint32_t*>data, len(text), &properties[0], b.unknown)
        if unseen:
            _fill_unknown(<str>text, properties, describe, b.unknown)
        if edges_only:
            if kind == 1:
                _edge_counts(<uint8_t*>data, len(text), &properties[0], &rows[index, 0])
            elif kind == 2:
                _edge_counts(<uint16_t*>data, len(text), &properties[0], &rows[index, 0])
            else:
                _edge_counts(<uint32_t*>data, len(text), &properties[0], &rows[index, 0])
        elif kind == 1:
            case_exception |= _count(<uint8_t*>data, len(text), &properties[0], &b, &stopwords, &rows[index, 0])
            _patterns(<uint8_t*>data, len(text), &properties[0], &b, &rows[index, 0])
        elif kind == 2:
            case_exception |= _count(<uint16_t*>data, len(text), &properties[0], &b, &stopwords, &rows[index, 0])
            _patterns(<uint16_t*>data, len(text), &properties[0], &b, &rows[index, 0])
        else:
            case_exception |= _count(<uint32_t*>data, len(text), &properties[0], &b, &stopwords, &rows[index, 0])
            _patterns(<uint32_t*>data, len(text), &properties[0], &b, &rows[index, 0])
    return out, case_exception


cdef bint _unseen(const _code_unit* text, Py_ssize_t n, const uint16_t* properties, uint16_t unknown) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        if properties[text[i]] == unknown:
            return True
    return False


cdef void _fill_unknown(str text, uint16_t[::1] properties, describe, uint16_t unknown):
    """Describe the code points of ``text`` that the table has not seen yet (as counts.character_properties)."""
    cdef Py_UCS4 character
    for character in text:
        if properties[character] == unknown:
            properties[character] = describe(<long>character)


cdef bint _count(const _code_unit* text, Py_ssize_t n, const uint16_t* properties, const _Bits* b,
                 const _Stopwords* stopwords, int64_t* row) noexcept nogil:
    cdef Py_ssize_t i, start = 0
    cdef uint16_t p, following
    cdef bint case_exception = False, candidate = False, in_word = False
    cdef int64_t packed = 0
    cdef uint32_t c
    # Counted in locals, written to the row once: Python's extensions build with -fno-strict-aliasing, so each
    # store through ``row`` would make the compiler read the text, the table and the bits again.
    cdef int64_t counts[_COLUMNS]
    cdef _Bits bits = b[0]
    cdef int longest = stopwords.longest
    # The counts every character adds to, in locals the compiler can keep in registers.
    cdef int64_t punctuation = 0, dashes = 0, periods = 0, separators = 0, digits = 0, spaces = 0, at_signs = 0
    cdef uint16_t seen = 0
    memset(counts, 0, sizeof(counts))
    following = properties[text[0]] if n else 0
    for i in range(n):
        # Each character's bits are looked up once: as the one following, then as the current one.
        c = text[i]
        p = following
        following = properties[text[i + 1]] if i + 1 < n else 0
        seen |= p
        punctuation += (p & bits.punctuation) != 0
        dashes += (p & bits.dash) != 0
        periods += (p & bits.period) != 0
        separators += (p & bits.separator) != 0
        digits += (p & bits.decimal) != 0
        spaces += c == 32
        at_signs += c == 64
        if p & bits.word:
            # Words are runs of word characters (blocks are joined by "\n", which is none).
            if not in_word:
                counts[_WORDS] += 1
                counts[_CAPITAL_WORDS] += (p & bits.upper) != 0
                start, candidate, packed, in_word = i, True, 0, True
            counts[_WORD_LENGTH] += i - start < stopwords.longest_word
            # A stop-word candidate is ASCII letters only, at most PACKED_LETTERS of them, packed 5 bits a letter.
            if candidate:
                if (p & bits.letter) and i - start < longest:
                    packed |= <int64_t>((c | 0x20) - 96) << (5 * (i - start))
                else:
                    candidate = False
            if not (following & bits.word):
                in_word = False
                if candidate and _is_stopword(packed, stopwords):
                    counts[_STOPWORDS] += 1
        # A run of sentence marks counts when a blank or the end of the block follows it.
        if (p & bits.sentence_mark) and not (following & bits.sentence_mark):
            if i + 1 >= n or (following & bits.blank):
                counts[_SENTENCES] += 1
    counts[_PUNCTUATION], counts[_DASHES], counts[_PERIODS], counts[_SEPARATORS] = punctuation, dashes, periods, separators
    counts[_DIGITS], counts[_SPACES], counts[_AT_SIGNS] = digits, spaces, at_signs
    case_exception = (seen & bits.case_exception) != 0
    for i in range(_COLUMNS):
        row[i] += counts[i]
    if n:
        row[_FIRST] = properties[text[0]]
        row[_LAST] = properties[text[n - 1]]
    return case_exception


#: The ASCII pairs a match of _patterns starts with: "ht" (http), "ww" (www.), "19" and "20" (years), "(c", and
#: "co" and "al" in either case (copyright, all rights reserved).
cdef unsigned char _PATTERN_PAIRS[128][128]
memset(_PATTERN_PAIRS, 0, sizeof(_PATTERN_PAIRS))
for _pair in ("ht", "ww", "19", "20", "(c", "(C", "co", "cO", "Co", "CO", "al", "aL", "Al", "AL"):
    _PATTERN_PAIRS[ord(_pair[0])][ord(_pair[1])] = 1


cdef void _patterns(const _code_unit* text, Py_ssize_t n, const uint16_t* properties, const _Bits* b,
                    int64_t* row) noexcept nogil:
    """1 in the ``url``, ``year`` and ``copyright`` columns where the block holds a match of ``counts._URL``,
    ``counts._YEAR`` and ``counts._COPYRIGHT`` (the last read only on pages without a ``CASE_EXCEPTION``
    character, where the case-insensitive pattern matches ASCII letters of either case and nothing else)."""
    cdef Py_ssize_t i
    cdef uint32_t c, following
    for i in range(n):
        c = text[i]
        # Every match starts with "©" or one of the ASCII pairs in _PATTERN_PAIRS: most characters end here, on a
        # branch that is rarely taken (a test of the first character alone was taken at every "a", "c" and "h").
        if c != 0xA9:
            if c >= 128 or i + 1 >= n:
                continue
            following = text[i + 1]
            if following >= 128 or not _PATTERN_PAIRS[c][following]:
                continue
        if c == 104:  # "h"
            if _at(text, n, i, b"http://", 7, False) or _at(text, n, i, b"https://", 8, False):
                row[_URL] = 1
        elif c == 119:  # "w": "www." and a word character
            if i + 4 < n and _at(text, n, i, b"www.", 4, False) and properties[text[i + 4]] & b.word:
                row[_URL] = 1
        elif c == 49 or c == 50:  # r"\b(?:19|20)\d\d\b"
            if _is_year(text, n, i, properties, b):
                row[_YEAR] = 1
        elif c == 0xA9:  # "©"
            row[_COPYRIGHT] = 1
        elif c == 40:  # "("
            if _at(text, n, i, b"(c)", 3, True):
                row[_COPYRIGHT] = 1
        elif c == 99 or c == 67:
            if _at(text, n, i, b"copyright", 9, True):
                row[_COPYRIGHT] = 1
        elif c == 97 or c == 65:
            if _at(text, n, i, b"all rights reserved", 19, True):
                row[_COPYRIGHT] = 1


cdef inline bint _at(const _code_unit* text, Py_ssize_t n, Py_ssize_t i, const char* literal, Py_ssize_t length,
                     bint any_case) noexcept nogil:
    """Whether ``text[i:]`` starts with the ASCII ``literal`` (lower case); ``any_case``: its letters in either
    case, as ``re.I`` matches them when no ``CASE_EXCEPTION`` character is around."""
    cdef Py_ssize_t k
    cdef uint32_t c, wanted
    if i + length > n:
        return False
    for k in range(length):
        c, wanted = text[i + k], <uint32_t>literal[k]
        if any_case and 97 <= wanted <= 122 and c < 128:
            c |= 0x20  # only an ASCII letter folds onto a lower-case ASCII letter
        if c != wanted:
            return False
    return True


cdef inline bint _is_year(const _code_unit* text, Py_ssize_t n, Py_ssize_t i, const uint16_t* properties,
                          const _Bits* b) noexcept nogil:
    """Whether r"\b(?:19|20)\d\d\b" matches at ``i``: "19" or "20", two decimals, no word character around."""
    if i + 4 > n or text[i + 1] != (57 if text[i] == 49 else 48):
        return False
    if not (properties[text[i + 2]] & b.decimal and properties[text[i + 3]] & b.decimal):
        return False
    if i > 0 and properties[text[i - 1]] & b.word:
        return False
    return i + 4 == n or not (properties[text[i + 4]] & b.word)


cdef void _edge_counts(const _code_unit* text, Py_ssize_t n, const uint16_t* properties, int64_t* row) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        row[_SPACES] += text[i] == 32
    if n:
        row[_FIRST] = properties[text[0]]
        row[_LAST] = properties[text[n - 1]]


cdef inline uint64_t _stopword_slot(int64_t packed) noexcept nogil:
    """The first slot a packed word is looked for in (Fibonacci hashing: the top bits of a multiplication)."""
    return (<uint64_t>packed * 0x9E3779B97F4A7C15ULL) >> _STOPWORD_SHIFT


cdef inline bint _is_stopword(int64_t packed, const _Stopwords* stopwords) noexcept nogil:
    cdef uint64_t slot = _stopword_slot(packed)
    while stopwords.slots[slot] != 0:
        if stopwords.slots[slot] == packed:
            return True
        slot = (slot + 1) & (_STOPWORD_SLOTS - 1)
    return False
