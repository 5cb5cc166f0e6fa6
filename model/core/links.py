"""The share link of a view: the one rule for its address, used by the Share box, the report and the CLI.

A link is the deployment's base address, the page's URL path, and the view's query (``View.to_query()``)
with ``:``, ``,`` and ``|`` left readable. The base is the operator's public address
(``COSTFRONTIER_PUBLIC_URL``) when set, else what the caller saw (the browser's address), else localhost.
"""

from __future__ import annotations

import os
import sys
from urllib.parse import parse_qsl, urlencode, urlsplit

__all__ = ["DEFAULT_BASE_URL", "PUBLIC_URL_SETTING", "public_base_url", "public_url_problem", "view_url",
           "pinned_url", "live_url"]

#: the base of a link when neither the operator nor a browser names one (``make run``'s address)
DEFAULT_BASE_URL = "http://localhost:8501/"
#: the setting naming the deployment's public address
PUBLIC_URL_SETTING = "COSTFRONTIER_PUBLIC_URL"
_warned: set[str] = set()


def public_url_problem(value: str | None = None) -> str | None:
    """What is wrong with the public address ``value`` (default: the setting's), in a sentence naming the
    setting; None when it is unset or usable (``http(s)://HOST[:PORT][/PATH]``, no query or fragment)."""
    text = (os.environ.get(PUBLIC_URL_SETTING, "") if value is None else value).strip()
    if not text:
        return None
    try:
        parts = urlsplit(text)
        host, _ = parts.hostname, parts.port
    except ValueError:
        host, parts = None, None
    why = ""
    if parts is None:
        why = "is not an address (check the port and any IPv6 brackets)"
    elif parts.scheme not in ("http", "https"):
        why = "must start with http:// or https://"
    elif not host:
        why = "names no host (write it as https://HOST/ or https://HOST/PATH/)"
    elif parts.query or parts.fragment:
        why = "must not carry a query (?…) or fragment (#…)"
    if not why:
        return None
    return (f"{PUBLIC_URL_SETTING}={text[:80]!r} {why}; share links use the address each viewer opened "
            "instead")


def public_base_url() -> str | None:
    """The deployment's public address (``COSTFRONTIER_PUBLIC_URL``), ending in ``/``; None when not set or
    not usable (:func:`public_url_problem`, said once per process on standard error, the operator's log).

    Share links in reports and the Share box point there instead of the address the server sees.
    """
    url = os.environ.get(PUBLIC_URL_SETTING, "").strip()
    if not url:
        return None
    problem = public_url_problem(url)
    if problem:
        if url not in _warned:
            _warned.add(url)
            print(f"warning: {problem}", file=sys.stderr, flush=True)
        return None
    return url if url.endswith("/") else url + "/"


def view_url(query: dict[str, str], url_path: str = "", base: str | None = None) -> str:
    """The link opening the page at ``url_path`` ("" for the default page) on the view whose link fields are
    ``query``: ``base`` (default :func:`public_base_url`, else :data:`DEFAULT_BASE_URL`), the path, the query.

    >>> view_url({"x": "50", "wl": "GLM-5|8192|1024"}, "Frontier", "https://cf.example/team/")
    'https://cf.example/team/Frontier?x=50&wl=GLM-5|8192|1024'
    """
    root = (base or public_base_url() or DEFAULT_BASE_URL).rstrip("/")
    encoded = urlencode(query, safe=":,|")
    return f"{root}/{url_path}" + (f"?{encoded}" if encoded else "")


def pinned_url(url: str, version: int | None, digest: str | None = None) -> str:
    """``url`` (a share link) pinned to data version ``version`` (its ``v=`` set; "as presented"): it reopens the
    view on exactly that version's data. ``digest`` (:func:`model.data.versions.version_digest`, ``vd=``) names what
    that version shows, so a store whose version ``version`` shows other data says so instead of showing them; None
    keeps the link's own ``vd=`` when it was pinned to the same version, else leaves it out. ``version`` None or 0
    (a store not yet versioned) gives ``url`` as it is.

    >>> pinned_url("https://cf.example/Frontier?x=50", 7, "3f9a2c")
    'https://cf.example/Frontier?x=50&v=7&vd=3f9a2c'
    """
    if not version:
        return url
    head, _, query = url.partition("?")
    pairs = parse_qsl(query, keep_blank_values=True)
    if digest is None and (str(int(version)),) == tuple(v for k, v in pairs if k == "v"):
        digest = next((v for k, v in pairs if k == "vd"), None)
    pairs = [(k, v) for k, v in pairs if k not in _PIN_KEYS] + [("v", str(int(version)))] + (
        [("vd", digest)] if digest else [])
    return f"{head}?{urlencode(pairs, safe=':,|')}"


def live_url(url: str) -> str:
    """``url`` without its pin (``v=`` and ``vd=``): the same view on the latest data.

    >>> live_url("https://cf.example/Frontier?x=50&v=7&vd=3f9a2c")
    'https://cf.example/Frontier?x=50'
    """
    head, _, query = url.partition("?")
    pairs = [(k, v) for k, v in parse_qsl(query, keep_blank_values=True) if k not in _PIN_KEYS]
    return f"{head}?{urlencode(pairs, safe=':,|')}" if pairs else head


#: the link keys of a pin: the data version and the digest of what it shows
_PIN_KEYS = ("v", "vd")
