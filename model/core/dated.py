"""Dated assumptions: the day each default was read, its age, and when it is old.

Every default the product starts from carries the date it was read (``read_on``): the price presets and
ingested price sets (``tco_rates.read_on``), the on-prem reference values (``tco_reference_values.csv``)
and the API prices (``api_prices.read_on``). A default read more than a set number of days before *today*
is **old**: it is flagged, never changed. The limits are view fields (``price_stale_days``, default
:data:`model.core.view_fields.DEFAULT_PRICE_STALE_DAYS` = 365, for prices and defaults; ``stale_days``,
default 180, for API prices). ``today`` is always an argument, so tests fix it.

The dating rule for a date stated only to the month (data/samples/README.md, "Dates"): the month's first
day, the earliest day it could have been read, so an age is never understated.
"""

from __future__ import annotations

import math
import re
from datetime import date

import pandas as pd

__all__ = ["read_on_of", "age_days", "is_old", "old_words", "read_on_text", "dated_frame", "old_rate_notes"]

_MONTH = re.compile(r"\d{4}-\d{2}")
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def read_on_of(stated: object, as_of: object = None) -> date | None:
    """The date a rate was read: ``stated`` (YYYY-MM-DD, or YYYY-MM: the month's first day) when given, else the
    same rule on ``as_of`` (a price set's name such as ``2025-08``), else None (undated: never flagged).

    Raises ``ValueError`` for a stated value that is not a date (the caller names file, row and field)."""
    text = "" if _missing(stated) else str(stated).strip()
    if text:
        found = _parse(text)
        if found is None:
            raise ValueError(f"not a date (got {text!r}); write YYYY-MM-DD, or YYYY-MM for a month")
        return found
    other = "" if _missing(as_of) else str(as_of).strip()
    return _parse(other) if other else None


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NaT


def _parse(text: str) -> date | None:
    try:
        if _DAY.fullmatch(text):
            return date.fromisoformat(text)
        if _MONTH.fullmatch(text):
            return date.fromisoformat(text + "-01")
    except ValueError:
        return None
    return None


def _as_date(value: object) -> date | None:
    if _missing(value):
        return None
    if isinstance(value, pd.Timestamp):
        return value.date()
    if isinstance(value, date):
        return value
    try:
        return read_on_of(value)
    except ValueError:
        return None


def age_days(read_on: object, today: date) -> int | None:
    """Whole days from ``read_on`` to ``today`` (None when undated)."""
    day = _as_date(read_on)
    return None if day is None else (today - day).days


def is_old(read_on: object, today: date, limit_days: int) -> bool:
    """True when ``read_on`` is more than ``limit_days`` days before ``today`` (an undated value is never old)."""
    age = age_days(read_on, today)
    return age is not None and age > limit_days


def read_on_text(read_on: object) -> str:
    """``2025-08-01``, or ``not dated``."""
    day = _as_date(read_on)
    return day.isoformat() if day is not None else "not dated"


def old_words(what: str, read_on: object, today: date, limit_days: int) -> str | None:
    """The flag of an old default in words (``None`` when it is not old), e.g. ``preset price set 2025-08 for
    B200 was read on 2025-08-01, 482 days ago (more than 365): it may be old``."""
    if not is_old(read_on, today, limit_days):
        return None
    return (f"{what} was read on {read_on_text(read_on)}, {age_days(read_on, today)} days ago "
            f"(more than {limit_days}): it may be old")


def dated_frame(frame: pd.DataFrame, today: date, limit_days: int, column: str = "read_on") -> pd.DataFrame:
    """``frame`` with ``read on`` (ISO text, or ``not dated``) and ``old`` (bool) columns from its ``column``."""
    out = frame.copy()
    values = out[column] if column in out.columns else pd.Series([None] * len(out), index=out.index)
    out["read on"] = [read_on_text(v) for v in values]
    out["old"] = [is_old(v, today, limit_days) for v in values]
    return out


def old_rate_notes(rates: pd.DataFrame, price_set: str, tier: str, today: date, limit_days: int) -> list[str]:
    """One note per read date of the old preset or ingested rates that price a view (``rates`` as
    :func:`model.present.rate_answer.rates_of`: ``hardware``, ``source``, ``read_on``), e.g. ``the preset
    $/GPU-hour of B200, MI355X (price set 2025-08, tier owning_hyperscaler) was read on 2025-08-01, 482 days ago
    (more than 365): it may be old``. A rate set in the view or by a cost profile is the user's own: never flagged."""
    if rates.empty or "read_on" not in rates.columns:
        return []
    out = []
    dated = rates[rates["read_on"].notna() & rates["source"].isin(["preset", "ingested price set"])]
    for (kind, read_on), group in dated.groupby(["source", "read_on"], sort=True):
        names = ", ".join(sorted(group["hardware"].astype(str), key=str.lower))
        words = old_words(f"the {kind} $/GPU-hour of {names} (price set {price_set}, tier {tier})", read_on, today,
                          limit_days)
        if words:
            out.append(words)
    return out
