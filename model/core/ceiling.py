"""A load ceiling read from a sweep, shown so it can be checked: the measured points that bracket it, the
interpolation used and the crossing. Pure functions (numpy, pandas); no I/O.

**A ramp's knee** (:func:`model.core.capacity.knee`) is the highest measured request rate that meets the SLA below
the first that breaks it. :func:`knee_bracket` names the two measured rates around the ceiling (the knee, and the
first failing rate above it), the value of the binding limit at each (the first limit the failing rate breaks), and
where that limit is crossed between them by linear interpolation in the request rate: the capacity is read at the
measured knee (no interpolation); the crossing says how much more the next measurement might have held. With no
failing rate above, the ceiling is not bracketed: "at least" the highest measured rate.

**A sweep's capacity** (:func:`model.core.node_capacity.node_capacity`) is the best measured point that meets the
SLA and reaches the interactivity you need. :func:`sweep_bracket` names it and the point of the series with the next
higher throughput, which the limits left out (and why), and where the straight line between them reaches the
interactivity you need (the crossing, again not used: the capacity is the measured point).

**Contradicted by its own sweep** (:func:`steady_state`): a point cannot deliver more tokens per second than its
own load lets it: a ramp's request rate times the tokens a request carries (on the throughput's basis), a sweep's
concurrent users times their own pace (interactivity, tokens per second per user). A stated throughput above that
by more than :data:`TOLERANCE` (a published peak read from a saturated or draining stage) is named, and the
capacity built on it is flagged; its numbers are shown as stated, never silently replaced.
"""

from __future__ import annotations

import math

import pandas as pd

__all__ = ["TOLERANCE", "knee_bracket", "sweep_bracket", "steady_state"]

#: how far a stated throughput may exceed what its own load allows (mean lengths vary from the configured ones)
TOLERANCE = 0.05


def _num(value) -> float:
    try:
        out = float(value)
    except (TypeError, ValueError):
        return math.nan
    return out if math.isfinite(out) else math.nan


def _g(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}"


def _limit_text(column: str, value: float) -> str:
    unit = {"tpot_median_ms": " ms", "interactivity": " tok/s/user", "success_rate": ""}.get(
        column, " s" if column.endswith("_s") else "")
    return f"{column} {_g(value)}{unit}" if math.isfinite(value) else f"{column} missing"


def knee_bracket(part: pd.DataFrame, knee_rate: float, failing_rate: float, limits: list) -> dict:
    """The measured rates around a ramp's ceiling (``part``: one series' ramp rows with ``request_rate_rps``,
    ``meets_sla``, ``sla_failure`` and the limits' columns; ``limits``: :meth:`model.core.sla.SLA.limits`):
    ``bracket_low``, ``bracket_high`` [req/s], ``binding`` (the limit's column), ``crossing_rate`` [req/s] and
    ``bracket_text``."""
    out = {"bracket_low": knee_rate, "bracket_high": failing_rate, "binding": None, "crossing_rate": math.nan}
    if not math.isfinite(knee_rate):
        out["bracket_text"] = (f"no measured rate meets the SLA (the lowest, {_g(failing_rate)} req/s, breaks it)"
                               if math.isfinite(failing_rate) else "no measured rate")
        return out
    at_low = part[part["request_rate_rps"] == knee_rate]
    if not math.isfinite(failing_rate):
        values = "; ".join(_limit_text(c, _num(at_low[c].max())) for _, c, _, _ in limits if c in at_low)
        out["bracket_text"] = (f"not bracketed: the highest measured rate, {_g(knee_rate)} req/s, meets the SLA"
                               + (f" ({values})" if values else "") + ", and none was measured above it: the "
                               "ceiling is at least that, read there (no interpolation)")
        return out
    at_high = part[part["request_rate_rps"] == failing_rate]
    reason = str(at_high["sla_failure"].iloc[0]) if "sla_failure" in at_high else ""
    binding = next(((c, op, v) for _, c, op, v in limits if reason.startswith(c) or f"; {c}" in reason), None)
    text = f"between the measured {_g(knee_rate)} req/s (meets the SLA) and {_g(failing_rate)} req/s ({reason})"
    if binding is not None:
        column, op, limit = binding
        low, high = _num(at_low[column].max() if op == "<=" else at_low[column].min()), \
            _num(at_high[column].max() if op == "<=" else at_high[column].min())
        out["binding"] = column
        if math.isfinite(low) and math.isfinite(high) and high != low:
            share = (limit - low) / (high - low)
            if 0 <= share <= 1:
                out["crossing_rate"] = knee_rate + share * (failing_rate - knee_rate)
        text = (f"between the measured {_g(knee_rate)} req/s ({_limit_text(column, low)}, meets {op} {_g(limit)}) "
                f"and {_g(failing_rate)} req/s ({_limit_text(column, high)})")
        if math.isfinite(out["crossing_rate"]):
            text += f"; linear in the rate, {column} reaches {_g(limit)} at {_g(out['crossing_rate'])} req/s"
    out["bracket_text"] = text + f"; the capacity reads the measured {_g(knee_rate)} req/s (no interpolation)"
    return out


def sweep_bracket(part: pd.DataFrame, chosen, kept_index, tps: pd.Series, x: float | None) -> dict:
    """The measured points around a sweep's capacity (``part``: one series' sweep rows with ``interactivity``;
    ``chosen``: the index of the point read; ``kept_index``: the rows meeting the limits; ``tps``: tok/s/GPU by
    index): ``bracket_text`` and ``crossing_tps`` [tok/s/GPU] (NaN: none)."""
    chosen_tps = _num(tps.get(chosen))
    chosen_x = _num(part.at[chosen, "interactivity"])
    higher = part[[(_num(tps.get(i)) > chosen_tps) for i in part.index]]
    out = {"crossing_tps": math.nan}
    if higher.empty:
        out["bracket_text"] = (f"not bracketed: {_g(chosen_tps)} tok/s/GPU at {_g(chosen_x)} tok/s/user is the "
                               "series' highest measured throughput (read there, no interpolation)")
        return out
    above = higher.loc[min(higher.index, key=lambda i: _num(tps.get(i)))]
    above_tps, above_x = _num(tps.get(above.name)), _num(above["interactivity"])
    why = "below the interactivity you need" if x is not None and above_x < x else "breaks the SLA"
    if above.name in set(kept_index) and not (x is not None and above_x < x):
        why = "left out"
    text = (f"between the measured {_g(chosen_tps)} tok/s/GPU at {_g(chosen_x)} tok/s/user (read) and the next "
            f"higher, {_g(above_tps)} tok/s/GPU at {_g(above_x)} tok/s/user ({why})")
    if x is not None and math.isfinite(above_x) and above_x < x <= chosen_x and chosen_x != above_x:
        share = (chosen_x - x) / (chosen_x - above_x)
        out["crossing_tps"] = chosen_tps + share * (above_tps - chosen_tps)
        text += f"; linear between them, {_g(x)} tok/s/user is reached at {_g(out['crossing_tps'])} tok/s/GPU"
    out["bracket_text"] = text + "; the capacity reads the measured point (no interpolation)"
    return out


def steady_state(row, basis: str, rate_rps: float | None = None) -> str | None:
    """Why ``row``'s stated throughput contradicts its own load (None when it does not, or cannot be checked): a
    ramp row's system tok/s on ``basis`` above ``rate × tokens per request``, or a sweep row's above ``concurrency ×
    interactivity`` (output tokens), by more than :data:`TOLERANCE`."""
    gpus = _num(row.get("gpus"))
    per_gpu = _num(row.get(f"{basis}_tokens_per_second_per_gpu")) if basis in ("total", "output", "input") \
        else math.nan
    system = per_gpu * gpus if math.isfinite(gpus) and gpus > 0 else math.nan
    isl, osl = _num(row.get("isl")), _num(row.get("osl"))
    rate = _num(rate_rps if rate_rps is not None else row.get("request_rate_rps"))
    if math.isfinite(rate) and math.isfinite(system):
        per_request = {"output": osl, "input": isl, "total": isl + osl}.get(basis, math.nan)
        most = rate * per_request
        if math.isfinite(most) and most > 0 and system > most * (1 + TOLERANCE):
            return (f"its own sweep contradicts its throughput: at {_g(rate)} req/s and {_g(per_request)} {basis} tokens a "
                    f"request, {_g(most)} {basis} tok/s at most are served in steady state, and the row states "
                    f"{_g(system)} (+{system / most - 1:.0%}): a saturated or draining stage, not a sustained load")
        return None
    users, pace = _num(row.get("concurrency")), _num(row.get("interactivity"))
    output = _num(row.get("output_tokens_per_second_per_gpu")) * gpus if math.isfinite(gpus) else math.nan
    if math.isfinite(users) and math.isfinite(pace) and math.isfinite(output) and users * pace > 0 \
            and output > users * pace * (1 + TOLERANCE):
        most = users * pace
        return (f"its own sweep contradicts its throughput: {_g(users)} concurrent users at {_g(pace)} tok/s/user receive "
                f"{_g(most)} output tok/s at most, and the row states {_g(output)} (+{output / most - 1:.0%})")
    return None
