"""Actuals in the store: what serving a model really cost and served, from OpenCost or a bill (the ``actuals`` table).

Two kinds of file go in (each its own source, so ``remove`` hides it from a new data version on and ``purge``
deletes its rows, as for benchmark rows):

- an OpenCost inference-cost response, ``/inferenceCost/total`` or ``/inferenceCost/timeseries``
  (:mod:`model.data.importers.opencost`): cost basis ``allocation`` or ``usage`` as OpenCost states it;
- a finance team's bill, a CSV (:mod:`model.data.importers.bill_csv`): cost basis ``bill``;
- OpenCost's per-engine saturation figures (:mod:`model.data.importers.opencost_saturation`): how close each
  serving engine ran to its limits, window by window (table ``actuals_saturation``; a period of one engine is
  counted once as a period of one model and basis is).

Import is linear in the file: the readers read it in one pass (and a bill column by column), the overlap checks
sort once, and a file's rows go into the table in one statement (``bench/bench_actuals.py``).

A file goes in whole or not at all, in one transaction that is one data version. Refused, naming the file, line
and field, with nothing stored: a bad value (negative, not a number, a window that ends before it starts), and a
period that overlaps another of the same model, namespace and cost basis, in the file or already stored (remove
the stored one first: a corrected bill replaces, never adds to, the first). Given the models of a plan
(``plan_models``), a row of any other model is refused too. ``costfrontier ingest`` recognises these files;
``costfrontier actual`` ingests them by name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa

from model.core.actual_rows import model_key
from model.core.columns import normalise_header
from model.data.database import ACTUALS_DDL, SATURATION_DDL, registered
from model.data.importers import bill_csv, opencost, opencost_saturation
from model.data.importers._common import load_json_text, read_head
from model.data.importers.base import IngestError, IngestResult
from model.data.store import add_source
from model.data.versions import visible_sql

__all__ = ["COLUMNS", "KIND", "actuals_format", "ingest_actuals", "actuals_frame",
           "saturation_frame"]

KIND = "actuals"
#: the table's columns after source_id, in order
COLUMNS = ("source_line", "model", "model_version", "namespace", "cluster", "period_start", "period_end",
           "cost_basis", "usd", "input_tokens", "cached_input_tokens", "output_tokens", "total_tokens",
           "usd_per_mtok", "input_usd", "output_usd", "usd_per_m_input", "usd_per_m_output", "allocation_method",
           "cache_savings_fraction", "gpu_hours", "hardware", "notes", "extra")


_OPENCOST_KEYS = re.compile(r'"inferenceCost(?:s|Sets)"\s*:')
_SATURATION_KEYS = re.compile(r'"(?:inferenceServers|kvCacheUsageAvg)"\s*:')
_TEXT = ("model", "model_version", "namespace", "cluster", "cost_basis", "allocation_method", "hardware", "notes",
         "extra")


@dataclass(frozen=True)
class _Table:
    """Where one kind of actuals file goes: its table, columns, text columns, and the field that tells two rows of
    one model and namespace apart (a period of one key is counted once)."""

    name: str
    ddl: str
    columns: tuple[str, ...]
    text: tuple[str, ...]
    third: str

    def said(self, row: dict) -> str:
        return f"({row[self.third]})" if self.third == "cost_basis" else f"(pod {row[self.third] or 'not named'})"


_ACTUALS = _Table("actuals", ACTUALS_DDL, COLUMNS, _TEXT, "cost_basis")
_SATURATION = _Table("actuals_saturation", SATURATION_DDL, opencost_saturation.COLUMNS,
                     ("model", "namespace", "pod", "engine", "notes", "extra"), "pod")


def actuals_format(path: Path) -> str | None:
    """``"opencost"``, ``"opencost-saturation"`` or ``"bill-csv"`` when ``path`` holds actuals (from its first MiB),
    else None."""
    head = read_head(Path(path))
    start = head.lstrip(" \t\r\n")[:1]
    if start in ("{", "["):
        # the two keys alone, not every key of the first MiB (head_keys): the same answer, without the scan
        if _OPENCOST_KEYS.search(head):
            return "opencost"
        return opencost_saturation.FORMAT if _SATURATION_KEYS.search(head) else None
    first = head.splitlines()[0] if head else ""
    for delim in (",", ";", "\t"):
        cells = {normalise_header(c) for c in first.split(delim)}
        if len(cells) > 2 and bill_csv.matches(cells):
            return bill_csv.FORMAT
    return None


#: the rows of one file: each column of :data:`COLUMNS` as a list or an array, one item per row, in file order
Columns = dict


def _rows(path: Path, name: str, fmt: str) -> tuple[Columns, str, list[str], list[str], _Table]:
    if fmt in ("opencost", opencost_saturation.FORMAT):
        records, text = load_json_text(path, name)    # refuses a file over the JSON size limit before reading it
        reader, table = (opencost.read, _ACTUALS) if fmt == "opencost" else (opencost_saturation.read, _SATURATION)
        rows, real, notes, warnings = reader(records, name, text)
        return {c: [r.get(c) for r in rows] for c in table.columns}, real, notes, warnings, table
    cols, notes, warnings = bill_csv.read(path, name)
    return cols, bill_csv.FORMAT, notes, warnings, _ACTUALS


def _row_at(cols: Columns, i: int, table: _Table = _ACTUALS) -> dict:
    """Row ``i`` of ``cols`` as a dict (periods as timestamps), to name it in a message."""
    row = {c: cols[c][i] for c in ("source_line", "model", "namespace", table.third, "period_start", "period_end")}
    row["period_start"], row["period_end"] = pd.Timestamp(row["period_start"]), pd.Timestamp(row["period_end"])
    row["source_line"] = int(row["source_line"])
    return row


def _where(row) -> str:
    return f"{row['period_start']:%Y-%m-%d %H:%M}–{row['period_end']:%Y-%m-%d %H:%M}"


def _key_codes(cols: Columns, third: str) -> tuple[np.ndarray, list[str]]:
    """Each row's overlap key (model as plans match it, namespace, ``third``) as a code, and each distinct model's
    key."""
    def codes(values: list) -> np.ndarray:
        if values.count(values[0]) == len(values):          # one value for every row (a bill's namespace, basis)
            return np.zeros(len(values), dtype=np.int64)
        return pd.factorize(pd.Series(values, dtype=object), use_na_sentinel=False)[0].astype(np.int64)

    model_codes, models = pd.factorize(pd.Series(cols["model"], dtype=object), use_na_sentinel=False)
    keys = [model_key(m) for m in models]
    key_codes = pd.factorize(pd.Series(keys, dtype=object), use_na_sentinel=False)[0][model_codes].astype(np.int64)
    spaces, bases = codes([n or "" for n in cols["namespace"]]), codes([v or "" for v in cols[third]])
    return (key_codes * (spaces.max() + 1) + spaces) * (bases.max() + 1) + bases, keys


def _seconds(values) -> np.ndarray:
    return np.asarray(values, dtype="datetime64[s]").astype(np.int64)


def _first_overlap(cols: Columns, codes: np.ndarray) -> tuple[int, int] | None:
    """(row, earlier row) of the first period, in order of start then line, that overlaps an earlier one of its key
    (the first of those in that order), or None. One sort: a period overlaps an earlier one of its key exactly when
    it starts before the latest end among them (kept per key by lifting each key's times above the one before)."""
    starts, ends = _seconds(cols["period_start"]), _seconds(cols["period_end"])
    lines = np.asarray(cols["source_line"], dtype=np.int64)
    order = np.lexsort((lines, starts, codes))
    span = int(max(ends.max(), starts.max()) - min(starts.min(), ends.min())) + 1
    lift = codes[order].astype(np.int64) * span - int(starts.min())
    reach = np.maximum.accumulate(ends[order] + lift)
    first = np.r_[True, codes[order][1:] != codes[order][:-1]]
    before = np.where(first, np.iinfo(np.int64).min, np.r_[0, reach[:-1]])
    hit = np.flatnonzero(before > starts[order] + lift)
    if not hit.size:
        return None
    # the first in order of start then line among the rows that overlap an earlier one
    chosen = hit[np.lexsort((lines[order][hit], starts[order][hit]))[0]]
    i = order[chosen]
    group = order[:chosen][codes[order][:chosen] == codes[i]]
    j = group[ends[group] > starts[i]][0]
    return int(i), int(j)


def _check_overlaps(con, cols: Columns, name: str, table: _Table = _ACTUALS) -> None:
    """Refuse a period overlapping another of one model, namespace and basis (or pod): in the file, then in the
    store."""
    codes, keys = _key_codes(cols, table.third)
    found = _first_overlap(cols, codes)
    if found is not None:
        row, other = _row_at(cols, found[0], table), _row_at(cols, found[1], table)
        raise IngestError(name, f"the period {_where(row)} of {row['model']}"
                          + (f" in {row['namespace']}" if row.get("namespace") else "")
                          + f" {table.said(row)} overlaps line {other['source_line']}'s {_where(other)}: "
                          "each period of a model is counted once", line=row["source_line"], field="period")
    stored = _stored_periods(con, set(keys), table)
    if stored.empty:
        return
    hit = _overlap_with_stored(_period_frame(cols, table.third), stored, table.third)
    if hit is not None:
        row, (source_id, file_name, start, end) = _row_at(cols, hit[0], table), hit[1]
        stored_period = _where({"period_start": start, "period_end": end})
        raise IngestError(name, f"the period {_where(row)} of {row['model']} {table.said(row)} overlaps one "
                          f"already stored: source #{source_id} {file_name}, {stored_period}; remove that source "
                          "first if this file replaces it", line=row["source_line"], field="period")


def _period_frame(cols: Columns, third: str) -> pd.DataFrame:
    """The rows' keys and periods as a frame (``_model``: the model as plans match it), in file order."""
    frame = pd.DataFrame({"model": cols["model"], "namespace": [n or "" for n in cols["namespace"]],
                          third: [v or "" for v in cols[third]], "period_start": pd.to_datetime(cols["period_start"]),
                          "period_end": pd.to_datetime(cols["period_end"]), "source_line": cols["source_line"]})
    keys = {m: model_key(m) for m in frame["model"].unique()}
    frame["_model"] = frame["model"].map(keys)
    return frame


def _stored_periods(con, keys: set[str], table: _Table) -> pd.DataFrame:
    """The stored (shown) periods of the models whose key is in ``keys``: model key, namespace, basis (or pod),
    period and source, ordered as :func:`actuals_frame` orders them."""
    third = table.third      # names from our own constants, never from a file
    try:
        shown, params = visible_sql(con, None, "a.source_id")
        frame = con.execute(
            f"SELECT a.source_id, s.file_name, a.model, coalesce(a.namespace, '') AS namespace, "
            f"coalesce(a.{third}, '') AS {third}, a.period_start, a.period_end FROM {table.name} a "
            f"JOIN sources s USING (source_id){' WHERE ' + shown if shown else ''} "
            f"ORDER BY a.model, a.period_start, a.{third}, a.source_id, a.source_line", params).df()
    except duckdb.CatalogException:     # no such table yet
        return pd.DataFrame()
    if frame.empty:
        return frame
    codes = {m: model_key(m) for m in frame["model"].unique()}
    frame["_model"] = frame["model"].map(codes)
    return frame[frame["_model"].isin(keys)]


def _overlap_with_stored(frame: pd.DataFrame, stored: pd.DataFrame, third: str) -> tuple[int, tuple] | None:
    """(row of the file, (source, file, start, end) of the stored period) for the first row of the file (in file
    order) whose period overlaps a stored one of its key, the first such stored period in :func:`actuals_frame`'s
    order; None. Per key, the stored periods sorted by start and their running latest end answer each row with one
    binary search."""
    first = None
    for key, mine in frame.groupby(["_model", "namespace", third], sort=False):
        theirs = stored[(stored["_model"] == key[0]) & (stored["namespace"] == key[1]) & (stored[third] == key[2])]
        if theirs.empty:
            continue
        by_start = theirs.sort_values("period_start", kind="stable")
        starts = by_start["period_start"].to_numpy(dtype="datetime64[ns]")
        reach = np.maximum.accumulate(by_start["period_end"].to_numpy(dtype="datetime64[ns]"))
        ends = mine["period_end"].to_numpy(dtype="datetime64[ns]")
        count = np.searchsorted(starts, ends, side="left")      # stored periods starting before each row ends
        latest = np.where(count > 0, reach[np.maximum(count - 1, 0)], np.datetime64("NaT"))
        hits = np.flatnonzero((count > 0) & (latest > mine["period_start"].to_numpy(dtype="datetime64[ns]")))
        if hits.size and (first is None or mine.index[hits[0]] < first[0]):
            at = mine.index[hits[0]]
            row = frame.loc[at]
            over = theirs[(theirs["period_start"] < row["period_end"]) & (theirs["period_end"] > row["period_start"])]
            hit = over.iloc[0]
            first = (int(at), (int(hit["source_id"]), hit["file_name"], hit["period_start"], hit["period_end"]))
    return first


def _constant(values) -> tuple[bool, object]:
    """(True, the value) when every row holds one value (None, NaN or other), else (False, None)."""
    if isinstance(values, list):
        return (True, values[0]) if values.count(values[0]) == len(values) else (False, None)
    array = np.asarray(values)
    if array.dtype.kind == "f":
        if np.isnan(array).all():
            return True, None
        return (True, float(array[0])) if (array == array[0]).all() else (False, None)
    return False, None


def _insert(con, source_id: int, cols: Columns, table: _Table = _ACTUALS) -> None:
    """All rows of one file in one statement (an Arrow table DuckDB reads at once; a column one value fills, such as
    a bill's basis and notes or a field it never states, is that value in the statement, not a column to read)."""
    n = len(cols["source_line"])
    columns, select, params = {}, [], [source_id]
    for column in table.columns:
        values = cols[column]
        same, value = _constant(values) if n and column not in ("source_line", "period_start", "period_end") \
            else (False, None)
        if same:
            if value is None:
                select.append(f"NULL AS {column}")
            else:
                select.append(f"CAST(? AS {'VARCHAR' if column in table.text else 'DOUBLE'}) AS {column}")
                params.append(value)
            continue
        select.append(column)
        if column in ("period_start", "period_end"):
            columns[column] = pa.array(np.asarray(values, dtype="datetime64[us]"))
        elif column in table.text:
            columns[column] = pa.array(list(values), pa.string())
        elif column == "source_line":
            columns[column] = pa.array(np.asarray(values, dtype=np.int64))
        else:
            numbers = np.array([np.nan if v is None else v for v in values] if isinstance(values, list) else values,
                               dtype=float)
            columns[column] = pa.array(numbers, pa.float64(), from_pandas=True)   # NaN: NULL
    with registered(con, "_new_actuals", pa.table(columns)):
        con.execute(f"INSERT INTO {table.name} SELECT CAST(? AS BIGINT), {', '.join(select)} FROM _new_actuals",
                    params)


def ingest_actuals(con: duckdb.DuckDBPyConnection, path: Path, name: str, sha: str, fmt: str,
                   plan_models: tuple[str, ...] | None = None, aliases: dict[str, str] | None = None) -> IngestResult:
    """Insert one actuals file (inside the caller's transaction). ``fmt``: :func:`actuals_format`'s answer."""
    cols, real_fmt, notes, warnings, table = _rows(Path(path), name, fmt)
    n = len(cols["source_line"])
    if plan_models is not None:
        keys = {model_key(m, aliases) for m in plan_models}
        names = {m: model_key(m, aliases) in keys for m in set(cols["model"])}
        outside = [i for i, m in enumerate(cols["model"]) if not names[m]]
        if outside:
            row = _row_at(cols, outside[0])
            raise IngestError(name, f"model {row['model']!r} is not one the plan holds (its rows are of "
                              f"{', '.join(plan_models) or 'no model'}); nothing was stored",
                              line=row["source_line"], field="model")
    con.execute(table.ddl)
    _check_overlaps(con, cols, name, table)
    source_id = add_source(con, name, real_fmt, KIND, sha, n, "; ".join(notes) or None)
    _insert(con, source_id, cols, table)
    return IngestResult(name, real_fmt, KIND, n, None, source_id, warnings=warnings)


def actuals_frame(con, version: int | None = None) -> pd.DataFrame:
    """Every stored actual of data version ``version`` (None: the latest), with its source's file name and id,
    ordered by model, period and basis; periods as naive UTC timestamps. Empty (with the columns) in a store
    written before the table existed."""
    columns = ["source_id", "file_name", *COLUMNS]
    try:
        shown, params = visible_sql(con, version, "a.source_id")
        frame = con.execute(
            f"SELECT a.source_id, s.file_name, {', '.join('a.' + c for c in COLUMNS)} FROM actuals a "
            f"JOIN sources s USING (source_id){' WHERE ' + shown if shown else ''} "
            "ORDER BY a.model, a.period_start, a.cost_basis, a.source_id, a.source_line", params).df()
    except duckdb.CatalogException:     # a store written before the table existed: no actuals yet
        return pd.DataFrame(columns=columns)
    for column in ("period_start", "period_end"):
        frame[column] = pd.to_datetime(frame[column])
    for column in _TEXT:      # an empty text is None, as stored (never NaN)
        frame[column] = frame[column].astype(object).where(frame[column].notna(), None)
    return frame[columns]


def saturation_frame(con, version: int | None = None) -> pd.DataFrame:
    """Every stored saturation figure (:mod:`model.data.importers.opencost_saturation`) of data version ``version``
    (None: the latest), with its source's file name and id, ordered by model, period and pod. Empty (with the
    columns) when none is stored."""
    columns = ["source_id", "file_name", *_SATURATION.columns]
    try:
        shown, params = visible_sql(con, version, "a.source_id")
        frame = con.execute(
            f"SELECT a.source_id, s.file_name, {', '.join('a.' + c for c in _SATURATION.columns)} FROM "
            f"actuals_saturation a JOIN sources s USING (source_id){' WHERE ' + shown if shown else ''} "
            "ORDER BY a.model, a.period_start, a.pod, a.source_id, a.source_line", params).df()
    except duckdb.CatalogException:     # none stored yet
        return pd.DataFrame(columns=columns)
    for column in ("period_start", "period_end"):
        frame[column] = pd.to_datetime(frame[column])
    for column in _SATURATION.text:
        frame[column] = frame[column].astype(object).where(frame[column].notna(), None)
    return frame[columns]
