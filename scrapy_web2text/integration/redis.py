"""scrapy-redis's scheduler and item pipeline, without Scrapy's deprecation warnings.

scrapy-redis 0.9.1 predates Scrapy 2.13: its ``RedisPipeline`` defines
``process_item(item, spider)`` and returns a Deferred, and its ``Scheduler``
passes ``spider=`` to the stats collector; Scrapy 2.13 and later warn about
all three (``ScrapyDeprecationWarning``).  These two subclasses are the same
components (same settings, same Redis keys, same JSON items) with the current
signatures, and nothing else::

    SCHEDULER = "scrapy_web2text.integration.redis.RedisScheduler"
    DUPEFILTER_CLASS = "scrapy_redis.dupefilter.RFPDupeFilter"
    SCHEDULER_PERSIST = True
    ITEM_PIPELINES = {
        "scrapy_web2text.Web2TextPipeline": 300,
        "scrapy_web2text.integration.redis.RedisItemPipeline": 400,  # after Web2Text
    }

Importing this module needs ``scrapy-redis`` (``pip install scrapy-web2text[redis]``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.threads import deferToThread

from .._extras import missing_extra

try:
    from scrapy_redis.pipelines import RedisPipeline
    from scrapy_redis.scheduler import Scheduler
except ImportError as error:
    raise missing_extra("scrapy-redis", "redis", "scrapy_web2text.integration.redis") from error

if TYPE_CHECKING:
    from scrapy.crawler import Crawler


class RedisItemPipeline(RedisPipeline):
    """Pushes each item, as JSON, to the Redis list ``REDIS_ITEMS_KEY`` (default ``<spider>:items``)."""

    crawler: Crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RedisItemPipeline:
        pipeline = cls.from_settings(crawler.settings)
        pipeline.crawler = crawler
        return pipeline

    async def process_item(self, item: Any) -> Any:  # type: ignore[override]
        # The push runs on a reactor thread, as upstream does: a slow Redis must not stall the crawl.
        return await maybe_deferred_to_future(deferToThread(self._process_item, item, self.crawler.spider))


class _StatsWithoutSpider:
    """The crawler's stats collector, dropping the ``spider=`` argument scrapy-redis still passes."""

    def __init__(self, stats: Any):
        self._stats = stats

    def inc_value(self, key: str, count: int = 1, start: int = 0, spider: Any = None) -> None:
        self._stats.inc_value(key, count, start)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stats, name)


class RedisScheduler(Scheduler):
    """``scrapy_redis.scheduler.Scheduler`` (the queue and dupefilter in Redis) with warning-free stats calls."""

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RedisScheduler:
        scheduler = super().from_crawler(crawler)
        scheduler.stats = _StatsWithoutSpider(crawler.stats)
        return scheduler
