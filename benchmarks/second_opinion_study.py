"""The ``second_opinion`` step (labellers/web2text/second_opinion.py) scored on the rows of ``collapsed.py collect``.

``collect`` writes, per page and row file (out of fold: the fold models of one seed; validation: the shipped
model), what Resiliparse's main-content extractor finds in the page and the page's characters, beside each model's
characters kept; ``table`` applies the step as the labeller does (the chain's own labels where it does not fire,
else the first of the grid's lower thresholds that keeps as many characters as the other extractor) and prints the
change in word F1 per corpus, WCXB page type and language, the pages losing or gaining over 0.02 F1, and the
collapsed pages (``collapsed.py``'s measure) before and after::

    python benchmarks/second_opinion_study.py collect --split train --rows runs/col-dist-s0.jsonl ... -o runs/so.jsonl
    python benchmarks/second_opinion_study.py table --opinions runs/so.jsonl runs/col-dist-s0.jsonl ...
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from collapsed import HIGH, LOW, groups_of, read_rows  # noqa: E402

from scrapy_web2text.labellers.web2text import second_opinion  # noqa: E402
from scrapy_web2text.page import parse_page  # noqa: E402
from scrapy_web2text.research.corpus import iter_records  # noqa: E402
from scrapy_web2text.research.data_files import data_files  # noqa: E402


def collect(args) -> None:
    wanted = {json.loads(line)["id"] for path in args.rows for line in open(path, encoding="utf-8")}
    files = [Path(path) for path in data_files(None)]
    with open(args.output, "w", encoding="utf-8") as out:
        for path in files:
            for record in iter_records(path, args.split):
                if record["id"] not in wanted:
                    continue
                html = record.get("html") or ""
                page = parse_page(html)
                total = sum(map(len, page.texts))
                found = second_opinion.other_extractor_chars(page.root)
                out.write(json.dumps({"id": record["id"], "total": total, "other": found}) + "\n")


def step(row: dict, model: dict, opinion: dict) -> list[float]:
    """The chain's word P / R / F1 on the page after the step, from the row's grid."""
    kept_bits = model.get("kept_before_opinion", model["kept"])  # rows collected with the step in the chain
    kept = sum(length for length, keep in zip(model["chars"], kept_bits) if keep == "1")
    ratio = second_opinion.required_ratio(kept, opinion["total"], model["types"].get("article", 0.0))
    fires = ratio is not None and opinion["other"] > ratio * kept
    before = model.get("before_opinion", model["with"])
    return decoded_lower(model, opinion["other"]) or before if fires else before


def decoded_lower(model: dict, wanted: int) -> list[float] | None:
    """The step's decoding from the row's grid: word P / R / F1 at the first lower threshold keeping ``wanted``
    characters (the lowest where none does); ``None`` where the grid has no threshold under the model's own."""
    picked = None
    for threshold in (t for t in second_opinion.THRESHOLDS if str(t) in model["grid"]):
        picked = model["grid"][str(threshold)]
        if picked[3] >= wanted:
            break
    return None if picked is None else picked[:3]


def table(args) -> None:
    opinions = {}
    for line in open(args.opinions, encoding="utf-8"):
        row = json.loads(line)
        opinions[row["id"]] = row
    files = read_rows(args.rows)
    sums: dict = defaultdict(lambda: np.zeros(4))
    moved = defaultdict(lambda: [0, 0])
    before = after = models = 0
    for rows in files:
        for row in rows:
            for model in row["models"]:
                new = step(row, model, opinions[row["id"]])
                old = model.get("before_opinion", model["with"])
                change = new[2] - old[2]
                for group in groups_of(row):
                    sums[group] += [1, old[2], new[2], 0]
                    moved[group][0] += change < -0.02
                    moved[group][1] += change > 0.02
                before += old[1] < LOW and (model["alone"][1] > HIGH or row["traf"][1] > HIGH)
                after += new[1] < LOW and (model["alone"][1] > HIGH or row["traf"][1] > HIGH)
                models += 1
    print(f"{'group':<22}{'pages':>7}  F1 before  after    change   lose  gain")
    for group in sorted(sums, key=lambda g: (g != "all", g.startswith("lang:"), g)):
        n, old, new, _ = sums[group]
        if n / len(files) < args.min_pages:
            continue
        print(f"{group:<22}{int(n / len(files)):>7}  {old / n:.4f}    {new / n:.4f}  {(new - old) / n:+.4f}"
              f"  {moved[group][0]:>5} {moved[group][1]:>5}")  # fmt: skip
    print(f"collapsed: {before / len(files):.1f} -> {after / len(files):.1f} pages a file "
          f"({100 * before / models:.2f} % -> {100 * after / models:.2f} %)")  # fmt: skip


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(required=True)
    c = commands.add_parser("collect")
    c.add_argument("--split", default="train")
    c.add_argument("--rows", nargs="+", required=True, help="row files of collapsed.py collect (the pages to read)")
    c.add_argument("-o", "--output", required=True)
    c.set_defaults(run=collect)
    t = commands.add_parser("table")
    t.add_argument("--opinions", required=True)
    t.add_argument("rows", nargs="+")
    t.add_argument("--min-pages", type=int, default=10)
    t.set_defaults(run=table)
    args = parser.parse_args(argv)
    args.run(args)


if __name__ == "__main__":
    main()
