"""Real dashboard sessions without a browser, for the memory tests and bench/bench_memory.py: a Streamlit
server process (``streamlit run app.py`` of a source tree), sessions over Streamlit's own WebSocket (as a
browser's, and as ``deploy/warm.py`` warms a server), and what the server process holds, read from /proc
(resident memory, replaced snapshot files still open)."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(tree: Path, db: Path, env: dict | None = None, read_only: bool = True,
                 python: str | None = None) -> tuple[subprocess.Popen, str]:
    """``streamlit run app.py`` of the source tree ``tree`` serving ``db``; (process, base URL) once healthy."""
    port = free_port()
    environ = {**os.environ, **(env or {}), "COSTFRONTIER_DB": str(db), "PYTHONPATH": str(tree)}
    environ.pop("COSTFRONTIER_READ_ONLY", None)
    if read_only:
        environ["COSTFRONTIER_READ_ONLY"] = "1"
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen([python or sys.executable, "-m", "streamlit", "run", str(tree / "app.py"),
                             "--server.port", str(port), "--server.address", "127.0.0.1"],
                            cwd=tree, env=environ, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"the server exited: {log.read()[-2000:].decode(errors='replace')}")
        try:
            with urllib.request.urlopen(base + "/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return proc, base
        except OSError:
            time.sleep(0.2)
    stop(proc)
    raise RuntimeError("the server did not answer within 60 s")


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def rss_mb(pid: int) -> float:
    """Resident memory of process ``pid`` [MB of 2**20 bytes] (``VmRSS`` of /proc/<pid>/status)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def deleted_open(pid: int, directory: Path) -> int:
    """Files in ``directory`` that process ``pid`` holds open although they were replaced (unlinked): the
    superseded snapshots it still has attached."""
    count = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith(str(directory)) and target.endswith(" (deleted)"):
            count += 1
    return count


class Session:
    """One viewer: a WebSocket session of the server at ``base`` (its session state lives while it is open)."""

    def __init__(self, base: str):
        self.base = base
        self.ws = None
        #: what the last run drew that a viewer would read as a fault: each exception shown (its type and first
        #: line) and each error box (its first line)
        self.errors: list[str] = []

    async def open(self) -> "Session":
        import websockets

        stream = self.base.replace("http://", "ws://", 1) + "/_stcore/stream"
        self.ws = await websockets.connect(stream, subprotocols=["streamlit"], max_size=None, close_timeout=1)
        return self

    async def run(self, page: str = "", query: str = "", timeout_s: float = 120) -> str:
        """One run of ``page`` (its URL path; "" the Overview) with the link ``query``; how it finished."""
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        ask = BackMsg()
        ask.rerun_script.query_string = query
        ask.rerun_script.page_name = page
        await self.ws.send(ask.SerializeToString())
        deadline = time.monotonic() + timeout_s
        self.errors = []
        while True:
            message = ForwardMsg()
            message.ParseFromString(await asyncio.wait_for(self.ws.recv(), max(0.1, deadline - time.monotonic())))
            if message.WhichOneof("type") == "delta" and message.delta.WhichOneof("type") == "new_element":
                element = message.delta.new_element
                kind = element.WhichOneof("type")
                if kind == "exception":
                    self.errors.append(f"{element.exception.type}: {element.exception.message.splitlines()[0][:300]}")
                elif kind == "alert" and element.alert.format == 1:   # st.error
                    self.errors.append(f"error box: {element.alert.body.splitlines()[0][:300]}")
            if message.WhichOneof("type") == "script_finished" and \
                    message.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                return ForwardMsg.ScriptFinishedStatus.Name(message.script_finished)

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
            self.ws = None
