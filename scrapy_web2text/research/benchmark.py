"""``web2text benchmark``: every method and installed peer on the same blocks.

One table per corpus, like Vogels et al. (2018) Table 2: block-level
accuracy / precision / recall / F1 on our DOM-leaf segmentation (gold block
labels from :func:`~scrapy_web2text.research.alignment.align_labels`, all blocks
weigh the same, counts pooled over pages), then text-level shingle F1 and
word F1 against the gold text (:mod:`scrapy_web2text.research.metrics`), and the
median milliseconds per page (parse + labelling for our methods; the whole
call for a peer).

Methods are labeller names (:mod:`scrapy_web2text.labellers`); a method whose
weights are missing is skipped with a note.  Peers are other extractors
returning text (the ``bench`` extra: trafilatura, readability-lxml,
jusText, boilerpy3, resiliparse); each missing one is skipped with a note.
For a peer, a block counts as kept when its text occurs in the peer's
output (whitespace-normalised).

    web2text benchmark --data ../shared/data/cleaneval.jsonl.gz --split test
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..labellers.base import get_labeller, labeller_names
from .benchmark_options import add_benchmark_arguments
from .corpus import corpus_name, iter_records
from .peers import load_peers
from .scoring import score_corpus
from .tables import format_rst, format_text, write_csv, write_json


@dataclass
class BenchmarkResult:
    rows: list[dict]
    notes: list[str]

    def table(self) -> str:
        return format_text(self.rows, notes=self.notes)


def run_benchmark(
    data: Sequence[str | Path],
    split: str = "test",
    *,
    methods: Sequence[str] | None = None,
    peers: Sequence[str] | None = None,
    limit: int | None = None,
    model=None,
    progress: bool = False,
) -> BenchmarkResult:
    """Score methods and peers on each corpus file's ``split``; one row per (corpus, system).

    ``methods`` default to every registered labeller but the optional ``lm``, ``peers`` to every peer
    (``[]`` for none); ``limit`` takes the first pages of each split.
    """
    names = labeller_names(include_optional=False) if methods is None else methods
    labellers = {name: get_labeller(name) for name in names}
    options = {name: {"model": model} for name in labellers if name.startswith("web2text")}
    peer_functions, notes = load_peers(peers)
    rows: list[dict] = []
    for path in data:
        corpus = corpus_name(path)
        bar = _progress_bar(f"{corpus}/{split}", limit) if progress else None

        scores = score_corpus(
            iter_records(path, split),
            corpus,
            split,
            labellers=labellers,
            peers=peer_functions,
            options=options,
            limit=limit,
            on_page=bar.update if bar is not None else None,
        )
        if bar is not None:
            bar.close()
        rows.extend(scores.rows())
        notes.extend(scores.notes)
    return BenchmarkResult(rows, notes)


def _progress_bar(label: str, total: int | None):
    from tqdm import tqdm

    return tqdm(total=total, desc=label, unit="page", file=sys.stderr)


def plot(rows: Sequence[dict], path: str | Path) -> bool:
    """F1 against ms/page (log scale), one panel per corpus; False without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    corpora = list(dict.fromkeys((row["corpus"], row["split"]) for row in rows))
    figure, axes = plt.subplots(1, len(corpora), figsize=(6 * len(corpora), 4.5), squeeze=False)
    for axis, corpus in zip(axes[0], corpora):
        for row in rows:
            if (row["corpus"], row["split"]) != corpus:
                continue
            marker = "s" if row["kind"] == "peer" else "o"
            axis.scatter(row["ms_per_page"], row["f1"], marker=marker)
            axis.annotate(
                row["name"], (row["ms_per_page"], row["f1"]), fontsize=8, xytext=(4, 2), textcoords="offset points"
            )
        axis.set_xscale("log")
        axis.set_xlabel("median ms per page (log)")
        axis.set_ylabel("block F1")
        axis.set_title(f"{corpus[0]} ({corpus[1]})")
        axis.grid(True, alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return True


# --- CLI ------------------------------------------------------------------------


def main(args: argparse.Namespace) -> int:
    if not args.data:
        print("web2text benchmark: no corpus files: give them with --data FILE.jsonl.gz ...", file=sys.stderr)
        return 2
    try:
        result = run_benchmark(
            args.data,
            args.split,
            methods=args.methods,
            peers=args.peers,
            limit=args.limit,
            model=args.model,
            progress=sys.stderr.isatty(),
        )
    except (ValueError, FileNotFoundError) as error:
        print(f"web2text benchmark: {error}", file=sys.stderr)
        return 2
    print(result.table())
    if args.csv:
        write_csv(result.rows, args.csv)
    if args.json:
        write_json(result.rows, result.notes, args.json)
    if args.rst:
        Path(args.rst).write_text(format_rst(result.rows), encoding="utf-8")
    if args.plot and not plot(result.rows, args.plot):
        print("note: matplotlib is not installed; no plot written", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(add_benchmark_arguments(argparse.ArgumentParser(prog="web2text benchmark")).parse_args()))
