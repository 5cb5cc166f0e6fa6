"""A WebSocket upgrade the server cannot read is answered and closed, not left open.

Streamlit 1.67 serves through uvicorn, whose ``websockets-sansio`` protocol hands the upgrade request to the
``websockets`` library. When that library refuses the request (a header line over 8 KiB, a control character in a
header, a request it cannot parse) it prepares a 431 or 400 response, or only an end of stream, and yields no
request event; uvicorn (0.54) waits for one and never sends what was prepared, so the connection stays open,
unanswered, for as long as the client keeps it: through nginx, up to its WebSocket read timeout. A few hundred such
requests exhaust the proxy's connections.

:func:`install` wraps the protocol's ``data_received``: once ``websockets`` has refused the handshake, what it
prepared is sent (a 400 of our own when it prepared nothing) and the connection is closed, at once.
``deploy/replica.py`` installs it before Streamlit starts its server (deploy/serve.py and ``make run`` start the
dashboard through it). ``tests/test_bounded_requests.py`` checks the behaviour against a real replica and nginx,
and that the internals it relies on are still there (it fails loudly when a uvicorn upgrade moves them).
"""

from __future__ import annotations

__all__ = ["install", "REFUSED"]

#: what a refused handshake gets when ``websockets`` prepared no response of its own
REFUSED = (b"HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 33\r\n"
           b"Connection: close\r\n\r\nNot a WebSocket request we read.\n")


def install() -> None:
    """Wrap uvicorn's ``WebSocketsSansIOProtocol.data_received`` (once per process). Raises ``RuntimeError`` when
    the protocol no longer has what the wrap relies on (``data_received``, ``conn.handshake_exc``,
    ``handshake_initiated``)."""
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
    from websockets.server import ServerProtocol

    received = WebSocketsSansIOProtocol.data_received
    if getattr(received, "handshake_guard", False):
        return
    if "handshake_exc" not in ServerProtocol(max_size=1).__dict__:
        raise RuntimeError("websockets' ServerProtocol has no handshake_exc: the handshake guard cannot tell a refused "
                           "upgrade (deploy/handshake_guard.py)")

    def data_received(self, data: bytes) -> None:
        received(self, data)
        if not self.handshake_initiated and self.conn.handshake_exc is not None and not self.transport.is_closing():
            prepared = b"".join(self.conn.data_to_send())
            self.transport.write(prepared or REFUSED)
            self.transport.close()

    data_received.handshake_guard = True
    data_received.__doc__ = received.__doc__
    WebSocketsSansIOProtocol.data_received = data_received
