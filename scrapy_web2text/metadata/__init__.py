"""What a page says about itself, beside its main text: title, authors, dates, language, site, description,
canonical URL, image, tags, categories, breadcrumbs, licence (:class:`Metadata`), each value with its source.

This layer reads the parsed tree and the labelled blocks (``page`` and ``labellers`` below it) and is read by
``extraction`` (:attr:`scrapy_web2text.Extraction.metadata`, computed on first access).  Structured data is read
here, microdata by ``extruct`` where the ``metadata`` extra installs it (:mod:`.embedded`); nothing here makes a
network call.
"""

from __future__ import annotations

from .model import FIELDS, LIST_FIELDS, SOURCES, Metadata
from .reader import read_metadata

__all__ = ["FIELDS", "LIST_FIELDS", "SOURCES", "Metadata", "read_metadata"]
