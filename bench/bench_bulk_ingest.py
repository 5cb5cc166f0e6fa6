"""Files per second of ``costfrontier ingest DIR`` on a directory of small CSVs, this tree against a base tree
(issue 32: "bulk ingest at the speed of the store").

    python bench/bench_bulk_ingest.py [--sizes 100 1000 5000] [--repeat 1] [--base /work/main] [--base-max N]

For each size, writes that many two-line CSVs (a header and one load point, the columns of the bundled
``data/samples/inferencex_glm5_fp8_2026-05-20.csv``, every file distinct) into a temporary folder, then runs
the real command in a fresh process into a fresh database, the base tree and this tree alternately
(base first), ``--repeat`` times each. Prints, per run and then as medians: the wall time (start-up and
imports included, as a CI job sees it), files/s, the CPU seconds of the process (user + system; steadier
than the wall time on a shared machine), and the ratios this tree / base. ``--base-max N`` runs the base only at
sizes up to N files (the base takes minutes per thousand files on a busy machine); larger sizes are then
compared with the base's files/s and CPU per file at its largest size, marked "(at N)". The machine's load
(``/proc/loadavg``) is printed before and after. Asserts nothing, except that every file was stored.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "samples" / "inferencex_glm5_fp8_2026-05-20.csv"


def write_sweep(folder: Path, count: int) -> None:
    """``count`` distinct two-line canonical CSVs: the sample's header and one row of its shape."""
    header = SAMPLE.read_text(encoding="utf-8").splitlines()[0]
    folder.mkdir(parents=True)
    for f in range(count):
        row = (f"B200,sglang,fp8,mtp,8,8,8192,1024,{4 + f % 256},{400 + f * 0.37:.2f},"
               f"{100 - (f % 9000) * 0.01:.2f},9.92,1.30")
        (folder / f"run{f:05d}.csv").write_text(f"{header}\n{row}\n", encoding="utf-8")


def python_of(tree: Path) -> str:
    venv = tree / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def run_once(tree: Path, folder: Path, work: Path, count: int) -> tuple[float, float]:
    """(wall s, CPU s) of one ``ingest`` of ``folder`` into a new database, by ``tree``'s code."""
    db = work / "bench.duckdb"
    for old in work.glob("bench.duckdb*"):
        old.unlink()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    done = subprocess.run([python_of(tree), "-m", "model.cli", "--db", str(db), "ingest", str(folder)], cwd=tree,
                          capture_output=True, text=True, env={**os.environ, "COSTFRONTIER_DB": str(db)})
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{tree}: ingest failed ({done.returncode}): {done.stderr[-2000:]}")
    added = done.stdout.count(" row added as points")
    if added != count:
        raise SystemExit(f"{tree}: {added} of {count} files stored")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def load() -> str:
    return Path("/proc/loadavg").read_text().strip() if Path("/proc/loadavg").exists() else "unknown"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 5000])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--base", type=Path, default=Path("/work/main"), help="the tree to compare with")
    parser.add_argument("--base-max", type=int, default=None, help="run the base only at sizes up to this")
    args = parser.parse_args(argv)
    print(f"load before: {load()}  ({os.cpu_count()} cores)")
    print(f"this tree: {ROOT}\nbase tree: {args.base}")
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-bulk-") as tmp:
        for count in args.sizes:
            folder = Path(tmp) / f"files{count}"
            write_sweep(folder, count)
            times: dict[str, list[tuple[float, float]]] = {"base": [], "this": []}
            for r in range(args.repeat):
                for label, tree in (("base", args.base), ("this", ROOT)):
                    if label == "base" and args.base_max is not None and count > args.base_max:
                        continue
                    work = Path(tmp) / label
                    work.mkdir(exist_ok=True)
                    wall, cpu = run_once(tree, folder, work, count)
                    times[label].append((wall, cpu))
                    print(f"  {count:>5} files, {label}, run {r + 1}: {wall:7.1f} s wall, {count / wall:6.1f} files/s, "
                          f"{cpu:6.1f} CPU s   (load {load().split()[0]})", flush=True)
            med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in times.items()
                   if v}
            rows.append((count, med))
            shutil.rmtree(folder)
    print(f"\nload after: {load()}")
    print(f"\n{'files':>6} | {'base files/s':>12} {'this files/s':>12} {'ratio':>6} | {'base CPU s':>10} "
          f"{'this CPU s':>10} {'ratio':>6}")
    last = None   # (files, base wall s, base CPU s) at the largest size the base ran
    for count, med in rows:
        (tw, tc), note = med["this"], ""
        if "base" in med:
            last = (count, *med["base"])
            bw, bc = med["base"]
        elif last:   # the base's rate and CPU per file at its largest size
            bw, bc, note = last[1] * count / last[0], last[2] * count / last[0], f"  (base at {last[0]})"
        else:
            print(f"{count:>6} | {'-':>12} {count / tw:12.1f} {'-':>6} | {'-':>10} {tc:10.1f}")
            continue
        print(f"{count:>6} | {count / bw:12.1f} {count / tw:12.1f} {bw / tw:5.1f}x | {bc:10.1f} {tc:10.1f} "
              f"{bc / tc:5.1f}x{note}")


if __name__ == "__main__":
    main()
