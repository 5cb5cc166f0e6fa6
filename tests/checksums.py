"""The tests' oracle that a database is unchanged: every table's row count and an order-independent hash of its
rows, read through a store connection (the product never needs it)."""

from __future__ import annotations

import duckdb

from model.data.database import OPTIONAL_TABLES, OUR_TABLES


def table_checksums(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[int, int]]:
    """(row count, order-independent hash of every row) for each of our tables present in ``con``."""
    present = {r[0] for r in con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'").fetchall()}
    out = {}
    for table in OUR_TABLES + tuple(t for t in OPTIONAL_TABLES if t in present):
        # table names come from our own constant tuple, not from input
        row = con.execute(f"SELECT count(*), coalesce(sum(hash(t)), 0) FROM {table} t").fetchone()
        out[table] = (int(row[0]), int(row[1]))
    return out
