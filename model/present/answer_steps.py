"""The pure steps of an answer's cost parts: each takes what it reads and returns a value; none reads the
store or keeps anything. :class:`model.present.view_answer.Answer` calls them once per part.

The dependencies, read top to bottom: :class:`Inputs` → :func:`priced` (cost profiles) → :func:`scenario_of`
(the workload split) → :func:`fit_of` (the frontier, the one expensive step, cached by the dashboard) →
:func:`analysis_of` → ``crossed`` (:func:`model.core.analysis.cross`), :func:`baseline_of`, :func:`iso_of`,
:func:`uncertainty_of`; :func:`x_range_of` → :func:`interactivity_needed_of` → :func:`at_x_of` → :func:`pair_of`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import pandas as pd

from model.core.analysis import Analysis, analyse, frontiers_for, workload_split
from model.core.cost import resolve_rates
from model.core.cost_profiles import price_with_profiles
from model.core.frontier import series_labels, throughput_column
from model.core.goodput import TTFT_CAPS, Caps, apply_goodput, caps_from_text
from model.core.history import history
from model.core.iso import METHODS, iso_table
from model.core.repeats import repeat_spread
from model.core.tco import TcoInputError
from model.core.uncertainty import Uncertainty, leave_one_out_methods, uncertainty
from model.core.view import View
from model.present.answers import cheapest_at, default_pair

__all__ = ["Priced", "Fit", "DRAW_LIMIT", "priced", "scenario_of", "hardware_of", "usd_per_gpu_hour_of", "fit_of",
           "analysis_of", "baseline_of", "iso_of", "uncertainty_of", "x_range_of", "interactivity_needed_of",
           "at_x_of", "pair_of", "drawn_of", "spread_of", "frontier_table_of", "history_of", "notes_of", "Good",
           "good_of", "caps_table_of"]

#: past this many series a cost chart draws what a person can read (:func:`drawn_of`)
DRAW_LIMIT = 40


@dataclass(frozen=True, eq=False)
class Priced:
    """The rows priced by the view's cost profiles (a hardware two profiles price appears once per profile),
    the rate overrides that result, and what could not be applied."""

    points: pd.DataFrame
    rates: dict[str, float]
    notes: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class Good:
    """The rows on good tokens under the view's goodput caps (:func:`model.core.goodput.apply_goodput`), the caps
    (None: none set) and the notes."""

    rows: pd.DataFrame
    caps: Caps | None
    notes: tuple[str, ...]


def good_of(view: View, rows: pd.DataFrame, samples) -> Good:
    """The rows before pricing: throughput times each point's good fraction when the view sets goodput caps."""
    caps = caps_from_text(view.goodput) if view.goodput else None
    out, notes = apply_goodput(rows, samples, caps)
    return Good(out, caps, tuple(notes))


def caps_table_of(view: View, answer_at, x: float | None, samples) -> pd.DataFrame:
    """The cheapest series at ``x`` as the TTFT cap moves (:data:`model.core.goodput.TTFT_CAPS` and the view's, the
    view's TPOT cap kept): one row per cap, with the runner-up, the $/M per good M tokens and how many points in
    view had per-request data. ``answer_at(goodput_text)`` is the answer of the view with those caps."""
    cols = ["ttft_cap_s", "tpot_cap_ms", "cheapest", "usd_per_good_mtok", "runner_up", "runner_up_usd_per_good_mtok",
            "points_with_requests"]
    if x is None or not samples:
        return pd.DataFrame(columns=cols)
    own = caps_from_text(view.goodput) if view.goodput else Caps()
    caps = sorted({*TTFT_CAPS, *([own.ttft_s] if own.ttft_s is not None else [])})
    out = []
    for ttft in caps:
        answer = answer_at(Caps(ttft, own.tpot_ms).text())
        ranked = at_x_of(answer.analysis, x)
        ranked = ranked[ranked["usd_per_mtok"].notna()] if not ranked.empty else ranked
        have = int(answer.rows["good_fraction"].notna().sum()) if "good_fraction" in answer.rows.columns else 0
        first = ranked.iloc[0] if len(ranked) else None
        second = ranked.iloc[1] if len(ranked) > 1 else None
        out.append([ttft, own.tpot_ms, None if first is None else first["series"],
                    None if first is None else float(first["usd_per_mtok"]),
                    None if second is None else second["series"],
                    None if second is None else float(second["usd_per_mtok"]), have])
    return pd.DataFrame(out, columns=cols)


def priced(view: View, rows: pd.DataFrame) -> Priced:
    try:
        points, rates, notes = price_with_profiles(rows, dict(view.rates), view.cost_profiles(), view.priced_by)
    except TcoInputError as exc:
        return Priced(rows, dict(view.rates), (f"cost profiles not applied: {exc}",))
    return Priced(points, rates, tuple(notes))


def scenario_of(view: View, prices: Priced):
    """The view's scenario with the profiles' rates, its series keys split by workload when it mixes them
    (unless it pools them); and the split's note (or None)."""
    if view.workload != "all" or view.mix_workloads:
        by, note = view.by, None
    else:
        by, note = workload_split(prices.points, view.by)
    return view.model_copy(update={"rates": tuple(sorted(prices.rates.items())), "by": by}), note


def hardware_of(points: pd.DataFrame) -> list[str]:
    return sorted(points["hardware"].dropna().astype(str).unique()) if not points.empty else []


def usd_per_gpu_hour_of(points: pd.DataFrame, scenario, presets: pd.DataFrame) -> dict[str, float]:
    """$/GPU-hour of every priced name in view (the analysis prices by the same rule), without a fit."""
    return resolve_rates(hardware_of(points), presets, scenario.price_set, scenario.tier, dict(scenario.rates))


@dataclass(frozen=True, eq=False)
class Fit:
    """A view's frontier (:func:`model.core.analysis.frontiers_for`) and its leave-one-out, computed on first
    read: series of one hardware are predicted at $1/GPU-hour (their relative errors do not depend on the rate),
    so one fit serves every rate of a view whose series are per hardware."""

    frontier: pd.DataFrame
    rates: dict[str, float] | None            # what the fit priced by (series mixing hardware); None: no rate

    @cached_property
    def loo(self) -> dict[str, pd.DataFrame]:
        """method -> :func:`model.core.uncertainty.leave_one_out` of :attr:`frontier`."""
        return leave_one_out_methods(self.frontier, METHODS, self.rates)


def fit_of(points: pd.DataFrame, scenario, usd_per_gpu_hour: dict[str, float]) -> Fit:
    """The expensive step: the SLA filter and the frontier fit of ``points`` under ``scenario``."""
    rates = None if "hardware" in scenario.by else dict(usd_per_gpu_hour)
    return Fit(frontiers_for(points, scenario.by, scenario.basis, rates, scenario.sla, scenario.w_input,
                             scenario.w_cached, scenario.disagg), rates)


def analysis_of(points: pd.DataFrame, scenario, presets: pd.DataFrame, fit: Fit, notes: tuple[str, ...]) -> Analysis:
    """Frontiers, cost curves and the iso table of ``fit``; no crossings. ``notes`` go first."""
    result = analyse(points, scenario, presets, frontier=fit.frontier, crossovers="none")
    result.notes[:0] = [n for n in notes if n]
    return result


def baseline_of(view: View, result: Analysis) -> str | None:
    """The series ratios divide by: the view's, else the first series by name."""
    names = sorted(result.curves)
    return view.baseline if view.baseline in result.curves else (names[0] if names else None)


def iso_of(result: Analysis, baseline: str | None) -> pd.DataFrame:
    """Cost at matched interactivity, with ratios to ``baseline``."""
    if result.scenario.baseline == baseline:
        return result.iso
    return iso_table(result.curves, result.targets, result.scenario.method, baseline)


def uncertainty_of(result: Analysis, fit: Fit) -> Uncertainty:
    """Leave-one-out error of every method on the frontiers, and the ± band of the view's method."""
    return uncertainty(result.curves, result.scenario.method, fit.loo)


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


def at_x_of(result: Analysis, x: float | None) -> pd.DataFrame:
    """Every series at ``x``, cheapest first."""
    return cheapest_at(result.curves, x, result.scenario.method) if x is not None else \
        pd.DataFrame(columns=["series", "usd_per_mtok", "status"])


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
    iso = iso[iso["usd_per_mtok"].notna()] if not iso.empty else iso
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


def history_of(view: View, loaded: pd.DataFrame, scenario, presets: pd.DataFrame,
               x: float | None) -> tuple[pd.DataFrame, list[str]]:
    """Each series' $/M at ``x`` run date by run date (:func:`model.core.history.history`) of the rows before
    as-of and repeats, and its notes."""
    prices = priced(view, loaded)
    scenario = scenario.model_copy(update={"rates": tuple(sorted(prices.rates.items()))})
    if x is None:
        return history(prices.points.iloc[0:0], scenario, 1.0, presets)[0], ["no series in this view can be priced"]
    return history(prices.points, scenario, x, presets, view.repeats, view.as_of)


def notes_of(view: View, extra: tuple[str, ...], result: Analysis, baseline: str | None) -> list[str]:
    """What the reader must know: rows left out, rates missing, values of the view not used."""
    out = list(extra) + list(result.notes)
    if view.baseline and baseline != view.baseline and baseline:
        out = [n for n in out if not n.startswith("baseline ")]
        out.append(f"baseline {view.baseline!r} is not among the series shown; ratios are to {baseline}")
    return list(dict.fromkeys(out))
