"""The pure steps of an answer's cost parts and the typed values they return: each takes what it reads and
returns a value; none reads the store or keeps anything. :func:`model.present.view_answer.build_answer` runs
them in a fixed order (its :data:`~model.present.view_answer.STEPS`).

The dependencies, read top to bottom: the inputs' rows → :func:`rows_of` (goodput caps, cost profiles, the
workload split, the rates: :class:`Rows`) → :func:`fit_of` (the frontier and its leave-one-out, the one expensive
step, which the dashboard caches by the view's frontier key: :class:`Fit`) → :func:`cost_of` (the priced curves,
the iso table and its ±, the interactivity you need, the series there, the pair and its break-even:
:class:`Cost`) → :func:`crossed_of` (crossings, the envelope, the break-even curve: :class:`Crossed`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from model.core.analysis import Analysis, analyse, cross, prepared_of, workload_split
from model.core.cost import resolve_rates
from model.core.cost_profiles import points_with_profiles, rates_with_profiles
from model.core.frontier import fit_frontiers, series_labels, throughput_column
from model.core.goodput import TTFT_CAPS, Caps, apply_goodput, caps_from_text
from model.core.history import history
from model.core.interactivity import by_definition
from model.core.iso import METHODS, break_even_rates, iso_table
from model.core.leave_one_out import leave_one_out_methods
from model.core.notes import Note, noted
from model.core.repeats import repeat_spread
from model.core.status import PRICED, series_without_curve
from model.core.tco import TcoInputError
from model.core.uncertainty import (
    Calibration,
    iso_with_error,
    mark_crossovers,
    no_calibration,
    uncertainty,
)
from model.core.unpriced import break_even_column, curves_at_one, unpriced_at, with_unpriced
from model.core.view import View
from model.core.view_fields import FIELDS, RATE
from model.present.answers import break_even_answer, cheapest_at, common_range, default_pair
from model.present.parts import (
    Cost,
    Crossed,
    Crossings,
    Fit,
    Good,
    History,
    Overview,
    Points,
    Priced,
    Pricing,
    Rows,
)

__all__ = ["points_of", "rows_of_points", "split_of", "rates_of_view", "DRAW_LIMIT", "priced", "scenario_of", "hardware_of", "usd_per_gpu_hour_of", "rows_of", "fit_of",
           "analysis_of", "pricing_of", "pricing_key", "cost_of", "crossings_of", "crossed_of", "baseline_of", "iso_of", "x_range_of", "interactivity_needed_of", "moved_interactivity", "at_x_of", "pair_of",
           "drawn_of", "spread_of", "frontier_table_of", "history_of", "overview_of", "notes_of", "good_of",
           "caps_table_of", "BREAK_EVEN_SAMPLES", "without_curve_of", "cells_of"]

#: past this many series a cost chart draws what a person can read (:func:`drawn_of`)
DRAW_LIMIT = 40
#: the break-even curve across interactivity is read at this many points of the pair's common range
BREAK_EVEN_SAMPLES = 60


def good_of(view: View, rows: pd.DataFrame, samples) -> Good:
    """The rows before pricing: interactivity by the view's definition (:func:`model.core.interactivity.by_definition`:
    TPOT or ITL), throughput times each point's good fraction when the view sets goodput caps."""
    defined, said = by_definition(rows, view.interactivity_from)
    caps = caps_from_text(view.goodput) if view.goodput else None
    out, notes = apply_goodput(defined, samples, caps)
    return Good(out, caps, (*noted("rows", said), *noted("goodput", notes)))


def priced(view: View, rows: pd.DataFrame) -> Priced:
    """``rows`` priced by the view's cost profiles, and the rates that result (:func:`rates_of_view`)."""
    try:
        points = points_with_profiles(rows, view.cost_profiles(), view.priced_by)
    except TcoInputError:
        points = rows
    return rates_of_view(view, points)


def rates_of_view(view: View, points: pd.DataFrame) -> Priced:
    """The rates ``points`` (as the view's cost profiles relabel them) are priced at: the view's own over its
    profiles', and what could not be applied."""
    try:
        rates, notes = rates_with_profiles(dict(view.rates), view.cost_profiles(), view.priced_by)
    except TcoInputError as exc:
        return Priced(points, dict(view.rates), (Note("profile", f"cost profiles not applied: {exc}"),))
    return Priced(points, rates, noted("profile", notes))


def split_of(view: View, points: pd.DataFrame) -> tuple[tuple[str, ...], Note | None]:
    """The view's series keys, split by workload when it mixes them (unless it pools them); and the split's note."""
    if view.workload != "all" or view.mix_workloads:
        return view.by, None
    by, note = workload_split(points, view.by)
    return by, (Note("selection", note) if note else None)


def scenario_of(view: View, prices: Priced) -> tuple[View, Note | None]:
    """The view's scenario with the profiles' rates, its series keys split by workload when it mixes them
    (unless it pools them); and the split's note (or None)."""
    by, note = split_of(view, prices.points)
    return view.model_copy(update={"rates": tuple(sorted(prices.rates.items())), "by": by}), note


def hardware_of(points: pd.DataFrame) -> list[str]:
    return sorted(points["hardware"].dropna().astype(str).unique()) if not points.empty else []


def usd_per_gpu_hour_of(points: pd.DataFrame, scenario, presets: pd.DataFrame) -> dict[str, float]:
    """$/GPU-hour of every priced name in view (the analysis prices by the same rule), without a fit."""
    return resolve_rates(hardware_of(points), presets, scenario.price_set, scenario.tier, dict(scenario.rates))


def points_of(view: View, rows: pd.DataFrame, samples) -> Points:
    """Step ``points``: the view's rows on good tokens (its goodput caps), relabelled by its cost profiles, and its
    series keys: nothing here depends on a rate."""
    good = good_of(view, rows, samples)
    try:
        points = points_with_profiles(good.rows, view.cost_profiles(), view.priced_by)
    except TcoInputError:
        points = good.rows
    by, note = split_of(view, points)
    return Points(good, points, view.model_copy(update={"by": by}), note)


def rows_of_points(view: View, points: Points, presets: pd.DataFrame) -> Rows:
    """Step ``rows``: ``points`` with the $/GPU-hour of every priced name (the view's rates over its profiles')."""
    prices = rates_of_view(view, points.points)
    scenario = view.model_copy(update={"rates": tuple(sorted(prices.rates.items())), "by": points.scenario.by})
    return Rows(points.good, prices, scenario, points.split_note, usd_per_gpu_hour_of(prices.points, scenario, presets))


def rows_of(view: View, rows: pd.DataFrame, samples, presets: pd.DataFrame) -> Rows:
    """Steps ``points`` and ``rows`` at once: the view's rows on good tokens (its goodput caps), priced by its cost
    profiles, its scenario and the $/GPU-hour of every priced name."""
    return rows_of_points(view, points_of(view, rows, samples), presets)


def fit_of(points: pd.DataFrame, scenario, usd_per_gpu_hour: dict[str, float]) -> Fit:
    """The expensive step: the rows prepared (the SLA filter, disaggregation, the blended basis), the frontier fit of
    ``points`` under ``scenario`` and its leave-one-out for every method. Rate-free when the series keys hold
    hardware (``usd_per_gpu_hour`` is then not read)."""
    rates = None if "hardware" in scenario.by else dict(usd_per_gpu_hour)
    prepared = prepared_of(points, scenario)
    frontier = fit_frontiers(prepared.usable, scenario.by, scenario.basis, rates)
    return Fit(frontier, rates, leave_one_out_methods(frontier, METHODS, rates), prepared)


def analysis_of(points: pd.DataFrame, scenario, presets: pd.DataFrame, fit: Fit, notes: tuple[str, ...],
                calibration: Calibration | None = None) -> Analysis:
    """Frontiers, cost curves and the iso table of ``fit``; no crossings. ``notes`` go first. A scenario asking for
    the ``auto`` method gets the one that fits the store's frontiers better (``calibration``;
    ``result.scenario.method``)."""
    result = analyse(points, scenario, presets, frontier=fit.frontier, crossovers="none", calibration=calibration,
                     prepared=fit.prepared)
    result.notes[:] = [*(n for n in notes if n), *noted("analysis", result.notes)]
    return result


def pricing_of(view: View, rows: Rows, presets: pd.DataFrame, fit: Fit, calibration: Calibration | None) -> Pricing:
    """Step ``pricing``: the priced curves and the iso table with each cell's band, and where the interactivity you
    need may be set, all by the interpolation method the view asks for, or with ``auto`` (the default) the one that
    fits the store's frontiers better (:func:`model.core.uncertainty.chosen_method`; ``analysis.scenario.method``);
    the bands calibrated on the store's frontiers (``calibration``: :mod:`model.core.uncertainty`)."""
    calibration = calibration if calibration is not None else no_calibration()
    # the view itself, with the rates and series keys its rows were priced and split by (a step kept for another
    # view that differs in neither holds that view's other fields)
    scenario = view.model_copy(update={"rates": rows.scenario.rates, "by": rows.scenario.by})
    result = analysis_of(rows.points, scenario, presets, fit, rows.notes, calibration)
    baseline = baseline_of(view, result)
    errors = uncertainty(result.curves, result.scenario.method, calibration, fit.loo)
    without = without_curve_of(rows, result)
    at_one = curves_at_one(result.frontier, without)
    method = result.scenario.method
    iso = cells_of(iso_of(result, baseline), without, at_one, result.targets, method)
    iso_error = iso_with_error(iso, result.curves, errors)
    return Pricing(result, baseline, iso, errors, iso_error, x_range_of(result), without, at_one)


def pricing_key(view: View) -> tuple:
    """The fields of ``view`` that the steps ``pricing`` and ``crossings`` read beside the rows and the fit: what sets
    the $/GPU-hour (its rates, price set, tier), the method, the targets and the baseline. Two views with one frontier
    key and one pricing key share both steps (a slider of the interactivity you need changes neither)."""

    return (*((f.name, getattr(view, f.name)) for f in FIELDS if f.changes == RATE),
            ("method", view.method), ("targets", view.targets), ("baseline", view.baseline))


def cost_of(view: View, pricing: Pricing) -> Cost:
    """Step ``cost``: the cost at the interactivity you need: every series there (each cell with its status, a series
    without a curve among them), the pair and its break-even rate, beside the view's pricing."""
    result = pricing.analysis
    method = result.scenario.method
    x = interactivity_needed_of(view, result, pricing.x_range)
    at_x = at_x_of(result, x) if x is None else \
        cells_of(at_x_of(result, x), pricing.without, pricing.at_one, [x], method)
    at_x = iso_with_error(at_x, result.curves, pricing.uncertainty)
    pair = pair_of(view, result, at_x, x)
    found = None if pair is None or x is None else break_even_answer(result.curves, *pair, x, method)
    return Cost(result, pricing.baseline, pricing.iso, pricing.uncertainty, pricing.iso_error, pricing.x_range, x,
                at_x, pair, found, unpriced_at(at_x))


def without_curve_of(rows: Rows, result: Analysis) -> pd.DataFrame:
    """Every series in view without a cost curve, and why (:func:`model.core.status.series_without_curve`)."""
    scenario = rows.scenario
    return series_without_curve(rows.points, result.points, result.frontier, result.curves, scenario.by,
                                throughput_column(scenario.basis), result.usd_per_gpu_hour, series_labels)


def cells_of(iso: pd.DataFrame, without: pd.DataFrame, at_one, targets, method: str) -> pd.DataFrame:
    """Every cell of the series in view at ``targets``: ``iso``'s, then a row per series ``without`` a curve
    (:func:`model.core.unpriced.with_unpriced`), each with its break-even $/GPU-hour against the cheapest priced
    there (:func:`model.core.unpriced.break_even_column`)."""
    return break_even_column(with_unpriced(iso, without, at_one, targets, method))


def crossings_of(pricing: Pricing) -> Crossings:
    """Step ``crossings``: the lower envelope and the crossings of the pairs in view, marked for the ± bands."""
    analysis = pricing.analysis     # its curves packed once: the range's packing (Uncertainty.packing)
    packed = pricing.uncertainty.packing(analysis.curves)[analysis.scenario.method] if analysis.curves else None
    result = cross(analysis, "auto", packed=packed)
    return Crossings(result, mark_crossovers(result.crossovers, result.curves, pricing.uncertainty,
                                             result.scenario.method))


def crossed_of(view: View, crossings: Crossings, cost: Cost) -> Crossed:
    """Step ``crossed``: the crossings, the series a cost chart draws, and the pair's break-even rate across their
    common range."""
    result = crossings.analysis
    curve = None
    if cost.pair is not None and (span := common_range(result.curves, *cost.pair)):
        curve = break_even_rates(result.curves, *cost.pair, np.linspace(*span, BREAK_EVEN_SAMPLES),
                                 result.scenario.method)
    return Crossed(result, crossings.marked, drawn_of(view, result, cost.baseline, cost.pair, cost.iso), curve)


def caps_table_of(view: View, rows: pd.DataFrame, samples, presets: pd.DataFrame, x: float | None) -> pd.DataFrame:
    """Step ``goodput_caps``: the cheapest series at ``x`` as the TTFT cap moves (:data:`model.core.goodput.TTFT_CAPS`
    and the view's, the view's TPOT cap kept): one row per cap, with the runner-up, the $/M per good M tokens and
    how many points in view had per-request data. Each cap prices the rows again (:func:`rows_of`, :func:`fit_of`)
    by the view's interpolation method as resolved (``view.method``: the caller passes the answer's): a step with an
    argument, never a second answer."""
    cols = ["ttft_cap_s", "tpot_cap_ms", "cheapest", "usd_per_good_mtok", "runner_up", "runner_up_usd_per_good_mtok",
            "points_with_requests"]
    if x is None or not samples:
        return pd.DataFrame(columns=cols)
    own = caps_from_text(view.goodput) if view.goodput else Caps()
    caps = sorted({*TTFT_CAPS, *([own.ttft_s] if own.ttft_s is not None else [])})
    out = []
    for ttft in caps:
        capped = rows_of(view.replace(goodput=Caps(ttft, own.tpot_ms).text()), rows, samples, presets)
        result = analysis_of(capped.points, capped.scenario, presets,
                             fit_of(capped.points, capped.scenario, capped.usd_per_gpu_hour), ())
        ranked = at_x_of(result, x)
        ranked = ranked[ranked["status"].isin(PRICED)] if not ranked.empty else ranked
        good = capped.rows
        have = int(good["good_fraction"].notna().sum()) if "good_fraction" in good.columns else 0
        first = ranked.iloc[0] if len(ranked) else None
        second = ranked.iloc[1] if len(ranked) > 1 else None
        out.append([ttft, own.tpot_ms, None if first is None else first["series"],
                    None if first is None else float(first["usd_per_mtok"]),
                    None if second is None else second["series"],
                    None if second is None else float(second["usd_per_mtok"]), have])
    return pd.DataFrame(out, columns=cols)


def baseline_of(view: View, result: Analysis) -> str | None:
    """The series ratios divide by: the view's, else the first series by name."""
    names = sorted(result.curves)
    return view.baseline if view.baseline in result.curves else (names[0] if names else None)


def iso_of(result: Analysis, baseline: str | None) -> pd.DataFrame:
    """Cost at matched interactivity, with ratios to ``baseline``."""
    if result.scenario.baseline == baseline:
        return result.iso
    return iso_table(result.curves, result.targets, result.scenario.method, baseline)


def x_range_of(result: Analysis) -> tuple[float, float] | None:
    """Where the interactivity you need may be set [tok/s/user]: half the lowest to 1.5x the highest reach."""
    curves = result.curves
    if not curves:
        return None
    return round(min(c.x_min for c in curves.values()) * 0.5, 1), round(max(c.x_max for c in curves.values()) * 1.5, 1)


def interactivity_needed_of(view: View, result: Analysis, span: tuple[float, float] | None) -> float | None:
    """The interactivity you need [tok/s/user]: the view's, else the middle target, kept within ``span``;
    without curves the view's own value (which still sizes a fleet), if any."""
    if span is None:
        return view.interactivity_needed
    targets = result.targets
    middle = targets[len(targets) // 2] if targets else span[0]
    return float(min(max(view.interactivity_needed or middle, span[0]), span[1]))


def moved_interactivity(view: View, result: Analysis, span: tuple[float, float] | None) -> str | None:
    """The sentence naming an interactivity you need that lies outside where it may be set (``span``:
    :func:`x_range_of`), and the one the answer is given at instead (:func:`interactivity_needed_of`); None when
    it lies inside."""
    if span is None:
        return None
    targets = result.targets
    asked = view.interactivity_needed or (targets[len(targets) // 2] if targets else None)
    if asked is None:
        return None
    shown = interactivity_needed_of(view, result, span)
    if shown is None or abs(shown - asked) <= 1e-9 * max(1.0, abs(asked)):
        return None
    return (f"the interactivity you need, {asked:g} tok/s/user, is outside where this view's series can be read "
            f"({span[0]:g} to {span[1]:g} tok/s/user, half the slowest to 1.5 times the fastest measured): "
            f"the answer is given at {shown:g} tok/s/user")


def at_x_of(result: Analysis, x: float | None) -> pd.DataFrame:
    """Every series at ``x``, cheapest first."""
    return cheapest_at(result.curves, x, result.scenario.method) if x is not None else \
        pd.DataFrame(columns=["series", "usd_per_mtok", "status", "side", "reason", "break_even_usd_per_gpu_hour"])


def pair_of(view: View, result: Analysis, at_x: pd.DataFrame, x: float | None) -> tuple[str, str] | None:
    """The pair the break-even answer prices: the view's, else the runner-up against the cheapest at x."""
    names = sorted(result.curves)
    chosen = view.pair_names()
    if len(chosen) == 2 and set(chosen) <= set(names) and chosen[0] != chosen[1]:
        return chosen
    return default_pair(at_x) if x is not None else None


def drawn_of(view: View, result: Analysis, baseline: str | None, pair, iso: pd.DataFrame) -> list[str] | None:
    """The series a cost chart of ``result`` draws: None for all of them (up to :data:`DRAW_LIMIT` series, or
    when the view asks for every curve); past it, what a person can read: the baseline and the chosen pair,
    every series on the lower envelope (cheapest somewhere), then the cheapest at the targets, up to
    :data:`DRAW_LIMIT` (the envelope's series are always drawn). Tables and downloads keep every series."""
    names = result.curves
    if view.all_curves or len(names) <= DRAW_LIMIT:
        return None
    ranked = [baseline, *(pair or ())]
    if result.envelope is not None and not result.envelope.segments.empty:
        ranked += list(result.envelope.segments["series"])
    must = len(dict.fromkeys(s for s in ranked if s in names))
    iso = iso[iso["status"].isin(PRICED)] if not iso.empty else iso
    if not iso.empty:
        rank = iso.groupby("interactivity")["usd_per_mtok"].rank(method="first")
        ranked += list(iso.assign(rank=rank).groupby("series")["rank"].min().sort_values(kind="stable").index)
    ranked += sorted(names)
    chosen = [s for s in dict.fromkeys(ranked) if s in names]
    return chosen[:max(DRAW_LIMIT, must)]


def spread_of(pooled: pd.DataFrame, basis: str, by: tuple[str, ...]) -> pd.DataFrame:
    """Every configuration measured more than once in view (after as-of), with its spread across the repeats
    (:func:`model.core.repeats.repeat_spread` on ``basis``) and its series label."""
    out = repeat_spread(pooled, throughput_column(basis) if basis != "blended" else "total_tokens_per_second_per_gpu",
                        by)
    if not out.empty:
        out.insert(0, "series", series_labels(out, [k for k in by if k in out.columns]).to_numpy())
    return out


def frontier_table_of(frontier: pd.DataFrame, spread: pd.DataFrame) -> pd.DataFrame:
    """The frontier points with their repeats' spread: ``repeats``, ``tput_min``, ``tput_max`` [tok/s/GPU]
    and ``spread_pct`` where the point's configuration was measured more than once (else empty)."""
    cols = ["repeats", "tput_min", "tput_max", "spread_pct"]
    if frontier.empty or spread.empty:      # the columns are there all the same (a page reads them)
        return frontier.assign(**{c: pd.Series(math.nan, index=frontier.index, dtype=float) for c in cols})
    keys = [k for k in spread.columns if k in frontier.columns and k not in ("series",)
            and k not in ("repeats", "runs") and not k.startswith(("interactivity_", "throughput_", "spread_"))]
    right = spread[keys + ["repeats", "throughput_min", "throughput_max", "spread_pct"]].rename(
        columns={"throughput_min": "tput_min", "throughput_max": "tput_max"})
    left = frontier.drop(columns=[c for c in cols if c in frontier.columns])
    lookup = {tuple(k): i for i, k in enumerate(right[keys].astype(str).itertuples(index=False, name=None))}
    where = [lookup.get(tuple(k)) for k in left[keys].astype(str).itertuples(index=False, name=None)]
    for c in cols:
        values = right[c].to_numpy()
        left[c] = [float(values[i]) if i is not None else math.nan for i in where]
    return left


def history_of(view: View, loaded: pd.DataFrame, scenario, presets: pd.DataFrame, x: float | None,
               calibration: Calibration | None = None) -> History:
    """Step ``history``: each series' $/M at ``x`` run date by run date (:func:`model.core.history.history`) of the
    rows before as-of and repeats, and its notes."""
    prices = priced(view, loaded)
    scenario = scenario.model_copy(update={"rates": tuple(sorted(prices.rates.items()))})
    if x is None:
        return History(history(prices.points.iloc[0:0], scenario, 1.0, presets)[0],
                       ("no series in this view can be priced",))
    table, notes = history(prices.points, scenario, x, presets, view.repeats, view.as_of, calibration)
    return History(table, tuple(notes))


def overview_of(rows: pd.DataFrame) -> Overview:
    """Step ``overview``: how many rows the answer prices, their hardware and run dates."""
    hardware = tuple(sorted(map(str, rows["hardware"].dropna().unique()))) if not rows.empty else ()
    dates = rows["run_date"].dropna() if "run_date" in rows.columns else pd.Series([], dtype=object)
    return Overview(len(rows), hardware, max(dates) if len(dates) else None, min(dates) if len(dates) else None)


def notes_of(view: View, extra: tuple[str, ...], result: Analysis, baseline: str | None,
             span: tuple[float, float] | None = None) -> tuple[Note, ...]:
    """What the reader must know: rows left out, rates missing, values of the view not used (an interactivity you
    need outside ``span``, where it may be set, is named with the value it is shown at)."""
    out = [*noted("rows", extra), *noted("analysis", result.notes)]
    moved = moved_interactivity(view, result, span)
    if moved is not None:
        out.append(Note("interactivity", moved))
    if view.baseline and baseline != view.baseline and baseline:
        out = [n for n in out if n.kind != "baseline"]
        out.append(Note("baseline", f"baseline {view.baseline!r} is not among the series shown; ratios are to "
                                    f"{baseline}"))
    return tuple(dict.fromkeys(out))
