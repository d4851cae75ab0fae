"""A tuned model's site gate: its tuned networks label only pages that look like the site it was taught on.

Pages of one site share their furniture: the menu, the footer, the sidebar headings.  ``web2text train --init``
records the texts its corrected pages call boilerplate (given two pages or more, those found on at least two of
them where they share enough: the site's template, not one page's related links), as short digests, not the
texts.  A page whose blocks hold at least ``min_share`` of them is one of the site's pages and is labelled by the
tuned model; any other page by the model tuning started from (its ``fallback``, stored in the same files), exactly
as that model labels it.  Tuning on a few pages moves the balance of content and boilerplate on every page; the
gate keeps that move on the site it was made for (docs/research/adaptation.rst has the figures).
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Iterable, Sequence

from .config import ModelError

#: Characters of a digest: 48 bits, so that two texts of one page collide about once in 10^10 pages.
DIGEST_LENGTH = 12

#: Fewer texts shared by the pages than this make no template: every page's boilerplate stands in for it.
MIN_TEMPLATE = 10


def text_digest(text: str) -> str:
    """The digest of a block's text, spacing and case ignored."""
    normal = " ".join(text.split()).casefold()
    return hashlib.blake2b(normal.encode("utf-8"), digest_size=16).hexdigest()[:DIGEST_LENGTH]


def template_digests(pages: Iterable[Sequence[str]]) -> list[str]:
    """Digests of the texts the pages call boilerplate (each page: its boilerplate blocks' texts), kept where at
    least two pages have them, unless fewer than :data:`MIN_TEMPLATE` are: then every page's (a few shared words
    such as "Search" are found on other sites too); sorted."""
    counts: Counter[str] = Counter()
    for texts in pages:
        counts.update({text_digest(text) for text in texts if text.strip()})
    shared = [digest for digest, count in counts.items() if count >= 2]
    return sorted(shared if len(shared) >= MIN_TEMPLATE else counts)


def template_share(digests: frozenset[str], texts: Sequence[str]) -> float:
    """The share of the template's digests that the page's block texts hold."""
    if not digests:
        return 0.0
    return len(digests.intersection(text_digest(text) for text in texts if text.strip())) / len(digests)


def check_gate(gate, where) -> None:
    """Raise :class:`ModelError` unless ``config.site_gate`` is usable."""
    if not isinstance(gate, dict):
        raise ModelError(f"{where}: config.site_gate must be a JSON object")
    share, digests = gate.get("min_share"), gate.get("digests")
    if not (isinstance(share, (int, float)) and not isinstance(share, bool) and math.isfinite(share)) or not (
        0 < share <= 1
    ):
        raise ModelError(f"{where}: config.site_gate.min_share must be a number in (0, 1], not {share!r}")
    if not isinstance(digests, list) or not digests or not all(isinstance(d, str) for d in digests):
        raise ModelError(f"{where}: config.site_gate.digests must be a non-empty list of text digests")
