"""One question, answered the same way by the CLI and the dashboard.

A view (:class:`model.core.view.View`) says how to group the rows, which rates, basis
and method; :func:`analyse` turns the rows
into frontiers, cost curves, an iso table, reach limits and, when asked (``crossovers=``),
the lower envelope of the cost curves and the crossovers of the pairs in view.
The expensive part (:func:`frontiers_for`) does not depend on rates when series
are per hardware, so a rate change only re-prices the cached frontier.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import pandas as pd

from model.core.capacity import add_blended_throughput
from model.core.cost import has_price_set, resolve_rates, usd_per_mtok
from model.core.crossings import CROSSOVER_COLUMNS
from model.core.crossings import crossovers as _crossovers
from model.core.envelope import Envelope, lower_envelope
from model.core.frontier import apply_disagg, fit_frontiers, series_labels, throughput_column
from model.core.iso import CostCurve, PackedCurves, cost_curves, default_targets, iso_table, reach
from model.core.notes import Note
from model.core.sla import SLA, split_by_sla
from model.core.uncertainty import Calibration, chosen_method

if TYPE_CHECKING:
    from model.core.view import View

__all__ = ["Analysis", "Prepared", "WORKLOAD_KEYS", "CROSSOVERS", "ALL_PAIRS_LIMIT", "prepare", "prepared_of",
           "frontiers_for",
           "analyse", "cross", "price_points", "crossover_pairs", "workload_split", "SPLIT_WORKLOAD_KEYS"]

WORKLOAD_KEYS = ("model", "isl", "osl", "scenario", "prefix_cache_hit_rate")
#: what :func:`analyse` computes beyond the iso table (``crossovers=``):
#: ``none`` nothing; ``envelope`` the lower envelope only; ``pairs`` the envelope and the
#: crossovers of the pairs in view (all pairs of ``selected``, else each series against the
#: baseline); ``all`` the envelope and every pair of a workload (quadratic in series);
#: ``auto`` is ``all`` while no workload has more than :data:`ALL_PAIRS_LIMIT` series, else ``pairs``.
CROSSOVERS = ("none", "envelope", "pairs", "all", "auto")
#: above this many series in one workload, ``auto`` crosses only the pairs in view
ALL_PAIRS_LIMIT = 8


@dataclass
class Analysis:
    """Everything the pages and the CLI show for one view."""

    scenario: View                        # the view analysed (its rates and grouping as priced and split)
    usd_per_gpu_hour: dict[str, float]
    missing_rates: list[str]
    points: pd.DataFrame                  # every usable point, with series, $/M
    frontier: pd.DataFrame                # frontier points, with $/M
    curves: dict[str, CostCurve]
    targets: list[float]
    iso: pd.DataFrame
    crossovers: pd.DataFrame              # pairwise crossings (empty unless asked for)
    reach: pd.DataFrame
    notes: list[str] = field(default_factory=list)
    envelope: Envelope | None = None      # cheapest series and where it changes (None unless asked for)
    crossover_pairs: str = "none"         # which pairs ``crossovers`` holds: none, selected, baseline or all


def prepare(points: pd.DataFrame, sla: str = "", basis: str = "total", w_input: float = 0.25,
            w_cached: float = 0.025, disagg: str = "per-role") -> tuple[pd.DataFrame, list[str]]:
    """Rows ready for the frontier: those meeting the SLA, with blended throughput when asked,
    and disaggregated rows' input/output throughput normalised by ``disagg`` (model.core.frontier.apply_disagg).

    Returns the rows and notes saying what was dropped and why.
    """
    notes = []
    if sla and not points.empty:
        limits = SLA.from_text(sla)
        kept, rejected = split_by_sla(points, limits)
        if len(rejected):
            notes.append(f"the SLA ({limits.describe()}) leaves out {len(rejected)} of {len(points)} "
                         f"rows; the frontier is fitted on the {len(kept)} that meet it")
        points = kept
    points, disagg_notes = apply_disagg(points, basis, disagg)
    notes.extend(disagg_notes)
    if basis == "blended" and points.empty:
        points = points.assign(blended_tokens_per_second_per_gpu=pd.Series(dtype=float))  # nothing left to fit
    elif basis == "blended":
        points = add_blended_throughput(points, w_input, w_cached)
        missing = int(points["blended_tokens_per_second_per_gpu"].isna().sum())
        if missing:
            notes.append(f"{missing} rows have no blended throughput (ISL/OSL or prefix-cache hit rate unknown)")
    return points, notes


def frontiers_for(points: pd.DataFrame, by: tuple[str, ...], basis: str, rates: dict[str, float] | None = None,
                  sla: str = "", w_input: float = 0.25, w_cached: float = 0.025,
                  disagg: str = "per-role") -> pd.DataFrame:
    """The expensive step: SLA filter and frontier fit. Rate-independent when ``by`` holds hardware."""
    ready, _ = prepare(points, sla, basis, w_input, w_cached, disagg)
    return fit_frontiers(ready, by, basis, rates if "hardware" not in by else None)


def price_points(frame: pd.DataFrame, basis: str, rates: dict[str, float]) -> pd.DataFrame:
    """Add ``usd_per_gpu_hour`` and ``usd_per_mtok`` on the basis to a copy of ``frame``."""
    rate = frame["hardware"].map(rates).astype(float)
    return frame.assign(usd_per_gpu_hour=rate,
                        usd_per_mtok=usd_per_mtok(rate, frame[throughput_column(basis)].astype(float)))


def _groups(frontier: pd.DataFrame, by: tuple[str, ...]) -> dict[str, object] | None:
    """series -> its workload (the workload keys among ``by``): only series of one workload are compared."""
    keys = [k for k in by if k in WORKLOAD_KEYS]
    if not keys or frontier.empty:
        return None
    first = frontier.drop_duplicates("series")
    columns = [first[k].astype(str).tolist() for k in keys]
    return {series: "|".join(values) for series, *values in zip(first["series"], *columns)}


def crossover_pairs(curves: dict[str, CostCurve], groups: dict[str, object] | None, mode: str,
                    selected: tuple[str, ...] | None = None, baseline: str | None = None
                    ) -> tuple[str, list[tuple[str, str]] | None]:
    """Which pairs of series to cross for a ``crossovers=`` mode (see :data:`CROSSOVERS`).

    Returns what they are (``none``, ``selected``, ``baseline`` or ``all``) and the pairs
    (None for every pair of a workload).
    """
    if mode not in CROSSOVERS:
        raise ValueError(f"crossovers must be one of {', '.join(CROSSOVERS)}, got {mode!r}")
    if mode in ("none", "envelope"):
        return "none", []
    if mode == "auto":
        sizes: dict[object, int] = {}
        for name in curves:
            key = (groups or {}).get(name)
            sizes[key] = sizes.get(key, 0) + 1
        mode = "all" if max(sizes.values(), default=0) <= ALL_PAIRS_LIMIT else "pairs"
    if mode == "all":
        return "all", None
    if selected:
        chosen = [s for s in dict.fromkeys(selected) if s in curves]
        return "selected", [(a, b) for i, a in enumerate(chosen) for b in chosen[i + 1:]]
    if baseline in curves:
        return "baseline", [(baseline, s) for s in curves if s != baseline]
    return "none", []


@dataclass(frozen=True, eq=False)
class Prepared:
    """The rows a frontier is fitted on, whatever the rates (:func:`prepared_of`): those meeting the SLA, their
    disaggregated throughput normalised and the blended basis added, with both interactivity and a throughput on
    the basis (``usable``); the notes saying what was left out, and whether rows were there to begin with."""

    usable: pd.DataFrame
    notes: tuple[str, ...]
    had_rows: bool


def prepared_of(points: pd.DataFrame, scenario: View) -> Prepared:
    """The rate-free part of :func:`analyse`: :func:`prepare` under the scenario's SLA, basis, weights and
    disaggregation, then the rows with both axes (no copy when every row has them)."""
    ready, notes = prepare(points, scenario.sla, scenario.basis, scenario.w_input, scenario.w_cached, scenario.disagg)
    column = throughput_column(scenario.basis)
    has_both = ready["interactivity"].notna() & ready[column].notna() if not ready.empty else None
    usable = ready if has_both is None or has_both.all() else ready[has_both]   # no copy of 1M rows for nothing
    if not ready.empty and usable.empty:
        notes.append(f"no rows have both interactivity and {scenario.basis}-token throughput per GPU")
    return Prepared(usable, tuple(notes), not points.empty)


def analyse(points: pd.DataFrame, scenario: View, presets: pd.DataFrame,
            frontier: pd.DataFrame | None = None, with_points: bool = False, crossovers: str = "auto",
            selected: tuple[str, ...] | None = None, calibration: Calibration | None = None,
            prepared: Prepared | None = None) -> Analysis:
    """Price, interpolate and (when asked) cross every series of ``points`` under the view ``scenario``
    (:class:`model.core.view.View`: its grouping, basis, method, price set, tier, rates, targets, baseline,
    SLA, weights and disaggregation).

    Pass ``frontier`` (:func:`frontiers_for` of the same points and scenario) to skip the fit, and ``prepared``
    (:func:`prepared_of` of them) to skip preparing the rows, e.g. from a step keyed by everything that changes
    them: a rate change then prices what was fitted, touching no row.
    ``with_points`` labels and prices every usable point too (for plotting them);
    otherwise ``Analysis.points`` holds the usable rows as they are.
    ``crossovers`` (one of :data:`CROSSOVERS`) says what to compute beyond the iso table:
    pass ``"none"`` where nothing shows crossovers (they cost most at many series);
    ``selected`` names the series in view for ``pairs``/``auto``.
    Hardware without a rate is reported in ``missing_rates`` and left unpriced.
    A scenario asking for the ``auto`` method is analysed with the one that fits the store's frontiers better
    (``calibration``: :func:`model.core.uncertainty.chosen_method`; without one, the one that fits these curves
    better), and ``Analysis.scenario`` names the method used.
    """
    hardware = sorted(points["hardware"].dropna().unique()) if not points.empty else []
    rates = resolve_rates(hardware, presets, scenario.price_set, scenario.tier, dict(scenario.rates))
    missing = [hw for hw in hardware if hw not in rates]
    notes = []
    if not has_price_set(presets, scenario.price_set, scenario.tier):
        notes.append(f"no price set {scenario.price_set!r} / tier {scenario.tier!r}: only rates set by hand are used")
    if missing:
        notes.append(f"no $/GPU-hour for {', '.join(missing)}: set one (--rate HW=USD or the TCO rates page)")
    prepared = prepared if prepared is not None else prepared_of(points, scenario)
    notes.extend(prepared.notes)
    usable = prepared.usable
    if frontier is None:
        frontier = fit_frontiers(usable, scenario.by, scenario.basis, rates if "hardware" not in scenario.by else None)
    if with_points and not usable.empty:
        column = throughput_column(scenario.basis)
        usable = price_points(usable.assign(series=series_labels(usable, scenario.by),
                                            tokens_per_second_per_gpu=usable[column]), scenario.basis, rates)
    priced_frontier = price_points(frontier, scenario.basis, rates) if not frontier.empty else frontier
    curves = cost_curves(frontier, rates)
    method = chosen_method(scenario.method, calibration, curves)
    if method != scenario.method:
        scenario = scenario.model_copy(update={"method": method})
    targets = list(scenario.targets) or default_targets(curves)
    baseline = scenario.baseline if scenario.baseline in curves else None
    if scenario.baseline and baseline is None:
        notes.append(Note("baseline", f"baseline {scenario.baseline!r} is not among the series shown; ratios omitted"))
    iso = iso_table(curves, targets, scenario.method, baseline)
    result = Analysis(scenario, rates, missing, usable, priced_frontier, curves, targets, iso,
                      pd.DataFrame(columns=CROSSOVER_COLUMNS), reach(curves), notes, None, "none")
    return cross(result, crossovers, selected) if crossovers != "none" else result


def cross(result: Analysis, crossovers: str = "auto", selected: tuple[str, ...] | None = None,
          packed: PackedCurves | None = None) -> Analysis:
    """``result`` with its lower envelope and the crossovers of the pairs a ``crossovers=`` mode
    (:data:`CROSSOVERS`) asks for, computed from its cost curves (nothing is refitted or repriced; ``packed``: the
    curves already packed for the method, :class:`model.core.iso.PackedCurves`)."""
    curves, scenario = result.curves, result.scenario
    baseline = scenario.baseline if scenario.baseline in curves else None
    groups = _groups(result.frontier, scenario.by)
    which, pairs = crossover_pairs(curves, groups, crossovers, selected, baseline)
    envelope = lower_envelope(curves, scenario.method, groups, packed) if crossovers != "none" else None
    found = _crossovers(curves, scenario.method, groups, pairs, packed) if which != "none" else \
        pd.DataFrame(columns=CROSSOVER_COLUMNS)
    notes = list(result.notes)
    if crossovers in ("pairs", "auto") and which == "none" and len(curves) > 1:
        notes.append(f"{len(curves)} series: crossovers are shown for the cheapest series (the envelope); "
                     "choose a baseline or select series to see where two of them cross")
    return replace(result, crossovers=found, envelope=envelope, crossover_pairs=which, notes=notes)


#: the workload keys a grouping gains when a selection mixes workloads
SPLIT_WORKLOAD_KEYS = ("model", "isl", "osl")


def workload_split(points: pd.DataFrame, by: tuple[str, ...]) -> tuple[tuple[str, ...], str | None]:
    """``by`` plus the workload keys (model, ISL, OSL) that vary among the measured ``points``, and a
    note saying so: series of different workloads are never compared, so a selection that mixes
    workloads is split by them rather than pooled into one series. The one rule of every surface.

    Returns the grouping keys (unchanged when the selection holds one workload) and the note (or None).
    """
    if points.empty:
        return by, None
    measured = points[points["interactivity"].notna() | points["tpot_median_ms"].notna()] \
        if "tpot_median_ms" in points.columns else points
    varying = [k for k in SPLIT_WORKLOAD_KEYS
               if k not in by and k in measured.columns and measured[k].nunique(dropna=False) > 1]
    if not varying:
        return by, None
    keys = [k for k in SPLIT_WORKLOAD_KEYS if k in measured.columns]
    count = len(measured[keys].drop_duplicates())
    return (*by, *varying), (f"the selection holds {count} workloads: series are split by "
                             f"{', '.join(varying)} and compared only within a workload "
                             "(narrow the selection, or pool them with --mix-workloads)")
