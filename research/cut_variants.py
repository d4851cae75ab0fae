"""Lower cuts after decoding, simulated from ``benchmarks/collapsed.py collect`` rows (issue 51, collapsed pages).

Each variant picks, page by page, a threshold of the rows' grid (the chain decoded again with its rules at 0.35 …
0.05) or keeps the chain as it is; no page is labelled again.  Pages that a page-level step already decoded again
(``sparse_units``, or the second opinion: the row holds ``before_opinion``) keep the chain's labels, as the
labeller would leave them.  Printed per variant: collapsed pages a file and their causes, word F1 / P / R over all
pages (means over the files, one file a seed), F1 of the groups the issue names beside trafilatura's, and the pages
whose F1 moves by more than 0.05 (all files together)::

    python research/cut_variants.py runs/col-s0.jsonl runs/col-s1.jsonl ...
    python research/cut_variants.py runs/col-val.jsonl --gate 0.2 --cut 0.35 --relative 0.5

The variants: ``as trained``; ``cut T`` (the grid's T wherever the model's own threshold is higher); ``gated cut T``
(the same only where the chain keeps under ``--gate`` of the page's characters); ``relative K`` (gated too: the
highest grid threshold at most K times the page's highest p(content), never under ``--floor``; with
``--article-chars N``, also each such cut that leaves alone a page likely an article where the chain keeps N
characters or more).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from collapsed import GRID, cause, collapsed, read_rows  # noqa: E402

#: The groups printed beside all pages: (row group, heading).
GROUPS = (
    ("dragnet", "Dragnet"),
    ("wcxb/listing", "listings"),
    ("wcxb/forum", "forums"),
    ("wcxb/collection", "collect."),
    ("wcxb/product", "products"),
    ("lang:non-en", "not Eng."),
)
#: A page the classifier gives at least this probability of being an article is "likely an article".
ARTICLE_PROBABILITY = 0.8
#: A page whose F1 moves by more than this counts as losing or gaining.
MOVED = 0.05

Variant = Callable[[dict], list]


def kept_share(result: dict) -> float:
    """The share of the page's characters the chain keeps."""
    chars = np.asarray(result["chars"], np.float64)
    kept = np.frombuffer(result["kept"].encode("ascii"), np.uint8) == ord("1")
    total = chars.sum()
    return float(chars[kept].sum() / total) if total and len(kept) == len(chars) else 1.0


def kept_chars(result: dict) -> int:
    """The characters the chain keeps."""
    kept = [char for char, bit in zip(result["chars"], result["kept"]) if bit == "1"]
    return int(sum(kept))


def stepped(result: dict) -> bool:
    """Whether a page-level step already decoded the page again."""
    return bool(result["sparse_units"]) or "before_opinion" in result


def at(result: dict, threshold: float) -> list:
    """The chain's scores at a grid threshold (the chain as it is where the grid lacks it: at or over the model's
    own threshold)."""
    scores = result["grid"].get(str(threshold))
    return result["with"] if scores is None else scores[:3]


def as_trained(result: dict) -> list:
    return result["with"]


def cut(threshold: float, gate: float | None = None) -> Variant:
    """The grid's ``threshold``; with ``gate``, only where the chain keeps under that share of the page."""

    def variant(result: dict) -> list:
        if stepped(result) or (gate is not None and kept_share(result) >= gate):
            return result["with"]
        return at(result, threshold)

    return variant


def relative(k: float, gate: float, floor: float, article_chars: int | None = None) -> Variant:
    """Where the chain keeps under ``gate`` of the page: the highest grid threshold at most ``k`` times the page's
    highest p(content), ``floor`` at least; with ``article_chars``, on a page likely an article
    (:data:`ARTICLE_PROBABILITY`) only where the chain keeps under that many characters."""

    def variant(result: dict) -> list:
        if stepped(result) or kept_share(result) >= gate:
            return result["with"]
        likely_article = result.get("types", {}).get("article", 0.0) >= ARTICLE_PROBABILITY
        if article_chars is not None and likely_article and kept_chars(result) >= article_chars:
            return result["with"]
        top = k * max(result["p"], default=0.0)
        threshold = max([t for t in GRID if t <= top + 1e-9 and t >= floor] or [floor])
        return at(result, threshold)

    return variant


def score(files: list[list[dict]], variant: Variant) -> dict:
    """Means over the files of each group's F1 / P / R sums, collapsed pages a file by cause, moved pages."""
    means: dict = defaultdict(list)
    causes: Counter = Counter()
    per_file, lose, gain = [], 0, 0
    for rows in files:
        sums: dict = defaultdict(lambda: np.zeros(4))
        lost = 0
        for row in rows:
            result = row["models"][0]
            scores = variant(result)
            for group in _groups(row):
                sums[group] += [*scores, 1]
            if collapsed({**result, "with": scores}, row["traf"][1]):
                lost += 1
                causes[cause(result)] += 1
            moved = scores[2] - result["with"][2]
            lose, gain = lose + (moved < -MOVED), gain + (moved > MOVED)
        per_file.append(lost)
        for group, total in sums.items():
            means[group].append(total[:3] / total[3])
    return {
        "groups": {group: np.mean(values, axis=0) for group, values in means.items()},
        "collapsed": per_file,
        "causes": {name: n / len(files) for name, n in causes.items()},
        "lose": lose,
        "gain": gain,
    }


def _groups(row: dict) -> list[str]:
    groups = ["all", row["corpus"], *([f"{row['corpus']}/{row['type']}"] if row["type"] else [])]
    return [*groups, "lang:non-en"] if row["lang"] not in ("en", "?") else groups


def peer(files: list[list[dict]]) -> dict:
    """trafilatura's F1 per group (the same in every file)."""
    sums: dict = defaultdict(lambda: np.zeros(4))
    for row in files[0]:
        for group in _groups(row):
            sums[group] += [*row["traf"], 1]
    return {group: total[2] / total[3] for group, total in sums.items()}


def variants(args) -> dict[str, Variant]:
    chosen = {"as trained": as_trained}
    chosen |= {f"cut {t}": cut(t) for t in args.cut}
    chosen |= {f"gated cut {t}": cut(t, args.gate) for t in args.cut}
    chosen |= {f"relative {k}": relative(k, args.gate, args.floor) for k in args.relative}
    if args.article_chars is not None:
        chosen |= {
            f"relative {k}, art. {args.article_chars}": relative(k, args.gate, args.floor, args.article_chars)
            for k in args.relative
        }
    return chosen


def report(files: list[list[dict]], args) -> list[str]:
    heading = (
        f"{'variant':<26}{'collapsed a file':<22}{'ranking':>8}{'thresh.':>8}{'rules':>6}  {'F1':>6} {'P':>6} {'R':>6}"
    )
    heading += "".join(f" {name:>8}" for _, name in GROUPS) + "  lose gain"
    lines = [f"{len(files)} file(s), {len(files[0])} pages; gate {args.gate}, floor {args.floor}", heading]
    for name, variant in variants(args).items():
        result = score(files, variant)
        groups, counts = result["groups"], result["collapsed"]
        precision, recall, f1 = groups["all"]
        per_file = ", ".join(map(str, counts))
        line = f"{name:<26}{f'{np.mean(counts):.1f} ({per_file})':<22}"
        causes = result["causes"]
        line += f"{causes.get('ranking', 0):>8.1f}{causes.get('threshold', 0):>8.1f}{causes.get('rules', 0):>6.1f}"
        line += f"  {f1:.4f} {precision:.4f} {recall:.4f}"
        line += "".join(f" {groups[g][2]:>8.4f}" if g in groups else f" {'-':>8}" for g, _ in GROUPS)
        lines.append(line + f"  {result['lose']:>4} {result['gain']:>4}")
    traf = peer(files)
    lines.append(
        f"{'trafilatura':<72}{traf['all']:.4f}{'':>14}"
        + "".join(f" {traf[g]:>8.4f}" if g in traf else f" {'-':>8}" for g, _ in GROUPS)
    )
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rows", nargs="+", help="collapsed.py collect row files, one a seed")
    parser.add_argument("--cut", type=float, nargs="*", default=[0.35], choices=GRID, metavar="T")
    parser.add_argument("--gate", type=float, default=0.2, help="a gated cut's share of the page kept")
    parser.add_argument("--relative", type=float, nargs="*", default=[0.5, 0.7], metavar="K")
    parser.add_argument("--floor", type=float, default=0.1, choices=GRID)
    parser.add_argument(
        "--article-chars", type=int, help="also the relative cuts on likely articles kept under this many characters"
    )
    args = parser.parse_args(argv)
    print("\n".join(report(read_rows(args.rows), args)))


if __name__ == "__main__":
    main()
