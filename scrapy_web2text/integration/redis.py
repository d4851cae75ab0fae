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
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from scrapy import Request
from scrapy.utils.asyncio import create_looping_call
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.misc import load_object
from twisted.internet.threads import deferToThread

from .._extras import missing_extra

try:
    from scrapy_redis import defaults
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
        opened = self._open_queue(spider)
        if self.idle_poll > 0:
            try:
                # Scrapy's own looping call: asyncio's loop or Twisted's reactor, whichever the crawl runs on.
                self._poller = create_looping_call(self._hand_over_if_idle)
                self._poller.start(self.idle_poll, now=False)
            except RuntimeError as error:  # opened outside a running crawl (no reactor, no loop): nothing to wake
                self._poller = None
                logger.debug("Web2Text: no shared-queue poll: %s", error)
        return opened

    def _open_queue(self, spider: Any) -> None:
        """scrapy-redis's ``Scheduler.open``, saying "Resuming crawl" through a logger: upstream calls
        ``spider.log``, deprecated since Scrapy 2.13, whenever a worker joins a queue that holds requests."""
        self.spider = spider
        try:
            self.queue = load_object(self.queue_cls)(
                server=self.server,
                spider=spider,
                key=self.queue_key % {"spider": spider.name},
                serializer=self.serializer,
            )
        except TypeError as error:
            raise ValueError(f"Failed to instantiate queue class '{self.queue_cls}': {error}") from None
        if not self.df:
            self.df = load_object(self.dupefilter_cls).from_spider(spider)
        if self.flush_on_start:
            self.flush()
        if len(self.queue):
            logger.info("Resuming crawl (%d requests scheduled)", len(self.queue), extra={"spider": spider})

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


class _SpiderName:
    """What scrapy-redis's queue reads of a spider to push requests without callbacks: its name."""

    def __init__(self, name: str):
        self.name = name


def requeue(server: Any, spider: str, urls: Iterable[str], priority: int = 0) -> int:
    """Push a request for each of ``urls`` with ``dont_filter=True`` to the shared queue ``<spider>:requests``
    (scrapy-redis's default queue and serializer), and return how many: the recovery after a worker's ``SIGKILL``.

    The pages it was crawling have their fingerprints recorded, so a URL pushed to ``<spider>:start_urls`` (which the
    documented spider sends through the duplicate filter) or enqueued again is dropped as already seen; a request
    in the queue itself, with ``dont_filter=True``, is crawled by the next worker that takes it.  ``server``: a
    ``redis.Redis`` client, or a ``redis://`` URL."""
    if isinstance(server, str):
        from scrapy.settings import Settings
        from scrapy_redis.connection import from_settings

        server = from_settings(Settings({"REDIS_URL": server}))
    queue = load_object(defaults.SCHEDULER_QUEUE_CLASS)(
        server=server, spider=_SpiderName(spider), key=defaults.SCHEDULER_QUEUE_KEY
    )
    pushed = 0
    for url in urls:
        url = url.strip()
        if url and not url.startswith("#"):
            queue.push(Request(url, dont_filter=True, priority=priority))
            pushed += 1
    return pushed


def main(argv: list[str] | None = None) -> int:
    """``python -m scrapy_web2text.integration.redis REDIS_URL SPIDER [URL ...]`` (no URL: one a line on stdin)."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(
        prog="python -m scrapy_web2text.integration.redis",
        description="Push URLs, with dont_filter=True, to <spider>:requests: the pages lost with a killed worker.",
    )
    parser.add_argument("redis_url", metavar="REDIS_URL", help="redis://host:6379/0, as REDIS_URL in the settings")
    parser.add_argument("spider", metavar="SPIDER", help="the spider's name (the queue is SPIDER:requests)")
    parser.add_argument("urls", nargs="*", metavar="URL", help="the URLs to crawl again (default: stdin, one a line)")
    args = parser.parse_args(argv)
    pushed = requeue(args.redis_url, args.spider, args.urls or sys.stdin)
    print(f"{pushed} request(s) pushed to {args.spider}:requests", file=sys.stderr)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
