"""The answer of a view: everything the pages, the report and the CLI show for one
:class:`~model.core.view.View`, computed once.

:func:`answer_of_view` reads the rows a view selects from the store and returns a :class:`ViewAnswer`.
Each part (the analysis, the crossings, the one interactivity the user needs, the headline, the
break-even rate, the rate of every hardware with its source, the cost profiles with their build-ups
and tornado, the fleet for the view's demand or budget, the notes) is computed the first time it is
read and kept, so a page pays only for what it shows and no surface derives a part of its own.

Rules that used to live in several places live here once:

- **workload**: a view without one shows the first workload of the store (most frontier points
  first), as a link without ``wl=`` opens; ``"all"`` splits series by the workload keys that vary
  (:func:`model.core.analysis.workload_split`) unless the view pools them (``mix_workloads``).
- **the interactivity you need** (:attr:`ViewAnswer.x`): the view's ``interactivity_needed``, else the middle
  interactivity target; kept within half the lowest and 1.5 times the highest reach of any series.
  The Overview's headline, the break-even answer, fleet sizing and the report's answer all use it.
- **rates**: :func:`model.core.cost_profiles.price_with_profiles` (cost profiles chosen in the view) over
  :func:`model.core.cost.resolve_rates` (the view's own rates over the presets), each with its source
  in one vocabulary (:data:`RATE_SOURCES`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable, MutableMapping

import pandas as pd

from model.core.analysis import WORKLOAD_KEYS, Analysis, analyse, cross, workload_split
from model.core.cost import has_price_set, load_presets, resolve_rates
from model.core.cost_profiles import CostProfile, breakdown_frame, price_with_profiles
from model.core.fleet import (
    demand,
    node_capacity,
    preset_kw_per_gpu,
    pricing_options,
    size_fleet,
)
from model.core.frontier import throughput_column
from model.core.history import history
from model.core.iso import METHODS, iso_table
from model.core.repeats import RunsInView, repeat_spread, runs_in_view
from model.core.sensitivity import break_even as server_break_even
from model.core.sensitivity import tornado
from model.core.sla import SLA
from model.core.tco import HOURS_PER_MONTH, ONPREM_LABELS, OnPremInputs, TcoInputError, onprem_defaults
from model.core.uncertainty import (
    Uncertainty,
    iso_with_error,
    leave_one_out_methods,
    mark_crossovers,
    uncertainty,
)
from model.core.view import View
from model.data.store import load_points, stored_rates, workloads
from model.present import fmt
from model.present.answers import break_even_answer, changes_of, cheapest_at, default_pair, headline, summary

__all__ = ["ViewAnswer", "ProfileAnswer", "FleetAnswer", "answer_of_view", "first_workload", "RATE_SOURCES", "DRAW_LIMIT",
           "rate_source_text", "analysis_columns", "ANALYSIS_PARTS"]

#: where a $/GPU-hour comes from, the one vocabulary of every surface
RATE_SOURCES = ("preset", "ingested price set", "cost profile", "set in this view", "not set")


#: past this many series a cost chart draws what a person can read (:meth:`ViewAnswer.drawn`)
DRAW_LIMIT = 40


#: the parts of a :class:`ViewAnswer` that :func:`analysis_columns` serves (the ``iso`` and ``crossover`` commands)
ANALYSIS_PARTS = ("analysis", "crossed", "baseline", "iso", "uncertainty", "iso_error", "crossovers_marked", "x",
                  "x_range", "usd_per_gpu_hour", "rates", "notes", "drawn")

#: the columns every analysis reads: rates, the frontier's x, the workload split, series labels (a disaggregated
#: series says so) and the disaggregation note
_ANALYSIS_BASE = ("hardware", "interactivity", "tpot_median_ms", "disaggregated", *WORKLOAD_KEYS)
#: what each token basis reads beyond its own column: the per-role rates of disaggregated rows; blended tokens
#: weigh output (else total) tok/s/GPU by ISL, OSL and the prefix-cache hit rate (workload keys, read anyway)
_BASIS_EXTRA = {"input": ("input_tokens_per_second_per_prefill_gpu",),
                "output": ("output_tokens_per_second_per_decode_gpu",),
                "blended": ("output_tokens_per_second_per_gpu", "total_tokens_per_second_per_gpu")}
#: the ``share`` disaggregation mode splits total tok/s/GPU by the measured system rates
_SHARE_EXTRA = ("input_tokens_per_second", "output_tokens_per_second", "total_tokens_per_second",
                "total_tokens_per_second_per_gpu")


def analysis_columns(state: View) -> tuple[str, ...] | None:
    """The columns of the store the analysis of ``state`` reads (:data:`ANALYSIS_PARTS`: frontiers, cost curves,
    iso table, crossings, interpolation error, rates, notes), for ``load_points(columns=)``; None when it reads
    them all (a repeats choice other than ``pooled`` tells configurations apart by every field).

    Everything else (provenance, the repeats' spread, capacity, history) is left out: at 1M rows that is
    most of a load's time and memory.
    """
    if state.repeats != "pooled":
        return None
    basis = state.basis
    out = [*_ANALYSIS_BASE, *state.by, *_BASIS_EXTRA.get(basis, ())]
    if basis != "blended":
        out.append(throughput_column(basis))
    if basis in ("input", "output") and state.disagg == "share":
        out += _SHARE_EXTRA
    if state.sla:
        out += [column for _, column, _, _ in SLA.from_text(state.sla).limits()]
    if state.as_of is not None:
        out.append("run_date")
    return tuple(dict.fromkeys(out))


def first_workload(con) -> str | None:
    """The workload a view without one shows (``model|isl|osl``): the one with most frontier points."""
    rows = workloads(con)
    return "|".join(rows[0][:3]) if rows else None


def rate_source_text(kind: str, *, price_set: str = "", tier: str = "", source: str = "", file: str = "",
                     profile: CostProfile | None = None, preset: float | None = None) -> str:
    """A rate's source in words, e.g. ``preset: price set 2025-08, tier owning_hyperscaler (SemiAnalysis ...)``.

    ``kind`` is one of :data:`RATE_SOURCES`.
    """
    if kind == "preset":
        return f"preset: price set {price_set}, tier {tier}" + (f" ({source})" if source else "")
    if kind == "ingested price set":
        return f"ingested price set: {file or 'a TCO rates file'} (price set {price_set}, tier {tier})" + \
            (f"; {source}" if source else "")
    if kind == "cost profile" and profile is not None:
        rate, full = profile.rate(), profile.paid_rate()
        if rate is None:
            return f"cost profile '{profile.name}': no price yet"
        if profile.onprem is not None and full is not None and abs(full - rate) > 1e-12:
            return (f"cost profile '{profile.name}' (on-prem build-up): {fmt.usd(rate, '/GPU-hour')} effective, "
                    f"{fmt.usd(full, '/GPU-hour')} at full use ÷ {fmt.percent(profile.onprem.utilization)} "
                    "utilisation")
        return f"cost profile '{profile.name}' ({profile.kind}): {fmt.usd(rate, '/GPU-hour')}"
    if kind == "set in this view":
        return "set in this view (typed, or from a link or --rate)" + \
            (f"; preset {fmt.usd(preset, '/GPU-hour')}" if preset is not None else "")
    return "not set: unpriced, left out of every cost"


@dataclass(frozen=True)
class ProfileAnswer:
    """One cost profile of the view, as every surface shows it."""

    profile: CostProfile
    prices: bool                               # chosen to price series (``priced_by``)
    inputs: pd.DataFrame                       # input (label with unit), value, source
    parts: pd.DataFrame                        # model.core.cost_profiles.breakdown_frame of this profile [$/GPU-hour]
    series: str | None                         # the series its tornado prices tokens for
    tokens_per_second_per_gpu: float           # that series' frontier at the answer's interactivity [tok/s/GPU]
    tornado: pd.DataFrame | None               # model.core.sensitivity.tornado (None: not a priced build-up)
    tornado_unit: str                          # "usd_per_mtok" or "usd_per_gpu_hour"
    break_even: tuple[tuple[str, float, float, str], ...] = ()   # (against, its rate, server $/node, note)

    @property
    def tornado_base(self) -> float:
        return float(self.tornado[f"{self.tornado_unit}_base"].iloc[0]) if self.tornado is not None else math.nan


@dataclass(frozen=True)
class FleetAnswer:
    """The fleet for the view's demand or budget (:func:`model.core.fleet.size_fleet`)."""

    kind: str                                  # "demand" or "budget"
    need: str                                  # the demand or budget in words
    x: float | None                            # interactivity the capacity was read at [tok/s/user]
    sla: str                                   # the SLA in words
    capacity: pd.DataFrame                     # model.core.fleet.node_capacity
    sized: pd.DataFrame                        # model.core.fleet.size_fleet
    sentences: tuple[str, ...]                 # one per sized series, with how it is priced
    notes: tuple[str, ...] = ()


@dataclass
class ViewAnswer:
    """The answer of one view. Build it with :func:`answer_of_view`; read the parts you show."""

    con: object
    state: View
    presets: pd.DataFrame
    rows: pd.DataFrame                          # the store rows the view selects
    fit: Callable | None = None                 # (points, scenario) -> frontier, e.g. a cache; None fits here
    fleet_options: dict = field(default_factory=dict)
    extra_notes: list[str] = field(default_factory=list)
    shared: MutableMapping | None = None         # parts shared with other answers of the same view and data
    loaded: pd.DataFrame | None = None          # the rows the view's filters select, before as-of and repeats
    pooled: pd.DataFrame | None = None          # ... after as-of, before the repeats choice (their spread is shown)
    loo: Callable | None = None                 # (points, scenario) -> {method: leave-one-out}, e.g. a cache
    columns: tuple[str, ...] | None = None      # the columns the rows hold (analysis_columns); None: every one

    def _every_column(self, part: str) -> None:
        """Refuse a part the projected rows cannot answer (it reads columns :func:`analysis_columns` leaves out)."""
        if self.columns is not None:
            raise RuntimeError(f"{part} reads columns this answer did not load (answer_of_view(columns=...) serves "
                               f"{', '.join(ANALYSIS_PARTS)})")

    def share(self, name: str, make: Callable):
        """A part that depends only on the view and the data (never on who asks): taken from :attr:`shared`
        when another answer of the same view on the same data version computed it, else ``make()``, left there.
        The pages keep their figures here too (the figure of a view is the same for every session); what it
        returns is shared, so nobody may change it."""
        if self.shared is None:
            return make()
        try:
            return self.shared[name]
        except KeyError:
            value = self.shared[name] = make()
            return value

    # ------------------------------------------------------------------ rows, rates, scenario
    @cached_property
    def where(self) -> dict[str, list]:
        return self.state.where()

    @cached_property
    def _priced(self) -> tuple[pd.DataFrame, dict[str, float], list[str]]:
        try:
            return price_with_profiles(self.rows, dict(self.state.rates), self.state.cost_profiles(),
                                       self.state.priced_by)
        except TcoInputError as exc:
            return self.rows, dict(self.state.rates), [f"cost profiles not applied: {exc}"]

    @property
    def points(self) -> pd.DataFrame:
        """The rows priced by the view's cost profiles (a hardware two profiles price appears once per profile)."""
        return self._priced[0]

    @cached_property
    def _split(self) -> tuple[tuple[str, ...], str | None]:
        if self.state.workload != "all" or self.state.mix_workloads:
            return self.state.by, None
        return workload_split(self.points, self.state.by)

    @cached_property
    def scenario(self):
        overrides = self._priced[1]
        return self.state.model_copy(update={"rates": tuple(sorted(overrides.items())),
                                             "by": self._split[0]})

    @cached_property
    def usd_per_gpu_hour(self) -> dict[str, float]:
        """$/GPU-hour of every priced name in view (the analysis prices by the same rule), without a fit."""
        hardware = sorted(self.points["hardware"].dropna().astype(str).unique()) if not self.points.empty else []
        s = self.scenario
        return resolve_rates(hardware, self.presets, s.price_set, s.tier, dict(s.rates))

    @cached_property
    def analysis(self) -> Analysis:
        """Frontiers, cost curves and the iso table (ratios to the view's baseline when it is shown);
        no crossings (see :attr:`crossed`)."""
        return self.share("analysis", self._analyse)

    def _analyse(self) -> Analysis:
        frontier = self.fit(self.points, self.scenario) if self.fit is not None and \
            self.points is self.rows else None
        result = analyse(self.points, self.scenario, self.presets, frontier=frontier, crossovers="none")
        result.notes[:0] = [n for n in (self._priced[2] + [self._split[1]]) if n]
        return result

    @cached_property
    def crossed(self) -> Analysis:
        """:attr:`analysis` with the lower envelope and the crossovers of the pairs in view
        (every pair up to :data:`model.core.analysis.ALL_PAIRS_LIMIT` series per workload)."""
        return self.share("crossed", lambda: cross(self.analysis, "auto"))

    @cached_property
    def with_points(self) -> Analysis:
        """:attr:`analysis` with every usable point labelled and priced (the Frontier chart)."""
        self._every_column("with_points")
        return self.share("with_points", lambda: analyse(self.points, self.scenario, self.presets,
                                                           frontier=self.analysis.frontier, with_points=True,
                                                           crossovers="none"))

    # ------------------------------------------------------------------ baseline and iso
    @cached_property
    def baseline(self) -> str | None:
        """The series ratios divide by: the view's, else the first series by name."""
        names = sorted(self.analysis.curves)
        return self.state.baseline if self.state.baseline in self.analysis.curves else (names[0] if names else None)

    @cached_property
    def iso(self) -> pd.DataFrame:
        """Cost at matched interactivity, with ratios to :attr:`baseline`."""
        result = self.analysis
        if result.scenario.baseline == self.baseline:
            return result.iso
        return iso_table(result.curves, result.targets, result.scenario.method, self.baseline)

    # ------------------------------------------------------------------ interpolation error
    @cached_property
    def uncertainty(self) -> Uncertainty:
        """Leave-one-out error of every method on this view's frontiers, and the ± band of the view's method
        (:mod:`model.core.uncertainty`). Series of one hardware are predicted at $1/GPU-hour (their relative
        errors do not depend on the rate), so a cache keyed like the frontier's can hold them."""
        result, s = self.analysis, self.scenario
        if self.loo is not None and self.points is self.rows:
            by_method = self.loo(self.points, s)
        else:
            rates = None if "hardware" in s.by else result.usd_per_gpu_hour
            by_method = leave_one_out_methods(result.frontier, METHODS, rates)
        return uncertainty(result.curves, s.method, by_method)

    @cached_property
    def iso_error(self) -> pd.DataFrame:
        """:attr:`iso` with ``usd_per_mtok_error`` (relative ± of its $/M; 0 at a measured point) and ``error_from``."""
        return iso_with_error(self.iso, self.analysis.curves, self.uncertainty)

    @cached_property
    def crossovers_marked(self) -> pd.DataFrame:
        """The crossovers of :attr:`crossed` with ``within_uncertainty`` (the gap between the two curves stays inside
        both bands on one side of the crossing)."""
        result = self.crossed
        return mark_crossovers(result.crossovers, result.curves, self.uncertainty, self.scenario.method)

    def drawn(self, result: Analysis) -> list[str] | None:
        """The series a cost chart of ``result`` draws: None for all of them (up to :data:`DRAW_LIMIT` series, or
        when the view asks for every curve); past it, what a person can read: the baseline and the chosen pair,
        every series on the lower envelope (cheapest somewhere), then the cheapest at the targets, up to
        :data:`DRAW_LIMIT` (the envelope's series are always drawn). Tables and downloads keep every series."""
        names = result.curves
        if self.state.all_curves or len(names) <= DRAW_LIMIT:
            return None
        ranked = [self.baseline, *(self.pair or ())]
        if result.envelope is not None and not result.envelope.segments.empty:
            ranked += list(result.envelope.segments["series"])
        must = len(dict.fromkeys(s for s in ranked if s in names))
        iso = self.iso[self.iso["usd_per_mtok"].notna()] if not self.iso.empty else self.iso
        if not iso.empty:
            rank = iso.groupby("interactivity")["usd_per_mtok"].rank(method="first")
            ranked += list(iso.assign(rank=rank).groupby("series")["rank"].min().sort_values(kind="stable").index)
        ranked += sorted(names)
        chosen = [s for s in dict.fromkeys(ranked) if s in names]
        return chosen[:max(DRAW_LIMIT, must)]

    # ------------------------------------------------------------------ the interactivity you need
    @cached_property
    def x_range(self) -> tuple[float, float] | None:
        """Where the interactivity you need may be set [tok/s/user]: half the lowest to 1.5x the highest reach."""
        curves = self.analysis.curves
        if not curves:
            return None
        lo = min(c.x_min for c in curves.values())
        hi = max(c.x_max for c in curves.values())
        return round(lo * 0.5, 1), round(hi * 1.5, 1)

    @cached_property
    def x(self) -> float | None:
        """The interactivity you need [tok/s/user]: the view's, else the middle target; None without curves
        (then the view's own value, if any, still sizes a fleet)."""
        span = self.x_range
        if span is None:
            return self.state.interactivity_needed
        targets = self.analysis.targets
        middle = targets[len(targets) // 2] if targets else span[0]
        return float(min(max(self.state.interactivity_needed or middle, span[0]), span[1]))

    @cached_property
    def at_x(self) -> pd.DataFrame:
        """Every series at :attr:`x`, cheapest first."""
        return cheapest_at(self.analysis.curves, self.x, self.scenario.method) if self.x is not None else \
            pd.DataFrame(columns=["series", "usd_per_mtok", "status"])

    @cached_property
    def headline(self) -> str:
        """One line: the cheapest series at :attr:`x`, by how much, and where that changes."""
        if self.x is None:
            return "No series in this view can be priced."
        return headline(self.at_x, changes_of(self.crossed), self.x)

    @cached_property
    def summary(self) -> str:
        """The report's answer paragraph (the headline, the crossings near x, the runner-up's break-even)."""
        if self.x is None:
            return ("No benchmark rows match this view's filters." if self.rows.empty else
                    "No series in this view has both interactivity and a priced throughput, so there is "
                    "nothing to price.")
        return summary(self.crossed, self.at_x, self.x, self.scenario.method)

    @cached_property
    def pair(self) -> tuple[str, str] | None:
        """The pair the break-even answer prices: the view's, else the runner-up against the cheapest at x."""
        names = sorted(self.analysis.curves)
        chosen = self.state.pair_names()
        if len(chosen) == 2 and set(chosen) <= set(names) and chosen[0] != chosen[1]:
            return chosen
        return default_pair(self.at_x) if self.x is not None else None

    @cached_property
    def break_even(self) -> dict | None:
        """:func:`model.present.answers.break_even_answer` for :attr:`pair` at :attr:`x`."""
        if self.pair is None or self.x is None:
            return None
        return break_even_answer(self.analysis.curves, *self.pair, self.x, self.scenario.method)

    # ------------------------------------------------------------------ rates and their sources
    @cached_property
    def _rate_files(self) -> dict[tuple[str, str, str], str]:
        try:
            rows = self.con.execute(
                "SELECT r.price_set, r.tier, lower(r.hardware), s.file_name FROM tco_rates r "
                "JOIN sources s USING (source_id)").fetchall()
        except Exception:   # an older store without the table: every preset is built in
            return {}
        return {(str(p), str(t), str(h)): str(f) for p, t, h, f in rows}

    @cached_property
    def rates(self) -> pd.DataFrame:
        """One row per priced name (hardware, or a cost profile shown side by side): ``hardware``,
        ``usd_per_gpu_hour`` (what prices tokens), ``usd_per_gpu_hour_full_use`` (what a fleet pays
        every hour), ``source`` (one of :data:`RATE_SOURCES`), ``detail`` (the source in words) and
        ``profile`` (the cost profile's name when one prices it)."""
        state, priced = self.state, self.usd_per_gpu_hour
        hardware = sorted(self.points["hardware"].dropna().astype(str).unique()) if not self.points.empty else []
        profiles = {p.name: p for p in state.cost_profiles()}
        by_hw = {profiles[n].hardware.lower(): profiles[n] for n in state.priced_by if n in profiles}
        own = {hw.lower() for hw, _ in state.rates}
        preset = resolve_rates(hardware, self.presets, state.price_set, state.tier) \
            if has_price_set(self.presets, state.price_set, state.tier) else {}
        table = self.presets[(self.presets["price_set"] == state.price_set) & (self.presets["tier"] == state.tier)]
        source_of = {str(h).lower(): str(s) for h, s in zip(table["hardware"], table["source"])
                     if pd.notna(s) and str(s) not in ("", "nan")}
        rows = []
        for hw in hardware:
            rate = priced.get(hw)
            full = rate
            p = profiles.get(hw) if hw in state.priced_by else by_hw.get(hw.lower())   # side by side: named by it
            if p is not None:
                kind, detail, full = "cost profile", rate_source_text("cost profile", profile=p), p.paid_rate()
            elif rate is None:
                kind, detail = "not set", rate_source_text("not set")
            elif hw.lower() in own:
                kind, detail = "set in this view", rate_source_text("set in this view", preset=preset.get(hw))
            elif (state.price_set, state.tier, hw.lower()) in self._rate_files:
                kind = "ingested price set"
                detail = rate_source_text(kind, price_set=state.price_set, tier=state.tier,
                                          file=self._rate_files[(state.price_set, state.tier, hw.lower())],
                                          source=source_of.get(hw.lower(), ""))
            else:
                kind = "preset"
                detail = rate_source_text(kind, price_set=state.price_set, tier=state.tier,
                                          source=source_of.get(hw.lower(), ""))
            rows.append({"hardware": hw, "usd_per_gpu_hour": rate if rate is not None else math.nan,
                         "usd_per_gpu_hour_full_use": full if full is not None else math.nan,
                         "source": kind, "detail": detail, "profile": p.name if p is not None else None})
        return pd.DataFrame(rows, columns=["hardware", "usd_per_gpu_hour", "usd_per_gpu_hour_full_use", "source",
                                           "detail", "profile"])

    # ------------------------------------------------------------------ cost profiles
    @cached_property
    def profiles(self) -> list[ProfileAnswer]:
        """Every cost profile of the view with its inputs, parts, tornado and break-even server price."""
        out = []
        profiles = self.state.cost_profiles()
        result = self.analysis
        for p in profiles:
            series = next((s for s, c in result.curves.items()
                           if str(c.hardware[0]).lower() in (p.hardware.lower(), p.name.lower())), None)
            tps = self._throughput_at_x(series) if series else math.nan
            swings, unit = None, "usd_per_gpu_hour"
            if p.onprem is not None and p.onprem.server_usd is not None:
                swings = tornado(p.onprem, tps)
                unit = "usd_per_mtok" if tps == tps else "usd_per_gpu_hour"
            out.append(ProfileAnswer(p, p.name in self.state.priced_by, self._inputs(p), breakdown_frame([p]),
                                     series, tps, swings, unit, self._break_evens(p, profiles)))
        return out

    def _throughput_at_x(self, series: str) -> float:
        """The tok/s/GPU the answer's own $/M of ``series`` at :attr:`x` implies (``rate / (0.0036 × $/M)``), so
        a tornado's base $/M is the iso table's at x whatever the interpolation method [tok/s/GPU]."""
        row = self.at_x[self.at_x["series"] == series]
        if row.empty or not row["usd_per_mtok"].notna().iloc[0]:
            return math.nan
        usd, rate = float(row["usd_per_mtok"].iloc[0]), float(row["usd_per_gpu_hour"].iloc[0])
        return rate * 1e6 / (3600 * usd)

    def _inputs(self, p: CostProfile) -> pd.DataFrame:
        if p.onprem is None:
            return pd.DataFrame([{"input": "Rate [$/GPU-hour]", "value": fmt.usd(p.usd_per_gpu_hour, ""),
                                  "source": p.source or "entered"}])
        defaults = onprem_defaults(p.hardware, self.presets)
        rows = []
        for name, label in ONPREM_LABELS.items():
            value = getattr(p.onprem, name)
            if value is None or (name in ("network_usd", "rack_usd_per_month", "nodes_per_rack") and not value):
                continue
            default, source = defaults.get(name, (None, ""))
            same = default is not None and isinstance(value, (int, float)) and abs(float(value) - default) < 1e-12
            built_in = value == OnPremInputs.model_fields[name].default
            rows.append({"input": label, "value": f"{value:,.6g}" if isinstance(value, (int, float))
                         and not isinstance(value, bool) else str(value),
                         "source": f"default: {source}" if same else
                         "the build-up's own default (no cited value)" if built_in else (p.source or "entered")})
        return pd.DataFrame(rows, columns=["input", "value", "source"])

    def _break_evens(self, p: CostProfile, profiles: list[CostProfile]) -> tuple:
        if p.onprem is None or p.onprem.server_usd is None:
            return ()
        against = [(f"cost profile '{q.name}'", q.rate()) for q in profiles
                   if q.onprem is None and q.rate() and q.hardware.lower() == p.hardware.lower()]
        if not against:
            preset = resolve_rates([p.hardware], self.presets, self.state.price_set, self.state.tier).get(p.hardware) \
                if has_price_set(self.presets, self.state.price_set, self.state.tier) else None
            if preset:
                against = [(f"the preset {self.state.price_set} / {self.state.tier}", preset)]
        out = []
        for label, rate in against:
            solved = server_break_even(p.onprem, rate, "server_usd")
            note = (f"{p.name} matches {label} ({fmt.usd(rate, '/GPU-hour')}) at a server price of "
                    + (f"${solved.value:,.0f} per node (quoted ${p.onprem.server_usd:,.0f})" if solved.value == solved.value
                       else solved.note))
            out.append((label, float(rate), float(solved.value), note))
        return tuple(out)

    # ------------------------------------------------------------------ the fleet
    @property
    def sizing_x(self) -> float | None:
        """The interactivity a fleet is sized at [tok/s/user]: :attr:`x`, or without curves (a ramp-only
        view) the view's own value, if any."""
        return self.x if self.analysis.curves else self.state.interactivity_needed

    @cached_property
    def capacity(self) -> pd.DataFrame:
        """What one node of each series carries under the view's SLA at :attr:`sizing_x`
        (:func:`model.core.fleet.node_capacity`): the fleet and the volume answer size from it."""
        self._every_column("capacity")
        s, opts = self.state, self.fleet_options
        sla = SLA.from_text(s.sla) if s.sla else None
        basis = opts.get("basis") or ("auto" if s.basis == "total" else s.basis)
        return node_capacity(self.points, sla, self.scenario.by, basis, opts.get("rule", "first_failure"),
                             opts.get("gpus_per_node"), interactivity_min=self.sizing_x)

    @cached_property
    def volume(self):
        """Buy, rent or call an API at the view's monthly volume (:class:`model.present.volume_answer.VolumeAnswer`);
        None when the view has no ``tokens_per_month``."""
        if self.state.tokens_per_month is None:
            return None
        from model.data.api_prices import load_api_prices
        from model.present.volume_answer import volume_of

        return volume_of(self, load_api_prices(self.con))

    @cached_property
    def fleet(self) -> FleetAnswer | None:
        """The fleet for the view's demand (req/s, tokens/day or tokens/month) or budget; None when the view
        has neither. Tokens per month become tokens per day as ``× 24 / 730`` (a month is 730 hours)."""
        s, opts = self.state, self.fleet_options
        wants_demand = s.demand_rps is not None or s.tokens_per_day is not None or s.tokens_per_month is not None
        wants_budget = s.budget_mw is not None or s.budget_usd_month is not None
        if not (wants_demand or wants_budget):
            return None
        sla = SLA.from_text(s.sla) if s.sla else None
        x = self.sizing_x
        capacity = self.capacity
        hardware = sorted(capacity["hardware"].dropna().unique()) if not capacity.empty else []
        chosen = [p for p in s.cost_profiles() if p.name in s.priced_by]
        rates = resolve_rates(hardware, self.presets, s.price_set, s.tier, dict(s.rates))
        words = {r["hardware"].lower(): r["detail"] for r in self.rates.to_dict("records")}
        options = pricing_options(hardware, rates, preset_kw_per_gpu(self.presets, s.price_set), chosen,
                                  opts.get("kw_per_gpu"), opts.get("pue"))
        options = [{**o, "pricing": words.get(str(o["hardware"]).lower(), "not set")} if o["pricing"] == "rate"
                   else {**o, "pricing": self._profile_pricing(o, chosen)} for o in options]
        per_day = s.tokens_per_day if s.tokens_per_month is None else s.tokens_per_month * 24 / HOURS_PER_MONTH
        need = demand(requests_per_second=s.demand_rps, tokens_per_day=per_day,
                      peak_to_average=s.peak_to_average if per_day else None,
                      token_basis=opts.get("token_basis"), headroom=s.headroom, spares=s.spares) \
            if wants_demand else None
        sized = size_fleet(capacity, options, need, s.budget_mw if not wants_demand else None,
                           s.budget_usd_month if not wants_demand else None, opts.get("rack_kw"))
        notes = []
        if capacity.empty:
            notes.append("no load ramps or sweeps in this view to size a fleet from")
        elif capacity["per_node_rps"].isna().all():
            notes.append("no measured point in view meets the SLA" + (f" and {fmt.interactivity(x)}" if x else ""))
        sentences = []
        if need is not None and not sized.empty:
            for row in sized[sized["nodes"].notna() & (sized["nodes"] > 0)].to_dict("records"):
                sentences.append(f"{row['series']}: {row['nodes']:,.0f} nodes, {row['gpus']:,.0f} GPUs, "
                                 f"{row['kw']:,.0f} kW, ${row['usd_per_month']:,.0f} a month at "
                                 f"{fmt.usd(row['usd_per_gpu_hour'], '/GPU-hour')}; rate: {row['pricing']}")
        return FleetAnswer("demand" if need is not None else "budget",
                           need.describe() if need is not None else
                           f"{s.budget_mw or 0:g} MW, ${s.budget_usd_month or 0:,.0f} a month", x,
                           sla.describe() if sla else "none", capacity, sized, tuple(sentences), tuple(notes))

    @staticmethod
    def _profile_pricing(option: dict, chosen: list[CostProfile]) -> str:
        name = option["pricing"].removeprefix("profile ")
        p = next((q for q in chosen if q.name == name), None)
        if p is None:
            return option["pricing"]
        rate, full = p.rate(), p.paid_rate()
        if p.onprem is not None and rate is not None and full is not None and abs(rate - full) > 1e-12:
            return (f"cost profile '{p.name}' at its full-use rate {fmt.usd(full, '/GPU-hour')}, every hour of every "
                    f"GPU being paid for (the cost pages price tokens at its effective {fmt.usd(rate, '/GPU-hour')} "
                    f"= full use ÷ {fmt.percent(p.onprem.utilization)} utilisation)")
        return f"cost profile '{p.name}'" + (f" at {fmt.usd(full, '/GPU-hour')}" if full is not None else ", no price yet")

    # ------------------------------------------------------------------ repeats and history
    @cached_property
    def spread(self) -> pd.DataFrame:
        """Every configuration measured more than once in view (after as-of), with its spread across the
        repeats (:func:`model.core.repeats.repeat_spread` on the view's basis) and its series label."""
        from model.core.frontier import series_labels

        self._every_column("spread")
        pooled = self.rows if self.pooled is None else self.pooled
        out = repeat_spread(pooled, throughput_column(self.state.basis) if self.state.basis != "blended"
                            else "total_tokens_per_second_per_gpu", self.scenario.by)
        if not out.empty:
            out.insert(0, "series", series_labels(out, [k for k in self.scenario.by if k in out.columns]).to_numpy())
        return out

    @cached_property
    def frontier_table(self) -> pd.DataFrame:
        """The frontier points with their repeats' spread: ``repeats``, ``tput_min``, ``tput_max`` [tok/s/GPU]
        and ``spread_pct`` where the point's configuration was measured more than once (else empty).
        Shared (:meth:`share`): read-only."""
        return self.share("frontier_table", self._frontier_table)

    def _frontier_table(self) -> pd.DataFrame:
        frontier = self.analysis.frontier
        spread = self.spread
        cols = ["repeats", "tput_min", "tput_max", "spread_pct"]
        if frontier.empty or spread.empty:
            return frontier.assign(**{c: pd.Series(dtype=float) for c in cols}) if not frontier.empty else frontier
        keys = [k for k in spread.columns if k in frontier.columns and k not in ("series",)
                and k not in ("repeats", "runs") and not k.startswith(("interactivity_", "throughput_", "spread_"))]
        right = spread[keys + ["repeats", "throughput_min", "throughput_max", "spread_pct"]].rename(
            columns={"throughput_min": "tput_min", "throughput_max": "tput_max"})
        left = frontier.drop(columns=[c for c in cols if c in frontier.columns])
        key_l = left[keys].astype(str)
        key_r = right[keys].astype(str)
        lookup = {tuple(k): i for i, k in enumerate(key_r.itertuples(index=False, name=None))}
        where = [lookup.get(tuple(k)) for k in key_l.itertuples(index=False, name=None)]
        for c in cols:
            values = right[c].to_numpy()
            left[c] = [float(values[i]) if i is not None else math.nan for i in where]
        return left

    @cached_property
    def _history(self) -> tuple[pd.DataFrame, list[str]]:
        self._every_column("history")
        return self.share("history", self._by_run_date)

    def _by_run_date(self) -> tuple[pd.DataFrame, list[str]]:
        loaded = self.rows if self.loaded is None else self.loaded
        try:
            priced, rates, _ = price_with_profiles(loaded, dict(self.state.rates), self.state.cost_profiles(),
                                                   self.state.priced_by)
        except TcoInputError:
            priced, rates = loaded, dict(self.state.rates)
        scenario = self.scenario.model_copy(update={"rates": tuple(sorted(rates.items()))})
        x = self.x
        if x is None:
            return history(priced.iloc[0:0], scenario, 1.0, self.presets)[0], ["no series in this view can be priced"]
        return history(priced, scenario, x, self.presets, self.state.repeats, self.state.as_of)

    @property
    def history(self) -> pd.DataFrame:
        """Each series' $/M at :attr:`x` run date by run date (:func:`model.core.history.history`)."""
        return self._history[0]

    @property
    def history_notes(self) -> list[str]:
        return self._history[1]

    # ------------------------------------------------------------------ notes
    @cached_property
    def notes(self) -> list[str]:
        """What the reader must know: rows left out, rates missing, values of the view not used."""
        out = list(self.extra_notes) + list(self.analysis.notes)
        if self.state.baseline and self.baseline != self.state.baseline and self.baseline:
            out = [n for n in out if not n.startswith("baseline ")]
            out.append(f"baseline {self.state.baseline!r} is not among the series shown; ratios are to {self.baseline}")
        return list(dict.fromkeys(out))


def answer_of_view(con, state: View, *, presets: pd.DataFrame | None = None, rows: pd.DataFrame | None = None,
                   fit: Callable | None = None, fleet_options: dict | None = None,
                   notes: list[str] | None = None, shared: MutableMapping | None = None,
                   loo: Callable | None = None, runs: RunsInView | None = None,
                   columns: tuple[str, ...] | None = None) -> ViewAnswer:
    """The answer of ``state`` on the store ``con`` (a DuckDB connection or cursor, read only is enough).

    A view without a workload gets the store's first (:func:`first_workload`), as a link without
    ``wl=`` opens. ``presets``, ``rows`` and ``fit`` let a caller pass what it has cached (they must be
    what this function would read: :func:`model.core.cost.load_presets` of the store, ``load_points`` of the
    view's filters, and a frontier fit of ``(points, scenario)`` where ``points`` are the rows left after the
    view's ``as_of`` and ``repeats`` (:func:`model.core.repeats.runs_in_view`), which this function applies
    unless ``runs`` is that function's answer for ``rows`` already; ``loo`` the leave-one-out of every method of that frontier, :func:`model.core.uncertainty.leave_one_out_frontier`).
    ``fleet_options`` (``rule``,
    ``gpus_per_node``, ``kw_per_gpu``, ``pue``, ``rack_kw``, ``token_basis``, ``basis``) tune fleet sizing.
    ``shared`` is a mapping that answers of the same ``state`` on the same data version share, e.g. a
    cache across the sessions of a server: the analysis, the crossings and the priced points are computed
    once for all of them and must be treated as read-only.
    ``columns`` (e.g. :func:`analysis_columns` of the view) loads only those columns of the store, for a caller that
    reads only :data:`ANALYSIS_PARTS`; the other parts then raise ``RuntimeError``. Ignored when ``rows`` are passed.
    """
    if state.workload is None and (first := first_workload(con)) is not None:
        state = state.replace(workload=first)
    presets = load_presets(stored_rates(con)) if presets is None else presets
    if rows is None:
        rows = load_points(con, state.where(), columns=columns)
    else:
        columns = None
    runs = runs_in_view(rows, state.as_of, state.repeats, state.by) if runs is None else runs
    return ViewAnswer(con, state, presets, runs.rows, fit, dict(fleet_options or {}), list(notes or []) + runs.notes,
                      shared=shared, loaded=rows, pooled=runs.pooled, loo=loo, columns=columns)
