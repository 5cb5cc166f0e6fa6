"""Warm a freshly started Cost Frontier server, so the first viewer of a link pays what the second does.

    python deploy/warm.py --url http://127.0.0.1:8501 [--wait 120] [--query "wl=..."]

Waits for the server's health check, then opens one session over Streamlit's own WebSocket, as a browser
does, asks for a run of the default page (or of ``--query``'s view), then of the Data page, and waits for
each to finish: the imports, the store's snapshot, the default view's points, frontiers and analysis, and
the Data page's published-table check (read once per data version; any view's rates then only price it)
are then in the server's caches, which every later session shares. ``make run`` and ``deploy/serve.py`` run it after starting a
server. Prints one line; exits 0 when warm, 1 when the server did not answer (never a traceback).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
import urllib.request


def _healthy(url: str, wait_s: float) -> bool:
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                return True
        except OSError:
            pass
        time.sleep(0.25)
    return False


#: the pages run after the default one ("" is the default page; by their URL path, as a browser's address names them)
PAGES = ("", "Data")


async def _run_once(url: str, query: str, timeout_s: float) -> str:
    """One script run of each of :data:`PAGES` in a new session; the last run's outcome as Streamlit names it."""
    import websockets
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    stream = url.replace("http://", "ws://", 1).replace("https://", "wss://", 1) + "/_stcore/stream"
    deadline = time.monotonic() + timeout_s
    status = ""
    async with websockets.connect(stream, subprotocols=["streamlit"], max_size=None, open_timeout=timeout_s) as ws:
        for page in PAGES:
            ask = BackMsg()
            ask.rerun_script.query_string = query
            ask.rerun_script.page_name = page
            await ws.send(ask.SerializeToString())
            while True:
                message = ForwardMsg()
                message.ParseFromString(await asyncio.wait_for(ws.recv(), max(0.1, deadline - time.monotonic())))
                # (a run the script itself restarts ends "early for rerun"; the run after it is the page's)
                if message.WhichOneof("type") == "script_finished" and \
                        message.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    status = ForwardMsg.ScriptFinishedStatus.Name(message.script_finished)
                    break
    return status


def warm(url: str, query: str = "", wait_s: float = 120.0, timeout_s: float = 300.0) -> tuple[bool, str]:
    """(warm?, what happened, in one line)."""
    url = url.rstrip("/")
    if not _healthy(url, wait_s):
        return False, f"no answer from {url} within {wait_s:.0f} s; not warmed"
    start = time.perf_counter()
    try:
        status = asyncio.run(_run_once(url, query, timeout_s))
    except Exception as exc:   # any failure (refused, timed out, closed): one line, never a traceback
        return False, f"{url}: warm-up run failed ({type(exc).__name__}); the first viewer pays for it"
    return True, f"{url}: warm ({status.lower().replace('_', ' ')}, {time.perf_counter() - start:.1f} s)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8501")
    parser.add_argument("--query", default="", help="a view's link query (without '?') to warm instead of the default")
    parser.add_argument("--wait", type=float, default=120.0, help="seconds to wait for the server to answer")
    args = parser.parse_args(argv)
    try:
        ok, line = warm(args.url, args.query, args.wait)
    except KeyboardInterrupt:
        return 130
    print(line, flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
