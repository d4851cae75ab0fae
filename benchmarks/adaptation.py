"""What a few corrected pages buy, and what they cost elsewhere, through ``extract()`` as a user calls it.

For every WCXB site (URL host) with more than k pages, k of them (drawn at random, ``--draws`` times) stand in for
pages a user corrected in ``web2text show``: their gold text gives the labels, as ``web2text train --labels
corpus.jsonl.gz`` would.  ``web2text train --init``'s recipe and check tune the base on them (a sample of the
training corpora mixed in, the site's own pages left out of it; :mod:`scrapy_web2text.research.train.holdout`:
each given page left out in turn, the base kept where tuning does not help there).  The tuned model is saved with
the package's own writer and every page is scored by ``extract(html, model=path)``'s main text against its gold
(word F1), beside the base and trafilatura:

* the site's other pages (what the user gets on the rest of the site);
* its given pages, each left out in turn (the check's figures: tuning must not make them worse);
* ``--other-pages`` pages of the other sites (none of them tuned on) and ``--forgetting-pages`` pages per corpus of
  each corpus's ``--forgetting-split`` (what tuning costs where the tuned model is not meant for).

"tuned" is the tuned model everywhere; "used" is what the check hands the user (the tuned model or the base).

    PYTHONPATH=$PWD python benchmarks/adaptation.py --train-base runs/heldout
    PYTHONPATH=$PWD WEB2TEXT_BLAS_THREADS=1 python benchmarks/adaptation.py --base runs/heldout.npz --json out.json
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
import urllib.parse
from collections import defaultdict
from pathlib import Path

import numpy as np

from scrapy_web2text import extract
from scrapy_web2text.labellers.web2text.network import load_model
from scrapy_web2text.page import parse_page
from scrapy_web2text.research.corpus import default_data_dir, iter_records, process_record
from scrapy_web2text.research.metrics import word_f1
from scrapy_web2text.research.peers import load_peers
from scrapy_web2text.research.train.holdout import checked_fine_tune, score
from scrapy_web2text.research.train.tuning import SITE_GATE, TuningPage, sample_training_pages

SITE_CORPUS = "wcxb"


def host(url: str | None) -> str:
    return (urllib.parse.urlsplit(url or "").hostname or "").removeprefix("www.")


def sites(data: Path, minimum: int) -> dict[str, list[dict]]:
    grouped: dict[str, list[dict]] = defaultdict(list)
    for record in iter_records(data / f"{SITE_CORPUS}.jsonl.gz"):
        if host(record.get("url")):
            grouped[host(record["url"])].append(record)
    return {name: records for name, records in sorted(grouped.items()) if len(records) >= minimum}


class Scores:
    """Word F1 of ``extract(html, model=path)`` per (model path, page id), each computed once."""

    def __init__(self, trafilatura):
        self.cache: dict[tuple[str, str], float] = {}
        self.trafilatura = trafilatura

    def __call__(self, path: str | None, records: list[dict]) -> np.ndarray:
        out = []
        for record in records:
            key = (str(path), record["id"])
            if key not in self.cache:
                if path == "trafilatura":
                    text = self.trafilatura(record["html"])
                else:
                    text = extract(record["html"], url=record.get("url"), model=path).main_text
                self.cache[key] = word_f1(text, record.get("text") or "")
            out.append(self.cache[key])
        return np.asarray(out)


def site_row(name, records, k, draw, base, base_path, mix, others, forgetting, scores, folder, args) -> dict:
    chosen = set(random.Random(f"{name}-{k}-{draw}").sample(range(len(records)), k))
    given = [records[i] for i in sorted(chosen)]
    rest = [r for i, r in enumerate(records) if i not in chosen]
    by_id = {r["id"]: r for r in given}
    pages = [
        TuningPage.from_page_data(process_record(r, p), r["id"], p) for r in given for p in [parse_page(r["html"])]
    ]
    saved: dict[int, str] = {}

    def path_of(model) -> str | None:
        if model is base:
            return base_path
        if id(model) not in saved:
            saved[id(model)] = str(model.save(folder / f"{name}-{k}-{draw}-{len(saved)}"))
        return saved[id(model)]

    def scorer(model, page) -> float:  # a whole page left out: through extract(), against its gold text
        if not page.known.all():
            return score(model, page)  # one page's half: only its labelled blocks count
        return float(scores(path_of(model), [by_id[page.source]])[0])

    clock = time.perf_counter()
    settings = {"iterations": args.iterations, "learning_rate": args.learning_rate, "anchor": args.anchor}
    settings.update(rebalance=args.rebalance, networks=args.networks, site_gate=args.site_gate, seed=args.seed)
    kept_mix = [page for page in mix if host(page.url) != name]
    used, tuned, found = checked_fine_tune(base, pages, kept_mix, scorer=scorer, **settings)
    seconds = time.perf_counter() - clock
    tuned_path, used_path = path_of(tuned), path_of(used)
    other = [r for r in others if host(r.get("url")) != name]
    row = {"site": name, "pages": len(records), "k": k, "draw": draw, "kept": "tuned" if found.helps else "base"}
    row["threshold"] = tuned.threshold
    row["offsets"] = tuned.config.get("threshold_offsets")
    row["skip_rules"] = tuned.config.get("skip_rules", [])
    row["template"] = len(tuned.config.get("site_gate", {}).get("digests", []))
    for label, pages in (("rest", rest), ("other", other), *((c, rs) for c, rs in forgetting.items())):
        row[f"admitted_{label}"] = admitted(tuned, pages)
    for label, path in (
        ("base", base_path),
        ("tuned", tuned_path),
        ("used", used_path),
        ("trafilatura", "trafilatura"),
    ):
        row[f"rest_{label}"] = float(scores(path, rest).mean())
        if label != "used" and args.other_pages:
            row[f"other_{label}"] = float(scores(path, other).mean())
        if label != "used":
            row[f"corpora_{label}"] = {c: float(scores(path, rs).mean()) for c, rs in forgetting.items()}
    row["given_base"], row["given_tuned"] = found.base, found.tuned
    row["given_used"] = found.tuned if found.helps else found.base
    if found.how == "pages left out in turn":
        row["given_trafilatura"] = float(scores("trafilatura", given).mean())
    row["check"] = found.how
    row["tuning_seconds"] = round(seconds, 1)
    return row


def admitted(model, records: list[dict]) -> float:
    """The share of the pages the tuned model labels itself (its site gate admits them)."""
    return float(np.mean([model.for_page(parse_page(r["html"]).texts) is model for r in records] or [0.0]))


def site_mean(by_site: dict[str, list[dict]], key: str) -> float:
    return float(np.mean([np.mean([r[key] for r in site]) for site in by_site.values()]))


def report(rows: list[dict]) -> list[str]:
    """Means over the sites (a site's draws averaged first) and the worst cases, per k."""
    lines = []
    for k in sorted({row["k"] for row in rows}):
        by_site: dict[str, list[dict]] = defaultdict(list)
        for row in rows:
            if row["k"] == k:
                by_site[row["site"]].append(row)
        runs = [r for site in by_site.values() for r in site]
        kept = sum(r["kept"] == "tuned" for r in runs)
        lines.append(f"k={k}: {len(by_site)} sites, the check kept the tuned model in {kept} of {len(runs)} runs")
        systems = ("base", "tuned", "used", "trafilatura")
        lines.append(
            "  site's other pages: "
            + "  ".join(f"{s} {site_mean(by_site, f'rest_{s}'):.4f}" for s in systems)
            + f"  (gate admits {np.mean([r.get('admitted_rest', 1.0) for r in runs]):.1%})"
        )
        given = [s for s in systems if all(f"given_{s}" in r for r in runs)]
        lines.append("  given, left out:    " + "  ".join(f"{s} {site_mean(by_site, f'given_{s}'):.4f}" for s in given))
        own = [np.mean([r["given_used"] - r["given_base"] for r in site]) for site in by_site.values()]
        lines.append(f"  given, used - base: worst site {min(own):+.4f}, sites worse {sum(c < -1e-9 for c in own)}")
        for name, key in (("other sites' pages", "other"), *((c, c) for c in runs[0]["corpora_base"])):
            if key == "other" and "other_base" not in runs[0]:
                continue
            if key == "other":
                before, after = [r["other_base"] for r in runs], [r["other_tuned"] for r in runs]
            else:
                before = [r["corpora_base"][key] for r in runs]
                after = [r["corpora_tuned"][key] for r in runs]
            change = np.subtract(after, before)
            gated = f", gate admits {np.mean([r.get(f'admitted_{key}', 1.0) for r in runs]):.1%}"
            if key == "other" and "other_trafilatura" in runs[0]:
                gated += f", trafilatura {np.mean([r['other_trafilatura'] for r in runs]):.4f}"
            elif key != "other" and key in runs[0].get("corpora_trafilatura", {}):
                gated += f", trafilatura {np.mean([r['corpora_trafilatura'][key] for r in runs]):.4f}"
            lines.append(
                f"  {name}: base {np.mean(before):.4f}  tuned: mean change {change.mean():+.4f}, "
                f"largest drop {-change.min():.4f}{gated}"
            )
    return lines


def train_base(args) -> None:
    """The default recipe trained without any page of the WCXB sites with two pages or more: a base that has never
    seen them, as a user's site is unseen by the shipped model (which was trained on their ``train`` pages)."""
    from scrapy_web2text.research.corpus import corpus_name, load_training_splits
    from scrapy_web2text.research.train.trainer import train

    files = sorted(Path(args.data).glob("*.jsonl.gz"))
    hosts = set(sites(Path(args.data), 2))
    train_pages, validation_pages = load_training_splits(files)
    train_pages = [page for page in train_pages if host(page.url) not in hosts]
    validation_pages = [page for page in validation_pages if host(page.url) not in hosts]
    print(f"base without {len(hosts)} sites: {len(train_pages)} train, {len(validation_pages)} validation pages")
    corpora = [corpus_name(path) for path in files]
    model = train(train_pages, validation_pages, "default", seed=args.seed, iterations=args.base_iterations,
                  corpora=corpora, threads=1)  # fmt: skip
    model.metadata.update(name="held-out-base", held_out_sites=sorted(hosts))
    print(f"written {model.save(args.train_base)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", help="start from this model instead of the shipped one")
    parser.add_argument("--train-base", metavar="STEM", help="train the held-out base model to STEM and stop")
    parser.add_argument("--base-iterations", type=int, default=3000)
    parser.add_argument("--data", default=str(default_data_dir()))
    parser.add_argument("--k", type=int, nargs="+", default=[2], help="corrected pages per site")
    parser.add_argument("--draws", type=int, default=1, help="random draws of the k pages per site")
    parser.add_argument("--sites", nargs="+", help="only the sites whose name contains one of these")
    parser.add_argument("--max-sites", type=int, help="only the first N qualifying sites")
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--anchor", type=float, default=0.0, help="pull towards the base's weights (L2-SP)")
    parser.add_argument("--networks", nargs="+", default=["unary", "pairwise"], help="the networks tuned")
    parser.add_argument("--site-gate", type=float, default=SITE_GATE, help="share of the template (0: no gate)")
    parser.add_argument("--no-rebalance", dest="rebalance", action="store_false", help="keep the base's threshold")
    parser.add_argument("--mix", type=int, default=180, help="training pages mixed in (corpora in proportion)")
    parser.add_argument("--other-pages", type=int, default=40, help="other sites' pages scored per model (0: none)")
    parser.add_argument("--forgetting-pages", type=int, default=20, help="pages per corpus (0: none)")
    parser.add_argument("--forgetting-split", nargs="+", default=["test"], choices=["test", "validation"])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="write every row and the report here")
    parser.add_argument("--report-from", metavar="LOG", help="only report the rows an earlier run printed")
    args = parser.parse_args()
    if args.report_from:
        lines = Path(args.report_from).read_text().splitlines()
        print("\n".join(report([json.JSONDecoder().raw_decode(line)[0] for line in lines if line.startswith("{")])))
        return
    import torch

    torch.set_num_threads(1)
    if args.train_base:
        train_base(args)
        return
    started = time.perf_counter()
    data = Path(args.data)
    base, base_path = load_model(args.base), args.base
    files = sorted(path for path in data.glob("*.jsonl.gz") if "metadata" not in path.name)  # pages only
    mix = sample_training_pages(files, args.mix, args.seed) if args.mix else []
    every_site = sites(data, 2)
    others = random.Random("others").sample([r for rs in every_site.values() for r in rs], args.other_pages)
    forgetting = {}  # "corpus/split": pages (WCXB has no test split)
    for path, split in [(p, s) for p in files for s in args.forgetting_split] if args.forgetting_pages else ():
        records = list(iter_records(path, split))
        if records:
            wanted = min(args.forgetting_pages, len(records))
            forgetting[f"{path.name.split('.')[0]}/{split}"] = random.Random(path.name).sample(records, wanted)
    scores = Scores(load_peers(["trafilatura"])[0]["trafilatura"])
    print(f"{len(mix)} pages mixed in, {len(others)} other sites' pages, forgetting: "
          + ", ".join(f"{c} {len(r)}" for c, r in forgetting.items()), flush=True)  # fmt: skip
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for k in args.k:
            chosen = {
                n: rs for n, rs in sites(data, k + 1).items() if not args.sites or any(s in n for s in args.sites)
            }
            for name in list(chosen)[: args.max_sites]:
                for draw in range(args.draws):
                    row = site_row(name, chosen[name], k, draw, base, base_path, mix, others, forgetting, scores,
                                   Path(folder), args)  # fmt: skip
                    rows.append(row)
                    print(json.dumps(row), f"{time.perf_counter() - started:.0f} s", flush=True)
    lines = report(rows)
    print("\n".join(lines), f"\ntotal {time.perf_counter() - started:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "report": lines}, indent=1) + "\n")


if __name__ == "__main__":
    main()
