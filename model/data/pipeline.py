"""The columnar pipeline of one points table: its columns mapped to the fields (headers, units, long format),
every value checked in DuckDB (:class:`model.data.validation.Checks`: types, units, limits, like-with-like rate
checks), then one INSERT; errors name the file, line and field."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import duckdb
import pandas as pd

from model.core.columns import normalise_header, resolve_column
from model.core.schema import (
    MEASUREMENT_FIELDS,
    POINT_FIELDS,
    ROLE_RATES,
    SQL_TYPES,
)
from model.data.field_sql import (
    CANONICALISERS,
    NUMERIC_TYPES,
    bool_expr,
    hardware_refusal,
    nonempty_expr,
    numeric_expr,
    text_expr,
    unusable_hardware,
)
from model.data.importers._common import model_named
from model.data.importers.base import IngestError, IngestResult
from model.data.importers.canonical_csv import (
    UNIT_FIELDS,
    parse_parallelism,
    parse_workload,
)
from model.data.rates_sql import derive_sql, role_cross_check
from model.data.store import add_source
from model.data.validation import Checks

__all__ = ["THROUGHPUT_FIELDS", "run_pipeline", "Pipeline", "insert_points"]


_POINT_ID_STRIDE = 10_000_000_000  # point_id = source_id * stride + ordinal within the file


@dataclass
class _Column:
    """How one field of the staged table is computed."""

    expr: str               # SQL expression over the raw table (alias r; mK for large maps)
    raw: str | None = None  # raw column it came from, for "not a number" checks
    header: str | None = None
    params: list[Any] = field(default_factory=list)  # values for the ? in expr, in order


#: the fields at least one of which a canonical CSV must have for a frontier
THROUGHPUT_FIELDS = (*MEASUREMENT_FIELDS[:6], *ROLE_RATES)


class Pipeline(Checks):
    """Maps one raw relation onto the points table: one SELECT, validated in one pass, inserted in one.

    ``ordinal_expr`` numbers the rows of one file from 0 (default: by rowid); ``carry`` names raw columns
    the staged SELECT passes through (the bulk path's file number, :mod:`model.data.bulk`).
    """

    def __init__(self, con: duckdb.DuckDBPyConnection, file: str, raw_table: str,
                 headers: dict[str, str], set_fields: dict[str, Any], line_expr: str,
                 ordinal_expr: str | None = None, carry: tuple[str, ...] = (), derived: tuple[str, ...] = ()):
        self.con, self.file, self.raw_table = con, file, raw_table
        self.derived = derived          # fields the importer derived (not stated): a value given with --set wins
        self.ordinal_expr, self.carry = ordinal_expr, carry
        self.headers = headers          # raw column id -> header text as the file spells it
        self.set_fields = set_fields
        self.line_expr = line_expr
        self.columns: dict[str, _Column] = {}
        self.joins: list[str] = []
        self.unknown: list[str] = []
        self.warnings: list[str] = []
        self.value_check: tuple[str, str] | None = None
        # a model given as a path (model_named): the file column's note and given text, --set's (path, note)
        self._model_column: tuple[_Column, _Column, bool] | None = None
        self._model_set: tuple[str, str] | None = None
        self._maps = 0
        self.rows = 0
        self.role_gaps = 0   # rows role_cross_check warns about, counted by validate
        self.types = {f"r.{name}": str(kind).upper().split("(")[0]
                      for name, kind, *_ in con.execute(f"DESCRIBE {raw_table}").fetchall()}
        # rowids of a table made inside a transaction start at an offset
        self.first_rowid = int(con.execute(f"SELECT coalesce(min(rowid), 0) FROM {raw_table}").fetchone()[0])

    # -- mapping -----------------------------------------------------------
    def _map_distinct(self, raw: str, fn: Callable[[Any], dict[str, Any]], fields: list[str],
                      header: str | None = None) -> dict[str, _Column]:
        """Apply ``fn`` to each distinct raw value in Python; map the results back in SQL.

        A few distinct values become a CASE expression; many become a join.
        """
        values = [r[0] for r in self.con.execute(
            f"SELECT DISTINCT CAST({raw} AS VARCHAR) FROM {self.raw_table}").fetchall()]
        rows = []
        for v in values:
            out = fn(v) if v is not None else {}
            rows.append({"raw_value": v, **{f: out.get(f) for f in fields}})
        if len(rows) <= 256:
            columns = {}
            for f in fields:
                whens = [(r["raw_value"], r[f]) for r in rows if r["raw_value"] is not None and r[f] is not None]
                if not whens:
                    columns[f] = _Column(f"NULL::{SQL_TYPES[f]}", f"r.{raw}", header)
                    continue
                cases = " ".join(f"WHEN ? THEN ?::{SQL_TYPES[f]}" for _ in whens)
                columns[f] = _Column(f"(CASE CAST(r.{raw} AS VARCHAR) {cases} END)", f"r.{raw}", header,
                                     [x for pair in whens for x in pair])
            return columns
        frame = pd.DataFrame(rows, columns=["raw_value", *fields])
        for f in fields:
            if SQL_TYPES.get(f) == "BIGINT":
                frame[f] = frame[f].astype("Int64")
            elif SQL_TYPES.get(f) == "DOUBLE":
                frame[f] = frame[f].astype("Float64")
            else:
                frame[f] = frame[f].astype("string")
        self._maps += 1
        alias = f"m{self._maps}"
        name = f"map_{id(self)}_{self._maps}"
        self.con.register(name, frame)
        self.joins.append(f"LEFT JOIN {name} {alias} ON CAST(r.{raw} AS VARCHAR) IS NOT DISTINCT FROM {alias}.raw_value")
        return {f: _Column(f"{alias}.{f}", f"r.{raw}", header) for f in fields}

    def map_columns(self) -> None:
        claimed: dict[str, str] = {}
        specials: dict[str, str] = {}
        extra: list[tuple[str, str]] = []
        for raw, header in self.headers.items():
            resolved = resolve_column(header)
            if isinstance(resolved, str):
                specials[resolved] = raw
                continue
            if resolved is None or resolved[0] in claimed:
                extra.append((header, raw))
                if resolved is not None:
                    self.warnings.append(
                        f"column '{header}' also maps to {resolved[0]} (already from '{self.headers[claimed[resolved[0]]]}'); kept in extra")
                else:
                    self.unknown.append(header)
                continue
            name, scale = resolved
            claimed[name] = raw
            self._add_field(name, f"r.{raw}", scale, header)

        if "parallelism" in specials:
            raw = specials["parallelism"]
            for f, col in self._map_distinct(raw, parse_parallelism, ["tp", "dp", "ep", "pp"]).items():
                if f not in self.columns:
                    self.columns[f] = _Column(col.expr, params=col.params)
            extra.append((self.headers[raw], raw))
        if "value" in specials or "unit" in specials:
            if not ("value" in specials and "unit" in specials):
                missing = "unit" if "value" in specials else "value"
                raise IngestError(self.file, f"a 'value' column needs a '{missing}' column beside it", field=missing)
            self._long_format(specials["value"], specials["unit"])
        if "scenario" in self.columns and ("isl" not in self.columns or "osl" not in self.columns):
            raw = self.columns["scenario"].raw.removeprefix("r.")
            for f, col in self._map_distinct(raw, parse_workload, ["isl", "osl", "prefix_cache_hit_rate"]).items():
                self.columns.setdefault(f, _Column(col.expr, params=col.params))

        for name, value in self.set_fields.items():
            if name == "model":
                value, path, note = model_named(value)
                self._model_set = (path, note) if path is not None else None
            if name in self.columns and name in self.derived:
                # a value the importer derived, not one the file states: what is given replaces it, said per row
                col = self.columns[name]
                self.columns[name] = _Column(f"coalesce(?::{SQL_TYPES[name]}, {col.expr})", col.raw, col.header,
                                             [value, *col.params])
                self._note(f"(CASE WHEN {col.expr} IS NOT NULL THEN ? END)",
                           [*col.params, f"{name} = {value} as given, in place of the value derived from the file "
                                         f"(which states no {name} of its own)"])
            elif name in self.columns:
                # --set fills the gaps of a column the file has
                col = self.columns[name]
                self.columns[name] = _Column(f"coalesce({col.expr}, ?::{SQL_TYPES[name]})", col.raw, col.header,
                                             [*col.params, value])
            else:
                self.columns[name] = _Column(f"?::{SQL_TYPES[name]}", params=[value])

        self._gpus_from_node(extra)
        model_dir = self._model_paths(next((f"r.{raw}" for header, raw in extra if header == "model_dir"), None))
        pieces = [(f"?, r.{raw}", [header]) for header, raw in extra if not (model_dir and header == "model_dir")]
        if pieces or model_dir:
            expr = f"json_object({', '.join(p for p, _ in pieces)})"
            params = [x for _, given in pieces for x in given]
            if model_dir:   # merged in only where there is one (a null removes the key)
                expr = f"NULLIF(json_merge_patch({expr}, json_object('model_dir', {model_dir[0]})), '{{}}')"
                params.extend(model_dir[1])
            self.columns["extra"] = _Column(f"CAST({expr} AS VARCHAR)", params=params)

    def _gpus_from_node(self, extra: list[tuple[str, str]]) -> None:
        """A ``gpus_per_node`` column is the node's size, kept in extra, never the GPUs a point ran on. Where the
        file (and ``--set``) state no GPU count, gpus = gpus_per_node: the point is read as one whole node, and the
        row's notes say so (data-formats: derived values)."""
        raw = next((raw for header, raw in extra if normalise_header(header) == "gpuspernode"), None)
        if raw is None or "gpus" in self.columns:
            return
        value = numeric_expr(f"r.{raw}", 1, self._typed(f"r.{raw}"))
        self.columns["gpus"] = _Column(value)
        self._note(f"(CASE WHEN {value} IS NOT NULL THEN 'gpus = gpus_per_node: the file states no GPU count, so "
                   "the point is read as run on one whole node' END)")

    def _note(self, expr: str, params: list[Any] | None = None) -> None:
        """Add the text ``expr`` gives (NULL: nothing) to each row's notes."""
        if "notes" in self.columns:
            old = self.columns["notes"]
            self.columns["notes"] = _Column(f"NULLIF(concat_ws('; ', {old.expr}, {expr}), '')", old.raw, old.header,
                                            [*old.params, *(params or [])])
        else:
            self.columns["notes"] = _Column(f"NULLIF(concat_ws('; ', {expr}), '')", params=list(params or []))

    def _model_paths(self, stated: str | None) -> tuple[str, list[Any]] | None:
        """A model given as a path, in the file's column or with ``--set``, is stored by its last component
        (:func:`model.data.importers._common.model_named`, as the importers store theirs): the row's notes say
        so, and the path goes in extra as ``model_dir``. Returns that path's SQL expression and parameters
        (``stated``: the file's own ``model_dir`` column, an importer's, comes first), or None when nothing
        here was given as a path."""
        column, given = self._model_column, self._model_set
        if not ((column and column[2]) or given):
            return None
        notes: list[tuple[str, list[Any]]] = []
        dirs: list[tuple[str, list[Any]]] = [(stated, [])] if stated else []
        if column and column[2]:
            note, text = column[0], column[1]
            notes.append((note.expr, note.params))
            dirs.append((f"CASE WHEN {note.expr} IS NOT NULL THEN {text.expr} END", [*note.params, *text.params]))
        if given:
            own = (f"CASE WHEN {column[1].expr} IS NULL THEN ? END", [*column[1].params]) if column else ("?", [])
            notes.append((own[0], [*own[1], given[1]]))
            dirs.append((own[0], [*own[1], given[0]]))
        if "notes" in self.columns:
            notes.insert(0, (self.columns["notes"].expr, self.columns["notes"].params))
        self.columns["notes"] = _Column(f"NULLIF(concat_ws('; ', {', '.join(e for e, _ in notes)}), '')",
                                        params=[x for _, params in notes for x in params])
        return f"coalesce({', '.join(e for e, _ in dirs)})", [x for _, params in dirs for x in params]

    def _refuse_hardware(self, raw: str, header: str | None, unusable: list[str]) -> None:
        """Refuse the first row whose hardware name is one no option, link or page could name (empty once
        canonical, too long, or holding control or invisible characters): file, row and field."""
        line, value = self.con.execute(
            f"SELECT {self.line_expr}, CAST(r.{raw} AS VARCHAR) FROM {self.raw_table} r "
            f"WHERE CAST(r.{raw} AS VARCHAR) IN (SELECT unnest(?::VARCHAR[])) ORDER BY 1 LIMIT 1",
            [unusable]).fetchone()
        raise IngestError(self.file, hardware_refusal(value), line=int(line), field=header or "hardware")

    def _typed(self, raw: str) -> bool:
        """True when DuckDB already read ``raw`` as a number."""
        return self.types.get(raw, "VARCHAR") in NUMERIC_TYPES

    def _add_field(self, name: str, raw: str, scale: float, header: str) -> None:
        sql_type = SQL_TYPES[name]
        if name == "model":   # a path is named by its last component (model_named)
            paths = []

            def named(value: Any) -> dict[str, Any]:
                model, path, note = model_named(str(value).strip() or None)
                paths.append(path is not None)
                return {"model": model, "notes": note}
            mapped = self._map_distinct(raw.removeprefix("r."), named, ["model", "notes"], header)
            self.columns["model"] = mapped["model"]
            self._model_column = (mapped["notes"], _Column(text_expr(raw)), any(paths))
        elif name in CANONICALISERS:
            bare = raw.removeprefix("r.")
            fn = CANONICALISERS[name]
            unusable: list[str] = []      # raw hardware names whose canonical name cannot be named (--rate, links)

            def mapped(v, fn=fn) -> dict[str, Any]:
                value = fn(v) if str(v).strip() else None
                if name == "hardware" and value is not None and unusable_hardware(value):
                    unusable.append(v)
                return {name: value}

            self.columns.update(self._map_distinct(bare, mapped, [name], header))
            if unusable:
                self._refuse_hardware(bare, header, unusable)
        elif sql_type in ("DOUBLE", "BIGINT"):
            self.columns[name] = _Column(numeric_expr(raw, scale, self._typed(raw)), raw, header)
        elif sql_type == "BOOLEAN":
            self.columns[name] = _Column(bool_expr(raw), raw, header)
        elif sql_type == "DATE" and self.types.get(raw) in ("DATE", "TIMESTAMP", "TIMESTAMP WITH TIME ZONE"):
            self.columns[name] = _Column(f"CAST({raw} AS DATE)", raw, header)
        elif sql_type == "DATE":
            text = f"trim(CAST({raw} AS VARCHAR))"
            self.columns[name] = _Column(
                f"coalesce(TRY_CAST({text} AS DATE), TRY_CAST(TRY_CAST({text} AS TIMESTAMP) AS DATE),"
                f" TRY_CAST(TRY_STRPTIME({text}, '%Y%m%d') AS DATE))", raw, header)
        else:
            self.columns[name] = _Column(text_expr(raw), raw, header)

    def _long_format(self, value_raw: str, unit_raw: str) -> None:
        units = [r[0] for r in self.con.execute(
            f"SELECT DISTINCT CAST({unit_raw} AS VARCHAR) FROM {self.raw_table}").fetchall()]
        for unit in units:
            if normalise_header(unit or "") not in UNIT_FIELDS:
                line = self.con.execute(
                    f"SELECT min({self.line_expr}) FROM {self.raw_table} r WHERE CAST({unit_raw} AS VARCHAR) IS NOT DISTINCT FROM ?",
                    [unit]).fetchone()[0]
                raise IngestError(self.file, f"unknown unit {unit!r}; known units: tok/s/user, tok/s/node, tok/s, "
                                  "tok/s/gpu, tpot ms, ttft s, req/s", line=line, field="unit")
        by_field: dict[str, list[tuple[str, float]]] = {}
        for unit in units:
            f, scale = UNIT_FIELDS[normalise_header(unit)]
            by_field.setdefault(f, []).append((unit, scale))
        for f, pairs in by_field.items():
            cases = " ".join(f"WHEN CAST(r.{unit_raw} AS VARCHAR) = ? THEN {numeric_expr('r.' + value_raw, s, self._typed('r.' + value_raw))}"
                             for _, s in pairs)
            expr, params = f"CASE {cases} END", [u for u, _ in pairs]
            if f in self.columns:
                expr, params = f"coalesce({self.columns[f].expr}, {expr})", [*self.columns[f].params, *params]
            self.columns[f] = _Column(expr, None, "value", params)
        # a value cell that is not a number is reported against 'value'
        self.value_check = (f"r.{value_raw}", numeric_expr(f"r.{value_raw}", 1, self._typed(f"r.{value_raw}")))

    # -- the staged relation ------------------------------------------------------
    def select(self) -> tuple[str, list[Any]]:
        """One SELECT over the raw table giving every points column, unit-normalised, plus raw checks.

        Derivations follow ``BenchmarkPoint._normalise``: interactivity = 1000 / TPOT [ms];
        success rate = completed / (completed + failed) requests where the file gives counts only;
        per-GPU tok/s = system tok/s / GPUs (all GPUs of both roles) and the reverse; a
        disaggregated row's role rates = system tok/s / role GPUs and the reverse
        (:func:`model.data.rates_sql.derive_sql`).
        """
        base = [f"{self.ordinal_expr or f'r.rowid - {self.first_rowid}'} AS _ordinal", *(f"r.{c}" for c in self.carry)]
        params: list[Any] = []
        for name in POINT_FIELDS:
            if name == "source_line":
                base.append(f"{self.line_expr} AS source_line")
            elif name in self.columns:
                base.append(f"{self.columns[name].expr} AS {name}")
                params.extend(self.columns[name].params)
            else:
                base.append(f"NULL::{SQL_TYPES[name]} AS {name}")
        for name, col in self.columns.items():
            if col.raw is not None and SQL_TYPES[name] != "VARCHAR":
                base.append(f"{nonempty_expr(col.raw, self._typed(col.raw))} AS raw_ok_{name}")
        if self.value_check:
            base.append(f"{nonempty_expr(self.value_check[0], self._typed(self.value_check[0]))} AS raw_ok_value, "
                        f"{self.value_check[1]} AS parsed_value")
        inner = f"SELECT {', '.join(base)} FROM {self.raw_table} r {' '.join(self.joins)}"
        return derive_sql(inner), params


def _insert(con: duckdb.DuckDBPyConnection, pipe: Pipeline, select: str, params: list[Any], fmt: str,
            sha: str, notes: str | None) -> int:
    source_id = add_source(con, pipe.file, fmt, "points", sha, pipe.rows, notes, pipe.set_fields)
    insert_points(con, select, params, "?", [source_id])
    return source_id


def insert_points(con: duckdb.DuckDBPyConnection, select: str, params: list[Any], source_id: str,
                  id_params: list[Any]) -> None:
    """``INSERT INTO points`` the staged rows of ``select``, each under the SQL expression ``source_id`` (a
    ``?`` filled from ``id_params``, or a column of ``select``): point_id = source_id * stride + ordinal."""
    cols = ", ".join(POINT_FIELDS)
    casts = ", ".join(f"CAST({c} AS BIGINT)" if SQL_TYPES[c] == "BIGINT" else c for c in POINT_FIELDS)
    con.execute(
        f"INSERT INTO points (point_id, source_id, {cols}) "
        f"SELECT {source_id} * {_POINT_ID_STRIDE} + _ordinal, {source_id}, {casts} FROM ({select}) staged",
        [*id_params, *id_params, *params])


def _duplicate_warnings(con: duckdb.DuckDBPyConnection, raw_table: str, raw_columns: list[str],
                        line_expr: str, shown: int = 5) -> list[str]:
    """A warning naming the lines of rows that repeat an earlier row of the same file exactly.

    Such rows are usually pasted twice. They are stored as the file has them (the frontier
    keeps one of identical points, so they never count twice), and the warning says where they are.
    """
    if not raw_columns:
        return []
    cols = ", ".join(f"r.{c}" for c in raw_columns)
    # cheap first: equal rows have equal hashes, so no repeated hash means no duplicate
    rows, distinct = con.execute(f"SELECT count(*), count(DISTINCT hash({cols})) FROM {raw_table} r").fetchone()
    if rows == distinct:
        return []
    groups = con.execute(
        f"SELECT list({line_expr} ORDER BY {line_expr}) AS lines FROM {raw_table} r GROUP BY {cols} "
        f"HAVING count(*) > 1 ORDER BY min({line_expr})").fetchall()
    if not groups:
        return []
    repeats = sum(len(g[0]) - 1 for g in groups)
    parts = []
    for (lines,) in groups[:shown]:
        later = ", ".join(str(n) for n in lines[1:])
        parts.append(f"line {later} repeats line {lines[0]}" if len(lines) == 2
                     else f"lines {later} repeat line {lines[0]}")
    more = f"; and {len(groups) - shown} more" if len(groups) > shown else ""
    return [f"{repeats} duplicated row{'s' if repeats > 1 else ''} ({'; '.join(parts)}{more}): stored as in the "
            "file, but identical points count once on the frontier; remove them if they were pasted twice"]


def run_pipeline(con: duckdb.DuckDBPyConnection, file: str, fmt: str, sha: str, raw_table: str,
                 headers: dict[str, str], set_fields: dict[str, Any], line_expr: str,
                 notes: str | None = None, derived: tuple[str, ...] = ()) -> IngestResult:
    """Map, validate and insert one raw relation. Caller holds the transaction. ``derived``: the fields the importer
    derived, which a value given with ``--set`` replaces."""
    pipe = Pipeline(con, file, raw_table, headers, set_fields, line_expr, derived=derived)
    pipe.map_columns()
    if fmt == "csv" and not any(f in pipe.columns for f in THROUGHPUT_FIELDS):
        shown = ", ".join(h[:30] for h in list(headers.values())[:12])
        raise IngestError(file, "no throughput column: a frontier needs tok/s per GPU (e.g. 'tput_per_gpu', "
                          "'output_tok_s_gpu') or per system (e.g. 'total_token_throughput', 'output_tok/s', with "
                          "'gpus'), plus interactivity ('tok_s_user') or 'tpot_ms'; "
                          f"columns found: {shown}", line=1, field="throughput")
    select, params = pipe.select()
    staged = None
    if con.execute(f"SELECT count(*) FROM {raw_table}").fetchone()[0] <= _MATERIALISE_BELOW:
        # Small files: planning the one-pass validation over the mapping expressions costs ~80 ms,
        # more than the data; materialised, the probes read plain columns. Large files stay one-pass.
        staged = f"staged_{abs(hash(sha)) % 10**9}"
        con.execute(f"CREATE TEMP TABLE {staged} AS {select}", params)
        select, params = f"SELECT * FROM {staged}", []
    pipe.validate(select, params)
    if pipe.role_gaps:
        pipe.warnings.extend(role_cross_check(con, select, params))
    pipe.warnings.extend(_duplicate_warnings(con, raw_table, list(headers), line_expr))
    # a load ramp (a request-rate column) is read for capacity, not for a frontier: no warning for it
    if fmt == "csv" and not {"interactivity", "tpot_median_ms", "request_rate_rps"} & set(pipe.columns):
        said = (f"no interactivity or TPOT column: {'this row' if pipe.rows == 1 else f'these {pipe.rows} rows'} "
                "cannot reach a frontier until one is supplied: add a column, or give one with "
                "--set interactivity=N or --set tpot_median_ms=N")
        pipe.warnings.append(said)
        notes = "; ".join(n for n in (notes, said) if n)
    source_id = _insert(con, pipe, select, params, fmt, sha, notes)
    if staged:
        con.execute(f"DROP TABLE {staged}")
    return IngestResult(file, fmt, "points", pipe.rows, None, source_id, pipe.unknown, pipe.warnings)


#: files with at most this many rows are staged in a temporary table before validation
_MATERIALISE_BELOW = 50_000

_Pipeline = Pipeline   # the name bench/bench_ingest_shapes.py times
