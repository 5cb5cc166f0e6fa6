"""How a raw column becomes a field of a point, in SQL and in Python: the expressions that read numbers
(thousands separators, units), booleans and text in DuckDB, and each field's type and bounds, read from
:class:`model.core.schema.BenchmarkPoint` (so the pydantic model stays their one definition).
"""

from __future__ import annotations

from datetime import date
from typing import Any, Callable

import annotated_types
from pydantic import TypeAdapter

from model.core.hardware import canonical_hardware
from model.core.names import MAX_NAME_LENGTH, name_problem
from model.core.repeats import latest_run_date
from model.core.schema import BenchmarkPoint, canonical_precision, canonical_spec_decoding
from model.data.importers.base import IngestError

__all__ = ["ADAPTERS", "CANONICALISERS", "unusable_hardware", "hardware_refusal", "field_bounds", "OP_TEXT", "check_constraints_scalar", "NUMERIC_TYPES",
           "future_date_text",
           "THOUSANDS_RE", "numeric_expr", "bool_expr", "nonempty_expr", "text_expr"]

#: a pydantic validator of each field's type, for values read one at a time
ADAPTERS = {name: TypeAdapter(info.annotation) for name, info in BenchmarkPoint.model_fields.items()}


#: the canonical spelling of the fields people write several ways
CANONICALISERS: dict[str, Callable[[Any], Any]] = {
    "hardware": canonical_hardware,
    "spec_decoding": canonical_spec_decoding,
    "precision": canonical_precision,
    "framework": lambda v: str(v).strip().lower() or None,
}


def unusable_hardware(canonical: str) -> str | None:
    """Why a canonical hardware name cannot be stored (:func:`model.core.names.name_problem`: empty, too long,
    control or invisible characters), or None: a stored name must be one ``--rate``, a link and the rates page can
    name, or its rows could never be priced."""
    if "=" in canonical:
        return "holds '=', which --rate HW=USD cannot name (it splits there)"
    return name_problem(canonical)


def hardware_refusal(raw: Any) -> str:
    """The words refusing the hardware name ``raw`` (as the file writes it) whose canonical name is unusable."""
    canonical = canonical_hardware(raw)
    problem = unusable_hardware(canonical) or "cannot be named"
    shown = repr(str(raw)) if len(str(raw)) <= 40 else repr(str(raw)[:39] + "…")
    became = f" (normalised: {canonical!r})" if canonical != str(raw) and len(canonical) <= 40 else ""
    return (f"the hardware name {shown}{became} {problem}: a hardware name is printable text of 1 to "
            f"{MAX_NAME_LENGTH} characters, so that --rate, a link and the TCO rates page can name it")


def field_bounds(name: str) -> list[tuple[str, float]]:
    """[(op, bound)] from the pydantic field metadata: gt/ge/lt/le."""
    out = []
    for meta in BenchmarkPoint.model_fields[name].metadata:
        for op in ("gt", "ge", "lt", "le"):
            bound = getattr(meta, op, None)
            if bound is not None and isinstance(meta, (annotated_types.Gt, annotated_types.Ge,
                                                       annotated_types.Lt, annotated_types.Le)):
                out.append((op, float(bound)))
    return out


#: bound -> (the SQL operator a value breaks it with, the words that say so)
OP_TEXT = {"gt": ("<=", "must be greater than"), "ge": ("<", "must be at least"),
            "lt": (">=", "must be less than"), "le": (">", "must be at most")}


def future_date_text(latest: date) -> str:
    """The refusal of a run date after ``latest``, in words."""
    return (f"is after {latest.isoformat()} (tomorrow): a run cannot be dated in the future; a mistyped year? "
            "Fix the date in the file (or --set run_date=YYYY-MM-DD)")


def check_constraints_scalar(file: str, name: str, value: Any) -> None:
    """Refuse ``value`` of the field ``name`` outside its bounds (:func:`field_bounds`), or a run date after
    :func:`latest_run_date`, naming the file."""
    if name == "run_date" and isinstance(value, date) and value > latest_run_date():
        raise IngestError(file, f"{value.isoformat()} {future_date_text(latest_run_date())}", field=name)
    if value is None or isinstance(value, (str, bool)):
        return
    for op, bound in field_bounds(name):
        bad = {"gt": value <= bound, "ge": value < bound, "lt": value >= bound, "le": value > bound}[op]
        if bad:
            raise IngestError(file, f"{value} {OP_TEXT[op][1]} {bound:g}", field=name)


#: DuckDB column types already numbers (read as they are)
NUMERIC_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER",
                  "UBIGINT", "FLOAT", "DOUBLE", "DECIMAL")


#: a number written with thousands separators ("4,433.93")
THOUSANDS_RE = r"[+-]?[0-9]{1,3}(,[0-9]{3})+(\.[0-9]*)?([eE][+-]?[0-9]+)?"


def numeric_expr(raw: str, scale: float, typed: bool = False) -> str:
    """DOUBLE value of a raw column [field unit]. Text is trimmed and thousands separators dropped;
    a column DuckDB already read as a number is used as is. Whole-number fields are checked, then
    cast on insert."""
    if typed:
        value = f"CAST({raw} AS DOUBLE)"
    else:
        # a comma is a thousands separator only in groups of three ("4,433.93"); "1000,5" (a decimal
        # comma) is not a number rather than silently 10005
        text = f"trim(CAST({raw} AS VARCHAR))"
        value = (f"TRY_CAST(CASE WHEN strpos({text}, ',') = 0 THEN {text} "
                 f"WHEN regexp_full_match({text}, '{THOUSANDS_RE}') THEN replace({text}, ',', '') END AS DOUBLE)")
    return f"({value} * {float(scale)!r})" if scale != 1 else value


def bool_expr(raw: str) -> str:
    """BOOLEAN value of a raw column: true/t/yes/y/1 or false/f/no/n/0 (any case), else NULL."""
    t = f"lower(trim(CAST({raw} AS VARCHAR)))"
    return (f"CASE WHEN {t} IN ('true','t','yes','y','1','1.0') THEN TRUE "
            f"WHEN {t} IN ('false','f','no','n','0','0.0') THEN FALSE END")


def nonempty_expr(raw: str, typed: bool = False) -> str:
    """Whether a raw column holds a value (not empty, N/A, NA, null, None or -)."""
    if typed:
        return f"({raw} IS NOT NULL)"
    return f"({raw} IS NOT NULL AND trim(CAST({raw} AS VARCHAR)) NOT IN ('', 'N/A', 'n/a', 'NA', 'null', 'None', '-'))"


def text_expr(raw: str) -> str:
    """Trimmed text of a raw column; NULL when empty."""
    return f"NULLIF(trim(CAST({raw} AS VARCHAR)), '')"
