"""The store's data versions as the dashboard reads them: the newest version, what changed since a pinned one, the
change log; each once per snapshot, in the shared byte-bounded cache (:data:`ui.lru.CACHE`)."""

from __future__ import annotations

import copy

import pandas as pd

from model.data.versions import diff_sources, latest_version, list_versions
from ui.data import cursor, db_path
from ui.lru import CACHE

__all__ = ["latest", "changes_since", "versions"]


def latest(ver: tuple) -> int:
    """The number of the newest data version in snapshot ``ver`` (0: none yet)."""
    return CACHE.get_or_make(("latest", ver, db_path()), lambda: latest_version(cursor()))


def changes_since(ver: tuple, dv: int) -> tuple[list[str], list[str]]:
    """(sources added, sources removed) between data version ``dv`` and the latest of snapshot ``ver``."""
    def make() -> tuple[list[str], list[str]]:
        added, removed = diff_sources(cursor(), dv, None)
        return ([f"#{r['source_id']} {r['file_name']}" for r in added.to_dict("records")],
                [f"#{r['source_id']} {r['file_name']}" for r in removed.to_dict("records")])

    return copy.deepcopy(CACHE.get_or_make(("changes", ver, db_path(), dv), make))


def versions(ver: tuple) -> pd.DataFrame:
    """The change log of snapshot ``ver`` (:func:`model.data.versions.list_versions`)."""
    return CACHE.get_or_make(("versions", ver, db_path()), lambda: list_versions(cursor())).copy()
