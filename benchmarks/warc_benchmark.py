"""Throughput of ``web2text warc`` on a local Dask cluster of 1 and 2 worker processes.

    python benchmarks/warc_benchmark.py [--pages 400] [--chunk-records 50] [--workers 1 2]

Writes the validation pages of ``../shared/data`` as one gzip WARC and extracts it once per worker count; prints
HTML records per second with and without the cluster's start, per worker, and a loop without Dask beside.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
DATA = REPO.parent / "shared" / "data"


def build_warc(path: Path, pages: int) -> int:
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    written = 0
    with path.open("wb") as stream:
        writer = WARCWriter(stream, gzip=True)
        for corpus in sorted(DATA.glob("*.jsonl.gz")):
            with gzip.open(corpus, "rt", encoding="utf-8") as lines:
                for line in lines:
                    page = json.loads(line)
                    if page["split"] != "validation" or not page.get("html"):
                        continue
                    url = page.get("url") or f"http://{page['dataset']}.example/{page['id']}"
                    body = page["html"].encode("utf-8")
                    request = StatusAndHeaders("GET / HTTP/1.1", [("Host", "x")], is_http_request=True)
                    writer.write_record(writer.create_warc_record(url, "request", http_headers=request))
                    headers = [("Content-Type", "text/html; charset=utf-8"), ("Content-Length", str(len(body)))]
                    http = StatusAndHeaders("200 OK", headers, protocol="HTTP/1.1")
                    writer.write_record(
                        writer.create_warc_record(url, "response", payload=io.BytesIO(body), http_headers=http)
                    )
                    meta = io.BytesIO(b"hopsFromSeed: L\n")
                    writer.write_record(
                        writer.create_warc_record(url, "metadata", payload=meta, warc_content_type="text/plain")
                    )
                    written += 1
                    if written >= pages:
                        return written
    return written


def single_process(path: Path, model: str | None) -> tuple[int, float]:
    from scrapy_web2text.batch.runner import Options, extract_piece, worker_model

    worker_model(model)  # load outside the timing, as a warm worker has
    clock = time.perf_counter()
    rows, _counts = extract_piece(str(path), 0, 10**9, Options(model=model))
    return len(rows), time.perf_counter() - clock


def on_cluster(path: Path, workers: int, chunk_records: int, model: str | None, folder: Path) -> dict:
    from dask.distributed import Client, LocalCluster

    from scrapy_web2text.batch.runner import Options, run, worker_model

    started = time.perf_counter()
    with (
        LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0"
        ) as cluster,
        Client(cluster) as client,
    ):
        client.run(worker_model, model)  # every worker loads the model before the clock starts
        up = time.perf_counter()
        summary = run(
            [path], folder / f"out-{workers}.jsonl", client=client, options=Options(model=model),
            chunk_records=chunk_records, show_progress=False,
        )  # fmt: skip
        done = time.perf_counter()
    return {"html": summary.counts["html"], "total_s": done - started, "extract_s": done - up}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=400)
    parser.add_argument("--chunk-records", type=int, default=60, help="records per task (3 per page)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--model", default=None, help="model name or path (default: the packaged model)")
    args = parser.parse_args()
    os.environ.setdefault("WEB2TEXT_BLAS_THREADS", "1")
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        path = folder / "validation.warc.gz"
        pages = build_warc(path, args.pages)
        print(f"WARC: {pages} HTML responses ({3 * pages} records), {path.stat().st_size / 1e6:.1f} MB gzip")
        rows, seconds = single_process(path, args.model)
        print(f"no Dask, 1 process: {rows / seconds:.1f} records/s")
        figures = Counter()
        for workers in args.workers:
            result = on_cluster(path, workers, args.chunk_records, args.model, folder)
            rate = result["html"] / result["extract_s"]
            figures[workers] = rate
            print(
                f"{workers} worker(s): {rate:.1f} records/s ({rate / workers:.1f} per core) extracting; "
                f"{result['html'] / result['total_s']:.1f} records/s with cluster start ({result['total_s']:.1f} s)"
            )
        if 1 in figures and 2 in figures:
            print(f"speed-up 2 workers / 1 worker: {figures[2] / figures[1]:.2f} (on {os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
