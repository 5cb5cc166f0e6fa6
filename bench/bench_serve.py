"""Serving benchmark: page latency through nginx, and the peak memory of big uploads. Prints figures;
asserts nothing.

    python bench/bench_serve.py [--loads 6] [--skip-latency] [--skip-memory] [--skip-baseline]

1. Page latency: N viewers (1, 4, 8), each its own Chromium context, load the overview through
   nginx (deploy/nginx.conf.template) in front of 1 or 2 read-only replicas, ``--loads`` times each,
   all at once; latency is navigation start to the "Rows in view" figure on screen. Baseline: one
   viewer straight to one replica, no proxy, in the same run; ratios are against it.
2. Upload memory: peak RSS of a fresh process that previews and then ingests (a) a 2.4 MB CSV with
   100,000 columns and (b) a 190 MB CSV of 3.4 M points, as the dashboard does it now
   (model.data.uploads.preview, then model.data.snapshot.write + ingest_file). Baseline: the old preview, which
   ingested the whole file into an in-memory DuckDB (no column limit).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from deploy.serve import free_port, start_nginx, start_replica, stop, wait_healthy  # noqa: E402
from model.data.samples import load_samples  # noqa: E402
from model.data.store import connect  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
METRIC = '[data-testid="stMetric"]:has-text("Rows in view") [data-testid="stMetricValue"]'


async def _viewer(browser, url: str, loads: int, out: list[float]) -> None:
    context = await browser.new_context()
    page = await context.new_page()
    try:
        for _ in range(loads):
            started = time.perf_counter()
            await page.goto(url)
            await page.locator(METRIC).wait_for(timeout=120_000)
            out.append(time.perf_counter() - started)
    finally:
        await context.close()


async def _latencies(url: str, viewers: int, loads: int) -> list[float]:
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            warm: list[float] = []
            await _viewer(browser, url, 1, warm)  # server caches warm, as in a meeting after the first viewer
            out: list[float] = []
            await asyncio.gather(*(_viewer(browser, url, loads, out) for _ in range(viewers)))
            return out
        finally:
            await browser.close()


def _p(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 else values[0]


def latency(db: Path, loads: int) -> None:
    print("\n1. Page latency (overview, navigation to 'Rows in view' on screen) [s]")
    ports = [free_port(), free_port()]
    replicas = [start_replica(db, port) for port in ports]
    prefix = Path(tempfile.mkdtemp(prefix="bench-nginx-"))
    proxies = []
    try:
        for port, proc in zip(ports, replicas):
            wait_healthy(f"http://127.0.0.1:{port}", proc)
        base = asyncio.run(_latencies(f"http://127.0.0.1:{ports[0]}/", 1, loads))
        b50 = _p(base, 50)
        print(f"   baseline: 1 viewer, 1 replica, no proxy: p50 {b50:.2f}  p95 {_p(base, 95):.2f}")
        print("   replicas  viewers  p50    p95    p50/baseline  p95/baseline  loads")
        for n_replicas in (1, 2):
            listen = free_port()
            proxy = start_nginx(prefix / f"r{n_replicas}", listen, ports[:n_replicas])
            proxies.append(proxy)
            wait_healthy(f"http://127.0.0.1:{listen}", proxy)
            for viewers in (1, 4, 8):
                got = asyncio.run(_latencies(f"http://127.0.0.1:{listen}/", viewers, loads))
                print(f"   {n_replicas:>8}  {viewers:>7}  {_p(got, 50):5.2f}  {_p(got, 95):5.2f}  "
                      f"{_p(got, 50) / b50:12.2f}  {_p(got, 95) / b50:12.2f}  {len(got):>5}", flush=True)
            stop(proxy)
    finally:
        stop(*proxies, *replicas)
        shutil.rmtree(prefix, ignore_errors=True)


# ------------------------------------------------------------------------------------------- memory

CHILD = r"""
import shutil, sys, time
from pathlib import Path
mode, path, db = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
t = time.perf_counter()
if mode == "old_preview":  # what the dashboard did: the whole file into an in-memory DuckDB
    import os
    import model.data.uploads
    model.data.uploads.check_upload_shape = lambda *args, **kwargs: 0  # no column limit, as before
    from model.data.ingest import IngestError, ingest_file
    from model.data.store import connect
    con = connect(":memory:")
    try:
        outcome = ingest_file(con, path).summary
    except IngestError as exc:
        outcome = "refused: " + str(exc)[:90]
else:  # now: a sampled preview, then the ingest through the write path
    from model.data.ingest import IngestError, ingest_file
    from model.data.snapshot import write
    from model.data.preview import preview
    shown = preview(path)
    outcome = "preview " + ("ok" if shown.ok else "refused: " + shown.error[:90])
    if shown.ok:
        try:
            outcome += "; " + write(db, lambda con: ingest_file(con, path)).summary
        except IngestError as exc:
            outcome += "; refused: " + str(exc)[:90]
print(f"{time.perf_counter() - t:.1f}\t{outcome}")
"""


def _peak(mode: str, path: Path, db: Path) -> tuple[float, float, str]:
    """(peak RSS [MB], seconds, outcome) of a fresh process doing ``mode`` with ``path``."""
    with tempfile.TemporaryFile("w+") as out_file, tempfile.TemporaryFile("w+") as err_file:
        # files, not pipes: a child blocked on a full pipe would never exit
        proc = subprocess.Popen([sys.executable, "-c", CHILD, mode, str(path), str(db)], cwd=ROOT,
                                stdout=out_file, stderr=err_file, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out_file.seek(0)
        err_file.seek(0)
        out, err = out_file.read().strip(), err_file.read()
    if proc.returncode or not out or "\t" not in out.splitlines()[-1]:
        return usage.ru_maxrss / 1024, float("nan"), f"failed ({proc.returncode}): {err[-300:]}"
    seconds, outcome = out.splitlines()[-1].split("\t", 1)
    return usage.ru_maxrss / 1024, float(seconds), outcome


def wide_csv(path: Path, columns: int = 100_000, rows: int = 8) -> Path:
    """The issue's file: 100,000 columns, 2.4 MB (a header and 8 rows)."""
    names = ["hardware", "gpus", "tput_per_gpu", "tok_s_user"] + [f"c{i}" for i in range(4, columns)]
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(",".join(names) + "\n")
        for i in range(rows):
            handle.write(",".join(["B200", "8", str(1000 + i), "50"] + ["1"] * (columns - 4)) + "\n")
    return path


def memory(db: Path, tmp: Path, baseline: bool) -> None:
    from tests.test_crash_safety import write_big_csv

    print("\n2. Peak memory of one upload (fresh process: preview, then ingest)")
    wide = wide_csv(tmp / "wide_100000_columns.csv")
    big = tmp / "big_190mb.csv"
    write_big_csv(big, 3_400_000)
    print(f"   files: {wide.name} {wide.stat().st_size / 1e6:.1f} MB, {big.name} {big.stat().st_size / 1e6:.0f} MB")
    print("   file                     how                     peak RSS [MB]  time [s]  ratio  outcome")
    for path in (wide, big):
        base = None
        if baseline:
            base = _peak("old_preview", path, db)
            print(f"   {path.name:<24} old preview (whole file)  {base[0]:13,.0f}  {base[1]:8.1f}  {1:5.2f}  "
                  f"{base[2][:70]}", flush=True)
        copy = tmp / "upload.duckdb"
        shutil.copy(db, copy)
        now = _peak("new", path, copy)
        ratio = f"{now[0] / base[0]:5.2f}" if base else "   - "
        print(f"   {path.name:<24} preview + write path      {now[0]:13,.0f}  {now[1]:8.1f}  {ratio}  {now[2][:70]}",
              flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--loads", type=int, default=6, help="page loads per viewer")
    parser.add_argument("--skip-latency", action="store_true")
    parser.add_argument("--skip-memory", action="store_true")
    parser.add_argument("--skip-baseline", action="store_true", help="skip the old whole-file previews (slow)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-serve-") as folder:
        tmp = Path(folder)
        db = tmp / "samples.duckdb"
        con = connect(db)
        load_samples(con)
        con.close()
        print(f"Cost Frontier serving benchmark; {os.cpu_count()} cores")
        if not args.skip_latency:
            latency(db, args.loads)
        if not args.skip_memory:
            memory(db, tmp, not args.skip_baseline)
    return 0


if __name__ == "__main__":
    sys.exit(main())
