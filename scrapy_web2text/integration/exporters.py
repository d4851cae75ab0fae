"""A CSV feed exporter whose cells hold valid JSON where Scrapy's would hold a Python ``repr``.

Scrapy's :class:`~scrapy.exporters.CsvItemExporter` joins a list of strings with commas and writes any other
list or dict as ``str(value)``: ``[['content', 0.93, '/html/body/p']]``, which no CSV reader can parse back.
:class:`Web2TextCsvItemExporter` writes every list, tuple and dict as one JSON document instead
(``["Ann Lee", "Bo Ek"]``, ``{"label": "article", "probability": 0.93}``), so ``json.loads`` reads each cell back.
The add-on makes it the ``csv`` exporter unless the project names one; without the add-on::

    FEED_EXPORTERS = {"csv": "scrapy_web2text.integration.exporters.Web2TextCsvItemExporter"}
"""

from __future__ import annotations

import json
from typing import Any

from scrapy.exporters import CsvItemExporter


class Web2TextCsvItemExporter(CsvItemExporter):
    """:class:`~scrapy.exporters.CsvItemExporter` with each list, tuple or dict cell as JSON (a field's own
    ``serializer`` still wins)."""

    def _join_if_needed(self, value: Any) -> Any:
        if isinstance(value, (list, tuple, dict)):
            return json.dumps(value, ensure_ascii=False, default=str)
        return value
