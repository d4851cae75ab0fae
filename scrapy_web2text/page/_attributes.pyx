# cython: language_level=3
"""The search of :data:`.attributes._CROWDED_TAG`, compiled: the same tokenizer as a scan over the code points.

The pattern is atomic and possessive throughout, so at each start it is a deterministic tokenizer; this module is
that tokenizer, token for token, tried at the same starts.  ``tests/test_speedups.py`` holds it to the regular
expression's answers (generated tag soup, every width of string, the cap).
"""

from cpython.unicode cimport PyUnicode_DATA, PyUnicode_KIND
from libc.stdint cimport uint8_t, uint16_t, uint32_t


cdef inline bint _tag_name_character(Py_UCS4 c) noexcept nogil:
    """``[^\\t\\n\\f\\r />"'=<]``"""
    return not (c == 9 or c == 10 or c == 12 or c == 13 or c == 32 or c == 47 or c == 62 or c == 34 or c == 39
                or c == 61 or c == 60)


cdef inline bint _blank_character(Py_UCS4 c) noexcept nogil:
    """``[\\t\\n\\f\\r ]``"""
    return c == 9 or c == 10 or c == 12 or c == 13 or c == 32


cdef inline bint _unquoted_value_character(Py_UCS4 c) noexcept nogil:
    """``[^\\t\\n\\f\\r >"'<]``"""
    return not (_blank_character(c) or c == 62 or c == 34 or c == 39 or c == 60)


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
    for start in range(n - 1):
        if text[start] != 60:
            continue
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
