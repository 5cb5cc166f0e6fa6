"""Dollars per million tokens from $/GPU-hour, and the TCO rate presets.

``usd_per_million_tokens = usd_per_gpu_hour / (3600 * tokens_per_second_per_gpu / 1e6)``
(SemiAnalysis InferenceX; see ``data/samples/README.md``).
"""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from model.core.view_fields import (  # declared with the view's rates
    MAX_USD_PER_GPU_HOUR,
    MIN_USD_PER_GPU_HOUR,
)

__all__ = [
    "usd_per_mtok",
    "tokens_per_usd",
    "PRESETS_CSV",
    "DEFAULT_PRICE_SET",
    "DEFAULT_TIER",
    "RateError",
    "MAX_USD_PER_GPU_HOUR",
    "MIN_USD_PER_GPU_HOUR",
    "RATE_RANGE",
    "usable_rate",
    "load_presets",
    "price_sets",
    "tiers",
    "preset_rates",
    "resolve_rates",
    "has_price_set",
]

PRESETS_CSV = Path(__file__).resolve().parents[2] / "data" / "samples" / "tco_presets_usd_per_gpu_hr.csv"
#: the price set and tier the InferenceX GLM-5 tables use
DEFAULT_PRICE_SET = "2025-08"
DEFAULT_TIER = "owning_hyperscaler"


#: a rate is usable when finite and from MIN_USD_PER_GPU_HOUR to MAX_USD_PER_GPU_HOUR [$/GPU/h];
#: the rule in words, for messages: "must be in [0.0001, 1000]"
RATE_RANGE = f"[{MIN_USD_PER_GPU_HOUR:g}, {MAX_USD_PER_GPU_HOUR:g}]"


class RateError(ValueError):
    """A $/GPU-hour is missing or not usable."""


def usable_rate(usd_per_gpu_hour: float) -> bool:
    """Whether ``usd_per_gpu_hour`` [$/GPU/h] may price anything: finite, at least :data:`MIN_USD_PER_GPU_HOUR`,
    at most :data:`MAX_USD_PER_GPU_HOUR` (every rate a user, a link, a file or a profile gives)."""
    return math.isfinite(usd_per_gpu_hour) and MIN_USD_PER_GPU_HOUR <= usd_per_gpu_hour <= MAX_USD_PER_GPU_HOUR


def usd_per_mtok(usd_per_gpu_hour, tokens_per_second_per_gpu):
    """Cost of one million tokens.

    Parameters
    ----------
    usd_per_gpu_hour : numeric  all-in cost of one GPU for one hour [$/GPU/h]
    tokens_per_second_per_gpu : numeric  throughput on the chosen token basis [tok/s/GPU]

    Returns
    -------
    numeric  [$/M tokens]; NaN where throughput is not positive.
    """
    tps = np.asarray(tokens_per_second_per_gpu, dtype=float)
    rate = np.asarray(usd_per_gpu_hour, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(tps > 0, rate / (3600.0 * tps / 1e6), np.nan)
    return out if out.ndim else float(out)


def tokens_per_usd(usd_per_gpu_hour, tokens_per_second_per_gpu):
    """Tokens bought by one dollar [tok/$]: ``3600 * tok/s/GPU / ($/GPU/h)``."""
    return 1e6 / np.asarray(usd_per_mtok(usd_per_gpu_hour, tokens_per_second_per_gpu))


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


def price_sets(presets: pd.DataFrame) -> list[str]:
    return sorted(presets["price_set"].astype(str).unique(), reverse=True)


def tiers(presets: pd.DataFrame, price_set: str) -> list[str]:
    return sorted(presets.loc[presets["price_set"] == price_set, "tier"].unique())


def _in_set(presets: pd.DataFrame, price_set: str, tier: str) -> np.ndarray:
    """Which rows of ``presets`` are of this price set and tier (plain arrays: a pandas comparison of the table's
    text columns costs more than the whole lookup, and every pricing makes it)."""
    return (presets["price_set"].to_numpy(dtype=object) == price_set) & \
        (presets["tier"].to_numpy(dtype=object) == tier)


def preset_rates(presets: pd.DataFrame, price_set: str = DEFAULT_PRICE_SET, tier: str = DEFAULT_TIER) -> dict[str, float]:
    """{hardware: $/GPU-hour} of one price set and tier."""
    mine = _in_set(presets, price_set, tier)
    if not mine.any():
        known = ", ".join(f"{p}/{t}" for p, t in presets[["price_set", "tier"]].drop_duplicates().itertuples(index=False))
        raise RateError(f"no preset for price set {price_set!r} and tier {tier!r}; known: {known}")
    return dict(zip(presets["hardware"].to_numpy(dtype=object)[mine],
                    presets["usd_per_gpu_hour"].to_numpy(dtype=float)[mine].tolist()))


def has_price_set(presets: pd.DataFrame, price_set: str, tier: str) -> bool:
    """True when ``presets`` hold rows for this price set and tier."""
    return bool(_in_set(presets, price_set, tier).any())


def resolve_rates(hardware: list[str] | None, presets: pd.DataFrame, price_set: str = DEFAULT_PRICE_SET,
                  tier: str = DEFAULT_TIER, overrides: dict[str, float] | None = None) -> dict[str, float]:
    """The rate rule, the one place every page and command takes $/GPU-hour from.

    A hardware's rate is its override if one is given, else the preset of ``price_set`` /
    ``tier`` (built-in presets plus ingested TCO price sets, see :func:`load_presets`).
    Names match case-insensitively (``h100`` in a file takes the ``H100`` preset); the result
    is keyed by the spelling in ``hardware`` (or, with ``hardware=None``, by every name a
    preset or override knows). An unknown price set prices only what the overrides name.
    Hardware with neither is left out; callers report it (a point without a rate has no
    $/M, it is never priced at zero).

    Parameters
    ----------
    hardware : list of str or None  names to price, as the data spells them
    presets : DataFrame  from :func:`load_presets`
    price_set, tier : str  which preset rows to use
    overrides : dict  hardware -> $/GPU-hour set by the user [$/GPU/h]; each :func:`usable_rate`

    Raises
    ------
    RateError  when an override is not a :func:`usable_rate`.
    """
    try:
        table = preset_rates(presets, price_set, tier)
    except RateError:      # no such price set and tier: only the overrides price anything
        table = {}
    names = {hw.lower(): hw for hw in table}
    rates = {hw.lower(): rate for hw, rate in table.items()}
    for hw, value in (overrides or {}).items():
        if not usable_rate(value):
            raise RateError(f"$/GPU-hour for {hw} must be in {RATE_RANGE} (got {value})")
        names.setdefault(hw.lower(), hw)
        rates[hw.lower()] = float(value)
    if hardware is None:
        return {names[key]: rate for key, rate in rates.items()}
    return {hw: rates[hw.lower()] for hw in hardware if hw.lower() in rates}
