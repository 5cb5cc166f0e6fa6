"""Cost profiles in the database, so a team shares them: table ``cost_profiles``.

The table (:data:`model.core.schema.COST_PROFILES_DDL`) holds one row per profile name: its hardware,
kind, the effective $/GPU-hour when saved, the whole profile as JSON, its provenance (``source``),
who saved it and when (UTC). It is created on the first save, so a database written before it
existed opens unchanged; reading a database without it gives no profiles. Every value is a ``?``
parameter. Functions take an open connection (:func:`model.data.store.connect`).
"""

from __future__ import annotations

import json
import math
from datetime import datetime, timezone

import duckdb
import pandas as pd
from pydantic import ValidationError

from model.core.cost_profiles import CostProfile, unique_profiles
from model.core.schema import COST_PROFILES_DDL, PROFILE_VERSIONS_DDL, VERSIONS_DDL
from model.core.tco import TcoInputError, explain_validation
from model.data.versions import latest_version, stamp

__all__ = ["save_profiles", "load_profiles", "profiles_table"]


def _has_table(con: duckdb.DuckDBPyConnection) -> bool:
    return bool(con.execute("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'main' "
                            "AND table_name = 'cost_profiles'").fetchone()[0])


def save_profiles(con: duckdb.DuckDBPyConnection, profiles, saved_by: str = "cli") -> int:
    """Insert or replace ``profiles`` by name, all in one transaction; returns how many were saved.

    Parameters
    ----------
    con : DuckDB connection (read-write)
    profiles : iterable of CostProfile  names must be unique
    saved_by : str  who saved them (``cli``, ``dashboard``), kept with the timestamp
    """
    profiles = unique_profiles(profiles)
    now = datetime.now(timezone.utc).replace(tzinfo=None)
    cur = con.cursor()
    cur.execute("BEGIN")
    try:
        cur.execute(COST_PROFILES_DDL)
        cur.execute(PROFILE_VERSIONS_DDL)
        cur.execute(VERSIONS_DDL)
        version = latest_version(cur) + 1
        for p in profiles:
            rate = p.rate()
            row = [p.name, p.hardware, p.kind, rate if rate is not None and math.isfinite(rate) else None,
                   p.model_dump_json(), p.source, saved_by, now]
            cur.execute("INSERT OR REPLACE INTO cost_profiles VALUES (?, ?, ?, ?, ?, ?, ?, ?)", row)
            # every saved state stays, so a data version's profiles are read as they were (load_profiles)
            cur.execute("UPDATE cost_profile_versions SET removed_in = ? WHERE name = ? AND removed_in IS NULL",
                        [version, p.name])
            cur.execute("INSERT INTO cost_profile_versions VALUES (?, NULL, ?, ?, ?, ?, ?, ?, ?, ?)", [version, *row])
        stamp(cur, "profile", ", ".join(p.name for p in profiles), sources=False)
        cur.execute("COMMIT")
    except Exception:
        cur.execute("ROLLBACK")
        raise
    return len(profiles)


def load_profiles(con: duckdb.DuckDBPyConnection, version: int | None = None) -> list[CostProfile]:
    """Every stored profile, by name (as data version ``version`` held them; None: the latest). A row that no
    longer validates raises :class:`TcoInputError` naming it."""
    if not _has_table(con):
        return []
    out = []
    query, params = ("SELECT name, inputs FROM cost_profiles ORDER BY name", []) if version is None else (
        "SELECT name, inputs FROM cost_profile_versions WHERE version <= ? AND coalesce(removed_in, ?) > ? "
        "ORDER BY name", [version, version + 1, version])
    for name, inputs in con.cursor().execute(query, params).fetchall():
        try:
            out.append(CostProfile(**json.loads(inputs)))
        except ValidationError as exc:
            raise explain_validation(exc, f"stored cost profile {name!r}", CostProfile.model_fields) from None
        except ValueError as exc:
            raise TcoInputError(f"stored cost profile {name!r} is damaged: {exc}") from None
    return out


def profiles_table(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Stored profiles with provenance: name, hardware, kind, usd_per_gpu_hour, source, saved_by, saved_at."""
    columns = ["name", "hardware", "kind", "usd_per_gpu_hour", "source", "saved_by", "saved_at"]
    if not _has_table(con):
        return pd.DataFrame(columns=columns)
    return con.cursor().execute(f"SELECT {', '.join(columns)} FROM cost_profiles ORDER BY name").df()
