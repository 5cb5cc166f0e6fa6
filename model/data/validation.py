"""The checks of a staged points table, in DuckDB: the refusals (types, limits, missing essentials, like-with-like
rate checks) and the "unusual value" warnings, each naming the file, line and field. :class:`Checks` is what
:class:`model.data.pipeline.Pipeline` validates with; it reads the pipeline's mapped ``columns``, ``con``,
``file``, ``raw_table``, ``line_expr`` and ``value_check``, and sets ``rows``, ``role_gaps`` and ``warnings``."""

from __future__ import annotations

from typing import Any

from model.core.repeats import latest_run_date
from model.core.schema import (
    MEASUREMENT_FIELDS,
    MIN_TOKENS_PER_SECOND_PER_GPU,
    PLAUSIBILITY,
    POINT_FIELDS,
    SQL_TYPES,
)
from model.data.field_sql import OP_TEXT, field_bounds, future_date_text
from model.data.importers.base import IngestError
from model.data.rates_sql import part_probes, role_gap

__all__ = ["Checks", "MAX_ERRORS_REPORTED", "LOW_SUCCESS_RATE", "ODD_UNITS", "LOW_SUCCESS"]

#: the most errors one refused file reports (the first, then the next ones by line)
MAX_ERRORS_REPORTED = 10
#: rows below this success rate [fraction] are stored with a warning
LOW_SUCCESS_RATE = 0.95
#: the conditions behind two warnings of :meth:`Checks.validate`: units that look swapped, failed requests
ODD_UNITS = "ttft_p50_s > 60 AND tpot_median_ms < 1"
LOW_SUCCESS = f"success_rate < {LOW_SUCCESS_RATE!r}"


class Checks:
    """Validation over the staged rows of a :class:`model.data.pipeline.Pipeline` (see the module's docstring)."""

    def validate(self, select: str, params: list[Any]) -> None:
        """One pass over the staged rows: parse failures, constraint violations, missing essentials,
        and the counts behind the "unusual value" warnings."""
        probes, warns = self.conditions()
        # one pass: the first failing line of each probe and the count of each warning (a few hundred
        # aggregates cost mostly planning, so the rarely needed halves come in a second query below)
        agg = ", ".join([*(f"min(CASE WHEN {cond} THEN source_line END)" for cond, _, _ in probes),
                         *(f"count(CASE WHEN {cond} THEN 1 END)" for cond, _, _ in warns),
                         f"count(CASE WHEN {ODD_UNITS} THEN 1 END)",
                         f"count(CASE WHEN {LOW_SUCCESS} THEN 1 END)", "min(success_rate)",
                         "arg_min(source_line, success_rate)", f"count(CASE WHEN {role_gap()} THEN 1 END)",
                         "count(*)"])
        self._report(probes, warns, self.con.execute(f"SELECT {agg} FROM ({select}) staged", params).fetchone(),
                     select, params)

    def flagged(self, select: str, params: list[Any], by: str) -> dict[Any, tuple[int, bool]]:
        """Rows and "would be refused or warned about" of each group ``by`` (a file of the bulk path) in one
        query: the conditions :meth:`validate` checks, none of their messages."""
        probes, warns = self.conditions()
        conds = [c for c, _, _ in (*probes, *warns)] + [ODD_UNITS, LOW_SUCCESS, role_gap()]
        anything = " OR ".join(f"coalesce(({c}), false)" for c in conds)
        rows = self.con.execute(f"SELECT {by}, count(*), bool_or({anything}) FROM ({select}) staged GROUP BY {by}",
                                params).fetchall()
        return {key: (int(n), bool(bad)) for key, n, bad in rows}

    def conditions(self) -> tuple[list[tuple[str, str, str]], list[tuple[str, str, float]]]:
        """The refusals (sql condition, field, message) and the "unusual value" warnings (condition,
        field, bound) over the staged rows."""
        probes: list[tuple[str, str, str]] = []  # (sql condition, field, message)
        for name, col in self.columns.items():
            if col.raw is not None and SQL_TYPES[name] != "VARCHAR":
                kind = {"DOUBLE": "a number", "BIGINT": "a whole number", "BOOLEAN": "true/false",
                        "DATE": "a date (YYYY-MM-DD)"}[SQL_TYPES[name]]
                probes.append((f"raw_ok_{name} AND {name} IS NULL", name, f"not {kind}"))
        if self.value_check:
            probes.append(("raw_ok_value AND parsed_value IS NULL", "value", "not a number"))
        for name in POINT_FIELDS:
            if name not in self.columns:
                continue
            sql_type = SQL_TYPES[name]
            if sql_type == "BIGINT":
                probes.append((f"{name} IS NOT NULL AND {name} <> round({name})", name, "not a whole number"))
            if sql_type in ("DOUBLE", "BIGINT"):
                probes.append((f"{name} IS NOT NULL AND isinf({name}::DOUBLE)", name, "must be finite"))
                probes.append((f"{name} IS NOT NULL AND isnan({name}::DOUBLE)", name, "must be finite, not NaN"))
                finite = f"isfinite({name}::DOUBLE)"  # NaN and infinity are reported once, above
                bounds = field_bounds(name)
                for op, bound in bounds:
                    sql_op, text = OP_TEXT[op]
                    # a floor above zero (throughputs): a value at or below zero is told once, by "greater than 0"
                    above = f" AND {name} > 0" if op == "ge" and ("gt", 0.0) in bounds else ""
                    probes.append((f"{finite} AND {name} {sql_op} {bound!r}{above}", name, f"{text} {bound:g}"))
                if name in PLAUSIBILITY:
                    probes.append((f"{finite} AND {name} > {PLAUSIBILITY[name][1]!r}", name,
                                   f"implausible: above {PLAUSIBILITY[name][1]:g} (check the unit)"))
        if "run_date" in self.columns:   # a literal this module writes (a date), not a value from the file
            latest = latest_run_date()
            probes.append((f"run_date > DATE '{latest.isoformat()}'", "run_date", future_date_text(latest)))
        probes.append(("hardware IS NULL", "hardware",
                       "missing: name the accelerator in a 'hardware' column or with --set hardware=NAME"))
        has_measure = " OR ".join(f"{m} IS NOT NULL" for m in (*MEASUREMENT_FIELDS, "ttft_p50_s", "request_rate_rps"))
        probes.append((f"NOT ({has_measure})", "throughput",
                       "no measurement: need a throughput (tok/s or tok/s/GPU), interactivity or TPOT"))
        probes.extend(part_probes())
        for basis in ("total", "output", "input"):   # a per-GPU rate derived from a system one has the floor too
            per_gpu, system = f"{basis}_tokens_per_second_per_gpu", f"{basis}_tokens_per_second"
            if per_gpu not in self.columns and system in self.columns:
                probes.append((f"{per_gpu} < {MIN_TOKENS_PER_SECOND_PER_GPU!r}", system,
                               f"gives under {MIN_TOKENS_PER_SECOND_PER_GPU:g} tok/s per GPU, the least a point may have"))
        for basis in ("total", "output", "input"):
            probes.append((f"{basis}_tokens_per_second IS NOT NULL AND {basis}_tokens_per_second_per_gpu IS NULL "
                           f"AND gpus IS NULL AND NOT coalesce(_role_{basis}, false)" if basis != "total" else
                           "total_tokens_per_second IS NOT NULL AND total_tokens_per_second_per_gpu IS NULL "
                           "AND gpus IS NULL", "gpus",
                           f"{basis} tok/s is per system but the GPU count is unknown: add a 'gpus' column or --set gpus=N"))
        warns = [(f"{n} > {w!r}", n, w) for n, (w, _) in PLAUSIBILITY.items()]
        return probes, warns

    def _report(self, probes: list, warns: list, row: tuple, select: str, params: list[Any]) -> None:
        self.rows, self.role_gaps = int(row[-1]), int(row[-2])
        row = row[:-1]
        lines, warn_counts = row[:len(probes)], row[len(probes):len(probes) + len(warns)]
        failing = [i for i, line in enumerate(lines) if line is not None]
        firing = [i for i, count in enumerate(warn_counts) if count]
        if failing or firing:
            more = ", ".join([*(f"count(CASE WHEN {probes[i][0]} THEN 1 END)" for i in failing),
                              *(f"min(CASE WHEN {warns[i][0]} THEN source_line END)" for i in firing)])
            extra = self.con.execute(f"SELECT {more} FROM ({select}) staged", params).fetchone()
            counts = dict(zip(failing, extra[:len(failing)]))
            first_lines = dict(zip(firing, extra[len(failing):]))
        for i in firing:
            _, name, warn = warns[i]
            self.warnings.append(f"{warn_counts[i]} rows have {name} above {warn:g} (first at line {first_lines[i]}): "
                                 "possible but unusual; check the unit")
        if row[-5]:
            self.warnings.append(f"{row[-5]} rows have TTFT over 60 s but TPOT under 1 ms: check the units")
        if row[-4]:
            self.warnings.append(
                f"{row[-4]} row{'s' if row[-4] > 1 else ''} with a success rate below {LOW_SUCCESS_RATE:.0%} "
                f"(lowest {row[-3]:.1%} at line {row[-2]}): failed requests make the throughput look better "
                "than a working service's; an SLA limit such as success=0.99 leaves them out")
        errors = []
        for i in failing:
            _, name, message = probes[i]
            line, count = lines[i], counts[i]
            value = self._raw_value(name, line)
            text = message + (f" (got {value!r})" if value is not None else "")
            if message.startswith("not a number") and value is not None and "," in str(value):
                text += "; a decimal comma? write decimals with a point (1000.5)"
            if count > 1:
                text += f"; {count} rows in all"
            errors.append(IngestError(self.file, text, line=int(line),
                                      field=(self.columns[name].header if name in self.columns else None) or name))
        if errors:
            errors.sort(key=lambda e: e.line)
            first = errors[0]
            raise IngestError(first.file, first.message, first.line, first.field, more=errors[1:MAX_ERRORS_REPORTED])

    def _raw_value(self, name: str, line: int) -> Any:
        col = self.columns.get(name)
        raw = col.raw if col and col.raw else (self.value_check[0] if name == "value" and self.value_check else None)
        if raw is None:
            return None
        text = self.con.execute(
            f"SELECT CAST({raw} AS VARCHAR) FROM {self.raw_table} r WHERE {self.line_expr} = ?", [line]).fetchone()
        if text is None or text[0] is None:
            return None
        return text[0] if len(text[0]) <= 80 else text[0][:77] + "..."
