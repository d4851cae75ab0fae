"""Crawl throughput with the Web2Text middleware on and off, in one run (goal: on/off at least 0.95).

    python benchmarks/crawl_benchmark.py --pages 2000

A loopback server serves the validation pages of ``../shared/data`` (``--site generated``: a generated news site)
after ``--delay`` seconds each; each crawl runs in its own subprocess with ``CONCURRENT_REQUESTS=16`` and requests
every page directly.  Printed per mode: pages/second over the whole crawl and after its first fifth (the steady
rate), peak RSS and CPU time; then the ratios on/off.  ``--pool``, ``--threads`` and ``--model`` set
``WEB2TEXT_POOL``, ``WEB2TEXT_CONCURRENCY`` and ``WEB2TEXT_MODEL``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _worker_usage() -> dict:
    """Peak RSS (the largest) and CPU seconds (the sum) of this process's live worker processes, from /proc."""
    import multiprocessing

    peak_kb, ticks = 0, 0
    for worker in multiprocessing.active_children():
        try:
            status = Path(f"/proc/{worker.pid}/status").read_text()
            fields = Path(f"/proc/{worker.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        peak_kb = max([peak_kb] + [int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:")])
        ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return {"worker_peak_rss_mb": peak_kb / 1024, "worker_cpu_s": ticks / os.sysconf("SC_CLK_TCK")}


def child(args: argparse.Namespace) -> None:
    """One crawl; prints a JSON line with pages, seconds and peak RSS."""
    import scrapy
    from scrapy.crawler import CrawlerProcess

    base, pages = args.url, args.pages

    class BenchSpider(scrapy.Spider):
        name = "bench"

        async def start(self):
            for number in range(pages):
                yield scrapy.Request(f"{base}article/{number}.html")

        def parse(self, response):
            # --selector: the spider reads the page with a CSS selector, as most spiders do (parsel then parses it
            # in both modes, and the labelling walks that tree instead of parsing again).
            title = response.css("title::text").get() if args.selector else None
            yield {"url": response.url, "title": title}

    settings = {
        "CONCURRENT_REQUESTS": 16,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 16,
        "DOWNLOAD_DELAY": 0,
        "ROBOTSTXT_OBEY": False,
        "LOG_LEVEL": "WARNING",
        "TELNETCONSOLE_ENABLED": False,
        "WEB2TEXT_MODEL": args.model,
        "WEB2TEXT_CONCURRENCY": args.threads,
        "WEB2TEXT_POOL": args.pool,
    }
    if args.child == "on":
        settings["SPIDER_MIDDLEWARES"] = {"scrapy_web2text.Web2TextSpiderMiddleware": 543}
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(BenchSpider)
    workers: dict = {}
    # Read before the process pool is shut down (engine_stopped): the workers are still there.
    crawler.signals.connect(lambda: workers.update(_worker_usage()), signal=scrapy.signals.spider_closed, weak=False)
    scraped: list[float] = []  # when each item came out: the steady rate leaves the start-up out
    crawler.signals.connect(lambda: scraped.append(time.perf_counter()), signal=scrapy.signals.item_scraped, weak=False)
    process.crawl(crawler)
    clock = time.perf_counter()
    process.start()
    seconds = time.perf_counter() - clock
    stats = crawler.stats.get_stats()
    print(
        json.dumps(
            {
                "mode": args.child,
                "items": stats.get("item_scraped_count", 0),
                "seconds": seconds,
                "labelled": stats.get("web2text/pages", 0),
                "label_ms": stats.get("web2text/time_ms", 0.0),
                "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                "cpu_s": _cpu_seconds(),
                "steady_pages_per_second": steady_rate(scraped),
                **workers,
            }
        )
    )


#: The share of a crawl's first items left out of its steady rate: imports, the engine, a process pool's workers
#: starting (spawn, imports, model) and the first wave of 16 requests.
STEADY_AFTER = 0.2


def steady_rate(times: list[float]) -> float:
    """Items per second from the item at :data:`STEADY_AFTER` of the crawl to the last one: the rate a long crawl
    keeps once started (its start-up is paid once; ``pool_startup`` reports the process pool's)."""
    first = int(len(times) * STEADY_AFTER)
    if len(times) - first < 2 or times[-1] <= times[first]:
        return 0.0
    return (len(times) - 1 - first) / (times[-1] - times[first])


def run_mode(mode: str, url: str, args: argparse.Namespace) -> dict:
    command = [
        sys.executable,
        __file__,
        "--child",
        mode,
        "--url",
        url,
        "--pages",
        str(args.pages),
        "--model",
        args.model,
        "--threads",
        str(args.threads),
        "--pool",
        args.pool,
        *(["--selector"] if args.selector else []),
    ]
    done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    if done.returncode != 0:
        raise SystemExit(f"{mode} crawl failed:\n{done.stderr[-4000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["pages_per_second"] = result["items"] / result["seconds"]
    return result


def validation_site(pages: int):
    """The validation pages of ../shared/data as ``/article/N.html``, cycled to ``pages`` pages."""
    import gzip

    from tests.site import Resource, Site

    data = Path(os.environ.get("WEB2TEXT_DATA", REPO.parent / "shared" / "data"))
    bodies = []
    for path in sorted(data.glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as lines:
            for line in lines:
                record = json.loads(line)
                if record.get("split") == "validation" and (record.get("html") or "").strip():
                    bodies.append(record["html"].encode("utf-8"))
    if not bodies:
        raise SystemExit(f"no validation pages under {data} (use --site generated)")
    site = Site()
    for number in range(pages):
        site.resources[f"/article/{number}.html"] = Resource(bodies[number % len(bodies)])
    return site


def pool_startup(args: argparse.Namespace, site) -> float:
    """Seconds from building a process pool to its first labelled page (spawn, imports, model load)."""
    from scrapy.utils.test import get_crawler

    from scrapy_web2text.integration.pools import ProcessPool
    from scrapy_web2text.integration.settings import Web2TextConfig

    settings = {"WEB2TEXT_MODEL": args.model, "WEB2TEXT_CONCURRENCY": args.threads, "WEB2TEXT_POOL": "process"}
    config = Web2TextConfig.from_crawler(get_crawler(settings_dict=settings))
    clock = time.perf_counter()
    pool = ProcessPool(args.threads, config)
    try:
        pool.label(site.resources["/article/0.html"].body, None, None, config).result()
        return time.perf_counter() - clock
    finally:
        pool.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--delay", type=float, default=0.1, help="server latency per request, seconds")
    parser.add_argument("--model", default=None, help="model name or path (default: packaged default, else untrained)")
    parser.add_argument("--threads", type=int, default=2, help="WEB2TEXT_CONCURRENCY: labelling workers")
    parser.add_argument("--pool", choices=("thread", "process"), default="thread", help="WEB2TEXT_POOL")
    parser.add_argument(
        "--site", choices=("validation", "generated"), default="validation", help="real validation pages or generated"
    )
    parser.add_argument("--selector", action="store_true", help="the spider reads each page with response.css()")
    parser.add_argument("--child", choices=("on", "off"), help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args)

    from scrapy_web2text import Web2TextModel
    from scrapy_web2text.labellers.web2text.network import PACKAGED_MODELS
    from tests.site import LoopbackServer, build_site

    if args.model is None:
        if (PACKAGED_MODELS / "default.npz").exists():
            args.model = "default"
        else:
            args.model = str(Web2TextModel.initialised(seed=0).save(Path(tempfile.mkdtemp()) / "untrained"))
    site = validation_site(args.pages) if args.site == "validation" else build_site(args.pages, seed=0, extras=False)
    sizes = [len(site.resources[f"/article/{n}.html"].body) for n in range(args.pages)]
    print(
        f"{args.pages} {args.site} pages of {sum(sizes) / len(sizes) / 1024:.1f} KiB on average "
        f"(median {sorted(sizes)[len(sizes) // 2] / 1024:.1f} KiB), "
        f"{args.delay * 1000:.0f} ms latency, "
        f"CONCURRENT_REQUESTS=16, model {args.model}, {args.threads} labelling {args.pool}(s), "
        f"{os.cpu_count()} CPU(s), "
        f"spider {'uses' if args.selector else 'does not use'} response.css()"
    )
    if args.pool == "process":
        print(f"  process pool start-up: first page labelled after {pool_startup(args, site):.2f} s")
    results = {}
    with LoopbackServer(site, delay=args.delay) as server:
        for mode in ("off", "on"):
            server_cpu = _cpu_seconds()  # this process serves the pages: its CPU competes with the crawl's
            results[mode] = result = run_mode(mode, server.url, args)
            result["server_cpu_s"] = _cpu_seconds() - server_cpu
            on, process = mode == "on", mode == "on" and args.pool == "process"
            labelled = max(1, result["labelled"])
            print(
                f"  {mode:>3}: {result['items']} items in {result['seconds']:.1f} s = "
                f"{result['pages_per_second']:.1f} pages/s (steady: {result['steady_pages_per_second']:.1f}), "
                f"peak RSS {result['peak_rss_mb']:.0f} MB"
                + (f" (largest worker {result['worker_peak_rss_mb']:.0f} MB)" if process else "")
                + (f", {result['label_ms'] / labelled:.1f} ms a labelled page" if on else "")
                + f", CPU {result['cpu_s']:.1f} s"
                + (f" + workers {result['worker_cpu_s']:.1f} s" if process else "")
                + f" (server {result['server_cpu_s']:.1f} s)"
            )
    ratio = results["on"]["pages_per_second"] / results["off"]["pages_per_second"]
    steady = results["on"]["steady_pages_per_second"] / max(results["off"]["steady_pages_per_second"], 1e-9)
    print(f"  ratio on/off: {ratio:.3f} (goal >= 0.95): {'met' if ratio >= 0.95 else 'NOT met'}")
    print(f"  ratio on/off, steady rates: {steady:.3f} (goal >= 0.95): {'met' if steady >= 0.95 else 'NOT met'}")
    print(json.dumps({"ratio": ratio, "steady_ratio": steady, **results}))


if __name__ == "__main__":
    main()
