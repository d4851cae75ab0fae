"""One crawler process of a scrapy-redis crawl, for the redis tests (run as ``python -m tests.redis_worker``).

Arguments: ``WORKER_NAME WORKERS REDIS_URL START_URL MODEL REPORT_PATH LOG_PATH``.  The spider waits until
``WORKERS`` workers are up, then follows every link of the loopback site; the queue, the dupefilter and the items
live in Redis, shared with the other workers.
At exit it writes a JSON report: how often this process loaded a model file, its stats, its peak RSS.
"""

from __future__ import annotations

import asyncio
import json
import resource
import sys
import time

import scrapy
from scrapy import signals
from scrapy.core.engine import ExecutionEngine
from scrapy.crawler import CrawlerProcess
from scrapy.exceptions import DontCloseSpider
from scrapy_redis.connection import get_redis_from_settings

from scrapy_web2text.labellers.web2text import network as model_module

loads: list[str] = []
_original_load = model_module.Web2TextModel.load.__func__


def _counting_load(cls, path):
    loads.append(str(path))
    return _original_load(cls, path)


model_module.Web2TextModel.load = classmethod(_counting_load)

# An idle worker looks at the shared queue on the engine's heartbeat, every 5 s; this crawl lasts a few seconds,
# so the test worker beats faster for both workers to take part (a private class attribute: test-only).
ExecutionEngine._SLOT_HEARTBEAT_INTERVAL = 0.25


class SiteSpider(scrapy.Spider):
    """Every worker yields the start URL; the shared Redis dupefilter lets only the first one through."""

    name = "site"
    #: Seconds that the shared queue must stay empty with every worker idle before this worker closes
    #: (a busy worker may still add links); after ``idle_give_up`` seconds idle it closes anyway.
    idle_close_after = 0.5
    idle_give_up = 20.0

    def __init__(self, start_url: str, worker: str, workers: int, **kwargs):
        super().__init__(**kwargs)
        self.start_url, self.worker, self.workers = start_url, worker, workers
        self.idle_since: float | None = None
        self.all_idle_since: float | None = None

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        crawler.signals.connect(spider.on_idle, signal=signals.spider_idle)
        crawler.signals.connect(spider.on_busy, signal=signals.request_reached_downloader)
        crawler.signals.connect(spider.on_closed, signal=signals.spider_closed)
        spider.server = get_redis_from_settings(crawler.settings)
        spider.idle_key = f"{spider.name}:idle-workers"
        return spider

    async def start(self):
        # A start barrier, so that both workers take part from the first page on.
        self.server.incr(f"{self.name}:ready")
        deadline = time.monotonic() + 30
        while int(self.server.get(f"{self.name}:ready")) < self.workers and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        yield scrapy.Request(self.start_url)

    def parse(self, response):
        content_type = response.headers.get(b"Content-Type", b"").decode()
        yield {"url": response.url, "content_type": content_type, "worker": self.worker}
        if isinstance(response, scrapy.http.TextResponse):
            for href in response.css("a::attr(href)").getall():
                yield response.follow(href)

    def on_busy(self):
        self.idle_since = None
        self.server.srem(self.idle_key, self.worker)

    def on_closed(self):
        self.server.sadd(self.idle_key, self.worker)  # a stopped worker adds no more links

    def on_idle(self):
        now = time.monotonic()
        if self.idle_since is None:
            self.idle_since, self.all_idle_since = now, None
        self.server.sadd(self.idle_key, self.worker)
        queued = self.server.zcard(f"{self.name}:requests")  # scrapy-redis's default queue key and sorted-set queue
        if queued or self.server.scard(self.idle_key) < self.workers:
            self.all_idle_since = None
        elif self.all_idle_since is None:
            self.all_idle_since = now
        if now - self.idle_since > self.idle_give_up:
            return
        if self.all_idle_since is None or now - self.all_idle_since < self.idle_close_after:
            raise DontCloseSpider


def peak_rss_mb() -> float:
    """This process's peak RSS (VmHWM: unlike ``ru_maxrss`` it does not inherit the parent's peak across exec)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(worker: str, workers: str, redis_url: str, start_url: str, model: str, report: str, log_path: str) -> None:
    settings = {
        "SCHEDULER": "scrapy_web2text.integration.redis.RedisScheduler",
        "DUPEFILTER_CLASS": "scrapy_redis.dupefilter.RFPDupeFilter",
        "SCHEDULER_PERSIST": True,
        "REDIS_URL": redis_url,
        "SPIDER_MIDDLEWARES": {"scrapy_web2text.Web2TextSpiderMiddleware": 543},
        "ITEM_PIPELINES": {
            "scrapy_web2text.Web2TextPipeline": 300,
            "scrapy_web2text.integration.redis.RedisItemPipeline": 400,
        },
        "WEB2TEXT_MODEL": model,
        "ROBOTSTXT_OBEY": False,
        "DOWNLOAD_DELAY": 0,
        "CONCURRENT_REQUESTS": 4,
        "LOG_LEVEL": "INFO",
        "LOG_FILE": log_path,
        "TELNETCONSOLE_ENABLED": False,
    }
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(SiteSpider)
    reasons: list[str] = []

    def closed(reason: str) -> None:
        reasons.append(reason)

    crawler.signals.connect(closed, signal=signals.spider_closed)  # a strong reference: signals hold weak ones
    process.crawl(crawler, start_url=start_url, worker=worker, workers=int(workers))
    process.start()
    stats = {key: value for key, value in crawler.stats.get_stats().items() if isinstance(value, (int, float, str))}
    summary = {
        "loads": loads,
        "reason": reasons[0] if reasons else None,
        "stats": stats,
        "max_rss_mb": peak_rss_mb(),
        "torch": "torch" in sys.modules,
    }
    with open(report, "w", encoding="utf-8") as out:
        json.dump(summary, out)


if __name__ == "__main__":
    main(*sys.argv[1:])
