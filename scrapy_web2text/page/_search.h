/* The walk's search for a block's first word in the page source (_cdom.pyx, ``_find``): str.find's answer.

   CPython's str.find is fast on one-byte strings but not on the two- and four-byte strings of pages with characters
   past U+00FF (most of the validation pages): there the walk's searches, which skip the markup between blocks and
   sometimes a 64 KiB window for a word the source spells with an entity, took most of the walk's time.  This search
   compares 16 bytes of code points at a time with the word's first and last code points and checks the word only
   where both match (W. Mula, "SIMD-friendly algorithms for substring searching"); without SSE2 it compares one code
   point at a time.  The word is first copied into the source's width: a word wider than the source cannot occur in
   it. */
#ifndef WEB2TEXT_SEARCH_H
#define WEB2TEXT_SEARCH_H

#include <Python.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__) && defined(__GNUC__)
#define WEB2TEXT_SSE2 1
#include <emmintrin.h>
#endif

/* Longest word searched here; longer ones go to PyUnicode_Find (the walk's words have at most 24 code points). */
#define WEB2TEXT_SEARCH_MAX_WORD 64

#define WEB2TEXT_DEFINE_SEARCH(NAME, TYPE, SET1, CMPEQ)                                                              \
    static inline Py_ssize_t NAME(const TYPE *text, Py_ssize_t start, Py_ssize_t end, const TYPE *word, Py_ssize_t m) { \
        Py_ssize_t last_start = end - m, i = start;                                                                  \
        const TYPE first = word[0], final = word[m - 1];                                                             \
        WEB2TEXT_SIMD_LOOP(TYPE, SET1, CMPEQ)                                                                        \
        for (; i <= last_start; i++) {                                                                               \
            if (text[i] == first && text[i + m - 1] == final && memcmp(text + i, word, m * sizeof(TYPE)) == 0)      \
                return i;                                                                                            \
        }                                                                                                            \
        return -1;                                                                                                   \
    }

#if defined(WEB2TEXT_SSE2)
/* 16 bytes of candidate starts at a time: a start is a candidate where its code point is the word's first and the
   code point m - 1 further is the word's last; each candidate is then compared whole, in order. */
#define WEB2TEXT_SIMD_LOOP(TYPE, SET1, CMPEQ)                                                                        \
    {                                                                                                                \
        const Py_ssize_t lanes = 16 / (Py_ssize_t)sizeof(TYPE);                                                      \
        const __m128i firsts = SET1(first), finals = SET1(final);                                                    \
        for (; i + lanes - 1 <= last_start; i += lanes) {                                                            \
            __m128i starts = _mm_loadu_si128((const __m128i *)(text + i));                                           \
            __m128i ends = _mm_loadu_si128((const __m128i *)(text + i + m - 1));                                     \
            unsigned int mask = (unsigned int)_mm_movemask_epi8(                                                     \
                _mm_and_si128(CMPEQ(starts, firsts), CMPEQ(ends, finals)));                                          \
            while (mask) {                                                                                           \
                int byte = __builtin_ctz(mask);                                                                      \
                Py_ssize_t candidate = i + byte / (Py_ssize_t)sizeof(TYPE);                                          \
                if (memcmp(text + candidate, word, m * sizeof(TYPE)) == 0)                                           \
                    return candidate;                                                                                \
                mask &= ~(((1u << sizeof(TYPE)) - 1u) << (byte - byte % (int)sizeof(TYPE)));                         \
            }                                                                                                        \
        }                                                                                                            \
    }
#define WEB2TEXT_SET1_8(x) _mm_set1_epi8((char)(x))
#define WEB2TEXT_SET1_16(x) _mm_set1_epi16((short)(x))
#define WEB2TEXT_SET1_32(x) _mm_set1_epi32((int)(x))
#else
#define WEB2TEXT_SIMD_LOOP(TYPE, SET1, CMPEQ)
#endif

WEB2TEXT_DEFINE_SEARCH(web2text_search_1, uint8_t, WEB2TEXT_SET1_8, _mm_cmpeq_epi8)
WEB2TEXT_DEFINE_SEARCH(web2text_search_2, uint16_t, WEB2TEXT_SET1_16, _mm_cmpeq_epi16)
WEB2TEXT_DEFINE_SEARCH(web2text_search_4, uint32_t, WEB2TEXT_SET1_32, _mm_cmpeq_epi32)

/* source.find(word, start, end) for start >= 0 (anything else goes to PyUnicode_Find); -2 with an exception set. */
static inline Py_ssize_t web2text_find(PyObject *source, PyObject *word, Py_ssize_t start, Py_ssize_t end) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(source), m = PyUnicode_GET_LENGTH(word), k;
    int kind = PyUnicode_KIND(source), word_kind = PyUnicode_KIND(word);
    if (m == 0 || m > WEB2TEXT_SEARCH_MAX_WORD || start < 0 || end < 0)
        return PyUnicode_Find(source, word, start, end, 1);
    if (end > n)
        end = n;
    if (end - start < m)
        return -1;
    if (word_kind > kind)
        return -1; /* the word holds a code point the source's width cannot hold */
    const void *data = PyUnicode_DATA(source), *word_data = PyUnicode_DATA(word);
    switch (kind) {
    case PyUnicode_1BYTE_KIND:
        return web2text_search_1((const uint8_t *)data, start, end, (const uint8_t *)word_data, m);
    case PyUnicode_2BYTE_KIND: {
        uint16_t wide[WEB2TEXT_SEARCH_MAX_WORD];
        for (k = 0; k < m; k++)
            wide[k] = (uint16_t)PyUnicode_READ(word_kind, word_data, k);
        return web2text_search_2((const uint16_t *)data, start, end, wide, m);
    }
    default: {
        uint32_t wide[WEB2TEXT_SEARCH_MAX_WORD];
        for (k = 0; k < m; k++)
            wide[k] = (uint32_t)PyUnicode_READ(word_kind, word_data, k);
        return web2text_search_4((const uint32_t *)data, start, end, wide, m);
    }
    }
}

/* The first i in [start, n) with text[i] == wanted, else -1: memchr's job for strings of two- and four-byte code
   points, 16 bytes at a time (the crowded-tag scan looks for each "<" of the page this way, and for the end of each
   quoted attribute value). */
#define WEB2TEXT_DEFINE_FIND_UNIT(NAME, TYPE, SET1, CMPEQ)                                                           \
    static inline Py_ssize_t NAME(const TYPE *text, Py_ssize_t start, Py_ssize_t n, TYPE wanted) {                   \
        Py_ssize_t i = start;                                                                                        \
        WEB2TEXT_FIND_UNIT_SIMD_LOOP(TYPE, SET1, CMPEQ)                                                              \
        for (; i < n; i++) {                                                                                         \
            if (text[i] == wanted)                                                                                   \
                return i;                                                                                            \
        }                                                                                                            \
        return -1;                                                                                                   \
    }

#if defined(WEB2TEXT_SSE2)
#define WEB2TEXT_FIND_UNIT_SIMD_LOOP(TYPE, SET1, CMPEQ)                                                              \
    {                                                                                                                \
        const Py_ssize_t lanes = 16 / (Py_ssize_t)sizeof(TYPE);                                                      \
        const __m128i wanted_lanes = SET1(wanted);                                                                   \
        for (; i + lanes <= n; i += lanes) {                                                                         \
            unsigned int mask = (unsigned int)_mm_movemask_epi8(                                                     \
                CMPEQ(_mm_loadu_si128((const __m128i *)(text + i)), wanted_lanes));                                  \
            if (mask)                                                                                                \
                return i + __builtin_ctz(mask) / (Py_ssize_t)sizeof(TYPE);                                           \
        }                                                                                                            \
    }
#else
#define WEB2TEXT_FIND_UNIT_SIMD_LOOP(TYPE, SET1, CMPEQ)
#endif

WEB2TEXT_DEFINE_FIND_UNIT(web2text_find_unit_2, uint16_t, WEB2TEXT_SET1_16, _mm_cmpeq_epi16)
WEB2TEXT_DEFINE_FIND_UNIT(web2text_find_unit_4, uint32_t, WEB2TEXT_SET1_32, _mm_cmpeq_epi32)

#endif
