"""A model per site: ``{"example.org": "example-tuned.npz"}`` labels example.org's pages (and its subdomains')
with a model taught on that site, and every other page with the default one.

A key is a domain (``example.org`` also matches ``www.example.org``) or a domain and a path prefix
(``example.org/blog/``); where several match a URL, the longest wins.  The crawl setting
``WEB2TEXT_SITE_MODELS`` and ``web2text extract``/``warc --site-model DOMAIN=PATH`` take the same map.  Each model
is loaded once per process (:func:`scrapy_web2text.load_model` caches it), at start-up, so a missing or broken file
stops the run before the first page with an error naming the key.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

#: ``((domain, path prefix, model), ...)``, longest key first.
SiteModels = tuple[tuple[str, str, str], ...]


def parse_site_models(value: Any, source: str) -> SiteModels:
    """The map from a mapping (``{"example.org": "tuned.npz"}``) or ``DOMAIN=PATH`` strings; ``ValueError``
    naming ``source`` for a key that is not a domain or a model that is not named."""
    if not value:
        return ()
    if isinstance(value, str):  # from the command line: JSON (-s 'WEB2TEXT_SITE_MODELS={...}') or DOMAIN=MODEL
        value = json.loads(value) if value.lstrip().startswith("{") else [value]
    if isinstance(value, Mapping):
        pairs = list(value.items())
    elif isinstance(value, Iterable):
        pairs = []
        for entry in value:
            key, equals, model = str(entry).partition("=")
            if not equals:
                raise ValueError(f"{source}: {entry!r} is not DOMAIN=MODEL (example.org=tuned.npz)")
            pairs.append((key, model))
    else:
        raise ValueError(f"{source} must map domains to models ({{'example.org': 'tuned.npz'}}), not {value!r}")
    out = []
    for key, model in pairs:
        domain, path = _key(str(key), source)
        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"{source}[{key!r}] must name a model (a packaged name or a path to NAME.npz)")
        out.append((domain, path, model.strip()))
    return tuple(sorted(out, key=lambda entry: (-len(entry[0]) - len(entry[1]), entry)))


def _key(key: str, source: str) -> tuple[str, str]:
    text = key.strip().lower()
    if "://" in text:
        text = text.split("://", 1)[1]
    domain, slash, path = text.partition("/")
    domain = domain.removeprefix("*.").strip(".")
    if not domain or any(character in domain for character in " :@?#\\"):
        raise ValueError(f"{source}: {key!r} is not a domain (example.org) or a domain and path (example.org/blog/)")
    return domain, slash + path


def site_model(site_models: SiteModels, url: str | None) -> str | None:
    """The model ``site_models`` names for ``url`` (the longest key matching), or ``None``."""
    if not site_models or not url:
        return None
    parts = urlsplit(url)
    host = (parts.hostname or "").rstrip(".")
    path = parts.path or "/"
    for domain, prefix, model in site_models:
        if (host == domain or host.endswith("." + domain)) and path.startswith(prefix):
            return model
    return None


def load_site_models(site_models: SiteModels, method: str, source: str) -> dict[str, Any]:
    """Every model of the map loaded (once per process), by the name it is given in the map; ``ValueError`` naming
    ``source`` and the key for one that cannot be loaded or a method that takes no model."""
    from ..labellers.base import load_labeller_weights

    loaded: dict[str, Any] = {}
    for domain, prefix, model in site_models:
        try:
            weights = load_labeller_weights(method, model)
        except Exception as error:
            raise ValueError(f"{source}[{domain + prefix!r}]: cannot load {model!r}: {error}") from error
        if weights is None or isinstance(weights, str):
            raise ValueError(f"{source}: method {method!r} takes no model, so a model per site does not apply")
        loaded[model] = weights
    return loaded
