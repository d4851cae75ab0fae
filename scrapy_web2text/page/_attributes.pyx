# cython: language_level=3
"""The search of :data:`.attributes._CROWDED_TAG`, compiled: the same tokenizer as a scan over the code points.

The pattern is atomic and possessive throughout, so at each start it is a deterministic tokenizer; this module is
that tokenizer, token for token, tried at the same starts.  ``tests/test_speedups.py`` holds it to the regular
expression's answers (generated tag soup, every width of string, the cap).
"""

from cpython.unicode cimport PyUnicode_DATA, PyUnicode_KIND
from libc.stdint cimport uint8_t, uint16_t, uint32_t
from libc.string cimport memchr


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
    cdef const void* found
    start = -1
    while True:
        # The next "<": memchr's word-at-a-time search where a code point is a byte.
        if _code_unit is uint8_t:
            found = memchr(<const void*>(text + start + 1), 60, n - 1 - (start + 1)) if start + 1 < n - 1 else NULL
            if found is NULL:
                break
            start = <const uint8_t*>found - <const uint8_t*>text
        else:
            start += 1
            while start < n - 1 and text[start] != 60:
                start += 1
            if start >= n - 1:
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
                while k < n and _blank_character(text[k]):
                    k += 1
                if k < n and text[k] == 61:
                    k += 1
                    while k < n and _blank_character(text[k]):
                        k += 1
                    j = k
                    quote = text[k] if k < n else 0
                    if quote == 34 or quote == 39:
                        k += 1
                        while k < n and text[k] != quote:
                            k += 1
                        if k < n:
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
