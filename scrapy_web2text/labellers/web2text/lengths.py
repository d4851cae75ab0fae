"""Lengths of block texts in words, counted by script: a rule that counts words counts them here.

Chinese and Japanese are written without spaces between words, and Thai, Lao, Khmer and Myanmar without spaces
inside a phrase: a whitespace count makes a paragraph of them one "word" (a Japanese article typed ``service`` lost
every paragraph as a two-word label, issue 51).  In those scripts, and in Korean (whose spaced units are
phrases), each character counts as a word; every other text counts its white-space separated words.
"""

from __future__ import annotations

import re

#: One character of a script counted a character a word: Thai, Lao, Myanmar, Hangul jamo, Khmer, CJK radicals,
#: kana, Bopomofo, Hangul compatibility jamo, CJK ideographs (extension A, unified, compatibility, the supplementary
#: planes), Yi, Hangul syllables, half-width katakana and Hangul.  CJK punctuation (U+3000-U+303F) is not a word.
UNSPACED_CHARACTER = re.compile(
    "[\u0e00-\u0eff\u1000-\u109f\u1100-\u11ff\u1780-\u17ff\u2e80-\u2fdf\u3040-\u312f\u3130-\u318f\u31a0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7af\uf900-\ufaff\uff66-\uffdc\U00020000-\U0003134f]"
)


def word_count(text: str) -> int:
    """``text``'s words: one a character of :data:`UNSPACED_CHARACTER`, else one per white-space separated run."""
    if UNSPACED_CHARACTER.search(text) is None:
        return len(text.split())
    rest = UNSPACED_CHARACTER.sub(" ", text).split()  # what the script's characters leave: punctuation is no word
    return len(UNSPACED_CHARACTER.findall(text)) + sum(1 for token in rest if any(map(str.isalnum, token)))
