"""Numbered data versions: every committed write is one version of the store, and any version can be read again.

``store_versions`` holds one row per committed write transaction: its number (1, 2, ...), when (UTC), what it
did (``ingest``, ``upload``, ``remove``, ``load-samples``, ``profile``, ``api-price``, ``purge``, ``trace``; ``migrate``
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

**Which data a version shows, checkably.** A version's number alone does not name its data: restore an older copy
of the store (any backup restore) and write once, and version 9 exists again showing other rows. So a version also
has a *digest* (:func:`version_digest`): a hash of what it shows, i.e. of each source it shows (the file's own
SHA-256, name, kind, format and ``--set`` fields) and each cost profile it holds (name and saved inputs), in no
order. A pinned link carries the first :data:`DIGEST_CHARS` hex characters of it beside its number (``v=9&vd=3f9a2c``)
and a recorded pin names it; opening a link whose version is missing, or whose digest differs from what that
version shows here, is refused (:class:`OtherData`, :func:`pin_notes`) instead of showing other numbers. The digest
is computed from the store's own rows, never stored: it needs no new column or migration, so it works on every
store and replica of this schema, old versions included, and it is the same in every copy of a store (a copy is
the same data). Same data, same digest: a history rebuilt by ingesting the same files again gives the same
digests, and the link's numbers are then the same too. A purge deletes rows but keeps the sources' records, so a
purged version keeps its digest and says instead which rows were purged, and when (:func:`pin_notes`).
"""

from __future__ import annotations

import contextvars
import hashlib
import json
import os
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Iterator

import pandas as pd

from model.core.limits import DIGEST_CHARS
from model.data.database import OPTIONAL_TABLES, StoreError
from model.data.identity import clean

__all__ = ["ACTIONS", "USER_SETTING", "acting", "stamp", "latest_version", "list_versions", "visible_sql",
           "visible_ids", "hide_source", "purge", "PurgeRefused", "record_pin", "list_pins", "diff_sources",
           "version_problem", "sources_at", "DIGEST_CHARS", "version_digest", "version_digests", "OtherData",
           "pin_notes", "pinned_versions"]

#: what a version did
ACTIONS = ("ingest", "upload", "remove", "load-samples", "profile", "api-price", "purge", "migrate", "trace")
#: the setting naming who writes (the CLI's user, or a deployment's service account)
USER_SETTING = "COSTFRONTIER_USER"
#: the tables whose rows belong to a source (by ``source_id``): every optional table but the traces
SOURCE_TABLES = ("points", "tco_rates", "evals", "published_iso", *(t for t in OPTIONAL_TABLES if t != "traces"))

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


#: a version's digest is this module's rule, version 1 of it: the tag keeps a future rule's digests apart
_DIGEST_RULE = b"costfrontier data digest 1\0"
_SOURCE_ITEMS = ("SELECT split_part(sha256, ':', 1), file_name, kind, format, coalesce(set_fields, ''), added_in, "
                 "removed_in FROM sources WHERE added_in IS NOT NULL")
_PROFILE_ITEMS = "SELECT name, inputs, version, removed_in FROM cost_profile_versions"


def _item_hash(*parts) -> int:
    return int.from_bytes(hashlib.sha256(json.dumps(parts, default=str).encode()).digest(), "big")


def _items(con, version: int | None = None) -> list[tuple[int, int, int | None]]:
    """(hash, first version, version it left or None) of every source and cost profile (those version ``version``
    shows; None: every one)."""
    keep = "" if version is None else " AND added_in <= ? AND (removed_in IS NULL OR removed_in > ?)"
    params = [] if version is None else [version, version]
    out = [(_item_hash("source", *r[:5]), int(r[5]), r[6]) for r in con.execute(_SOURCE_ITEMS + keep, params).fetchall()]
    keep = "" if version is None else " WHERE version <= ? AND (removed_in IS NULL OR removed_in > ?)"
    out += [(_item_hash("profile", name, inputs), int(v), gone)
            for name, inputs, v, gone in con.execute(_PROFILE_ITEMS + keep, params).fetchall()]
    return out


def _code(total: int) -> str:
    return hashlib.sha256(_DIGEST_RULE + (total % (1 << 256)).to_bytes(32, "big")).hexdigest()[:DIGEST_CHARS]


def version_digest(con, version: int) -> str:
    """The digest of what data version ``version`` shows, as a pinned link carries it (:data:`DIGEST_CHARS` hex
    characters): the sum of one SHA-256 per source and cost profile it shows (so order does not count), hashed
    once more with the rule's tag. Purged rows do not change it (see the module's docstring)."""
    return _code(sum(h for h, _, _ in _items(con, version)))


def version_digests(con) -> dict[int, str]:
    """Every version's digest (:func:`version_digest`), in one pass: version -> digest."""
    change: dict[int, int] = {}
    for h, first, gone in _items(con):
        change[first] = change.get(first, 0) + h
        if gone is not None:
            change[int(gone)] = change.get(int(gone), 0) - h
    total, out = 0, {}
    for version in range(1, latest_version(con) + 1):
        total += change.get(version, 0)
        out[version] = _code(total)
    return out


class OtherData(StoreError):
    """A pinned link names a data version this store does not have, or one that shows other data here than when
    the link was made (the store was restored from an older copy and written since, or it is another store)."""


def pin_notes(con, version: int | None, digest: str | None = None) -> list[str]:
    """What a view pinned to data version ``version`` (made on data whose digest is ``digest``, when the link
    carries one) must say beside its numbers: a note per purge that deleted rows the version showed
    ("rows purged on DATE: ..."). ``version`` None (the latest data): nothing.

    Raises :class:`OtherData` when the store has no such version, or when its version ``version`` shows other data
    than ``digest`` (the words name no path: viewers read them too)."""
    if version is None:
        return []
    latest = latest_version(con)
    if version > latest:
        text = (f"this link names data version {version}, which this store does not have (its newest is {latest}): "
                "it was made on another store, or on this one before it was restored from an older copy. Its numbers "
                "are not shown; open the view on the latest data instead" if latest else
                f"this link names data version {version}, and this store has no data versions yet. Its numbers are "
                "not shown")
        raise OtherData(text, public=text[:1].upper() + text[1:] + ".")
    if digest and digest != (here := version_digest(con, version)):
        text = (f"this link was made on other data: its data version {version} showed data {digest}, and this "
                f"store's version {version} shows other data ({here}). The store was restored from an older copy and "
                "written since, or this is another store. The link's numbers are not shown; open the view on the "
                "latest data instead, or ask whoever shared it for the report made then")
        raise OtherData(text, public=text[:1].upper() + text[1:] + ".")
    rows = con.execute(
        'SELECT CAST(v."at" AS DATE), s.purged_in, s.source_id, s.file_name FROM sources s JOIN store_versions v '
        "ON v.version = s.purged_in WHERE s.added_in <= ? AND s.removed_in > ? ORDER BY s.purged_in, s.source_id",
        [version, version]).fetchall()
    notes, by_purge = [], {}
    for day, purge_version, sid, name in rows:
        by_purge.setdefault((day, purge_version), []).append(f"#{sid} {name}")
    for (day, purge_version), names in by_purge.items():
        notes.append(f"rows purged on {day:%Y-%m-%d}: data version {version} showed {', '.join(names)}, whose rows "
                     f"were deleted for good since (purge, version {purge_version}); the numbers shown lack them")
    return notes


def pinned_versions(con) -> set[int]:
    """The versions a recorded pin names (``purge`` keeps what they show, unless forced)."""
    return {int(r[0]) for r in con.execute("SELECT DISTINCT version FROM pins").fetchall()}


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


def record_pin(con, version: int, what: str = "", by: str = "") -> str | None:
    """Record that a pinned link or report names ``version`` (``purge`` keeps what it shows unless forced); the
    record names the version's digest too (``what`` ends in ``[data 3f9a2c]``). Returns that digest; None,
    recording nothing, when this version is pinned with this ``what`` (the link, or the note) already: a second
    click records no second pin."""
    digest = version_digest(con, int(version))
    text = clean(what, 480)
    stored = f"{text} [data {digest}]" if text else f"[data {digest}]"
    if con.execute("SELECT 1 FROM pins WHERE version = ? AND what = ? LIMIT 1", [int(version), stored]).fetchone():
        return None
    con.execute("INSERT INTO pins VALUES (?, ?, ?, ?, ?)", [int(version), _now(), stored, clean(by, 200),
                                                           _user(_ACTING.get()[2])])
    return digest


def list_pins(con) -> pd.DataFrame:
    """Recorded pins, oldest first: version, at, what, by, user."""
    return con.execute('SELECT version, "at", what, "by", user_name AS "user" FROM pins ORDER BY "at"').df()


class PurgeRefused(StoreError):
    """``purge`` would change what a recorded pin shows (``--force`` purges anyway)."""


def purge(con, force: bool = False) -> tuple[list[str], list[str]]:
    """Delete every hidden source's rows for good, in one version; returns (sources purged, warnings).

    Refused (:class:`PurgeRefused`, nothing changed) while a recorded pin names a version that still shows one
    of them, unless ``force``. A pinned link that was never recorded cannot be known: every version from a
    source's ``added_in`` up to its ``removed_in`` shows it, and is said; such a link, opened after, says which of
    its rows were purged and when (:func:`pin_notes`), on every page and in the CLI."""
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
    day = _now().strftime("%Y-%m-%d")
    unpinned = [f"#{sid} {name}: links pinned to versions {a}-{r - 1} that were not recorded now show them without "
                f"its rows, and say so (rows purged on {day})" for sid, name, a, r in hidden if r - 1 >= a]
    return named, warnings + unpinned
