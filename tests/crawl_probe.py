"""A Scrapy extension for the crawl tests: at spider close, dump stats and whether torch was imported."""

from __future__ import annotations

import json
import sys

from scrapy import signals


class CrawlProbe:
    def __init__(self, crawler):
        self.crawler = crawler
        self.path = crawler.settings.get("CRAWL_PROBE_OUTPUT")
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def spider_closed(self, reason):
        stats = {
            key: value for key, value in self.crawler.stats.get_stats().items() if isinstance(value, (int, float, str))
        }
        with open(self.path, "w", encoding="utf-8") as out:
            json.dump({"torch": "torch" in sys.modules, "reason": reason, "stats": stats}, out)
