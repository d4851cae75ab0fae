"""The CSV exporter that writes lists and dicts as JSON cells, and the add-on that makes it the csv exporter."""

from __future__ import annotations

import csv
import io
import json

from scrapy.settings import Settings

from scrapy_web2text import Addon
from scrapy_web2text.integration.addon import CSV_EXPORTER
from scrapy_web2text.integration.exporters import Web2TextCsvItemExporter


def test_lists_and_dicts_go_out_as_json_and_strings_as_they_are():
    item = {
        "url": "https://example.org/a",
        "main_text": 'He said "yes", twice',
        "web2text_blocks": [["content", 0.93, '//*[@id="main"]/p[1]'], ["boilerplate", 0.1, "/html/body/footer"]],
        "web2text_authors": ["Lee, Ann", "Bo Ek"],
        "page_type": {"label": "article", "probability": 0.97},
        "labels": "0110",
    }
    stream = io.BytesIO()
    exporter = Web2TextCsvItemExporter(stream)
    exporter.start_exporting()
    exporter.export_item(item)
    exporter.finish_exporting()
    [row] = csv.DictReader(io.StringIO(stream.getvalue().decode("utf-8")))
    for name in ("web2text_blocks", "web2text_authors", "page_type"):
        assert json.loads(row[name]) == item[name], name
    assert row["main_text"] == item["main_text"] and row["labels"] == "0110"


def test_the_addon_sets_the_csv_exporter_unless_the_project_names_one():
    settings = Settings()
    Addon().update_settings(settings)
    assert settings.getdict("FEED_EXPORTERS")["csv"] == CSV_EXPORTER
    own = Settings({"FEED_EXPORTERS": {"csv": "myproject.exporters.Mine"}})
    Addon().update_settings(own)
    assert own.getdict("FEED_EXPORTERS")["csv"] == "myproject.exporters.Mine"
