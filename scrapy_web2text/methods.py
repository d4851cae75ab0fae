"""Labelling methods by name: Web2Text, its unary ablation, and baselines.

A method is a callable ``(page, *, model, threshold) -> Labelling`` that
labels the blocks of a parsed :class:`~scrapy_web2text.parsing.Page`; all
of them work on the same DOM-leaf blocks, so their figures compare.
Baselines live in :mod:`scrapy_web2text.baselines` and are imported only
when asked for.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .extraction import resolve_model, web2text_labels
from .parsing import Page


@dataclass
class Labelling:
    keep: np.ndarray
    probabilities: np.ndarray
    model_name: str | None = None
    timings: dict[str, float] = field(default_factory=dict)


Method = Callable[..., Labelling]


def _web2text(page: Page, *, model=None, threshold=None, pairwise: bool = True) -> Labelling:
    resolved = resolve_model(model)
    keep, probabilities, timings = web2text_labels(page, resolved, threshold, pairwise=pairwise)
    return Labelling(keep, probabilities, resolved.name, timings)


def _web2text_unary(page: Page, *, model=None, threshold=None) -> Labelling:
    return _web2text(page, model=model, threshold=threshold, pairwise=False)


_BUILTIN: dict[str, Method] = {"web2text": _web2text, "web2text-unary": _web2text_unary}
#: name -> "module:attribute", imported on first use.
_LAZY: dict[str, str] = {
    "boilerpipe-article": "scrapy_web2text.baselines.boilerpipe:article",
    "boilerpipe-default": "scrapy_web2text.baselines.boilerpipe:default",
    "boilerpipe-largest": "scrapy_web2text.baselines.boilerpipe:largest",
    "bte": "scrapy_web2text.baselines.bte:bte",
    "crf": "scrapy_web2text.baselines.crf:crf",
    "boilernet": "scrapy_web2text.baselines.boilernet:boilernet",
}


def method_names() -> list[str]:
    return [*_BUILTIN, *_LAZY]


def get_method(name: str) -> Method:
    """The labeller called ``name``; ``ValueError`` naming the choices otherwise."""
    if name in _BUILTIN:
        return _BUILTIN[name]
    target = _LAZY.get(name)
    if target is None:
        raise ValueError(f"unknown method {name!r}; choose one of: {', '.join(method_names())}")
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)
