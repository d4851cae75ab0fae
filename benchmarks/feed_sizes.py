"""Bytes of a JSON Lines feed of N pages with ``web2text_blocks`` in each form (``WEB2TEXT_BLOCKS``).

    python benchmarks/feed_sizes.py                                  # the example site's 21 HTML pages
    python benchmarks/feed_sizes.py --data ../shared/data/dragnet.jsonl.gz --pages 40

Each page becomes the item a crawl of the example project writes (``url``, ``title``, ``main_text``, and the
blocks in the form measured), serialised as the feed exporter does (``json.dumps``, UTF-8, one line per item).
The Markdown and HTML formats are measured as extra fields on top of the compact form.
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from pathlib import Path

from scrapy_web2text import extract

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


def feed_bytes(results, form: str, formats: tuple[str, ...] = ()) -> int:
    total = 0
    for url, result in results:
        item = {"url": url, "title": result.title, "main_text": result.main_text}
        if form == "0.1":  # the 0.1 form: text, label, probability
            item["web2text_blocks"] = [{k: v for k, v in d.items() if k != "xpath"} for d in result.block_records()]
        elif form != "none":
            item["web2text_blocks"] = result.block_records(form)
        for name in formats:
            item[f"main_{name}"] = getattr(result, name)
        total += len((json.dumps(item, ensure_ascii=False) + "\n").encode("utf-8"))
    return total


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
    for label, form, formats in (
        ("0.1 (text, no xpath)", "0.1", ()),
        ("full", "full", ()),
        ("compact (default)", "compact", ()),
        ("none", "none", ()),
        ("compact + markdown", "compact", ("markdown",)),
        ("compact + markdown + html", "compact", ("markdown", "html")),
    ):
        clock = time.perf_counter()
        size = feed_bytes(results, form, formats)
        ms = 1000 * (time.perf_counter() - clock) / max(len(source), 1)
        print(f"  {label:<28} {size:>10,d} bytes  {size / max(len(source), 1) / 1024:8.1f} KiB/page  {ms:6.2f} ms/page")


if __name__ == "__main__":
    main()
