"""``web2text evaluate``: block- and text-level scores and timings per corpus.

Each page runs through the whole chain from its HTML, timed by stage;
gold block labels come from the alignment (:mod:`scrapy_web2text.alignment`)
of the corpus' gold text with the page's blocks.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from .alignment import AlignmentReport, align_labels
from .corpus import corpus_name, iter_records
from .extraction import join_main_text
from .methods import get_method
from .metrics import BlockCounts, TextScores
from .parsing import parse_page


@dataclass
class CorpusResult:
    corpus: str
    split: str
    method: str
    pages: int = 0
    blocks: BlockCounts = field(default_factory=BlockCounts)
    text: TextScores = field(default_factory=TextScores)
    alignment: AlignmentReport = field(default_factory=AlignmentReport)
    #: Per page, ms: parsing + features, then network + Viterbi.
    front_ms: list[float] = field(default_factory=list)
    back_ms: list[float] = field(default_factory=list)

    def as_dict(self) -> dict:
        front = statistics.median(self.front_ms) if self.front_ms else 0.0
        back = statistics.median(self.back_ms) if self.back_ms else 0.0
        total = statistics.median([a + b for a, b in zip(self.front_ms, self.back_ms)]) if self.front_ms else 0.0
        return {
            "corpus": self.corpus,
            "split": self.split,
            "method": self.method,
            "pages": self.pages,
            **self.blocks.as_dict(),
            **self.text.as_dict(),
            "label_coverage": self.alignment.coverage,
            "label_purity": self.alignment.purity,
            "median_ms": total,
            "median_ms_parse_features": front,
            "median_ms_network_viterbi": back,
        }


def evaluate_records(
    records: Iterable[dict],
    corpus: str,
    split: str,
    *,
    method: str = "web2text",
    model=None,
    threshold: float | None = None,
) -> CorpusResult:
    labeller = get_method(method)
    result = CorpusResult(corpus, split, method)
    for record in records:
        clock = time.perf_counter()
        page = parse_page(record.get("html") or "")
        parse_ms = 1000 * (time.perf_counter() - clock)
        gold_labels, report = align_labels(page, record.get("text") or "")
        clock = time.perf_counter()
        labelling = labeller(page, model=model, threshold=threshold)
        labelling_ms = 1000 * (time.perf_counter() - clock)
        features_ms = labelling.timings.get("features", 0.0)
        result.front_ms.append(parse_ms + features_ms)
        result.back_ms.append(labelling_ms - features_ms)
        result.pages += 1
        result.blocks.add(labelling.keep, gold_labels)
        result.text.add(join_main_text(page, labelling.keep), record.get("text") or "")
        result.alignment += report
    return result


def evaluate_files(paths: Iterable[str], split: str, **options) -> list[CorpusResult]:
    results = []
    for path in paths:
        corpus = corpus_name(path)
        records = iter_records(path, split)
        results.append(evaluate_records(records, corpus, split, **options))
    return results


COLUMNS = (
    ("corpus", "corpus", "{}"),
    ("pages", "pages", "{}"),
    ("accuracy", "acc", "{:.3f}"),
    ("precision", "prec", "{:.3f}"),
    ("recall", "rec", "{:.3f}"),
    ("f1", "F1", "{:.3f}"),
    ("shingle_f1", "shingleF1", "{:.3f}"),
    ("word_f1", "wordF1", "{:.3f}"),
    ("median_ms", "ms/page", "{:.1f}"),
    ("median_ms_parse_features", "parse+feat", "{:.1f}"),
    ("median_ms_network_viterbi", "net+viterbi", "{:.1f}"),
    ("label_coverage", "lblCov", "{:.3f}"),
    ("label_purity", "lblPur", "{:.3f}"),
)


def format_table(rows: list[dict], columns=COLUMNS) -> str:
    cells = [[title for _, title, _ in columns]]
    cells += [[fmt.format(row[key]) for key, _, fmt in columns] for row in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(columns))]
    lines = [
        "  ".join(cell.rjust(width) if i else cell.ljust(width) for i, (cell, width) in enumerate(zip(line, widths)))
        for line in cells
    ]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)
