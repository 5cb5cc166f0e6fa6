"""The bundled price tables, read from ``data/samples/``: the TCO rate presets ($/GPU-hour per price set, tier
and hardware; with the price sets ingested into the store, :func:`load_presets`) and the cited reference values a
build-up starts from (:func:`reference_values`, :func:`onprem_defaults`). What they mean and how they price is
:mod:`model.core.cost` and :mod:`model.core.tco`.
"""

from __future__ import annotations

import hashlib
from datetime import date
from functools import lru_cache
from pathlib import Path

import pandas as pd

from model.core.tco import dated_defaults

__all__ = ["PRESETS_CSV", "REFERENCE_CSV", "builtin_presets", "load_presets", "reference_values", "onprem_defaults",
           "onprem_default_dates"]

PRESETS_CSV = Path(__file__).resolve().parents[2] / "data" / "samples" / "tco_presets_usd_per_gpu_hr.csv"
REFERENCE_CSV = Path(__file__).resolve().parents[2] / "data" / "samples" / "tco_reference_values.csv"


@lru_cache(maxsize=1)
def _read_reference() -> pd.DataFrame:
    frame = pd.read_csv(REFERENCE_CSV, dtype={"key": str, "applies_to": str, "read_on": str}, keep_default_na=True)
    frame["read_on"] = pd.to_datetime(frame["read_on"]).dt.date
    return frame


def reference_values() -> pd.DataFrame:
    """The bundled table of published reference values, with source, URL, note and the date read per row.

    Columns: key, value (NaN where no reliable public value exists), unit, applies_to, what, source,
    url, note, read_on (a ``datetime.date``; NaT where there is nothing to date: data/samples/README.md, "Dates").
    """
    return _read_reference().copy()


@lru_cache(maxsize=1)
def builtin_presets() -> tuple[str, int, str]:
    """The built-in presets file as a source: its name, its rows and its SHA-256 (read once a process)."""
    data = PRESETS_CSV.read_bytes()
    return PRESETS_CSV.name, data.decode("utf-8").count("\n") - 1, hashlib.sha256(data).hexdigest()


@lru_cache(maxsize=4)
def _read_presets(path: str) -> pd.DataFrame:
    frame = pd.read_csv(path, dtype={"as_of": str, "read_on": str})
    return frame.rename(columns={"gpu": "hardware", "as_of": "price_set", "usd_per_gpu_hr": "usd_per_gpu_hour"})


def load_presets(extra: pd.DataFrame | None = None) -> pd.DataFrame:
    """Built-in presets plus price sets ingested into the store.

    Columns: price_set, tier, hardware, usd_per_gpu_hour, all_in_kw_per_gpu, source, read_on (the date the
    rate was read, a ``datetime.date``; NaT when undated: :mod:`model.core.dated`).
    """
    frame = _read_presets(str(PRESETS_CSV)).copy()
    if extra is not None and not extra.empty:
        frame = pd.concat([frame, extra[frame.columns]], ignore_index=True)
        frame = frame.drop_duplicates(["price_set", "tier", "hardware"], keep="last")
    frame["read_on"] = pd.to_datetime(frame["read_on"]).dt.date
    return frame.reset_index(drop=True)


def onprem_defaults(hardware: str, presets: pd.DataFrame | None = None,
                    price_set: str | None = None) -> dict[str, tuple[float | None, str]]:
    """Starting values of a build-up for one GPU, each with where it comes from.

    ``kw_per_gpu`` is the preset's all-in kW per GPU (``presets`` as :func:`load_presets`,
    newest price set unless ``price_set`` is given); electricity, colocation, PUE and years come from
    :func:`reference_values`; the server price is ``None`` (no reliable public price) unless the table
    has one for this hardware.

    Returns
    -------
    {input name: (value or None, source text)}; :func:`onprem_default_dates` gives the date each was read.
    """
    dated = dated_defaults(hardware, _read_reference(), presets, price_set)
    return {name: (value, source) for name, (value, source, _) in dated.items()}


def onprem_default_dates(hardware: str, presets: pd.DataFrame | None = None,
                         price_set: str | None = None) -> dict[str, date | None]:
    """{input name: the date its default was read (None: undated, e.g. years, an assumption)} for the same
    defaults :func:`onprem_defaults` gives."""
    dated = dated_defaults(hardware, _read_reference(), presets, price_set)
    return {name: read_on for name, (_, _, read_on) in dated.items()}
