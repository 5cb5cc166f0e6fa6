"""Actuals import cost is linear in the file (issue 53): a year of hourly OpenCost windows and a 60,000-row bill.

    python bench/bench_actuals.py [--windows 8760] [--bill-rows 60000] [--repeat 3] [--scaling]

Writes, in a temporary folder, an OpenCost ``/inferenceCost/timeseries`` response with ``--windows`` hourly windows
of one model (OpenCost's own shape, pretty-printed as its API writes it) and a finance bill CSV of ``--bill-rows``
daily rows (one model per row, ``--bill-rows`` ÷ 365 models over a year). Each is imported into a fresh store with
:func:`model.data.actuals.ingest_actuals_file` (detection, reading, every check, the overlap check against the
store, the insert, the commit), and beside it, in the same run, the same file is parsed by the standard library
alone (``json.loads`` of its text; ``csv.reader`` over its lines): the ratio is the import's cost over the parse's.
The target is a ratio of at most 5 for both. ``--scaling`` also times 2,000 and 4,000 windows and 6,000 and 30,000
bill rows, to show the cost grows in proportion to the file.

Asserts nothing; prints the figures (best of ``--repeat``) that docs/performance.md quotes, and of each import the
time DuckDB spent writing its rows (the INSERT and the COMMIT: a 60,000-row bill is 16 MB of write-ahead log),
which no reader can shorten.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from model.data.actuals import ingest_actuals_file  # noqa: E402
from model.data.store import connect  # noqa: E402

START = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _stamp(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def opencost_timeseries(windows: int) -> str:
    """An ``/inferenceCost/timeseries`` response (envelope ``code``/``data``) of ``windows`` hourly windows of one
    model and namespace, the fields of OpenCost's ``apitypes.go`` (the revised release: ``cacheSavingsFraction``),
    pretty-printed with two spaces as OpenCost's API writes it."""
    sets = []
    for i in range(windows):
        start, end = START + timedelta(hours=i), START + timedelta(hours=i + 1)
        prompt, generation = 10_000_000 + 1_000 * (i % 97), 2_000_000 + 300 * (i % 89)
        total_cost = 3.2 + 0.01 * (i % 13)
        input_cost = total_cost * 0.5
        window = {"start": _stamp(start), "end": _stamp(end)}
        sets.append({"inferenceCosts": {"Qwen/Qwen3-32B:llm-d-prod": {
            "properties": {"modelName": "Qwen/Qwen3-32B", "namespace": "llm-d-prod"},
            "window": window, "costBasis": "allocation", "totalCost": total_cost,
            "promptTokens": prompt, "generationTokens": generation, "totalTokens": prompt + generation,
            "costPerMillionTokens": total_cost / (prompt + generation) * 1e6,
            "inputCost": input_cost, "outputCost": total_cost - input_cost,
            "inputCostPerMillionTokens": input_cost / prompt * 1e6,
            "outputCostPerMillionTokens": (total_cost - input_cost) / generation * 1e6,
            "cacheSavingsFraction": 0.05, "allocationMethod": "compute_time"}}, "window": window})
    body = {"inferenceCostSets": sets,
            "window": {"start": _stamp(START), "end": _stamp(START + timedelta(hours=windows))}}
    return json.dumps({"code": 200, "data": body}, indent=2)


def bill(rows: int) -> str:
    """A bill CSV of ``rows`` daily rows: ``rows // 365 + 1`` models, one row per model and day, numbers as a
    spreadsheet exports them (plain, some with thousands separators and a dollar sign)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["date", "model", "usd", "input_tokens", "cached_input_tokens", "output_tokens", "gpu_hours"])
    for i in range(rows):
        day, model = START.date() + timedelta(days=i % 365), f"model-{i // 365}"
        usd = 1000 + (i % 331)
        money = f"${usd:,.2f}" if i % 10 == 0 else f"{usd:.2f}"
        writer.writerow([day.isoformat(), model, money, 50_000_000 + i % 1000, 1_000_000, 5_000_000 + i % 777,
                         192])
    return out.getvalue()


def _best(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


class _Timed:
    """The connection, timing its INSERT into the table and its COMMIT (the store's own write)."""

    def __init__(self, con) -> None:
        self.con, self.write_s = con, 0.0

    def __getattr__(self, name):
        return getattr(self.con, name)

    def execute(self, sql, *args):
        started = time.perf_counter()
        try:
            return self.con.execute(sql, *args)
        finally:
            if sql.startswith(("INSERT INTO actuals", "COMMIT")):
                self.write_s += time.perf_counter() - started


def _import_time(path: Path, repeat: int) -> tuple[float, int, float]:
    """Best of ``repeat`` imports of ``path`` into a fresh store: (seconds, rows stored, seconds of that import the
    store spent writing the rows: its INSERT and COMMIT)."""
    best, rows, write = float("inf"), 0, 0.0
    for i in range(repeat):
        db = path.parent / f"store_{path.stem}_{i}.duckdb"
        con = connect(db)
        try:
            timed = _Timed(con)
            started = time.perf_counter()
            result = ingest_actuals_file(timed, path)
            took = time.perf_counter() - started
            if took < best:
                best, write = took, timed.write_s
            rows = result.rows_added
        finally:
            con.close()
            db.unlink(missing_ok=True)
    return best, rows, write


def _parse_json(path: Path) -> None:
    json.loads(path.read_text(encoding="utf-8"))


def _parse_csv(path: Path) -> None:
    with open(path, newline="", encoding="utf-8") as handle:
        for _ in csv.reader(handle):
            pass


def measure(kind: str, size: int, folder: Path, repeat: int) -> dict:
    if kind == "opencost":
        path = folder / f"opencost_{size}.json"
        path.write_text(opencost_timeseries(size), encoding="utf-8")
        baseline = _best(lambda: _parse_json(path), repeat)
        what = f"OpenCost /inferenceCost/timeseries, {size:,} hourly windows"
        base_words = "json.loads"
    else:
        path = folder / f"bill_{size}.csv"
        path.write_text(bill(size), encoding="utf-8")
        baseline = _best(lambda: _parse_csv(path), repeat)
        what = f"bill CSV, {size:,} rows"
        base_words = "csv.reader"
    took, rows, write = _import_time(path, repeat)
    return {"what": what, "bytes": path.stat().st_size, "rows": rows, "import_s": took, "baseline_s": baseline,
            "baseline": base_words, "ratio": took / baseline, "write_s": write}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--windows", type=int, default=8760)
    parser.add_argument("--bill-rows", type=int, default=60_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scaling", action="store_true", help="also time smaller files, to show linear growth")
    args = parser.parse_args(argv)
    cases = [("opencost", args.windows), ("bill", args.bill_rows)]
    if args.scaling:
        cases = [("opencost", 2000), ("opencost", 4000), *cases[:1], ("bill", 6000), ("bill", 30_000), *cases[1:]]
    with tempfile.TemporaryDirectory() as tmp:
        for kind, size in cases:
            m = measure(kind, size, Path(tmp), args.repeat)
            print(f"{m['what']} ({m['bytes'] / 1e6:.1f} MB, {m['rows']:,} rows stored): import {m['import_s']:.3f} s "
                  f"(of which the store's INSERT and COMMIT {m['write_s']:.3f} s), {m['baseline']} "
                  f"{m['baseline_s']:.3f} s, ratio {m['ratio']:.1f}x (target <= 5x; without the store's write "
                  f"{(m['import_s'] - m['write_s']) / m['baseline_s']:.1f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
