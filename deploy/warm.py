"""Warm a freshly started Cost Frontier server, so the first viewer of a link pays what the second does.

    python deploy/warm.py --url http://127.0.0.1:8501 [--wait 120] [--timeout 300] [--query "wl=..."]

Waits for the server's health check, then opens one session over Streamlit's own WebSocket, as a browser
does, asks for a run of the default page (or of ``--query``'s view), then of the Data page, and waits for
each to finish: the imports, the store's snapshot, the default view's points, frontiers and analysis, and
the Data page's published-table check (read once per data version; any view's rates then only price it)
are then in the server's caches, which every later session shares. ``make run`` and ``deploy/serve.py`` run it after starting a
server. Prints one line; exits 0 when warm, 1 when the server did not answer or the address is malformed (never a
traceback). ``--wait`` bounds the health check and ``--timeout`` the runs, against any server (one that keeps
sending too).
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import ssl
import sys
import time
import urllib.parse


class BadUrl(ValueError):
    """A ``--url`` that is not a server's address."""


def server_url(url: str) -> tuple[str, str, int, bool]:
    """``(url without a trailing slash, host, port, https?)`` of an ``http://HOST:PORT`` address.

    Raises :class:`BadUrl` saying what is wrong (empty, another scheme, no host, a port that is not a number
    from 1 to 65535, an unclosed IPv6 bracket, a path, query or fragment), in words.
    """
    text = str(url or "").strip().rstrip("/")
    if not text:
        raise BadUrl("no address given; write it as http://HOST:PORT")
    try:
        parts = urllib.parse.urlsplit(text)
        host, port = parts.hostname, parts.port
    except ValueError:
        raise BadUrl(f"{text[:80]!r} is not an address (a port must be a number from 1 to 65535, an IPv6 host "
                     "is written in brackets: http://[::1]:8501)") from None
    if parts.scheme not in ("http", "https"):
        raise BadUrl(f"{text[:80]!r} is not an http:// or https:// address")
    if not host:
        raise BadUrl(f"{text[:80]!r} names no host; write it as http://HOST:PORT")
    if parts.path or parts.query or parts.fragment or parts.username or parts.password:
        raise BadUrl(f"{text[:80]!r} has more than a host and port; give the server's address only")
    if port == 0:
        raise BadUrl(f"{text[:80]!r}: a port must be a number from 1 to 65535")
    https = parts.scheme == "https"
    return text, host, port or (443 if https else 80), https


def _health_once(host: str, port: int, https: bool, deadline: float) -> bool:
    """One ``GET /_stcore/health`` that ends by ``deadline`` whatever the server does (silent, slow, or sending
    without end): it reads at most 4 KB, each wait no longer than the time left."""
    def left() -> float:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError
        return min(remaining, 2.0)

    try:
        with socket.create_connection((host, port), timeout=left()) as raw:
            conn = ssl.create_default_context().wrap_socket(raw, server_hostname=host) if https else raw
            conn.settimeout(left())
            name = f"[{host}]" if ":" in host else host
            conn.sendall(f"GET /_stcore/health HTTP/1.0\r\nHost: {name}:{port}\r\nConnection: close\r\n\r\n".encode())
            data = b""
            while len(data) < 4096:
                conn.settimeout(left())
                chunk = conn.recv(4096 - len(data))
                if not chunk:
                    break
                data += chunk
    except (OSError, TimeoutError, ValueError):
        return False
    head, _, body = data.partition(b"\r\n\r\n")
    return head.startswith((b"HTTP/1.1 200", b"HTTP/1.0 200")) and body.strip() == b"ok"


def _healthy(url: str, wait_s: float) -> bool:
    _, host, port, https = server_url(url)
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if _health_once(host, port, https, deadline):
            return True
        time.sleep(min(0.25, max(0.0, deadline - time.monotonic())))
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
    async with websockets.connect(stream, subprotocols=["streamlit"], max_size=None, open_timeout=timeout_s,
                                  close_timeout=1) as ws:
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
    """(warm?, what happened, in one line). Waits at most ``wait_s`` for the health check, then at most
    ``timeout_s`` for the runs, whatever the server sends; a malformed ``url`` is said in words."""
    try:
        url = server_url(url)[0]
    except BadUrl as exc:
        return False, f"--url: {exc}; not warmed"
    if not _healthy(url, wait_s):
        return False, f"no answer from {url} within {wait_s:.0f} s; not warmed"
    start = time.perf_counter()

    async def bounded() -> str:
        return await asyncio.wait_for(_run_once(url, query, timeout_s), timeout_s + 1)

    try:
        status = asyncio.run(bounded())
    except Exception as exc:   # any failure (refused, timed out, closed): one line, never a traceback
        return False, f"{url}: warm-up run failed ({type(exc).__name__}); the first viewer pays for it"
    return True, f"{url}: warm ({status.lower().replace('_', ' ')}, {time.perf_counter() - start:.1f} s)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8501")
    parser.add_argument("--query", default="", help="a view's link query (without '?') to warm instead of the default")
    parser.add_argument("--wait", type=float, default=120.0, help="seconds to wait for the server to answer")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds the warm-up runs may take")
    args = parser.parse_args(argv)
    try:
        ok, line = warm(args.url, args.query, max(0.0, args.wait), max(0.1, args.timeout))
    except KeyboardInterrupt:
        return 130
    print(line, flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
