"""Digest of every validation page's labels and main text, to prove a refactor changes nothing.

    python benchmarks/label_digest.py --write before.json      # on the old code
    python benchmarks/label_digest.py --check before.json      # on the new code: exit 1 on any difference

Only the public API (``scrapy_web2text.extract``) is used, so the script runs on both sides of a change of
layout.  Each page's digest is the SHA-256 of its block labels, block texts and main text.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import sys
from pathlib import Path

from scrapy_web2text import extract

DATA = Path(os.environ.get("WEB2TEXT_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))


def page_digest(html: str, method: str) -> str:
    result = extract(html, method=method)
    digest = hashlib.sha256()
    for block in result.blocks:
        digest.update(f"{block.label}\x00{block.text}\x00{block.probability:.6f}\x01".encode())
    digest.update(result.main_text.encode())
    return digest.hexdigest()


def digests(split: str, methods: list[str]) -> dict[str, str]:
    out = {}
    for path in sorted(DATA.glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as lines:
            for line in lines:
                record = json.loads(line)
                if record.get("split") != split:
                    continue
                for method in methods:
                    out[f"{record['id']}/{method}"] = page_digest(record.get("html") or "", method)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", metavar="JSON", help="write the digests")
    action.add_argument("--check", metavar="JSON", help="compare with digests written before")
    parser.add_argument("--split", default="validation")
    parser.add_argument("--methods", nargs="+", default=["web2text"])
    args = parser.parse_args(argv)
    current = digests(args.split, args.methods)
    if not current:
        print(f"no {args.split} pages under {DATA}", file=sys.stderr)
        return 2
    if args.write:
        Path(args.write).write_text(json.dumps(current, indent=0, sort_keys=True) + "\n")
        print(f"{len(current)} page digests written to {args.write}")
        return 0
    before = json.loads(Path(args.check).read_text())
    changed = sorted(key for key in before.keys() | current.keys() if before.get(key) != current.get(key))
    print(f"{len(current)} pages, {len(changed)} differ" + (f": {', '.join(changed[:20])}" if changed else ""))
    return 1 if changed else 0


if __name__ == "__main__":
    raise SystemExit(main())
