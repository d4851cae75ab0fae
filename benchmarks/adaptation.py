"""What a few corrected pages buy: fine-tune the shipped model on k pages of a site and score its other pages.

For every site (URL host) with at least 9 pages in CleanPortalEval and WCXB, k of its pages (k = 1, 3, 5, drawn
``--draws`` times) stand in for pages a user corrected in ``web2text show``; ``fine_tune`` (``web2text train
--init``'s recipe) tunes the model on them and the site's other pages are scored by word F1: the model, the tuned
one and trafilatura, in the same run.  What was forgotten: each corpus's word F1 on its test pages, the tuned
site's own pages left out, before and after tuning on k = 3.  ``--page-types``: the same per WCXB page type.

    PYTHONPATH=$PWD WEB2TEXT_BLAS_THREADS=1 nice python benchmarks/adaptation.py --json adaptation.json \\
        --plot docs/_static/adaptation.png

Results: docs/show.rst.  The decisions are the model's Viterbi labels at its own threshold.
"""

from __future__ import annotations

import argparse
import json
import random
import time
import urllib.parse
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from scrapy_web2text.labellers.web2text.network import load_model
from scrapy_web2text.research.corpus import default_data_dir, iter_records, process_record
from scrapy_web2text.research.metrics import word_f1
from scrapy_web2text.research.peers import load_peers
from scrapy_web2text.research.train.selection import WordScorer, page_decisions, page_potentials
from scrapy_web2text.research.train.tuning import ANCHOR, fine_tune, sample_training_pages

SITE_CORPORA = ("cleanportaleval", "wcxb")
MIN_SITE_PAGES = 9


def host(url: str | None) -> str:
    name = urllib.parse.urlsplit(url or "").hostname or ""
    return name.removeprefix("www.")


def decisions(model, pages) -> list[np.ndarray]:
    return page_decisions(model, page_potentials(model, pages))


def mean_word_f1(model, pages) -> float:
    return float(WordScorer(pages).page_scores(decisions(model, pages)).mean())


def sites(data: Path) -> dict[str, list[dict]]:
    grouped: dict[str, list[dict]] = defaultdict(list)
    for corpus in SITE_CORPORA:
        for record in iter_records(data / f"{corpus}.jsonl.gz"):
            if host(record.get("url")):
                grouped[f"{corpus}:{host(record['url'])}"].append(record)
    return {name: records for name, records in sorted(grouped.items()) if len(records) >= MIN_SITE_PAGES}


def tune(model, tuning_pages, mix, args, exclude_host: str | None = None, anchor: float = ANCHOR):
    kept_mix = [page for page in mix if exclude_host is None or host(page.url) != exclude_host]
    return fine_tune(
        model,
        tuning_pages,
        kept_mix,
        iterations=args.iterations,
        learning_rate=args.learning_rate,
        user_share=args.user_share,
        anchor=anchor,
        rebalance=args.rebalance,
        networks=args.networks,
        seed=args.seed,
    )


def forgetting_changes(scorer, base_scores, tuned, forgetting, site_host: str) -> dict[str, float]:
    """Per corpus: the tuned model's word F1 minus the base's on the same pages, the tuned site's own
    pages left out (they are what it learnt, not what it forgot)."""
    change = scorer.page_scores(decisions(tuned, forgetting)) - base_scores
    corpora = np.asarray(scorer.corpora)
    other = np.array([host(page.url) != site_host for page in forgetting])
    return {
        name: float(change[other & (corpora == name)].mean())
        for name in dict.fromkeys(scorer.corpora)
        if (other & (corpora == name)).any()
    }


def forgetting_sample(files, split: str, per_corpus: int | None) -> list:
    """Each corpus's ``split`` pages (its validation pages where it has none), or ``per_corpus`` of them at random."""
    pages = []
    for path in files if per_corpus != 0 else ():
        records = list(iter_records(path, split))
        if not records:
            print(f"{path.name} has no {split} pages: its validation pages measure what was forgotten")
            records = list(iter_records(path, "validation"))
        wanted = len(records) if per_corpus is None else min(per_corpus, len(records))
        pages += [process_record(r) for r in random.Random(f"forgetting-{path.name}").sample(records, wanted)]
    return pages


def site_rows(model, mix, forgetting, args, trafilatura) -> tuple[list[dict], dict]:
    """One row per site, k, draw and anchor; per anchor, the per-corpus forgetting of each model tuned on k = 3."""
    rows, forgotten = [], defaultdict(list)
    scorer = WordScorer(forgetting) if forgetting else None
    base_scores = scorer.page_scores(decisions(model, forgetting)) if forgetting else None
    for name, records in sites(Path(args.data)).items():
        if args.sites and not any(part in name for part in args.sites):
            continue
        pages = [process_record(record) for record in records]
        peer = [word_f1(trafilatura(record["html"]), page.gold) for record, page in zip(records, pages)]
        for k in args.k:
            for draw in range(args.draws):
                chosen = set(random.Random(f"{name}-{k}-{draw}").sample(range(len(pages)), k))
                rest = [i for i in range(len(pages)) if i not in chosen]
                evaluated = [pages[i] for i in rest]
                site_host = host(records[0]["url"])
                before = mean_word_f1(model, evaluated)
                for anchor in args.anchor:
                    clock = time.perf_counter()
                    tuned = tune(model, [pages[i] for i in sorted(chosen)], mix, args, site_host, anchor)
                    seconds = time.perf_counter() - clock
                    row = {
                        "site": name,
                        "pages": len(pages),
                        "k": k,
                        "draw": draw,
                        "anchor": anchor,
                        "shipped": before,
                        "tuned": mean_word_f1(tuned, evaluated),
                        "trafilatura": float(np.mean([peer[i] for i in rest])),
                        "tuning_seconds": round(seconds, 1),
                        "distance_moved": round(sum(tuned.metadata["fine_tuned"]["distance_moved"].values()), 4),
                    }
                    if k == 3 and forgetting:
                        row["forgetting"] = forgetting_changes(scorer, base_scores, tuned, forgetting, site_host)
                        forgotten[anchor].append(row["forgetting"])
                    rows.append(row)
                    print(json.dumps(row), flush=True)
    return rows, forgotten


def page_type_rows(model, mix, args, trafilatura) -> list[dict]:
    train, validation = defaultdict(list), defaultdict(list)
    for record in iter_records(Path(args.data) / "wcxb.jsonl.gz"):
        if record.get("split") == "train":
            train[record.get("page_type")].append(record)
        elif record.get("split") == "validation":
            validation[record.get("page_type")].append(record)
    rows = []
    for page_type in sorted(validation, key=str):
        evaluated_records = validation[page_type]
        evaluated = [process_record(record) for record in evaluated_records]
        peer = float(np.mean([word_f1(trafilatura(r["html"]), p.gold) for r, p in zip(evaluated_records, evaluated)]))
        for k in args.type_k:
            chosen = random.Random(f"{page_type}-{k}").sample(train[page_type], min(k, len(train[page_type])))
            tuned = tune(model, [process_record(record) for record in chosen], mix, args, anchor=args.anchor[0])
            row = {
                "page_type": page_type,
                "validation_pages": len(evaluated),
                "k": len(chosen),
                "shipped": mean_word_f1(model, evaluated),
                "tuned": mean_word_f1(tuned, evaluated),
                "trafilatura": peer,
            }
            rows.append(row)
            print(json.dumps(row), flush=True)
    return rows


def summary(rows: list[dict]) -> list[dict]:
    """Per k: mean word F1 of each system over the sites (each site's draws averaged first), and the share of the
    shipped model's error (1 - word F1) that tuning removed."""
    out = []
    for k in sorted({row["k"] for row in rows}):
        by_site: dict[str, list[dict]] = defaultdict(list)
        for row in rows:
            if row["k"] == k:
                by_site[row["site"]].append(row)
        means = {
            system: float(np.mean([np.mean([r[system] for r in site]) for site in by_site.values()]))
            for system in ("shipped", "tuned", "trafilatura")
        }
        removed = [
            1 - (1 - np.mean([r["tuned"] for r in site])) / max(1e-9, 1 - np.mean([r["shipped"] for r in site]))
            for site in by_site.values()
        ]
        of_mean = 1 - (1 - means["tuned"]) / max(1e-9, 1 - means["shipped"])
        out.append({"k": k, "sites": len(by_site), **means, "error_removed": float(np.mean(removed))})
        out[-1]["error_removed_of_mean"] = float(of_mean)
    return out


def forgetting_summary(before: dict[str, float], changes: list[dict[str, float]]) -> list[dict]:
    """Per corpus: the base's word F1, the tuned models' mean change and their largest drop."""
    return [
        {
            "corpus": corpus,
            "shipped": score,
            "mean_change": float(np.mean([change[corpus] for change in changes if corpus in change])),
            "largest_drop": float(-min(change[corpus] for change in changes if corpus in change)),
        }
        for corpus, score in before.items()
        if any(corpus in change for change in changes)
    ]


def plot(rows: list[dict], path: str, base: str = "shipped") -> None:
    """Word F1 against k: the starting model (``base`` names it), the tuned one and trafilatura; grey: each site."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    table = summary(rows)
    ks = [row["k"] for row in table]
    figure, axis = plt.subplots(figsize=(6, 3.6), dpi=120)
    for system, style in (("shipped", "o--"), ("tuned", "o-"), ("trafilatura", "s:")):
        label = {"shipped": base, "tuned": f"{base}, tuned"}.get(system, system)
        axis.plot(ks, [row[system] for row in table], style, label=label)
    for name in sorted({row["site"] for row in rows}):
        points = [np.mean([r["tuned"] for r in rows if r["site"] == name and r["k"] == k]) for k in ks]
        axis.plot(ks, points, "-", color="grey", alpha=0.25, linewidth=1)
    axis.set_xlabel("corrected pages of the site (k)")
    axis.set_ylabel("word F1 on the site's other pages")
    axis.set_xticks(ks)
    axis.set_title(f"Fine-tuning ({base}) on k pages of a site, mean of {len(set(r['site'] for r in rows))} sites")
    axis.legend(loc="lower right")
    figure.tight_layout()
    figure.savefig(path)


def train_base(args) -> None:
    """The default recipe trained without the qualifying sites' pages: a base that has never seen them, as a user's
    site is unseen by the shipped model (the shipped model was trained on most of these sites' pages)."""
    from scrapy_web2text.research.corpus import corpus_name, load_training_splits
    from scrapy_web2text.research.train.trainer import train

    files = sorted(Path(args.data).glob("*.jsonl.gz"))
    hosts = {name.split(":", 1)[1] for name in sites(Path(args.data))}
    train_pages, validation_pages = load_training_splits(files)
    train_pages = [page for page in train_pages if host(page.url) not in hosts]
    validation_pages = [page for page in validation_pages if host(page.url) not in hosts]
    print(f"base without {len(hosts)} sites: {len(train_pages)} train, {len(validation_pages)} validation pages")
    model = train(
        train_pages,
        validation_pages,
        "default",
        seed=args.seed,
        iterations=args.base_iterations,
        corpora=[corpus_name(path) for path in files],
        threads=1,
    )
    model.metadata["name"] = "held-out-base"
    model.metadata["held_out_sites"] = sorted(hosts)
    print(f"written {model.save(args.train_base)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", help="start from this model instead of the shipped one")
    parser.add_argument("--train-base", metavar="STEM", help="train the held-out base model to STEM and stop")
    parser.add_argument("--base-iterations", type=int, default=3000)
    parser.add_argument("--data", default=str(default_data_dir()))
    parser.add_argument("--k", type=int, nargs="+", default=[1, 3, 5])
    parser.add_argument("--draws", type=int, default=2, help="random draws of the k pages per site")
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--sites", nargs="+", help="only the sites whose name contains one of these")
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--user-share", type=float, default=0.5, help="share of each batch from the tuning pages")
    parser.add_argument("--networks", nargs="+", default=["unary", "pairwise"], help="the networks tuned")
    parser.add_argument("--anchor", type=float, nargs="+", default=[ANCHOR], help="pull to the base (several: grid)")
    parser.add_argument("--no-rebalance", dest="rebalance", action="store_false", help="keep the base's threshold")
    parser.add_argument("--mix", type=int, default=180, help="training pages mixed in (corpora in proportion)")
    parser.add_argument("--forgetting-pages", type=int, default=None, help="pages a corpus (default all; 0: skip)")
    parser.add_argument("--forgetting-split", default="test", choices=["test", "validation"])
    parser.add_argument("--page-types", action="store_true", help="also per WCXB page type, k = --type-k")
    parser.add_argument("--type-k", type=int, nargs="+", default=[10, 30])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="write every row and the summary here")
    parser.add_argument("--plot", help="write a PNG of word F1 against k")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)
    if args.train_base:
        train_base(args)
        return
    model = load_model(args.base)
    files = sorted(Path(args.data).glob("*.jsonl.gz"))
    started = time.perf_counter()
    mix = sample_training_pages(files, args.mix, args.seed) if args.mix else []
    forgetting = forgetting_sample(files, args.forgetting_split, args.forgetting_pages)
    sizes = ", ".join(f"{name} {count}" for name, count in Counter(page.dataset for page in forgetting).items())
    print(f"mixed-in sample {len(mix)} pages, forgetting sample {sizes}, {time.perf_counter() - started:.0f} s")
    trafilatura = load_peers(["trafilatura"])[0]["trafilatura"]
    rows, forgotten = site_rows(model, mix, forgetting, args, trafilatura)
    before = WordScorer(forgetting).by_corpus(decisions(model, forgetting)) if forgetting else {}
    type_rows = page_type_rows(model, mix, args, trafilatura) if args.page_types else []
    runs = []
    for anchor in args.anchor:
        table = summary([row for row in rows if row["anchor"] == anchor])
        forgetting_table = forgetting_summary(before, forgotten[anchor])
        runs.append({"anchor": anchor, "summary": table, "forgetting": forgetting_table})
        print(f"\nanchor {anchor}, per k (means over sites):")
        for row in table:
            print(
                f"  k={row['k']}: base {row['shipped']:.3f}  tuned {row['tuned']:.3f}  trafilatura "
                f"{row['trafilatura']:.3f}  error removed {100 * row['error_removed']:.1f} % (mean of sites), "
                f"{100 * row['error_removed_of_mean']:.1f} % (of the mean error)  ({row['sites']} sites)"
            )
        print(
            f"  {args.forgetting_split} word F1 per corpus, base -> tuned on k=3 pages of a site "
            "(mean change, largest drop):"
        )
        for row in forgetting_table:
            print(
                f"    {row['corpus']}: {row['shipped']:.4f}  {row['mean_change']:+.4f}  (largest drop "
                f"{row['largest_drop']:.4f})"
            )
    print(f"total {time.perf_counter() - started:.0f} s")
    if args.json:
        document = {"sites": rows, "runs": runs, "page_types": type_rows}
        Path(args.json).write_text(json.dumps(document, indent=1) + "\n")
    if args.plot:
        base = "held-out base" if args.base else "shipped"
        plot([row for row in rows if row["anchor"] == args.anchor[0]], args.plot, base)


if __name__ == "__main__":
    main()
