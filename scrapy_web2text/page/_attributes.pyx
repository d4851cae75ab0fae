# cython: language_level=3
"""The search of :data:`.attributes._CROWDED_TAG`, compiled: the same tokenizer as a scan over the code points.

The pattern is atomic and possessive throughout, so at each start it is a deterministic tokenizer; this module is
that tokenizer, token for token, tried at the same starts.  ``tests/page/test_speedups.py`` holds it to the regular
expression's answers (generated tag soup, every width of string, the cap).
"""

from cpython.unicode cimport PyUnicode_DATA, PyUnicode_KIND
from libc.stdint cimport uint8_t, uint16_t, uint32_t
from libc.string cimport memchr


cdef extern from "_search.h":
    Py_ssize_t web2text_find_unit_2(const uint16_t* text, Py_ssize_t start, Py_ssize_t n, uint16_t wanted) noexcept nogil
    Py_ssize_t web2text_find_unit_4(const uint32_t* text, Py_ssize_t start, Py_ssize_t n, uint32_t wanted) noexcept nogil


# Character classes of the ASCII characters the tokenizer tells apart (every other code point is a name and value
# character): one table look-up instead of up to eleven comparisons a character.
cdef enum:
    _ENDS_NAME = 1  # [\t\n\f\r />"'=<]
    _BLANK = 2  # [\t\n\f\r ]
    _ENDS_VALUE = 4  # [\t\n\f\r >"'<]

cdef unsigned char _CLASSES[128]
_CLASSES[:] = [0] * 128
for _c in (9, 10, 12, 13, 32, 47, 62, 34, 39, 61, 60):  # \t \n \f \r space / > " ' = <
    _CLASSES[_c] |= _ENDS_NAME
for _c in (9, 10, 12, 13, 32):
    _CLASSES[_c] |= _BLANK
for _c in (9, 10, 12, 13, 32, 62, 34, 39, 60):  # and > " ' <
    _CLASSES[_c] |= _ENDS_VALUE


cdef inline bint _tag_name_character(Py_UCS4 c) noexcept nogil:
    """``[^\\t\\n\\f\\r />"'=<]``"""
    return c >= 128 or not (_CLASSES[c] & _ENDS_NAME)


cdef inline bint _blank_character(Py_UCS4 c) noexcept nogil:
    """``[\\t\\n\\f\\r ]``"""
    return c < 128 and (_CLASSES[c] & _BLANK)


cdef inline bint _unquoted_value_character(Py_UCS4 c) noexcept nogil:
    """``[^\\t\\n\\f\\r >"'<]``"""
    return c >= 128 or not (_CLASSES[c] & _ENDS_VALUE)


# A str's code points are stored in 1, 2 or 4 bytes each (PEP 393): one loop for each width.
ctypedef fused _code_unit:
    uint8_t
    uint16_t
    uint32_t


cdef inline Py_ssize_t _after_blanks(_code_unit* text, Py_ssize_t i, Py_ssize_t n) noexcept nogil:
    """The first position from ``i`` on that is not ``[\\t\\n\\f\\r ]``."""
    while i < n and _blank_character(text[i]):
        i += 1
    return i


cdef Py_ssize_t _find_unit(_code_unit* text, Py_ssize_t start, Py_ssize_t n, Py_UCS4 wanted) noexcept nogil:
    """``html.find(wanted, start, n)``: memchr's word-at-a-time search where a code point is a byte, 16 bytes at a
    time (``_search.h``) where it is two or four."""
    cdef const void* found
    cdef Py_ssize_t i = start
    if start >= n:
        return -1
    if _code_unit is uint8_t:
        found = memchr(<const void*>(text + start), <int>wanted, n - start)
        i = -1 if found is NULL else <const uint8_t*>found - <const uint8_t*>text
    elif _code_unit is uint16_t:
        i = web2text_find_unit_2(text, start, n, <uint16_t>wanted)
    else:
        i = web2text_find_unit_4(text, start, n, <uint32_t>wanted)
    return i


def crowded_tag(str html, Py_ssize_t tokens):
    """Whether ``attributes._CROWDED_TAG`` (with ``tokens`` repetitions) matches somewhere in ``html``.

    The pattern is atomic and possessive throughout, so at each start it is a deterministic tokenizer: this is that
    tokenizer, token for token, tried at the same starts (a "<" and an ASCII letter).
    """
    cdef int kind = PyUnicode_KIND(html)
    cdef void* data = PyUnicode_DATA(html)
    cdef Py_ssize_t n = len(html)
    if kind == 1:
        return _crowded_tag(<uint8_t*>data, n, tokens)
    if kind == 2:
        return _crowded_tag(<uint16_t*>data, n, tokens)
    return _crowded_tag(<uint32_t*>data, n, tokens)


cdef bint _crowded_tag(_code_unit* text, Py_ssize_t n, Py_ssize_t tokens) noexcept nogil:
    cdef Py_ssize_t start, j, k, count
    cdef Py_UCS4 c, quote
    start = -1
    while True:
        # The next "<" that a character follows.
        start = _find_unit(text, start + 1, n - 1, 60)
        if start < 0:
            break
        c = text[start + 1]
        if not (65 <= c <= 90 or 97 <= c <= 122):
            continue
        j = start + 2
        while j < n and _tag_name_character(text[j]):
            j += 1
        count = 0
        while count < tokens:
            while j < n and (_blank_character(text[j]) or text[j] == 47):
                j += 1
            if j >= n:
                break
            c = text[j]
            if _tag_name_character(c):
                # An attribute name, then optionally blanks, "=", blanks and a value.
                while j < n and _tag_name_character(text[j]):
                    j += 1
                k = j
                k = _after_blanks(text, k, n)
                if k < n and text[k] == 61:
                    k += 1
                    k = _after_blanks(text, k, n)
                    j = k
                    quote = text[k] if k < n else 0
                    if quote == 34 or quote == 39:
                        k = _find_unit(text, k + 1, n, quote)
                        if k >= 0:
                            j = k + 1  # a quoted value; unclosed, it is an empty unquoted one
                    else:
                        while j < n and _unquoted_value_character(text[j]):
                            j += 1
            elif c == 61 or c == 34 or c == 39 or c == 60:
                j += 1
                while j < n and _tag_name_character(text[j]):
                    j += 1
            else:
                break
            count += 1
        if count >= tokens:
            return True
    return False


cdef enum:
    _LONGEST_RAW_TEXT_TAG = 8  # "noframes", "textarea"


def excess_attribute_cuts(str html, Py_ssize_t cap, frozenset raw_text_tags, dict raw_text_ends):
    """:func:`.attributes.excess_attribute_cuts`, the same tokenizer over the code points: for each start tag with
    more than ``cap`` attributes, where its first ``cap`` attributes end and where the tag ends, one list.

    The end of a raw-text element (``raw_text_ends``: its name to the pattern of its end tag, case-insensitive as
    the reference's) is searched with the reference's own pattern; everything else is read here.  A tag name is
    looked up in ``raw_text_tags`` only when it is made of 3 to 8 ASCII letters: the only code point whose
    lower case is ASCII is the Kelvin sign ("k"), in no raw-text tag name (``tests/page/test_speedups.py``).
    """
    cdef int kind = PyUnicode_KIND(html)
    cdef void* data = PyUnicode_DATA(html)
    cdef list cuts = []
    if kind == 1:
        _cuts(<uint8_t*>data, html, cap, raw_text_tags, raw_text_ends, cuts)
    elif kind == 2:
        _cuts(<uint16_t*>data, html, cap, raw_text_tags, raw_text_ends, cuts)
    else:
        _cuts(<uint32_t*>data, html, cap, raw_text_tags, raw_text_ends, cuts)
    return cuts


cdef inline bint _step_blank(Py_UCS4 c) noexcept nogil:
    """``[\\t\\n\\f\\r /]``: what a step skips before an attribute or the tag's end."""
    return c < 128 and ((_CLASSES[c] & _BLANK) or c == 47)


cdef inline bint _attribute_name_character(Py_UCS4 c) noexcept nogil:
    """``[^\\t\\n\\f\\r />=]``"""
    return not (c < 128 and ((_CLASSES[c] & _BLANK) or c == 47 or c == 62 or c == 61))


cdef inline bint _step_value_character(Py_UCS4 c) noexcept nogil:
    """``[^\\t\\n\\f\\r >]``"""
    return not (c < 128 and ((_CLASSES[c] & _BLANK) or c == 62))


cdef inline bint _tag_name_end_character(Py_UCS4 c) noexcept nogil:
    """``[^\\t\\n\\f\\r />]``: a character of a tag's name after its first letter."""
    return not (c < 128 and ((_CLASSES[c] & _BLANK) or c == 47 or c == 62))


cdef inline bint _ascii_letter(Py_UCS4 c) noexcept nogil:
    return 65 <= c <= 90 or 97 <= c <= 122


cdef Py_ssize_t _declaration_end(_code_unit* text, Py_ssize_t start, Py_ssize_t n) noexcept nogil:
    """``flatten._markup_declaration_end``: after a comment (``-->`` or ``--!>``; ``<!-->`` and ``<!--->`` are
    empty), else after the next ">" (a doctype, CDATA section or processing instruction); the end of the text when
    it never ends."""
    cdef Py_ssize_t i
    if start + 3 < n and text[start + 1] == 33 and text[start + 2] == 45 and text[start + 3] == 45:  # "<!--"
        if start + 4 < n and text[start + 4] == 62:
            return start + 5
        if start + 5 < n and text[start + 4] == 45 and text[start + 5] == 62:
            return start + 6
        i = start + 4
        while True:
            i = _find_unit(text, i, n, 45)
            if i < 0 or i + 2 >= n:
                return n
            if text[i + 1] == 45:
                if text[i + 2] == 62:
                    return i + 3
                if text[i + 2] == 33 and i + 3 < n and text[i + 3] == 62:
                    return i + 4
            i += 1
    i = _find_unit(text, start + 2, n, 62)
    return i + 1 if i >= 0 else n


cdef int _cuts(
    _code_unit* text, str html, Py_ssize_t cap, frozenset raw_text_tags, dict raw_text_ends, list cuts
) except -1:
    cdef Py_ssize_t n = len(html), position = 0, start, name_start, name_end, cursor, attributes, cut, i, close
    cdef Py_UCS4 c, quote
    cdef bint end_tag, value_end, raw_candidate
    cdef char lowered[_LONGEST_RAW_TEXT_TAG + 1]
    while True:
        start = _find_unit(text, position, n, 60)
        if start < 0 or start + 1 >= n:
            break
        c = text[start + 1]
        if c == 33 or c == 63:  # "<!", "<?"
            position = _declaration_end(text, start, n)
            continue
        end_tag = c == 47
        name_start = start + 2 if end_tag else start + 1
        if name_start >= n or not _ascii_letter(text[name_start]):
            position = start + 1
            continue
        # The name: [A-Za-z][^\t\n\f\r />]*
        name_end = name_start + 1
        while name_end < n and _tag_name_end_character(text[name_end]):
            name_end += 1
        cursor, attributes, cut = name_end, 0, -1
        while cursor < n:
            # One step: [\t\n\f\r /]*, then ">" or an attribute.
            i = cursor
            while i < n and _step_blank(text[i]):
                i += 1
            if i < n and text[i] == 62:
                cursor = i + 1
                break
            attributes += 1
            if attributes == cap + 1:
                cut = cursor
            quote, value_end = 0, False
            if i < n and text[i] == 61:
                i += 1
            while i < n and _attribute_name_character(text[i]):
                i += 1
            i = _after_blanks(text, i, n)
            if i < n and text[i] == 61:
                i += 1
                i = _after_blanks(text, i, n)
                if i < n and (text[i] == 34 or text[i] == 39):
                    quote = text[i]
                    i += 1
                elif i < n and text[i] == 62:
                    value_end = True
                    i += 1
                else:
                    while i < n and _step_value_character(text[i]):
                        i += 1
            cursor = i
            if value_end:
                break
            if quote:
                close = _find_unit(text, cursor, n, quote)
                cursor = close + 1 if close >= 0 else n
        if cut >= 0:
            cuts.append((cut, cursor))
        position = cursor
        if end_tag or not 3 <= name_end - name_start <= _LONGEST_RAW_TEXT_TAG:
            continue
        raw_candidate = True
        for i in range(name_end - name_start):
            c = text[name_start + i]
            if not _ascii_letter(c):
                raw_candidate = False
                break
            lowered[i] = <char>(<int>c + 32 if c <= 90 else <int>c)
        if not raw_candidate:
            continue
        name = (<bytes>lowered[: name_end - name_start]).decode("ascii")
        if name in raw_text_tags:
            found = raw_text_ends[name].search(html, position)
            position = found.start() if found is not None else n
    return 0
