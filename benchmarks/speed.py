"""Time per page of ``extract()``, of each stage of the chain, of lxml alone and of trafilatura, in one run.

    python benchmarks/speed.py                       # every validation page of ../shared/data
    python benchmarks/speed.py --corpus wcxb --limit 100 --repeat 5

One process, the same pages, every contender timed on a page before the next page (interleaved), each page
``--repeat`` times; a page's time is its fastest repetition, in CPU time of the thread by default (``--clock wall``
for elapsed time): on a shared machine elapsed time measures the neighbours too.  Each page's first run of
``extract()`` and of trafilatura is printed as well: a page of a site not seen before, whose class and id
descriptions are not cached yet.  Printed: median and 90th
percentile of milliseconds per page for ``extract()``; its stages (decode bytes → text, parse with lxml, CDOM
walk, features, the two CNNs, Viterbi, join into the result); lxml parsing alone; lxml parsing plus a visit of
every element's text and tail (the floor for any extractor on lxml); a crawl's labelling job with the default
settings (``extract()`` plus the item's block records and title); trafilatura's ``extract`` when installed;
the ratios between them; and the peak Python memory per page of ``extract()`` (tracemalloc, a separate pass).
Where the compiled twins are built, ``extract()`` also runs with them switched off ("Python only"), interleaved,
and the median per-page ratio of the two is printed.  ``--languages`` adds rows per corpus and per language of the
gold text (py3langid), ``--language de`` (or ``other``: not English) times only such pages.  ``--metadata`` adds
``extract()`` with :attr:`~scrapy_web2text.Extraction.metadata` read, interleaved too, and its ratio to
``extract()`` alone.
The Web2Text paper's 54 ms per page is printed beside.  Nothing is set for BLAS unless ``--blas-threads`` says so:
``extract()`` runs as a user calls it.  ``--busy`` runs a CPU-bound process on each core meanwhile, a machine with
other work; ``--clock process`` counts every thread's CPU time (BLAS's helper threads too).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from lxml import etree  # noqa: E402

from scrapy_web2text import extract  # noqa: E402
from scrapy_web2text.blas import limit_blas_threads  # noqa: E402
from scrapy_web2text.extraction import build_extraction  # noqa: E402
from scrapy_web2text.labellers.web2text import resolve_model  # noqa: E402
from scrapy_web2text.labellers.web2text.features import page_features  # noqa: E402
from scrapy_web2text.labellers.web2text.viterbi import viterbi  # noqa: E402
from scrapy_web2text.page import Page, decode_html  # noqa: E402
from scrapy_web2text.page.cdom import collect_blocks  # noqa: E402
from scrapy_web2text.page.parse import PARSER_OPTIONS, _parse_tree, _to_utf8  # noqa: E402
from scrapy_web2text.page.twins import TWINS, twin_bindings, twins_in_use  # noqa: E402
from scrapy_web2text.research.corpus import iter_records  # noqa: E402

DATA = Path(os.environ.get("WEB2TEXT_DATA", REPO.parent / "shared" / "data"))
PAPER_MS = 54.0  # Vogels et al. (2018): 54 ms per page, their implementation


def records(corpus: str | None, split: str, data: Path = DATA):
    """The corpus records of ``split`` that have HTML, corpus by corpus (``corpus``: only that one)."""
    for path in sorted(data.glob("*.jsonl.gz")):
        if corpus and path.name.split(".")[0] != corpus:
            continue
        yield from (record for record in iter_records(path, split) if (record.get("html") or "").strip())


def load_pages(corpus: str | None, split: str, limit: int | None) -> list[tuple[str, bytes]]:
    pages = [(record["id"], record["html"].encode("utf-8")) for record in records(corpus, split)]
    return pages[:limit] if limit else pages


def gold_languages(corpus: str | None, split: str) -> dict[str, str]:
    """Each page's language (py3langid on its gold text, the first 1,000 characters), by page id."""
    from scrapy_web2text.labellers.web2text.languages import identify

    return {record["id"]: identify((record.get("text") or "")[:1000]) or "?" for record in records(corpus, split)}


def group_rows(pages: list[tuple[str, bytes]], times: dict[str, list[float]], groups: dict[str, str]) -> list[str]:
    """Per group of pages (corpus, language): pages, median ms of ``extract()`` and of trafilatura and their ratio,
    then the same of the means."""
    members: dict[str, list[int]] = {}
    for index, (page_id, _) in enumerate(pages):
        members.setdefault(groups[page_id], []).append(index)
    lines = []
    for group, indices in sorted(members.items(), key=lambda item: (-len(item[1]), item[0])):
        line = f"  {group:<22} {len(indices):6d}"
        for pick in (statistics.median, statistics.mean):
            ours = pick(times["extract()"][i] for i in indices)
            line += f" {ours:8.2f}"
            if "trafilatura" in times:
                theirs = pick(times["trafilatura"][i] for i in indices)
                line += f" {theirs:8.2f} {ours / theirs:8.2f}"
        lines.append(line)
    return lines


def lxml_parse(data: bytes):
    return etree.fromstring(data, etree.HTMLParser(**PARSER_OPTIONS))


def lxml_parse_and_visit(data: bytes) -> int:
    """Parse, then touch every text node: what any extractor on lxml does at the least."""
    root = lxml_parse(data)
    texts = 0
    if root is not None:
        for element in root.iter():
            if element.text:
                texts += 1
            if element.tail:
                texts += 1
    return texts


#: The clock: CPU time of this thread by default, so that other processes on a shared machine do not count.
CLOCKS = {"cpu": time.thread_time, "process": time.process_time, "wall": time.perf_counter}
clock = time.thread_time


def staged(data: bytes, model) -> dict[str, float]:
    """The chain of ``extract()`` (web2text method), one stage at a time; milliseconds per stage."""
    marks = [clock()]
    html = decode_html(data)
    marks.append(clock())
    source, utf8 = _to_utf8(html)
    root, _ = _parse_tree(utf8)
    marks.append(clock())
    page = Page(source=source)
    if root is not None:
        collect_blocks(page, root)
    marks.append(clock())
    block_x, edge_x = page_features(page, extended=model.extended)
    marks.append(clock())
    unary, pairwise = model.potentials(block_x, edge_x)
    marks.append(clock())
    keep = viterbi(unary, pairwise, model.lam, model.config.get("threshold", 0.5)).astype(bool)
    marks.append(clock())
    build_extraction(page, keep, unary[:, 1])
    marks.append(clock())
    names = ("decode", "parse", "cdom walk", "features", "cnns", "viterbi", "join")
    return {name: 1000 * (marks[i + 1] - marks[i]) for i, name in enumerate(names)}


def python_only(function, *args):
    """``function(*args)`` with the compiled twins switched off in this process (docs/installation.rst): the same
    chain as a package installed without a C compiler, measured in the same run as the compiled one."""
    switched = [binding for original in TWINS for binding in twin_bindings(original)]
    saved = [getattr(module, name) for module, name in switched]
    for module, name in switched:
        setattr(module, name, None)
    try:
        return function(*args)
    finally:
        for (module, name), value in zip(switched, saved):
            setattr(module, name, value)


def crawl_job_with_default_settings():
    """What a crawl's labelling worker runs per page with the default settings: ``extract()``, then the item's
    block records (label, probability, XPath) and title (``integration.chain.run_chain``)."""
    from scrapy.utils.test import get_crawler

    from scrapy_web2text.integration.chain import run_chain
    from scrapy_web2text.integration.settings import Web2TextConfig

    config = Web2TextConfig.from_crawler(get_crawler(settings_dict={}))
    return lambda data: run_chain(data, None, None, config)


def timed(function, *args) -> float:
    start = clock()
    function(*args)
    return 1000 * (clock() - start)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def busy_neighbour() -> None:
    """A CPU-bound process, as a machine running other work has them."""
    while True:
        pass


def start_neighbours(count: int) -> list:
    import multiprocessing

    neighbours = [multiprocessing.Process(target=busy_neighbour, daemon=True) for _ in range(count)]
    for neighbour in neighbours:
        neighbour.start()
    return neighbours


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", help="one corpus (file name without .jsonl.gz); default: all")
    parser.add_argument("--split", default="validation")
    parser.add_argument("--limit", type=int, help="first N pages only")
    parser.add_argument("--repeat", type=int, default=3, help="timings per page and contender; the fastest counts")
    parser.add_argument(
        "--clock",
        choices=sorted(CLOCKS),
        default="cpu",
        help="cpu: this thread's CPU time (default); process: every thread's (BLAS's helpers too); wall: elapsed",
    )
    parser.add_argument(
        "--blas-threads",
        help="set BLAS to this many threads for the whole process first (default: nothing set, as a user calls "
        "extract(); 'keep' too)",
    )
    parser.add_argument(
        "--busy",
        type=int,
        nargs="?",
        const=os.cpu_count(),
        default=0,
        help="run N CPU-bound neighbour processes meanwhile (default without N: one per core)",
    )
    parser.add_argument("--no-memory", action="store_true", help="skip the tracemalloc pass")
    parser.add_argument(
        "--metadata",
        action="store_true",
        help="also time extract() with Extraction.metadata read (docs/metadata.rst), and the ratio (goal <= 1.25)",
    )
    parser.add_argument(
        "--languages",
        action="store_true",
        help="also per language of the gold text (py3langid) and per corpus: extract(), trafilatura, their ratio",
    )
    parser.add_argument(
        "--language", help="only pages whose gold text is in this language (py3langid code; 'other': not English)"
    )
    parser.add_argument("--json", metavar="PATH", help="also write the per-page timings here")
    args = parser.parse_args(argv)
    global clock
    clock = CLOCKS[args.clock]
    if args.blas_threads is not None:
        limit_blas_threads(args.blas_threads)
    neighbours = start_neighbours(args.busy)

    pages = load_pages(args.corpus, args.split, None if args.language else args.limit)
    languages = gold_languages(args.corpus, args.split) if args.languages or args.language else {}
    if args.language:
        wanted = (lambda code: code != "en") if args.language == "other" else (lambda code: code == args.language)
        pages = [page for page in pages if wanted(languages[page[0]])][: args.limit]
    if not pages:
        print(f"no {args.split} pages under {DATA}", file=sys.stderr)
        return 2
    model = resolve_model(None)
    try:
        import trafilatura
    except ImportError:
        trafilatura = None
    contenders = {
        "extract()": lambda data: extract(data),
        "lxml parse": lxml_parse,
        "lxml parse+visit": lxml_parse_and_visit,
    }
    if args.metadata:
        contenders["extract() + metadata"] = lambda data: extract(data).metadata
    crawl_job = crawl_job_with_default_settings()
    contenders["crawl job"] = lambda data: crawl_job(data)
    if any(twins_in_use().values()):
        contenders["extract(), Python only"] = lambda data: python_only(extract, data)
    if trafilatura is not None:
        # trafilatura is handed the decoded text (decoding outside its time); extract() decodes the bytes itself.
        texts = {data: data.decode("utf-8") for _, data in pages}
        contenders["trafilatura"] = lambda data: trafilatura.extract(texts[data])
    for contender in contenders.values():  # warm-up: imports, model load, caches of the first page
        contender(pages[0][1])
    staged(pages[0][1], model)

    times: dict[str, list[float]] = {name: [] for name in contenders}
    # Each page's first run too: a page of a site not seen before, its class and id descriptions not yet cached.
    first_runs: dict[str, list[float]] = {name: [] for name in ("extract()", "trafilatura") if name in contenders}
    stages: dict[str, list[float]] = {}
    for _, data in pages:
        best: dict[str, float] = {}
        best_stages: dict[str, float] = {}
        for repetition in range(args.repeat):
            for name, contender in contenders.items():
                ms = timed(contender, data)
                best[name] = min(best.get(name, float("inf")), ms)
                if repetition == 0 and name in first_runs:
                    first_runs[name].append(ms)
            for name, ms in staged(data, model).items():
                best_stages[name] = min(best_stages.get(name, float("inf")), ms)
        for name, ms in best.items():
            times[name].append(ms)
        for name, ms in best_stages.items():
            stages.setdefault(name, []).append(ms)

    for neighbour in neighbours:
        neighbour.terminate()

    def row(name: str, values: list[float]) -> str:
        quantiles = [statistics.median(values), percentile(values, 0.9), percentile(values, 0.99)]
        return f"  {name:<22} " + " ".join(f"{value:8.2f}" for value in (*quantiles, statistics.mean(values)))

    corpora = sorted({page_id.split("-")[0] for page_id, _ in pages})
    print(
        f"{len(pages)} {args.split} pages ({', '.join(corpora)}), median size "
        f"{statistics.median(len(data) for _, data in pages) / 1024:.0f} KiB; "
        f"fastest of {args.repeat} per page, {args.clock} time, BLAS threads "
        f"{args.blas_threads or 'as a user gets them (none set)'}, {args.busy} busy neighbour(s); "
        f"{os.cpu_count()} CPU(s), Python {sys.version.split()[0]}, lxml {etree.__version__}"
    )
    print(f"  {'ms per page':<22} {'median':>8} {'p90':>8} {'p99':>8} {'mean':>8}")
    for name, values in times.items():
        print(row(name, values))
    for name, values in first_runs.items():
        print(row(f"{name}, first run", values))
    print("  stages of extract():")
    for name, values in stages.items():
        print(row("  " + name, values))
    print(row("  sum of stages", [sum(parts) for parts in zip(*stages.values())]))
    print(f"  {'Web2Text paper':<22} {PAPER_MS:8.2f}")

    def ratio(a: str, b: str, fraction: float | None = None) -> float:
        pick = {None: statistics.median, "mean": statistics.mean}.get(fraction) or (
            lambda values: percentile(values, fraction)
        )
        return pick(times[a]) / pick(times[b])

    print("ratios (same run):")
    print(f"  extract() / lxml parse+visit, median: {ratio('extract()', 'lxml parse+visit'):.2f}  (goal <= 4)")
    if trafilatura is not None:
        print(f"  extract() / trafilatura, median:      {ratio('extract()', 'trafilatura'):.2f}  (goal <= 0.3)")
        print(f"  extract() / trafilatura, mean:        {ratio('extract()', 'trafilatura', 'mean'):.2f}  (goal <= 0.5)")
        print(f"  extract() / trafilatura, p90:         {ratio('extract()', 'trafilatura', 0.9):.2f}")
        print(f"  extract() / trafilatura, p99:         {ratio('extract()', 'trafilatura', 0.99):.2f}")
    if "trafilatura" in first_runs:
        first_ratio = statistics.median(first_runs["extract()"]) / statistics.median(first_runs["trafilatura"])
        print(f"  extract() / trafilatura, first runs:  {first_ratio:.2f}  (median of each page's first run)")
    print(f"  extract() / paper's 54 ms, median:    {statistics.median(times['extract()']) / PAPER_MS:.2f}")
    if args.metadata:
        per_page = [a / b for a, b in zip(times["extract() + metadata"], times["extract()"])]
        print(
            f"  extract() + metadata / extract(), median: {ratio('extract() + metadata', 'extract()'):.3f}  "
            f"(goal <= 1.25; median of per-page ratios {statistics.median(per_page):.3f}, "
            f"90th percentile {percentile(per_page, 0.9):.3f})"
        )
    if any(twins_in_use().values()):
        per_page = [a / b for a, b in zip(times["extract()"], times["extract(), Python only"])]
        print(
            f"  extract() / extract(), Python only: median of per-page ratios {statistics.median(per_page):.3f} "
            f"(10th percentile {percentile(per_page, 0.1):.3f}, 90th {percentile(per_page, 0.9):.3f})"
        )

    if args.languages:
        header = f"{'pages':>6} {'extract':>8} {'trafil.':>8} {'ratio':>8}"
        print(f"per group, ms per page:         {header} (median; goal <= 0.3) {header[7:]} (mean; goal <= 0.5)")
        print("  by corpus:")
        for line in group_rows(pages, times, {page_id: page_id.split("-")[0] for page_id, _ in pages}):
            print(line)
        print("  by language of the gold text:")
        for line in group_rows(pages, times, languages):
            print(line)

    if not args.no_memory:
        peaks = []
        for _, data in pages:
            tracemalloc.start()
            extract(data)
            peaks.append(tracemalloc.get_traced_memory()[1] / 1024)
            tracemalloc.stop()
        print(
            f"peak Python memory per page of extract() (tracemalloc): median {statistics.median(peaks):.0f} KiB, "
            f"p90 {percentile(peaks, 0.9):.0f} KiB, max {max(peaks):.0f} KiB"
        )
    if args.json:
        Path(args.json).write_text(json.dumps({"pages": [page_id for page_id, _ in pages], **times, **stages}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
