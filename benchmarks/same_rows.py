"""Whether a change leaves every output as it was: labels, main text, page type, title and ``web2text warc``'s rows.

``dump`` writes, for the validation and test pages and every ``--train-every``-th training page of ``../shared/data``:
``extract(html, url=url)``'s labels, main text, page type, emptiness and title, then the rows of the runner's task over
the same pages as one gzip WARC, once with the defaults and once with every format and the metadata; ``compare``
prints the pages and rows that differ (exit status 1 if any).  The package is imported from the folder it is run
in, so one copy of the script dumps any checkout::

    (cd ../old-checkout && python ../this-checkout/benchmarks/same_rows.py dump /tmp/before.json)
    python benchmarks/same_rows.py dump /tmp/after.json
    python benchmarks/same_rows.py compare /tmp/before.json /tmp/after.json
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
import uuid
from pathlib import Path

sys.path.insert(0, str(Path.cwd()))

from scrapy_web2text import extract  # noqa: E402
from scrapy_web2text.research.corpus import default_data_dir, iter_records  # noqa: E402

DATE = "2026-01-01T00:00:00Z"


def chosen_pages(train_every: int, limit: int | None = None) -> list[dict]:
    pages = []
    for path in sorted(default_data_dir().glob("*.jsonl.gz")):
        if "metadata" in path.name:
            continue
        training = 0
        for page in iter_records(path):
            if not page.get("html"):
                continue
            if page["split"] == "train":
                training += 1
                if training % train_every:
                    continue
            pages.append(page)
    return pages[:limit]


def write_warc(path: Path, pages: list[dict]) -> None:
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    with path.open("wb") as stream:
        writer = WARCWriter(stream, gzip=True)
        for page in pages:
            url = page.get("url") or f"http://{page['dataset']}.example/{page['id']}"
            http = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8")], protocol="HTTP/1.1")
            body = io.BytesIO(page["html"].encode("utf-8"))
            # The same record id and date in every dump: rows carry them.
            fixed = {"WARC-Record-ID": f"<urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, page['id'])}>", "WARC-Date": DATE}
            record = writer.create_warc_record(url, "response", body, http_headers=http, warc_headers_dict=fixed)
            writer.write_record(record)


def dump(args) -> None:
    from scrapy_web2text.batch.runner import Options, extract_piece

    pages = chosen_pages(args.train_every, args.limit)
    out: dict = {"extract": {}}
    for page in pages:
        result = extract(page["html"], url=page.get("url"))
        page_type = result.page_type
        out["extract"][page["id"]] = {
            "labels": "".join("1" if label == "content" else "0" for label in result.labels),
            "main_text": result.main_text,
            "page_type": None if page_type is None else [page_type[0], float(page_type[1])],
            "empty": result.empty,
            "decoded_again": result.decoded_again,
            "title": result.title,
        }
    with tempfile.TemporaryDirectory() as folder:
        warc = Path(folder) / "pages.warc.gz"
        write_warc(warc, pages)
        for name, options in (("rows", Options()), ("full", Options(("text", "html", "markdown"), metadata=True))):
            rows, counts = extract_piece(str(warc), 0, len(pages), options)
            out[name], out[f"{name}_counts"] = rows, dict(counts)
    Path(args.output).write_text(json.dumps(out, ensure_ascii=False, sort_keys=True, default=str), encoding="utf-8")
    print(f"{len(pages)} pages written to {args.output}")


def compare(args) -> None:
    before, after = (json.loads(Path(path).read_text(encoding="utf-8")) for path in (args.before, args.after))
    differences = 0
    for page_id, expected in before["extract"].items():
        got = after["extract"].get(page_id)
        if got != expected:
            differences += 1
            fields = sorted(key for key in expected if got is None or got.get(key) != expected[key])
            print(f"extract: {page_id} differs in {', '.join(fields)}")
    for name in ("rows", "full", "rows_counts", "full_counts"):
        if before[name] != after[name]:
            differences += 1
            print(f"{name}: differ")
    print(f"{len(before['extract'])} pages, {len(before['rows'])} rows: {differences} difference(s)")
    sys.exit(1 if differences else 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    dumping = commands.add_parser("dump")
    dumping.add_argument("output")
    dumping.add_argument("--train-every", type=int, default=10, help="every n-th training page (default 10)")
    dumping.add_argument("--limit", type=int, help="the first this many of those pages (a quick check)")
    comparing = commands.add_parser("compare")
    comparing.add_argument("before")
    comparing.add_argument("after")
    args = parser.parse_args()
    (dump if args.command == "dump" else compare)(args)


if __name__ == "__main__":
    main()
