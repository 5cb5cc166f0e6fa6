"""Load benchmark: a team's viewers and a writer on a deployment (issue 38). Prints figures; asserts nothing
(tests/test_load.py holds the no-error bound).

    python bench/bench_load.py [--viewers 20] [--seconds 60] [--pause 1.0] [--write-every 2.0]

Through Debian's nginx in front of two read-only replicas of a copy of the bundled samples: first the baseline,
one viewer and no writer, then ``--viewers`` sessions pausing ``--pause`` s (±50 %) between page runs while a new
version is published every ``--write-every`` s (tests/load.py). Page time is from the rerun asked to the script
finished, as the session's WebSocket sees it; ratios are against the baseline of the same run.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from model.data.samples import load_samples  # noqa: E402
from model.data.store import connect  # noqa: E402
from tests.load import run_load  # noqa: E402


def _store(folder: Path) -> Path:
    db = folder / "live.duckdb"
    con = connect(db)
    load_samples(con)
    con.close()
    return db


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--viewers", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--pause", type=float, default=1.0)
    parser.add_argument("--write-every", type=float, default=2.0)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="costfrontier-load-"))
    try:
        (folder / "base").mkdir()
        base = run_load(_store(folder / "base"), folder / "base", viewers=1, seconds=min(20.0, args.seconds),
                        write_every_s=1e9, pause_s=args.pause)
        print(f"baseline, 1 viewer, no writes: {base.summary()}")
        (folder / "load").mkdir()
        load = run_load(_store(folder / "load"), folder / "load", viewers=args.viewers, seconds=args.seconds,
                        write_every_s=args.write_every, pause_s=args.pause)
        print(f"{args.viewers} viewers, a write every {args.write_every:g} s: {load.summary()}")
        mb, ml = statistics.median(base.seconds), statistics.median(load.seconds)
        print(f"ratios to the baseline: median page time {ml / mb:.2f}x, p95 {load.p(0.95) / base.p(0.95):.2f}x; "
              f"faults {len(load.faults)} in {load.runs} runs")
        for fault in sorted(set(load.faults))[:10]:
            print(f"  fault: {fault}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
