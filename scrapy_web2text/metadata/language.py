"""The page's language: what it declares (``<html lang>``, ``og:locale``, ``inLanguage``, Content-Language),
checked against its main text.

A declaration is kept (with its region: ``pt-BR``) when the main text agrees with it, which a cheap test settles
for most pages: the share of the declared language's stop-words among the sample's words (the test the features
use for English).  Otherwise the identifier (py3langid, already loaded for the features) names the text's
language from a bounded sample, and that wins over a declaration it contradicts: templates copied between sites
keep ``lang="en"`` on pages in any language.
"""

from __future__ import annotations

import re

from ..labellers.web2text.languages import ENGLISH_STOPWORD_SHARE, identify, stopwords_for

#: Characters of the main text looked at.
SAMPLE_CHARS = 1000
#: Below this many characters the text says too little to contradict a declaration, or to name a language alone.
MIN_TEXT_CHARS = 200
_TAG = re.compile(r"^([A-Za-z]{2,3})(?:[-_]([A-Za-z]{4}))?(?:[-_]([A-Za-z]{2}|\d{3}))?$")
_WORDS = re.compile(r"\w+")


def normalise(tag: str | None) -> str | None:
    """A declared language as a BCP 47 tag (``en_us`` -> ``en-US``, ``zh-hant-tw`` -> ``zh-Hant-TW``), or None if
    it is not one (``"english"``, ``"x"``)."""
    if not tag:
        return None
    match = _TAG.match(tag.strip()[:20].split(",")[0].strip())
    if match is None:
        return None
    language, script, region = match.groups()
    parts = [language.lower()]
    if script:
        parts.append(script.title())
    if region:
        parts.append(region.upper())
    return "-".join(parts)


def _stopword_share(words: list[str], language: str) -> float | None:
    stopwords = stopwords_for(language)
    if not stopwords or not words:
        return None
    return sum(map(stopwords.__contains__, words)) / len(words)


def page_language(declared: str | None, main_text: str) -> tuple[str | None, str | None]:
    """(BCP 47 tag, source) of the page's language: ``(declared, None)`` when the text agrees or is too short to
    judge, ``(identified, "text")`` when it names another language or nothing was declared."""
    tag = normalise(declared)
    sample = main_text[:SAMPLE_CHARS]
    if len(sample) < MIN_TEXT_CHARS:
        return tag, None
    words = _WORDS.findall(sample.lower())
    if tag is not None:
        share = _stopword_share(words, tag.split("-")[0])
        if share is not None and share >= ENGLISH_STOPWORD_SHARE:
            return tag, None
    elif (_stopword_share(words, "en") or 0.0) >= ENGLISH_STOPWORD_SHARE:
        return "en", "text"
    identified = identify(sample)
    if identified is None:
        return tag, None
    if tag is not None and tag.split("-")[0] == identified:
        return tag, None
    return identified, "text"
