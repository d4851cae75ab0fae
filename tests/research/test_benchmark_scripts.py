"""The benchmark and research scripts run against the current chain (they import internals that move with the code)."""

import dataclasses
import gzip
import importlib.util
import json
import subprocess
import sys

import numpy as np
import pytest

from scrapy_web2text import extract, load_model
from scrapy_web2text.page import parse_page

from ..helpers import corpus_file
from ..scrapy_support import REPO
from ..site import build_site


def test_speed_script_times_every_stage_of_the_shipped_model():
    corpus_file("readability")  # the script reads ../shared/data
    done = subprocess.run(
        [
            sys.executable,
            "benchmarks/speed.py",
            "--corpus",
            "readability",
            "--limit",
            "2",
            "--repeat",
            "1",
            "--no-memory",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    # trafilatura's rows appear only where the bench extra is installed; CI installs train, test and docs.
    rows = (
        "extract()",
        "extract(), first run",
        "lxml parse+visit",
        "cdom walk",
        "features",
        "cnns",
        "viterbi",
        "extract() / lxml",
    )
    # Where the compiled twins run (CI's main leg), the script also times the Python originals in the same run;
    # the no-compiler leg has none to switch off.
    from scrapy_web2text.page.twins import twins_in_use

    in_use = any(twins_in_use().values())
    compared = ("extract(), Python only", "extract() / extract(), Python only") if in_use else ()
    for row in (*rows, *compared):
        assert row in done.stdout, row


def _script(name: str, folder: str = "benchmarks"):
    spec = importlib.util.spec_from_file_location(f"{folder}_{name}", REPO / folder / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_an_ensemble_of_one_model_twice_labels_as_that_model():
    ensemble = _script("ensemble", "research")
    model = load_model()
    twice = ensemble.EnsembleModel.of([model, model], threshold=model.config["threshold"])
    site = build_site(articles=2, extras=False)
    for path in site.expected:
        html = site.resources[path].body
        alone, both = extract(html, model=model), extract(html, model=twice)
        assert [b.label for b in both.blocks] == [b.label for b in alone.blocks]
        assert both.main_text == alone.main_text
        assert np.allclose([b.probability for b in both.blocks], [b.probability for b in alone.blocks], atol=1e-6)
    other_lambda = dataclasses.replace(model, config={**model.config, "lambda": model.lam + 0.1})
    with pytest.raises(ValueError, match="λ"):
        ensemble.EnsembleModel.of([model, other_lambda])


def test_ensemble_names_a_missing_corpus_file_as_web2text_train_does(tmp_path, capsys):
    missing = str(tmp_path / "nowhere.jsonl.gz")
    with pytest.raises(SystemExit) as stop:
        _script("ensemble", "research").main([f"--data={missing}", "score", "one=default"])
    assert stop.value.code == 2
    assert f"corpus file(s) not found: {missing}" in capsys.readouterr().err


def test_cross_validation_labels_each_page_with_the_model_that_held_it_out():
    cross = _script("cross_validation")
    ids = [f"page-{n}" for n in range(40)]
    folds = [cross.fold_of(page_id) for page_id in ids]
    assert folds == [cross.fold_of(page_id) for page_id in ids]  # the same split on every call
    assert 10 <= sum(folds) <= 30  # both folds hold a fair share
    model = load_model()
    models = [
        dataclasses.replace(model, metadata={**model.metadata, "name": f"fold{fold}"}) for fold in range(cross.FOLDS)
    ]
    labeller = cross.OutOfFold(models)
    html = build_site(articles=1, extras=False).resources["/article/0.html"].body
    records = [{"id": page_id, "html": html} for page_id in ids]
    seen = [labeller(parse_page(record["html"])).model_name for record in labeller.records(records)]
    assert seen == [f"fold{fold}" for fold in folds]


def test_round3_study_scores_variants_per_page_and_tables_them(tmp_path):
    data = corpus_file("readability")
    rows = tmp_path / "rows.jsonl"
    collect = [sys.executable, "research/round3_study.py", "collect", "--split", "validation", "--limit", "2"]
    collect += ["--models", "scrapy_web2text/models/default.npz", "--data", str(data)]
    collect += ["--peer-cache", str(tmp_path / "peer"), "-o", str(rows)]
    done = subprocess.run(collect, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    table = [sys.executable, "research/round3_study.py", "table", str(rows), "--min-pages", "1"]
    table += ["--page-types", "scrapy_web2text/models/page_types", "--policies", "base", "article=hidden,*=base"]
    done = subprocess.run(table, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "readability" in done.stdout and "article=hidden" in done.stdout


def test_the_pathological_report_reads_the_suite_of_pathological_cases():
    report = _script("pathological_report")
    assert report.suite.CASES and all(hasattr(case, "make") and hasattr(case, "check") for case in report.suite.CASES)


def test_collapsed_pages_script_replicates_the_labeller_and_names_each_collapse_cause(tmp_path, capsys):
    collapsed = _script("collapsed")
    site = build_site(articles=3, extras=False)
    corpus = tmp_path / "built.jsonl.gz"
    with gzip.open(corpus, "wt", encoding="utf-8") as out:
        for n, path in enumerate(sorted(site.expected)):
            text = "\n".join(site.expected[path])
            out.write(
                json.dumps(
                    {
                        "id": f"built-{n}",
                        "split": "validation",
                        "html": site.resources[path].body.decode(),
                        "text": text,
                    }
                )
                + "\n"
            )
    rows = tmp_path / "rows.jsonl"
    # collect asserts that its replica of the decision keeps what web2text_labels keeps, page by page
    collapsed.main(
        ["collect", "--split", "validation", "--data", str(corpus), "--peer-cache", str(tmp_path / "peer")]
        + ["--check", "10", "-o", str(rows)]
    )
    assert "3 pages checked" in capsys.readouterr().out
    written = [json.loads(line) for line in rows.read_text().splitlines()]
    assert [row["id"] for row in written] == ["built-0", "built-1", "built-2"]
    for row in written:
        (result,) = row["models"]
        assert result["with"][1] > 0.9  # the built articles keep their paragraphs
        assert len(result["p"]) == len(result["chars"]) == len(result["kept"])
        assert all(float(threshold) < result["threshold"] for threshold in result["grid"])
    collapsed.main(["table", str(rows), "--min-pages", "1"])
    assert "collapsed: 0.0 pages a file, 0.00 % of 3" in capsys.readouterr().out

    lost = {"with": [1.0, 0.1, 0.2], "alone": [1.0, 0.1, 0.2], "grid": {"0.1": [0.8, 0.9, 0.85, 900]}}
    assert collapsed.collapsed(lost, traf_recall=0.8) and not collapsed.collapsed(lost, traf_recall=0.5)
    assert collapsed.cause(lost) == "threshold"
    assert collapsed.cause({**lost, "grid": {"0.1": [0.8, 0.3, 0.4, 900]}}) == "ranking"
    assert collapsed.cause({**lost, "alone": [0.9, 0.8, 0.85]}) == "rules"


def test_second_opinion_study_applies_the_step_as_the_labeller_does(tmp_path, capsys):
    study = _script("second_opinion_study")
    from scrapy_web2text.labellers.web2text import second_opinion

    grid = {"0.3": [0.9, 0.5, 0.6, 400], "0.2": [0.8, 0.9, 0.85, 1200], "0.1": [0.5, 1.0, 0.66, 3000]}
    model = {"with": [1.0, 0.1, 0.2], "alone": [1.0, 0.1, 0.2], "kept": "1000", "chars": [100, 900, 900, 900]}
    model |= {"types": {"article": 0.2, "forum": 0.8}, "grid": grid}
    opinion = {"id": "p", "total": 2800, "other": 1000}
    row = {"id": "p", "corpus": "wcxb", "type": "forum", "lang": "en", "traf": [0.9, 0.9, 0.9], "models": [model]}
    # The first threshold of the grid that keeps as many characters as the other extractor found.
    assert study.step(row, model, opinion) == [0.8, 0.9, 0.85]
    assert study.step(row, model, {**opinion, "other": 5000}) == [0.5, 1.0, 0.66]  # none does: the lowest
    assert study.step(row, model, {**opinion, "other": 250}) == model["with"]  # under MIN_RATIO times the kept
    assert study.step(row, {**model, "types": {"article": 0.9}}, opinion) == model["with"]
    assert study.step(row, model, {**opinion, "total": 900}) == model["with"]  # keeps a tenth of the page
    # Rows collected with the step already in the chain are scored from the chain before it.
    stepped = {**model, "with": [0.8, 0.9, 0.85], "before_opinion": [1.0, 0.1, 0.2], "kept_before_opinion": "1000"}
    assert study.step(row, stepped, opinion) == [0.8, 0.9, 0.85]
    assert second_opinion.MIN_RATIO * 100 < opinion["other"]

    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps(row) + "\n")
    opinions = tmp_path / "opinions.jsonl"
    opinions.write_text(json.dumps(opinion) + "\n")
    study.main(["table", "--opinions", str(opinions), str(rows), "--min-pages", "1"])
    out = capsys.readouterr().out
    assert "all                         1  0.2000    0.8500  +0.6500      0     1" in out
    assert "collapsed: 1.0 -> 0.0 pages a file" in out


def test_cut_variants_pick_the_grid_threshold_each_variant_names(tmp_path, capsys):
    variants = _script("cut_variants", "research")
    grid = {"0.35": [0.9, 0.5, 0.6, 300], "0.25": [0.8, 0.9, 0.85, 900], "0.2": [0.8, 0.9, 0.85, 900]}
    grid["0.1"] = [0.5, 1.0, 0.66, 2000]
    lost = {"threshold": 0.4, "with": [1.0, 0.1, 0.18], "alone": [1.0, 0.1, 0.18], "sparse_units": False}
    lost |= {"kept": "1000", "chars": [100, 900, 900, 900], "p": [0.5, 0.3, 0.2, 0.05], "grid": grid}
    assert variants.kept_share(lost) == 100 / 2800
    assert variants.as_trained(lost) == lost["with"]
    assert variants.cut(0.35)(lost) == [0.9, 0.5, 0.6]
    assert variants.cut(0.2, gate=0.2)(lost) == [0.8, 0.9, 0.85]
    assert variants.cut(0.2, gate=0.02)(lost) == lost["with"]  # keeps more than that share of the page
    assert variants.cut(0.2)({**lost, "sparse_units": True}) == lost["with"]  # decoded again already
    assert variants.cut(0.2)({**lost, "before_opinion": [1.0, 0.1, 0.18]}) == lost["with"]
    # The highest grid threshold at most k times the page's highest p(content) (0.5), never under the floor.
    assert variants.relative(0.5, gate=0.2, floor=0.1)(lost) == grid["0.25"][:3]  # at most 0.25
    assert variants.relative(0.1, gate=0.2, floor=0.1)(lost) == [0.5, 1.0, 0.66]  # 0.05 → the floor
    assert variants.at(lost, 0.3) == lost["with"]  # not in the grid: the chain as it is
    # A likely article is cut lower only where the chain keeps under article_chars (it keeps 100 here).
    article = {**lost, "types": {"article": 0.9}}
    assert variants.relative(0.5, gate=0.2, floor=0.1, article_chars=500)(article) == grid["0.25"][:3]
    assert variants.relative(0.5, gate=0.2, floor=0.1, article_chars=100)(article) == lost["with"]
    assert variants.relative(0.5, gate=0.2, floor=0.1, article_chars=100)(lost) == grid["0.25"][:3]  # no type

    kept = {**lost, "with": [0.9, 0.95, 0.92], "alone": [0.9, 0.95, 0.92], "kept": "1111"}
    row = {"corpus": "wcxb", "type": "forum", "lang": "de", "traf": [0.9, 0.9, 0.9]}
    rows = tmp_path / "rows.jsonl"
    lines = [json.dumps({**row, "id": page, "models": [result]}) for page, result in (("a", lost), ("b", kept))]
    rows.write_text("\n".join(lines) + "\n")
    variants.main([str(rows), "--cut", "0.2", "--relative", "0.5"])
    lines = {line.split("  ")[0]: line for line in capsys.readouterr().out.splitlines()}
    assert lines["as trained"].split()[2:4] == ["1.0", "(1)"]  # page a collapses; b keeps its text
    assert lines["cut 0.2"].split()[2:4] == ["0.0", "(0)"]
    assert lines["cut 0.2"].split()[-2:] == ["1", "1"]  # a gains; b, kept whole, loses to the ungated cut
    assert lines["gated cut 0.2"].split()[-2:] == ["0", "1"]
    assert lines["relative 0.5"].split()[2:4] == ["0.0", "(0)"]
    assert "0.9000" in lines["trafilatura"]
