"""Fleet sizing both ways, energy per token, and the sensitivity of an on-prem rate.

Pure functions over pandas frames (numpy, pandas, pydantic; no I/O, no Streamlit).

*Capacity of one node* (:func:`node_capacity`): for a load ramp, the knee under the SLA
(:func:`model.core.capacity.knee`), scaled from the GPUs it ran on to a node:
``per_node_rps = knee req/s × gpus_per_node / gpus``. For a concurrency sweep, the point with the
highest throughput per GPU among those meeting the SLA and the interactivity target:
``per_node_rps = tok/s/GPU × gpus_per_node / tokens per request`` (ISL+OSL for total tokens, OSL
for output, ISL for input). Each row says which measured point it came from.

*Demand to fleet* (:func:`size_for_demand`): the peak and mean load of the demand (:func:`model.core.demand.load_of`),
``nodes = ceil(peak req/s × headroom / per_node_rps) + spares``; ``gpus = nodes × gpus_per_node``; ``kw = gpus ×
kW/GPU`` (IT power; ``facility_kw`` × PUE); ``racks = ceil(kw / rack_kw)``; ``usd_per_month = gpus × $/GPU-hour ×
730`` (every hour of every GPU is paid for, so an on-prem profile's full-use rate applies, see
:meth:`model.core.cost_profiles.CostProfile.paid_rate`). Autoscaled, the same rate pays the node-hours of the
nodes following the load (:func:`model.core.demand.follow`, :func:`fleet_over_time`).

*Budget to capacity* (:func:`size_for_budget`): a power budget [MW of facility power] buys
``floor(MW × 1000 / (kW/GPU × PUE))`` GPUs, a money budget ``floor($/month / ($/GPU-hour × 730))``,
both rounded down to whole nodes; then req/s, tokens/s and tokens per month (× 730 × 3600) at the
measured capacity, and concurrent users (``concurrency × gpus_per_node / gpus`` of the point, per node).

*Energy* (:func:`energy_per_token`): ``tokens_per_second_per_mw = tok/s/GPU / (kW/GPU × PUE / 1000)``
and ``joules_per_token = kW/GPU × PUE × 1000 / tok/s/GPU``, with measured ``power_per_gpu_w`` where
the row has it, else the all-in kW preset (column ``power_from`` says which).

*Sensitivity* (:func:`tornado`, :func:`break_even`): each input moved ±20 % (clipped to its valid
range, and said so), and the server price or electricity price at which an on-prem profile costs
what a cloud profile does (the effective rate is linear in both, so it is solved exactly).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from model.core.capacity import DEFAULT_GPUS_PER_NODE, gpus_per_node_of, knee, throughput_on_basis
from model.core.demand import TOKEN_BASES, Demand, demand, finite_number, follow, load_of, tokens_per_request
from model.core.frontier import DEFAULT_SERIES_KEYS, series_labels
from model.core.schema import MIN_TOKENS_PER_SECOND_PER_GPU
from model.core.sla import SLA, split_by_sla
from model.core.tco import HOURS_PER_MONTH, HOURS_PER_YEAR, TcoInputError

__all__ = [
    "TOKEN_BASES",
    "Demand",
    "demand",
    "node_capacity",
    "size_for_demand",
    "size_for_budget",
    "fleet_over_time",
    "tokens_per_second_at",
    "preset_kw_per_gpu",
    "finite_number",
    "hardware_value",
    "MAX_NODES",
]

#: the most nodes sizing counts: a fleet past it is not an answer (a throughput near zero, stored before ingest
#: refused those, would otherwise ask for 10^300 nodes or overflow)
MAX_NODES = 1e12

def _where(row) -> str:
    file, line = row.get("source_file"), finite_number(row.get("source_line"))
    if not file:
        return ""
    return f", {file}" + (f" line {int(line)}" if math.isfinite(line) else "")


_CAPACITY_COLUMNS = ["series", "hardware", "method", "status", "per_node_rps", "tokens_per_second_per_node",
                     "tokens_per_second_per_gpu", "basis", "gpus_per_node", "users_per_node", "interactivity",
                     "isl", "osl", "capacity_from", "source_file", "source_line"]


def node_capacity(points: pd.DataFrame, sla: SLA | None = None, keys=DEFAULT_SERIES_KEYS, basis: str = "auto",
                  rule: str = "first_failure", gpus_per_node: int | dict[str, int] | None = None,
                  interactivity_min: float | None = None) -> pd.DataFrame:
    """What one node of each series carries under the SLA, and which measured point says so.

    Parameters
    ----------
    points : DataFrame  benchmark points; ramps (request rate, no interactivity) use the knee, sweeps
        (interactivity) the best point meeting the SLA and ``interactivity_min``
    sla : SLA, optional  latency limits (:class:`model.core.sla.SLA`)
    keys : sequence of str  series keys
    basis : str  token basis, ``auto`` = total, else output, else input (the ``basis`` column says which)
    rule : str  knee rule (:data:`model.core.capacity.KNEE_RULES`)
    gpus_per_node : int or {hardware: int}, optional  [GPUs/node], default 8
    interactivity_min : float, optional  sweeps: target [tok/s/user] a point must reach

    Returns
    -------
    DataFrame, one row per series: ``method`` (``ramp knee`` / ``frontier point``), ``per_node_rps``
    [req/s/node], ``tokens_per_second_per_node`` [tok/s/node], ``tokens_per_second_per_gpu``,
    ``basis``, ``gpus_per_node``, ``users_per_node`` [concurrent users; sweeps], ``interactivity``
    [tok/s/user], ``isl``, ``osl``, ``capacity_from`` (text naming the point), ``status`` and the
    point's source. ``per_node_rps`` is NaN where no measured point meets the limits.
    """
    sla = sla or SLA()
    rows: list[dict] = []
    ramps = knee(points, sla, None, basis=basis, keys=keys, rule=rule, gpus_per_node=gpus_per_node)
    by_series = {}
    if not ramps.empty:
        labelled = points.assign(series=series_labels(points, keys))
        by_series = {s: part for s, part in labelled.groupby("series", sort=False)}
    for k in ramps.to_dict("records"):
        gpn = finite_number(k.get("gpus_per_node"))
        gpn = gpn if math.isfinite(gpn) else float(DEFAULT_GPUS_PER_NODE)
        gpus = finite_number(k.get("gpus"))
        rate = finite_number(k.get("request_rate"))
        scale = gpn / gpus if math.isfinite(gpus) and gpus > 0 else 1.0
        part = by_series.get(k["series"], pd.DataFrame())
        isl = part["isl"].dropna().iloc[0] if "isl" in part and part["isl"].notna().any() else None
        osl = part["osl"].dropna().iloc[0] if "osl" in part and part["osl"].notna().any() else None
        text = ""
        if math.isfinite(rate):
            text = (f"ramp knee: {rate:g} req/s on {gpus if math.isfinite(gpus) else gpn:g} GPUs"
                    f" ({sla.describe()}; TTFT {sla.ttft_percentile} {finite_number(k.get('ttft_s')):.3g} s){_where(k)}")
            if str(k.get("status", "")).startswith("ok:"):
                text += "; no measured rate breaks the SLA, so capacity may be higher"
        rows.append({"series": k["series"], "hardware": k.get("hardware"), "method": "ramp knee",
                     "status": k.get("status"), "per_node_rps": rate * scale,
                     "tokens_per_second_per_node": finite_number(k.get("tokens_per_second_per_node")),
                     "tokens_per_second_per_gpu": finite_number(k.get("tokens_per_second_per_gpu")),
                     "basis": k.get("basis"), "gpus_per_node": gpn, "users_per_node": math.nan,
                     "interactivity": math.nan, "isl": finite_number(isl), "osl": finite_number(osl),
                     "capacity_from": text or f"no capacity: {k.get('status')} ({k.get('first_failure') or 'no rows'})",
                     "source_file": k.get("source_file"), "source_line": finite_number(k.get("source_line"))})
    sweep = points
    if not sweep.empty and "interactivity" in sweep.columns:
        sweep = sweep[pd.to_numeric(sweep["interactivity"], errors="coerce").notna()]
    else:
        sweep = points.iloc[0:0]
    if not sweep.empty:
        labels = series_labels(sweep, keys)
        kept, _ = split_by_sla(sweep.assign(series=labels), sla)
        per_gpu, names = throughput_on_basis(sweep, basis)
        values = pd.DataFrame({"tps": per_gpu, "basis": names}, index=sweep.index)
        gpn_all = pd.Series(gpus_per_node_of(sweep, gpus_per_node), index=sweep.index)
        for series, part in sweep.assign(series=labels).groupby("series", sort=True):
            ok = part.loc[part.index.isin(kept.index)]
            if interactivity_min is not None:
                ok = ok[pd.to_numeric(ok["interactivity"], errors="coerce") >= interactivity_min]
            tps_ok = values.loc[ok.index, "tps"].to_numpy(dtype=float)
            tiny = bool(len(ok)) and not (tps_ok >= MIN_TOKENS_PER_SECOND_PER_GPU).any()
            ok = ok[np.isfinite(tps_ok) & (tps_ok >= MIN_TOKENS_PER_SECOND_PER_GPU)]
            first = part.iloc[0]
            base = {"series": series, "hardware": first.get("hardware"), "method": "frontier point",
                    "isl": finite_number(first.get("isl")), "osl": finite_number(first.get("osl"))}
            if ok.empty:
                limits = sla.describe() + (f", interactivity >= {interactivity_min:g}" if interactivity_min else "")
                limits += f" with {MIN_TOKENS_PER_SECOND_PER_GPU:g} tok/s/GPU or more" if tiny else ""
                rows.append({**base, "status": "no measured point meets the limits", "per_node_rps": math.nan,
                             "capacity_from": f"no capacity: no point meets {limits}"})
                continue
            best = values.loc[ok.index, "tps"].astype(float).idxmax()
            row = ok.loc[best]
            tps, used = float(values.at[best, "tps"]), str(values.at[best, "basis"])
            gpn = float(gpn_all.at[best])
            per_request = tokens_per_request(row.get("isl"), row.get("osl"), used)
            gpus, conc = finite_number(row.get("gpus")), finite_number(row.get("concurrency"))
            users = conc * gpn / gpus if math.isfinite(gpus) and gpus > 0 else math.nan
            rows.append({**base, "status": "ok", "per_node_rps": tps * gpn / per_request,
                         "tokens_per_second_per_node": tps * gpn, "tokens_per_second_per_gpu": tps, "basis": used,
                         "gpus_per_node": gpn, "users_per_node": users,
                         "interactivity": finite_number(row.get("interactivity")), "isl": finite_number(row.get("isl")),
                         "osl": finite_number(row.get("osl")),
                         "capacity_from": (f"frontier point: {tps:.4g} {used} tok/s/GPU at "
                                           f"{finite_number(row.get('interactivity')):.3g} tok/s/user, concurrency "
                                           f"{conc:g} on {gpus:g} GPUs{_where(row)}"),
                         "source_file": row.get("source_file"), "source_line": finite_number(row.get("source_line"))})
    out = pd.DataFrame(rows, columns=_CAPACITY_COLUMNS)
    for column in ("per_node_rps", "tokens_per_second_per_node", "tokens_per_second_per_gpu", "gpus_per_node",
                   "users_per_node", "interactivity", "isl", "osl", "source_line"):
        out[column] = pd.to_numeric(out[column], errors="coerce").astype(float)
    tiny = out["tokens_per_second_per_gpu"] < MIN_TOKENS_PER_SECOND_PER_GPU   # a ramp knee stored before the floor
    if tiny.any():
        out.loc[tiny, ["per_node_rps", "tokens_per_second_per_node"]] = math.nan
        out.loc[tiny, "capacity_from"] = f"no capacity: under {MIN_TOKENS_PER_SECOND_PER_GPU:g} tok/s/GPU measured"
    return out


def _whole_nodes(value: float) -> int:
    """Whole nodes a budget buys (rounded down, floating noise below 1e-9 ignored), at most :data:`MAX_NODES`."""
    return math.floor(round(min(value, MAX_NODES), 9)) if value == value else 0


def _ceil(value: float) -> int:
    """Round up, ignoring floating noise below 1e-9 (4.8 / 2.4 is 2 nodes, not 3)."""
    return int(math.ceil(round(value, 9)))


def hardware_value(mapping, hardware, default=math.nan) -> float:
    if isinstance(mapping, dict):
        return finite_number(mapping.get(hardware, default))
    return finite_number(mapping) if mapping is not None else default


_SIZE_COLUMNS = ["series", "hardware", "per_node_rps", "demand_rps", "mean_rps", "tokens_per_month", "nodes_needed",
                 "nodes", "spares", "gpus", "gpus_per_node", "kw", "facility_kw", "racks", "usd_per_gpu_hour",
                 "usd_per_month", "usd_per_year", "effective_usd_per_mtok", "utilization", "mean_nodes", "node_hours",
                 "usd_per_month_autoscaled", "effective_usd_per_mtok_autoscaled", "utilization_autoscaled",
                 "capacity_from", "note"]
_TEXT = ("series", "hardware", "capacity_from", "note")


def size_for_demand(capacity: pd.DataFrame, need: Demand, usd_per_gpu_hour: dict[str, float] | None = None,
                    kw_per_gpu: dict[str, float] | float | None = None, pue: dict[str, float] | float = 1.0,
                    rack_kw: float | None = None) -> pd.DataFrame:
    """Nodes, GPUs, racks, kW and $/month to serve ``need`` with every series of ``capacity``, bought for the
    peak (owned, reserved) and following the load (on demand, autoscaled: :func:`model.core.demand.follow`).

    Parameters
    ----------
    capacity : DataFrame  :func:`node_capacity` output
    need : Demand  peak and/or volume with a shape, headroom, spares, minimum and step
    usd_per_gpu_hour : {hardware: float}, optional  the rate paid for every GPU-hour [$/GPU/h]
        (a preset, a cloud quote, an on-prem profile's full-use rate); missing = unpriced
    kw_per_gpu : {hardware: float} or float, optional  all-in IT power per GPU [kW]
    pue : {hardware: float} or float  facility power ÷ IT power [-] for ``facility_kw``
    rack_kw : float, optional  IT power one rack takes [kW/rack]; ``racks`` is NaN without it

    Returns
    -------
    DataFrame (:data:`_SIZE_COLUMNS`): ``demand_rps`` [req/s, peak], ``mean_rps``, ``tokens_per_month``,
    ``nodes_needed`` (before rounding and spares), ``nodes`` (the peak's), ``gpus``, ``kw`` [kW IT],
    ``facility_kw`` [kW], ``racks``, ``usd_per_month`` (730 h) and ``usd_per_year`` (8760 h) [$],
    ``effective_usd_per_mtok`` and ``utilization`` (mean load ÷ capacity bought); autoscaled: ``mean_nodes``,
    ``node_hours`` [a month], ``usd_per_month_autoscaled``, its effective $/M and utilisation;
    ``capacity_from`` and a ``note``.
    """
    if rack_kw is not None and not (rack_kw > 0 and math.isfinite(rack_kw)):
        raise TcoInputError(f"rack_kw (IT power per rack [kW]) must be a positive number, got {rack_kw}")
    rows = []
    for c in capacity.to_dict("records"):
        hw = c.get("hardware")
        per_node = finite_number(c.get("per_node_rps"))
        gpn = finite_number(c.get("gpus_per_node"))
        gpn = gpn if math.isfinite(gpn) else float(DEFAULT_GPUS_PER_NODE)
        row = {k: c.get(k) for k in ("series", "hardware", "capacity_from")}
        row.update(per_node_rps=per_node, gpus_per_node=gpn, spares=need.spares)
        load = load_of(need, tokens_per_request(c.get("isl"), c.get("osl"), need.token_basis))
        peak = load.peak_rps
        row.update(demand_rps=peak, mean_rps=load.mean_rps, tokens_per_month=load.tokens_per_month)
        notes = []
        needed = peak * need.headroom / per_node if per_node > 0 else math.nan
        if not (per_node > 0):
            notes.append("no capacity under these limits")
        elif not math.isfinite(peak):
            notes.append("ISL/OSL unknown: tokens cannot become requests per second")
        elif not needed <= MAX_NODES:
            notes.append(f"more than {MAX_NODES:,.0f} nodes: the measured capacity ({per_node:.3g} req/s a node) "
                         "is too small to size this demand from")
        else:
            nodes = _ceil(needed) + need.spares
            gpus = nodes * gpn
            kw = gpus * hardware_value(kw_per_gpu, hw)
            rate = hardware_value(usd_per_gpu_hour or {}, hw)
            month = gpus * rate * HOURS_PER_MONTH
            auto = follow(load.rates or (load.mean_rps,), per_node, need.headroom, need.spares, need.min_nodes,
                          need.step, nodes)
            mean_nodes = float(auto.mean())
            per_m = load.tokens_per_month / 1e6
            row.update(nodes_needed=needed, nodes=nodes, gpus=gpus, kw=kw, facility_kw=kw * hardware_value(pue, hw, 1.0),
                       racks=_ceil(kw / rack_kw) if rack_kw and math.isfinite(kw) else math.nan,
                       usd_per_gpu_hour=rate, usd_per_month=month, usd_per_year=gpus * rate * HOURS_PER_YEAR,
                       effective_usd_per_mtok=month / per_m, utilization=load.mean_rps / (nodes * per_node),
                       mean_nodes=mean_nodes, node_hours=mean_nodes * HOURS_PER_MONTH,
                       usd_per_month_autoscaled=mean_nodes * gpn * rate * HOURS_PER_MONTH,
                       effective_usd_per_mtok_autoscaled=mean_nodes * gpn * rate * HOURS_PER_MONTH / per_m,
                       utilization_autoscaled=load.mean_rps / (mean_nodes * per_node) if mean_nodes else math.nan)
            if not math.isfinite(rate):
                notes.append(f"no $/GPU-hour for {hw}: unpriced")
            if not math.isfinite(kw):
                notes.append(f"no kW per GPU for {hw}")
        row["note"] = "; ".join(notes)
        rows.append(row)
    out = pd.DataFrame(rows, columns=_SIZE_COLUMNS)
    for column in _SIZE_COLUMNS:
        if column not in _TEXT:
            out[column] = pd.to_numeric(out[column], errors="coerce")
    return out


def fleet_over_time(capacity: pd.DataFrame, need: Demand) -> pd.DataFrame:
    """Per series and interval of the shape: the hour it starts ``t_h``, the load ``demand_rps`` [req/s], the
    nodes bought for the peak and those following the load, and the req/s each carries at the headroom
    (``capacity_rps``, ``capacity_autoscaled_rps``). Empty with no curve (a factor alone) or no capacity."""
    frames = []
    for c in capacity.to_dict("records"):
        per_node = finite_number(c.get("per_node_rps"))
        load = load_of(need, tokens_per_request(c.get("isl"), c.get("osl"), need.token_basis))
        if not (per_node > 0) or not load.rates or not math.isfinite(load.peak_rps):
            continue
        peak_nodes = _ceil(load.peak_rps * need.headroom / per_node) + need.spares
        if not peak_nodes <= MAX_NODES:
            continue
        auto = follow(load.rates, per_node, need.headroom, need.spares, need.min_nodes, need.step, peak_nodes)
        n = len(load.rates)
        frames.append(pd.DataFrame({
            "series": c.get("series"), "t_h": np.arange(n) * load.interval_s / 3600, "demand_rps": load.rates,
            "nodes": float(peak_nodes), "nodes_autoscaled": auto,
            "capacity_rps": peak_nodes * per_node, "capacity_autoscaled_rps": auto * per_node}))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=["series", "t_h", "demand_rps", "nodes", "nodes_autoscaled", "capacity_rps", "capacity_autoscaled_rps"])


_BUDGET_COLUMNS = ["series", "hardware", "limit", "nodes", "gpus", "gpus_per_node", "kw", "facility_kw",
                   "usd_per_gpu_hour", "usd_per_month", "requests_per_second", "tokens_per_second", "basis",
                   "tokens_per_month", "users", "interactivity", "capacity_from", "note"]


def size_for_budget(capacity: pd.DataFrame, budget_mw: float | None = None, budget_usd_per_month: float | None = None,
                    usd_per_gpu_hour: dict[str, float] | None = None, kw_per_gpu: dict[str, float] | float | None = None,
                    pue: dict[str, float] | float = 1.0) -> pd.DataFrame:
    """What a power or money budget buys with every series of ``capacity``: GPUs, nodes, tokens, users.

    Parameters
    ----------
    capacity : DataFrame  :func:`node_capacity` output
    budget_mw : float, optional  facility power [MW] (IT kW × PUE must fit in it)
    budget_usd_per_month : float, optional  [$/month] at ``usd_per_gpu_hour`` × 730 h per GPU
    usd_per_gpu_hour : {hardware: float}, optional  paid rate [$/GPU/h]
    kw_per_gpu : {hardware: float} or float, optional  all-in IT power per GPU [kW]
    pue : {hardware: float} or float  [-]

    Returns
    -------
    DataFrame (:data:`_BUDGET_COLUMNS`): ``limit`` (which budget binds), whole ``nodes`` and ``gpus``,
    ``kw``, ``facility_kw``, ``usd_per_month``, ``requests_per_second``, ``tokens_per_second`` and
    ``tokens_per_month`` [on ``basis``], ``users`` (concurrent, at the point's ``interactivity``;
    sweeps only). Both budgets given: the smaller fleet.
    """
    for name, value in (("budget_mw", budget_mw), ("budget_usd_per_month", budget_usd_per_month)):
        if value is not None and not (value > 0 and math.isfinite(value)):
            raise TcoInputError(f"{name} must be a positive number, got {value}")
    if budget_mw is None and budget_usd_per_month is None:
        raise TcoInputError("give a power budget [MW] or a monthly budget [$], or both")
    rows = []
    for c in capacity.to_dict("records"):
        hw = c.get("hardware")
        gpn = finite_number(c.get("gpus_per_node"))
        gpn = gpn if math.isfinite(gpn) else float(DEFAULT_GPUS_PER_NODE)
        kw_gpu, p, rate = hardware_value(kw_per_gpu, hw), hardware_value(pue, hw, 1.0), hardware_value(usd_per_gpu_hour or {}, hw)
        limits, notes = {}, []
        if budget_mw is not None:
            if math.isfinite(kw_gpu):
                limits["power"] = _whole_nodes(budget_mw * 1000 / (kw_gpu * p) / gpn)
            else:
                notes.append(f"no kW per GPU for {hw}")
        if budget_usd_per_month is not None:
            if math.isfinite(rate):
                limits["money"] = _whole_nodes(budget_usd_per_month / (rate * HOURS_PER_MONTH * gpn))
            else:
                notes.append(f"no $/GPU-hour for {hw}: unpriced")
        row = {"series": c.get("series"), "hardware": hw, "gpus_per_node": gpn, "basis": c.get("basis"),
               "interactivity": finite_number(c.get("interactivity")), "capacity_from": c.get("capacity_from"),
               "usd_per_gpu_hour": rate}
        if limits:
            limit = min(limits, key=limits.get)
            nodes = limits[limit]
            gpus = nodes * gpn
            row.update(limit=limit, nodes=nodes, gpus=gpus, kw=gpus * kw_gpu, facility_kw=gpus * kw_gpu * p,
                       usd_per_month=gpus * rate * HOURS_PER_MONTH,
                       requests_per_second=nodes * finite_number(c.get("per_node_rps")),
                       tokens_per_second=nodes * finite_number(c.get("tokens_per_second_per_node")),
                       users=nodes * finite_number(c.get("users_per_node")))
            row["tokens_per_month"] = row["tokens_per_second"] * HOURS_PER_MONTH * 3600
            if nodes == 0:
                notes.append("the budget does not buy one whole node")
            if not math.isfinite(finite_number(c.get("per_node_rps"))):
                notes.append("no capacity under these limits")
        row["note"] = "; ".join(notes)
        rows.append(row)
    out = pd.DataFrame(rows, columns=_BUDGET_COLUMNS)
    for column in _BUDGET_COLUMNS:
        if column not in ("series", "hardware", "limit", "basis", "capacity_from", "note"):
            out[column] = pd.to_numeric(out[column], errors="coerce")
    return out


def preset_kw_per_gpu(presets: pd.DataFrame, price_set: str) -> dict[str, float]:
    """{hardware: all-in kW per GPU} of one preset price set (``presets`` as :func:`model.core.cost.load_presets`)."""
    rows = presets[(presets["price_set"] == price_set) & presets["all_in_kw_per_gpu"].notna()]
    return {str(hw): float(kw) for hw, kw in zip(rows["hardware"], rows["all_in_kw_per_gpu"])}


def tokens_per_second_at(frontier: pd.DataFrame, series: str, interactivity: float,
                         throughput_column: str = "tokens_per_second_per_gpu") -> float:
    """Throughput per GPU of one series' frontier at an interactivity, linear between its points [tok/s/GPU].

    NaN outside the frontier's measured range (no extrapolation), as the iso table does.
    """
    part = frontier[frontier["series"] == series].sort_values("interactivity")
    x = pd.to_numeric(part["interactivity"], errors="coerce").to_numpy(dtype=float)
    y = pd.to_numeric(part[throughput_column], errors="coerce").to_numpy(dtype=float)
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    if not len(x) or not (x[0] <= interactivity <= x[-1]):
        return math.nan
    return float(np.interp(interactivity, x, y))


def pricing_options(hardware, rates: dict[str, float], kw_per_gpu: dict[str, float], profiles=(),
                    kw_override: float | None = None, pue_override: float | None = None,
                    rate_label: str = "rate") -> list[dict]:
    """One way to pay per (hardware, chosen cost profile) for sizing: what a GPU-hour costs when
    every hour is paid for, and its power.

    A hardware a chosen profile names is priced by each such profile (its full-use rate, kW and PUE
    from its build-up); the others by ``rates`` [$/GPU-hour] and the preset ``kw_per_gpu`` [kW].

    Returns
    -------
    list of dicts: ``hardware``, ``pricing`` (what priced it), ``usd_per_gpu_hour``, ``kw_per_gpu``, ``pue``.
    """
    options = []
    for hw in hardware:
        mine = [p for p in profiles if p.hardware.lower() == str(hw).lower()]
        for p in mine:
            rate = p.paid_rate()
            options.append({"hardware": hw, "pricing": f"profile {p.name}",
                            "usd_per_gpu_hour": rate if rate is not None else math.nan,
                            "kw_per_gpu": kw_override or (p.onprem.kw_per_gpu if p.onprem else hardware_value(kw_per_gpu, hw,
                                                                                                       None)),
                            "pue": pue_override or (p.onprem.pue if p.onprem else 1.0)})
        if not mine:
            options.append({"hardware": hw, "pricing": rate_label, "usd_per_gpu_hour": hardware_value(rates, hw),
                            "kw_per_gpu": kw_override or hardware_value(kw_per_gpu, hw, None), "pue": pue_override or 1.0})
    return options


def size_fleet(capacity: pd.DataFrame, options: list[dict], need: Demand | None = None,
               budget_mw: float | None = None, budget_usd_per_month: float | None = None,
               rack_kw: float | None = None) -> pd.DataFrame:
    """Size every series of ``capacity`` under every pricing option of its hardware
    (:func:`pricing_options`): for a demand (:func:`size_for_demand`) or else a budget
    (:func:`size_for_budget`). The one sizing table the CLI's ``size`` and the Fleet page show."""
    frames = []
    for option in options:
        part = capacity[capacity["hardware"] == option["hardware"]]
        if part.empty:
            continue
        hw = option["hardware"]
        rate, kw, pue = {hw: option["usd_per_gpu_hour"]}, {hw: option["kw_per_gpu"]}, option["pue"]
        if need is not None:
            sized = size_for_demand(part, need, rate, kw, pue, rack_kw)
        else:
            sized = size_for_budget(part, budget_mw, budget_usd_per_month, rate, kw, pue)
        frames.append(sized.assign(method=part["method"].to_numpy(), pricing=option["pricing"], pue=pue,
                                   kw_per_gpu=option["kw_per_gpu"] if option["kw_per_gpu"] else math.nan))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
