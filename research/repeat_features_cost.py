"""CPU time of the block and edge features with and without the repeated-unit columns (``features: repeats``).

Parses the first ``--pages`` validation pages of each corpus once, then times ``page_features`` both ways on each
page, interleaved, keeping each page's best of ``--repeat`` runs (this thread's CPU time, so other processes on a
shared machine count little)::

    PYTHONPATH=$PWD WEB2TEXT_BLAS_THREADS=1 python research/repeat_features_cost.py --pages 40
"""

from __future__ import annotations

import argparse
import time

from scrapy_web2text.labellers.web2text.features import page_features
from scrapy_web2text.page import parse_page
from scrapy_web2text.research.corpus import corpus_name, default_data_dir, iter_records


def best(page, repeats: bool, repeat: int) -> float:
    """The least CPU time of ``repeat`` runs of the page's features."""
    times = []
    for _ in range(repeat):
        start = time.thread_time()
        page_features(page, extended=True, repeats=repeats)
        times.append(time.thread_time() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=40, help="validation pages per corpus")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    files = sorted(p for p in default_data_dir().glob("*.jsonl.gz") if "metadata" not in p.name)
    print(f"{'corpus':16s} {'pages':>5s} {'extended ms':>12s} {'repeats ms':>11s} {'extra':>7s}")
    totals = [0.0, 0.0]
    for path in files:
        pages = []
        for record in iter_records(path, "validation"):
            pages.append(parse_page(record.get("html") or ""))
            if len(pages) == args.pages:
                break
        spent = [0.0, 0.0]
        for page in pages:
            spent[0] += best(page, False, args.repeat)
            spent[1] += best(page, True, args.repeat)
        totals = [a + b for a, b in zip(totals, spent)]
        extra = spent[1] / max(spent[0], 1e-9) - 1
        print(f"{corpus_name(path):16s} {len(pages):5d} {1000 * spent[0]:12.1f} {1000 * spent[1]:11.1f} {extra:7.1%}")
    print(f"{'all':16s} {'':5s} {1000 * totals[0]:12.1f} {1000 * totals[1]:11.1f} {totals[1] / totals[0] - 1:7.1%}")


if __name__ == "__main__":
    main()
