"""A worker of a scrapy-redis crawl set up as docs/distributed.rst says (``python -m tests.redis_spider_worker``).

Arguments: ``WORKER_NAME REDIS_URL MODEL REPORT_PATH LOG_PATH SEEDING [IDLE_POLL]``.  A ``RedisSpider`` waits for
its start URL in the Redis list ``seeded:start_urls``; ``SEEDING`` is ``once`` (the documented override: the start
request goes through the shared duplicate filter) or ``upstream`` (scrapy-redis's own ``dont_filter=True``
request).  No private Scrapy attribute is touched: the workers share the queue with the settings the docs give.
At exit it writes its stats as JSON.
"""

from __future__ import annotations

import json
import sys
import time

import scrapy
from scrapy.crawler import CrawlerProcess
from scrapy_redis.spiders import RedisSpider


class SeededSpider(RedisSpider):
    name = "seeded"
    seeding = "once"

    async def start(self):
        # scrapy-redis 0.9.1 counts MAX_IDLE_TIME_BEFORE_CLOSE from the moment it was imported: a worker whose
        # start-up (model loading included) took longer would close at its first idle moment, before any work.
        self.spider_idle_start_time = int(time.time())
        async for request_or_item in super().start():
            yield request_or_item

    def make_request_from_data(self, data):
        request = super().make_request_from_data(data)
        if self.seeding == "once" and isinstance(request, scrapy.Request):
            # scrapy-redis makes the start request with dont_filter=True: its fingerprint never reaches the shared
            # duplicate filter and the first link back to the start page crawls it again.
            return request.replace(dont_filter=False)
        return request

    def parse(self, response):
        yield {"url": response.url, "worker": self.settings.get("WORKER_NAME")}
        if isinstance(response, scrapy.http.TextResponse):
            yield from response.follow_all(css="a")


def main(worker: str, redis_url: str, model: str, report: str, log_path: str, seeding: str, poll: str = "0.5") -> None:
    settings = {
        # docs/distributed.rst, "Settings" and "Sharing the work".
        "SCHEDULER": "scrapy_web2text.integration.redis.RedisScheduler",
        "DUPEFILTER_CLASS": "scrapy_redis.dupefilter.RFPDupeFilter",
        "SCHEDULER_PERSIST": True,
        "REDIS_URL": redis_url,
        "SPIDER_MIDDLEWARES": {"scrapy_web2text.Web2TextSpiderMiddleware": 543},
        "ITEM_PIPELINES": {
            "scrapy_web2text.Web2TextPipeline": 300,
            "scrapy_web2text.integration.redis.RedisItemPipeline": 400,
        },
        "WEB2TEXT_REDIS_IDLE_POLL": float(poll),
        "CONCURRENT_REQUESTS": 4,
        "MAX_IDLE_TIME_BEFORE_CLOSE": 8,
        "WEB2TEXT_MODEL": model,
        "WORKER_NAME": worker,
        "ROBOTSTXT_OBEY": False,
        "DOWNLOAD_DELAY": 0,
        "LOG_LEVEL": "INFO",
        "LOG_FILE": log_path,
        "TELNETCONSOLE_ENABLED": False,
    }
    SeededSpider.seeding = seeding
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(SeededSpider)
    process.crawl(crawler)
    process.start()
    stats = {key: value for key, value in crawler.stats.get_stats().items() if isinstance(value, (int, float, str))}
    with open(report, "w", encoding="utf-8") as out:
        json.dump({"stats": stats}, out)


if __name__ == "__main__":
    main(*sys.argv[1:])
