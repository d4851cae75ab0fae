"""Stop-words in the page's language, for the stop-word ratio features.

The paper's stop-word features know English only; on a German page every
ratio is near zero.  A page whose words are not mostly English stop-words
gets its language from ``py3langid`` (langid.py's model, numpy, no pickle,
on the sample below) and that language's list from the ``stop-words``
package (33 languages, maintained).  English pages never reach the
identifier, so their features are unchanged.

The identifier is py3langid's own ``LanguageIdentifier``, built from the
package's copy of its model (``models/languages.npz``, written by
:mod:`scrapy_web2text.research.language_model`): the same arrays, deflated
instead of LZMA-compressed, so that a process loads them in under half the
time (docs/speed.rst), and fixed with the package, so that the features the
networks were trained on do not move with a py3langid release.
"""

from __future__ import annotations

import functools
import json
import threading
from array import array
from pathlib import Path
from typing import Any

import numpy as np

from .errors import ModelError

#: Below this share of English stop-words a page is checked for its language.
#: English prose runs at 0.35-0.5; navigation-only pages fall below too and
#: are simply identified.
ENGLISH_STOPWORD_SHARE = 0.2
#: Characters of the page's longest blocks given to the identifier.
SAMPLE_CHARS = 1000
#: The package's copy of py3langid's model, and its description (``.json`` beside it).
LANGUAGE_MODEL = Path(__file__).resolve().parents[2] / "models" / "languages.npz"
LANGUAGE_MODEL_FORMAT = "scrapy-web2text-language-model"

_lock = threading.Lock()
_identifier: Any = None
#: Why the copy could not be read, kept so that every later page gets the same error at once instead of reading a
#: damaged install's 70 MB again.
_failure: ModelError | None = None


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

    The model takes a noticeable time and memory to load (70 MB of arrays), so a process that labels many pages
    loads it at start-up on a background thread (:func:`~scrapy_web2text.labellers.base.warm_up_labeller`) instead
    of at its first non-English page; a page that needs it meanwhile waits here for that load.
    """
    global _identifier, _failure
    if _identifier is None:
        with _lock:  # once, not once per thread
            if _failure is not None:
                raise _failure
            if _identifier is None:
                try:
                    _identifier = read_language_model(LANGUAGE_MODEL)
                except ImportError:
                    return False
                except ModelError as error:
                    _failure = error
                    raise
    return True


def read_language_model(path: Path):
    """py3langid's ``LanguageIdentifier`` of the model copy at ``path``, checked first
    (:class:`~scrapy_web2text.ModelError` names what is wrong); ImportError without
    py3langid."""
    from py3langid.langid import LanguageIdentifier

    try:
        described = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in LANGUAGE_ARRAYS if name in data.files}
    except (OSError, ValueError) as error:  # missing, unreadable, not JSON, not an .npz, or pickled arrays
        raise ModelError(f"cannot read the language model {path}: {error}") from error
    if not isinstance(described, dict) or described.get("format") != LANGUAGE_MODEL_FORMAT:
        raise ModelError(f"{path.with_suffix('.json')}: not a {LANGUAGE_MODEL_FORMAT} description")
    _check_language_arrays(path, arrays)
    # The moves are converted and their loaded form let go before the identifier is built: the peak stays near
    # py3langid's.  (Freeing a block under 32 MB would also raise glibc's threshold for giving memory back, and the
    # process's resident memory for good: the score table is used as loaded.)
    moves = _stdlib_array(arrays.pop("nextmove"))  # indexed one byte of text at a time: a stdlib array is fastest
    # As py3langid's LanguageIdentifier.from_model_file builds it, with raw scores (py3langid.classify's).
    return LanguageIdentifier(
        arrays["ptc"],  # features by classes: py3langid gathers the rows of a text's features
        arrays["pc"],
        arrays["classes"].tolist(),
        moves,
        arrays["out_feat"].tolist(),
        tk_row=_stdlib_array(arrays["nextmove_row"]),
    )


#: The arrays of py3langid's model, by name, and the dtypes each may have (the builder copies these names).
LANGUAGE_ARRAYS = {
    "ptc": (np.float16,),
    "pc": (np.float32,),
    "classes": (np.str_,),
    "nextmove": (np.uint32,),
    "nextmove_row": (np.uint16, np.uint32),
    "out_feat": (np.int32,),
}


def _check_language_arrays(path: Path, arrays: dict[str, np.ndarray]) -> None:
    missing = sorted(set(LANGUAGE_ARRAYS).difference(arrays))
    if missing:
        raise ModelError(f"{path}: no {', '.join(missing)} array")
    for name, dtypes in LANGUAGE_ARRAYS.items():
        if not any(np.issubdtype(arrays[name].dtype, dtype) for dtype in dtypes):
            raise ModelError(f"{path}: {name} is {arrays[name].dtype}, not {dtypes[0].__name__}")
    scores, moves = arrays["ptc"], arrays["nextmove"]  # moves: 256 next states per row of the automaton
    row_of_state, feature_of_state = arrays["nextmove_row"], arrays["out_feat"]
    classes = len(arrays["pc"])
    sound = (
        scores.ndim == 2
        and scores.shape[1] == classes == len(arrays["classes"]) > 0
        and moves.ndim == row_of_state.ndim == feature_of_state.ndim == 1
        and moves.size % 256 == 0
        and len(row_of_state) == len(feature_of_state) > 0
        and int(row_of_state.max()) < moves.size // 256  # every state's row of moves exists
        and int(moves.max()) < len(row_of_state)  # every move leads to a state
        and -1 <= int(feature_of_state.min())
        and int(feature_of_state.max()) < scores.shape[0]  # every feature a state counts has its scores
    )
    if not sound:
        raise ModelError(f"{path}: the arrays do not fit together (shapes or indexes out of range)")


def _stdlib_array(values: np.ndarray) -> array:
    out = array({2: "H", 4: "I"}[values.dtype.itemsize])
    out.frombytes(memoryview(np.ascontiguousarray(values)).cast("B"))
    return out


def identifier_loaded() -> bool:
    """Whether this process has loaded the language identifier's model."""
    return _identifier is not None


def identify(text: str) -> str | None:
    """ISO 639-1 code of ``text``'s language, or None without the identifier."""
    if not load_identifier():
        return None
    return _identifier.classify(text)[0]


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
