"""The one page loop behind ``web2text evaluate`` and ``web2text benchmark``.

For each page of a corpus split: parse it once, align its gold text with its blocks
(:func:`~.alignment.align_labels`), then run every system on it — labellers on the parsed page, peers on the HTML —
and add the page to each system's block counts, text scores and timings.  Every system sees the same blocks, so
their figures compare.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..extraction import join_main_text
from ..labellers.base import Labeller
from ..page import parse_page
from .alignment import AlignmentReport, align_labels
from .metrics import BlockCounts, TextScores
from .peers import Peer, kept_by_text

#: Errors that make a labeller unusable on this machine (missing weights, a missing extra): the system is
#: dropped with a note rather than scored as if it had returned nothing.
UNAVAILABLE = (FileNotFoundError, ImportError, ValueError)


@dataclass
class SystemScores:
    """One system's figures on one corpus split."""

    name: str
    kind: str  # "method" (a labeller) or "peer" (an extractor returning text)
    blocks: BlockCounts = field(default_factory=BlockCounts)
    text: TextScores = field(default_factory=TextScores)
    #: Per page, ms: parse + features (a peer: its whole call), then network + decoding.
    front_ms: list[float] = field(default_factory=list)
    back_ms: list[float] = field(default_factory=list)
    errors: int = 0

    def row(self, corpus: str, split: str, alignment: AlignmentReport) -> dict[str, Any]:
        totals = [a + b for a, b in zip(self.front_ms, self.back_ms)]
        return {
            "corpus": corpus,
            "split": split,
            "name": self.name,
            "kind": self.kind,
            "pages": len(totals),
            **self.blocks.as_dict(),
            **self.text.as_dict(),
            "ms_per_page": statistics.median(totals) if totals else float("nan"),
            "ms_parse_features": statistics.median(self.front_ms) if totals else float("nan"),
            "ms_network_decode": statistics.median(self.back_ms) if totals else float("nan"),
            "label_coverage": alignment.coverage,
            "label_purity": alignment.purity,
            "errors": self.errors,
        }


@dataclass
class CorpusScores:
    corpus: str
    split: str
    systems: dict[str, SystemScores]
    alignment: AlignmentReport = field(default_factory=AlignmentReport)
    notes: list[str] = field(default_factory=list)
    #: Per value of the records' ``group_by`` field (WCXB's ``page_type``): the same figures for those pages.
    groups: dict[str, CorpusScores] = field(default_factory=dict)

    def rows(self) -> list[dict[str, Any]]:
        """The corpus rows, then each group's as corpus ``"corpus/group"`` (systems dropped on the corpus too)."""
        out = [system.row(self.corpus, self.split, self.alignment) for system in self.systems.values()]
        for _, group in sorted(self.groups.items()):
            out += [
                system.row(group.corpus, self.split, group.alignment)
                for name, system in group.systems.items()
                if name in self.systems
            ]
        return out

    def group(self, value: str) -> CorpusScores:
        if value not in self.groups:
            systems = {name: SystemScores(name, system.kind) for name, system in self.systems.items()}
            self.groups[value] = CorpusScores(f"{self.corpus}/{value}", self.split, systems)
        return self.groups[value]


def score_corpus(
    records: Iterable[dict],
    corpus: str,
    split: str,
    *,
    labellers: Mapping[str, Labeller],
    peers: Mapping[str, Peer] | None = None,
    options: Mapping[str, dict[str, Any]] | None = None,
    limit: int | None = None,
    on_page: Callable[[], None] | None = None,
    group_by: str | None = "page_type",
) -> CorpusScores:
    """Score ``labellers`` and ``peers`` on ``records``.

    ``options[name]`` holds the keyword arguments for labeller ``name`` (its ``model``, ``threshold``).
    Records with a (string) ``group_by`` field are also scored per value of it.
    """
    peers, options = peers or {}, options or {}
    scores = CorpusScores(corpus, split, {name: SystemScores(name, "method") for name in labellers})
    scores.systems.update({name: SystemScores(name, "peer") for name in peers})
    for number, record in enumerate(records):
        if limit is not None and number >= limit:
            break
        html, gold = record.get("html") or "", record.get("text") or ""
        clock = time.perf_counter()
        page = parse_page(html)
        parse_ms = 1000 * (time.perf_counter() - clock)
        labels, report = align_labels(page, gold)
        scores.alignment += report
        value = record.get(group_by) if group_by else None
        group = scores.group(value) if isinstance(value, str) and value else None
        if group is not None:
            group.alignment += report

        def targets(name: str, group: CorpusScores | None = group) -> list[SystemScores]:
            return [scores.systems[name], group.systems[name]] if group is not None else [scores.systems[name]]

        for name, labeller in labellers.items():
            if name not in scores.systems:
                continue  # dropped as unavailable on an earlier page
            clock = time.perf_counter()
            try:
                labelling = labeller(page, **options.get(name, {}))
            except UNAVAILABLE as error:
                del scores.systems[name]
                scores.notes.append(f"{name}: skipped on {corpus} ({type(error).__name__}: {error})")
                continue
            labelling_ms = 1000 * (time.perf_counter() - clock)
            features_ms = labelling.timings.get("features", 0.0)
            text = join_main_text(page, labelling.keep)
            for system in targets(name):
                system.front_ms.append(parse_ms + features_ms)
                system.back_ms.append(labelling_ms - features_ms)
                system.blocks.add(labelling.keep, labels)
                system.text.add(text, gold)
        for name, peer in peers.items():
            clock = time.perf_counter()
            errors = 0
            try:
                output = peer(html) or ""
            except Exception:  # a peer crashing on a page scores an empty output
                output, errors = "", 1
            peer_ms = 1000 * (time.perf_counter() - clock)
            kept = kept_by_text(page.texts, output)
            for system in targets(name):
                system.errors += errors
                system.front_ms.append(peer_ms)
                system.back_ms.append(0.0)
                system.blocks.add(kept, labels)
                system.text.add(output, gold)
        if on_page is not None:
            on_page()
    return scores
