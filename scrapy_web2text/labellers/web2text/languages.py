"""Stop-words in the page's language, for the stop-word ratio features.

The paper's stop-word features know English only; on a German page every
ratio is near zero.  A page whose words are not mostly English stop-words
gets its language from ``py3langid`` (langid.py's model, numpy, no pickle,
on the sample below) and that language's list from the ``stop-words``
package (33 languages, maintained).  English pages never reach the
identifier, so their features are unchanged.
"""

from __future__ import annotations

import functools
import threading

#: Below this share of English stop-words a page is checked for its language.
#: English prose runs at 0.35-0.5; navigation-only pages fall below too and
#: are simply identified.
ENGLISH_STOPWORD_SHARE = 0.2
#: Characters of the page's longest blocks given to the identifier.
SAMPLE_CHARS = 1000

_lock = threading.Lock()
_loaded = False


@functools.cache
def stopwords_for(language: str) -> frozenset[str] | None:
    """The ``stop-words`` list of an ISO 639-1 code, lower-cased; None if it has none."""
    try:
        import stop_words
    except ImportError:
        return None
    name = stop_words.LANGUAGE_MAPPING.get(language)
    if name is None:
        return None
    return frozenset(word.lower() for word in stop_words.get_stop_words(name))


def load_identifier() -> bool:
    """Load the language identifier's model now, once per process; False without ``py3langid``.

    The model takes a noticeable time and memory to load (an LZMA-compressed array file), so a process that
    labels many pages loads it at start-up on a background thread
    (:func:`~scrapy_web2text.labellers.base.warm_up_labeller`) instead of at its first non-English page; a page
    that needs it meanwhile waits here for that load.
    """
    try:
        import py3langid
    except ImportError:
        return False
    global _loaded
    if not _loaded:
        with _lock:  # once, not once per thread
            if not _loaded:
                py3langid.classify("")
                _loaded = True
    return True


def identifier_loaded() -> bool:
    """Whether this process has loaded the language identifier's model."""
    return _loaded


def identify(text: str) -> str | None:
    """ISO 639-1 code of ``text``'s language, or None without the identifier."""
    if not load_identifier():
        return None
    import py3langid

    return py3langid.classify(text)[0]


def page_stopwords(texts: list[str]) -> frozenset[str] | None:
    """Stop-words of the language of a page's longest blocks (None: keep English)."""
    sample, size = [], 0
    for text in sorted(texts, key=len, reverse=True):
        sample.append(text)
        size += len(text)
        if size >= SAMPLE_CHARS:
            break
    if size < 20:
        return None
    language = identify(" ".join(sample)[:SAMPLE_CHARS])
    if language is None or language == "en":
        return None
    return stopwords_for(language)
