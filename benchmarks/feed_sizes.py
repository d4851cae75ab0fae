"""Bytes of a feed of N pages with ``web2text_blocks`` in each form (``WEB2TEXT_BLOCKS``).

    python benchmarks/feed_sizes.py                                  # the example site's 21 HTML pages
    python benchmarks/feed_sizes.py --data ../shared/data/dragnet.jsonl.gz --pages 40

Each page becomes the item a crawl of the example project writes (``url``, ``title``, ``main_text``, and the
blocks in the form measured), serialised as the feed exporter does: JSON Lines (``json.dumps``, UTF-8, one line
per item) and CSV (the package's exporter: lists as JSON cells).  "log line" is the longest DEBUG "Scraped from"
line (Scrapy writes the item's ``repr``).  The Markdown and HTML formats are measured as extra fields on top of the
default form.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import time
from pathlib import Path

from scrapy_web2text import extract
from scrapy_web2text.integration.exporters import Web2TextCsvItemExporter

EXAMPLE_SITE = Path(__file__).resolve().parents[1] / "example_project" / "site"


def pages(data: str | None, count: int, split: str) -> list[tuple[str, str]]:
    if data is None:
        return [(path.as_uri(), path.read_text(encoding="utf-8")) for path in sorted(EXAMPLE_SITE.rglob("*.html"))]
    out = []
    with gzip.open(data, "rt", encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            if record.get("split") == split:
                out.append((record.get("url") or record["id"], record["html"]))
                if len(out) == count:
                    break
    return out


def items(results, form: str, formats: tuple[str, ...] = ()) -> list[dict]:
    out = []
    for url, result in results:
        item = {"url": url, "title": result.title, "main_text": result.main_text}
        if form == "0.1":  # the 0.1 form: text, label, probability
            item["web2text_blocks"] = [{k: v for k, v in d.items() if k != "xpath"} for d in result.block_records()]
        elif form != "none":
            item["web2text_blocks"] = result.block_records(form)
        for name in formats:
            item[f"main_{name}"] = getattr(result, name)
        out.append(item)
    return out


def jsonl_bytes(feed: list[dict]) -> int:
    return sum(len((json.dumps(item, ensure_ascii=False) + "\n").encode("utf-8")) for item in feed)


def csv_bytes(feed: list[dict]) -> int:
    stream = io.BytesIO()
    exporter = Web2TextCsvItemExporter(stream, fields_to_export=list(feed[0]) if feed else None)
    exporter.start_exporting()
    for item in feed:
        exporter.export_item(item)
    exporter.finish_exporting()
    return len(stream.getvalue())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", help="a corpus .jsonl.gz (default: the example site)")
    parser.add_argument("--pages", type=int, default=40)
    parser.add_argument("--split", default="validation")
    args = parser.parse_args()
    source = pages(args.data, args.pages, args.split)
    clock = time.perf_counter()
    results = [(url, extract(html, url)) for url, html in source]
    extract_ms = 1000 * (time.perf_counter() - clock) / max(len(source), 1)
    blocks = sum(len(result.blocks) for _, result in results)
    print(f"{len(source)} pages, {blocks} blocks ({args.data or 'example site'}), {extract_ms:.1f} ms/page extract")
    print(f"  {'form':<28} {'JSON Lines':>10}  {'per page':>8}  {'CSV':>10}  {'log line':>8}  {'ms/page':>7}")
    for label, form, formats in (
        ("0.1 (text, no xpath)", "0.1", ()),
        ("full", "full", ()),
        ("compact (0.2 default)", "compact", ()),
        ("labels (default)", "labels", ()),
        ("none", "none", ()),
        ("labels + markdown", "labels", ("markdown",)),
        ("labels + markdown + html", "labels", ("markdown", "html")),
    ):
        clock = time.perf_counter()
        feed = items(results, form, formats)
        size = jsonl_bytes(feed)
        ms = 1000 * (time.perf_counter() - clock) / max(len(source), 1)
        line = max((len(f"Scraped from <200 {item['url']}>\n{item!r}") for item in feed), default=0)
        print(
            f"  {label:<28} {size:>10,d}  {size / max(len(source), 1) / 1024:6.1f} KiB  {csv_bytes(feed):>10,d}  "
            f"{line:>8,d}  {ms:7.2f}"
        )


if __name__ == "__main__":
    main()
