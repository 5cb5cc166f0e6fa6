"""Per-request data in the store: the ``point_requests`` table (one row per load point that has them: its completed
requests' TTFT [s] and TPOT [ms] as DOUBLE lists, at most :data:`model.core.goodput.MAX_PAIRS` each, and how many
completed requests the file held), written with the point's file in its transaction and removed with it.

The table is optional (:data:`model.data.database.OPTIONAL_TABLES`): created by the first file that has
per-request data, so a database written before it existed reads as having none.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Iterable, Mapping

import duckdb
import numpy as np

from model.core.goodput import Sample
from model.data.database import REQUESTS_DDL

__all__ = ["REQUESTS_DDL", "store_samples", "load_samples", "has_samples"]


def store_samples(con: duckdb.DuckDBPyConnection, source_id: int, samples: Mapping[int, Sample]) -> int:
    """Store ``samples`` (frame row ordinal -> :class:`Sample`) for the points ``source_id`` just added (the
    caller holds the transaction). Returns the points stored."""
    if not samples:
        return 0
    con.execute(REQUESTS_DDL)
    ids = [int(r[0]) for r in con.execute(
        "SELECT point_id FROM points WHERE source_id = ? ORDER BY point_id", [source_id]).fetchall()]
    rows = [[source_id, ids[i], int(s.requests), s.ttft_s.tolist(), s.tpot_ms.tolist()]
            for i, s in sorted(samples.items()) if 0 <= i < len(ids)]
    con.executemany("INSERT INTO point_requests VALUES (?, ?, ?, ?, ?)", rows)
    return len(rows)


def has_samples(con) -> bool:
    """Whether the store has the table (and so may hold per-request data)."""
    return bool(con.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = 'point_requests' "
                            "AND table_schema = 'main'").fetchone()[0])


def load_samples(con, point_ids: Iterable[int] | None = None) -> Mapping[int, Sample]:
    """point_id -> :class:`Sample` of the stored per-request data (of ``point_ids`` only, when given); empty when
    the store has none.

    The ids that have per-request data are read first (one small column) and matched against ``point_ids`` in
    NumPy, so a store without per-request data, or a million rows in view with a few points that have it, costs
    a few milliseconds rather than a Python set of every id in view."""
    try:
        stored = con.execute("SELECT point_id FROM point_requests").fetchnumpy()["point_id"]
    except duckdb.CatalogException:   # an older store, or one without per-request data: none
        return MappingProxyType({})
    if len(stored) == 0:
        return MappingProxyType({})
    stored = np.asarray(stored, dtype=np.int64)
    if point_ids is not None:
        stored = stored[np.isin(stored, np.asarray(point_ids, dtype=np.int64))]
        if len(stored) == 0:
            return MappingProxyType({})
    found = con.execute("SELECT point_id, requests, ttft_s, tpot_ms FROM point_requests "
                        "WHERE point_id IN (SELECT unnest(?::BIGINT[]))", [stored.tolist()]).fetchall()
    return MappingProxyType({int(pid): Sample(np.asarray(t, dtype=np.float64), np.asarray(p, dtype=np.float64), int(n))
                             for pid, n, t, p in found})
