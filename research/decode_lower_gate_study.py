"""A learned gate for the second opinion's action, out of fold (issue 51): where should a page be decoded again at
lower thresholds, until the chain keeps as many characters as Resiliparse finds?

The shipped step (``labellers/web2text/second_opinion.py``) fires on hand-set terms: a page kept under a tenth (an
article: a twentieth) where the other extractor finds three (ten) times as much.  Decoding lower with a perfect
gate (fired on exactly the pages it helps) would rescue about half of the collapsed pages that remain.  This study
fits boosted regression trees that predict the change in word F1 of that action from what the labeller knows at the
time: the characters kept, on the page and found by the other extractor, the page-type probabilities, the shares of
the page at p(content) 0.35, 0.2, 0.1 and 0.05, and the largest p.  Pages kept at ``--max-share`` or more are not
asked.  The trees are cross-fitted by page (five folds of page ids: no page is decided by trees that saw any row of
it, in any seed) and applied where they predict over ``--margin``; ``--validation`` fits on every out-of-fold row and
applies the gate to the validation rows of the shipped model.  Prints word F1 against the shipped step, collapsed
pages (``collapsed.py``'s measure) and page-files losing / gaining over 0.02, per row file and per group::

    python benchmarks/collapsed.py collect ...       # the rows, as in second_stage_study.py
    python research/decode_lower_gate_study.py --opinions runs/so.jsonl --rows runs/col-def-s{0,1,2}.jsonl \\
        runs/col-dist-s{0,1}.jsonl --validation runs/col-val.jsonl --validation-opinions runs/so-val.jsonl

Not shipped: docs/research/quality-round4.rst, "A learned gate for decoding lower".
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from collapsed import HIGH, LOW, groups_of, read_rows  # noqa: E402
from second_opinion_study import decoded_lower, step  # noqa: E402

TYPES = ("article", "collection", "documentation", "forum", "listing", "product", "service")
P_LEVELS = (0.35, 0.2, 0.1, 0.05)


def features(model: dict, opinion: dict) -> list[float]:
    p, chars = np.array(model["p"], float), np.array(model["chars"], float)
    bits = model.get("kept_before_opinion", model["kept"])
    kept = float(chars[np.array([bit == "1" for bit in bits], bool)].sum()) if len(chars) else 0.0
    total, other = max(opinion["total"], 1), opinion["other"]
    row = [math.log1p(kept), math.log1p(total), math.log1p(other), kept / total, other / total]
    row += [math.log((other + 1) / (kept + 1)), float(p.max()) if len(p) else 0.0, math.log1p(len(p))]
    row += [model["types"].get(name, 0.0) for name in TYPES]
    return row + [float(chars[p >= level].sum()) / total for level in P_LEVELS]


def table(row_files: list[str], opinions_path: str):
    opinions = {json.loads(line)["id"]: json.loads(line) for line in open(opinions_path, encoding="utf-8")}
    x, before, lower, shipped, counted, rows = [], [], [], [], [], []
    for path in row_files:
        for row in read_rows([path])[0]:
            model, opinion = row["models"][0], opinions[row["id"]]
            own = model.get("before_opinion", model["with"])
            x.append(features(model, opinion))
            before.append(own)
            lower.append(decoded_lower(model, opinion["other"]) or own)
            shipped.append(step(row, model, opinion))
            counted.append(model["alone"][1] > HIGH or row["traf"][1] > HIGH)
            rows.append(row)
    return np.array(x), np.array(before), np.array(lower), np.array(shipped), np.array(counted), rows


def fit(x, gain):
    from sklearn.ensemble import HistGradientBoostingRegressor

    trees = HistGradientBoostingRegressor(max_depth=3, max_iter=200, learning_rate=0.05, min_samples_leaf=40)
    return trees.set_params(random_state=0).fit(x, gain)


def report(name: str, new, shipped, counted, rows, files: int, groups: bool) -> None:
    collapsed = lambda scores: int(((scores[:, 1] < LOW) & counted).sum())  # noqa: E731
    change = new[:, 2] - shipped[:, 2]
    print(f"{name}: word F1 {shipped[:, 2].mean():.4f} -> {new[:, 2].mean():.4f}, precision "
          f"{shipped[:, 0].mean():.4f} -> {new[:, 0].mean():.4f}, collapsed {collapsed(shipped) / files:.1f} -> "
          f"{collapsed(new) / files:.1f} a file, lose {(change < -0.02).sum()} "
          f"gain {(change > 0.02).sum()}")  # fmt: skip
    if not groups:
        return
    sums = defaultdict(lambda: np.zeros(4))
    for index, row in enumerate(rows):
        for group in groups_of(row):
            sums[group] += [1, shipped[index, 2], new[index, 2], row["traf"][2]]
    for group in sorted(sums, key=lambda g: (g != "all", g.startswith("lang:"), g)):
        n, old, now, peer = sums[group]
        if n / files >= 10:
            print(f"  {group:<22}{int(n / files):>6}  shipped {old / n:.4f}  gate {now / n:.4f}  "
                  f"trafilatura {peer / n:.4f}")  # fmt: skip


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--opinions", required=True, help="second_opinion_study.py collect of the training pages")
    parser.add_argument("--rows", nargs="+", required=True, help="collapsed.py collect rows, out of fold")
    parser.add_argument("--max-share", type=float, default=0.3)
    parser.add_argument("--margin", type=float, default=0.01, help="predicted F1 gain over which the gate fires")
    parser.add_argument("--validation", help="collapsed.py collect rows of the validation pages (shipped model)")
    parser.add_argument("--validation-opinions")
    parser.add_argument("--groups", action="store_true")
    args = parser.parse_args(argv)
    x, before, lower, shipped, counted, rows = table(args.rows, args.opinions)
    gain, asked = lower[:, 2] - before[:, 2], x[:, 3] < args.max_share
    page_ids = sorted({row["id"] for row in rows})
    fold_of = dict(zip(page_ids, np.random.default_rng(0).integers(0, 5, len(page_ids))))
    folds = np.array([fold_of[row["id"]] for row in rows])
    predicted = np.full(len(x), -np.inf)
    for fold in range(5):
        fitted, scored = asked & (folds != fold), asked & (folds == fold)
        predicted[scored] = fit(x[fitted], gain[fitted]).predict(x[scored])
    fires = predicted > args.margin
    new = np.where(fires[:, None], lower, before)
    files, per_file = len(args.rows), len(x) // len(args.rows)
    name = f"out of fold, fires on {fires.sum() / files:.1f} pages a file"
    report(name, new, shipped, counted, rows, files, args.groups)
    for index, path in enumerate(args.rows):
        part = slice(index * per_file, (index + 1) * per_file)
        report(f"  {Path(path).name}", new[part], shipped[part], counted[part], rows[part], 1, False)
    if args.validation:
        vx, vbefore, vlower, vshipped, vcounted, vrows = table([args.validation], args.validation_opinions)
        trees = fit(x[asked], gain[asked])
        vfires = (vx[:, 3] < args.max_share) & (trees.predict(vx) > args.margin)
        report(f"validation, fires on {vfires.sum()} pages", np.where(vfires[:, None], vlower, vbefore),
               vshipped, vcounted, vrows, 1, False)  # fmt: skip


if __name__ == "__main__":
    main()
