"""Run N Cost Frontier replicas of one store behind nginx (sticky sessions, WebSocket upgrade).

    python deploy/serve.py [--replicas 2] [--port 8080] [--db data/costfrontier.duckdb] [--writer]

Every replica is ``streamlit run app.py`` on a loopback port with ``COSTFRONTIER_READ_ONLY=1``
(``--writer`` leaves the first one upload-enabled); nginx runs as this user from a private prefix
(``deploy/nginx.conf.template``). Writes go through the CLI meanwhile
(``costfrontier --db DB ingest FILE``): each dashboard shows the new data on its next interaction.
Each replica is warmed once it answers (``deploy/warm.py``). Ctrl-C stops everything. The tests and ``bench/bench_serve.py`` start the same processes with the
functions below.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from deploy.warm import warm  # noqa: E402
from model.core.links import public_url_problem  # noqa: E402
from model.data.identity import PROXY_SECRET_SETTING  # noqa: E402

TEMPLATE = Path(__file__).resolve().parent / "nginx.conf.template"
NGINX_CANDIDATES = ("nginx", "/usr/sbin/nginx")


def free_port() -> int:
    """A TCP port nothing listens on now (loopback)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def nginx_binary() -> str | None:
    """Debian's nginx, if installed (``.ci/run`` installs it)."""
    for name in NGINX_CANDIDATES:
        found = shutil.which(name) or (name if os.access(name, os.X_OK) else None)
        if found:
            return found
    return None


def wait_healthy(base: str, proc: subprocess.Popen, timeout_s: float = 90.0) -> None:
    """Wait until ``base/_stcore/health`` answers ok; raise with the process's output otherwise."""
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        if proc.poll() is not None:
            break
        try:
            if urllib.request.urlopen(f"{base}/_stcore/health", timeout=2).read() == b"ok":
                return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"{base} did not become healthy within {timeout_s:g} s {output_tail(proc)}")


def _captured() -> IO[bytes]:
    """Where a process's output goes when the caller keeps it: an unnamed temporary file, never a pipe that
    nobody reads (a full pipe would block a chatty process), removed when the process object is dropped."""
    return tempfile.TemporaryFile(prefix="costfrontier-out-")


def output_tail(proc: subprocess.Popen, limit: int = 2000) -> str:
    """The last ``limit`` characters a process started here wrote ("" when its output went to the terminal)."""
    log = getattr(proc, "captured", None)
    if log is None or proc.poll() is None:
        return ""
    log.seek(0, os.SEEK_END)
    log.seek(max(0, log.tell() - limit))
    return log.read().decode(errors="replace")


def start_replica(db: Path, port: int, read_only: bool = True, env: dict | None = None,
                  capture: bool = True) -> subprocess.Popen:
    """``streamlit run app.py`` (through ``deploy/replica.py``, which guards the WebSocket handshake) on
    127.0.0.1:port serving ``db`` (read-only unless told otherwise).

    ``capture``: its output goes to a temporary file (read by :func:`output_tail` when it fails to start);
    ``False`` leaves it on this process's terminal, as ``make run`` does.

    Run from the repository's root, it takes the production settings of ``.streamlit/config.toml`` (headless,
    no file watcher, no forced collection after every run) and overrides none of them.
    """
    environ = {**os.environ, PROXY_SECRET_SETTING: proxy_secret(), **(env or {}), "COSTFRONTIER_DB": str(db)}
    if read_only:
        environ["COSTFRONTIER_READ_ONLY"] = "1"
    else:
        environ.pop("COSTFRONTIER_READ_ONLY", None)
    log = _captured() if capture else None
    proc = subprocess.Popen(   # deploy/replica.py: `streamlit run` with the WebSocket handshake guard
        [sys.executable, str(ROOT / "deploy" / "replica.py"), "run", str(ROOT / "app.py"), "--server.port", str(port),
         "--server.address", "127.0.0.1"],
        cwd=ROOT, env=environ, stdout=log, stderr=subprocess.STDOUT if log else None)
    proc.captured = log
    return proc


def proxy_secret() -> str:
    """The secret nginx adds to every request it passes on, so the replicas know the identity header came through
    it (:mod:`model.data.identity`): ``$COSTFRONTIER_PROXY_SECRET``, else a new random one, set in this process's
    environment so the replicas started after it share it."""
    secret = os.environ.get(PROXY_SECRET_SETTING, "").strip()
    if not secret:
        secret = os.environ[PROXY_SECRET_SETTING] = secrets.token_urlsafe(32)
    return secret


def nginx_config(prefix: Path, listen_port: int, upstream_ports: list[int], htpasswd: Path | None = None) -> str:
    """deploy/nginx.conf.template filled in: nginx on 127.0.0.1:listen_port in front of the replicas; with
    ``htpasswd``, nginx signs viewers in itself (auth_basic) and names them to the replicas."""
    servers = "\n".join(f"        server 127.0.0.1:{p} max_fails=0;" for p in upstream_ports)
    user = "user root;" if os.geteuid() == 0 else ""  # as root, workers would otherwise drop to nobody
    auth, named = "", ""
    if htpasswd is not None:
        quoted = str(Path(htpasswd).absolute()).replace('"', '')
        auth, named = f'        auth_basic "Cost Frontier";\n        auth_basic_user_file "{quoted}";', "$remote_user"
    return (TEMPLATE.read_text(encoding="utf-8").replace("@PREFIX@", str(prefix)).replace("@SERVERS@", servers)
            .replace("@LISTEN@", f"127.0.0.1:{listen_port}").replace("@USER@", user).replace("@AUTH@", auth)
            .replace("@USER_VALUE@", named).replace("@PROXY_SECRET@", proxy_secret()))


def start_nginx(prefix: Path, listen_port: int, upstream_ports: list[int],
                htpasswd: Path | None = None) -> subprocess.Popen:
    """nginx in the foreground from ``prefix`` (config, logs, temp files all there)."""
    binary = nginx_binary()
    if binary is None:
        raise RuntimeError("nginx is not installed (apt-get install nginx)")
    prefix.mkdir(parents=True, exist_ok=True)
    conf = prefix / "nginx.conf"
    conf.write_text(nginx_config(prefix, listen_port, upstream_ports, htpasswd), encoding="utf-8")
    check = subprocess.run([binary, "-t", "-p", str(prefix), "-e", str(prefix / "error.log"), "-c", str(conf)],
                           capture_output=True, text=True)
    if check.returncode:
        raise RuntimeError(f"nginx -t refused the config: {check.stderr}")
    log = _captured()
    proc = subprocess.Popen([binary, "-p", str(prefix), "-e", str(prefix / "error.log"), "-c", str(conf),
                             "-g", "daemon off;"], stdout=log, stderr=subprocess.STDOUT)
    proc.captured = log
    return proc


def stop(*procs: subprocess.Popen | None) -> None:
    """Terminate, then kill what does not exit within 15 s."""
    for proc in procs:
        if proc is not None and proc.poll() is None:
            proc.terminate()
    for proc in procs:
        if proc is None:
            continue
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=15)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--db", default=os.environ.get("COSTFRONTIER_DB") or str(ROOT / "data" / "costfrontier.duckdb"))
    parser.add_argument("--writer", action="store_true", help="leave the first replica upload-enabled")
    parser.add_argument("--htpasswd", type=Path, default=None,
                        help="sign viewers in with nginx's auth_basic from this htpasswd file; the change log then "
                             "records who wrote (without it, nobody is named)")
    args = parser.parse_args(argv)
    problem = public_url_problem()
    if problem:   # said before anything starts; the replicas' links then use each viewer's own address
        print(f"warning: {problem}", flush=True)
    db = Path(args.db).absolute()
    ports = [free_port() for _ in range(args.replicas)]
    replicas = [start_replica(db, port, read_only=not (args.writer and i == 0), capture=False)
                for i, port in enumerate(ports)]
    prefix = Path(tempfile.mkdtemp(prefix="costfrontier-nginx-"))
    proxy = None
    try:
        for port, proc in zip(ports, replicas):
            wait_healthy(f"http://127.0.0.1:{port}", proc)
        for port in ports:   # the first viewer of a link pays what the second does (deploy/warm.py)
            print(warm(f"http://127.0.0.1:{port}", wait_s=30)[1], flush=True)
        proxy = start_nginx(prefix, args.port, ports, args.htpasswd)
        wait_healthy(f"http://127.0.0.1:{args.port}", proxy)
        print(f"Cost Frontier: http://127.0.0.1:{args.port} -> {args.replicas} replicas on ports "
              f"{', '.join(map(str, ports))}, serving {db}", flush=True)
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        signal.sigwait({signal.SIGINT, signal.SIGTERM})
    except KeyboardInterrupt:
        pass
    finally:
        stop(proxy, *replicas)
        shutil.rmtree(prefix, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
