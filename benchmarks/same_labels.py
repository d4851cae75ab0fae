"""Whether two versions of the chain give the same main text, page by page (a refactoring's check).

``dump`` writes each page's main text and word scores, with the model alone's word recall; ``compare`` prints
per corpus the pages whose main text differs, the mean scores of each dump, the pages that lose more than 0.01
F1 and the collapsed pages (the chain keeps under 40 % of the gold words, the model alone over 70 %)::

    python benchmarks/same_labels.py dump --split validation -o before.jsonl   # from the old checkout
    python benchmarks/same_labels.py dump --split validation -o after.jsonl
    python benchmarks/same_labels.py compare before.jsonl after.jsonl

``dump --model M.npz`` labels with another model than the shipped one (two trainings compared on the same code);
``compare --alone`` compares the model alone's scores (``extract(..., rules=False)``) instead of the chain's.  WCXB
pages are also compared by page type.
"""

from __future__ import annotations

import argparse
import inspect
import json

import numpy as np

from scrapy_web2text import extract
from scrapy_web2text.research.corpus import corpus_name, iter_records
from scrapy_web2text.research.data_files import data_files
from scrapy_web2text.research.metrics import word_scores

#: A page collapses where the chain keeps less than this share of the gold words...
COLLAPSED_RECALL = 0.4
#: ...while the model alone keeps more than this share.
MODEL_RECALL = 0.7
#: A page loses where its word F1 drops by more than this.
LOSS = 0.01


def dump(args) -> None:
    alone = "rules" in inspect.signature(extract).parameters
    files = data_files(args.data)
    with open(args.output, "w", encoding="utf-8") as out:
        for path in files:
            for record in iter_records(path, args.split):
                html, gold = record.get("html") or "", record.get("text") or ""
                text = extract(html, model=args.model).main_text
                row = {"id": record["id"], "corpus": corpus_name(path), "main_text": text}
                row["page_type"] = record.get("page_type")
                row["scores"] = word_scores(text, gold)
                row["recall"] = row["scores"][1]
                row["model_scores"] = word_scores(extract(html, model=args.model, rules=False).main_text, gold)
                row["model_recall"] = row["model_scores"][1] if alone else None
                out.write(json.dumps(row) + "\n")


def read(path: str) -> dict[str, dict]:
    return {row["id"]: row for row in map(json.loads, open(path, encoding="utf-8"))}


def collapsed(rows: dict[str, dict]) -> list[str]:
    return [
        key
        for key, row in rows.items()
        if row["model_recall"] is not None and row["recall"] < COLLAPSED_RECALL < MODEL_RECALL < row["model_recall"]
    ]


def compare(args) -> None:
    before, after = read(args.before), read(args.after)
    if args.alone:
        for rows in (before, after):
            for row in rows.values():
                row["scores"] = row["model_scores"]
    changed = [key for key in before if before[key]["main_text"] != after.get(key, {}).get("main_text")]
    print(f"{len(before)} pages, {len(changed)} with another main text")
    print(f"{'corpus':<18}{'pages':>6}  {'P / R / F1 before':<22}{'P / R / F1 after':<22}changed  lose >0.01")
    groups = [(corpus, {"corpus": corpus}) for corpus in sorted({row["corpus"] for row in before.values()})]
    kinds = sorted({row.get("page_type") or "" for row in before.values() if row["corpus"] == "wcxb"} - {""})
    groups += [(f"wcxb {kind}", {"corpus": "wcxb", "page_type": kind}) for kind in kinds]
    for corpus, where in groups:
        keys = [key for key in before if all(before[key].get(name) == value for name, value in where.items())]
        means = [np.mean([rows[key]["scores"] for key in keys], axis=0) for rows in (before, after)]
        cells = ["/".join(f"{value:.4f}" for value in mean) for mean in means]
        moved = sum(key in changed for key in keys)
        lost = [key for key in keys if after[key]["scores"][2] < before[key]["scores"][2] - LOSS]
        print(f"{corpus:<18}{len(keys):>6}  {cells[0]:<22}{cells[1]:<22}{moved:>7}  {len(lost):>9} {' '.join(lost)}")
    for name, rows in (("before", before), ("after", after)):
        pages = collapsed(rows)
        print(f"collapsed {name}: {len(pages)} {' '.join(pages)}")
    # Pages whose text is mostly gone, whoever lost it: the chain's, and the model alone's (rules off).
    for name, rows in (("before", before), ("after", after)):
        chain = [key for key, row in rows.items() if row["recall"] < COLLAPSED_RECALL]
        alone = [key for key, row in rows.items() if row["model_recall"] is not None]
        alone = [key for key in alone if rows[key]["model_recall"] < COLLAPSED_RECALL]
        print(f"recall < {COLLAPSED_RECALL} {name}: chain {len(chain)} {' '.join(chain)}; model alone {len(alone)}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(required=True)
    d = commands.add_parser("dump")
    d.add_argument("--split", default="validation")
    d.add_argument("--data", nargs="*")
    d.add_argument("-o", "--output", required=True)
    d.add_argument("--model", help="a model file (default: the shipped model)")
    d.set_defaults(run=dump)
    c = commands.add_parser("compare")
    c.add_argument("before")
    c.add_argument("after")
    c.add_argument("--alone", action="store_true", help="compare the model alone's scores (rules off)")
    c.set_defaults(run=compare)
    args = parser.parse_args(argv)
    args.run(args)


if __name__ == "__main__":
    main()
