"""Who is writing: the name a change-log entry (a data version, a recorded pin) records, and only from a source
that cannot be forged.

A sign-in proxy (oauth2-proxy, nginx with its own authentication) names the signed-in user in a request header
(:data:`USER_HEADER_SETTING`, default ``X-Forwarded-User``). Any client can send that header too, so the
dashboard reads it only from a request that a *trusted* proxy passed on:

- the proxy adds a shared secret header (``X-CostFrontier-Proxy: <secret>``) equal to
  ``$COSTFRONTIER_PROXY_SECRET`` (``deploy/serve.py`` makes one per run and gives it to nginx and the replicas;
  nginx replaces whatever a client sent under that name), or
- the request comes from an address in ``$COSTFRONTIER_TRUSTED_PROXIES`` (comma-separated; ``127.0.0.1`` for a
  proxy on this host, which then trusts every local process that can reach the replica's port).

With neither set, or a request that meets neither, a name in the header is not used: the entry records
``unknown`` with the reason (:data:`UNTRUSTED`). Without any header the operator's ``$COSTFRONTIER_USER`` is used
(a single-user ``make run``), else no name. Every stored name is :func:`clean`: control and format characters
dropped (a terminal escape in a name is never stored), whitespace collapsed, at most :data:`MAX_NAME` characters.
"""

from __future__ import annotations

import hmac
import os
import re
import unicodedata
from typing import Mapping, NamedTuple

__all__ = ["USER_HEADER_SETTING", "PROXY_SECRET_SETTING", "PROXY_SECRET_HEADER", "TRUSTED_PROXIES_SETTING",
           "UNTRUSTED", "MAX_NAME", "Identity", "clean", "identity", "printable"]

USER_HEADER_SETTING = "COSTFRONTIER_USER_HEADER"
PROXY_SECRET_SETTING = "COSTFRONTIER_PROXY_SECRET"
#: the header a trusted proxy sets to :data:`PROXY_SECRET_SETTING`'s value
PROXY_SECRET_HEADER = "X-CostFrontier-Proxy"
TRUSTED_PROXIES_SETTING = "COSTFRONTIER_TRUSTED_PROXIES"
#: what is recorded when a request names a user but did not come through a trusted proxy
UNTRUSTED = "unknown (a user header not from a trusted proxy was ignored)"
#: the longest name stored [characters]
MAX_NAME = 120

_SPACE = re.compile(r"\s+")


def clean(text: str | None, limit: int = MAX_NAME) -> str | None:
    """``text`` as stored: control and format characters (Unicode categories Cc, Cf: terminal escapes, bells,
    bidirectional overrides) dropped, runs of whitespace made one space, trimmed, cut to ``limit`` characters;
    None when nothing is left."""
    if text is None:
        return None
    kept = "".join(" " if ch in "\t\r\n" else ch for ch in str(text)
                   if ch in "\t\r\n" or unicodedata.category(ch) not in ("Cc", "Cf"))
    kept = _SPACE.sub(" ", kept).strip()[:limit].strip()
    return kept or None


def printable(text: object) -> str:
    """``text`` safe to print on a terminal: control and format characters (other than newline and tab) written as
    escapes (``\\x1b``, ``\\u202e``), so stored text can never drive the terminal it is printed on."""
    out = []
    for ch in str(text):
        if ch in "\n\t" or unicodedata.category(ch) not in ("Cc", "Cf"):
            out.append(ch)
        else:
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
    return "".join(out)


class Identity(NamedTuple):
    """Who a request is, for the change log: ``name`` as stored (None: none), and whether a proxy vouched for it."""

    name: str | None
    trusted: bool


def _header(headers: Mapping[str, str], name: str) -> str | None:
    for key, value in headers.items():
        if key.lower() == name.lower():
            return value
    return None


def identity(headers: Mapping[str, str] | None, peer: str | None, env: Mapping[str, str] | None = None) -> Identity:
    """The identity of a request with ``headers`` from address ``peer`` (None: loopback, as Streamlit reports
    it), under the settings in ``env`` (default: this process's environment). See the module's docstring."""
    env = os.environ if env is None else env
    headers = headers or {}
    header = (env.get(USER_HEADER_SETTING, "") or "").strip() or "X-Forwarded-User"
    named = clean(_header(headers, header))
    if named is None:
        return Identity(clean(env.get("COSTFRONTIER_USER")), False)
    secret = (env.get(PROXY_SECRET_SETTING, "") or "").strip()
    sent = _header(headers, PROXY_SECRET_HEADER)
    by_secret = bool(secret) and sent is not None and hmac.compare_digest(sent.strip().encode(), secret.encode())
    trusted_peers = {p.strip() for p in (env.get(TRUSTED_PROXIES_SETTING, "") or "").split(",") if p.strip()}
    by_address = bool(trusted_peers) and (peer or "127.0.0.1") in trusted_peers
    if by_secret or by_address:
        return Identity(named, True)
    return Identity(UNTRUSTED, False)
