"""What each compiled twin saves: ``extract()`` per page with one family of twins switched off at a time.

    python benchmarks/twins.py                 # every validation page of ../shared/data, 3 repetitions
    python benchmarks/twins.py --limit 120 --repeat 5

Every configuration runs on a page before the next page (interleaved), a page's time is its fastest repetition in
CPU time of the thread, and each family's figure is the median over pages of (time without it) / (time with every
twin): the share of ``extract()`` the family saves.  docs/speed.rst states the rule that keeps a twin.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from speed import load_pages  # noqa: E402

from scrapy_web2text import extract  # noqa: E402
from scrapy_web2text.blas import limit_blas_threads  # noqa: E402
from scrapy_web2text.labellers.web2text import counts, edges, features, layers, logarithms  # noqa: E402
from scrapy_web2text.page import attributes, cdom  # noqa: E402

decoder = sys.modules["scrapy_web2text.labellers.web2text.viterbi"]

FAMILIES = {
    "walk (_cdom, _numbering)": [(cdom, "compiled_walk")],
    "attribute scan (_attributes)": [(attributes, "SPEEDUPS")],
    "text counts (_counts)": [(counts, "compiled_text_counts")],
    "statistics (_statistics)": [
        (features, "compiled_node_statistics"),
        (features, "compiled_block_rows"),
        (features, "compiled_ancestors"),
        (features, "compiled_extended_columns"),
        (logarithms, "compiled_log1p_counts"),
    ],
    "viterbi (_viterbi)": [(decoder, "compiled_best_path")],
    "layers (_layers)": [(layers, "compiled_shifted_sum"), (layers, "compiled_add_bias")],
    "edges (_edges)": [(edges, "compiled_edge_comparisons")],
}


def run(data: bytes, switched: list, repeat: int) -> float:
    saved = [getattr(module, name) for module, name in switched]
    for module, name in switched:
        setattr(module, name, None)
    try:
        best = float("inf")
        for _ in range(repeat):
            start = time.thread_time()
            extract(data)
            best = min(best, time.thread_time() - start)
        return 1000 * best
    finally:
        for (module, name), value in zip(switched, saved):
            setattr(module, name, value)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus")
    parser.add_argument("--split", default="validation")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    limit_blas_threads(1)
    pages = load_pages(args.corpus, args.split, args.limit)
    if not pages:
        print("no pages: is ../shared/data (or $WEB2TEXT_DATA) there?", file=sys.stderr)
        return 2
    missing = [name for name, switched in FAMILIES.items() if any(getattr(m, n) is None for m, n in switched)]
    if missing:
        print(f"not built or switched off: {', '.join(missing)}", file=sys.stderr)
        return 2
    base, ratios = [], {name: [] for name in FAMILIES}
    for _, data in pages:
        extract(data)  # caches warm, as in a crawl
        on = run(data, [], args.repeat)
        base.append(on)
        for name, switched in FAMILIES.items():
            ratios[name].append(run(data, switched, args.repeat) / on)
    median = statistics.median(base)
    print(f"{len(pages)} pages, extract() with every twin: median {median:.2f} ms")
    print(f"{'family switched off':32} {'time / all twins':>17} {'ms saved (median page)':>23}")
    for name, values in ratios.items():
        share = statistics.median(values)
        print(f"{name:32} {share:17.3f} {median * (share - 1):23.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
