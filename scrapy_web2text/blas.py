"""BLAS threads while a page is labelled: :mod:`scrapy_web2text.labellers.blas`, importable from here too."""

from .labellers.blas import (  # noqa: F401 - the public names, long imported from here
    BLAS_THREADS_VARIABLE,
    blas_for_labelling,
    labelling_threads,
    limit_blas_threads,
    parse_threads,
    set_labelling_threads,
)
