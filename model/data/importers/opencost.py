"""OpenCost's inference-cost responses (``/inferenceCost/total`` and ``/inferenceCost/timeseries``) as actuals.

The shapes, from OpenCost's ``docs/inference-cost-tracking.md`` and ``pkg/inferencecost/apitypes.go``:

- ``/inferenceCost/total``: ``{"code": 200, "data": {"inferenceCosts": {KEY: ENTRY, ...}, "window": W}}``;
- ``/inferenceCost/timeseries``: ``{"code": 200, "data": {"inferenceCostSets": [{"inferenceCosts": {...},
  "window": W}, ...], "window": W}}``;
- ``W`` is ``{"start": RFC3339, "end": RFC3339}`` (OpenCost writes the text ``"null"`` for an open end);
- ``ENTRY``: ``properties`` (``modelName``, ``namespace``, optionally ``modelVersion``, ``cluster``, ``pod``,
  ``controller``, ``controllerKind``, ``container``), ``window``, ``costBasis`` (``allocation`` | ``usage``),
  ``totalCost``, ``promptTokens``, ``generationTokens``, ``totalTokens``, ``costPerMillionTokens``, ``inputCost``,
  ``outputCost``, ``inputCostPerMillionTokens``, ``outputCostPerMillionTokens``, ``allocationMethod`` (omitted
  when empty) and, in newer releases, ``cacheSavingsFraction``. What each means:
  :data:`model.core.actuals.OPENCOST_FIELDS`.

The envelope (``code``, ``data``) may be absent (the ``data`` object saved alone). Tolerant of those documented
variants, strict about values: every number a JSON number, finite and not negative; a window with a start before
its end; ``totalTokens`` = ``promptTokens`` + ``generationTokens``; ``costPerMillionTokens`` = ``totalCost ÷
totalTokens × 1e6`` within rounding (a swapped field is refused, not stored). An entry's own window is the period;
without one the set's window is used (said). Each value is stored as the file states it; nothing is derived.
"""

from __future__ import annotations

import json
import math
import re
from datetime import datetime, timezone
from typing import Any

from model.core.actuals import ALLOCATION_METHODS
from model.data.importers.base import IngestError

__all__ = ["FORMATS", "matches", "read", "parse_window"]

#: ``sources.format`` of each response
FORMATS = ("opencost-total", "opencost-timeseries")
_BASES = ("allocation", "usage")
_NUMBERS = {"totalCost": "usd", "promptTokens": "input_tokens", "generationTokens": "output_tokens",
            "totalTokens": "total_tokens", "costPerMillionTokens": "usd_per_mtok"}
_OPTIONAL_NUMBERS = {"inputCost": "input_usd", "outputCost": "output_usd",
                     "inputCostPerMillionTokens": "usd_per_m_input", "outputCostPerMillionTokens": "usd_per_m_output",
                     "cacheSavingsFraction": "cache_savings_fraction"}
_PROPERTIES = {"modelName": "model", "modelVersion": "model_version", "namespace": "namespace", "cluster": "cluster"}
_KNOWN = {"properties", "window", "costBasis", "allocationMethod", *_NUMBERS, *_OPTIONAL_NUMBERS}


def matches(keys: set[str], head: str = "") -> bool:
    """An OpenCost inference-cost response: its sets or entries are keyed as the API names them."""
    return "inferenceCosts" in keys or "inferenceCostSets" in keys


class _Lines:
    """Lines of keys in the file's text, found in document order (JSON objects keep their order when read)."""

    def __init__(self, text: str) -> None:
        self.text, self.cursor = text, 0

    def find(self, key: str, start: int | None = None) -> tuple[int, int]:
        """(line, offset) of the next ``"key":`` from ``start`` (default: after the last one found)."""
        found = re.compile(re.escape(json.dumps(key)) + r"\s*:").search(self.text, self.cursor if start is None
                                                                        else start)
        if found is None:
            return self.line(self.cursor), self.cursor
        if start is None:
            self.cursor = found.end()
        return self.line(found.start()), found.start()

    def line(self, offset: int) -> int:
        return self.text.count("\n", 0, offset) + 1


def parse_window(value: Any, name: str, line: int, field: str) -> tuple[datetime, datetime]:
    """An OpenCost window ``{"start", "end"}`` as naive UTC datetimes, the end after the start."""
    if not isinstance(value, dict):
        raise IngestError(name, "a window is an object with start and end (RFC3339)", line=line, field=field)
    out = []
    for part in ("start", "end"):
        text = value.get(part)
        if text is None or (isinstance(text, str) and text.strip().lower() in ("", "null")):
            raise IngestError(name, f"the window has no {part} (OpenCost writes \"null\" for an open window): "
                              "a period needs both ends", line=line, field=f"{field}.{part}")
        if not isinstance(text, str):
            raise IngestError(name, f"not an RFC3339 time (got {text!r})", line=line, field=f"{field}.{part}")
        try:
            stamp = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
        except ValueError:
            raise IngestError(name, f"not an RFC3339 time (got {text[:40]!r})", line=line,
                              field=f"{field}.{part}") from None
        if stamp.tzinfo is None:
            raise IngestError(name, f"{text[:40]!r} names no time zone (RFC3339 ends in Z or an offset)", line=line,
                              field=f"{field}.{part}")
        out.append(stamp.astimezone(timezone.utc).replace(tzinfo=None))
    if out[1] <= out[0]:
        raise IngestError(name, f"the window ends ({out[1].isoformat()}) before it starts ({out[0].isoformat()})",
                          line=line, field=f"{field}.end")
    return out[0], out[1]


def _number(entry: dict, key: str, name: str, line: int, required: bool) -> float | None:
    value = entry.get(key)
    if value is None:
        if required:
            raise IngestError(name, "missing value", line=line, field=key)
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise IngestError(name, f"must be a JSON number, got {type(value).__name__} {str(value)[:40]!r}", line=line,
                          field=key)
    number = float(value)
    if not math.isfinite(number):
        raise IngestError(name, "must be a finite number", line=line, field=key)
    if number < 0:
        raise IngestError(name, f"cannot be negative (got {value})", line=line, field=key)
    return number


def _text(value: Any, name: str, line: int, field: str, required: bool) -> str | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise IngestError(name, "missing value", line=line, field=field)
        return None
    if not isinstance(value, str):
        raise IngestError(name, f"must be text, got {type(value).__name__}", line=line, field=field)
    text = value.strip()
    if not text.isprintable() or len(text) > 300:
        raise IngestError(name, "must be printable text of at most 300 characters", line=line, field=field)
    return text


def _entry(entry: Any, key: str, set_window: Any, name: str, lines: _Lines, where: str,
           warnings: list[str]) -> dict:
    line, offset = lines.find(key)

    def line_of(field: str) -> int:
        return lines.find(field, offset)[0] if field in entry else line

    if not isinstance(entry, dict):
        raise IngestError(name, f"an inference cost is a JSON object, found {type(entry).__name__}", line=line,
                          field=f"{where}.{key}")
    props = entry.get("properties")
    if not isinstance(props, dict):
        raise IngestError(name, "missing properties (modelName, namespace)", line=line, field="properties")
    row: dict[str, Any] = {"source_line": line}
    for source, column in _PROPERTIES.items():
        row[column] = _text(props.get(source), name, line_of("properties"), f"properties.{source}",
                            source == "modelName")
    extra = {f"properties.{k}": v for k, v in props.items() if k not in _PROPERTIES and v not in (None, "")}
    if "window" in entry:
        row["period_start"], row["period_end"] = parse_window(entry["window"], name, line_of("window"), "window")
    else:
        row["period_start"], row["period_end"] = parse_window(set_window, name, line, "window")
        warnings.append(f"line {line}: the entry states no window; its set's window is its period")
    basis = entry.get("costBasis")
    if basis not in _BASES:
        got = "missing" if basis is None else f"got {str(basis)[:40]!r}"
        raise IngestError(name, f"must be allocation or usage ({got})", line=line_of("costBasis"), field="costBasis")
    row["cost_basis"] = basis
    for key_, column in _NUMBERS.items():
        row[column] = _number(entry, key_, name, line_of(key_), True)
    for key_, column in _OPTIONAL_NUMBERS.items():
        row[column] = _number(entry, key_, name, line_of(key_), False)
    if row["cache_savings_fraction"] is not None and row["cache_savings_fraction"] > 1:
        raise IngestError(name, f"is a fraction of prompt tokens, 0..1 (got {row['cache_savings_fraction']:g})",
                          line=line_of("cacheSavingsFraction"), field="cacheSavingsFraction")
    _consistent(row, name, line, line_of)
    method = entry.get("allocationMethod")
    if method in (None, ""):
        row["allocation_method"] = None
    else:
        row["allocation_method"] = _text(method, name, line_of("allocationMethod"), "allocationMethod", True)
        if row["allocation_method"] not in ALLOCATION_METHODS:
            warnings.append(f"line {line_of('allocationMethod')}: allocationMethod {method!r} is not one OpenCost "
                            f"documents ({', '.join(ALLOCATION_METHODS)}); stored as stated")
    notes = []
    if row["allocation_method"] == "multiplier":
        notes.append("allocationMethod multiplier: " + ALLOCATION_METHODS["multiplier"])
    unknown = {k: v for k, v in entry.items() if k not in _KNOWN}
    extra.update({k: v for k, v in unknown.items() if isinstance(v, (str, int, float, bool)) or v is None})
    if unknown:
        warnings.append(f"line {line}: fields kept in extra: {', '.join(sorted(unknown))}")
    row["notes"] = "; ".join(notes) or None
    row["extra"] = json.dumps(extra, sort_keys=True) if extra else None
    row.update(cached_input_tokens=None, gpu_hours=None, hardware=None)
    return row


def _consistent(row: dict, name: str, line: int, line_of) -> None:
    """Refuse figures that contradict each other (a swapped or mistyped field)."""
    prompt, generation, total = row["input_tokens"], row["output_tokens"], row["total_tokens"]
    if abs(prompt + generation - total) > 0.5 + 1e-9 * total:
        raise IngestError(name, f"totalTokens {total:,.0f} is not promptTokens + generationTokens "
                          f"({prompt:,.0f} + {generation:,.0f} = {prompt + generation:,.0f})",
                          line=line_of("totalTokens"), field="totalTokens")
    stated = row["usd_per_mtok"]
    if total > 0:
        expected = row["usd"] / total * 1e6
        if abs(stated - expected) > max(1e-3 * expected, 0.005):
            raise IngestError(name, f"costPerMillionTokens {stated:g} is not totalCost ÷ totalTokens × 1e6 "
                              f"({row['usd']:g} ÷ {total:,.0f} × 1e6 = {expected:.4g})",
                              line=line_of("costPerMillionTokens"), field="costPerMillionTokens")
    elif stated != 0:
        raise IngestError(name, f"costPerMillionTokens {stated:g} with no tokens: OpenCost gives 0 then",
                          line=line_of("costPerMillionTokens"), field="costPerMillionTokens")


def _body(value: Any, name: str) -> tuple[dict, list[str]]:
    """The ``data`` object of a response (or the object itself when saved without the envelope), and notes."""
    notes = []
    if isinstance(value, dict) and ("code" in value or "data" in value or "message" in value) \
            and not matches(set(value)):
        code = value.get("code")
        if isinstance(code, int) and not 200 <= code < 300 or "data" not in value:
            raise IngestError(name, f"an OpenCost error response (code {code}): "
                              f"{str(value.get('message') or 'no data')[:200]}", line=1, field="code")
        if value.get("warning"):
            notes.append(f"OpenCost warned: {str(value['warning'])[:200]}")
        value = value["data"]
    if not isinstance(value, dict) or not matches(set(value)):
        raise IngestError(name, "not an OpenCost inference-cost response: expected data.inferenceCosts "
                          "(/inferenceCost/total) or data.inferenceCostSets (/inferenceCost/timeseries)", line=1)
    return value, notes


def read(records: list[tuple[int, Any]], name: str, text: str) -> tuple[list[dict], str, list[str], list[str]]:
    """The rows of one response, its format (:data:`FORMATS`), notes for the source and warnings.

    ``records`` are :func:`model.data.importers._common.load_json`'s; ``text`` the file's text (to name lines).
    Raises :class:`IngestError` naming the line and field of the first bad value.
    """
    if len(records) != 1:
        raise IngestError(name, f"one OpenCost response per file, found {len(records)} JSON values",
                          line=records[1][0] if len(records) > 1 else 1)
    body, notes = _body(records[0][1], name)
    lines, warnings, rows = _Lines(text), [], []
    if "inferenceCostSets" in body:
        fmt, sets = FORMATS[1], body["inferenceCostSets"]
        if not isinstance(sets, list):
            raise IngestError(name, "inferenceCostSets must be a list of sets", line=lines.find(
                "inferenceCostSets")[0], field="inferenceCostSets")
    else:
        fmt, sets = FORMATS[0], [body]
    for i, one in enumerate(sets):
        where = f"inferenceCostSets[{i}].inferenceCosts" if fmt == FORMATS[1] else "inferenceCosts"
        if not isinstance(one, dict):
            raise IngestError(name, f"a set is a JSON object, found {type(one).__name__}", line=lines.line(
                lines.cursor), field=where.rsplit(".", 1)[0])
        costs = one.get("inferenceCosts")
        if costs is None:          # Go writes a nil map as null: a window with nothing in it
            continue
        if not isinstance(costs, dict):
            raise IngestError(name, "inferenceCosts must be an object keyed by model:namespace", line=lines.find(
                "inferenceCosts")[0], field=where)
        if costs:
            lines.find("inferenceCosts")
        for key, entry in costs.items():
            rows.append(_entry(entry, key, one.get("window"), name, lines, where, warnings))
    if not rows:
        raise IngestError(name, "the response holds no inference costs (an empty window): nothing to store")
    bases = sorted({r["cost_basis"] for r in rows})
    methods = sorted({r["allocation_method"] for r in rows if r["allocation_method"]})
    notes.append(f"OpenCost {'/inferenceCost/timeseries' if fmt == FORMATS[1] else '/inferenceCost/total'} "
                 f"response, cost basis {', '.join(bases)}"
                 + (f", allocation method {', '.join(methods)}" if methods else ", no input/output split stated"))
    if "multiplier" in methods:
        notes.append(ALLOCATION_METHODS["multiplier"])
    return rows, fmt, notes, warnings
