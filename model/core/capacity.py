"""Capacity under a latency SLA: load ramps, knees, blended token basis, tokens per dollar.

Pure functions over pandas frames (numpy, pandas, pydantic; no I/O, no Streamlit).

*SLA.* A set of limits a user picks (:class:`SLA`): TTFT at one percentile, TPOT,
interactivity, end-to-end latency, success rate. A row meets the SLA when it meets
every limit that is set; a row whose field for a limit is missing fails that limit
(:func:`sla_failures` says which).

*Ramp.* Rows with an offered request rate and no interactivity: sustained req/s against
throughput and latency. Ramps are grouped into series by the same keys as the frontier
(:func:`model.core.frontier.series_labels`). A row's rate is the rate it ran at: where a file states the
rate it achieved beside the one it asked for, the importer stores the achieved one
(:func:`model.data.importers._common.rate_as_run`), so a saturated stage stands at what it achieved and no
knee is read above it.

*Knee* (rule ``first_failure``, the default): walk a series' measured request rates upwards;
the knee is the highest rate reached before the first rate that breaks the SLA. A pass above
a failure is not counted (capacity is bought where the service holds at every load up to
it). Rule ``highest_pass`` takes the highest passing rate anywhere. Both are reported
(``highest_passing_rate``), so a difference is visible. Several rows at one rate (repeated
runs): the rate passes only when every row at it passes, and the knee reports the lowest
throughput among them.

*Token basis.* A knee's throughput is on one stated basis (``basis`` column); the Wafer
ramp stores generated tokens as output tok/s, so its knee is on ``basis="output"``.
``auto`` picks the first of total, output, input the row has and says which; nothing is
converted between bases except by the stated blended formula (:data:`BLENDED_FORMULA`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from model.core.ceiling import knee_bracket, steady_state
from model.core.cost import usd_per_mtok
from model.core.frontier import BASES, DEFAULT_SERIES_KEYS, MEASURED_BASES, series_labels
from model.core.sla import SLA, numeric_column, sla_failures, sla_mask

__all__ = [
    "KNEE_RULES",
    "CAPACITY_BASES",
    "DEFAULT_GPUS_PER_NODE",
    "BLENDED_FORMULA",
    "add_blended_throughput",
    "ramp_points",
    "knee",
    "compare_systems",
    "gpus_per_node_of",
    "throughput_on_basis",
]

#: how a knee is read off a ramp (see the module docstring)
KNEE_RULES = ("first_failure", "highest_pass")
#: token bases a capacity number may be on; ``auto`` = first of total/output/input present
CAPACITY_BASES = ("auto", *BASES)
#: GPUs per node when neither the rows nor the caller say: 8-GPU baseboards (HGX B200, MI355X OAM)
DEFAULT_GPUS_PER_NODE = 8

#: one line for the page: how blended tokens are counted
BLENDED_FORMULA = (
    "blended tok/s/GPU = output tok/s/GPU × (OSL + w_input·ISL·(1−hit) + w_cached·ISL·hit) / OSL "
    "(or total tok/s/GPU × the same / (ISL+OSL) when output is missing); hit = prefix-cache hit rate"
)


# --------------------------------------------------------------------------------------------- SLA


# ------------------------------------------------------------------------------------ blended basis


def _check_weight(name: str, value: float) -> float:
    value = float(value)
    if not (math.isfinite(value) and value >= 0):
        raise ValueError(f"{name} must be a finite number >= 0 (got {value})")
    return value


def add_blended_throughput(points: pd.DataFrame, w_input: float, w_cached: float) -> pd.DataFrame:
    """Add blended throughput per GPU, counting input tokens at a weight (see :data:`BLENDED_FORMULA`).

    Weighted tokens per request = OSL + w_input·ISL·(1−hit) + w_cached·ISL·hit, with hit the
    prefix-cache hit rate. Requests/s/GPU come from output tok/s/GPU ÷ OSL, or, without an
    output throughput, from total tok/s/GPU ÷ (ISL+OSL).

    Parameters
    ----------
    points : DataFrame  with ``isl``, ``osl`` [tokens], ``prefix_cache_hit_rate`` [fraction],
        ``output_tokens_per_second_per_gpu`` and/or ``total_tokens_per_second_per_gpu`` [tok/s/GPU]
    w_input : float  weight of an uncached input token relative to an output token [-], e.g. 0.25
    w_cached : float  weight of a cached (prefix-hit) input token [-]

    Returns
    -------
    DataFrame  a copy with ``blended_tokens_per_second_per_gpu`` [blended tok/s/GPU] and
    ``blended_from`` (``"output"``, ``"total"``, or missing). Rows without ISL/OSL get NaN; so do
    rows without a hit rate, unless ``w_input == w_cached`` (then the hit rate does not matter).
    """
    w_input, w_cached = _check_weight("w_input", w_input), _check_weight("w_cached", w_cached)
    isl, osl = numeric_column(points, "isl"), numeric_column(points, "osl")
    hit = numeric_column(points, "prefix_cache_hit_rate")
    if w_input == w_cached:
        hit = np.where(np.isfinite(hit), hit, 0.0)  # ISL·w·(1−hit) + ISL·w·hit = ISL·w for any hit
    weighted = osl + w_input * isl * (1.0 - hit) + w_cached * isl * hit
    output, total = numeric_column(points, "output_tokens_per_second_per_gpu"), numeric_column(points, "total_tokens_per_second_per_gpu")
    with np.errstate(divide="ignore", invalid="ignore"):
        from_output = output * weighted / osl
        from_total = total * weighted / (isl + osl)
    use_output = np.isfinite(from_output) & (osl > 0)
    use_total = ~use_output & np.isfinite(from_total) & (isl + osl > 0)
    blended = np.where(use_output, from_output, np.where(use_total, from_total, np.nan))
    source = np.where(use_output, "output", np.where(use_total, "total", None))
    return points.assign(blended_tokens_per_second_per_gpu=blended,
                         blended_from=pd.array(source, dtype="string"))


# ------------------------------------------------------------------------------------------- ramps


def _check(name: str, value: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ValueError(f"unknown {name} {value!r}; choose one of {', '.join(choices)}")
    return value


def gpus_per_node_of(points: pd.DataFrame, gpus_per_node: int | dict[str, int] | None) -> np.ndarray:
    """GPUs per node per row: a ``gpus_per_node`` column, else the argument, else the default."""
    n = len(points)
    out = np.full(n, np.nan)
    if "gpus_per_node" in points.columns:
        out = numeric_column(points, "gpus_per_node")
    if isinstance(gpus_per_node, dict):
        mapped = points["hardware"].map(gpus_per_node) if "hardware" in points.columns else pd.Series(np.nan, index=points.index)
        fill = pd.to_numeric(mapped, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    else:
        fill = np.full(n, float(gpus_per_node) if gpus_per_node else np.nan)
    out = np.where(np.isfinite(out), out, fill)
    return np.where(np.isfinite(out), out, float(DEFAULT_GPUS_PER_NODE))


def throughput_on_basis(points: pd.DataFrame, basis: str) -> tuple[np.ndarray, np.ndarray]:
    """(tok/s/GPU on the basis, basis name per row); ``auto`` takes total, output, input in turn."""
    if basis == "blended":
        if "blended_tokens_per_second_per_gpu" not in points.columns:
            raise ValueError("basis 'blended' needs add_blended_throughput first (or w_input/w_cached)")
        return numeric_column(points, "blended_tokens_per_second_per_gpu"), np.full(len(points), "blended", dtype=object)
    if basis != "auto":
        return numeric_column(points, f"{basis}_tokens_per_second_per_gpu"), np.full(len(points), basis, dtype=object)
    value = np.full(len(points), np.nan)
    name = np.full(len(points), None, dtype=object)
    for candidate in MEASURED_BASES:
        column = numeric_column(points, f"{candidate}_tokens_per_second_per_gpu")
        take = ~np.isfinite(value) & np.isfinite(column)
        value = np.where(take, column, value)
        name = np.where(take, candidate, name)
    return value, name


def ramp_points(points: pd.DataFrame, keys=DEFAULT_SERIES_KEYS, sla: SLA | None = None, basis: str = "auto",
                gpus_per_node: int | dict[str, int] | None = None, w_input: float | None = None,
                w_cached: float | None = None) -> pd.DataFrame:
    """The ramp rows of ``points`` (request rate set, no interactivity), labelled and on one basis.

    Parameters
    ----------
    points : DataFrame  benchmark points (:data:`model.core.schema.POINT_FIELDS` columns)
    keys : sequence of str  series keys, as for the frontier
    sla : SLA, optional  adds ``meets_sla`` (bool) and ``sla_failure`` (text, ``""`` when met)
    basis : str  one of :data:`CAPACITY_BASES`
    gpus_per_node : int or {hardware: int}, optional  default :data:`DEFAULT_GPUS_PER_NODE`
    w_input, w_cached : float, optional  weights for ``basis="blended"``

    Returns
    -------
    DataFrame  sorted by series and request rate, adding ``series``, ``basis``,
    ``tokens_per_second_per_gpu`` [tok/s/GPU], ``tokens_per_second_per_node`` [tok/s/node],
    ``gpus_per_node``.
    """
    _check("token basis", basis, CAPACITY_BASES)
    if points.empty or "request_rate_rps" not in points.columns:
        ramp = points.iloc[0:0]
    else:
        rate = numeric_column(points, "request_rate_rps")
        inter = numeric_column(points, "interactivity")
        ramp = points[np.isfinite(rate) & (rate > 0) & ~np.isfinite(inter)]
    if basis == "blended":
        if w_input is None or w_cached is None:
            raise ValueError("basis 'blended' needs w_input and w_cached")
        ramp = add_blended_throughput(ramp, w_input, w_cached)
    per_gpu, names = throughput_on_basis(ramp, basis)
    per_node = gpus_per_node_of(ramp, gpus_per_node)
    ramp = ramp.assign(series=series_labels(ramp, keys), basis=pd.array(names, dtype="string"),
                       tokens_per_second_per_gpu=per_gpu, tokens_per_second_per_node=per_gpu * per_node,
                       gpus_per_node=per_node)
    if sla is not None:
        ramp = ramp.assign(meets_sla=sla_mask(ramp, sla), sla_failure=sla_failures(ramp, sla))
    return ramp.sort_values(["series", "request_rate_rps"], kind="stable").reset_index(drop=True)


_KNEE_COLUMNS = [
    "series", "hardware", "status", "request_rate", "tokens_per_second_per_node", "tokens_per_second_per_gpu",
    "basis", "gpus", "gpus_per_node", "usd_per_gpu_hour", "usd_per_mtok", "ttft_s", "first_failing_rate",
    "first_failure", "highest_passing_rate", "max_rate_measured", "rates_measured", "source_file", "source_line",
    "bracket_low", "bracket_high", "crossing_rate", "binding", "bracket_text", "contradiction",
]


def knee(points: pd.DataFrame, sla: SLA | None, usd_per_gpu_hour: dict[str, float] | None = None,
         basis: str = "auto", keys=DEFAULT_SERIES_KEYS, rule: str = "first_failure",
         gpus_per_node: int | dict[str, int] | None = None, w_input: float | None = None,
         w_cached: float | None = None) -> pd.DataFrame:
    """The knee of every ramp series: the highest measured load that meets the SLA, and its cost.

    Parameters
    ----------
    points : DataFrame  benchmark points (ramp rows are picked out as in :func:`ramp_points`)
    sla : SLA or None  ``None``/empty: every rate passes, so the knee is the highest rate measured
    usd_per_gpu_hour : {hardware: float}, optional  [$/GPU/h]; hardware without one is left unpriced
    basis : str  one of :data:`CAPACITY_BASES`; the ``basis`` column says what the numbers count
    keys : sequence of str  series keys (as :func:`model.core.frontier.series_labels`)
    rule : str  one of :data:`KNEE_RULES` (see the module docstring)
    gpus_per_node : int or {hardware: int}, optional  [GPUs/node], default :data:`DEFAULT_GPUS_PER_NODE`
    w_input, w_cached : float, optional  weights for ``basis="blended"``

    Returns
    -------
    DataFrame, one row per series: ``request_rate`` [req/s] (NaN when no rate passes),
    ``tokens_per_second_per_node`` [tok/s/node], ``tokens_per_second_per_gpu`` [tok/s/GPU],
    ``basis``, ``usd_per_gpu_hour`` [$/GPU/h], ``usd_per_mtok`` [$/M tokens on the basis],
    ``ttft_s`` [s] (at the SLA's percentile), ``first_failing_rate`` [req/s] and ``first_failure``
    (why it fails), ``highest_passing_rate`` [req/s] (under either rule), ``max_rate_measured``,
    ``rates_measured``, ``status`` (``ok``, ``ok: no measured rate breaks the SLA`` (capacity may be
    higher), ``no measured rate meets the SLA``) and the knee row's source; the ceiling shown so it can be checked
    (:func:`model.core.ceiling.knee_bracket`: ``bracket_low``/``bracket_high`` [req/s], the ``binding`` limit,
    ``crossing_rate`` [req/s], ``bracket_text``) and ``contradiction`` (:func:`model.core.ceiling.steady_state`:
    why the knee row's own load cannot give its stated throughput; None when it can).
    """
    _check("knee rule", rule, KNEE_RULES)
    sla = sla or SLA()
    ramp = ramp_points(points, keys, sla, basis, gpus_per_node, w_input, w_cached)
    rates = usd_per_gpu_hour or {}
    rows = []
    for series, part in ramp.groupby("series", sort=True):
        by_rate = part.groupby("request_rate_rps", sort=True)
        passes = by_rate["meets_sla"].all()
        failing = passes.index[~passes.to_numpy()]
        passing = passes.index[passes.to_numpy()]
        first_fail = float(failing[0]) if len(failing) else math.nan
        highest_pass = float(passing[-1]) if len(passing) else math.nan
        if rule == "first_failure":
            below = passing[passing < first_fail] if len(failing) else passing
            chosen = float(below[-1]) if len(below) else math.nan
        else:
            chosen = highest_pass
        reason = ""
        if len(failing):
            reason = "; ".join(dict.fromkeys(part.loc[part["request_rate_rps"] == first_fail, "sla_failure"]))
        row: dict[str, object] = {
            "series": series, "hardware": part["hardware"].iloc[0] if "hardware" in part else None,
            "first_failing_rate": first_fail, "first_failure": reason, "highest_passing_rate": highest_pass,
            "max_rate_measured": float(passes.index[-1]), "rates_measured": int(len(passes)),
        }
        row.update(knee_bracket(part, chosen, first_fail if rule == "first_failure" or not len(failing) else
                                next((float(r) for r in failing if r > chosen), math.nan), sla.limits()))
        if math.isnan(chosen):
            row["status"] = "no measured rate meets the SLA"
            rows.append(row)
            continue
        at = part[part["request_rate_rps"] == chosen]
        pick = at.loc[at["tokens_per_second_per_gpu"].fillna(np.inf).idxmin()]  # lowest of repeated runs
        hardware = pick.get("hardware")
        rate = rates.get(hardware, math.nan) if hardware is not None else math.nan
        tps = float(pick["tokens_per_second_per_gpu"])
        row.update({
            "status": "ok" if len(failing) else "ok: no measured rate breaks the SLA",
            "request_rate": chosen, "tokens_per_second_per_node": float(pick["tokens_per_second_per_node"]),
            "tokens_per_second_per_gpu": tps, "basis": pick["basis"],
            "gpus": pick.get("gpus"), "gpus_per_node": float(pick["gpus_per_node"]),
            "usd_per_gpu_hour": rate, "usd_per_mtok": float(usd_per_mtok(rate, tps)) if math.isfinite(tps) else math.nan,
            "ttft_s": pick.get(sla.ttft_field, math.nan),
            "source_file": pick.get("source_file"), "source_line": pick.get("source_line"),
            "contradiction": steady_state(pick, str(pick["basis"]), chosen),
        })
        rows.append(row)
    out = pd.DataFrame(rows, columns=_KNEE_COLUMNS)
    for column in ("request_rate", "tokens_per_second_per_node", "tokens_per_second_per_gpu", "gpus_per_node",
                   "usd_per_gpu_hour", "usd_per_mtok", "ttft_s", "first_failing_rate", "highest_passing_rate",
                   "max_rate_measured", "bracket_low", "bracket_high", "crossing_rate"):
        out[column] = pd.to_numeric(out[column], errors="coerce").astype(float)
    return out


# ------------------------------------------------------------------------------ tokens per dollar


def _fmt(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:,.3g}"


def compare_systems(rows: pd.DataFrame, usd_per_gpu_hour: dict[str, float],
                    gpus_per_node: int | dict[str, int] | None = None, baseline: str | None = None) -> pd.DataFrame:
    """Tokens per dollar of each system against a baseline, with the arithmetic spelled out.

    Parameters
    ----------
    rows : DataFrame  one row per system with ``hardware`` and ``tokens_per_second_per_node``
        [tok/s/node] or ``tokens_per_second_per_gpu`` [tok/s/GPU]; optional ``series`` (else the
        hardware names the system), ``gpus_per_node`` and ``basis``. :func:`knee` output fits.
        Rows on different token bases are refused (ValueError); rows without throughput are skipped.
    usd_per_gpu_hour : {hardware: float}  [$/GPU/h]
    gpus_per_node : int or {hardware: int}, optional  [GPUs/node] where ``rows`` has no column
    baseline : str, optional  series (or hardware) the others are divided by; default the first row

    Returns
    -------
    DataFrame, one row per non-baseline system: ``throughput_ratio`` (tok/s/node A ÷ B),
    ``price_ratio_gpu`` ($/GPU-hour A ÷ B), ``price_ratio_node`` ($/node-hour A ÷ B),
    ``tokens_per_usd`` and ``baseline_tokens_per_usd`` [tok/$], ``tokens_per_usd_ratio``
    (= throughput ratio ÷ node price ratio), ``break_even_usd_per_gpu_hour`` (A's $/GPU-hour at
    which tokens per dollar are equal = B's rate × per-GPU throughput ratio), ``break_even_price_ratio``
    (that rate ÷ B's rate) and ``arithmetic`` (text).
    """
    frame = rows.copy()
    if "series" not in frame.columns:
        frame["series"] = frame["hardware"]
    if "basis" in frame.columns:
        bases = sorted(set(frame["basis"].dropna().astype(str)))
        if len(bases) > 1:
            raise ValueError(f"systems are on different token bases ({', '.join(bases)}); compare like with like")
    gpn = gpus_per_node_of(frame, gpus_per_node)
    node = numeric_column(frame, "tokens_per_second_per_node")
    gpu = numeric_column(frame, "tokens_per_second_per_gpu")
    node = np.where(np.isfinite(node), node, gpu * gpn)
    gpu = np.where(np.isfinite(gpu), gpu, node / gpn)
    frame = frame.assign(_node=node, _gpu=gpu, _gpn=gpn, _rate=frame["hardware"].map(usd_per_gpu_hour).astype(float))
    frame = frame[np.isfinite(frame["_node"]) & (frame["_node"] > 0)]
    if frame.empty:
        return pd.DataFrame(columns=["series", "baseline", "arithmetic"])
    if baseline is None:
        base = frame.iloc[0]
    else:
        hit = frame[(frame["series"] == baseline) | (frame["hardware"] == baseline)]
        if hit.empty:
            raise ValueError(f"baseline {baseline!r} is not among the systems: {', '.join(map(str, frame['series']))}")
        base = hit.iloc[0]
    basis = str(frame["basis"].dropna().iloc[0]) if "basis" in frame and frame["basis"].notna().any() else ""
    unit = f"{basis} tok" if basis else "tok"
    out = []
    for _, a in frame.iterrows():
        if a["series"] == base["series"]:
            continue
        throughput_ratio = a["_node"] / base["_node"]
        gpu_ratio = a["_gpu"] / base["_gpu"]
        price_gpu = a["_rate"] / base["_rate"]
        node_a, node_b = a["_rate"] * a["_gpn"], base["_rate"] * base["_gpn"]
        price_node = node_a / node_b
        tpd_a, tpd_b = 3600.0 * a["_node"] / node_a, 3600.0 * base["_node"] / node_b
        tpd_ratio = tpd_a / tpd_b
        break_even = base["_rate"] * gpu_ratio
        unpriced = [str(r["hardware"]) for r in (a, base) if not np.isfinite(r["_rate"])]
        text = (
            f"{a['series']} vs {base['series']}: throughput {_fmt(a['_node'])} / {_fmt(base['_node'])} {unit}/s/node"
            f" = {throughput_ratio:.3f}; price ${a['_rate']:.2f} / ${base['_rate']:.2f} per GPU-hour = {price_gpu:.3f}"
            f" (per node: ${node_a:.2f} / ${node_b:.2f} for {a['_gpn']:g} / {base['_gpn']:g} GPUs = {price_node:.3f});"
            f" tokens per $ ratio = {throughput_ratio:.3f} / {price_node:.3f} = {tpd_ratio:.2f}x;"
            f" break-even {a['hardware']} price = ${base['_rate']:.2f} × {gpu_ratio:.3f} (per-GPU throughput ratio)"
            f" = ${break_even:.2f}/GPU-hour: cheaper than that wins on tokens per dollar"
        )
        if unpriced:
            text = (f"{a['series']} vs {base['series']}: throughput {_fmt(a['_node'])} / {_fmt(base['_node'])}"
                    f" {unit}/s/node = {throughput_ratio:.3f}; no $/GPU-hour for {', '.join(unpriced)}: set a rate")
        out.append({
            "series": a["series"], "baseline": base["series"], "hardware": a["hardware"],
            "baseline_hardware": base["hardware"], "basis": basis or None,
            "tokens_per_second_per_node": a["_node"], "baseline_tokens_per_second_per_node": base["_node"],
            "throughput_ratio": throughput_ratio, "throughput_ratio_gpu": gpu_ratio,
            "usd_per_gpu_hour": a["_rate"], "baseline_usd_per_gpu_hour": base["_rate"], "price_ratio_gpu": price_gpu,
            "usd_per_node_hour": node_a, "baseline_usd_per_node_hour": node_b, "price_ratio_node": price_node,
            "tokens_per_usd": tpd_a, "baseline_tokens_per_usd": tpd_b, "tokens_per_usd_ratio": tpd_ratio,
            "break_even_usd_per_gpu_hour": break_even, "break_even_price_ratio": gpu_ratio,
            "arithmetic": text,
        })
    return pd.DataFrame(out)
