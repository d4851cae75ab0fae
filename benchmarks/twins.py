"""What each compiled twin saves: ``extract()`` per page with one twin switched off at a time.

    python benchmarks/twins.py                 # every validation page of ../shared/data, 3 repetitions
    python benchmarks/twins.py --limit 120 --repeat 5 --twins _viterbi _layers

Every configuration runs on a page before the next page (interleaved), a page's time is its fastest repetition in
CPU time of the thread, and each twin's figure is the median over pages of (time without it) / (time with every
twin): the share of ``extract()`` the twin saves.  docs/speed.rst states the rule that keeps a twin.
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
from scrapy_web2text.page.twins import TWINS, twin_bindings  # noqa: E402


def families(chosen: list[str] | None) -> dict[str, list]:
    """Twin (its module's last name) -> what switching it off sets to ``None``, for every twin of the table or those
    ``chosen``."""
    extract(b"<p>warm</p>")  # imports every module that binds a twin
    names = {twin.rpartition(".")[2]: original for original, (twin, _) in TWINS.items()}
    unknown = sorted(set(chosen or ()) - set(names))
    if unknown:
        raise SystemExit(f"no such twin: {', '.join(unknown)} (the table: {', '.join(names)})")
    return {name: twin_bindings(original) for name, original in names.items() if not chosen or name in chosen}


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
    parser.add_argument("--twins", nargs="+", metavar="NAME", help="only these twins (_viterbi _layers ...)")
    args = parser.parse_args(argv)
    chosen = families(args.twins)
    limit_blas_threads(1)
    pages = load_pages(args.corpus, args.split, args.limit)
    if not pages:
        print("no pages: is ../shared/data (or $WEB2TEXT_DATA) there?", file=sys.stderr)
        return 2
    missing = [name for name, switched in chosen.items() if not switched]
    if missing:
        print(f"not built or switched off: {', '.join(missing)}", file=sys.stderr)
        return 2
    base, ratios = [], {name: [] for name in chosen}
    for _, data in pages:
        extract(data)  # caches warm, as in a crawl
        on = run(data, [], args.repeat)
        base.append(on)
        for name, switched in chosen.items():
            ratios[name].append(run(data, switched, args.repeat) / on)
    median = statistics.median(base)
    print(f"{len(pages)} pages, extract() with every twin: median {median:.2f} ms")
    print(f"{'twin switched off':32} {'time / all twins':>17} {'ms saved (median page)':>23}")
    for name, values in ratios.items():
        share = statistics.median(values)
        print(f"{name:32} {share:17.3f} {median * (share - 1):23.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
