"""``web2text benchmark``: every method and installed peer on the same blocks.

One table per corpus, like Vogels et al. (2018) Table 2: block-level
accuracy / precision / recall / F1 on our DOM-leaf segmentation (gold block
labels from :func:`~scrapy_web2text.alignment.align_labels`, all blocks
weigh the same, counts pooled over pages), then text-level shingle F1 and
word F1 against the gold text (:mod:`scrapy_web2text.metrics`), and the
median milliseconds per page (parse + labelling for our methods; the whole
call for a peer).

Methods are the names of :mod:`scrapy_web2text.methods`; a method whose
weights are missing is skipped with a note.  Peers are other extractors
returning text (the ``bench`` extra: trafilatura, readability-lxml,
jusText, boilerpy3, resiliparse); each missing one is skipped with a note.
For a peer, a block counts as kept when its text occurs in the peer's
output (whitespace-normalised).

    web2text benchmark --data ../shared/data/cleaneval.jsonl.gz --split test
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import re
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .alignment import align_labels
from .corpus import corpus_name, iter_records
from .extraction import join_main_text
from .methods import get_method, method_names
from .metrics import BlockCounts, TextScores
from .parsing import parse_page

_SPACES = re.compile(r"\s+")

METRICS = ("accuracy", "precision", "recall", "f1", "shingle_f1", "word_f1", "ms_per_page")


# --- peers: html -> text -------------------------------------------------------


def _with_body(html: str) -> str:
    # boilerpy3's SAX-style parser ignores text outside <body>; many
    # CleanEval pages have none (a browser would infer it).
    return html if "<body" in html[:500_000].lower() else f"<html><body>{html}</body></html>"


def _trafilatura() -> Callable[[str], str]:
    import trafilatura

    return lambda html: trafilatura.extract(html, include_comments=False, include_tables=True) or ""


def _readability() -> Callable[[str], str]:
    from lxml import html as lxml_html
    from readability import Document

    def run(html: str) -> str:
        summary = Document(html).summary(html_partial=True)
        return "\n".join(t.strip() for t in lxml_html.fromstring(summary).itertext() if t.strip()) if summary else ""

    return run


def _justext() -> Callable[[str], str]:
    import justext

    stoplist = justext.get_stoplist("English")
    return lambda html: "\n".join(
        p.text for p in justext.justext(html.encode("utf-8"), stoplist) if not p.is_boilerplate
    )


def _boilerpy3() -> Callable[[str], str]:
    from boilerpy3 import extractors

    extractor = extractors.ArticleExtractor(raise_on_failure=False)

    def run(html: str) -> str:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):  # parser warnings
            return extractor.get_content(_with_body(html)) or ""

    return run


def _resiliparse() -> Callable[[str], str]:
    from resiliparse.extract.html2text import extract_plain_text

    return lambda html: extract_plain_text(html, main_content=True) or ""


PEERS: dict[str, Callable[[], Callable[[str], str]]] = {
    "trafilatura": _trafilatura,
    "readability-lxml": _readability,
    "justext": _justext,
    "boilerpy3": _boilerpy3,
    "resiliparse": _resiliparse,
}


def load_peers(names: Sequence[str] | None = None) -> tuple[dict[str, Callable[[str], str]], list[str]]:
    """The installed peers among ``names`` (default: all), and notes on the others."""
    loaded, notes = {}, []
    for name in PEERS if names is None else names:
        if name not in PEERS:
            raise ValueError(f"unknown peer {name!r}; choose from {', '.join(PEERS)}")
        try:
            loaded[name] = PEERS[name]()
        except ImportError as error:
            notes.append(f"{name}: skipped, not installed ({error}); pip install 'scrapy-web2text[bench]'")
    return loaded, notes


def kept_by_text(texts: Sequence[str], output: str) -> np.ndarray:
    """Blocks whose text occurs in a peer's output (whitespace-normalised)."""
    haystack = _SPACES.sub(" ", output)
    return np.fromiter((bool(text) and text in haystack for text in texts), bool, len(texts))


# --- the run -----------------------------------------------------------------------


@dataclass
class _Row:
    name: str
    kind: str
    blocks: BlockCounts = field(default_factory=BlockCounts)
    text: TextScores = field(default_factory=TextScores)
    ms: list[float] = field(default_factory=list)
    errors: int = 0

    def as_dict(self, corpus: str, split: str) -> dict:
        scores = {**self.blocks.as_dict(), **self.text.as_dict()}
        return {
            "corpus": corpus,
            "split": split,
            "name": self.name,
            "kind": self.kind,
            "pages": len(self.ms),
            **{k: scores[k] for k in METRICS if k in scores},
            "ms_per_page": statistics.median(self.ms) if self.ms else float("nan"),
            "errors": self.errors,
        }


@dataclass
class BenchmarkResult:
    rows: list[dict]
    notes: list[str]

    def table(self) -> str:
        return format_table(self.rows, self.notes)


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

    ``methods`` default to every registered method, ``peers`` to every peer
    (``[]`` for none); ``limit`` takes the first pages of each split.
    """
    methods = list(method_names() if methods is None else methods)
    labellers, notes = {}, []
    for name in methods:
        labellers[name] = get_method(name)
    peer_functions, peer_notes = load_peers(peers)
    notes.extend(peer_notes)
    rows: list[dict] = []
    for path in data:
        corpus = corpus_name(path)
        table = {name: _Row(name, "method") for name in labellers}
        table.update({name: _Row(name, "peer") for name in peer_functions})
        unavailable: set[str] = set()
        for number, record in enumerate(iter_records(path, split)):
            if limit is not None and number >= limit:
                break
            html, gold = record.get("html") or "", record.get("text") or ""
            clock = time.perf_counter()
            page = parse_page(html)
            parse_ms = 1000 * (time.perf_counter() - clock)
            labels, _ = align_labels(page, gold)
            for name, labeller in labellers.items():
                if name in unavailable:
                    continue
                row = table[name]
                clock = time.perf_counter()
                try:
                    keep = labeller(page, model=model if name.startswith("web2text") else None).keep
                except (FileNotFoundError, ImportError, ValueError) as error:
                    unavailable.add(name)
                    notes.append(f"{name}: skipped on {corpus} ({type(error).__name__}: {error})")
                    continue
                row.ms.append(parse_ms + 1000 * (time.perf_counter() - clock))
                row.blocks.add(keep, labels)
                row.text.add(join_main_text(page, keep), gold)
            for name, function in peer_functions.items():
                row = table[name]
                clock = time.perf_counter()
                try:
                    output = function(html) or ""
                except Exception:  # a peer crashing on a page scores an empty output
                    output = ""
                    row.errors += 1
                row.ms.append(1000 * (time.perf_counter() - clock))
                row.blocks.add(kept_by_text(page.texts, output), labels)
                row.text.add(output, gold)
            if progress and number % 20 == 0:
                print(f"{corpus}/{split}: {number} pages", file=sys.stderr)
        rows.extend(row.as_dict(corpus, split) for name, row in table.items() if name not in unavailable)
    return BenchmarkResult(rows, notes)


# --- output -----------------------------------------------------------------------


def format_table(rows: Sequence[dict], notes: Sequence[str] = ()) -> str:
    lines = []
    header = (
        f"{'system':<20} {'pages':>5} {'acc':>6} {'prec':>6} {'rec':>6} {'F1':>6}"
        f" {'shingF1':>7} {'wordF1':>6} {'ms/page':>8}"
    )
    for corpus in dict.fromkeys((row["corpus"], row["split"]) for row in rows):
        lines += [f"{corpus[0]} ({corpus[1]})", header, "-" * len(header)]
        for row in rows:
            if (row["corpus"], row["split"]) != corpus:
                continue
            name = row["name"] + (" *" if row["kind"] == "peer" else "")
            lines.append(
                f"{name:<20} {row['pages']:>5} {row['accuracy']:>6.3f} {row['precision']:>6.3f} {row['recall']:>6.3f} "
                f"{row['f1']:>6.3f} {row['shingle_f1']:>7.3f} {row['word_f1']:>6.3f} {row['ms_per_page']:>8.1f}"
            )
        lines.append("")
    if any(row["kind"] == "peer" for row in rows):
        lines.append("* peer returning text: a block is kept when its text occurs in the output")
    lines.extend(f"note: {note}" for note in notes)
    return "\n".join(lines)


def format_rst(rows: Sequence[dict]) -> str:
    """reStructuredText list-tables, one per corpus (for docs/baselines.rst)."""
    out = []
    for corpus in dict.fromkeys((row["corpus"], row["split"]) for row in rows):
        out += [
            f".. list-table:: {corpus[0]}, {corpus[1]} split",
            "   :header-rows: 1",
            "",
            "   * - system",
            "     - accuracy",
            "     - precision",
            "     - recall",
            "     - F1",
            "     - shingle F1",
            "     - word F1",
            "     - ms/page",
        ]
        for row in rows:
            if (row["corpus"], row["split"]) == corpus:
                name = row["name"] + (" (peer)" if row["kind"] == "peer" else "")
                out.append(f"   * - {name}")
                out += [f"     - {row[k]:.3f}" for k in METRICS[:-1]]
                out.append(f"     - {row['ms_per_page']:.1f}")
        out.append("")
    return "\n".join(out)


def write_csv(rows: Sequence[dict], path: str | Path) -> None:
    with open(path, "w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]) if rows else ["name"])
        writer.writeheader()
        writer.writerows(rows)


def write_json(result: BenchmarkResult, path: str | Path) -> None:
    Path(path).write_text(json.dumps({"rows": result.rows, "notes": result.notes}, indent=1) + "\n", encoding="utf-8")


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


def add_benchmark_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("--data", nargs="+", required=True, metavar="FILE", help="corpus .jsonl.gz files")
    parser.add_argument("--split", default="test", choices=("train", "validation", "test"))
    parser.add_argument(
        "--methods", nargs="*", metavar="NAME", help=f"methods (default: all of {', '.join(method_names())})"
    )
    parser.add_argument(
        "--peers",
        nargs="*",
        metavar="NAME",
        help=f"peers (default: the installed ones of {', '.join(PEERS)}); give none for no peers",
    )
    parser.add_argument("--limit", type=int, help="first N pages of each split only")
    parser.add_argument("--model", help="Web2Text model name or path for the web2text methods")
    parser.add_argument("--csv", metavar="PATH", help="write the rows as CSV")
    parser.add_argument("--json", metavar="PATH", help="write the rows and notes as JSON")
    parser.add_argument("--plot", metavar="PNG", help="write an F1 vs ms/page plot (needs matplotlib)")
    parser.add_argument("--rst", metavar="PATH", help="write reStructuredText tables")
    return parser


def main(args: argparse.Namespace) -> int:
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
        write_json(result, args.json)
    if args.rst:
        Path(args.rst).write_text(format_rst(result.rows), encoding="utf-8")
    if args.plot and not plot(result.rows, args.plot):
        print("note: matplotlib is not installed; no plot written", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(add_benchmark_arguments(argparse.ArgumentParser(prog="web2text benchmark")).parse_args()))
