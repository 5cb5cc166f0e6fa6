"""The answer of a view: everything the pages, the report and the CLI show for one
:class:`~model.core.view.View`, built from explicit inputs.

:func:`build_answer` takes the :class:`~model.data.inputs.Inputs` the store read for the view
(:func:`model.data.inputs.load_inputs`) and, optionally, its frontier :class:`~model.present.answer_steps.Fit`
(the one expensive step, which the dashboard caches by the view's frontier key), and returns an
:class:`Answer`: an immutable value that holds no connection and runs no SQL. Each part is one pure step
(:mod:`model.present.answer_steps`, :mod:`model.present.rate_answer`, :mod:`model.present.fleet_answer`,
:mod:`model.present.volume_answer`) of the parts it reads, computed the first time it is read, so a page pays
only for what it shows; sentences come from :mod:`model.present.answers`.

Rules that live here once:

- **workload**: a view without one shows the store's first (:func:`model.data.inputs.first_workload`);
  ``"all"`` splits series by the workload keys that vary unless the view pools them (``mix_workloads``).
- **the interactivity you need** (:attr:`Answer.interactivity_needed`): the view's ``interactivity_needed``, else the
  middle target, kept within half the lowest and 1.5 times the highest reach of any series; without curves
  the view's own value. The headline, the break-even answer, fleet sizing and the report all use it.
- **rates**: cost profiles over the view's own rates over the presets, each with its source
  (:data:`model.present.rate_answer.RATE_SOURCES`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date
from functools import cached_property
from types import MappingProxyType
from typing import Iterable, Mapping

import pandas as pd

from model.core.analysis import Analysis, analyse, cross
from model.core.dated import old_rate_notes
from model.core.uncertainty import Uncertainty, iso_with_error, mark_crossovers
from model.data.inputs import Inputs, load_inputs
from model.present import answer_steps as steps
from model.present.answers import break_even_answer, summary_of
from model.present.fleet_answer import FleetAnswer, capacity_of, fleet_of
from model.present.rate_answer import ProfileAnswer, profiles_of, rates_of

__all__ = ["Answer", "build_answer", "answer_of_view", "fit_of_inputs", "rates_of_inputs"]


@dataclass(frozen=True, eq=False)
class Answer:
    """The answer of one view. Build it with :func:`build_answer`; read the parts you show. Read-only: the
    dashboard shares one per view and data version between sessions."""

    inputs: Inputs
    fit: steps.Fit | None = None                  # the frontier of (points, scenario); None: fitted on first read
    fleet_options: Mapping = field(default_factory=lambda: MappingProxyType({}))   # rule, gpus_per_node, kw_per_gpu, pue, rack_kw, token_basis
    extra_notes: tuple[str, ...] = ()             # e.g. a link's notices

    # ------------------------------------------------------------------ the view and its rows
    @property
    def state(self):
        """The view (its workload set)."""
        return self.inputs.view

    @cached_property
    def good(self) -> steps.Good:
        """The rows on good tokens under the view's goodput caps (:func:`model.present.answer_steps.good_of`)."""
        return steps.good_of(self.state, self.inputs.rows, self.inputs.requests)

    @property
    def rows(self) -> pd.DataFrame:
        """The store rows the view selects, after its as-of and repeats; with goodput caps, their throughput counts
        good requests only."""
        return self.good.rows

    @cached_property
    def goodput_caps(self) -> pd.DataFrame:
        """The cheapest series at :attr:`interactivity_needed` as the TTFT cap moves
        (:func:`model.present.answer_steps.caps_table_of`)."""
        return steps.caps_table_of(self.state, lambda text: Answer(replace(self.inputs, view=self.state.replace(
            goodput=text))), self.interactivity_needed, self.inputs.requests)

    @cached_property
    def where(self) -> dict[str, list]:
        return self.state.where()

    @cached_property
    def _priced(self) -> steps.Priced:
        return steps.priced(self.state, self.rows)

    @property
    def points(self) -> pd.DataFrame:
        """The rows priced by the view's cost profiles (a hardware two profiles price appears once per profile)."""
        return self._priced.points

    @cached_property
    def _scenario(self):
        return steps.scenario_of(self.state, self._priced)

    @property
    def scenario(self):
        return self._scenario[0]

    @cached_property
    def usd_per_gpu_hour(self) -> dict[str, float]:
        """$/GPU-hour of every priced name in view, without a fit."""
        return steps.usd_per_gpu_hour_of(self.points, self.scenario, self.inputs.presets)

    # ------------------------------------------------------------------ the frontier and its costs
    @cached_property
    def frontier_fit(self) -> steps.Fit:
        """The fit handed in, else the fit of this view's points."""
        return self.fit if self.fit is not None else steps.fit_of(self.points, self.scenario, self.usd_per_gpu_hour)

    @cached_property
    def analysis(self) -> Analysis:
        """Frontiers, cost curves and the iso table; no crossings (see :attr:`crossed`)."""
        return steps.analysis_of(self.points, self.scenario, self.inputs.presets, self.frontier_fit,
                                 (*self.good.notes, *self._priced.notes, self._scenario[1]))

    @cached_property
    def crossed(self) -> Analysis:
        """:attr:`analysis` with the lower envelope and the crossovers of the pairs in view."""
        return cross(self.analysis, "auto")

    @cached_property
    def with_points(self) -> Analysis:
        """:attr:`analysis` with every usable point labelled and priced (the Frontier chart)."""
        self.inputs.refuse("with_points")
        return analyse(self.points, self.scenario, self.inputs.presets, frontier=self.analysis.frontier,
                       with_points=True, crossovers="none")

    @cached_property
    def baseline(self) -> str | None:
        return steps.baseline_of(self.state, self.analysis)

    @cached_property
    def iso(self) -> pd.DataFrame:
        """Cost at matched interactivity, with ratios to :attr:`baseline`."""
        return steps.iso_of(self.analysis, self.baseline)

    @cached_property
    def uncertainty(self) -> Uncertainty:
        """Leave-one-out error of every method on the frontiers, and the ± band of the view's method."""
        return steps.uncertainty_of(self.analysis, self.frontier_fit)

    @cached_property
    def iso_error(self) -> pd.DataFrame:
        """:attr:`iso` with ``usd_per_mtok_error`` (relative ± of its $/M; 0 at a measured point) and ``error_from``
        (a curve without a band of its own in a view with too few points for a pooled one: the view's leave-one-out
        error, :func:`model.present.recommendation.filled_errors`)."""
        from model.present.recommendation import filled_errors

        return filled_errors(iso_with_error(self.iso, self.analysis.curves, self.uncertainty), self.uncertainty)

    @cached_property
    def crossovers_marked(self) -> pd.DataFrame:
        """The crossovers of :attr:`crossed` with ``within_uncertainty``."""
        return mark_crossovers(self.crossed.crossovers, self.crossed.curves, self.uncertainty, self.scenario.method)

    def drawn(self, result: Analysis) -> list[str] | None:
        """The series a cost chart of ``result`` draws (:func:`model.present.answer_steps.drawn_of`)."""
        return steps.drawn_of(self.state, result, self.baseline, self.pair, self.iso)

    # ------------------------------------------------------------------ the interactivity you need
    @cached_property
    def x_range(self) -> tuple[float, float] | None:
        return steps.x_range_of(self.analysis)

    @cached_property
    def interactivity_needed(self) -> float | None:
        """The interactivity you need [tok/s/user] (:func:`model.present.answer_steps.interactivity_needed_of`)."""
        return steps.interactivity_needed_of(self.state, self.analysis, self.x_range)

    @cached_property
    def at_x(self) -> pd.DataFrame:
        """Every series at :attr:`interactivity_needed`, cheapest first."""
        return steps.at_x_of(self.analysis, self.interactivity_needed)

    @cached_property
    def headline(self) -> str:
        """The recommendation's first sentence (:attr:`recommendation`)."""
        return self.recommendation.headline

    @cached_property
    def recommendation(self):
        """The one recommendation of the view (:func:`model.present.recommendation.recommendation_of`): the cheapest
        series at the interactivity you need with its ±, owning, renting or the API at the view's volume, the fleet,
        the break-even rate; "not settled by the data" when the ± bands do not decide."""
        from model.present.recommendation import recommendation_of

        return recommendation_of(self)

    @cached_property
    def summary(self) -> str:
        return summary_of(self)

    @cached_property
    def pair(self) -> tuple[str, str] | None:
        return steps.pair_of(self.state, self.analysis, self.at_x, self.interactivity_needed)

    @cached_property
    def break_even(self) -> dict | None:
        """:func:`model.present.answers.break_even_answer` for :attr:`pair` at :attr:`interactivity_needed`."""
        if self.pair is None or self.interactivity_needed is None:
            return None
        return break_even_answer(self.analysis.curves, *self.pair, self.interactivity_needed, self.scenario.method)

    # ------------------------------------------------------------------ rates, profiles, fleet, volume
    @cached_property
    def rates(self) -> pd.DataFrame:
        """Every priced name with its rate and source (:func:`model.present.rate_answer.rates_of`)."""
        return rates_of(self.state, steps.hardware_of(self.points), self.inputs.presets, self.inputs.rate_files,
                        self.usd_per_gpu_hour)

    @cached_property
    def profiles(self) -> list[ProfileAnswer]:
        return profiles_of(self.state, self.analysis.curves, self.at_x, self.inputs.presets)

    @cached_property
    def capacity(self) -> pd.DataFrame:
        """What one node of each series carries at :attr:`interactivity_needed` (the fleet and volume size from it)."""
        self.inputs.refuse("capacity")
        return capacity_of(self.state, self.points, self.scenario.by, self.interactivity_needed, self.fleet_options)

    @cached_property
    def fleet(self) -> FleetAnswer | None:
        return fleet_of(self.state, self.capacity, self.interactivity_needed, self.inputs.presets, self.rates,
                        self.fleet_options)

    @cached_property
    def volume(self):
        """Buy, rent or call an API at the view's monthly volume (:class:`model.present.volume_answer.VolumeAnswer`);
        None when the view has no demand (a volume, a peak or a trace)."""
        s = self.state
        if s.tokens_per_month is None and s.tokens_per_day is None and s.demand_rps is None and not s.trace:
            return None
        from model.present.volume_answer import volume_of

        self.inputs.refuse("volume", "api_prices")
        return volume_of(self, list(self.inputs.api_prices))

    # ------------------------------------------------------------------ repeats and history
    @cached_property
    def spread(self) -> pd.DataFrame:
        self.inputs.refuse("spread")
        return steps.spread_of(self.inputs.pooled, self.state.basis, self.scenario.by)

    @cached_property
    def frontier_table(self) -> pd.DataFrame:
        """The frontier points with their repeats' spread (:func:`model.present.answer_steps.frontier_table_of`)."""
        return steps.frontier_table_of(self.analysis.frontier, self.spread)

    @cached_property
    def _history(self) -> tuple[pd.DataFrame, list[str]]:
        self.inputs.refuse("history")
        return steps.history_of(self.state, self.inputs.loaded, self.scenario, self.inputs.presets,
                                self.interactivity_needed)

    @property
    def history(self) -> pd.DataFrame:
        """Each series' $/M at the interactivity you need, run date by run date."""
        return self._history[0]

    @property
    def history_notes(self) -> list[str]:
        return self._history[1]

    @cached_property
    def ramps(self):
        """Knees, tokens per dollar and accuracy of the rows in view at its rates
        (:func:`model.present.ramp_answer.ramp_answer`; :attr:`fleet_options` ``basis``, ``rule``, ``gpus_per_node``).
        The accuracy table is empty when the inputs did not read the evaluations (``load_inputs(parts=...)``)."""
        from model.present.ramp_answer import ramp_answer

        self.inputs.refuse("ramps")
        opts = self.fleet_options
        return ramp_answer(self.points, self.state, self.usd_per_gpu_hour, self.inputs.evals, basis=opts.get("basis"),
                           rule=opts.get("rule", "first_failure"), gpus_per_node=opts.get("gpus_per_node"),
                           notes=(*self.extra_notes, *self.inputs.notes, *self._priced.notes))

    def old_notes(self, today: date | None = None) -> list[str]:
        """The preset or ingested rates pricing this answer that were read more than the view's
        ``price_stale_days`` before ``today`` (default: the date today), one note per read date
        (:func:`model.core.dated.old_rate_notes`). Apart from :attr:`notes`: they depend on the day."""
        s = self.state
        return old_rate_notes(self.rates, s.price_set, s.tier, today or date.today(), s.price_stale_days)

    @cached_property
    def notes(self) -> list[str]:
        """What the reader must know: rows left out, rates missing, values of the view not used."""
        return steps.notes_of(self.state, (*self.extra_notes, *self.inputs.notes), self.analysis, self.baseline)


def build_answer(inputs: Inputs, fit: steps.Fit | None = None, *, fleet_options: dict | None = None,
                 notes: Iterable[str] = ()) -> Answer:
    """The answer of ``inputs.view`` from ``inputs``; ``fit`` is :func:`model.present.answer_steps.fit_of` of its
    points (e.g. from a cache keyed by the view's frontier key), fitted on first read when None.
    ``fleet_options`` (``rule``, ``gpus_per_node``, ``kw_per_gpu``, ``pue``, ``rack_kw``, ``token_basis``,
    ``basis``) tune fleet sizing; ``notes`` go first among the answer's notes."""
    return Answer(inputs, fit, MappingProxyType(dict(fleet_options or {})), tuple(notes))


def answer_of_view(con, state, parts: Iterable[str] | None = None, *, fleet_options: dict | None = None,
                   notes: Iterable[str] = ()) -> Answer:
    """:func:`build_answer` of :func:`model.data.inputs.load_inputs` (``parts``: what the caller reads, None for
    every part): the CLI's and the tests' way to an answer."""
    return build_answer(load_inputs(con, state, parts), fleet_options=fleet_options, notes=notes)


def fit_of_inputs(inputs: Inputs) -> steps.Fit:
    """The frontier fit of ``inputs``' view (:func:`model.present.answer_steps.fit_of` of its priced points): what
    a cache keyed by the view's frontier key holds, handed to :func:`build_answer`."""
    answer = Answer(inputs)
    return steps.fit_of(answer.points, answer.scenario, answer.usd_per_gpu_hour)


def rates_of_inputs(inputs: Inputs) -> dict[str, float]:
    """$/GPU-hour of every priced name in ``inputs``' view, by the answer's rule, without a fit."""
    return Answer(inputs).usd_per_gpu_hour
