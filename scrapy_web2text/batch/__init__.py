"""Batch extraction outside Scrapy: web archives (WARC/ARC) in one process or on a Dask cluster (``web2text warc``).

Needs the ``warc`` extra (``pip install scrapy-web2text[warc]``).  Uses only
the public :func:`scrapy_web2text.extract`; never Scrapy.
"""

#: Pages larger than this many bytes are skipped (``too_large``), as ``WEB2TEXT_MAX_BYTES`` does in crawls.
DEFAULT_MAX_BYTES = 5_000_000
