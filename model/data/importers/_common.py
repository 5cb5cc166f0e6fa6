"""Helpers the importers share: lenient JSON reading, number and date parsing, the output frame.

Every importer turns a file into a list of *rows*: plain dicts whose keys are
canonical field names of :data:`model.core.schema.POINT_FIELDS` (values already in the
field's unit), plus ``source_line`` and a few extra keys the pipeline keeps in the
``extra`` JSON column. :func:`to_frame` makes the pandas frame from them.
"""

from __future__ import annotations

import json
import math
import os
import re
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, Iterable

import pandas as pd

from model.core.columns import resolve_column
from model.core.hardware import canonical_hardware
from model.core.schema import POINT_FIELDS, SQL_TYPES, canonical_precision, canonical_spec_decoding
from model.data.importers.base import IngestError

__all__ = [
    "HEAD_BYTES", "DEFAULT_MAX_JSON_MB", "env_mb", "max_json_mb", "check_json_size", "Rows", "read_head", "head_keys", "load_json", "load_json_text", "objects", "num", "integer", "seconds",
    "iso_date", "to_frame", "scalar_extras", "first", "model_from_path", "model_named", "add_note", "SATURATED_BELOW", "rate_as_run",
    "SAME_WORKLOAD_WITHIN", "one_workload", "per_completed", "DERIVED_KEY",
]

#: a row's key naming the fields an importer derived rather than read as stated (inference-perf's ISL/OSL from the
#: measured mean lengths): ``--set`` and the upload form replace them (:class:`model.data.pipeline.Pipeline`)
DERIVED_KEY = "_derived"

#: how much of a file detection reads [bytes]
HEAD_BYTES = 1 << 20

Rows = list[dict[str, Any]]

#: the largest JSON result read [MB] (``$COSTFRONTIER_MAX_JSON_MB``): a JSON file is parsed whole, and
#: Python's objects take ~15x its size (160 MB of load points passed 2 GB), so a larger one is refused
DEFAULT_MAX_JSON_MB = 64

_KEY_RE = re.compile(r'"((?:[^"\\\n]|\\.){1,200})"\s*:')
_MISSING_TEXT = {"", "n/a", "na", "nan", "none", "null", "-"}
_CANONICAL = {
    "hardware": lambda v: canonical_hardware(v) or None,
    "precision": canonical_precision,
    "spec_decoding": canonical_spec_decoding,
    "framework": lambda v: str(v).strip().lower() or None,
}


def read_head(path: Path, size: int = HEAD_BYTES) -> str:
    """The first ``size`` bytes of ``path`` as text (BOM dropped, a split character ignored)."""
    with open(path, "rb") as handle:
        raw = handle.read(size)
    return raw.decode("utf-8-sig", errors="ignore")


def head_keys(text: str) -> set[str]:
    """Every JSON object key that occurs in ``text``, at any depth (a cheap scan, no parsing)."""
    return set(_KEY_RE.findall(text))


def env_mb(variable: str, default: float) -> float:
    """A size limit [MB] from the environment variable ``variable``; ``default`` when unset or not a positive number."""
    text = os.environ.get(variable, "").strip()
    try:
        value = float(text) if text else default
    except ValueError:
        return default
    return value if value > 0 and math.isfinite(value) else default


def max_json_mb() -> float:
    """The size limit for one JSON result [MB]: ``$COSTFRONTIER_MAX_JSON_MB``, else 64."""
    return env_mb("COSTFRONTIER_MAX_JSON_MB", DEFAULT_MAX_JSON_MB)


def check_json_size(path: Path, name: str) -> None:
    """Refuse a JSON file over :func:`max_json_mb` before reading it, naming its size and the limit."""
    size, limit = Path(path).stat().st_size, max_json_mb()
    if size > limit * 1024 * 1024:
        raise IngestError(name, f"the file is {size / 1024 / 1024:,.0f} MB, more than the {limit:g} MB a JSON result "
                          "may be (COSTFRONTIER_MAX_JSON_MB); split it or convert it to CSV")


def load_json(path: Path, name: str) -> list[tuple[int, Any]]:
    """Read a JSON file leniently into ``[(source_line, value), ...]``.

    Accepts one JSON value, JSON Lines, and several objects written one after
    another (vLLM ``--append-result``). ``Infinity``/``NaN`` literals (SGLang) are
    read as floats. A top-level array becomes one entry per element, numbered from
    1; otherwise each entry carries the line its value starts on.

    Raises
    ------
    IngestError
        for a file over :func:`max_json_mb` (before reading it), text that is not
        valid JSON (naming the line), nesting too deep to read, or an empty file.
    """
    return load_json_text(path, name)[0]


def load_json_text(path: Path, name: str) -> tuple[list[tuple[int, Any]], str]:
    """:func:`load_json`, and the file's text (for a reader that names the lines of keys in it)."""
    check_json_size(path, name)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise IngestError(name, f"not UTF-8 text (byte {exc.start}); save the file as UTF-8") from None
    decoder = json.JSONDecoder(object_pairs_hook=_unique_keys)
    docs: list[tuple[int, Any]] = []
    space = re.compile(r"\s*")
    idx, line, counted = 0, 1, 0
    while True:
        idx = space.match(text, idx).end()
        if idx >= len(text):
            break
        line += text.count("\n", counted, idx)
        counted = idx
        try:
            value, idx = decoder.raw_decode(text, idx)
        except json.JSONDecodeError as exc:
            raise _json_error(name, text, idx, line, exc, bool(docs)) from None
        except RecursionError:
            raise IngestError(name, "JSON nested too deeply to read", line=line) from None
        except _DuplicateKey as exc:
            raise IngestError(name, f"the key {exc.key!r} appears twice in one JSON object; which value is "
                              "meant? Keep one of them", line=_repeat_line(text, idx, line, exc.key),
                              field=exc.key) from None
        docs.append((line, value))
    if not docs:
        raise IngestError(name, "the file is empty")
    if len(docs) == 1 and isinstance(docs[0][1], list):
        return [(i + 1, value) for i, value in enumerate(docs[0][1])], text
    return docs, text


class _DuplicateKey(Exception):
    """A JSON object names one key twice (``json`` would silently keep the last value)."""

    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` that refuses a repeated key, as a repeated CSV column is refused."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return out


def _repeat_line(text: str, start: int, line: int, key: str) -> int:
    """The line of the second ``"key":`` in the value starting at ``start`` (on ``line``): exact when the key
    occurs exactly twice from there on (one object, or the last record); else the line the value starts on
    (in JSON Lines, the record's line)."""
    pattern = re.compile(re.escape(json.dumps(key)) + r"\s*:")
    hits = [m.start() for m in pattern.finditer(text, start)][:3]
    if len(hits) != 2:
        return line
    return line + text.count("\n", start, hits[1])


def _json_error(name: str, text: str, start: int, line: int, exc: json.JSONDecodeError,
                after_values: bool) -> IngestError:
    """The error for a value starting at ``start`` (on ``line``) that does not parse.

    In JSON Lines a broken line makes the decoder read on into the next one and fail there.
    When the file looks like JSON Lines (values before this one, or the next line starts a new
    value at its first column) and the value's own line is not JSON by itself, that line is named.
    """
    end = text.find("\n", start)
    following = "" if end < 0 else text[end + 1:end + 2]
    if exc.lineno != line and (after_values or following in ("{", "[")):
        own = text[start:] if end < 0 else text[start:end]
        try:
            json.loads(own)
        except json.JSONDecodeError as own_exc:
            return IngestError(name, f"invalid JSON: {own_exc.msg} (column {own_exc.colno}); the line is "
                               "incomplete or the file truncated", line=line)
        except RecursionError:
            pass
    return IngestError(name, f"invalid JSON: {exc.msg} (column {exc.colno}); the file may be truncated",
                       line=exc.lineno)


def objects(records: list[tuple[int, Any]], name: str, fmt: str) -> list[tuple[int, dict]]:
    """``records`` checked to be JSON objects; anything else is refused naming its line."""
    for line, value in records:
        if not isinstance(value, dict):
            raise IngestError(name, f"expected a {fmt} result object, found a JSON {type(value).__name__}",
                              line=line)
    return records  # type: ignore[return-value]


def num(value: Any) -> float | None:
    """A finite float from a JSON number or numeric text (``"4,433.93"``, ``"662"``), else ``None``.

    ``N/A``, empty text, booleans, ``NaN`` and infinities are ``None``.
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        out = float(value)
    elif isinstance(value, str):
        text = value.strip().replace(",", "")
        if text.lower() in _MISSING_TEXT:
            return None
        try:
            out = float(text)
        except ValueError:
            return None
    else:
        return None
    return out if math.isfinite(out) else None


def integer(value: Any) -> int | None:
    """:func:`num` rounded to an ``int`` (token counts, GPU counts), or ``None``."""
    out = num(value)
    return None if out is None else int(round(out))


def seconds(value: Any, unit: str | None) -> float | None:
    """A duration in seconds from ``value`` in ``unit`` (``ms``, ``s``/``sec``, ``us``, ``ns``)."""
    out = num(value)
    if out is None:
        return None
    scale = {"ms": 1e-3, "s": 1.0, "sec": 1.0, "secs": 1.0, "seconds": 1.0, "us": 1e-6, "ns": 1e-9}
    key = (unit or "ms").strip().lower()
    if key not in scale:
        return None
    return out * scale[key]


def first(*values: Any) -> Any:
    """The first value that is not ``None``."""
    return next((v for v in values if v is not None), None)


def iso_date(value: Any) -> str | None:
    """``YYYY-MM-DD`` from ``"20250912-141503"``, an ISO timestamp, or unix seconds (UTC)."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        if not math.isfinite(value) or value <= 0:
            return None
        stamp = float(value)
        while stamp > 1e11:  # milli-, micro- or nanoseconds since the epoch
            stamp /= 1000.0
        try:
            return datetime.fromtimestamp(stamp, tz=timezone.utc).date().isoformat()
        except (OverflowError, OSError, ValueError):
            return None
    text = str(value).strip()
    match = re.match(r"(\d{4})-?(\d{2})-?(\d{2})", text)
    if not match:
        return None
    try:
        return date(int(match[1]), int(match[2]), int(match[3])).isoformat()
    except ValueError:
        return None


_PATH_START = re.compile(r"^(/|\./|\.\./|~[/\\]|[A-Za-z]:[\\/])")


def model_from_path(value: Any) -> tuple[str, str] | None:
    """``("Qwen3-14B", "/root/models/Qwen3-14B")`` for a model given as a filesystem path (absolute, ``./``,
    ``../``, ``~/`` or a Windows drive), else ``None``: a Hugging Face id (``Qwen/Qwen3-14B``) is no path."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not _PATH_START.match(text):
        return None
    last = re.split(r"[\\/]", text.rstrip("/\\"))[-1]
    return (last, text) if last and last not in (".", "..", "~") and not re.fullmatch(r"[A-Za-z]:", last) else None


#: a load that achieved less than this fraction of the request rate it asked for is saturated [-]
SATURATED_BELOW = 0.95


def rate_as_run(requested: float | None, achieved: float | None, label: str) -> tuple[float | None, dict, list[str]]:
    """The request rate a load point ran at, from the rate it asked for and the rate it achieved [req/s].

    The rule (every importer whose file states both): the point's ``request_rate_rps`` is the **achieved**
    rate, the requested one kept in extra as ``requested_rate_rps``; a load that achieved less than
    :data:`SATURATED_BELOW` (95 %) of its request is saturated (said in the row's notes, ``saturated`` in
    extra), so a ramp is read as it ran and no knee stands at a rate the server never saw. Without an achieved
    rate (or one of 0, nothing measured) the requested rate is the rate, and the notes say so.

    Returns
    -------
    rate : float or None  [req/s]
    extra : dict  ``requested_rate_rps`` [req/s] and ``saturated`` (bool), where there is a request
    notes : list of str  what the row's notes say of its rate (``label`` names the load point)
    """
    if achieved is None or achieved <= 0:
        said = [] if requested is None else [f"{label}: rate = the requested rate (no achieved rate stated)"]
        return requested, {}, said
    if requested is None or requested <= 0:
        return achieved, {}, [f"{label}: rate = the achieved rate (no requested rate stated)"]
    saturated = achieved < SATURATED_BELOW * requested
    said = [f"{label}: rate = the achieved rate (the requested rate kept in extra as requested_rate_rps)"]
    if saturated:
        said.append(f"{label} saturated: achieved {achieved:.4g} req/s of the {requested:g} requested "
                    f"({achieved / requested:.0%}, under {SATURATED_BELOW:.0%}): the point stands at the achieved "
                    "rate, never at the requested one")
    return achieved, {"requested_rate_rps": requested, "saturated": saturated}, said


#: runs of one file whose measured mean prompt and output lengths each agree within this fraction share one
#: workload [-]
SAME_WORKLOAD_WITHIN = 0.02


def per_completed(obj: dict, key: str, completed: int | None) -> float | None:
    """``obj[key]`` (a run's total, e.g. ``total_input_tokens``) per completed request, or None."""
    total = num(obj.get(key))
    return total / completed if total is not None and completed else None


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= SAME_WORKLOAD_WITHIN * max(abs(a), abs(b))


def one_workload(rows: Rows, means: list[tuple[float | None, float | None, float | None] | None],
                 notes: set[str]) -> int:
    """Give the runs of one file whose ISL/OSL are measured means one workload where their means agree.

    A measured mean moves a little from run to run of one configuration (62.4 and 62.6 output tokens), and
    rounding each run's own mean would split one ramp into two workloads (OSL 62 and 63). The rule: runs of one
    file whose mean prompt and output lengths each lie within :data:`SAME_WORKLOAD_WITHIN` (2 %) of the first
    of their group (runs taken by increasing mean ISL, then OSL) share ISL/OSL = the group's means weighted by
    completed requests, rounded; each such row's notes say so and its own means go in extra
    (``mean_input_tokens``, ``mean_output_tokens``). 2 % joins what one configuration's runs measure and keeps
    apart lengths anyone would configure differently (1,024 and 1,100 tokens).

    Parameters
    ----------
    rows : list of dict  the file's rows, changed in place
    means : list  per row, ``(mean ISL, mean OSL, completed requests)`` [tokens, tokens, requests] where the
        row's ISL/OSL are measured means, else ``None`` (configured lengths are left alone)
    notes : set of str  the file's notes, told when runs share a workload

    Returns
    -------
    int  the rows that share a workload with another run
    """
    measured = sorted((m[0], m[1], i) for i, m in enumerate(means)
                      if m is not None and m[0] is not None and m[1] is not None and m[2])
    groups: list[list[int]] = []
    anchor: tuple[float, float] | None = None
    for isl, osl, i in measured:
        if anchor is not None and _close(isl, anchor[0]) and _close(osl, anchor[1]):
            groups[-1].append(i)
        else:
            groups.append([i])
            anchor = (isl, osl)
    shared = 0
    for group in (g for g in groups if len(g) > 1):
        weight = sum(means[i][2] for i in group)
        isl = sum(means[i][0] * means[i][2] for i in group) / weight
        osl = sum(means[i][1] * means[i][2] for i in group) / weight
        for i in group:
            rows[i].update(isl=round(isl), osl=round(osl), mean_input_tokens=means[i][0],
                           mean_output_tokens=means[i][1])
            add_note(rows[i], f"ISL/OSL = the mean over the {len(group)} runs of this file whose measured mean "
                     f"lengths agree within {SAME_WORKLOAD_WITHIN:.0%} (weighted by completed requests), rounded, so "
                     "they are one workload; this run's own means kept in extra (mean_input_tokens, "
                     "mean_output_tokens)")
        shared += len(group)
    if shared:
        notes.add(f"runs whose measured mean lengths agree within {SAME_WORKLOAD_WITHIN:.0%} share one ISL/OSL "
                  "(their mean, weighted by completed requests): each row's notes say which")
    return shared


#: the file-level note when a model was given as a path
MODEL_PATH_NOTE = "model given as a path: stored as its last component (the path kept in extra as model_dir)"


def model_named(value: Any) -> tuple[Any, str | None, str | None]:
    """A model as it is stored, wherever it was given (a result file, a CSV column, ``--set model=``, the
    upload form): ``(name, path, note)``.

    A model given as a filesystem path (:func:`model_from_path`) is named by its last component, so the JSON
    and CSV exports of one run, or one model under two mount points, are one model: ``path`` is what was
    given (kept in extra as ``model_dir``) and ``note`` the row's note. Anything else is stored as given
    (``path`` and ``note`` None); a Hugging Face id (``Qwen/Qwen3-32B``) is no path.
    """
    named = model_from_path(value)
    if named is None:
        return value, None, None
    return named[0], named[1], (f"model given as a path: stored as its last component {named[0]!r}; the path kept "
                                "in extra as model_dir")


def add_note(row: dict[str, Any], text: str) -> None:
    """Append ``text`` to the row's own ``notes`` (what the importer derived for that row)."""
    row["notes"] = "; ".join(n for n in (row.get("notes"), text) if n)


def scalar_extras(obj: dict, skip: Iterable[str]) -> dict[str, Any]:
    """The scalar (non-list, non-dict, non-null) entries of ``obj`` whose keys are not in ``skip``.

    Floats that are not finite are dropped; per-request arrays never get through.
    """
    skipped = set(skip)
    out = {}
    for key, value in obj.items():
        if key in skipped or value is None or isinstance(value, (list, dict)):
            continue
        if isinstance(value, float) and not math.isfinite(value):
            continue
        out[key] = value
    return out


def _extra_name(key: str) -> str:
    """An extra column's name, prefixed with ``src_`` if the pipeline would read it as a field alias."""
    return key if resolve_column(key) is None else f"src_{key}"


def to_frame(rows: Rows) -> pd.DataFrame:
    """The importer output frame: canonical fields typed by the schema, extras kept as they are.

    Field columns get nullable pandas types (``Float64``, ``Int64``, object for
    text, booleans and dates); hardware, precision, spec decoding and framework
    names are canonicalised as the pipeline would. Extra columns whose names collide with a field
    alias are renamed ``src_<name>`` so the pipeline never maps them by accident;
    an extra holding mixed types is stored as text.
    """
    columns: dict[str, None] = {}
    for row in rows:
        columns.update(dict.fromkeys(row))
    data: dict[str, Any] = {}
    for col in columns:
        values = [row.get(col) for row in rows]
        if col == "source_line":
            data[col] = pd.Series(values, dtype="int64")
            continue
        present = [v for v in values if v is not None]
        if col in POINT_FIELDS:
            sql_type = SQL_TYPES[col]
            if sql_type == "DOUBLE":
                data[col] = pd.array([num(v) for v in values], dtype="Float64")
            elif sql_type == "BIGINT":
                data[col] = pd.array([integer(v) for v in values], dtype="Int64")
            elif col in _CANONICAL:
                data[col] = pd.Series([None if v is None else _CANONICAL[col](v) for v in values], dtype=object)
            else:
                data[col] = pd.Series(values, dtype=object)
            continue
        name = _extra_name(col)
        if present and all(isinstance(v, bool) for v in present):
            data[name] = pd.Series(values, dtype=object)
        elif present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
            data[name] = pd.array(values, dtype="Int64")
        elif present and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
            data[name] = pd.array([num(v) for v in values], dtype="Float64")
        else:
            data[name] = pd.Series([None if v is None else str(v) for v in values], dtype=object)
    return pd.DataFrame(data)
