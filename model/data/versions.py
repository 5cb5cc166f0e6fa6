"""Numbered data versions: every committed write is one version of the store, and any version can be read again.

``store_versions`` holds one row per committed write transaction: its number (1, 2, ...), when (UTC), what it
did (``ingest``, ``upload``, ``remove``, ``load-samples``, ``profile``, ``api-price``, ``purge``; ``migrate``
for what a store held when versions began), what it touched (file names, source ids, profile names), the CLI
command or page that did it, and the user when the deployment knows one (``COSTFRONTIER_USER``, or the
dashboard's proxy header).

A source carries the version it was added in (``sources.added_in``) and the one it was removed in
(``removed_in``): ``remove`` hides a source from that version on and its rows stay, so version N is rebuilt
exactly: its points, TCO rates, evaluations, published tables and API prices are those of the sources
visible at N (:func:`visible_sql`). Cost profiles keep every saved state in ``cost_profile_versions``
(:func:`model.data.profiles.load_profiles`). The latest read filters nothing while no source is hidden, and
only the hidden ids after that. :func:`purge` deletes hidden sources' rows for good; ``pins`` records the
versions that pinned links and reports name, which purge keeps unless forced.
"""

from __future__ import annotations

import contextvars
import os
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Iterator

import pandas as pd

from model.data.database import OPTIONAL_TABLES, StoreError
from model.data.identity import clean

__all__ = ["ACTIONS", "USER_SETTING", "acting", "stamp", "latest_version", "list_versions", "visible_sql",
           "visible_ids", "hide_source", "purge", "PurgeRefused", "record_pin", "list_pins", "diff_sources",
           "version_problem", "sources_at"]

#: what a version did
ACTIONS = ("ingest", "upload", "remove", "load-samples", "profile", "api-price", "purge", "migrate")
#: the setting naming who writes (the CLI's user, or a deployment's service account)
USER_SETTING = "COSTFRONTIER_USER"
#: the tables whose rows belong to a source (by ``source_id``)
SOURCE_TABLES = ("points", "tco_rates", "evals", "published_iso", *OPTIONAL_TABLES)

_ACTING: contextvars.ContextVar[tuple[str, str, str | None]] = contextvars.ContextVar(
    "costfrontier_acting", default=("ingest", "", None))


@contextmanager
def acting(action: str, by: str | None = None, user: str | None = None) -> Iterator[None]:
    """Within this block, versions written say ``action``, ``by`` (the CLI command or page; default: the enclosing
    block's) and ``user`` (default: the enclosing block's, else ``COSTFRONTIER_USER``): the write paths below it
    (``ingest_file``, ``save_profiles``, ...) read it."""
    _, outer_by, outer_user = _ACTING.get()
    token = _ACTING.set((action, outer_by if by is None else by, outer_user if user is None else user))
    try:
        yield
    finally:
        _ACTING.reset(token)


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


def _user(given: str | None) -> str | None:
    return clean(given if given is not None else os.environ.get(USER_SETTING, ""))


def stamp(con, action: str | None = None, what: str | None = None, sources: bool = True) -> int:
    """Record one version inside the caller's open transaction (call it just before COMMIT) and return its
    number. Sources added in this transaction (``added_in`` still empty) get it; ``what`` defaults to their file
    names. ``action`` defaults to the one :func:`acting` set (``ingest``). ``sources`` False: the write adds no
    source (a saved profile), and the connection may have no ``sources`` table."""
    act, by, user = _ACTING.get()
    # one statement numbers the new sources and reads the number (a small write pays two statements in all)
    rows = con.execute("UPDATE sources SET added_in = (SELECT coalesce(max(version), 0) + 1 FROM store_versions) "
                       "WHERE added_in IS NULL RETURNING file_name, added_in").fetchall() if sources else []
    version = int(rows[0][1]) if rows else latest_version(con) + 1
    added = [r[0] for r in rows]
    if what is None:
        what = ", ".join(sorted(added)) if added else ""
    action = action or act
    con.execute("INSERT INTO store_versions VALUES (?, ?, ?, ?, ?, ?)",
                [version, _now(), action, clean(what, 2000) or "", clean(by, 200), _user(user)])
    return version


def latest_version(con) -> int:
    """The newest version's number; 0 for a store no write has versioned yet."""
    return int(con.execute("SELECT coalesce(max(version), 0) FROM store_versions").fetchone()[0])


def list_versions(con) -> pd.DataFrame:
    """Every version, oldest first: version, at (UTC), action, what, by, user."""
    return con.execute('SELECT version, "at", action, what, "by", user_name AS "user" FROM store_versions '
                       "ORDER BY version").df()


def version_problem(con, version: int | None) -> str | None:
    """Why ``version`` cannot be read from this store (in the reader's words), or None."""
    if version is None:
        return None
    latest = latest_version(con)
    if version > latest:
        return (f"data version {version} does not exist (the newest is {latest}); the latest data are shown"
                if latest else f"this store has no data version {version} yet; the latest data are shown")
    return None


def visible_ids(con, version: int | None) -> list[int] | None:
    """The ids of the sources version ``version`` shows; None for the latest version while no source is hidden
    (then every row is visible and nothing need be filtered)."""
    if version is None:
        return None
    return [int(r[0]) for r in con.execute(
        "SELECT source_id FROM sources WHERE added_in <= ? AND (removed_in IS NULL OR removed_in > ?)",
        [version, version]).fetchall()]


def _hidden_ids(con) -> list[int]:
    return [int(r[0]) for r in con.execute("SELECT source_id FROM sources WHERE removed_in IS NOT NULL").fetchall()]


def visible_sql(con, version: int | None, column: str = "source_id") -> tuple[str, list]:
    """A SQL condition on ``column`` (a source id; our own identifier, never a user's) keeping the rows of
    version ``version`` (None: the latest), and its parameters; ``("", [])`` when every row is visible.

    The latest version reads every row while no source is hidden (the query is today's), else leaves out the
    hidden ids; an older version keeps the ids it shows."""
    if version is None:
        hidden = _hidden_ids(con)
        return (f"{column} NOT IN (SELECT unnest(?::BIGINT[]))", [hidden]) if hidden else ("", [])
    return f"{column} IN (SELECT unnest(?::BIGINT[]))", [visible_ids(con, version)]


def sources_at(con, version: int | None) -> pd.DataFrame:
    """source_id, file_name, kind, rows, added_in of the sources version ``version`` shows (None: latest)."""
    cond, params = visible_sql(con, version)
    return con.execute("SELECT source_id, file_name, kind, rows, added_in FROM sources WHERE removed_in IS NULL"
                       if version is None else
                       f"SELECT source_id, file_name, kind, rows, added_in FROM sources WHERE {cond}",
                       [] if version is None else params).df()


def diff_sources(con, a: int, b: int | None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(sources version ``b`` shows that ``a`` does not, sources ``a`` shows that ``b`` does not); ``b`` None:
    the latest."""
    before, after = sources_at(con, a), sources_at(con, b)
    added = after[~after["source_id"].isin(before["source_id"])].reset_index(drop=True)
    removed = before[~before["source_id"].isin(after["source_id"])].reset_index(drop=True)
    return added, removed


def hide_source(con, source_id: int) -> int:
    """``remove``: hide one source from a new version on, atomically, keeping its rows; returns its row count.
    Its content may be ingested again afterwards (a new source: the hidden one's hash is set aside)."""
    con.execute("BEGIN")
    try:
        row = con.execute("SELECT rows FROM sources WHERE source_id = ? AND removed_in IS NULL",
                          [source_id]).fetchone()
        if row is None:
            raise StoreError(f"no source with id {source_id}")
        version = latest_version(con) + 1
        con.execute("UPDATE sources SET removed_in = ?, sha256 = sha256 || ':removed-in-' || CAST(? AS VARCHAR) "
                    "WHERE source_id = ?", [version, version, source_id])
        name = con.execute("SELECT file_name FROM sources WHERE source_id = ?", [source_id]).fetchone()[0]
        stamp(con, "remove", f"#{source_id} {name}")
        con.execute("COMMIT")
    except Exception:
        con.execute("ROLLBACK")
        raise
    return int(row[0])


def record_pin(con, version: int, what: str = "", by: str = "") -> bool:
    """Record that a pinned link or report names ``version`` (``purge`` keeps what it shows unless forced).

    Returns False, recording nothing, when a pin of this version and ``what`` (the link, or the note) is
    recorded already: a second click records no second pin."""
    what = clean(what, 500)
    if con.execute("SELECT 1 FROM pins WHERE version = ? AND what = ? LIMIT 1", [int(version), what]).fetchone():
        return False
    con.execute("INSERT INTO pins VALUES (?, ?, ?, ?, ?)", [int(version), _now(), what, clean(by, 200),
                                                           _user(_ACTING.get()[2])])
    return True


def list_pins(con) -> pd.DataFrame:
    """Recorded pins, oldest first: version, at, what, by, user."""
    return con.execute('SELECT version, "at", what, "by", user_name AS "user" FROM pins ORDER BY "at"').df()


class PurgeRefused(StoreError):
    """``purge`` would change what a recorded pin shows (``--force`` purges anyway)."""


def purge(con, force: bool = False) -> tuple[list[str], list[str]]:
    """Delete every hidden source's rows for good, in one version; returns (sources purged, warnings).

    Refused (:class:`PurgeRefused`, nothing changed) while a recorded pin names a version that still shows one
    of them, unless ``force``. A pinned link that was never recorded cannot be known: every version from a
    source's ``added_in`` up to its ``removed_in`` shows it, and is said."""
    hidden = con.execute("SELECT source_id, file_name, added_in, removed_in FROM sources WHERE removed_in IS NOT "
                         "NULL AND purged_in IS NULL ORDER BY source_id").fetchall()
    if not hidden:
        return [], []
    pins = con.execute("SELECT DISTINCT version FROM pins ORDER BY version").fetchall()
    named = [f"#{sid} {name} (shown by versions {a}-{r - 1})" for sid, name, a, r in hidden]
    blocking = sorted({v for (v,) in pins for _, _, a, r in hidden if a <= v < r})
    if blocking and not force:
        raise PurgeRefused(
            f"purge refused: pinned version{'s' if len(blocking) > 1 else ''} {', '.join(map(str, blocking))} "
            f"still show{'s' if len(blocking) == 1 else ''} {'; '.join(named)}; purging would change what those "
            "links and reports show. Nothing was changed; use --force to purge anyway")
    present = {r[0] for r in con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'").fetchall()}
    ids = [int(h[0]) for h in hidden]
    con.execute("BEGIN")
    try:
        for table in SOURCE_TABLES:
            if table in present:   # names from our own constant tuple
                con.execute(f"DELETE FROM {table} WHERE source_id IN (SELECT unnest(?::BIGINT[]))", [ids])
        version = latest_version(con) + 1
        con.execute("UPDATE sources SET purged_in = ?, rows = 0 WHERE source_id IN (SELECT unnest(?::BIGINT[]))",
                    [version, ids])
        stamp(con, "purge", ", ".join(f"#{sid} {name}" for sid, name, _, _ in hidden))
        con.execute("COMMIT")
    except Exception:
        con.execute("ROLLBACK")
        raise
    warnings = [f"pinned version {v} no longer shows the purged rows (forced)" for v in blocking]
    unpinned = [f"#{sid} {name}: links pinned to versions {a}-{r - 1} that were not recorded now show it empty"
                for sid, name, a, r in hidden if r - 1 >= a]
    return named, warnings + unpinned
