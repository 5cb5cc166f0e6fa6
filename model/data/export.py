"""CSV export that is safe to open in a spreadsheet, and a file written whole or not at all."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

__all__ = ["neutralise_formula", "safe_csv", "write_whole"]

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def neutralise_formula(value: object) -> object:
    """Prefix text that a spreadsheet would run as a formula with ``'`` (OWASP CSV injection)."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        try:
            float(value)  # a negative number is data, not a formula
            return value
        except ValueError:
            return "'" + value
    return value


def safe_csv(frame: pd.DataFrame) -> str:
    """``frame`` as CSV text with every text cell formula-neutralised."""
    out = frame.copy()
    for column in out.columns:
        if out[column].dtype == object or pd.api.types.is_string_dtype(out[column].dtype):
            out[column] = out[column].map(neutralise_formula)
    return out.to_csv(index=False)


def write_whole(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` whole or not at all: into ``.NAME.partial`` beside it, then renamed over it. A
    write that fails (a full disk, Ctrl-C) removes the partial file and leaves ``path`` as it was; the error is
    raised (an OSError naming ``path``)."""
    path = Path(path)
    partial = path.with_name(f".{path.name}.partial")
    try:
        with open(partial, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(partial, path)
    except BaseException as exc:
        try:
            partial.unlink()
        except OSError:
            pass
        if isinstance(exc, OSError):          # said of the file asked for, not of its partial copy
            raise OSError(exc.errno, exc.strerror, str(path)) from None
        raise
    return path
