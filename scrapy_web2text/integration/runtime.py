"""What every crawler in the process shares: models, worker threads, one-time notices.

One :class:`Web2TextRuntime` exists per process (:func:`get_runtime`).  A
``CrawlerProcess`` running several spiders, each with the middleware and the
pipeline enabled, loads each model once (:func:`scrapy_web2text.load_model`
caches it) and labels pages in one bounded pool of worker threads, sized by
the largest ``WEB2TEXT_CONCURRENCY`` among its crawlers.

Why threads: a page's labelling is short (milliseconds), its input is already
in memory, and its result must go back into an item object; a thread needs no
pickling of pages and results, and lxml parsing and numpy's matrix products
release the GIL for part of the work, so the reactor keeps downloading while
pages are labelled (see ``benchmarks/crawl_benchmark.py`` for the figures).
Back-pressure comes from Scrapy itself: a response stays in the scraper until
its items are labelled, and ``SCRAPER_SLOT_MAX_ACTIVE_SIZE`` stops downloads
when too many bytes wait there.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import weakref
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

from ..extraction import Extraction, extract
from ..labellers.base import load_labeller_weights
from ..labellers.web2text.network import limit_blas_threads

if TYPE_CHECKING:
    from collections.abc import Awaitable

    from scrapy.crawler import Crawler

    from .settings import Web2TextConfig

logger = logging.getLogger(__name__)

_T = TypeVar("_T")

#: Pages a pool of worker threads labels before it is replaced by fresh threads.
RECYCLE_WORKERS_AFTER = 5_000


def _in_asyncio_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


class Web2TextRuntime:
    """Process-wide state; use :func:`get_runtime`, do not build your own."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._executor: ThreadPoolExecutor | None = None
        self.workers = 0
        self._jobs = 0
        self._components: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()
        self._announced: weakref.WeakSet[Any] = weakref.WeakSet()
        self._notices: set[Any] = set()

    # --- start-up ---------------------------------------------------------

    def start(self, crawler: Crawler, config: Web2TextConfig, component: str) -> Any:
        """Register ``component`` for ``crawler``; load the chosen labeller's weights and size the pool now.

        Called from the components' ``from_crawler``, so missing or corrupt
        weights stop the crawl before the first request, with an error naming
        the file.  Returns the weights (``None`` for labellers without any).
        """
        if self.notice_once(("blas", config.blas_threads)):
            # Here, on the thread that starts the pool: OpenBLAS ignores limits set from worker threads.
            limit_blas_threads(config.blas_threads)
        clock = time.perf_counter()
        model = load_labeller_weights(config.method, config.model)
        model_name = getattr(model, "name", None) or (config.method if model is not None else "none")
        load_ms = 1000 * (time.perf_counter() - clock)
        self.ensure_workers(config.concurrency)
        with self._lock:
            self._components.setdefault(crawler, set()).add(component)
            first = crawler not in self._announced
            self._announced.add(crawler)
        if first:
            logger.info(
                "Web2Text: model %r (%s), method %s, threshold %s, %d worker thread(s)",
                model_name,
                getattr(model, "path", None) or config.model,
                config.method,
                "model default" if config.threshold is None else config.threshold,
                self.workers,
                extra={"spider": getattr(crawler, "spider", None)},
            )
        if crawler.stats is not None:
            crawler.stats.set_value("web2text/model", model_name)
            crawler.stats.max_value("web2text/model_load_ms", round(load_ms, 1))
        return model

    def has_component(self, crawler: Crawler, component: str) -> bool:
        return component in self._components.get(crawler, ())

    def ensure_workers(self, workers: int) -> None:
        """Grow the pool to ``workers`` threads (it never shrinks)."""
        with self._lock:
            if workers <= self.workers and self._executor is not None:
                return
            old = self._executor
            self.workers = max(workers, self.workers)
            self._executor = self._new_executor()
        if old is not None:
            old.shutdown(wait=False)  # jobs already queued there still run

    def _new_executor(self) -> ThreadPoolExecutor:
        return ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="web2text")

    # --- work -------------------------------------------------------------

    def call(self, function: Callable[..., _T], *args: Any) -> Awaitable[_T]:
        """Run ``function(*args)`` on a worker thread; await the result on the reactor."""
        assert self._executor is not None, "Web2TextRuntime.start() was not called"
        retired = None
        with self._lock:
            self._jobs += 1
            if self._jobs >= RECYCLE_WORKERS_AFTER:
                # libxml2 keeps every element and attribute name a thread has
                # parsed for the thread's life (40,000 pages of generated
                # names: +40 MB); fresh threads start with an empty dictionary.
                retired, self._executor = self._executor, self._new_executor()
                self._jobs = 0
        future: Future[_T] = self._executor.submit(function, *args)
        if retired is not None:
            retired.shutdown(wait=False)  # its queued pages still finish
        if _in_asyncio_loop():
            return asyncio.wrap_future(future)
        from twisted.internet import reactor
        from twisted.internet.defer import Deferred

        deferred: Deferred[_T] = Deferred()

        def settle(done: Future[_T]) -> None:
            error = done.exception()
            if error is None:
                reactor.callFromThread(deferred.callback, done.result())  # type: ignore[attr-defined]
            else:
                reactor.callFromThread(deferred.errback, error)  # type: ignore[attr-defined]

        future.add_done_callback(settle)
        return deferred

    async def extract(
        self,
        html: str | bytes,
        url: str | None,
        model: Any,
        config: Web2TextConfig,
        content_type: str | bytes | None = None,
        tree: Any = None,
    ) -> Extraction:
        return await self.call(run_chain, html, url, model, config, content_type, tree)

    def notice_once(self, key: Any) -> bool:
        """True the first time ``key`` is seen in this process."""
        with self._lock:
            if key in self._notices:
                return False
            self._notices.add(key)
            return True


def run_chain(
    html: str | bytes,
    url: str | None,
    model: Any,
    config: Web2TextConfig,
    content_type: str | bytes | None = None,
    tree: Any = None,
) -> Extraction:
    """The worker threads' job: :func:`scrapy_web2text.extract` with the crawler's settings.

    The formats the crawler asked for (Markdown, HTML, title) are computed here too, on the worker thread, so the
    reactor only copies strings into items.
    """
    clock = time.perf_counter()
    result = extract(
        html,
        url,
        threshold=config.threshold,
        model=model,
        method=config.method,
        content_type=content_type,
        tree=tree,
    )
    for name in config.formats:
        getattr(result, name)
    if config.title_field:
        _ = result.title
    if config.block_form != "none":
        result.block_records(config.block_form)
    result.timings["total"] = 1000 * (time.perf_counter() - clock)
    return result


_runtime: Web2TextRuntime | None = None
_runtime_lock = threading.Lock()


def get_runtime() -> Web2TextRuntime:
    """The process's runtime, created on first use."""
    global _runtime
    if _runtime is None:
        with _runtime_lock:
            if _runtime is None:
                _runtime = Web2TextRuntime()
    return _runtime
