"""The answers the dashboard states in words, as pure functions (the pages only render them).

The overview headline, the break-even rate at one interactivity, the pair a user most
likely asks about, the iso table as a people-ready pivot, and the labels of workloads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from model.core.iso import CostCurve, break_even_rates, iso_table
from model.core.status import PRICED, priced_mask, rank_key, status_words
from model.core.uncertainty import AUTO, RULE
from model.present import fmt

if TYPE_CHECKING:
    from model.present.parts import Answer

__all__ = ["parse_targets", "cell_words", "changes_of", "headline", "summary", "summary_of", "cheapest_at", "default_pair", "common_range",
           "break_even_answer", "iso_pivot", "iso_shown", "workload_label", "status_text", "pair_intervals",
           "method_errors_text", "method_words", "uncertain_crossings_text", "error_payload", "REACH_WORDS"]


#: the one name of each out-of-reach state, wherever a person reads it
REACH_WORDS = {"above reach": "out of reach (too fast)", "below reach": "out of reach (too slow)"}


def parse_targets(text: str) -> tuple[float, ...]:
    """Interactivity targets typed as ``"10, 20; 50"`` [tok/s/user]; empty text means the defaults.

    Raises ValueError naming the value that is not a usable target.
    """
    targets = []
    for part in str(text).replace(";", ",").split(","):
        if not part.strip():
            continue
        try:
            value = float(part)
        except ValueError:
            raise ValueError(f"{part.strip()!r} is not a number of tok/s/user") from None
        if not (0 < value < 100_000):
            raise ValueError(f"a target must be above 0 and below 100,000 tok/s/user, got {part.strip()}")
        targets.append(value)
    if len(targets) > 20:
        raise ValueError(f"at most 20 targets, got {len(targets)}")
    return tuple(sorted(set(targets)))


def status_text(row) -> str:
    """A cell of the iso table: ``$0.42/M``, ``$0.42/M (clamped, not priced)`` or why there is no value
    (:func:`model.core.status.status_words`); with the interpolation error when the row has it
    (:attr:`model.present.parts.Answer.iso_error`): ``$0.42/M ± 6 %``, ``$0.42/M −8/+11 %``,
    ``$0.42/M (measured)``, ``$0.42/M (± not estimated)`` (too few points in the store to test it)."""
    if row["status"] in PRICED:
        if "usd_per_mtok_low" in row:
            if row["error_from"] == "none":
                return fmt.usd(row["usd_per_mtok"]) + " (± not estimated)"
            return fmt.usd_band(row["usd_per_mtok"], row["usd_per_mtok_low"], row["usd_per_mtok_high"],
                                row["error_from"])
        return fmt.usd(row["usd_per_mtok"])
    if row["status"] == "clamped":
        return fmt.usd(row["usd_per_mtok"]) + " (clamped, not priced)"
    return status_words(row["status"], row.get("side", ""), row.get("reason", ""))


def cell_words(frame: pd.DataFrame) -> list[str]:
    """Each row's status in words (:func:`model.core.status.status_words`), for a table a person reads."""
    side = frame["side"] if "side" in frame else pd.Series("", index=frame.index)
    reason = frame["reason"] if "reason" in frame else pd.Series("", index=frame.index)
    return [status_words(str(s), str(d) if isinstance(d, str) else "", str(r) if isinstance(r, str) else "")
            for s, d, r in zip(frame["status"], side, reason)]


def cheapest_at(curves: dict[str, CostCurve], x: float, method: str = "linear") -> pd.DataFrame:
    """The iso rows at one interactivity ``x`` [tok/s/user]: priced ones cheapest first, then clamped, then the
    ones without a value (:func:`model.core.status.rank_key`)."""
    at = iso_table(curves, [x], method)
    return at.assign(_rank=rank_key(at["status"])).sort_values(["_rank", "usd_per_mtok"], na_position="last",
                                                                kind="stable", ignore_index=True).drop(columns="_rank")


def changes_of(result) -> pd.DataFrame:
    """Where the cheapest series changes, as crossover rows (``series_a``, ``series_b``, ``interactivity``):
    every crossing while few series are in view, else the lower envelope's crossings (which cover the
    cheapest series, the one a headline names, without crossing every pair)."""
    envelope = getattr(result, "envelope", None)
    if envelope is None or not len(result.crossovers) or len(result.curves) <= 8:
        return result.crossovers
    changes = envelope.changes[envelope.changes["kind"] == "crossover"]
    return pd.DataFrame({"series_a": changes["from_series"], "series_b": changes["to_series"],
                         "interactivity": changes["interactivity"]})


def headline(at_x: pd.DataFrame, crossovers: pd.DataFrame, x: float) -> str:
    """Which series is cheapest at ``x``, by how much, and where that changes.

    ``at_x``: :func:`cheapest_at` rows; ``crossovers``: the analysis' crossovers (may be empty).
    """
    at = at_x[priced_mask(at_x)]
    if at.empty:
        return f"No series reaches {fmt.interactivity(x)}."
    best = at.iloc[0]
    text = f"At {fmt.interactivity(x)}, {best['series']} is cheapest at {fmt.usd(best['usd_per_mtok'])}"
    if len(at) > 1:
        second = at.iloc[1]
        saving = 1 - best["usd_per_mtok"] / second["usd_per_mtok"]
        if fmt.usd(best["usd_per_mtok"]) == fmt.usd(second["usd_per_mtok"]):
            text += f", level with {second['series']}"
        else:
            text += f", {fmt.percent(saving)} below {second['series']} ({fmt.usd(second['usd_per_mtok'])})"
    mine = crossovers[(crossovers["series_a"] == best["series"]) | (crossovers["series_b"] == best["series"])] \
        if not crossovers.empty else crossovers
    if not mine.empty:
        nearest = mine.iloc[(mine["interactivity"] - x).abs().argsort()].iloc[0]
        other = nearest["series_b"] if nearest["series_a"] == best["series"] else nearest["series_a"]
        side = "above" if nearest["interactivity"] > x else "below"
        text += f"; {other} takes over {side} {fmt.interactivity(nearest['interactivity'])}"
    return text + "."


def _spans(spans: list[tuple[float, float]]) -> str:
    """``[(18.1, 34.3), (50.6, nan)]`` -> ``"from 18.1 to 34.3 and above 50.6"`` (NaN: an open end)."""
    words = []
    for lo, hi in spans:
        if np.isnan(lo):
            words.append(f"below {hi:.1f}")
        elif np.isnan(hi):
            words.append(f"above {lo:.1f}")
        else:
            words.append(f"from {lo:.1f} to {hi:.1f}")
    return ", ".join(words[:-1]) + (" and " if len(words) > 1 else "") + words[-1]


def pair_intervals(crossovers: pd.DataFrame, reach: pd.DataFrame) -> pd.DataFrame:
    """Each pair's crossings said once, as the intervals where each series of the pair is cheaper.

    ``crossovers``: rows as :func:`model.core.crossings.crossovers` (``series_a``, ``series_b``, ``interactivity``,
    ``cheaper_below``, ``cheaper_above``); ``reach``: :func:`model.core.iso.reach` (``series``,
    ``min_interactivity``, ``max_interactivity``). The pair's common range is [larger minimum, smaller
    maximum]; an end the reach does not give is said "below"/"above" the crossing.

    Returns one row per pair, in the order pairs first appear: ``series_a``, ``series_b``,
    ``crossings`` (the 1-based positions of its rows in ``crossovers``, the chart's numbers) and
    ``text``, e.g. "MI355X cheaper from 18.1 to 34.3 and from 50.6 to 55.7 tok/s/user; B200 cheaper
    from 34.3 to 50.6 and from 55.7 to 89.4 tok/s/user".
    """
    columns = ["series_a", "series_b", "crossings", "text"]
    if crossovers.empty:
        return pd.DataFrame(columns=columns)
    ends = reach.set_index("series")[["min_interactivity", "max_interactivity"]] if not reach.empty else None
    numbered = crossovers.reset_index(drop=True).assign(number=lambda f: f.index + 1)
    rows = []
    for (a, b), group in numbered.groupby(["series_a", "series_b"], sort=False):
        group = group.sort_values("interactivity", kind="stable")
        known = ends is not None and a in ends.index and b in ends.index
        lo = max(ends.loc[a, "min_interactivity"], ends.loc[b, "min_interactivity"]) if known else np.nan
        hi = min(ends.loc[a, "max_interactivity"], ends.loc[b, "max_interactivity"]) if known else np.nan
        xs = group["interactivity"].to_numpy(dtype=float)
        bounds = [lo, *xs, hi]
        owners = [group["cheaper_below"].iloc[0], *group["cheaper_above"]]
        spans: dict[str, list[tuple[float, float]]] = {}
        for owner, start, stop in zip(owners, bounds[:-1], bounds[1:]):
            mine = spans.setdefault(owner, [])
            if mine and mine[-1][1] == start:        # a touching crossing: the same series stays cheaper
                mine[-1] = (mine[-1][0], stop)
            elif not (start == stop):                 # an empty interval (a crossing at the range's end) says nothing
                mine.append((start, stop))
        text = "; ".join(f"{owner} cheaper {_spans(s)} tok/s/user" for owner, s in spans.items() if s)
        rows.append({"series_a": a, "series_b": b, "crossings": tuple(int(n) for n in group["number"]),
                     "text": text})
    return pd.DataFrame(rows, columns=columns)


def default_pair(at_x: pd.DataFrame) -> tuple[str, str] | None:
    """The pair a buyer most likely asks about at one interactivity: the runner-up against the
    cheapest series (how low must the runner-up's rate go to match?). None with fewer than two."""
    at = at_x[priced_mask(at_x)]
    curved = at_x[at_x["status"].isin(("measured", "interpolated", "clamped", "unreachable"))]   # a curve each
    names = at["series"].tolist() if len(at) >= 2 else curved["series"].tolist()
    return (names[1], names[0]) if len(names) >= 2 else None


def common_range(curves: dict[str, CostCurve], a: str, b: str) -> tuple[float, float] | None:
    """The interactivity range both frontiers reach [tok/s/user], or None when they share none."""
    lo = max(curves[a].x_min, curves[b].x_min)
    hi = min(curves[a].x_max, curves[b].x_max)
    return (lo, hi) if hi > lo else None


def break_even_answer(curves: dict[str, CostCurve], series: str, against: str, x: float,
                      method: str = "linear") -> dict:
    """The $/GPU-hour at which ``series`` costs the same per million tokens as ``against`` at ``x``.

    Returns a dict: ``rate`` (break-even $/GPU-hour, NaN when either is out of reach at x),
    ``current`` (the series' rate now), ``cheaper_now`` (bool) and ``text``, e.g.
    "At 50.0 tok/s/user, B200 becomes cheaper than MI355X below $1.61/GPU-hour (now $2.10)."
    """
    row = break_even_rates(curves, series, against, [x], method).iloc[0]
    rate, current = float(row["break_even_usd_per_gpu_hour"]), float(row["usd_per_gpu_hour"])
    where = fmt.interactivity(x)
    if not np.isfinite(rate):
        reach = common_range(curves, series, against)
        span = (f"; both reach {reach[0]:.1f}–{reach[1]:.1f} tok/s/user" if reach else "; they share no range")
        return {"rate": float("nan"), "current": current, "cheaper_now": None,
                "text": f"{series} and {against} cannot both be priced at {where}{span}."}
    cheaper_now = current < rate
    verb = "stays cheaper than" if cheaper_now else "becomes cheaper than"
    if abs(current - rate) < 0.005:
        verb = "matches"
    text = (f"At {where}, {series} {verb} {against} below {fmt.usd(rate, '/GPU-hour')} "
            f"(now {fmt.usd(current, '/GPU-hour')}).") if verb != "matches" else \
        f"At {where}, {series} matches {against} at {fmt.usd(rate, '/GPU-hour')}, its rate now."
    return {"rate": rate, "current": current, "cheaper_now": cheaper_now, "text": text}


def iso_shown(cost) -> pd.DataFrame:
    """The iso table the Matched interactivity page, the report and ``costfrontier iso`` show: every series at each
    target (:attr:`Cost.iso_error`) and, when the interactivity you need is none of them, there too (:attr:`Cost.at_x`,
    its ratio to the baseline's $/M there), each series' rows by interactivity. A view asking for 50 tok/s/user is
    answered at 50, so its table has that column."""
    iso, x, at = cost.iso_error, cost.interactivity_needed, cost.at_x
    if x is None or iso.empty or at is None or at.empty or \
            np.isclose(iso["interactivity"].astype(float), x, rtol=0, atol=1e-6).any():
        return iso
    base = at.loc[(at["series"] == cost.baseline) & at["usd_per_mtok"].gt(0), "usd_per_mtok"]
    extra = at.assign(ratio_to_baseline=at["usd_per_mtok"] / float(base.iloc[0]) if len(base) else np.nan)
    both = pd.concat([iso, extra[[c for c in iso.columns if c in extra.columns]]], ignore_index=True)
    order = {s: i for i, s in enumerate(dict.fromkeys(both["series"]))}
    return both.iloc[np.lexsort((both["interactivity"].astype(float).to_numpy(),
                                 both["series"].map(order).to_numpy()))].reset_index(drop=True)


def iso_pivot(iso: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The iso table as two people-ready grids (series x target): $/M cells and ratio cells. Targets are
    labelled with as many decimals as tell them apart; targets within 1e-6 tok/s/user are one column."""
    iso = iso.assign(interactivity=iso["interactivity"].astype(float).round(6)) \
        .drop_duplicates(["series", "interactivity"])
    table = iso.assign(cell=[status_text(r) for _, r in iso.iterrows()],
                       ratio=iso["ratio_to_baseline"].map(fmt.ratio))
    costs = table.pivot(index="series", columns="interactivity", values="cell")
    ratios = table.pivot(index="series", columns="interactivity", values="ratio")
    labels = _target_labels(list(costs.columns))
    for grid in (costs, ratios):
        grid.columns = labels
        grid.index.name = "Series"
    return costs, ratios


def _target_labels(targets: list[float]) -> list[str]:
    """Column labels of distinct targets [tok/s/user]: one decimal, or as many as tell them apart
    (``50.0`` and ``50.01`` -> ``50.00`` and ``50.01``); a table never gets two columns of one name."""
    for decimals in range(1, 7):
        labels = [f"{float(x):,.{decimals}f} tok/s/user" for x in targets]
        if len(set(labels)) == len(labels):
            return labels
    return [fmt.interactivity(x) for x in targets]   # not reached: iso_pivot merges targets within 1e-6


def workload_label(model: str, isl: str, osl: str, frontier_rows: int, rows: int) -> str:
    """``GLM-5 · ISL 8192 / OSL 1024 · 24 rows``; a ramp-only workload says so."""
    name = model or "model not stated"
    sizes = f"ISL {isl or '?'} / OSL {osl or '?'}"
    kind = "" if frontier_rows else ", load ramp"
    return f"{name} · {sizes} · {fmt.count(rows, 'row')}{kind}"


def summary(result, at_x: pd.DataFrame, x: float, method: str, lead: str | None = None,
            with_break_even: bool = True) -> str:
    """The report's answer paragraph: the cheapest series at ``x`` [tok/s/user], by how much, where that
    changes (the three crossings nearest ``x``), and the runner-up's break-even $/GPU-hour.

    ``result``: an analysis with its crossings (:func:`model.core.analysis.cross`); ``at_x``: :func:`cheapest_at`.
    ``lead``: the sentence that names the cheapest (the recommendation's, with its ±) instead of this one's;
    ``with_break_even``: end with the runner-up's break-even rate (off when the recommendation says it).
    """
    at = at_x[priced_mask(at_x)]
    if at.empty:
        return f"No series in this view reaches {x:.1f} tok/s/user, so none can be priced there."
    best = at.iloc[0]
    text = (f"At {x:.1f} tok/s/user, {best['series']} is the cheapest system in this view at "
            f"{fmt.usd(best['usd_per_mtok'])} tokens")
    if len(at) > 1:
        second = at.iloc[1]
        if fmt.usd(best["usd_per_mtok"]) == fmt.usd(second["usd_per_mtok"]):
            text += f", level with {second['series']}"
        else:
            saving = 1 - best["usd_per_mtok"] / second["usd_per_mtok"]
            text += (f", {fmt.percent(saving)} below {second['series']} ({fmt.usd(second['usd_per_mtok'])}; "
                     f"{second['usd_per_mtok'] / best['usd_per_mtok']:.2f}x)")
    text = lead if lead else text + "."
    cross = result.crossovers
    mine = cross[(cross["series_a"] == best["series"]) | (cross["series_b"] == best["series"])] \
        if not cross.empty else cross
    if not mine.empty:
        changes = []
        nearest = mine.iloc[(mine["interactivity"] - x).abs().argsort()[:3]]   # the three closest to x
        for _, row in nearest.sort_values("interactivity").iterrows():
            other = row["series_b"] if row["series_a"] == best["series"] else row["series_a"]
            side = "above" if row["cheaper_above"] == other else "below"
            changes.append(f"{other} is cheaper {side} {row['interactivity']:.1f} tok/s/user")
        more = f" ({len(mine) - len(nearest)} more crossings in the list below)" if len(mine) > len(nearest) else ""
        text += " That changes where the cost curves cross: " + "; ".join(changes) + more + "."
    elif len(result.curves) > 1:
        text += f" No other series' cost curve crosses {best['series']}'s in this view."
    if len(at) > 1 and with_break_even:
        second = at.iloc[1]
        table = break_even_rates(result.curves, second["series"], best["series"], [x], method)
        needed = float(table["break_even_usd_per_gpu_hour"].iloc[0])
        now = float(table["usd_per_gpu_hour"].iloc[0])
        if np.isfinite(needed):
            text += (f" {second['series']} would have to cost {fmt.usd(needed, '/GPU-hour')} instead of "
                     f"{fmt.usd(now, '/GPU-hour')} to match {best['series']} at this interactivity.")
    return text


def summary_of(answer: "Answer") -> str:
    """The report's answer paragraph for an answer (:func:`summary`; its parts ``rows``, ``cost``, ``crossed``,
    ``recommendation``), or why there is none."""
    cost = answer.cost
    x = cost.interactivity_needed
    if x is None:
        return ("No benchmark rows match this view's filters." if answer.rows.rows.empty else
                "No series in this view has both interactivity and a priced throughput, so there is "
                "nothing to price.")
    rec = answer.recommendation
    lead = next((line for line in rec.lines if line.startswith(f"At {fmt.interactivity(x)}, ")), None)
    return summary(answer.crossed.analysis, cost.at_x, x, cost.method, lead, rec.break_even is None)


def calibration_text(calibration) -> str:
    """How the bands were calibrated and how often they held, in one sentence (``calibration``:
    :class:`model.core.uncertainty.Calibration`), e.g. "Calibrated on this store's 20 measured points that have a
    neighbour on each side (4 frontiers), each left out in turn and predicted from the rest: the range held for 18
    of 20 (90 %) under linear (median −20/+25 %) and 18 of 20 (90 %) under monotone (median −13/+15 %)"."""
    table = calibration.table[calibration.table["kind"] == "store"] if not calibration.table.empty else \
        calibration.table
    count = calibration.points
    if table.empty:
        return (f"This store holds {fmt.count(count, 'measured point')} with a neighbour on each side: too few to say "
                f"how far interpolation can be off (a range that holds 9 times in 10 needs at least 9), so no range is "
                "given.")
    each = [f"{int(r.inside)} of {int(r.points)} ({fmt.percent(r.share_inside)}) under {r.method} (median "
            f"{fmt.band_pm(r.median_low_pct / 100, r.median_high_pct / 100)})" for r in table.itertuples()]
    return (f"Calibrated on this store's {fmt.count(count, 'measured point')} that "
            f"{'has' if count == 1 else 'have'} a neighbour on each side ({fmt.count(calibration.frontiers, 'frontier')}"
            f"), each left out in turn and predicted from the rest: the range held for " + " and ".join(each) + ".")


def method_errors_text(errors) -> str:
    """How far each interpolation method was off on this view, and how the bands were calibrated on the store, in
    two sentences (``errors``: :class:`model.core.uncertainty.Uncertainty`), e.g. "On this view's 20 measured
    points that have a neighbour on each side: linear was off by 7.0% at the median point and by 17.6% or less at
    9 points in 10; monotone (in use) by 2.1% and 9.2%." and :func:`calibration_text`."""
    rows = errors.by_method[errors.by_method["points"] > 0] if errors.by_method is not None else None
    text = calibration_text(errors.calibration)
    if rows is None or rows.empty:
        return text
    parts = []
    for i, r in enumerate(rows.itertuples()):
        name = f"{r.method}{' (in use)' if r.method == errors.method else ''}"
        parts.append(f"{name} was off by {fmt.percent(r.usd_median, 1)} at the median point and by "
                     f"{fmt.percent(r.usd_p90, 1)} or less at 9 points in 10" if i == 0 else
                     f"{name} by {fmt.percent(r.usd_median, 1)} and {fmt.percent(r.usd_p90, 1)}")
    count = int(rows["points"].max())
    return (f"On this view's {fmt.count(count, 'measured point')} that {'has' if count == 1 else 'have'} a "
            f"neighbour on each side: " + "; ".join(parts) + ". " + text)


def method_words(asked: str, errors) -> str:
    """Which interpolation method an answer used and why, one sentence for the headline: ``asked`` is the view's
    (``auto``, or a method it pins), ``errors`` the answer's :class:`model.core.uncertainty.Uncertainty` (its
    ``method`` the one used). E.g. "Interpolation: monotone (it fits this store's data better by leave-one-out).",
    "Interpolation: linear (set in this view; monotone fits this store's data better)."."""
    calibration = errors.calibration
    used, better = errors.method, calibration.better
    if asked != AUTO:
        why = "set in this view" + (f"; {better} fits this store's data better" if better and better != used else "")
    elif better is not None:
        why = "it fits this store's data better by leave-one-out"
    elif calibration.points > 0:
        why = "neither method fits this store's data better on both leave-one-out measures"
    else:
        why = "no measured point lies between two others to test which fits better"
    return f"Interpolation: {used} ({why})."


def uncertain_crossings_text(marked: pd.DataFrame) -> list[str]:
    """One sentence per crossover marked ``within_uncertainty``, numbered as on the chart (its row in ``marked``)."""
    if marked.empty or "within_uncertainty" not in marked:
        return []
    out = []
    for number, row in enumerate(marked.reset_index(drop=True).to_dict("records"), 1):
        if row["within_uncertainty"]:
            lo, hi = row.get("uncertain_from", np.nan), row.get("uncertain_to", np.nan)
            where = (f"from {lo:.1f} to {hi:.1f} tok/s/user" if np.isfinite(lo) and np.isfinite(hi) else
                     "on one side of it")
            out.append(f"crossing {number} ({row['series_a']} and {row['series_b']} at {row['interactivity']:.1f} "
                       f"tok/s/user) is within uncertainty: {where} the two curves' ranges overlap, so the data do "
                       "not settle which series is cheaper there")
    return out


def error_payload(errors) -> dict:
    """The bands of a view for ``--json``: the method used, the rule and level, the store's calibration (how often
    the band held, by method and kind: ``calibration``; each method's quantile and its leave-one-out error over the
    store: ``store_by_method``), each method's error over the view's own points (``by_method``, fractions:
    ``points``, ``usd_median``, ``usd_p90``, ``tps_median``, ``tps_p90``) and each series' kind of band."""
    calibration = errors.calibration
    interior = errors.loo["series"].value_counts() if errors.loo is not None and not errors.loo.empty else {}
    return {
        "method": errors.method,
        "rule": RULE,
        "level": calibration.level,
        "calibration": {"points": calibration.points, "frontiers": calibration.frontiers,
                        "better": calibration.better, "text": calibration_text(calibration),
                        "table": [{k: (_plain(v)) for k, v in r.items()}
                                  for r in calibration.table.to_dict("records")],
                        "quantile": {m: _plain(q) for m, q in calibration.quantile.items()}},
        "store_by_method": {str(r["method"]): _figures(r) for r in calibration.summary.to_dict("records")},
        "by_method": {str(r["method"]): _figures(r) for r in errors.by_method.to_dict("records")}
        if errors.by_method is not None else {},
        "bands": [{"series": s, "kind": errors.kind(s), "quantile": _plain(errors.quantile(s)),
                   "interior_points": int(interior.get(s, 0))} for s in errors.series],
    }


def _plain(value):
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if np.isfinite(value) else None
    return value


def _figures(row: dict) -> dict:
    return {k: (int(v) if k == "points" else _plain(v)) for k, v in row.items() if k != "method"}
