"""web2text warc on real archives (warcio-written WARC, gzip and not, and an ARC) and a real Dask local cluster."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from collections import Counter

import pytest
from dask.distributed import Client, LocalCluster

from scrapy_web2text.batch.runner import Options, available_formats, run, worker_model
from scrapy_web2text.cli import main
from scrapy_web2text.extraction import extract

from ..scrapy_support import REPO
from ..warc_support import arc_archive, mixed_archive


@pytest.fixture(scope="module")
def archives(tmp_path_factory):
    folder = tmp_path_factory.mktemp("archives")
    return [
        mixed_archive(folder / "a.warc.gz", compressed=True, seed=1, pages=12),
        mixed_archive(folder / "b.warc", compressed=False, seed=2, pages=8),
        arc_archive(folder / "c.arc.gz", seed=3, pages=5),
    ]


@pytest.fixture(scope="module")
def client():
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0"
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client


def read_rows(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def expected_rows(archives) -> dict[str, dict]:
    return {page["url"]: page for _path, expected in archives for page in expected.html}


def check_rows(rows, archives, model, formats=()) -> None:
    expected = expected_rows(archives)
    assert sorted(row["url"] for row in rows) == sorted(expected), "exactly one row per HTML response record"
    for row in rows:
        page = expected[row["url"]]
        assert row["warc_record_id"] == page["record_id"]
        reference = extract(page["body"], row["url"], model=model, encoding=page["charset"])
        assert row["main_text"] == reference.main_text, row["url"]
        assert row["title"] == reference.title, row["url"]  # the headline, as extract() finds it
        assert row["warc_date"].startswith(("20", "19"))
        assert row["http_status"] == 200
        assert "error" not in row


def test_warc_rows_match_extract_page_by_page(archives, client, untrained_model, tmp_path):
    output, formats = tmp_path / "out.jsonl", ("markdown", "html")
    summary = run(
        [path for path, _ in archives],
        output,
        client=client,
        options=Options(formats=("text", *formats), model=str(untrained_model)),
        chunk_records=7,
    )
    check_rows(read_rows(output), archives, str(untrained_model), formats)
    skipped = sum((expected.skipped for _path, expected in archives), Counter())
    assert {key.split("/", 1)[1]: n for key, n in summary.counts.items() if key.startswith("skipped/")} == skipped
    assert summary.counts["records"] == sum(expected.records for _path, expected in archives)
    assert summary.counts["html"] == summary.counts["rows"] == len(expected_rows(archives))
    assert summary.counts["bad_charset"] == 2
    assert summary.counts["errors"] == 0 and not summary.failed
    assert summary.inputs_done == 3
    loads = client.run(lambda: worker_model.cache_info().misses)
    calls = client.run(lambda: worker_model.cache_info().hits + worker_model.cache_info().misses)
    assert len(loads) == 2 and all(count <= 1 for count in loads.values()), loads  # at most once per process
    frozen = client.run(gc.get_freeze_count)  # what a worker loaded once is out of the collector's way
    assert all(frozen[worker] > 0 for worker, count in loads.items() if count), frozen
    assert sum(calls.values()) == len(expected_rows(archives)) + skipped["binary"]  # extract() ran on those too


def test_a_worker_loads_the_language_identifier_with_its_model(untrained_model):
    """Before its first record, not at its first non-English page (the slowest load a record sets off), and before
    ``gc.freeze``.  In a fresh process, since this one may have loaded the identifier already."""
    script = (
        "from scrapy_web2text.batch.runner import worker_model\n"
        "from scrapy_web2text.labellers.web2text import languages\n"
        "before = languages.identifier_loaded()\n"
        f"worker_model({str(untrained_model)!r})\n"
        "print(before, languages.identifier_loaded())\n"
    )
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, env=environment)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-2:] == ["False", "True"]


@pytest.mark.parametrize("where", ["cluster", "this process"])
def test_warc_resume_skips_finished_inputs_and_pieces(archives, client, untrained_model, tmp_path, where):
    client = client if where == "cluster" else None  # no client and one worker: the tasks run in this process
    output, options = tmp_path / "out.jsonl", Options(model=str(untrained_model))
    inputs = [path for path, _ in archives]
    run(inputs[:1], output, client=client, options=options, chunk_records=5)
    again = run(inputs[:1], output, client=client, options=options, chunk_records=5)
    assert again.inputs_skipped == 1 and again.counts["records"] == 0
    # A run that stopped inside the second input: two pieces noted, a piece's rows half written after them.
    run(inputs[1:2], output, client=client, options=options, chunk_records=5)
    done = output.with_name("out.jsonl.done")
    lines = done.read_text().splitlines()
    second = [line for line in lines if json.loads(line)["input"] == str(inputs[1])]
    kept = lines[: lines.index(second[1]) + 1]
    done.write_text("\n".join(kept) + "\n" + second[-1][:20])  # and the next note cut short
    with output.open("ab") as out:
        out.write(b'{"url": "http://half.example/written", "main_te')
    summary = run(inputs, output, client=client, options=options, chunk_records=5)
    assert summary.inputs_skipped == 1 and summary.inputs_done == 2
    assert summary.counts["records"] < archives[1][1].records + archives[2][1].records
    check_rows(read_rows(output), archives, str(untrained_model))
    assert run(inputs, output, client=client, options=options, chunk_records=5).inputs_skipped == 3


def test_warc_command_joins_a_scheduler_and_prints_the_summary(archives, client, untrained_model, tmp_path, capsys):
    output = tmp_path / "cli.jsonl"
    argv = ["warc", str(archives[0][0]), str(archives[2][0]), "-o", str(output), "--model", str(untrained_model)]
    assert main([*argv, "--scheduler", client.scheduler.address, "--formats", "text", "--no-progress"]) == 0
    rows = read_rows(output)
    assert len(rows) == len(archives[0][1].html) + len(archives[2][1].html)
    err = capsys.readouterr().err
    assert "inputs: 2 done" in err and "skipped: " in err and "image 2" in err


def test_warc_command_starts_its_own_cluster(archives, untrained_model, tmp_path):
    output = tmp_path / "own.jsonl"
    inputs = [str(path) for path, _ in archives[:2]]
    command = [sys.executable, "-m", "scrapy_web2text.cli", "warc", *inputs, "-o", str(output), "--workers", "2"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [*command, "--model", str(untrained_model)], capture_output=True, text=True, timeout=180, env=env
    )
    assert done.returncode == 0, done.stderr[-3000:]
    check_rows(read_rows(output), archives[:2], str(untrained_model))
    assert "inputs: 2 done" in done.stderr and "Traceback" not in done.stderr
    assert "rec/s" not in done.stderr  # no progress bar when standard error is not a terminal


def test_a_task_that_fails_in_this_process_fails_its_input_only(archives, untrained_model, tmp_path, monkeypatch):
    """In this process as on a cluster: the failing input is reported, the others are done, each task runs once."""
    from scrapy_web2text.batch import runner

    broken, calls = str(archives[1][0].resolve()), []
    real = runner.extract_piece

    def extract_piece(path, *args):
        calls.append(path)
        if path == broken:
            raise OSError("disk gone")
        return real(path, *args)

    monkeypatch.setattr(runner, "extract_piece", extract_piece)
    inputs = [path for path, _ in archives]
    summary = run(inputs, tmp_path / "out.jsonl", options=Options(model=str(untrained_model)), chunk_records=1000)
    assert summary.failed == {broken: "OSError: disk gone"} and summary.inputs_done == 2
    assert sorted(calls) == sorted(str(path.resolve()) for path in inputs)  # one piece each, run once
    rows = read_rows(tmp_path / "out.jsonl")
    assert {row["url"] for row in rows} == set(expected_rows([archives[0], archives[2]]))


def test_warc_command_with_one_worker_runs_in_its_own_process(archives, untrained_model, tmp_path):
    """The default: no cluster started, Dask not even imported, the same rows and summary."""
    output = tmp_path / "here.jsonl"
    argv = ["warc", *(str(path) for path, _ in archives), "-o", str(output), "--model", str(untrained_model)]
    script = (
        "import sys\n"
        "from scrapy_web2text.cli import main\n"
        f"code = main({argv!r})\n"
        "print('dask imported:', 'distributed' in sys.modules or 'dask' in sys.modules)\n"
        "sys.exit(code)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=180, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().endswith("dask imported: False")
    check_rows(read_rows(output), archives, str(untrained_model))
    assert "inputs: 3 done" in done.stderr and "Traceback" not in done.stderr


def test_warc_command_errors(archives, tmp_path, capsys):
    output = tmp_path / "never.jsonl"
    assert main(["warc", str(tmp_path / "missing.warc.gz"), "-o", str(output)]) == 2
    assert "not found" in capsys.readouterr().err and "missing.warc.gz" not in {p.name for p in tmp_path.iterdir()}
    assert main(["warc", str(archives[0][0]), "-o", str(output), "--formats", "text,nonsense"]) == 2
    err = capsys.readouterr().err
    assert "nonsense" in err and "text" in err
    assert not output.exists()
    assert available_formats() == ["text", "html", "markdown"]


def test_warc_command_writes_the_records_before_a_cut_and_fails_on_it(
    archives, client, untrained_model, tmp_path, capsys
):
    whole = archives[0][0].read_bytes()
    cut = tmp_path / "cut.warc.gz"
    cut.write_bytes(whole[: len(whole) * 8 // 10])
    output = tmp_path / "cut.jsonl"
    argv = ["warc", str(cut), str(archives[2][0]), "-o", str(output), "--model", str(untrained_model)]
    assert main([*argv, "--scheduler", client.scheduler.address, "--chunk-records", "4", "--no-progress"]) == 1
    rows = read_rows(output)
    errors = [row for row in rows if "error" in row]
    assert len(errors) == 1 and errors[0]["error"].startswith("archive damaged at offset")
    kept = [row for row in rows if "error" not in row and row["url"].startswith("https://news.example.org")]
    assert 0 < len(kept) < len(archives[0][1].html)  # the records before the cut, each whole
    assert all(row["main_text"] for row in kept) and len(rows) == len(kept) + 1 + len(archives[2][1].html)
    assert "archives damaged or cut short: 1" in capsys.readouterr().err


def test_every_format_is_a_rendering_extraction_provides():
    from scrapy_web2text import Extraction

    assert all(isinstance(getattr(Extraction, name, None), property) for name in available_formats()[1:])
