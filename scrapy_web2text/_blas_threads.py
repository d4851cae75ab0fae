"""The BLAS thread count that ``WEB2TEXT_BLAS_THREADS`` asks for, read without importing numpy.

:mod:`.labellers.blas` holds BLAS to this count while a page is labelled.  A program that owns its process (the
``web2text`` command) also starts the BLAS library with it, which only an environment variable set before numpy
loads can do: OpenBLAS starts a thread per core as it loads, and each spins for about a tenth of a second of CPU time
before it sleeps, in every process that imports numpy.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

#: Environment variable: BLAS threads while a page is labelled (default 1; "keep" leaves the BLAS library's own
#: setting alone).
BLAS_THREADS_VARIABLE = "WEB2TEXT_BLAS_THREADS"
#: The variable OpenBLAS reads, once, when it loads.
_OPENBLAS_VARIABLE = "OPENBLAS_NUM_THREADS"


def parse_threads(value: int | str | None, name: str = BLAS_THREADS_VARIABLE) -> int | None:
    """A thread count from a setting: ``None`` for ``"keep"``, else a whole number of at least 1; ``ValueError``
    naming ``name`` otherwise."""
    wanted = str(value).strip().lower()
    if wanted == "keep":
        return None
    try:
        count = int(wanted)
    except ValueError:
        count = 0
    if count < 1 or isinstance(value, bool):
        raise ValueError(f"{name} must be a positive integer or 'keep', not {value!r}")
    return count


def requested_threads(setting: int | str | None = None) -> int | None:
    """``setting`` as a thread count, or where it is ``None``, ``$WEB2TEXT_BLAS_THREADS`` (default 1); ``None`` for
    ``keep``."""
    return parse_threads(os.environ.get(BLAS_THREADS_VARIABLE, "1") if setting is None else setting)


def blas_environment(setting: int | str | None = None) -> dict[str, str]:
    """The variable that starts OpenBLAS with ``setting`` threads (``None``: :func:`requested_threads`) in a process
    we start: empty where ``OPENBLAS_NUM_THREADS`` is set already or with ``keep``; ``ValueError`` for a malformed
    count."""
    threads = requested_threads(setting)
    if threads is None or os.environ.get(_OPENBLAS_VARIABLE):
        return {}
    return {_OPENBLAS_VARIABLE: str(threads)}


def start_blas_with_requested_threads() -> None:
    """Set :func:`blas_environment` in this process, for a program that owns it (the processes it starts inherit
    it); nothing changes where numpy is already loaded."""
    if "numpy" not in sys.modules:
        os.environ.update(blas_environment())


_spawning = threading.Lock()


@contextmanager
def spawned_with_blas_threads(setting: int | str | None = None) -> Iterator[None]:
    """Processes spawned inside the ``with`` block start OpenBLAS with :func:`blas_environment`'s count.

    A spawned process inherits this process's environment, and no start method takes one of its own, so the variable
    is in ``os.environ`` for the block only (where it was not set before) and goes away after it.  For worker
    processes that only label pages; the block should do nothing but start them."""
    added = blas_environment(setting)
    with _spawning:
        os.environ.update(added)
        try:
            yield
        finally:
            for name in added:
                os.environ.pop(name, None)
