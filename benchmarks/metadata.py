"""Metadata, field by field: how often this project and trafilatura's ``extract_metadata`` find a value, how often
they agree, and how right both are about dates and authors against the page's own JSON-LD.

    python benchmarks/metadata.py                      # every validation page of ../shared/data
    python benchmarks/metadata.py --corpus wcxb --limit 50 --json metadata.json

One process, the same pages, both tools on a page before the next.  Part 1, on the pages as they are: per field,
the share of pages where each tool found a value, and among the pages where both did, the share where they agree
(dates: the same day; authors, tags, categories: the same set, case-insensitively; URLs: equal without a trailing
slash; text: equal after white space and case are folded).  Part 2, on the pages whose JSON-LD names a publication
date or an author: that JSON-LD is removed from the page first (every ``<script type="application/ld+json">``),
then each tool's date and authors are scored against it: ``found`` (a value at all), ``right`` (the same day; the
same set of names) as a share of those pages, and ``precision`` (right among found).  So the other markup, the
visible byline and the URL are what is measured there.  A last row does the same for the date with every
machine-readable date removed (JSON-LD, the ``<meta>`` date names, ``itemprop`` dates, ``datetime`` attributes) on
the pages where markup states it: what is left is the page as a reader sees it.  Part 3, on the Readability.js
test pages (``readability-metadata.jsonl.gz``, gold reviewed outside this project): date right to the day,
authors right as a set of names ("By" and case removed), and authors given where the gold names none (false);
``--gold-split all`` reports each split.  trafilatura's rows need the ``bench`` extra.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from speed import records  # noqa: E402

from scrapy_web2text import extract  # noqa: E402
from scrapy_web2text.research.corpus import default_data_dir, iter_records  # noqa: E402

DATA = default_data_dir()
#: This project's field -> trafilatura's Document attribute.
FIELD_PAIRS = {
    "title": "title",
    "authors": "author",
    "date_published": "date",
    "site_name": "sitename",
    "description": "description",
    "canonical_url": "url",
    "image": "image",
    "tags": "tags",
    "categories": "categories",
    "license": "license",
    "language": "language",
}
OURS_ONLY = ("date_modified", "breadcrumbs")
_JSON_LD = re.compile(r"<script[^>]*application/ld\+json[^>]*>.*?</script\s*>", re.I | re.S)
#: Machine-readable dates besides JSON-LD: a date-named ``<meta>``, an ``itemprop`` date, a ``datetime`` attribute.
_META = re.compile(r"<meta\b[^>]*>", re.I)
_META_NAME = re.compile(r"""(?:name|property|itemprop|http-equiv)\s*=\s*["']?([^"'\s>]+)""", re.I)
_DATE_ITEMPROP = re.compile(
    r"""itemprop\s*=\s*["']?(?:datePublished|dateModified|dateCreated|uploadDate)\b["']?""", re.I
)
_DATETIME = re.compile(r"""\bdatetime\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+)""", re.I)
MARKUP = ("json-ld", "microdata", "opengraph", "meta")
#: What separates names in a Readability byline, and the byline words before them.
_NAME_SPLIT = re.compile(r"\s*+(?:,|&|\n|\band\b|\bund\b|\bet\b)\s*+", re.I)
_BY_WORD = re.compile(r"^(?:by|von|par|por|written by)\s++", re.I)


def load_pages(corpus: str | None, split: str, limit: int | None) -> list[dict]:
    pages = list(records(corpus, split, DATA))
    return pages[:limit] if limit else pages


def ours(html: str, url: str | None) -> dict:
    return extract(html, url=url).metadata.to_dict()


def theirs(html: str, url: str | None) -> dict | None:
    try:
        from trafilatura.metadata import extract_metadata
    except ImportError:
        return None
    try:
        document = extract_metadata(html, default_url=url)
    except Exception:  # noqa: BLE001 - a peer's failure on one page is that page's empty row
        return {}
    values = {name: getattr(document, attribute, None) for name, attribute in FIELD_PAIRS.items()}
    author = values["authors"]
    values["authors"] = [name.strip() for name in author.split(";") if name.strip()] if author else []
    return values


def _fold(value: str) -> str:
    return " ".join(value.split()).casefold()


def agree(name: str, mine, other) -> bool:
    if name.startswith("date"):
        return str(mine)[:10] == str(other)[:10]
    if isinstance(mine, list) or isinstance(other, list):
        return {_fold(v) for v in mine or []} == {_fold(v) for v in other or []}
    if name in ("canonical_url", "image", "license"):
        return str(mine).rstrip("/") == str(other).rstrip("/")
    if name == "language":
        return str(mine).split("-")[0].lower() == str(other).split("-")[0].lower()
    return _fold(str(mine)) == _fold(str(other))


def json_ld_truth(metadata: dict) -> dict:
    """The date and authors the page's own JSON-LD states (as extruct reads it for this project)."""
    return {
        name: metadata[name] for name in ("date_published", "authors") if metadata["sources"].get(name) == "json-ld"
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", help="one corpus (file name without .jsonl.gz); default: all")
    parser.add_argument("--split", default="validation")
    parser.add_argument("--limit", type=int, help="first N pages only")
    parser.add_argument(
        "--gold-split",
        default="train",
        help="split of the Readability.js gold, or 'all' (validation and test hold 9 and 8 pages only)",
    )
    parser.add_argument("--gold-only", action="store_true", help="part 3 only")
    parser.add_argument("--json", metavar="PATH", help="also write the figures here")
    args = parser.parse_args(argv)
    if args.gold_only:
        for split in gold_splits(args.gold_split):
            readability_gold(split, theirs("<p>x</p>", None) is not None)
        return 0
    pages = load_pages(args.corpus, args.split, args.limit)
    if not pages:
        print(f"no {args.split} pages in {DATA}", file=sys.stderr)
        return 2
    found: Counter = Counter()
    both: Counter = Counter()
    agreed: Counter = Counter()
    scored: Counter = Counter()
    peer = theirs("<html><body><p>x</p></body></html>", None) is not None
    for record in pages:
        html, url = record["html"], record.get("url")
        mine, other = ours(html, url), theirs(html, url) if peer else None
        for name in (*FIELD_PAIRS, *OURS_ONLY):
            has_mine = mine[name] not in (None, [], "")
            found["ours", name] += has_mine
            if other is None or name not in other:
                continue
            has_other = other[name] not in (None, [], "")
            found["trafilatura", name] += has_other
            if has_mine and has_other:
                both[name] += 1
                agreed[name] += agree(name, mine[name], other[name])
        truth = json_ld_truth(mine)
        if truth:
            _score_without_json_ld(_JSON_LD.sub("", html), url, truth, scored, peer)
        if mine["sources"].get("date_published") in MARKUP:
            stripped = {"date_stripped": mine["date_published"]}
            _score_without_json_ld(without_dates(html), url, stripped, scored, peer)
    figures = report(len(pages), found, both, agreed, scored, peer)
    figures["readability_gold"] = {split: readability_gold(split, peer) for split in gold_splits(args.gold_split)}
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


def without_dates(html: str) -> str:
    """``html`` without its machine-readable dates (:data:`MARKUP`): JSON-LD, date-named ``<meta>`` elements,
    ``itemprop`` dates, ``datetime`` attributes."""
    from scrapy_web2text.metadata.written import MODIFIED_NAMES, PUBLISHED_ITEMPROPS, PUBLISHED_NAMES

    names = PUBLISHED_NAMES | MODIFIED_NAMES | PUBLISHED_ITEMPROPS | {"datemodified", "last-modified"}

    def meta(match: re.Match) -> str:
        return "" if any(name.lower() in names for name in _META_NAME.findall(match.group())) else match.group()

    return _DATETIME.sub("", _DATE_ITEMPROP.sub("", _META.sub(meta, _JSON_LD.sub("", html))))


def _score_without_json_ld(stripped: str, url: str | None, truth: dict, scored: Counter, peer: bool) -> None:
    tools = {"ours": ours(stripped, url)}
    if peer:
        tools["trafilatura"] = theirs(stripped, url) or {}
    for name, expected in truth.items():
        scored["pages", name] += 1
        for tool, values in tools.items():
            value = values.get("date_published" if name == "date_stripped" else name)
            if value in (None, [], ""):
                continue
            scored[tool, name, "found"] += 1
            scored[tool, name, "right"] += agree(name, value, expected)


def report(total: int, found: Counter, both: Counter, agreed: Counter, scored: Counter, peer: bool) -> dict:
    def share(part: int, whole: int) -> str:
        return f"{100 * part / whole:5.1f} %" if whole else "    -  "

    print(f"{total} pages; found = share of pages with a value; agree = share of the pages where both found one")
    print(f"{'field':16} {'ours found':>11} {'trafilatura':>12} {'both':>6} {'agree':>8}")
    figures: dict = {"pages": total, "fields": {}, "without_json_ld": {}}
    for name in (*FIELD_PAIRS, *OURS_ONLY):
        theirs_found = share(found["trafilatura", name], total) if peer and name in FIELD_PAIRS else "    -  "
        print(
            f"{name:16} {share(found['ours', name], total):>11} {theirs_found:>12} {both[name]:>6} "
            f"{share(agreed[name], both[name]):>8}"
        )
        figures["fields"][name] = {
            "ours_found": found["ours", name],
            "trafilatura_found": found["trafilatura", name] if peer else None,
            "both": both[name],
            "agree": agreed[name],
        }
    print()
    print("pages whose JSON-LD states the field, scored with that JSON-LD removed from the page:")
    print(f"{'field':16} {'pages':>6} {'tool':>12} {'found':>8} {'right':>8} {'precision':>10}")
    for name in ("date_published", "authors", "date_stripped"):
        pages = scored["pages", name]
        for tool in ("ours", "trafilatura") if peer else ("ours",):
            right, hits = scored[tool, name, "right"], scored[tool, name, "found"]
            print(
                f"{name:16} {pages:>6} {tool:>12} {share(hits, pages):>8} {share(right, pages):>8} "
                f"{share(right, hits):>10}"
            )
            figures["without_json_ld"][f"{tool}/{name}"] = {"pages": pages, "found": hits, "right": right}
    print("(date_stripped: date_published with every machine-readable date removed, scored against it)")
    return figures


def gold_splits(split: str) -> tuple[str, ...]:
    return ("train", "validation", "test") if split == "all" else (split,)


def _names(value) -> set[str]:
    parts = value if isinstance(value, list) else _NAME_SPLIT.split(value or "")
    return {_fold(_BY_WORD.sub("", part.strip())) for part in parts if part and part.strip()} - {""}


def readability_gold(split: str, peer: bool) -> dict:
    """Date, authors and false authors of both tools against Readability.js's reviewed metadata of ``split``."""
    path = DATA / "readability-metadata.jsonl.gz"
    gold = {record["id"]: record["expected"] for record in iter_records(path, split)} if path.exists() else {}
    scored: Counter = Counter()
    for record in load_pages("readability", split, None):
        expected = gold.get(record["id"])
        if expected is None:
            continue
        tools = {"ours": ours(record["html"], record.get("url"))}
        if peer:
            tools["trafilatura"] = theirs(record["html"], record.get("url")) or {}
        names, day = _names(expected.get("byline")), (expected.get("publishedTime") or "")[:10]
        scored["pages"] += 1
        scored["dated"] += bool(day)
        scored["named"] += bool(names)
        for tool, values in tools.items():
            given = _names(values.get("authors") or [])
            scored[tool, "date"] += bool(day) and str(values.get("date_published") or "")[:10] == day
            scored[tool, "authors"] += bool(names) and given == names
            scored[tool, "false"] += not names and bool(given)
    print()
    print(f"Readability.js pages ({split}): {scored['pages']} pages, {scored['dated']} dated, {scored['named']} named")
    print(f"{'tool':12} {'date right':>11} {'authors right':>14} {'false authors':>14}")
    figures = {}
    for tool in ("ours", "trafilatura") if peer else ("ours",):
        date, authors, false = scored[tool, "date"], scored[tool, "authors"], scored[tool, "false"]
        unnamed = scored["pages"] - scored["named"]
        print(f"{tool:12} {date:>5}/{scored['dated']:<5} {authors:>8}/{scored['named']:<5} {false:>8}/{unnamed:<5}")
        figures[tool] = {"date": date, "authors": authors, "false_authors": false}
    return {"pages": scored["pages"], "dated": scored["dated"], "named": scored["named"], **figures}


if __name__ == "__main__":
    sys.exit(main())
