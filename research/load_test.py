"""Load test: a loopback crawl of 10,000 pages with the Web2Text middleware on.

    python research/load_test.py [--pages 10000] [--model PATH_OR_NAME] [--concurrency 32]

A server process on 127.0.0.1 (only) generates article pages on demand
(:func:`tests.site.article_page`) and counts the
ones it serves; the crawler process fetches every page once with
:class:`~scrapy_web2text.Web2TextSpiderMiddleware` enabled and counts the
items that come out of the engine with a ``main_text`` field.  Printed:

* items in/out: pages served by the server, items scraped, items carrying
  ``main_text``, ``web2text/items`` and ``web2text/errors``;
* RSS of the crawler process after 2,000, 5,000 and 10,000 items, as is
  and "in use" (after ``gc.collect()`` and glibc's ``malloc_trim(0)``, which
  hand back memory freed after a burst of queued pages); each must stay
  within 10 % of the 2,000 figure;
* open file descriptors and threads at start, at each mark and after the
  crawl: descriptors at a mark at most the reactor's own plus one socket
  per request in flight, after the crawl no more than at the first mark;
  threads constant between the marks, and after the crawl no more than at
  the start plus the Web2Text worker pool (it lives as long as the
  process, by design);
* pages per second.

Exit status 0 when every check holds, 1 otherwise.  The model defaults to
the packaged one when present, else an untrained model saved to a temporary
folder (the labelling work per page is the same).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

MARKS = (2_000, 5_000, 10_000)
#: RSS is also sampled every this many items, for the curve.
EVERY = 1_000


# --- the server process -------------------------------------------------------


def serve() -> None:
    """Serve /article/N.html on 127.0.0.1; /__stats returns the counts as JSON."""
    from tests.site import article_page

    served: set[int] = set()
    hits = [0]
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:  # noqa: N802
            if self.path == "/__stats":
                with lock:
                    body = json.dumps({"served": len(served), "hits": hits[0]}).encode()
                status, kind = 200, "application/json"
            else:
                try:
                    number = int(self.path.removeprefix("/article/").removesuffix(".html"))
                except ValueError:
                    number = -1
                if number < 0:
                    body, status, kind = b"<html><body>Not found</body></html>", 404, "text/html"
                else:
                    html, _ = article_page(number, random.Random(number))
                    body, status, kind = html.encode("utf-8"), 200, "text/html; charset=utf-8"
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            if status == 200 and self.path != "/__stats":
                with lock:
                    served.add(number)
                    hits[0] += 1

        def log_message(self, format, *args) -> None:  # noqa: A002
            pass

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = 256

    server = Server(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


# --- the crawler process ------------------------------------------------------


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def thread_count() -> int:
    return len(os.listdir("/proc/self/task"))


def _fd_targets() -> list[str]:
    targets = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            targets.append(os.readlink(f"/proc/self/fd/{fd}").split(":")[0])
        except OSError:
            pass
    return targets


def trimmed_rss_mb() -> float:
    """RSS after a full garbage collection and glibc's ``malloc_trim(0)``.

    Freed memory that the allocator keeps for reuse (it stays in RSS after
    a burst of pages waiting to be labelled) is handed back first, so this
    figure follows the memory actually in use: a leak grows it, a high-water
    mark does not.
    """
    import ctypes
    import gc

    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
    return rss_mb()


def snapshot(trim: bool = False) -> dict:
    taken = {"rss_mb": round(rss_mb(), 1), "fds": open_fds(), "threads": thread_count(), "time": time.perf_counter()}
    taken["trimmed_mb"] = round(trimmed_rss_mb(), 1) if trim else taken["rss_mb"]
    return taken


def crawl(
    port: int, pages: int, model: str, concurrency: int, enabled: bool = True, marks=MARKS, extra_settings=None
) -> dict:
    import scrapy
    from scrapy import signals
    from scrapy.crawler import CrawlerProcess

    marks = [mark for mark in marks if mark <= pages] or [pages]
    record: dict = {"marks": {}, "items": 0, "with_text": 0, "numbers": set(), "curve": []}

    class LoadSpider(scrapy.Spider):
        name = "load"

        async def start(self):
            for number in range(pages):
                yield scrapy.Request(f"http://127.0.0.1:{port}/article/{number}.html", cb_kwargs={"number": number})

        def parse(self, response, number):
            yield {"url": response.url, "number": number}

    def item_scraped(item, response, spider):
        record["items"] += 1
        record["numbers"].add(item["number"])
        if isinstance(item.get("main_text"), str):
            record["with_text"] += 1
        if record["items"] in marks:
            record["marks"][record["items"]] = snapshot(trim=True)
        if record["items"] % EVERY == 0:
            from scrapy.utils.trackref import live_refs

            live = {cls.__name__: len(refs) for cls, refs in live_refs.items() if refs}
            live["py_blocks"] = sys.getallocatedblocks()  # Python objects alive: a leak shows here
            record["curve"].append((record["items"], round(rss_mb(), 1), live))

    process = CrawlerProcess(
        {
            "SPIDER_MIDDLEWARES": {"scrapy_web2text.Web2TextSpiderMiddleware": 543},
            "WEB2TEXT_MODEL": model,
            "WEB2TEXT_ENABLED": enabled,
            "WEB2TEXT_INCLUDE_BLOCKS": True,
            "CONCURRENT_REQUESTS": concurrency,
            "CONCURRENT_REQUESTS_PER_DOMAIN": concurrency,
            "ROBOTSTXT_OBEY": False,
            "TELNETCONSOLE_ENABLED": False,
            "LOG_LEVEL": "WARNING",
            "RETRY_ENABLED": False,
            "COOKIES_ENABLED": False,
            "DOWNLOAD_TIMEOUT": 60,
            **(extra_settings or {}),
        }
    )
    crawler = process.create_crawler(LoadSpider)
    crawler.signals.connect(item_scraped, signal=signals.item_scraped)
    record["before"] = snapshot()
    process.crawl(crawler)
    process.start()
    record["after"] = snapshot(trim=True)
    record["after_fd_targets"] = sorted(_fd_targets())
    record["stats"] = {k: v for k, v in crawler.stats.get_stats().items() if isinstance(v, (int, float, str))}
    return record


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Loopback load test of the Web2Text middleware")
    parser.add_argument("--pages", type=int, default=10_000)
    parser.add_argument("--model", help="model name or path (default: packaged model, else untrained)")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--marks", default=",".join(map(str, MARKS)), help="item counts at which RSS is taken")
    parser.add_argument("-s", "--set", action="append", default=[], metavar="NAME=VALUE", help="a Scrapy setting")
    parser.add_argument("--without-web2text", action="store_true", help="the same crawl with the middleware disabled")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve()
        return 0

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from scrapy_web2text import Web2TextModel
    from scrapy_web2text.labellers.web2text.network import PACKAGED_MODELS

    with tempfile.TemporaryDirectory() as tmp:
        model = args.model
        if model is None:
            packaged = PACKAGED_MODELS / "default.npz"
            if packaged.is_file():
                model = str(packaged)
            else:
                model = str(Web2TextModel.initialised(seed=0).save(Path(tmp) / "untrained"))
        server = subprocess.Popen([sys.executable, __file__, "--serve"], stdout=subprocess.PIPE, text=True)
        try:
            port = int(server.stdout.readline())
            marks = tuple(int(mark) for mark in args.marks.split(","))
            extra = dict(item.split("=", 1) for item in args.set)
            record = crawl(port, args.pages, model, args.concurrency, not args.without_web2text, marks, extra)
            import urllib.request

            with urllib.request.urlopen(f"http://127.0.0.1:{port}/__stats", timeout=10) as answer:
                served = json.load(answer)
        finally:
            server.terminate()
            server.wait(10)

    stats = record["stats"]
    marks = record["marks"]
    start_time = record["before"]["time"]
    elapsed = record["after"]["time"] - start_time
    print(f"model: {model}")
    print(f"pages requested: {args.pages}, settings: {args.set or 'defaults'}")
    print(f"items in  (pages served by the server): {served['served']} distinct, {served['hits']} responses")
    print(
        f"items out (item_scraped): {record['items']} ({len(record['numbers'])} distinct), "
        f"with main_text: {record['with_text']}"
    )
    print(
        f"web2text/items: {stats.get('web2text/items', 0)}, web2text/pages: {stats.get('web2text/pages', 0)}, "
        f"web2text/errors: {stats.get('web2text/errors', 0)}, finish_reason: {stats.get('finish_reason')}"
    )
    print(f"{'mark':>8} {'RSS MB':>8} {'in use':>8} {'fds':>5} {'threads':>8} {'seconds':>8}")
    rows = [("start", record["before"])] + [(str(k), v) for k, v in sorted(marks.items())]
    rows.append(("after", record["after"]))
    for name, snap in rows:
        print(
            f"{name:>8} {snap['rss_mb']:8.1f} {snap['trimmed_mb']:8.1f} {snap['fds']:5d} {snap['threads']:8d} "
            f"{snap['time'] - start_time:8.1f}"
        )
    print(f"pages/s: {record['items'] / elapsed:.1f} over {elapsed:.1f} s")
    print("RSS curve (items: MB, live Scrapy objects):")
    for items, rss, live in record["curve"]:
        print(f"  {items:>6}: {rss:7.1f}  {live}")
    kinds: dict[str, int] = {}
    for target in record["after_fd_targets"]:
        kinds[target] = kinds.get(target, 0) + 1
    print("fds open after the crawl:", ", ".join(f"{k} x{v}" for k, v in sorted(kinds.items())))

    checks = {
        "every served page gave its item": served["served"] == args.pages == record["items"] == len(record["numbers"]),
        "every item carries main_text": record["with_text"] == record["items"],
        "no labelling errors": stats.get("web2text/errors", 0) == 0,
    }
    ordered = [marks[k] for k in sorted(marks)]
    if len(ordered) >= 2:
        base = ordered[0]
        checks["RSS within 10 % of the first mark"] = all(s["rss_mb"] <= 1.10 * base["rss_mb"] for s in ordered[1:])
        checks["RSS in use (after gc + malloc_trim) within 10 % of the first mark"] = all(
            s["trimmed_mb"] <= 1.10 * base["trimmed_mb"] for s in ordered[1:]
        )
        # Sockets come and go with the requests in flight (up to
        # --concurrency of them) and idle keep-alive connections: a leak is
        # growth from the first mark, not the level itself.
        checks["fds never grow past the first mark + one per request in flight"] = all(
            s["fds"] <= base["fds"] + args.concurrency for s in ordered[1:]
        )
        # Every RECYCLE_WORKERS_AFTER pages a fresh pool replaces the old one,
        # whose threads finish their queued pages first: at most one extra pool.
        from scrapy_web2text.integration.runtime import get_runtime as _runtime

        checks["threads never grow past the first mark + one recycled pool"] = all(
            s["threads"] <= base["threads"] + _runtime().workers for s in ordered[1:]
        )
    from scrapy_web2text.integration.runtime import get_runtime

    workers = get_runtime().workers  # the Web2Text pool lives as long as the process, by design
    # The reactor's own descriptors (epoll, waker pipes, the asyncio self-pipe)
    # open with the first request and stay; after the crawl no more may be
    # open than at the first mark, whatever the number of pages.
    first = ordered[0] if ordered else record["before"]
    checks["no fd leak after the crawl"] = record["after"]["fds"] <= first["fds"]
    checks["no thread leak after the crawl (beyond the worker pool)"] = (
        record["after"]["threads"] <= record["before"]["threads"] + workers
    )
    for name, ok in checks.items():
        print(f"[{'ok' if ok else 'FAIL'}] {name}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
