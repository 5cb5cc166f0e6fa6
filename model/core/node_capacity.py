"""The capacity of one node, from the measured points it rests on.

Pure functions over pandas frames (numpy, pandas; no I/O, no Streamlit).

*Capacity of one node* (:func:`node_capacity`): for a load ramp, the knee under the SLA
(:func:`model.core.capacity.knee`), scaled from the GPUs it ran on to a node:
``per_node_rps = knee req/s × gpus_per_node / gpus``. For a concurrency sweep, the point with the
highest throughput per GPU among those meeting the SLA and the interactivity target:
``per_node_rps = tok/s/GPU × gpus_per_node / tokens per request`` (ISL+OSL for total tokens, OSL
for output, ISL for input). Each row says which measured point it came from.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from model.core.capacity import DEFAULT_GPUS_PER_NODE, gpus_per_node_of, knee, throughput_on_basis
from model.core.ceiling import steady_state, sweep_bracket
from model.core.demand import finite_number, tokens_per_request
from model.core.frontier import DEFAULT_SERIES_KEYS, series_labels
from model.core.schema import MIN_TOKENS_PER_SECOND_PER_GPU
from model.core.sla import SLA, split_by_sla

__all__ = ["node_capacity", "instances"]


def _where(row) -> str:
    file, line = row.get("source_file"), finite_number(row.get("source_line"))
    if not file:
        return ""
    return f", {file}" + (f" line {int(line)}" if math.isfinite(line) else "")


_CAPACITY_COLUMNS = ["series", "hardware", "method", "status", "per_node_rps", "tokens_per_second_per_node",
                     "tokens_per_second_per_gpu", "basis", "gpus_per_node", "users_per_node", "interactivity",
                     "isl", "osl", "capacity_from", "source_file", "source_line", "bracket", "contradiction",
                     "nodes_per_instance"]


def instances(gpus: float, gpus_per_node: float) -> tuple[float, int, str]:
    """How whole serving instances of a configuration measured on ``gpus`` GPUs fill nodes of ``gpus_per_node``:
    (instances one node carries, nodes one instance spans, the words). A node holds ``floor(gpus_per_node / gpus)``
    instances (GPUs left over idle); an instance larger than a node spans ``ceil(gpus / gpus_per_node)`` nodes,
    which are bought that many at a time, and each carries that share of it. A configuration whose GPU count is not
    stated is scaled per GPU, as before: (gpus_per_node, 1, "")."""
    if not (math.isfinite(gpus) and gpus > 0):
        return math.nan, 1, ""
    if gpus <= gpus_per_node * (1 + 1e-9):
        held = math.floor(gpus_per_node / gpus + 1e-9)
        idle = gpus_per_node - held * gpus
        words = ("" if held == 1 and idle <= 1e-9 else
                 f"a node of {gpus_per_node:g} GPUs holds {held} instance{'s' if held != 1 else ''} of the measured "
                 f"{gpus:g} GPUs" + (f" ({idle:g} GPUs idle)" if idle > 1e-9 else ""))
        return float(held), 1, words
    spans = math.ceil(gpus / gpus_per_node - 1e-9)
    return 1 / spans, spans, (f"an instance of the measured {gpus:g} GPUs spans {spans} nodes of {gpus_per_node:g} "
                              f"GPUs: nodes are bought {spans} at a time")


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
    [tok/s/user], ``isl``, ``osl``, ``capacity_from`` (text naming the point, the measured points around the
    ceiling and, where the point's own load cannot give its throughput, why), ``status``, the point's source,
    ``bracket`` (:mod:`model.core.ceiling`) and ``contradiction`` (None: none). ``per_node_rps`` is NaN where no
    measured point meets the limits.
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
        held, spans, fit = instances(gpus, gpn)
        scale = held if math.isfinite(held) else 1.0
        part = by_series.get(k["series"], pd.DataFrame())
        isl = part["isl"].dropna().iloc[0] if "isl" in part and part["isl"].notna().any() else None
        osl = part["osl"].dropna().iloc[0] if "osl" in part and part["osl"].notna().any() else None
        text = ""
        if math.isfinite(rate):
            text = (f"ramp knee: {rate:g} req/s on {gpus if math.isfinite(gpus) else gpn:g} GPUs"
                    f" ({sla.describe()}; TTFT {sla.ttft_percentile} {finite_number(k.get('ttft_s')):.3g} s){_where(k)}")
            if str(k.get("status", "")).startswith("ok:"):
                text += "; no measured rate breaks the SLA, so capacity may be higher"
            text += f"; {k.get('bracket_text')}" if k.get("bracket_text") else ""
            text += f"; {k['contradiction']}" if k.get("contradiction") else ""
            text += f"; {fit}" if fit else ""
        per_gpu = finite_number(k.get("tokens_per_second_per_gpu"))
        rows.append({"series": k["series"], "hardware": k.get("hardware"), "method": "ramp knee",
                     "status": k.get("status"), "per_node_rps": rate * scale, "nodes_per_instance": spans,
                     "tokens_per_second_per_node": per_gpu * gpus * held if math.isfinite(held) else
                     finite_number(k.get("tokens_per_second_per_node")),
                     "tokens_per_second_per_gpu": finite_number(k.get("tokens_per_second_per_gpu")),
                     "basis": k.get("basis"), "gpus_per_node": gpn, "users_per_node": math.nan,
                     "interactivity": math.nan, "isl": finite_number(isl), "osl": finite_number(osl),
                     "capacity_from": text or f"no capacity: {k.get('status')} ({k.get('first_failure') or 'no rows'})",
                     "source_file": k.get("source_file"), "source_line": finite_number(k.get("source_line")),
                     "bracket": k.get("bracket_text"), "contradiction": k.get("contradiction")})
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
            held, spans, fit = instances(gpus, gpn)
            serving = gpus * held if math.isfinite(held) else gpn      # the GPUs of a node serving requests
            users = conc * held if math.isfinite(held) else math.nan
            bracket = sweep_bracket(part, best, ok.index, values["tps"], interactivity_min)
            contradiction = steady_state(row, used)
            rows.append({**base, "status": "ok", "per_node_rps": tps * serving / per_request,
                         "nodes_per_instance": spans,
                         "bracket": bracket["bracket_text"], "contradiction": contradiction,
                         "tokens_per_second_per_node": tps * serving, "tokens_per_second_per_gpu": tps, "basis": used,
                         "gpus_per_node": gpn, "users_per_node": users,
                         "interactivity": finite_number(row.get("interactivity")), "isl": finite_number(row.get("isl")),
                         "osl": finite_number(row.get("osl")),
                         "capacity_from": (f"frontier point: {tps:.4g} {used} tok/s/GPU at "
                                           f"{finite_number(row.get('interactivity')):.3g} tok/s/user, concurrency "
                                           f"{conc:g} on {gpus:g} GPUs{_where(row)}; {bracket['bracket_text']}"
                                           + (f"; {contradiction}" if contradiction else "")
                                           + (f"; {fit}" if fit else "")),
                         "source_file": row.get("source_file"), "source_line": finite_number(row.get("source_line"))})
    out = pd.DataFrame(rows, columns=_CAPACITY_COLUMNS)
    for column in ("per_node_rps", "tokens_per_second_per_node", "tokens_per_second_per_gpu", "gpus_per_node",
                   "users_per_node", "interactivity", "isl", "osl", "source_line"):
        out[column] = pd.to_numeric(out[column], errors="coerce").astype(float)
    out["nodes_per_instance"] = pd.to_numeric(out["nodes_per_instance"], errors="coerce").fillna(1).astype(int)
    tiny = out["tokens_per_second_per_gpu"] < MIN_TOKENS_PER_SECOND_PER_GPU   # a ramp knee stored before the floor
    if tiny.any():
        out.loc[tiny, ["per_node_rps", "tokens_per_second_per_node"]] = math.nan
        out.loc[tiny, "capacity_from"] = f"no capacity: under {MIN_TOKENS_PER_SECOND_PER_GPU:g} tok/s/GPU measured"
    return out
