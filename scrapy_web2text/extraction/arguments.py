""":func:`~scrapy_web2text.extract`'s keyword arguments, checked before any of them is used.

A wrong type deep in the chain raises an error that names neither the argument nor what it accepts
(``threshold='0.5'`` failed comparing ``float`` with ``str`` inside the decoder): here each one raises ``TypeError``
(a wrong type) or ``ValueError`` (a wrong value) that says which argument and what it takes.
"""

from __future__ import annotations

import math
import numbers
import os
from typing import Any

#: Labellers whose ``model`` must be a Web2Text model (other labellers load weights objects of their own).
WEB2TEXT_METHODS = frozenset({"web2text", "web2text-unary"})


def checked_threshold(threshold: Any) -> float | None:
    """``None``, or a number strictly between 0 and 1: an ``int``/``float`` (not ``bool``) or a numeric ``str``,
    as a crawl's ``WEB2TEXT_THRESHOLD`` and ``Request.meta`` accept it."""
    if threshold is None:
        return None
    if isinstance(threshold, bool) or not isinstance(threshold, (numbers.Real, str)):
        raise TypeError(
            f"threshold must be a number between 0 and 1 (float, int or numeric str) or None, "
            f"not {type(threshold).__name__}"
        )
    try:
        value = float(threshold)
    except ValueError:
        raise ValueError(f"threshold must be a number between 0 and 1, not {threshold[:40]!r}") from None
    if not (math.isfinite(value) and 0.0 < value < 1.0):
        raise ValueError(f"threshold must lie strictly between 0 and 1, not {value}")
    return value


def check_arguments(*, url: Any, model: Any, method: Any, encoding: Any, content_type: Any) -> None:
    """Raise ``TypeError`` naming the first argument of a type :func:`~scrapy_web2text.extract` does not take."""
    _check_type("url", url, (str,), "a str or None")
    _check_type("method", method, (str,), "a labeller's name (str)", allow_none=False)
    if not method:
        raise ValueError("method must be a labeller's name, not an empty string")
    _check_type("encoding", encoding, (str,), "a charset label (str) or None")
    _check_type("content_type", content_type, (str, bytes), "an HTTP Content-Type (str or bytes) or None")
    if model is None or isinstance(model, (str, os.PathLike)):
        return
    if method in WEB2TEXT_METHODS:
        from ..labellers.web2text.network import Web2TextModel

        _check_type("model", model, (Web2TextModel,), "a Web2TextModel, a packaged model's name or a path")
    elif isinstance(model, (numbers.Number, bytes, bytearray)):
        raise TypeError(f"model must be loaded weights, a name or a path, not {type(model).__name__}")


def _check_type(name: str, value: Any, types: tuple[type, ...], accepts: str, allow_none: bool = True) -> None:
    if (value is None and allow_none) or (isinstance(value, types) and not isinstance(value, bool)):
        return
    raise TypeError(f"{name} must be {accepts}, not {type(value).__name__}")
