"""The columns of the workbook's formula sheets (:mod:`model.present.workbook`): the iso table, the frontier points,
a build-up's parts, its sensitivity and the fleet, each a list of (header, kind, cells) with a cell a number, text or
a :class:`~model.present.workbook.F` formula whose cached result is the product's own value."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from openpyxl.utils import get_column_letter

from model.core.status import PRICED
from model.present.workbook_cells import FORMULAS, HEADER_ROW, PARTS_LAYOUT, F, build_up_formulas

__all__ = ["iso_columns", "frontier_columns", "fleet_columns", "volume_columns", "parts_columns",
           "sensitivity_columns"]

_MTOK = "*3600)*1000000"      # "$/GPU-hour / (tok/s/GPU" + this = $/M tokens


def _ok(value) -> bool:
    return value is not None and value is not pd.NA and not isinstance(value, (bool, str)) \
        and math.isfinite(float(value))


def _letters(spec) -> dict[str, str]:
    return {c: get_column_letter(j) for j, (_, c, _) in enumerate(spec, start=1)}


def _spec_columns(frame: pd.DataFrame, spec) -> list[list]:
    return [list(frame[c]) if c in frame else [None] * len(frame) for _, c, _ in spec]


def _rows(frame: pd.DataFrame) -> range:
    return range(HEADER_ROW + 1, HEADER_ROW + 1 + len(frame))


# ------------------------------------------------------------------------------------------ iso


def _knots(curve, x: float, status: str) -> list[int]:
    """The knots (curve point indices) a value at ``x`` is read from: one (measured, clamped) or two."""
    last = len(curve.x) - 1
    if status == "clamped":
        return [0 if x < curve.x_min else last]
    j = int(np.searchsorted(curve.x, x, side="right")) - 1
    j = min(max(j, 0), last)
    return [j] if curve.x[j] == x or j == last else [j, j + 1]


def iso_columns(frame: pd.DataFrame, spec, ctx) -> tuple[str, list[tuple[str, str, list]]]:
    """Cost at matched interactivity: $/M, $/GPU-hour, tok/s/GPU, ratio and break-even as formulas (linear: of the
    two knots written at the right; monotone: of the monotone cubic's tok/s/GPU)."""
    linear = ctx.plan.method == "linear"
    col = _letters(spec)
    cells = _spec_columns(frame, spec)
    at = {c: i for i, (_, c, _) in enumerate(spec)}
    knot_headers = [f"Knot {k}: {what}" for k in ("a", "b") for what in
                    ("interactivity [tok/s/user]", "tok/s/GPU (measured)", "$/GPU-hour", "$/M tokens")]
    knot_kinds = ["x", "tps", "usd", "usd"] * 2
    knot_cells = [[None] * len(frame) for _ in knot_headers]
    kcol = [get_column_letter(len(spec) + 1 + i) for i in range(len(knot_headers))]
    records = frame.to_dict("records")
    rows = list(_rows(frame))
    groups: dict[float, list[int]] = {}
    for i, rec in enumerate(records):      # the priced cells of a target (first at each: model.core.unpriced)
        if rec["status"] in PRICED:
            groups.setdefault(rec["interactivity"], []).append(rows[i])
    base_row = {rec["interactivity"]: rows[i] for i, rec in enumerate(records)
                if rec["series"] == ctx.plan.baseline and _ok(rec["usd_per_mtok"])}
    C, E, T, A = col["usd_per_mtok"], col["usd_per_gpu_hour"], col["tokens_per_second_per_gpu"], col["interactivity"]
    for i, rec in enumerate(records):
        r, curve = rows[i], ctx.plan.curves.get(rec["series"])
        if curve is None or not _ok(rec["usd_per_mtok"]) or rec["status"] not in (*PRICED, "clamped"):
            continue
        names = [ctx.rate(h) for h in curve.hardware]
        if linear:
            knots = _knots(curve, rec["interactivity"], rec["status"])
            if any(names[j] is None for j in knots):
                continue
            for k, j in enumerate(knots):
                base = 4 * k
                knot_cells[base][i] = float(curve.x[j])
                knot_cells[base + 1][i] = float(curve.tokens_per_second_per_gpu[j])
                knot_cells[base + 2][i] = F(f"={names[j]}", float(curve.usd_per_gpu_hour[j]))
                knot_cells[base + 3][i] = F(f"={kcol[base + 2]}{r}/({kcol[base + 1]}{r}{_MTOK}",
                                            float(curve.usd_per_mtok[j]))
            if len(knots) == 1:
                cost, rate = f"={kcol[3]}{r}", f"={kcol[2]}{r}"
            else:
                w = f"({A}{r}-{kcol[0]}{r})/({kcol[4]}{r}-{kcol[0]}{r})"
                cost = f"={kcol[3]}{r}+{w}*({kcol[7]}{r}-{kcol[3]}{r})"
                rate = f"={kcol[2]}{r}" if names[knots[0]] == names[knots[1]] else \
                    f"={kcol[2]}{r}+{w}*({kcol[6]}{r}-{kcol[2]}{r})"
            cells[at["usd_per_mtok"]][i] = F(cost, rec["usd_per_mtok"])
            cells[at["usd_per_gpu_hour"]][i] = F(rate, rec["usd_per_gpu_hour"])
            cells[at["tokens_per_second_per_gpu"]][i] = F(f"={E}{r}/({C}{r}{_MTOK}", rec["tokens_per_second_per_gpu"])
        else:
            if len(set(names)) != 1 or names[0] is None:
                continue           # a series of mixed hardware: its monotone cubic is not proportional to one rate
            cells[at["usd_per_gpu_hour"]][i] = F(f"={names[0]}", rec["usd_per_gpu_hour"])
            cells[at["usd_per_mtok"]][i] = F(f"={E}{r}/({T}{r}{_MTOK}", rec["usd_per_mtok"])
        if "ratio_to_baseline" in at and rec["interactivity"] in base_row:
            cells[at["ratio_to_baseline"]][i] = F(f"={C}{r}/{C}{base_row[rec['interactivity']]}",
                                                  rec["ratio_to_baseline"])
        if "break_even_usd_per_gpu_hour" in at and rec["status"] in PRICED and rec["interactivity"] in groups:
            group = groups[rec["interactivity"]]
            cells[at["break_even_usd_per_gpu_hour"]][i] = F(f"={E}{r}*MIN({C}{min(group)}:{C}{max(group)})/{C}{r}",
                                                            rec["break_even_usd_per_gpu_hour"])
    columns = [(h, k, cells[j]) for j, (h, _, k) in enumerate(spec)]
    if linear:
        columns += list(zip(knot_headers, knot_kinds, knot_cells))
    return FORMULAS["iso" if linear else "iso_monotone"], columns


# ------------------------------------------------------------------------------------------ frontier, fleet


def frontier_columns(frame: pd.DataFrame, spec, ctx) -> list[tuple[str, str, list]]:
    """The frontier points: $/GPU-hour is its hardware's rate cell, $/M of it and the measured tok/s/GPU."""
    col, cells = _letters(spec), _spec_columns(frame, spec)
    at = {c: i for i, (_, c, _) in enumerate(spec)}
    for i, (r, rec) in enumerate(zip(_rows(frame), frame.to_dict("records"))):
        name = ctx.rate(rec.get("hardware"))
        if name is None or not _ok(rec.get("tokens_per_second_per_gpu")) or not _ok(rec.get("usd_per_mtok")):
            continue
        cells[at["usd_per_gpu_hour"]][i] = F(f"={name}", rec["usd_per_gpu_hour"])
        cells[at["usd_per_mtok"]][i] = F(f"={col['usd_per_gpu_hour']}{r}/({col['tokens_per_second_per_gpu']}{r}{_MTOK}",
                                         rec["usd_per_mtok"])
    return [(h, k, cells[j]) for j, (h, _, k) in enumerate(spec)]


def _paid(ctx, hardware, value) -> str | None:
    """The name of the cell a fleet row's $/GPU-hour paid is: its hardware's rate, or a profile's full-use rate."""
    if not _ok(value):
        return None
    same = lambda v: v is not None and math.isclose(v, float(value), rel_tol=1e-9)   # noqa: E731
    if same(ctx.rate_values.get(str(hardware))):
        return ctx.rate(hardware)
    for p in ctx.plan.profiles:
        if str(p.profile.hardware).lower() != str(hardware).lower():
            continue
        if p.profile.name in ctx.onprem and same(p.profile.paid_rate()):
            return ctx.onprem[p.profile.name]["full_use"]
        if same(ctx.rate_values.get(p.profile.name)):
            return ctx.rate(p.profile.name)
    return None


def _with(spec: list, *columns: tuple[str, str, str]) -> list:
    """``spec`` with each of ``columns`` appended where it does not hold that column yet."""
    return spec + [c for c in columns if not any(k == c[1] for _, k, _ in spec)]


def _per_month(cells, at, i, column, value, expression) -> None:
    if column in at and _ok(value):
        cells[at[column]][i] = F(expression, value)


def _power_of(ctx, rec) -> tuple[str | None, str | None]:
    """The names of the cells a fleet row's kW per GPU and PUE are (the view's fleet settings, or the build-up of the
    profile pricing it); None where the row's value is a number (a price set's kW per GPU)."""
    profile = ctx.onprem.get(rec.get("profile") or "", {})
    source = rec.get("kw_from")
    kw = ctx.kw(rec.get("hardware")) if source == "view" else profile.get("kw_per_gpu") if source == "profile" else None
    pue = ctx.fleet_pue if ctx.plan.pue is not None or "pue" not in profile else profile["pue"]
    return kw, pue


def fleet_columns(frame: pd.DataFrame, spec, ctx) -> list[tuple[str, str, list]]:
    """The fleet: GPUs and $ per month as formulas of the nodes, GPUs per node and the rate paid; IT power of the GPUs
    and the kW per GPU, facility power of the IT power and the PUE (the view's on the Assumptions sheet, or a
    build-up's); rented on demand, following the load, of the mean nodes and ``rent_<hardware>``; each effective $/M
    of its $ per month and the tokens a month."""
    spec = _with(list(spec), ("$/GPU-hour paid", "usd_per_gpu_hour", "usd"), ("GPUs per node", "gpus_per_node", "int"),
                 ("Tokens per month", "tokens_per_month", "tps"), ("kW per GPU (all-in IT)", "kw_per_gpu", "plain"),
                 ("PUE", "pue", "plain"), ("Facility power [kW]", "facility_kw", "tps"))
    col, cells = _letters(spec), _spec_columns(frame, spec)
    at = {c: i for i, (_, c, _) in enumerate(spec)}
    N, G, P, T = col["nodes"], col["gpus_per_node"], col["usd_per_gpu_hour"], col["tokens_per_month"]
    K, U = col["kw_per_gpu"], col["pue"]
    for i, (r, rec) in enumerate(zip(_rows(frame), frame.to_dict("records"))):
        if not (_ok(rec.get("nodes")) and _ok(rec.get("gpus_per_node"))):
            continue
        cells[at["gpus"]][i] = F(f"={N}{r}*{G}{r}", rec.get("gpus"))
        kw, pue = _power_of(ctx, rec)
        if kw is not None:
            cells[at["kw_per_gpu"]][i] = F(f"={kw}", rec.get("kw_per_gpu"))
        if pue is not None and _ok(rec.get("pue")):
            cells[at["pue"]][i] = F(f"={pue}", rec.get("pue"))
        if _ok(rec.get("kw")) and _ok(rec.get("kw_per_gpu")):
            cells[at["kw"]][i] = F(f"={col['gpus']}{r}*{K}{r}", rec.get("kw"))
            if _ok(rec.get("facility_kw")):
                cells[at["facility_kw"]][i] = F(f"={col['kw']}{r}*{U}{r}", rec.get("facility_kw"))
        name = _paid(ctx, rec.get("hardware"), rec.get("usd_per_gpu_hour"))
        if name is not None:
            cells[at["usd_per_gpu_hour"]][i] = F(f"={name}", rec["usd_per_gpu_hour"])
        if _ok(rec.get("usd_per_gpu_hour")):
            cells[at["usd_per_month"]][i] = F(f"={N}{r}*{G}{r}*{P}{r}*hours_per_month", rec.get("usd_per_month"))
            _per_month(cells, at, i, "effective_usd_per_mtok", rec.get("effective_usd_per_mtok"),
                       f"={col['usd_per_month']}{r}/({T}{r}/1000000)")
        rent = ctx.rent(rec.get("hardware"))
        if rent is None or not _ok(rec.get("usd_per_month_autoscaled")) or "mean_nodes" not in at:
            continue
        _per_month(cells, at, i, "usd_per_gpu_hour_autoscaled", rec.get("usd_per_gpu_hour_autoscaled"), f"={rent}")
        _per_month(cells, at, i, "usd_per_month_autoscaled", rec.get("usd_per_month_autoscaled"),
                   f"={col['mean_nodes']}{r}*{G}{r}*{rent}*hours_per_month")
        if "usd_per_month_autoscaled" in at:
            _per_month(cells, at, i, "effective_usd_per_mtok_autoscaled", rec.get("effective_usd_per_mtok_autoscaled"),
                       f"={col['usd_per_month_autoscaled']}{r}/({T}{r}/1000000)")
    return [(h, k, cells[j]) for j, (h, _, k) in enumerate(spec)]


def _option_rate(ctx, rec) -> str | None:
    """The expression of what an owned or rented option pays a GPU-hour: its hardware's rate, a profile's full-use
    rate, power + operations of a build-up (the marginal lens), or ``rent_<hardware>``."""
    value = rec.get("usd_per_gpu_hour")
    if not _ok(value):
        return None
    if rec.get("kind") == "rented":
        return ctx.rent(rec.get("hardware"))
    name = _paid(ctx, rec.get("hardware"), value)
    if name is not None:
        return name
    for p in ctx.plan.profiles:
        own = ctx.onprem.get(p.profile.name)
        b = p.profile.breakdown() if own is not None else None
        if b is not None and str(p.profile.hardware).lower() == str(rec.get("hardware")).lower() \
                and math.isclose(b.power + b.operations, float(value), rel_tol=1e-9):
            return f"({own['power']}+{own['operations']})"
    return None


def _api_rate(ctx, volume) -> str | None:
    """The API's $/M of the workload's tokens as a formula of its price cells (:func:`model.core.volume.
    api_usd_per_mtok`), None when they are not on the Assumptions sheet."""
    api, names = volume.api, ctx.api_names
    if not api or len(names) < 4:
        return None
    isl, osl = float(api["isl"]), float(api["osl"])
    tokens = {"total": isl + osl, "output": osl, "input": isl}.get(volume.basis)
    if not tokens:
        return None
    hit = names["cache_hit"]
    return (f"=({isl!r}*(1-{hit})*{names['usd_per_m_input']}+{isl!r}*{hit}*{names['usd_per_m_cached_input']}"
            f"+{osl!r}*{names['usd_per_m_output']})/{tokens!r}")


def volume_columns(frame: pd.DataFrame, spec, ctx) -> list[tuple[str, str, list]]:
    """Buy, rent or API: each owned or rented option's $ per month (and within its capacity's ±) as a formula of its
    mean nodes, GPUs per node and the rate it pays; the API's $/M of its price cells and its $ a month of the
    volume; every effective $/M of its $ per month and the volume."""
    spec = _with(list(spec), ("$/GPU-hour", "usd_per_gpu_hour", "usd"), ("GPUs per node", "gpus_per_node", "int"),
                 ("Volume [tokens/month]", "tokens_per_month", "tps"),
                 ("Mean nodes, capacity + its ±", "mean_nodes_low", "x"),
                 ("Mean nodes, capacity − its ±", "mean_nodes_high", "x"),
                 ("$ per month, capacity + its ±", "usd_per_month_low", "dollars"),
                 ("$ per month, capacity − its ±", "usd_per_month_high", "dollars"))
    col, cells = _letters(spec), _spec_columns(frame, spec)
    at = {c: i for i, (_, c, _) in enumerate(spec)}
    G, P, V, M = col["gpus_per_node"], col["usd_per_gpu_hour"], col["tokens_per_month"], col["usd_per_month"]
    api_rate = _api_rate(ctx, ctx.plan.volume)
    for i, (r, rec) in enumerate(zip(_rows(frame), frame.to_dict("records"))):
        effective = f"={M}{r}/({V}{r}/1000000)"
        if rec.get("kind") == "api":
            for column in ("usd_per_month_low", "usd_per_month_high"):     # a price has no ±
                cells[at[column]][i] = None
            if api_rate is None:
                continue
            cells[at["effective_usd_per_mtok"]][i] = F(api_rate, rec["effective_usd_per_mtok"])
            cells[at["usd_per_month"]][i] = F(f"={V}{r}/1000000*{col['effective_usd_per_mtok']}{r}",
                                              rec["usd_per_month"])
            continue
        rate = _option_rate(ctx, rec)
        if rate is None or not _ok(rec.get("gpus_per_node")):
            continue
        cells[at["usd_per_gpu_hour"]][i] = F(f"={rate}", rec["usd_per_gpu_hour"])
        for nodes, usd in (("mean_nodes", "usd_per_month"), ("mean_nodes_low", "usd_per_month_low"),
                           ("mean_nodes_high", "usd_per_month_high")):
            _per_month(cells, at, i, usd, rec.get(usd), f"={col[nodes]}{r}*{G}{r}*{P}{r}*hours_per_month")
        _per_month(cells, at, i, "effective_usd_per_mtok", rec.get("effective_usd_per_mtok"), effective)
    return [(h, k, cells[j]) for j, (h, _, k) in enumerate(spec)]


# ------------------------------------------------------------------------------------------ build-up


def parts_columns(pa, ctx) -> list[tuple[str, str, list]]:
    """One on-prem build-up's parts: capital per GPU, CRF, the four parts, full use and effective, formulas of its
    inputs' named cells (:data:`~model.present.workbook.PARTS_LAYOUT`)."""
    p, b = pa.profile, pa.profile.breakdown()
    ref = ctx.onprem[p.name]
    f = build_up_formulas(ref)
    r = HEADER_ROW + 1
    priced = p.onprem.server_usd is not None
    cells = {
        "profile": p.name,
        "capital_per_gpu": F(f"={f['capital_per_gpu']}", b.capital_per_gpu) if priced else None,
        "crf": F(f"={f['crf']}", b.crf),
        "capital": F(f"=I{r}*J{r}/hours_per_year", b.capital) if priced else None,
        "power": F(f"={f['power']}", b.power),
        "facility": F(f"={f['facility']}", b.facility),
        "operations": F(f"=(I{r}*{ref['maintenance_pct']}/100+{ref['licence_usd_per_gpu_year']}+IF("
                        f"{ref['staff_usd_per_year']}>0,{ref['staff_usd_per_year']}/{ref['fleet_gpus']},0))"
                        "/hours_per_year", b.operations) if priced else None,
        "full_use": F(f"=SUM(B{r}:E{r})", b.usd_per_gpu_hour_full_use) if priced else None,
        "utilization": F(f"={ref['utilization']}", b.utilization),
        "effective": F(f"=F{r}/G{r}", b.usd_per_gpu_hour) if priced else None,
    }
    return [(h, k, [cells[key]]) for h, key, k in PARTS_LAYOUT]


def sensitivity_columns(frame: pd.DataFrame, spec, pa, ctx) -> list[tuple[str, str, list]]:
    """The tornado: each input's base, low and high as cells (the base is the input's named cell), the $/M (or
    $/GPU-hour) at low and high as the build-up with that input moved, and the $/M at the base rate."""
    ref = ctx.onprem.get(pa.profile.name)
    raw = pa.tornado
    per_mtok = pa.tornado_unit == "usd_per_mtok"
    cells = _spec_columns(frame, spec)
    at = {c: i for i, (_, c, _) in enumerate(spec)}
    col = _letters(spec)
    spec = [*spec, ("tok/s/GPU at x", "tps", "tps"),
            ("At base [$/M]" if per_mtok else "At base [$/GPU-hour]", "at_base", "usd")]
    t_col = get_column_letter(len(cells) + 1)
    tps_cells, base_cells = [], []
    for i, (r, rec) in enumerate(zip(_rows(frame), raw.to_dict("records"))):
        unit = pa.tornado_unit
        tps_cells.append(pa.tokens_per_second_per_gpu if per_mtok else None)
        to_cost = (lambda e: f"={e}/({t_col}{r}{_MTOK}") if per_mtok else (lambda e: f"={e}")
        if ref is None:
            base_cells.append(rec[f"{unit}_base"])
            continue
        base_cells.append(F(to_cost(ref["effective"]), rec[f"{unit}_base"]))
        name = ref[rec["input"]]
        cells[at["base_value"]][i] = F(f"={name}", rec["base_value"])
        for side, sign in (("low", "-"), ("high", "+")):
            moved = float(rec[f"{side}_value"])
            exact = math.isclose(moved, rec["base_value"] * (1 + (0.2 if sign == "+" else -0.2)), rel_tol=1e-12)
            cells[at[f"{side}_value"]][i] = F(f"={col['base_value']}{r}*(1{sign}0.2)", moved) if exact else moved
            effective = build_up_formulas({**ref, rec["input"]: f"{col[f'{side}_value']}{r}"})["effective"]
            cells[at[side]][i] = F(to_cost(effective), rec[f"{unit}_{side}"])
    kinds = {"base_value": "num", "low_value": "num", "high_value": "num"}
    return [(h, kinds.get(c, k), cells[j]) for j, (h, c, k) in enumerate(spec[:len(cells)])] + \
        [(spec[-2][0], "tps", tps_cells), (spec[-1][0], "usd", base_cells)]
