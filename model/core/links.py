"""The share link of a view: the one rule for its address, used by the Share box, the report and the CLI.

A link is the deployment's base address, the page's URL path, and the view's query (``View.to_query()``)
with ``:``, ``,`` and ``|`` left readable. The base is the operator's public address
(``COSTFRONTIER_PUBLIC_URL``) when set, else what the caller saw (the browser's address), else localhost.
"""

from __future__ import annotations

import os
from urllib.parse import urlencode

__all__ = ["DEFAULT_BASE_URL", "public_base_url", "view_url"]

#: the base of a link when neither the operator nor a browser names one (``make run``'s address)
DEFAULT_BASE_URL = "http://localhost:8501/"


def public_base_url() -> str | None:
    """The deployment's public address (``COSTFRONTIER_PUBLIC_URL``), ending in ``/``; None when not set.

    Share links in reports and the Share box point there instead of the address the server sees.
    """
    url = os.environ.get("COSTFRONTIER_PUBLIC_URL", "").strip()
    if not url.startswith(("http://", "https://")):
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
