"""What a labeller is, and the registry that finds one by name.

A labeller takes a parsed :class:`~scrapy_web2text.page.Page` and returns a :class:`Labelling`: one keep/drop
decision and one p(content) per block.  Every labeller works on the same DOM-leaf blocks, so their figures
compare.  Built-in labellers are registered by name and imported on first use; a third-party labeller is named by
its dotted path (``"mypackage.module:my_labeller"``) wherever a method name is accepted (``extract(method=...)``,
``WEB2TEXT_METHOD``, ``--method``), or registered under a short name with :func:`register_labeller`.

Labellers that need weights load them through :func:`load_weights`, the one cache of model files in the process.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, Protocol, TypeVar

import numpy as np

from ..page import Page


@dataclass
class Labelling:
    """A labeller's answer for one page: ``keep`` and ``probabilities`` hold one entry per block."""

    keep: np.ndarray
    probabilities: np.ndarray
    model_name: str | None = None
    #: Milliseconds per stage (``features``, ``network``, ``decode``...).
    timings: dict[str, float] = field(default_factory=dict)
    #: The labeller's own threshold left the page empty, so it was labelled again at a lower one.
    decoded_again: bool = False
    #: What kind of page it is, for labellers that tell (``None`` otherwise): a :class:`PageType`, or a function
    #: that classifies the page when :attr:`Extraction.page_type <scrapy_web2text.Extraction.page_type>` is first
    #: read (most callers never read it).
    page_type: PageType | Callable[[], PageType | None] | None = None
    #: For each block, the name of the rule after decoding that changed its label, ``None`` where the labeller's
    #: own label stands; ``None`` where no rule changed any (or the labeller has none).
    rules: Sequence[str | None] | None = None


class PageType(NamedTuple):
    """A page's likeliest type (``"article"``, ``"forum"``, ``"listing"``…) and the classifier's probability."""

    label: str
    probability: float


class Labeller(Protocol):
    """``labeller(page, model=..., threshold=...)``.

    ``model`` is the labeller's own weights (an object it loaded, a path, or ``None`` for its shipped ones);
    ``threshold`` the p(content) a block needs (``None``: the labeller's default).
    """

    def __call__(self, page: Page, *, model: Any = None, threshold: float | None = None) -> Labelling: ...


#: name -> "module:attribute", imported on first use.
_REGISTRY: dict[str, str] = {
    "web2text": "scrapy_web2text.labellers.web2text:web2text",
    "web2text-unary": "scrapy_web2text.labellers.web2text:web2text_unary",
    "web2text-model-alone": "scrapy_web2text.labellers.web2text:web2text_model_alone",
    "boilerpipe-article": "scrapy_web2text.labellers.boilerpipe:article",
    "boilerpipe-default": "scrapy_web2text.labellers.boilerpipe:default",
    "boilerpipe-largest": "scrapy_web2text.labellers.boilerpipe:largest",
    "bte": "scrapy_web2text.labellers.bte:bte",
    "crf": "scrapy_web2text.labellers.crf:crf",
    "boilernet": "scrapy_web2text.labellers.boilernet:boilernet",
    "lm": "scrapy_web2text.labellers.lm:lm",
}
#: Registered labellers that need an optional extra and are not run unless named (the benchmark's default set).
OPTIONAL_LABELLERS = frozenset({"lm"})
_resolved: dict[str, Labeller] = {}

#: name -> "module:attribute" of the function that loads the labeller's own weights (a name or path -> weights);
#: labellers missing here take no weights.
_WEIGHT_LOADERS: dict[str, str] = {
    "web2text": "scrapy_web2text.labellers.web2text.network:load_model",
    "web2text-unary": "scrapy_web2text.labellers.web2text.network:load_model",
    "crf": "scrapy_web2text.labellers.crf:load_crf",
    "boilernet": "scrapy_web2text.labellers.boilernet:load_boilernet",
}
#: name -> "module:attribute" of a function that loads what the labeller would otherwise load at its first page
#: that needs it (web2text: the language identifier, slow to load); see :func:`warm_up_labeller`.
_WARM_UPS: dict[str, str] = {
    "web2text": "scrapy_web2text.labellers.web2text.languages:load_identifier",
    "web2text-unary": "scrapy_web2text.labellers.web2text.languages:load_identifier",
}
#: The name that means "the labeller's shipped weights" (``WEB2TEXT_MODEL``'s default).
SHIPPED_WEIGHTS = "default"


def labeller_names(*, include_optional: bool = True) -> list[str]:
    """The registered names, built-in ones first (without :data:`OPTIONAL_LABELLERS` when asked)."""
    return [name for name in _REGISTRY if include_optional or name not in OPTIONAL_LABELLERS]


def register_labeller(name: str, target: str | Labeller) -> None:
    """Register ``target`` (a labeller, or its ``"module:attribute"`` path) under ``name``."""
    if isinstance(target, str):
        _REGISTRY[name] = target
        _resolved.pop(name, None)
    else:
        _REGISTRY[name] = f"{getattr(target, '__module__', '?')}:{getattr(target, '__qualname__', name)}"
        _resolved[name] = target


def get_labeller(name: str) -> Labeller:
    """The labeller registered as ``name``, or at the dotted path ``name``; ``ValueError`` naming the choices."""
    labeller = _resolved.get(name)
    if labeller is not None:
        return labeller
    target = _REGISTRY.get(name) or (name if ":" in name else None)
    if target is None:
        raise ValueError(
            f"unknown method {name!r}; choose one of: {', '.join(labeller_names())}, "
            "or give a labeller's dotted path 'package.module:name'"
        )
    module, _, attribute = target.partition(":")
    try:
        labeller = getattr(importlib.import_module(module), attribute)
    except (ImportError, AttributeError) as error:
        raise ValueError(f"method {name!r}: cannot import {target} ({error})") from error
    if not callable(labeller):
        raise ValueError(f"method {name!r}: {target} is not callable")
    _resolved[name] = labeller
    return labeller


# --- weights ---------------------------------------------------------------------

_Model = TypeVar("_Model")
_weights: dict[tuple[Callable[..., Any], str], Any] = {}
_weights_lock = threading.Lock()


#: Absolute paths as given → resolved: extract() asks for its model on every call, and resolving a path (a system
#: call per component) showed in the time of a small page.  Relative paths are resolved each time: they depend on the
#: working directory.
_resolved_paths: dict[str, str] = {}


def _resolved_path(path: str | Path) -> str:
    given = str(path)
    resolved = _resolved_paths.get(given)
    if resolved is None:
        resolved = str(Path(path).resolve())
        if os.path.isabs(given):
            _resolved_paths[given] = resolved
    return resolved


def load_weights(load: Callable[[Path], _Model], path: str | Path) -> _Model:
    """``load(path)`` once per process and path (thread-safe); every later call returns the same object."""
    key = (load, _resolved_path(path))
    model = _weights.get(key)
    if model is None:
        with _weights_lock:
            model = _weights.get(key)
            if model is None:
                model = _weights[key] = load(Path(key[1]))
    return model


def load_labeller_weights(method: str, model: Any = None) -> Any:
    """The weights ``method``'s labeller runs with, loaded once per process, or ``None``.

    ``model`` is what a user set (``WEB2TEXT_MODEL``): ``None`` or ``"default"`` for the labeller's shipped
    weights, a path for others, or weights already loaded (returned as they are).  Labellers without weights
    (the boilerpipe family, BTE) get ``None``; a third-party labeller gets ``model`` unchanged (``None`` for the
    default).  Loading here, once, lets a crawl fail at start-up on missing or corrupt weights.
    """
    get_labeller(method)  # an unknown name fails here, naming the choices
    wants_shipped = model is None or (isinstance(model, (str, Path)) and str(model) in ("", SHIPPED_WEIGHTS))
    loader = _WEIGHT_LOADERS.get(method)
    if loader is None:
        return None if wants_shipped else model
    if not isinstance(model, (str, Path)) and not wants_shipped:
        return model
    module, _, attribute = loader.partition(":")
    load = getattr(importlib.import_module(module), attribute)
    return load(None if wants_shipped else model)


def warm_up_labeller(method: str) -> threading.Thread | None:
    """Start loading, on a daemon thread, what ``method``'s labeller loads lazily; ``None`` if it loads nothing.

    For processes that label many pages (a crawl's worker processes, its thread pool's process): the load then
    overlaps the crawl's start instead of stalling the first page that needs it.  A page that needs it before the
    load ends waits for it; a failed load is raised again by that page.
    """
    target = _WARM_UPS.get(method)
    if target is None:
        return None
    module, _, attribute = target.partition(":")
    load = getattr(importlib.import_module(module), attribute)

    def run() -> None:
        try:
            load()
        except Exception:  # the first page that needs it loads again and reports the error with its URL
            logging.getLogger(__name__).debug("warming up %s failed", method, exc_info=True)

    thread = threading.Thread(target=run, name=f"web2text-warm-up-{method}", daemon=True)
    thread.start()
    return thread


def weights_files(path: str | Path) -> tuple[Path, Path]:
    """The ``.npz`` and ``.json`` files of the weights named ``NAME``, ``NAME.npz`` or ``NAME.json``.

    Only those two suffixes come off: ``runs/model-0.5`` is ``runs/model-0.5.npz``, not ``runs/model-0.npz``.
    """
    path = Path(path)
    stem = path.with_suffix("") if path.suffix in (".npz", ".json") else path
    return stem.with_name(f"{stem.name}.npz"), stem.with_name(f"{stem.name}.json")


def read_weights(stem: str | Path, format_name: str, what: str) -> tuple[Path, dict[str, Any], dict[str, np.ndarray]]:
    """A baseline's weights named ``stem``: the ``.npz`` path, the JSON description and the arrays as float64.
    ``ValueError`` when the description is not of ``format_name`` (``what`` names the model in the message)."""
    npz, description = weights_files(stem)
    meta = json.loads(description.read_text(encoding="utf-8"))
    if meta.get("format") != format_name:
        raise ValueError(f"{description} is not a {what} baseline model")
    with np.load(npz, allow_pickle=False) as arrays:
        parts = {key: arrays[key].astype(np.float64) for key in arrays.files}
    return npz, meta, parts


def load_weights_file(
    load: Callable[[Path], _Model], path: str | Path | None, default: Path, what: str, how: str
) -> _Model:
    """The weights at ``path`` (default: the shipped ``default``), through :func:`load_weights`.

    ``NAME``, ``NAME.npz`` and ``NAME.json`` name the same pair of files; a missing ``.npz`` raises
    ``FileNotFoundError`` saying ``what`` was looked for where, and ``how`` to make it.
    """
    # "default" is the shipped file's name, never a file of that name in the working directory.
    shipped = path is None or (isinstance(path, str) and path in ("", SHIPPED_WEIGHTS))
    npz, _ = weights_files(default if shipped else path)
    if not npz.is_file():
        raise FileNotFoundError(f"no {what} at {npz}; {how}")
    return load_weights(load, npz)


# The 0.1 names, for code that still imports them from the deprecated ``scrapy_web2text.methods`` path.
get_method = get_labeller
method_names = labeller_names
