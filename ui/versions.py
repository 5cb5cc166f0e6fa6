"""The store's data versions as the dashboard reads them: the newest version, what changed since a pinned one, the
change log; each once per snapshot, in the shared byte-bounded cache (:data:`ui.lru.CACHE`)."""

from __future__ import annotations

import copy

import pandas as pd

from model.data.versions import (
    OtherData,
    diff_sources,
    latest_version,
    list_versions,
    pin_notes,
    pinned_versions,
    version_digest,
)
from ui.data import cursor, db_path
from ui.lru import CACHE

__all__ = ["latest", "changes_since", "versions", "digest", "pin_check", "recorded"]


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


def digest(ver: tuple, dv: int) -> str:
    """The digest of what data version ``dv`` shows in snapshot ``ver`` (a pinned link's ``vd=``)."""
    return CACHE.get_or_make(("digest", ver, db_path(), dv), lambda: version_digest(cursor(), dv))


def pin_check(ver: tuple, dv: int | None, vd: str | None) -> tuple[tuple[str, ...], str | None]:
    """(notes, refusal) of a view pinned to data version ``dv`` made on data ``vd`` (:func:`model.data.versions.
    pin_notes`): the purges that deleted rows it showed; or why this store cannot show it (other data), else None."""
    def make() -> tuple[tuple[str, ...], str | None]:
        try:
            return tuple(pin_notes(cursor(), dv, vd)), None
        except OtherData as exc:
            return (), exc.public

    return CACHE.get_or_make(("pin_check", ver, db_path(), dv, vd), make)


def recorded(ver: tuple) -> frozenset[int]:
    """The versions a recorded pin names in snapshot ``ver`` (purge keeps what they show unless forced)."""
    return CACHE.get_or_make(("pins", ver, db_path()), lambda: frozenset(pinned_versions(cursor())))
