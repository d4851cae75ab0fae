"""Digest of every validation page's labels and main text, to prove a refactor changes nothing.

    python research/label_digest.py --write before.json        # on the old code
    python research/label_digest.py --check before.json        # on the new code: exit 1 on any difference

Only the public API (``scrapy_web2text.extract``) is used, so the script runs on both sides of a change of
layout.  With ``--write``, each page's digest is the SHA-256 of its block labels, block texts, block probabilities
(to 6 decimals) and main text: ``--check`` then asks for identical pages.

A change that moves the networks' outputs by float rounding only (other sums, the same labels) is checked with
``--write-json``: each page's record is the SHA-256 of its labels, block texts and main text, without the
probabilities, and the probabilities themselves.  ``--check`` on such a file prints
``N pages, K differ in labels/text, max |dp| = X`` and fails when a page's labels or texts differ or when a
probability moved by more than ``--tolerance`` (default 1e-5, the torch-parity tests' bound).
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


def page_record(html: str, method: str) -> tuple[str, dict]:
    """The page's exact digest (probabilities to 6 decimals) and its rounding-tolerant record."""
    result = extract(html, method=method)
    exact, texts = hashlib.sha256(), hashlib.sha256()
    for block in result.blocks:
        exact.update(f"{block.label}\x00{block.text}\x00{block.probability:.6f}\x01".encode())
        texts.update(f"{block.label}\x00{block.text}\x01".encode())
    exact.update(result.main_text.encode())
    texts.update(result.main_text.encode())
    probabilities = [float(block.probability) for block in result.blocks]
    return exact.hexdigest(), {"digest": texts.hexdigest(), "probabilities": probabilities}


def records(split: str, methods: list[str]) -> tuple[dict[str, str], dict[str, dict]]:
    exact, tolerant = {}, {}
    for path in sorted(DATA.glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as lines:
            for line in lines:
                record = json.loads(line)
                if record.get("split") != split:
                    continue
                for method in methods:
                    key = f"{record['id']}/{method}"
                    exact[key], tolerant[key] = page_record(record.get("html") or "", method)
    return exact, tolerant


def check_exact(before: dict[str, str], current: dict[str, str]) -> int:
    changed = sorted(key for key in before.keys() | current.keys() if before.get(key) != current.get(key))
    print(f"{len(current)} pages, {len(changed)} differ" + (f": {', '.join(changed[:20])}" if changed else ""))
    return 1 if changed else 0


def check_tolerant(before: dict[str, dict], current: dict[str, dict], tolerance: float) -> int:
    changed, largest = [], 0.0
    for key in sorted(before.keys() | current.keys()):
        old, new = before.get(key), current.get(key)
        if old is None or new is None or old["digest"] != new["digest"]:
            changed.append(key)
            continue
        for p_old, p_new in zip(old["probabilities"], new["probabilities"]):
            largest = max(largest, abs(p_old - p_new))
    listed = f": {', '.join(changed[:20])}" if changed else ""
    print(f"{len(current)} pages, {len(changed)} differ in labels/text, max |dp| = {largest:.3g}{listed}")
    return 1 if changed or largest > tolerance else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", metavar="JSON", help="write the exact digests")
    action.add_argument("--write-json", metavar="JSON", help="write the label/text digests and the probabilities")
    action.add_argument("--check", metavar="JSON", help="compare with a file written before (either kind)")
    parser.add_argument("--split", default="validation")
    parser.add_argument("--methods", nargs="+", default=["web2text"])
    parser.add_argument("--tolerance", type=float, default=1e-5, help="largest probability change --check allows")
    args = parser.parse_args(argv)
    exact, tolerant = records(args.split, args.methods)
    if not exact:
        print(f"no {args.split} pages under {DATA}", file=sys.stderr)
        return 2
    if args.write or args.write_json:
        target, written = (args.write, exact) if args.write else (args.write_json, tolerant)
        Path(target).write_text(json.dumps(written, indent=0, sort_keys=True) + "\n")
        print(f"{len(written)} page records written to {target}")
        return 0
    before = json.loads(Path(args.check).read_text())
    if all(isinstance(value, str) for value in before.values()):
        return check_exact(before, exact)
    return check_tolerant(before, tolerant, args.tolerance)


if __name__ == "__main__":
    raise SystemExit(main())
