"""Time every pathological-input case of tests/extraction/test_pathological.py (tests never assert timings).

    python benchmarks/pathological_report.py [--model PATH_OR_NAME]

One row per case: outcome, seconds for ``extract()``, blocks, truncated.  Without ``--model`` an untrained model
labels the blocks: parsing and features, which take most of the time, do not depend on the weights.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "extraction"))

import test_pathological as suite  # noqa: E402

from scrapy_web2text import Web2TextModel, extract, load_model  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="model name or path (default: untrained, seed 0)")
    args = parser.parse_args(argv)
    model = load_model(args.model) if args.model else Web2TextModel.initialised(seed=0)
    with tempfile.TemporaryDirectory() as tmp:
        secret = Path(tmp) / "secret.txt"
        secret.write_text(suite.XXE_SECRET)
        cases = list(suite.CASES) + [
            suite.Case(
                "external entity (local file)",
                lambda: (suite._external_entity(str(secret)), {}),
                lambda r: suite._expect(suite.XXE_SECRET not in suite.joined(r)),
                "file never read",
            )
        ]
        print(f"{'case':<36} {'outcome':<10} {'seconds':>8} {'blocks':>7}  truncated")
        failures = 0
        total = 0.0
        for case in cases:
            html, kwargs = case.make()
            clock = time.perf_counter()
            try:
                result = extract(html, model=model, **kwargs)
                seconds = time.perf_counter() - clock
                suite._common_invariants(result)
                case.check(result)
                outcome, blocks, truncated = "ok", len(result.blocks), result.truncated
            except Exception as error:  # report, do not stop
                seconds = time.perf_counter() - clock
                outcome, blocks, truncated = f"FAIL {type(error).__name__}", "-", "-"
                failures += 1
            total += seconds
            print(f"{case.name:<36} {outcome:<10} {seconds:8.3f} {blocks!s:>7}  {truncated}")
        print(f"{len(cases)} cases, {failures} failed, {total:.1f} s in extract()")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
