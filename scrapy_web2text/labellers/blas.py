"""How many threads BLAS may use while a page is labelled: one, whoever calls, unless asked otherwise.

The networks multiply small matrices (hundreds of blocks × 50 to 150 channels).  OpenBLAS splits such a product
over one thread per core, and on a machine with other work running its threads wait for a free core at every
product: a plain :func:`~scrapy_web2text.extract` was several times slower than with one thread.  So every labelling
call holds BLAS to :func:`labelling_threads` threads (default 1) for its own duration and gives the caller's setting
back afterwards: :func:`blas_for_labelling` around the labeller.  That works from any thread (the BLAS libraries
keep one process-wide count, which threadpoolctl reads and sets in a microsecond or two) and in every process, so
scripts, notebooks, web services, process pools and Dask workers get it without a setting.

While labelling calls run, the count is shared: a product the caller computes on another thread at that moment also
runs on the labelling count.  ``WEB2TEXT_BLAS_THREADS`` (environment variable, read at import, or the Scrapy setting
of that name) changes the count during labelling; ``keep`` leaves BLAS alone.  :func:`limit_blas_threads` sets a
process-wide count instead, for programs that own their process (benchmarks).
"""

from __future__ import annotations

import ctypes
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import numpy  # noqa: F401 - loads the BLAS library before threadpoolctl looks for it
from threadpoolctl import ThreadpoolController, threadpool_limits

from .._blas_threads import BLAS_THREADS_VARIABLE, parse_threads, requested_threads  # noqa: F401 - public names


class _LabellingThreads:
    """The count held while labelling calls run, and the callers' counts to give back when the last one ends.

    Calls nest and overlap across threads: the first to start saves the BLAS libraries' counts and sets the
    labelling count, the last to end restores them.
    """

    def __init__(self, threads: int | None) -> None:
        self.threads = threads
        self._lock = threading.Lock()
        self._active = 0
        self._saved: list[int] = []
        self._held: int | None = None
        self._controllers: list | None = None

    def controllers(self) -> list:
        if self._controllers is None:  # found once: scanning the loaded libraries takes a millisecond or two
            self._controllers = [
                _from_any_thread(controller)
                for controller in ThreadpoolController().select(user_api="blas").lib_controllers
            ]
        return self._controllers

    def enter(self) -> None:
        with self._lock:
            if self._active == 0:
                self._held = self.threads
                self._saved = [controller.get_num_threads() for controller in self.controllers()]
                for controller, count in zip(self.controllers(), self._saved):
                    if count != self._held:
                        controller.set_num_threads(self._held)
            self._active += 1

    def exit(self) -> None:
        with self._lock:
            self._active -= 1
            if self._active == 0:
                for controller, count in zip(self.controllers(), self._saved):
                    if count != self._held:
                        controller.set_num_threads(count)

    def after_fork(self) -> None:
        """A forked child has only the forking thread: no call of another thread is running there."""
        self._lock = threading.Lock()
        self._active = 0


class _OpenBLASFromAnyThread:
    """An OpenBLAS library's count, set with ``openblas_set_num_threads_local`` (OpenBLAS 0.3.27 and later):
    ``openblas_set_num_threads``, which threadpoolctl calls, is ignored when it comes from another thread than the
    one that set the count first, and Scrapy and the pools label pages on worker threads."""

    def __init__(self, controller) -> None:
        self.get_num_threads = controller.get_num_threads
        self._set = controller.dynlib.openblas_set_num_threads_local
        self._set.argtypes, self._set.restype = [ctypes.c_int], ctypes.c_int

    def set_num_threads(self, threads: int) -> None:
        self._set(threads)


def _from_any_thread(controller):
    """``controller``, or where it controls an OpenBLAS that has a count settable from any thread, that setter."""
    if controller.internal_api == "openblas" and hasattr(controller.dynlib, "openblas_set_num_threads_local"):
        return _OpenBLASFromAnyThread(controller)
    return controller


_policy = _LabellingThreads(requested_threads())
os.register_at_fork(after_in_child=lambda: _policy.after_fork())


def set_labelling_threads(threads: int | str | None = None) -> None:
    """BLAS threads while a page is labelled, from now on in this process: ``threads`` (``None``:
    ``$WEB2TEXT_BLAS_THREADS``, else 1; ``"keep"``: leave BLAS alone)."""
    _policy.threads = requested_threads(threads)


def labelling_threads() -> int | None:
    """BLAS threads while a page is labelled (``None``: BLAS left alone)."""
    return _policy.threads


@contextmanager
def blas_for_labelling() -> Iterator[None]:
    """Hold BLAS to :func:`labelling_threads` threads for the ``with`` block, from any thread."""
    if _policy.threads is None:
        yield
        return
    _policy.enter()
    try:
        yield
    finally:
        _policy.exit()


def limit_blas_threads(threads: int | str | None = None) -> None:
    """Set BLAS to ``threads`` threads (default ``$WEB2TEXT_BLAS_THREADS``, else 1) process-wide, for good; for
    programs that own their process.  ``"keep"`` leaves the BLAS library's own setting alone."""
    count = requested_threads(threads)
    if count is not None:
        threadpool_limits(limits=count, user_api="blas")
