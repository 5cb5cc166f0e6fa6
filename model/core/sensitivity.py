"""The sensitivity of an on-prem rate and energy per token: each input moved ±20 % (the tornado), the server price or electricity price at which a build-up matches a rate (solved exactly: the rate is affine in both), and joules per token."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from model.core.cost import usd_per_mtok
from model.core.fleet import finite_number, hardware_value
from model.core.tco import OnPremInputs, TcoInputError, build_up

__all__ = ["BREAK_EVEN_INPUTS", "BreakEven", "TORNADO_INPUTS", "break_even", "energy_per_token", "tornado"]


#: the inputs the tornado moves, with their labels
TORNADO_INPUTS = {"server_usd": "server price", "years": "depreciation years", "rate_pct": "cost of capital",
                  "usd_per_kwh": "electricity", "pue": "PUE", "utilization": "utilisation"}


def energy_per_token(frame: pd.DataFrame, kw_per_gpu: dict[str, float] | float | None = None,
                     pue: float = 1.0, throughput_column: str = "tokens_per_second_per_gpu") -> pd.DataFrame:
    """Tokens per MW and joules per token for every row (e.g. every frontier point).

    Parameters
    ----------
    frame : DataFrame  rows with ``hardware``, ``throughput_column`` [tok/s/GPU] and optionally
        ``power_per_gpu_w`` [W/GPU, measured]
    kw_per_gpu : {hardware: float} or float, optional  all-in IT power per GPU [kW], used where no
        power was measured (e.g. the SemiAnalysis preset's ``all_in_kw_per_gpu``)
    pue : float  facility ÷ IT power [-]; 1 counts IT power only
    throughput_column : str  the token basis to divide by

    Returns
    -------
    DataFrame  a copy adding ``power_kw_per_gpu`` [kW], ``power_from`` (``measured power_per_gpu_w``,
    ``all-in kW preset``, or missing), ``tokens_per_second_per_mw`` [tok/s per MW of power × PUE]
    and ``joules_per_token`` [J/token].
    """
    if not (pue >= 1 and math.isfinite(pue)):
        raise TcoInputError(f"pue must be a number >= 1, got {pue}")
    n = len(frame)
    measured = (pd.to_numeric(frame["power_per_gpu_w"], errors="coerce").to_numpy(dtype=float) / 1000.0
                if "power_per_gpu_w" in frame.columns else np.full(n, np.nan))
    preset = np.array([hardware_value(kw_per_gpu, hw) for hw in frame.get("hardware", pd.Series([None] * n))], dtype=float)
    has_measured = np.isfinite(measured) & (measured > 0)
    kw = np.where(has_measured, measured, preset)
    source = np.where(has_measured, "measured power_per_gpu_w",
                      np.where(np.isfinite(preset), "all-in kW preset", None))
    tps = pd.to_numeric(frame[throughput_column], errors="coerce").to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        per_mw = np.where((tps > 0) & (kw > 0), tps / (kw * pue / 1000.0), np.nan)
        joules = np.where((tps > 0) & (kw > 0), kw * pue * 1000.0 / tps, np.nan)
    return frame.assign(power_kw_per_gpu=kw, power_from=pd.array(source, dtype="string"),
                        tokens_per_second_per_mw=per_mw, joules_per_token=joules)


_BOUNDS = {"pue": (1.0, 5.0), "utilization": (1e-9, 1.0), "years": (1e-9, 50.0), "rate_pct": (0.0, 99.999)}


def tornado(inputs: OnPremInputs, tokens_per_second_per_gpu: float | None = None, swing: float = 0.2,
            names=tuple(TORNADO_INPUTS)) -> pd.DataFrame:
    """How the effective $/GPU-hour (and $/M tokens) moves when each input moves by ±``swing``.

    Parameters
    ----------
    inputs : OnPremInputs  a priced build-up (a server price is needed)
    tokens_per_second_per_gpu : float, optional  throughput at the chosen interactivity [tok/s/GPU],
        e.g. from :func:`tokens_per_second_at`; adds the $/M columns
    swing : float  relative move [fraction], 0.2 = ±20 %
    names : iterable of str  inputs to move, from :data:`TORNADO_INPUTS`

    Returns
    -------
    DataFrame, one row per input, widest first: ``input``, ``label``, ``base_value``, ``low_value``,
    ``high_value``, ``usd_per_gpu_hour_base``, ``usd_per_gpu_hour_low`` / ``_high`` (at the low /
    high input value), ``usd_per_mtok_base`` / ``_low`` / ``_high``, ``spread`` [$/GPU-hour] and
    ``note`` (a move clipped to the valid range, or an input at zero that cannot move).
    """
    if not (0 < swing < 1):
        raise TcoInputError(f"swing must be a fraction in (0, 1), got {swing}")
    base = build_up(inputs)
    if not base.priced:
        raise TcoInputError("the sensitivity needs a priced build-up: give a server price")
    tps = finite_number(tokens_per_second_per_gpu)
    rows = []
    for name in names:
        if name not in TORNADO_INPUTS:
            raise TcoInputError(f"unknown tornado input {name!r}; choose from {', '.join(TORNADO_INPUTS)}")
        value = float(getattr(inputs, name))
        lo_bound, hi_bound = _BOUNDS.get(name, (0.0, math.inf))
        low, high = max(value * (1 - swing), lo_bound), min(value * (1 + swing), hi_bound)
        notes = []
        if low != value * (1 - swing) or high != value * (1 + swing):
            notes.append(f"clipped to [{lo_bound:g}, {hi_bound:g}]")
        if value == 0:
            notes.append("zero: a relative move leaves it at zero")
        rates = [build_up(inputs.model_copy(update={name: v})).usd_per_gpu_hour for v in (low, high)]
        rows.append({"input": name, "label": TORNADO_INPUTS[name], "base_value": value, "low_value": low,
                     "high_value": high, "usd_per_gpu_hour_base": base.usd_per_gpu_hour,
                     "usd_per_gpu_hour_low": rates[0], "usd_per_gpu_hour_high": rates[1],
                     "usd_per_mtok_base": float(usd_per_mtok(base.usd_per_gpu_hour, tps)),
                     "usd_per_mtok_low": float(usd_per_mtok(rates[0], tps)),
                     "usd_per_mtok_high": float(usd_per_mtok(rates[1], tps)),
                     "spread": abs(rates[1] - rates[0]), "note": "; ".join(notes)})
    out = pd.DataFrame(rows)
    return out.sort_values("spread", ascending=False, kind="stable").reset_index(drop=True) if rows else out


#: inputs :func:`break_even` can solve for
BREAK_EVEN_INPUTS = ("server_usd", "usd_per_kwh")


@dataclass(frozen=True)
class BreakEven:
    """The value of ``solve_for`` at which the on-prem effective rate equals ``target_usd_per_gpu_hour``.

    ``value`` is NaN when no non-negative value does it; ``note`` says why.
    """

    solve_for: str
    value: float
    target_usd_per_gpu_hour: float
    note: str = ""


def break_even(inputs: OnPremInputs, target_usd_per_gpu_hour: float, solve_for: str = "server_usd") -> BreakEven:
    """Server price [$ per node] or electricity [$/kWh] at which an on-prem profile costs the target rate.

    The effective $/GPU-hour is linear (affine) in either input, so two evaluations give the exact
    answer: ``x* = x0 + (target − f(x0)) / slope``.

    Parameters
    ----------
    inputs : OnPremInputs  the other inputs held as they are (the server price must be set to solve
        for electricity)
    target_usd_per_gpu_hour : float  the rate to match, e.g. a cloud profile's [$/GPU-hour]
    solve_for : str  ``"server_usd"`` or ``"usd_per_kwh"``
    """
    if solve_for not in BREAK_EVEN_INPUTS:
        raise TcoInputError(f"break-even solves for one of {', '.join(BREAK_EVEN_INPUTS)}, not {solve_for!r}")
    target = finite_number(target_usd_per_gpu_hour)
    if not target > 0:
        raise TcoInputError(f"the target $/GPU-hour must be a positive number, got {target_usd_per_gpu_hour}")
    if solve_for == "usd_per_kwh" and inputs.server_usd is None:
        raise TcoInputError("solving for electricity needs a server price")
    x0, x1 = (1.0, 100_001.0) if solve_for == "server_usd" else (0.0, 1.0)
    f0, f1 = (build_up(inputs.model_copy(update={solve_for: x})).usd_per_gpu_hour for x in (x0, x1))
    slope = (f1 - f0) / (x1 - x0)
    if slope <= 0:
        why = ("the colocation price includes power, so electricity does not move the rate"
               if inputs.colo_includes_power else f"{solve_for} does not move the rate")
        return BreakEven(solve_for, math.nan, target, why)
    value = x0 + (target - f0) / slope
    if value < 0:
        what = "a free server" if solve_for == "server_usd" else "free electricity"
        return BreakEven(solve_for, math.nan, target,
                         f"even with {what} the on-prem rate is above ${target:.4g}/GPU-hour")
    return BreakEven(solve_for, float(value), target)
