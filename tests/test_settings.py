"""One set of production settings (.streamlit/config.toml) for `make run`, deploy/serve.py and the manual;
`make dev` is the only place that turns the file watcher back on."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRODUCTION = {"server.fileWatcherType": "none", "server.runOnSave": False, "runner.postScriptGC": False,
              "server.headless": True}


def _make_target(name: str) -> str:
    text = (ROOT / "Makefile").read_text().replace("\\\n", " ")
    return re.search(rf"^{name}:.*?(?=^\S|\Z)", text, re.M | re.S).group(0)


def test_streamlit_reads_the_production_settings_from_the_repository():
    code = ("import json; from streamlit import config; config.get_config_options(force_reparse=True); "
            f"print(json.dumps({{k: config.get_option(k) for k in {list(PRODUCTION)!r}}}))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == PRODUCTION


def test_make_run_and_deploy_override_none_of_them(monkeypatch, tmp_path):
    assert "deploy/replica.py run app.py" in _make_target("run")     # streamlit run, its handshake guarded
    assert not re.search(r"--(server\.fileWatcherType|server\.runOnSave|runner\.)", _make_target("run"))
    dev = _make_target("dev")
    assert "--server.fileWatcherType auto" in dev and "--runner.postScriptGC true" in dev

    import deploy.serve as serve

    seen = {}
    monkeypatch.setattr(serve.subprocess, "Popen",
                        lambda argv, **kw: seen.update(argv=argv, cwd=kw.get("cwd")) or types.SimpleNamespace())
    serve.start_replica(tmp_path / "x.duckdb", 8599)
    assert Path(seen["cwd"]) == ROOT   # where Streamlit finds .streamlit/config.toml
    flags = {a.split("=")[0] for a in seen["argv"] if a.startswith("--")}
    assert flags == {"--server.port", "--server.address"}


def test_the_manual_documents_both_profiles():
    manual = (ROOT / "docs" / "operating" / "deployment.md").read_text()
    assert "make dev" in manual and "fileWatcherType" in manual and "postScriptGC" in manual


def test_a_started_server_is_warmed_by_one_real_session(sample_db):
    """deploy/warm.py runs the default page once over Streamlit's own WebSocket (as `make run` and
    deploy/serve.py do at start), so the first viewer finds the caches warm; a server that never answers
    gives one line, not a traceback."""
    from deploy.serve import free_port, output_tail, start_replica, stop, wait_healthy
    from deploy.warm import warm

    assert "deploy/warm.py --url http://127.0.0.1:$(PORT)" in _make_target("run")
    port = free_port()
    proc = start_replica(sample_db, port)
    try:
        wait_healthy(f"http://127.0.0.1:{port}", proc)
        ok, line = warm(f"http://127.0.0.1:{port}", wait_s=30)
        assert ok and line.endswith(")") and "warm (finished successfully" in line, line
    finally:
        stop(proc)
    # its output went to a file, not to a pipe nobody reads (a chatty replica would block on a full pipe)
    assert proc.stdout is None
    log = output_tail(proc, limit=100_000)
    assert "You can now view your Streamlit app" in log or "URL:" in log, log
    assert "Traceback" not in log and "Error" not in log, log[-2000:]
    ok, line = warm(f"http://127.0.0.1:{free_port()}", wait_s=1)
    assert not ok and line.endswith("not warmed")
