"""The benchmark scripts run against the current chain (they import internals that move with the code)."""

import subprocess
import sys

from .helpers import corpus_file
from .scrapy_support import REPO


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
    # CI builds the compiled twins, so the script also times the Python originals in the same run.
    for row in (*rows, "extract(), Python only", "extract() / extract(), Python only"):
        assert row in done.stdout, row
