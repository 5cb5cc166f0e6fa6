"""A team's load on a deployment, for the load test (tests/test_load.py) and bench/bench_load.py: viewers'
sessions (Streamlit's own WebSocket, as a browser's: :class:`tests.replica.Session`) through nginx in front of
read-only replicas of one store, while a writer in this process ingests a small file every few seconds.

Each viewer goes round the pages that read the store (Overview, Matched interactivity, History, Crossovers,
Frontier, Fleet) with views of its own, pausing between runs as a person does; every run's time and every fault
it drew (an exception or an error box) is kept."""

from __future__ import annotations

import asyncio
import random
import statistics
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from deploy.serve import free_port, start_nginx, start_replica, stop, wait_healthy
from model.data.ingest import ingest_file
from model.data.snapshot import write
from tests.replica import Session, deleted_open, rss_mb

__all__ = ["PAGES", "Load", "run_load"]

#: the pages a viewer goes round: each reads rows, the fit and the answer of its view
PAGES = ("", "Matched_interactivity", "History", "Crossovers", "Frontier", "Fleet")


@dataclass
class Load:
    """What a load run saw."""

    runs: int = 0
    seconds: list[float] = field(default_factory=list)      # each page run [s]
    faults: list[str] = field(default_factory=list)         # "page: what it drew"
    statuses: dict[str, int] = field(default_factory=dict)  # how runs finished
    writes: int = 0
    write_errors: list[str] = field(default_factory=list)
    rss_mb: dict[int, list[float]] = field(default_factory=dict)   # replica pid -> samples [MB]
    replaced_open_after: int = 0

    def p(self, q: float) -> float:
        """The ``q`` quantile of page time [s]."""
        return statistics.quantiles(self.seconds, n=100, method="inclusive")[int(q * 100) - 1] if len(self.seconds) > 1 else 0.0

    def summary(self) -> str:
        peaks = ", ".join(f"{max(v):.0f}" for v in self.rss_mb.values())
        return (f"{self.runs} page runs, {len(self.faults)} faults, {self.writes} writes "
                f"({len(self.write_errors)} failed); page time median {statistics.median(self.seconds):.2f} s, "
                f"p95 {self.p(0.95):.2f} s, max {max(self.seconds):.2f} s; replica peak RSS {peaks} MB; "
                f"replaced snapshots open after: {self.replaced_open_after}")


def _row_csv(path: Path, i: int) -> Path:
    """One new measured point of the samples' workload (a framework of its own, so each write adds a source)."""
    path.write_text("hardware,framework,precision,model,isl,osl,gpus,concurrency,tokens_per_second_per_gpu,"
                    "interactivity\n"
                    f"B200,load{i},fp8,GLM-5,8192,1024,8,{4 + i % 60},{900 + i},{40 + i % 30}\n", encoding="utf-8")
    return path


async def _viewer(base: str, n: int, until: float, pause_s: float, out: Load) -> None:
    rng = random.Random(n)
    session = await Session(base).open()
    try:
        while time.monotonic() < until:
            page = rng.choice(PAGES)
            query = f"x={rng.choice((30, 40, 50, 60, 70)) + n % 7}&by=hardware"
            started = time.monotonic()
            status = await session.run(page, query)
            out.seconds.append(time.monotonic() - started)
            out.runs += 1
            out.statuses[status] = out.statuses.get(status, 0) + 1
            out.faults += [f"{page or 'Overview'}: {e}" for e in session.errors]
            await asyncio.sleep(rng.uniform(0.5, 1.5) * pause_s)
    finally:
        await session.close()


def run_load(db: Path, folder: Path, viewers: int = 20, replicas: int = 2, seconds: float = 60.0,
             write_every_s: float = 2.0, pause_s: float = 1.0) -> Load:
    """``viewers`` sessions through nginx on ``replicas`` read-only replicas of ``db`` for ``seconds``, a write
    (one new file ingested) every ``write_every_s``; what they saw. Needs Debian's nginx."""
    out = Load()
    ports = [free_port() for _ in range(replicas)]
    procs = [start_replica(db, port) for port in ports]
    proxy = None
    try:
        for port, proc in zip(ports, procs):
            wait_healthy(f"http://127.0.0.1:{port}", proc)
        listen = free_port()
        proxy = start_nginx(folder / "nginx", listen, ports)
        base = f"http://127.0.0.1:{listen}"
        wait_healthy(base, proxy)
        stop_event = threading.Event()
        out.rss_mb = {p.pid: [] for p in procs}

        def writer() -> None:
            i = 0
            while not stop_event.wait(write_every_s):
                try:
                    write(db, lambda con: ingest_file(con, _row_csv(folder / f"w{i}.csv", i)))
                    out.writes += 1
                except Exception as exc:   # noqa: BLE001 - the run reports it
                    out.write_errors.append(f"{type(exc).__name__}: {exc}")
                i += 1

        def sampler() -> None:
            while not stop_event.wait(0.5):
                for p in procs:
                    out.rss_mb[p.pid].append(rss_mb(p.pid))

        threads = [threading.Thread(target=writer), threading.Thread(target=sampler)]
        for t in threads:
            t.start()
        until = time.monotonic() + seconds

        async def everyone() -> None:
            await asyncio.gather(*(_viewer(base, n, until, pause_s, out) for n in range(viewers)))

        try:
            asyncio.run(everyone())
        finally:
            stop_event.set()
            for t in threads:
                t.join()

        async def once() -> None:   # one more run on each replica after the writes: superseded versions go
            for port in ports:
                s = await Session(f"http://127.0.0.1:{port}").open()
                await s.run("", "")
                await s.close()

        asyncio.run(once())
        out.replaced_open_after = sum(deleted_open(p.pid, db.parent) for p in procs)
    finally:
        if proxy is not None:
            stop(proxy)
        stop(*procs)
    return out
