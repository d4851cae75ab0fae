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

import logging
from typing import TYPE_CHECKING, Any

from scrapy.utils.asyncio import create_looping_call
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

logger = logging.getLogger(__name__)


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


#: Seconds between two looks at the shared queue by a worker with nothing to download (``WEB2TEXT_REDIS_IDLE_POLL``).
DEFAULT_IDLE_POLL = 0.5


class RedisScheduler(Scheduler):
    """``scrapy_redis.scheduler.Scheduler`` (the queue and dupefilter in Redis) with warning-free stats calls, and a
    worker that looks at the shared queue every ``WEB2TEXT_REDIS_IDLE_POLL`` seconds while it has nothing to do.

    Scrapy's engine asks an idle worker's scheduler for requests only on its heartbeat, every 5 seconds: requests
    the other workers queued meanwhile wait, and on a fast site a worker that started a moment later may get none
    at all.  When this worker downloads nothing and the shared queue holds requests, the scheduler takes one and
    hands it to the engine (``engine.crawl``), which then keeps pulling from the queue as a busy worker does.
    ``0`` turns this off.
    """

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RedisScheduler:
        scheduler = super().from_crawler(crawler)
        scheduler.stats = _StatsWithoutSpider(crawler.stats)
        scheduler.crawler = crawler
        poll = crawler.settings.get("WEB2TEXT_REDIS_IDLE_POLL", DEFAULT_IDLE_POLL)
        try:
            scheduler.idle_poll = float(poll)
        except (TypeError, ValueError):
            raise ValueError(f"WEB2TEXT_REDIS_IDLE_POLL must be a number of seconds, not {poll!r}") from None
        scheduler._poller = None
        scheduler._handed_over = set()
        return scheduler

    def open(self, spider: Any) -> Any:
        opened = super().open(spider)
        if self.idle_poll > 0:
            try:
                # Scrapy's own looping call: asyncio's loop or Twisted's reactor, whichever the crawl runs on.
                self._poller = create_looping_call(self._hand_over_if_idle)
                self._poller.start(self.idle_poll, now=False)
            except RuntimeError as error:  # opened outside a running crawl (no reactor, no loop): nothing to wake
                self._poller = None
                logger.debug("Web2Text: no shared-queue poll: %s", error)
        return opened

    def close(self, reason: str) -> Any:
        if self._poller is not None and self._poller.running:
            self._poller.stop()
        return super().close(reason)

    def enqueue_request(self, request: Any) -> bool:
        if id(request) in self._handed_over:  # already through the duplicate filter once: straight back to the queue
            self._handed_over.discard(id(request))
            self.queue.push(request)
            return True
        return super().enqueue_request(request)

    def _hand_over_if_idle(self) -> None:
        try:
            engine = getattr(self.crawler, "engine", None)
            if engine is None or engine.downloader.active or not len(self.queue):
                return
            request = self.queue.pop()
            if request is None:
                return
            self._handed_over.add(id(request))
            try:
                engine.crawl(request)
            except Exception:
                self._handed_over.discard(id(request))
                self.queue.push(request)  # never lose it: back to the shared queue
                raise
        except Exception as error:  # a Redis hiccup: the heartbeat still pulls, and the next look may succeed
            logger.warning("Web2Text: looking at the shared queue failed: %s: %s", type(error).__name__, error)
