"""``web2text evaluate``: one labeller's block- and text-level scores and stage timings, per corpus.

Each page runs through the whole chain from its HTML (:func:`~.scoring.score_corpus`); gold block labels come from
the alignment of the corpus' gold text with the page's blocks, and the label coverage and purity of that
alignment are reported beside the scores.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..labellers.base import get_labeller
from .corpus import corpus_name, iter_records
from .scoring import CorpusScores, score_corpus


def evaluate_records(
    records: Iterable[dict],
    corpus: str,
    split: str,
    *,
    method: str = "web2text",
    model: Any = None,
    threshold: float | None = None,
) -> CorpusScores:
    options = {method: {"model": model, "threshold": threshold}}
    return score_corpus(records, corpus, split, labellers={method: get_labeller(method)}, options=options)


def evaluate_files(
    paths: Iterable[str], split: str, *, progress: Callable[..., Iterable] | None = None, **options: Any
) -> list[dict[str, Any]]:
    """One row per corpus file (see :meth:`~.scoring.SystemScores.row`).

    ``progress(iterable, total, description)`` wraps each corpus' pages (the CLI's progress bar).
    """
    rows = []
    for path in paths:
        records: Iterable[dict] = iter_records(path, split)
        if progress is not None:
            records = progress(records, None, f"{corpus_name(path)}/{split}")
        scores = evaluate_records(records, corpus_name(path), split, **options)
        rows.extend(scores.rows())
    return rows
