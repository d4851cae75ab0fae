"""Throughput of ``web2text warc`` in CPU time per core, beside trafilatura on the same records.

    python benchmarks/warc_benchmark.py [--splits validation test] [--workers 1 2] [--busy]

Writes the pages of the given splits of ``../shared/data`` (1,010 pages of six corpora and many languages for
validation and test) as one gzip WARC, each page a request, a response and a metadata record as crawlers write
them.  Then the command as a user runs it, ``web2text warc`` in a fresh process with no ``WEB2TEXT_*`` variable
set (one worker: the run stays in that process), in records per second of its CPU time, start-up and model load
included, and in MB of HTML per second (the rate in records depends on the pages' size); then, in this process with
nothing set: the runner's own task over the whole archive (reading, decoding, labelling, rows written as JSON Lines),
in records per second of this process's CPU time, and the resident memory after each fifth of the archive, read
twice (the caches of class names fill to their bound in the first pass; flat memory: the second pass no higher than
the first pass's end); a plain trafilatura loop over the same records, timed the same way; and the run on a local
Dask cluster of each ``--workers`` count, in records per second of elapsed time.  ``--busy`` runs a CPU-bound
process on each core meanwhile.
"""

from __future__ import annotations

import argparse
import compileall
import gzip
import io
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
DATA = Path(os.environ.get("WEB2TEXT_DATA", REPO.parent / "shared" / "data"))


def build_warc(path: Path, splits: set[str]) -> tuple[int, int]:
    """Writes the archive; the HTML responses written and their bodies' bytes."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    written = html_bytes = 0
    with path.open("wb") as stream:
        writer = WARCWriter(stream, gzip=True)
        for corpus in sorted(DATA.glob("*.jsonl.gz")):
            with gzip.open(corpus, "rt", encoding="utf-8") as page_lines:
                for line in page_lines:
                    page = json.loads(line)
                    if page["split"] not in splits or not page.get("html"):
                        continue
                    url = page.get("url") or f"http://{page['dataset']}.example/{page['id']}"
                    body = page["html"].encode("utf-8")
                    request = StatusAndHeaders("GET / HTTP/1.1", [("Host", "x")], is_http_request=True)
                    writer.write_record(writer.create_warc_record(url, "request", http_headers=request))
                    headers = [("Content-Type", "text/html; charset=utf-8"), ("Content-Length", str(len(body)))]
                    http = StatusAndHeaders("200 OK", headers, protocol="HTTP/1.1")
                    response = writer.create_warc_record(url, "response", payload=io.BytesIO(body), http_headers=http)
                    meta = io.BytesIO(b"hopsFromSeed: L\n")
                    metadata = writer.create_warc_record(url, "metadata", payload=meta, warc_content_type="text/plain")
                    writer.write_record(response)
                    writer.write_record(metadata)
                    written += 1
                    html_bytes += len(body)
    return written, html_bytes


def rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def runner_in_process(path: Path, pages: int) -> tuple[int, float, list[float]]:
    """The runner's task over the archive in five pieces, twice: rows and CPU seconds of the first pass (the
    element caches cold, as on a new crawl's archive; each row serialised as the client writes it), resident MB after
    each piece of both passes."""
    from scrapy_web2text.batch.runner import Options, extract_piece, row_line, worker_model
    from scrapy_web2text.batch.warc import plan_chunks

    worker_model(None)  # a warm worker has its model: the load is not a record's cost
    pieces = plan_chunks(path, -(-3 * pages // 5))  # planned before the clock starts, as Dask's client does
    rows, memory, clock = 0, [], time.process_time()
    with open(os.devnull, "wb") as out:
        for offset, records in pieces:
            piece = extract_piece(str(path), offset, records, Options())[0]
            for row in piece:  # written as the runner's client writes them
                out.write(row_line(row))
            rows += len(piece)
            memory.append(rss_mb())
    seconds = time.process_time() - clock
    for offset, records in pieces:
        extract_piece(str(path), offset, records, Options())
        memory.append(rss_mb())
    return rows, seconds, memory


def whole_command(path: Path, folder: Path) -> tuple[int, float, float]:
    """``web2text warc`` in a fresh process, as a user types it: rows written, CPU seconds of the process (and any it
    starts), elapsed seconds."""
    output = folder / "command.jsonl"
    # The package's bytecode first, as ``pip install`` writes it: a shell with PYTHONDONTWRITEBYTECODE set would
    # otherwise compile every module again at each start (0.1 to 0.2 s of CPU), which an installed package never does.
    compileall.compile_dir(REPO / "scrapy_web2text", quiet=1)
    environment = {name: value for name, value in os.environ.items() if not name.startswith("WEB2TEXT_")}
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), environment.get("PYTHONPATH")]))
    command = [sys.executable, "-m", "scrapy_web2text.cli", "warc", str(path), "-o", str(output), "--no-progress"]
    before, clock = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run(command, check=True, env=environment, stderr=subprocess.DEVNULL)
    elapsed, after = time.perf_counter() - clock, resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    with output.open("rb") as rows:
        return sum(1 for _ in rows), seconds, elapsed


def trafilatura_loop(path: Path) -> tuple[int, float]:
    import trafilatura

    from scrapy_web2text.batch.warc import read_html

    clock, done = time.process_time(), 0
    for record in read_html(str(path), Counter()):
        trafilatura.extract(record.body, url=record.url)
        done += 1
    return done, time.process_time() - clock


def on_cluster(path: Path, workers: int, folder: Path) -> float:
    from dask.distributed import Client, LocalCluster

    from scrapy_web2text.batch.runner import run, worker_model

    with (
        LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address="127.0.0.1:0") as cluster,
        Client(cluster) as client,
    ):
        client.run(worker_model, None)
        clock = time.perf_counter()
        summary = run([path], folder / f"out-{workers}.jsonl", client=client, show_progress=False)
        return summary.counts["html"] / (time.perf_counter() - clock)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--splits", nargs="+", default=["validation", "test"])
    parser.add_argument("--workers", type=int, nargs="*", default=[1, 2])
    parser.add_argument("--busy", action="store_true", help="a CPU-bound process on each core meanwhile")
    args = parser.parse_args()
    from speed import start_neighbours  # benchmarks/speed.py, beside this script

    neighbours = start_neighbours(os.cpu_count() if args.busy else 0)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "pages.warc.gz"
        pages, html_bytes = build_warc(path, set(args.splits))
        megabytes = html_bytes / 1e6  # records/s depends on the pages' size: MB/s of HTML is printed beside it
        print(f"WARC: {pages} HTML responses ({3 * pages} records), {megabytes:.1f} MB of HTML, "
              f"{path.stat().st_size / 1e6:.1f} MB gzip; {len(neighbours)} busy neighbour(s), "
              f"{os.cpu_count()} CPU(s)")  # fmt: skip
        rows, seconds, elapsed = whole_command(path, Path(folder))
        print(f"web2text warc command, fresh process, start-up included: {rows / seconds:.1f} records/s per core "
              f"of CPU time, {megabytes / seconds:.1f} MB of HTML/s ({rows} rows, {seconds:.1f} s CPU, "
              f"{elapsed:.1f} s elapsed)")  # fmt: skip
        rows, seconds, memory = runner_in_process(path, pages)
        print(f"web2text warc task, warm process: {rows / seconds:.1f} records/s per core of CPU time, "
              f"{megabytes / seconds:.1f} MB of HTML/s ({rows} rows)")  # fmt: skip
        print("  resident MB after each fifth, two passes: " + ", ".join(f"{mb:.0f}" for mb in memory))
        done, seconds_traf = trafilatura_loop(path)
        print(f"trafilatura loop, 1 process: {done / seconds_traf:.1f} records/s per core of CPU time, "
              f"{megabytes / seconds_traf:.1f} MB of HTML/s")  # fmt: skip
        print(f"  ratio of CPU time per record, web2text / trafilatura: {(seconds / rows) / (seconds_traf / done):.2f}")
        for workers in args.workers:
            rate = on_cluster(path, workers, Path(folder))
            print(f"Dask, {workers} worker(s): {rate:.1f} records/s elapsed ({rate / workers:.1f} per worker)")
        print(f"peak resident MB of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3:.0f}")


if __name__ == "__main__":
    main()
