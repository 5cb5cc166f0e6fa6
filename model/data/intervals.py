"""Run-to-run intervals in the store: the ``point_intervals`` table (one row per load point and metric measured over
repeated runs: the interval as the file states it and as :func:`model.core.run_to_run.check` found it), written with
the point's file in its transaction and removed with it.

The table is optional (:data:`model.data.database.OPTIONAL_TABLES`): created by the first file that has intervals
(:mod:`model.data.importers.perf_aggregate`), so a database written before it existed reads as having none.
"""

from __future__ import annotations

from typing import Iterable, Mapping

import duckdb
import numpy as np
import pandas as pd

from model.data.database import INTERVALS_DDL, registered

__all__ = ["COLUMNS", "store_intervals", "load_intervals"]

#: the table's columns after source_id and point_id, in order
COLUMNS = ("metric", "unit", "runs", "confidence", "mean", "std", "min", "max", "cv", "se", "ci_low", "ci_high",
           "t_critical", "se_recomputed", "t_expected", "ci_low_recomputed", "ci_high_recomputed", "t_implied",
           "status", "detail")


def store_intervals(con: duckdb.DuckDBPyConnection, source_id: int, intervals: Mapping[int, list[dict]]) -> int:
    """Store ``intervals`` (frame row ordinal -> its metrics' intervals) for the points ``source_id`` just added (the
    caller holds the transaction). Returns the rows stored."""
    if not intervals:
        return 0
    con.execute(INTERVALS_DDL)
    ids = [int(r[0]) for r in con.execute(
        "SELECT point_id FROM points WHERE source_id = ? ORDER BY point_id", [source_id]).fetchall()]
    rows = [[source_id, ids[i], *(item.get(c) for c in COLUMNS)]
            for i, items in sorted(intervals.items()) if 0 <= i < len(ids) for item in items]
    frame = pd.DataFrame(rows, columns=["source_id", "point_id", *COLUMNS])
    for column in ("runs",):
        frame[column] = pd.array(frame[column], dtype="Int64")
    with registered(con, "_new_intervals", frame):
        con.execute("INSERT INTO point_intervals SELECT * FROM _new_intervals")
    return len(rows)


def load_intervals(con, point_ids: Iterable[int] | None = None) -> pd.DataFrame:
    """The stored intervals (of ``point_ids`` only, when given), one row per point and metric; empty (with the
    columns) when the store has none."""
    columns = ["source_id", "point_id", *COLUMNS]
    try:
        if not con.execute("SELECT count(*) FROM point_intervals").fetchone()[0]:
            return pd.DataFrame(columns=columns)         # none stored: no list of a million ids sent for nothing
        if point_ids is None:
            return con.execute("SELECT * FROM point_intervals ORDER BY point_id, metric").df()
        ids = pd.DataFrame({"point_id": np.asarray(pd.array(point_ids, dtype="Int64").dropna(), dtype=np.int64)})
        if ids.empty:
            return pd.DataFrame(columns=columns)
        cur = con.cursor()          # the ids as a relation of this cursor's own: a join, not a list parameter
        with registered(cur, "_interval_ids", ids):
            return cur.execute("SELECT * FROM point_intervals WHERE point_id IN (SELECT point_id FROM _interval_ids) "
                               "ORDER BY point_id, metric").df()
    except duckdb.CatalogException:   # an older store, or one without intervals
        return pd.DataFrame(columns=columns)
