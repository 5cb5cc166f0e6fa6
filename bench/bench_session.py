"""A long dashboard session with and without Streamlit's forced collection after every run. Prints figures;
asserts nothing.

    python bench/bench_session.py [--rows 20000] [--reruns 60] [--rounds 2]

One session (Streamlit's AppTest running app.py and the Matched-interactivity page, as ``bench_ui.py``)
moves a rate slider ``--reruns`` times. It runs in a fresh process per setting of ``runner.postScriptGC``
(Streamlit's default ``true``: ``gc.collect(2)`` after every script run; ``.streamlit/config.toml``: ``false``),
``--rounds`` times each, alternating, and prints per setting: median rerun time, full (generation-2)
collections during the reruns, and resident memory after the warm-up and at the end of the session
(its growth is what the forced collection exists to hold back). Baseline: the ``true`` runs of the same run.

AppTest's script runner skips the collection the server's runner does at the end of every run
(``ScriptRunner._on_script_finished``), so this benchmark puts it back, as the server does it, and also times
the collection alone: in the server it holds the interpreter lock, so every session of the process waits it out.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = "views/matched_interactivity.py"


def _rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def session(db: str, hardware: str, reruns: int, post_script_gc: bool) -> dict:
    """One session in this process; the figures as a dict."""
    import gc
    import resource

    from streamlit import config
    from streamlit.testing.v1 import AppTest
    from streamlit.testing.v1.local_script_runner import LocalScriptRunner

    collecting: list[float] = []
    finished = LocalScriptRunner._on_script_finished

    def on_script_finished(self, *args, **kwargs):   # as streamlit.runtime.scriptrunner.ScriptRunner's
        finished(self, *args, **kwargs)
        if config.get_option("runner.postScriptGC"):
            start = time.perf_counter()
            gc.collect(2)
            collecting.append(time.perf_counter() - start)

    LocalScriptRunner._on_script_finished = on_script_finished

    os.environ["COSTFRONTIER_DB"] = db
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    config.set_option("runner.postScriptGC", post_script_gc)
    at.query_params["wl"] = "all"
    at.query_params["at"] = "20,40,60"
    at.run()
    at.switch_page(PAGE).run()
    for i in range(5):   # warm-up: caches filled
        at.slider(key=f"rate::{hardware}").set_value(round(1.0 + 0.05 * (i + 1), 2)).run()
    assert not at.exception, at.exception
    rss_start, full_start = _rss_mib(), gc.get_stats()[2]["collections"]
    collecting.clear()
    times = []
    for i in range(reruns):
        slider = at.slider(key=f"rate::{hardware}")
        start = time.perf_counter()
        slider.set_value(round(1.0 + 0.01 * (i % 200 + 1), 2)).run()
        times.append(time.perf_counter() - start)
    assert not at.exception, at.exception
    return {"post_script_gc": post_script_gc, "median_ms": 1000 * statistics.median(times),
            "full_collections": gc.get_stats()[2]["collections"] - full_start,
            "gc_ms": 1000 * statistics.median(collecting) if collecting else 0.0, "rss_start_mib": rss_start,
            "rss_end_mib": _rss_mib(), "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--reruns", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--child", nargs=3, metavar=("DB", "HARDWARE", "GC"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    if args.child:
        db, hardware, gc_on = args.child
        print(json.dumps(session(db, hardware, args.reruns, gc_on == "true")))
        return
    sys.path.insert(0, str(ROOT / "bench"))
    from bench_ui import build_db

    results: dict[bool, list[dict]] = {True: [], False: []}
    with tempfile.TemporaryDirectory() as tmp:
        db, _, hardware = build_db(Path(tmp), args.rows)
        for _ in range(args.rounds):
            for gc_on in (True, False):
                out = subprocess.run([sys.executable, __file__, "--reruns", str(args.reruns), "--child", str(db),
                                      hardware, "true" if gc_on else "false"], capture_output=True, text=True,
                                     check=True, cwd=ROOT).stdout
                results[gc_on].append(json.loads(out.strip().splitlines()[-1]))
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print(f"{args.rows:,} rows, {args.reruns} reruns after a slider change per session, {args.rounds} sessions "
          f"per setting; load average {load}")
    base = statistics.median(r["median_ms"] for r in results[True])
    for gc_on, runs in results.items():
        ms = statistics.median(r["median_ms"] for r in runs)
        print(f"runner.postScriptGC={str(gc_on).lower():5s}: rerun median {ms:.0f} ms ({ms / base:.2f}x); "
              f"full collections {[r['full_collections'] for r in runs]}, "
              f"median {statistics.median(r['gc_ms'] for r in runs):.0f} ms each; RSS after warm-up -> end [MiB] "
              + ", ".join(f"{r['rss_start_mib']:.0f} -> {r['rss_end_mib']:.0f}" for r in runs)
              + f"; peak {max(r['peak_mib'] for r in runs):.0f} MiB")


if __name__ == "__main__":
    main()
