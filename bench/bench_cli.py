"""CLI start-up benchmark: whole-process CPU of ``costfrontier`` commands against ``python -c "import duckdb"``.
Prints figures; asserts nothing.

    python bench/bench_cli.py [--runs 5]

Each command runs as its own process (``python -m model.cli ...``) and is measured by its CPU time,
user + system, from ``os.wait4`` (wall time on a shared machine says more about the neighbours than about
us). Baseline, in the same run: ``python -c "import duckdb"``. Median of ``--runs`` each; ratio = command /
baseline. Targets (issue 19): ``--help`` at most 2x, ``iso`` on the samples at most 3x. It also prints each command
against the floor any command that reads the store pays, ``import duckdb, numpy, pandas, pydantic`` (issue 48:
``iso`` at most 1.3x it), with what a run before kept (``model.data.memo``: the fit and the calibration) and with
nothing kept.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cpu_seconds(argv: list[str], env: dict) -> float:
    """User + system CPU of one child process that runs ``argv`` to its end."""
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT, env=env)
    _, _, usage = os.wait4(proc.pid, 0)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "samples.duckdb")
        subprocess.run([py, "-m", "model.cli", "--db", db, "load-samples"], check=True, cwd=ROOT, env=env,
                       stdout=subprocess.DEVNULL)
        cli = [py, "-m", "model.cli"]
        fresh = str(Path(tmp) / "fresh-kept")      # a folder emptied before each run: every fit made again
        cases = {
            'python -c "import duckdb" (baseline)': [py, "-c", "import duckdb"],
            "costfrontier --help": [*cli, "--help"],
            "costfrontier iso --basis nonsense (usage error)": [*cli, "iso", "--basis", "nonsense"],
            "costfrontier iso (samples, the fit kept from a run before)": [*cli, "--db", db, "iso"],
            "costfrontier iso (samples, nothing kept: fitted and kept)": ["env", f"COSTFRONTIER_CACHE_DIR={fresh}",
                                                                          *cli, "--db", db, "iso"],
            "costfrontier iso --method monotone (samples)": [*cli, "--db", db, "iso", "--method", "monotone"],
            "costfrontier crossover (samples)": [*cli, "--db", db, "crossover"],
            'python -c "import duckdb, numpy, pandas, pydantic" (floor)': [py, "-c",
                                                                          "import duckdb, numpy, pandas, pydantic"],
        }
        # interleaved, so a burst of load from the neighbours falls on every case alike
        samples: dict[str, list[float]] = {name: [] for name in cases}
        env = {**env, "COSTFRONTIER_CACHE_DIR": str(Path(tmp) / "kept")}
        subprocess.run([*cli, "--db", db, "iso"], check=True, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)            # what a second run finds kept
        for _ in range(runs):
            for name, argv in cases.items():
                shutil.rmtree(fresh, ignore_errors=True)
                samples[name].append(cpu_seconds(argv, env))
    base = statistics.median(next(iter(samples.values())))
    floor = statistics.median(samples['python -c "import duckdb, numpy, pandas, pydantic" (floor)'])
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print(f"whole-process CPU (user+sys), median of {runs}; load average {load}")
    print(f"{'command':62s} {'CPU s':>7s} {'ratio':>6s} {'to floor':>9s}")
    for name, values in samples.items():
        median = statistics.median(values)
        print(f"{name:62s} {median:7.3f} {median / base:5.1f}x {median / floor:8.2f}x")


if __name__ == "__main__":
    main()
