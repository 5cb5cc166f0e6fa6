"""The JSON the commands print (``--json``): frames as records, NaN and infinities as null (strict JSON), numpy
scalars as Python numbers, dates as ISO text; one compact line unless ``--indent N``."""

from __future__ import annotations

import json
import math

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


def records(frame: pd.DataFrame) -> list[dict]:
    """The rows of ``frame``, each a dict of clean values."""
    return [{k: clean(v) for k, v in row.items()} for row in frame.to_dict("records")]


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
