"""CSV export that is safe to open in a spreadsheet."""

from __future__ import annotations

import pandas as pd

__all__ = ["neutralise_formula", "safe_csv"]

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
