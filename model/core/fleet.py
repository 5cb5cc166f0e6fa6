"""Fleet sizing both ways: a demand to a fleet (owned for the peak, or following the load) and a budget to capacity.

Pure functions over pandas frames (numpy, pandas, pydantic; no I/O, no Streamlit). The capacity of one node they
start from is :func:`model.core.node_capacity.node_capacity` (re-exported here).


*Demand to fleet* (:func:`size_for_demand`): the peak and mean load of the demand (:func:`model.core.demand.load_of`),
``nodes = ceil(peak req/s × headroom / per_node_rps) + spares``; ``gpus = nodes × gpus_per_node``; ``kw = gpus ×
kW/GPU`` (IT power; ``facility_kw`` × PUE); ``racks = ceil(kw / rack_kw)``; ``usd_per_month = gpus × $/GPU-hour ×
730`` (every hour of every GPU is paid for, so an on-prem profile's full-use rate applies, see
:meth:`model.core.cost_profiles.CostProfile.paid_rate`). Autoscaled, the same rate pays the node-hours of the
nodes following the load (:func:`model.core.demand.follow`, :func:`fleet_over_time`); only billing that can follow
the load has such a cost, so a surface keeps it only for hardware rented on demand, at its rental rate
(:func:`bill_following`).

*Budget to capacity* (:func:`size_for_budget`): a power budget [MW of facility power] buys
``floor(MW × 1000 / (kW/GPU × PUE))`` GPUs, a money budget ``floor($/month / ($/GPU-hour × 730))``,
both rounded down to whole nodes; then req/s, tokens/s and tokens per month (× 730 × 3600) at the
measured capacity, and concurrent users (``concurrency × gpus_per_node / gpus`` of the point, per node).

Energy per token and the sensitivity of an on-prem rate are in :mod:`model.core.sensitivity`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from model.core.capacity import DEFAULT_GPUS_PER_NODE
from model.core.demand import TOKEN_BASES, Demand, demand, finite_number, follow, load_of, tokens_per_request
from model.core.node_capacity import node_capacity
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
    "overridden",
    "finite_number",
    "hardware_value",
    "MAX_NODES",
    "FOLLOWING_COLUMNS",
    "bill_following",
]

#: the most nodes sizing counts: a fleet past it is not an answer (a throughput near zero, stored before ingest
#: refused those, would otherwise ask for 10^300 nodes or overflow)
MAX_NODES = 1e12

def _whole_nodes(value: float) -> float:
    """Whole nodes a budget buys (rounded down, floating noise below 1e-9 ignored); past :data:`MAX_NODES`,
    infinity (:func:`size_for_budget` says so instead of printing a number)."""
    if value != value:
        return 0
    return math.floor(round(value, 9)) if value <= MAX_NODES else math.inf


def _spans(capacity_row) -> int:
    """The nodes one serving instance spans (:func:`model.core.node_capacity.instances`; 1 when not said)."""
    spans = finite_number(capacity_row.get("nodes_per_instance"))
    return int(spans) if math.isfinite(spans) and spans >= 1 else 1


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
            spans = _spans(c)       # nodes one serving instance spans: bought that many at a time
            nodes = spans * max(_ceil(needed / spans), 1 if needed > 0 else 0) + need.spares  # a load takes a node
            gpus = nodes * gpn
            kw = gpus * hardware_value(kw_per_gpu, hw)
            rate = hardware_value(usd_per_gpu_hour or {}, hw)
            month = gpus * rate * HOURS_PER_MONTH
            auto = follow(load.rates or (load.mean_rps,), per_node, need.headroom, need.spares, need.min_nodes,
                          spans * _ceil(need.step / spans), nodes)
            mean_nodes = float(auto.mean())
            per_m = load.tokens_per_month / 1e6
            row.update(nodes_needed=needed, nodes=nodes, gpus=gpus, kw=kw, facility_kw=kw * hardware_value(pue, hw, 1.0),
                       racks=_ceil(kw / rack_kw) if rack_kw and math.isfinite(kw / rack_kw) else math.nan,
                       usd_per_gpu_hour=rate, usd_per_month=month, usd_per_year=gpus * rate * HOURS_PER_YEAR,
                       effective_usd_per_mtok=month / per_m if per_m > 0 else math.nan,
                       utilization=load.mean_rps / (nodes * per_node) if nodes else math.nan,
                       mean_nodes=mean_nodes, node_hours=mean_nodes * HOURS_PER_MONTH,
                       usd_per_month_autoscaled=mean_nodes * gpn * rate * HOURS_PER_MONTH,
                       effective_usd_per_mtok_autoscaled=(mean_nodes * gpn * rate * HOURS_PER_MONTH / per_m
                                                          if per_m > 0 else math.nan),
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
        spans = _spans(c)
        peak_nodes = spans * _ceil(load.peak_rps * need.headroom / per_node / spans) + need.spares
        if not peak_nodes <= MAX_NODES:
            continue
        auto = follow(load.rates, per_node, need.headroom, need.spares, need.min_nodes, spans * _ceil(need.step / spans),
                      peak_nodes)
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
        if limits and min(limits.values()) > MAX_NODES:
            notes.append(f"more than {MAX_NODES:,.0f} nodes: the budget buys more than sizing counts (check the "
                         "kW per GPU and the $/GPU-hour)")
            limits = {}
        if limits:
            limit = min(limits, key=limits.get)
            spans = _spans(c)
            nodes = limits[limit] // spans * spans if math.isfinite(limits[limit]) else limits[limit]
            gpus = nodes * gpn
            row.update(limit=limit, nodes=nodes, gpus=gpus, kw=gpus * kw_gpu, facility_kw=gpus * kw_gpu * p,
                       usd_per_month=gpus * rate * HOURS_PER_MONTH,
                       requests_per_second=nodes * finite_number(c.get("per_node_rps")),
                       tokens_per_second=nodes * finite_number(c.get("tokens_per_second_per_node")),
                       users=nodes * finite_number(c.get("users_per_node")))
            row["tokens_per_month"] = row["tokens_per_second"] * HOURS_PER_MONTH * 3600
            if nodes == 0:
                notes.append("the budget does not buy one whole node" if spans == 1 else
                             f"the budget does not buy one whole instance ({spans} nodes)")
            if not math.isfinite(finite_number(c.get("per_node_rps"))):
                notes.append("no capacity under these limits")
        row["note"] = "; ".join(notes)
        rows.append(row)
    out = pd.DataFrame(rows, columns=_BUDGET_COLUMNS)
    for column in _BUDGET_COLUMNS:
        if column not in ("series", "hardware", "limit", "basis", "capacity_from", "note"):
            out[column] = pd.to_numeric(out[column], errors="coerce")
    return out


#: the columns of a fleet following the load (:func:`size_for_demand`)
FOLLOWING_COLUMNS = ("mean_nodes", "node_hours", "usd_per_month_autoscaled", "effective_usd_per_mtok_autoscaled",
                     "utilization_autoscaled")


def bill_following(sized: pd.DataFrame, on_demand: dict[str, float] | None) -> pd.DataFrame:
    """``sized`` (:func:`size_fleet` for a demand) with a fleet following the load only where its billing can follow
    the load: hardware rented on demand (``on_demand``: {hardware: rented $/GPU-hour}), its node-hours priced at that
    rate (``usd_per_gpu_hour_autoscaled``). An owned, reserved or profile-priced fleet pays every hour of the peak's
    nodes, so its following-the-load columns (:data:`FOLLOWING_COLUMNS`) are NaN: no hourly-following cost is shown
    for capacity that cannot be billed by the hour."""
    if sized.empty or "mean_nodes" not in sized.columns:
        return sized
    rented = {str(hw).lower(): float(usd) for hw, usd in (on_demand or {}).items()}
    rate = sized["hardware"].map(lambda hw: rented.get(str(hw).lower(), math.nan)).astype(float)
    out = sized.copy()
    paid = out["mean_nodes"] * out["gpus_per_node"] * rate * HOURS_PER_MONTH
    volume = out["tokens_per_month"] / 1e6
    out["usd_per_gpu_hour_autoscaled"] = rate
    out["usd_per_month_autoscaled"] = paid
    out["effective_usd_per_mtok_autoscaled"] = paid / volume
    billed = rate.notna().to_numpy()
    for column in FOLLOWING_COLUMNS:
        out.loc[~billed, column] = math.nan
    return out


def preset_kw_per_gpu(presets: pd.DataFrame, price_set: str) -> dict[str, float]:
    """{hardware: all-in kW per GPU} of one preset price set (``presets`` as :func:`model.data.presets.load_presets`)."""
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
                    kw_override: dict[str, float] | float | None = None, pue_override: float | None = None,
                    rate_label: str = "rate") -> list[dict]:
    """One way to pay per (hardware, chosen cost profile) for sizing: what a GPU-hour costs when
    every hour is paid for, and its power.

    A hardware a chosen profile names is priced by each such profile (its full-use rate, kW and PUE
    from its build-up); the others by ``rates`` [$/GPU-hour] and the preset ``kw_per_gpu`` [kW].
    ``kw_override`` [kW per GPU] replaces the kW of the hardware it names (``{hardware: kW}``; ``"*"``, or a number
    alone, every hardware it does not name), a profile's included.

    Returns
    -------
    list of dicts: ``hardware``, ``pricing`` (what priced it), ``usd_per_gpu_hour``, ``kw_per_gpu``, ``pue``,
    ``kw_from`` (where the kW came from: ``view``, ``profile``, ``preset`` or ``none``).
    """
    options = []
    for hw in hardware:
        given = overridden(kw_override, hw)
        mine = [p for p in profiles if p.hardware.lower() == str(hw).lower()]
        for p in mine:
            rate = p.paid_rate()
            own = p.onprem.kw_per_gpu if p.onprem else hardware_value(kw_per_gpu, hw, None)
            options.append({"hardware": hw, "pricing": f"profile {p.name}", "profile": p.name,
                            "usd_per_gpu_hour": rate if rate is not None else math.nan,
                            "kw_per_gpu": given or own, "pue": pue_override or (p.onprem.pue if p.onprem else 1.0),
                            "kw_from": "view" if given else "profile" if p.onprem else "preset" if own else "none"})
        if not mine:
            preset = hardware_value(kw_per_gpu, hw, None)
            options.append({"hardware": hw, "pricing": rate_label, "usd_per_gpu_hour": hardware_value(rates, hw),
                            "kw_per_gpu": given or preset, "pue": pue_override or 1.0,
                            "kw_from": "view" if given else "preset" if preset else "none"})
    return options


def overridden(values: dict[str, float] | float | None, hardware: str) -> float | None:
    """The value ``values`` gives ``hardware``: its own (names compared case-insensitively), else every hardware's
    (``"*"``, or a number alone), else None."""
    if values is None or isinstance(values, (int, float)):
        return values
    mine = {str(k).lower(): v for k, v in dict(values).items()}
    return mine.get(str(hardware).lower(), mine.get("*"))


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
                                   kw_per_gpu=option["kw_per_gpu"] if option["kw_per_gpu"] else math.nan,
                                   kw_from=option.get("kw_from", ""), profile=option.get("profile")))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
