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
without one the set's window is used (said). Each value is stored as the file states it.

*What the input $/M counts.* OpenCost changed it between releases: the earlier ``inputCostPerMillionTokens``
divides the input cost by the prompt tokens that needed compute (the KV-cache hits taken out), the revised one
by every delivered prompt token (its worked example: $1.60 of input over 12 M prompt tokens, 800,000 cached, is
$0.143/M before and $0.133/M after). Each row's notes say which one its figure is
(:func:`model.core.actuals.input_denominator`, read from the row's own numbers: ``inputCost ÷
inputCostPerMillionTokens × 1e6`` is the token count it was divided by). Where that count is below
``promptTokens`` the difference is the cached prompt tokens: ``cached_input_tokens`` is derived so, the one value
derived here, and said in the row's notes.

*Cost.* Linear in the file: the lines of the keys are counted in one pass as the reader moves forward through the
text (a field's own line is looked up only to name it in an error), and the rows go into the store at once.
"""

from __future__ import annotations

import json
import math
from datetime import datetime, timedelta, timezone
from typing import Any, Callable

from model.core.actuals import ALLOCATION_METHODS, input_denominator
from model.data.importers.base import IngestError

__all__ = ["FORMATS", "matches", "read", "parse_window", "Lines"]

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
_ALL_NUMBERS = (*((k, c, True) for k, c in _NUMBERS.items()), *((k, c, False) for k, c in _OPTIONAL_NUMBERS.items()))
Where = Callable[[], int]
_ZERO = timedelta(0)


def matches(keys: set[str], head: str = "") -> bool:
    """An OpenCost inference-cost response: its sets or entries are keyed as the API names them."""
    return "inferenceCosts" in keys or "inferenceCostSets" in keys


class Lines:
    """Lines of keys in a JSON file's text, found in document order (JSON objects keep their order when read).

    Lines are counted forward from the last offset counted, so reading a file key by key costs one pass over its
    text; an offset before that (a field's own line, only to name it in an error) is counted from the start."""

    def __init__(self, text: str) -> None:
        self.text, self.cursor = text, 0
        self._at, self._line = 0, 1
        self._needles: dict[str, tuple[str, ...]] = {}

    def line(self, offset: int) -> int:
        """The line (from 1) of ``offset``."""
        if offset < self._at:
            return self.text.count("\n", 0, offset) + 1
        self._line += self.text.count("\n", self._at, offset)
        self._at = offset
        return self._line

    def _search(self, key: str, start: int) -> int:
        """The offset of the next ``"key"`` followed by ``:`` from ``start``, or -1."""
        text = self.text
        needles = self._needles.get(key)
        if needles is None:
            needles = self._needles[key] = tuple(dict.fromkeys((json.dumps(key, ensure_ascii=False),
                                                                 json.dumps(key))))
        for needle in needles:
            at = text.find(needle, start)
            while at >= 0:
                after = at + len(needle)
                while after < len(text) and text[after] in " \t\r\n":
                    after += 1
                if after < len(text) and text[after] == ":":
                    return at
                at = text.find(needle, at + 1)
        return -1

    def find(self, key: str, start: int | None = None) -> tuple[int, int]:
        """(line, offset) of the next ``"key":`` from ``start`` (default: after the last one found, which moves the
        cursor there); the cursor's own when it is not found."""
        found = self._search(key, self.cursor if start is None else start)
        if found < 0:
            return self.line(self.cursor), self.cursor
        if start is None:
            self.cursor = found + 1
            return self.line(found), found
        return (self.line(found) if found >= self._at else self.text.count("\n", 0, found) + 1), found


class _Stamps:
    """RFC3339 times as naive UTC datetimes, each distinct text parsed once (a timeseries repeats every window)."""

    def __init__(self) -> None:
        self.seen: dict[str, datetime] = {}

    def __call__(self, text: Any, name: str, where: Where, field: str) -> datetime:
        if isinstance(text, str) and text in self.seen:
            return self.seen[text]
        if text is None or (isinstance(text, str) and text.strip().lower() in ("", "null")):
            part = field.rsplit(".", 1)[-1]
            raise IngestError(name, f"the window has no {part} (OpenCost writes \"null\" for an open window): "
                              "a period needs both ends", line=where(), field=field)
        if not isinstance(text, str):
            raise IngestError(name, f"not an RFC3339 time (got {text!r})", line=where(), field=field)
        try:
            stamp = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
        except ValueError:
            raise IngestError(name, f"not an RFC3339 time (got {text[:40]!r})", line=where(), field=field) from None
        if stamp.tzinfo is None:
            raise IngestError(name, f"{text[:40]!r} names no time zone (RFC3339 ends in Z or an offset)",
                              line=where(), field=field)
        self.seen[text] = (stamp if stamp.utcoffset() == _ZERO else stamp.astimezone(timezone.utc)) \
            .replace(tzinfo=None)
        return self.seen[text]


def parse_window(value: Any, name: str, line: int | Where, field: str,
                 stamps: _Stamps | None = None) -> tuple[datetime, datetime]:
    """An OpenCost window ``{"start", "end"}`` as naive UTC datetimes, the end after the start. ``line``: the line
    to name in an error (or a function giving it, called only then)."""
    where = line if callable(line) else (lambda: line)
    stamps = stamps or _Stamps()
    if not isinstance(value, dict):
        raise IngestError(name, "a window is an object with start and end (RFC3339)", line=where(), field=field)
    start = stamps(value.get("start"), name, where, f"{field}.start")
    end = stamps(value.get("end"), name, where, f"{field}.end")
    if end <= start:
        raise IngestError(name, f"the window ends ({end.isoformat()}) before it starts ({start.isoformat()})",
                          line=where(), field=f"{field}.end")
    return start, end


def _number(entry: dict, key: str, name: str, line_of: Callable[[str], int], required: bool) -> float | None:
    value = entry.get(key)
    kind = type(value)
    if (kind is float or kind is int) and 0 <= value < math.inf:     # the common case, checked at once
        return float(value)
    if value is None:
        if required:
            raise IngestError(name, "missing value", line=line_of(key), field=key)
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise IngestError(name, f"must be a JSON number, got {type(value).__name__} {str(value)[:40]!r}",
                          line=line_of(key), field=key)
    number = float(value)
    if not math.isfinite(number):
        raise IngestError(name, "must be a finite number", line=line_of(key), field=key)
    raise IngestError(name, f"cannot be negative (got {value})", line=line_of(key), field=key)


def _text(value: Any, name: str, where: Where, field: str, required: bool) -> str | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise IngestError(name, "missing value", line=where(), field=field)
        return None
    if not isinstance(value, str):
        raise IngestError(name, f"must be text, got {type(value).__name__}", line=where(), field=field)
    text = value.strip()
    if len(text) > 300 or not text.isprintable():
        raise IngestError(name, "must be printable text of at most 300 characters", line=where(), field=field)
    return text


def _entry(entry: Any, key: str, set_window: Any, name: str, lines: Lines, where: str, warnings: list[str],
           stamps: _Stamps) -> dict:
    line, offset = lines.find(key)

    def line_of(field: str) -> int:
        return lines.find(field, offset)[0] if isinstance(entry, dict) and field in entry else line

    if not isinstance(entry, dict):
        raise IngestError(name, f"an inference cost is a JSON object, found {type(entry).__name__}", line=line,
                          field=f"{where}.{key}")
    props = entry.get("properties")
    if not isinstance(props, dict):
        raise IngestError(name, "missing properties (modelName, namespace)", line=line, field="properties")
    row: dict[str, Any] = {"source_line": line}
    for source, column in _PROPERTIES.items():
        value = props.get(source)
        if type(value) is str and 0 < len(value) <= 300 and value.isprintable() and not value[0].isspace() \
                and not value[-1].isspace():
            row[column] = value                     # the common case: clean text, stored as is
        else:
            row[column] = _text(value, name, lambda: line_of("properties"), f"properties.{source}",
                                source == "modelName")
    others = props.keys() - _PROPERTIES.keys()
    extra = {f"properties.{k}": props[k] for k in sorted(others) if props[k] not in (None, "")} if others else {}
    if "window" in entry:
        row["period_start"], row["period_end"] = parse_window(entry["window"], name, lambda: line_of("window"),
                                                              "window", stamps)
    else:
        row["period_start"], row["period_end"] = parse_window(set_window, name, line, "window", stamps)
        warnings.append(f"line {line}: the entry states no window; its set's window is its period")
    basis = entry.get("costBasis")
    if basis not in _BASES:
        got = "missing" if basis is None else f"got {str(basis)[:40]!r}"
        raise IngestError(name, f"must be allocation or usage ({got})", line=line_of("costBasis"), field="costBasis")
    row["cost_basis"] = basis
    for key_, column, required in _ALL_NUMBERS:
        value = entry.get(key_)
        kind = type(value)
        if (kind is float or kind is int) and 0 <= value < math.inf:     # the common case, checked at once
            row[column] = float(value)
        else:
            row[column] = _number(entry, key_, name, line_of, required)
    if row["cache_savings_fraction"] is not None and row["cache_savings_fraction"] > 1:
        raise IngestError(name, f"is a fraction of prompt tokens, 0..1 (got {row['cache_savings_fraction']:g})",
                          line=line_of("cacheSavingsFraction"), field="cacheSavingsFraction")
    _consistent(row, name, line, line_of)
    method = entry.get("allocationMethod")
    if method in (None, ""):
        row["allocation_method"] = None
    else:
        row["allocation_method"] = _text(method, name, lambda: line_of("allocationMethod"), "allocationMethod", True)
        if row["allocation_method"] not in ALLOCATION_METHODS:
            warnings.append(f"line {line_of('allocationMethod')}: allocationMethod {method!r} is not one OpenCost "
                            f"documents ({', '.join(ALLOCATION_METHODS)}); stored as stated")
    notes = []
    if row["allocation_method"] == "multiplier":
        notes.append("allocationMethod multiplier: " + ALLOCATION_METHODS["multiplier"])
    row["cached_input_tokens"] = None
    notes.extend(_input_notes(row, name, line_of, warnings))
    unknown = entry.keys() - _KNOWN
    if unknown:
        extra.update({k: entry[k] for k in sorted(unknown)
                      if isinstance(entry[k], (str, int, float, bool)) or entry[k] is None})
        warnings.append(f"line {line}: fields kept in extra: {', '.join(sorted(unknown))}")
    row["notes"] = "; ".join(notes) or None
    row["extra"] = json.dumps(extra, sort_keys=True) if extra else None
    row["gpu_hours"] = row["hardware"] = None
    return row


def _input_notes(row: dict, name: str, line_of: Callable[[str], int], warnings: list[str]) -> list[str]:
    """What the row's input $/M counts (:func:`model.core.actuals.input_denominator`), and the cached prompt tokens
    it reveals (stored in ``cached_input_tokens``, said)."""
    kind, tokens = input_denominator(row)
    if kind is None:
        return []
    prompt = row["input_tokens"]
    if kind == "more":
        raise IngestError(name, f"inputCostPerMillionTokens {row['usd_per_m_input']:g} divides inputCost "
                          f"{row['input_usd']:g} by {tokens:,.0f} tokens, more than the promptTokens "
                          f"({prompt:,.0f}): a swapped or mistyped field", line=line_of("inputCostPerMillionTokens"),
                          field="inputCostPerMillionTokens")
    if kind == "delivered":
        return ["input $/M counts every delivered prompt token (inputCost ÷ promptTokens × 1e6, cached tokens "
                "included: OpenCost's revised inputCostPerMillionTokens)"]
    cached = float(round(prompt - tokens))
    row["cached_input_tokens"] = cached
    fraction = row.get("cache_savings_fraction")
    if fraction is not None and abs(fraction * prompt - cached) > max(0.01 * prompt, 0.5):
        warnings.append(f"line {row['source_line']}: cacheSavingsFraction {fraction:g} of {prompt:,.0f} prompt "
                        f"tokens is {fraction * prompt:,.0f}, not the {cached:,.0f} the input $/M leaves out")
    return [f"input $/M counts the prompt tokens that needed compute, {tokens:,.0f} of {prompt:,.0f} (inputCost ÷ "
            "(promptTokens − cached) × 1e6: OpenCost's earlier inputCostPerMillionTokens, KV-cache hits taken out)",
            f"cached_input_tokens derived: promptTokens − inputCost ÷ inputCostPerMillionTokens × 1e6 = "
            f"{cached:,.0f}"]


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


def body_of(value: Any, name: str, matches_body: Callable[[set], bool], what: str) -> tuple[dict, list[str]]:
    """The ``data`` object of an OpenCost response (or the object itself when saved without the envelope), and
    notes; an error response is refused with its message. ``what`` names the expected content in the refusal."""
    notes = []
    if isinstance(value, dict) and ("code" in value or "data" in value or "message" in value) \
            and not matches_body(set(value)):
        code = value.get("code")
        if isinstance(code, int) and not 200 <= code < 300 or "data" not in value:
            raise IngestError(name, f"an OpenCost error response (code {code}): "
                              f"{str(value.get('message') or 'no data')[:200]}", line=1, field="code")
        if value.get("warning"):
            notes.append(f"OpenCost warned: {str(value['warning'])[:200]}")
        value = value["data"]
    if not isinstance(value, dict) or not matches_body(set(value)):
        raise IngestError(name, what, line=1)
    return value, notes


def read(records: list[tuple[int, Any]], name: str, text: str) -> tuple[list[dict], str, list[str], list[str]]:
    """The rows of one response, its format (:data:`FORMATS`), notes for the source and warnings.

    ``records`` are :func:`model.data.importers._common.load_json`'s; ``text`` the file's text (to name lines).
    Raises :class:`IngestError` naming the line and field of the first bad value.
    """
    if len(records) != 1:
        raise IngestError(name, f"one OpenCost response per file, found {len(records)} JSON values",
                          line=records[1][0] if len(records) > 1 else 1)
    body, notes = body_of(records[0][1], name, matches, "not an OpenCost inference-cost response: expected "
                          "data.inferenceCosts (/inferenceCost/total) or data.inferenceCostSets "
                          "(/inferenceCost/timeseries)")
    lines, warnings, rows, stamps = Lines(text), [], [], _Stamps()
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
            rows.append(_entry(entry, key, one.get("window"), name, lines, where, warnings, stamps))
    if not rows:
        raise IngestError(name, "the response holds no inference costs (an empty window): nothing to store")
    bases = sorted({r["cost_basis"] for r in rows})
    methods = sorted({r["allocation_method"] for r in rows if r["allocation_method"]})
    notes.append(f"OpenCost {'/inferenceCost/timeseries' if fmt == FORMATS[1] else '/inferenceCost/total'} "
                 f"response, cost basis {', '.join(bases)}"
                 + (f", allocation method {', '.join(methods)}" if methods else ", no input/output split stated"))
    if "multiplier" in methods:
        notes.append(ALLOCATION_METHODS["multiplier"])
    counted = sorted({_counts(r) for r in rows} - {None})
    if counted:
        notes.append("input $/M counts " + " and ".join(counted) + " (each row's notes say which)")
    return rows, fmt, notes, warnings


def _counts(row: dict) -> str | None:
    note = row.get("notes") or ""
    if "every delivered prompt token" in note:
        return "every delivered prompt token"
    if "needed compute" in note:
        return "the prompt tokens that needed compute"
    return None
