"""The deployment in deploy/: Debian's nginx in front of two read-only Streamlit replicas of one store,
opened in Chromium in several browser contexts while the CLI ingests; every context sees the new rows.

Everything is real: the nginx binary (installed by .ci/run), ``streamlit run app.py`` processes, the
``costfrontier`` command line in its own process, Chromium through Playwright.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from deploy.serve import free_port, nginx_binary, start_nginx, start_replica, stop, wait_healthy
from tests.conftest import CHROMIUM
from tests.kit import cli_process

# ``browser``: tests/conftest.py's Chromium, with the project's launch flags
#: points in the default view of the samples: the InferenceX GLM-5 8192/1024 table has 29 rows
#: (data/samples/inferencex_glm5_fp8_2026-05-20.csv, one per line after the header)
SAMPLE_ROWS_IN_VIEW = 29
NEW_ROWS = 5

needs_chromium = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                    reason="needs Debian's chromium (apt-get install chromium)")


def new_points_csv(path: Path, rows: int = NEW_ROWS, tag: str = "newfw") -> Path:
    """``rows`` B200 points in the samples' default workload (GLM-5, 8192/1024: set with --set model=GLM-5)."""
    path.write_text("hardware,framework,precision,tp,gpus,isl,osl,concurrency,tput_per_gpu,tok_s_user\n"
                    + "".join(f"B200,{tag},fp8,8,8,8192,1024,{c},{500 + c},{90 - c / 10}\n"
                              for c in range(1, rows + 1)), encoding="utf-8")
    return path


def rows_in_view(page, timeout_s: float = 60) -> int:
    """The overview's "Rows in view" metric."""
    metric = page.locator('[data-testid="stMetric"]', has_text="Rows in view")
    metric.wait_for(timeout=timeout_s * 1000)
    return int(metric.locator('[data-testid="stMetricValue"]').inner_text().replace(",", ""))


def rerun_until(page, expected: int, timeout_s: float = 30) -> int:
    """Interact once (Streamlit's "r" = rerun, as any widget change would), then wait for the metric."""
    page.locator("h1").first.click()
    page.keyboard.press("r")
    deadline = time.time() + timeout_s
    seen = rows_in_view(page)
    while seen != expected and time.time() < deadline:
        time.sleep(0.3)
        seen = rows_in_view(page)
    return seen


@pytest.fixture
def replicas(sample_db):
    """Two read-only replicas of one samples database, on free loopback ports."""
    ports = [free_port(), free_port()]
    procs = [start_replica(sample_db, port) for port in ports]
    try:
        for port, proc in zip(ports, procs):
            wait_healthy(f"http://127.0.0.1:{port}", proc)
        yield sample_db, ports, procs
    finally:
        stop(*procs)


@pytest.mark.e2e
@needs_chromium
@pytest.mark.skipif(nginx_binary() is None, reason="needs Debian's nginx (.ci/run installs it with apt-get)")
def test_nginx_in_front_of_two_replicas_every_context_sees_a_cli_ingest(replicas, browser, tmp_path):
    db, ports, procs = replicas
    listen = free_port()
    proxy = start_nginx(tmp_path / "nginx", listen, ports)
    contexts = []
    try:
        base = f"http://127.0.0.1:{listen}"
        wait_healthy(base, proxy)
        log = tmp_path / "nginx" / "access.log"

        def routed(path: str) -> list[tuple[str, str, str]]:
            """(replica, sticky id, status) of each logged request for ``path`` (a WebSocket is logged
            when it closes)."""
            return [(m.group(3), m.group(4), m.group(2)) for m in re.finditer(
                r'"GET (\S+) HTTP/1.1" (\d+) upstream=(\S+) sticky=(\S+)', log.read_text()) if m.group(1) == path]

        # several viewers, each its own browser context (its own cookie), until both replicas serve some
        while len(contexts) < 4 or (len({r for r, _, _ in routed("/_stcore/host-config")}) < 2
                                    and len(contexts) < 12):
            context = browser.new_context()
            page = context.new_page()
            page.goto(base + "/")
            assert rows_in_view(page) == SAMPLE_ROWS_IN_VIEW
            contexts.append((context, page))
        replica_of = {sticky: replica for replica, sticky, _ in routed("/_stcore/host-config")}
        assert set(replica_of.values()) == {f"127.0.0.1:{p}" for p in ports}, replica_of  # both replicas serve
        cookies = {c["value"] for context, _ in contexts for c in context.cookies() if c["name"] == "cf_replica"}
        assert len(cookies) == len(contexts) and cookies <= set(replica_of)  # one sticky id per viewer

        result = cli_process(db, "ingest", str(new_points_csv(tmp_path / "new.csv")), "--set", "model=GLM-5")
        assert result.returncode == 0, result.stderr
        assert f"{NEW_ROWS} rows added" in result.stdout
        for _, page in contexts:
            assert rerun_until(page, SAMPLE_ROWS_IN_VIEW + NEW_ROWS) == SAMPLE_ROWS_IN_VIEW + NEW_ROWS
        assert all(proc.poll() is None for proc in procs)
        for context, _ in contexts:
            context.close()
        contexts.clear()
        deadline = time.time() + 20  # closed WebSockets get logged
        while len(routed("/_stcore/stream")) < len(cookies) and time.time() < deadline:
            time.sleep(0.2)
        streams = routed("/_stcore/stream")
        assert {sticky for _, sticky, _ in streams} == cookies
        # every WebSocket was upgraded (101), on the replica that served the rest of its viewer's page
        assert all(status == "101" and replica_of[sticky] == replica for replica, sticky, status in streams), streams
        assert "[error]" not in (tmp_path / "nginx" / "error.log").read_text()
    finally:
        for context, _ in contexts:
            context.close()
        stop(proxy)
