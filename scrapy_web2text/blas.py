"""How many threads BLAS may use: a process-wide policy, set by whatever owns the process or the labelling threads.

The networks multiply tiny matrices (hundreds of blocks × 50 channels): OpenBLAS's thread start-up then dominates,
and on a busy two-core machine its spinning threads made the networks many times slower.  A limit scoped to each call
does not work either: OpenBLAS ignores thread-count changes made from worker threads, where Scrapy labels pages.  So
the limit is set from the starting thread by what owns the labelling: the Scrapy runtime when it starts its pool
(``integration/runtime.py``, ``integration/pools.py``: the ``WEB2TEXT_BLAS_THREADS`` setting), the ``web2text``
command and the benchmarks.  A program that only calls :func:`~scrapy_web2text.extract` keeps its own BLAS setting
unless it sets the environment variable (then applied when the package is imported) or calls
:func:`limit_blas_threads` itself.
"""

from __future__ import annotations

import os

import numpy  # noqa: F401 - loads the BLAS library before its threads are limited
from threadpoolctl import threadpool_limits

#: Environment variable: BLAS threads where the project owns the process or the threads (default 1; "keep"
#: leaves the BLAS library's own setting alone).
BLAS_THREADS_VARIABLE = "WEB2TEXT_BLAS_THREADS"


def limit_blas_threads(threads: int | str | None = None) -> None:
    """Set BLAS to ``threads`` threads (default ``$WEB2TEXT_BLAS_THREADS``, else 1), process-wide; ``"keep"``
    leaves the BLAS library's own setting alone."""
    wanted = str(os.environ.get(BLAS_THREADS_VARIABLE, "1") if threads is None else threads).strip().lower()
    if wanted == "keep":
        return
    try:
        count = max(int(wanted), 1)
    except ValueError:
        raise ValueError(f"{BLAS_THREADS_VARIABLE} must be a positive integer or 'keep', not {wanted!r}") from None
    threadpool_limits(limits=count, user_api="blas")


if BLAS_THREADS_VARIABLE in os.environ:  # the user asked for it by name; otherwise importing changes nothing
    limit_blas_threads()
