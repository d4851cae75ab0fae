"""The ``sample_markdown`` spider: the ``sample`` crawl with its own threshold and Markdown output.

::

    scrapy crawl sample_markdown -O items_markdown.jsonl

It shows the two per-spider knobs: the ``web2text_threshold`` attribute
(overrides ``WEB2TEXT_THRESHOLD`` for this spider only; ``-a
web2text_threshold=0.7`` does the same from the command line) and
``custom_settings``, here asking for the main content as Markdown too
(``WEB2TEXT_FORMATS``), which adds a ``main_markdown`` field to each HTML
page's item.
"""

from __future__ import annotations

from sample_project.settings import FEED_EXPORT_FIELDS
from sample_project.spiders.sample import SampleSpider


class SampleMarkdownSpider(SampleSpider):
    name = "sample_markdown"

    #: Stricter than the model's own threshold: a block must be more likely content to be kept.
    web2text_threshold = 0.6

    custom_settings = {
        "WEB2TEXT_FORMATS": ["text", "markdown"],
        "FEED_EXPORT_FIELDS": [*FEED_EXPORT_FIELDS, "main_markdown"],
    }
