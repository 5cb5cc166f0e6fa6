"""The JSON the commands print (``--json``): frames as records, NaN and infinities as null (strict JSON), numpy
scalars as Python numbers, dates as ISO text; one compact line unless ``--indent N``."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd

__all__ = ["clean", "records", "jsonable", "dumps"]


def clean(value):
    """One value as strict JSON takes it."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is pd.NA or value is pd.NaT:
        return None
    if hasattr(value, "item"):
        return clean(value.item())
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def _column(column: pd.Series) -> list:
    """One column's values, clean: a float column converted at once (its NaN and infinities to None), any other
    value by value (:func:`clean`)."""
    if column.dtype.kind == "f" and isinstance(column.dtype, np.dtype):
        values = column.to_numpy()
        out = values.tolist()
        for i in np.flatnonzero(~np.isfinite(values)):
            out[i] = None
        return out
    if column.dtype.kind in "iub" and isinstance(column.dtype, np.dtype):
        return column.tolist()
    return [clean(v) for v in column.tolist()]


def records(frame: pd.DataFrame) -> list[dict]:
    """The rows of ``frame``, each a dict of clean values (a column at a time: 900 series' iso table is 50,000
    cells)."""
    names = [str(n) if not isinstance(n, str) else n for n in frame.columns]
    columns = [_column(frame.iloc[:, i]) for i in range(frame.shape[1])]
    return [dict(zip(names, row)) for row in zip(*columns)] if columns else [{} for _ in range(len(frame))]


def jsonable(value):
    """Nested dicts/lists with NaN and infinities as null (strict JSON), numpy scalars as Python numbers."""
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return clean(value)


def dumps(args, payload) -> str:
    """``payload`` as JSON: one compact line, or indented as ``--indent N`` asks."""
    indent = getattr(args, "indent", None)
    return json.dumps(payload, indent=indent) if indent else json.dumps(payload, separators=(",", ":"))
