"""The answer of a view: everything the pages, the report and the CLI show for one
:class:`~model.core.view.View`, built once, eagerly, in named steps, as a frozen value.

:func:`build_answer` takes the view (its workload set: :func:`model.data.inputs.with_workload`), the
:class:`~model.data.inputs.Inputs` the store read for it and the parts a surface asks for; it runs the steps those
parts need, in the fixed order of :data:`STEPS` (pvlib's ``ModelChain.run_model`` is the model: each step a pure
function of explicit arguments, :mod:`model.present.answer_steps` and the modules it names), and returns an
:class:`Answer` holding each part's typed value. A part that was not asked for is :class:`NotAsked`: reading it
raises :class:`PartNotAsked` at once, naming the part, never a value computed on the side. Nothing is computed
when a part is read.

Each step declares the store columns and the other stored inputs it reads beside its code (:class:`Step`), so what
a view's answer reads is derived from the parts asked for (:func:`reading`): a command asking for the
recommendation of a view with a demand reads the capacity's columns; one without a demand does not.

Rules that live here once:

- **workload**: a view without one shows the store's first (:func:`model.data.inputs.first_workload`);
  ``"all"`` splits series by the workload keys that vary unless the view pools them (``mix_workloads``).
- **the interactivity you need** (:attr:`Cost.interactivity_needed`): the view's ``interactivity_needed``, else the
  middle target, kept within half the lowest and 1.5 times the highest reach of any series; without curves
  the view's own value. The headline, the break-even answer, fleet sizing and the report all use it.
- **rates**: cost profiles over the view's own rates over the presets, each with its source
  (:data:`model.present.rate_answer.RATE_SOURCES`).
- **demand**: :attr:`model.core.view.View.has_demand` (a peak, a volume a month or a day, or a trace) for every
  part: the fleet, buy-rent-or-API and the recommendation.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, Callable, Iterable, Mapping, Protocol

import pandas as pd

from model.core.analysis import Analysis, analyse
from model.core.frontier import MEASURED_BASES, throughput_column
from model.core.mix import MixAnswer
from model.core.notes import Note, noted
from model.core.repeats import CONFIG_KEYS
from model.core.run_to_run import frontier_bands, point_bands
from model.core.sla import TTFT_PERCENTILES
from model.core.status import capacity_status, option_status
from model.core.view import View
from model.core.view_fields import FIELDS, FIT, RATE
from model.data.calibration import load_calibration
from model.data.inputs import Inputs, Reading, analysis_columns, load_inputs, reading_of, with_workload
from model.data.store import shared_strings
from model.present import answer_steps as steps
from model.present.chargeback_answer import chargeback_of
from model.present.fleet_answer import capacity_of, fleet_of
from model.present.mix_answer import mix_of
from model.present.parts import (
    Answer,
    ChargebackAnswer,
    Cost,
    Crossed,
    Crossings,
    Fit,
    FleetAnswer,
    History,
    NotAsked,
    Overview,
    Points,
    Pricing,
    ProfileAnswer,
    RampAnswer,
    Recommendation,
    Rows,
    RunToRun,
    SellAnswer,
    SolveAnswer,
    VolumeAnswer,
)
from model.present.provenance import provenance_of
from model.present.ramp_answer import ramp_answer
from model.present.rate_answer import profiles_of, rates_of
from model.present.recommendation import recommendation_of
from model.present.run_to_run_answer import run_to_run_of
from model.present.sell_answer import sell_of
from model.present.solve_answer import solve_of
from model.present.volume_answer import volume_of

__all__ = ["Step", "STEPS", "PARTS", "Memo", "step_key", "build_answer",
           "answer_of_view", "CLOUD_COLUMNS",
           "reading", "steps_for", "fit_of_inputs", "fleet_at", "cloud_of"]


#: the columns of the labelled points the Frontier chart reads (axes, series, and the hover's hardware, recipe,
#: parallelism, concurrency, run date and source:line)
_PROVENANCE = ("run_date", "source_file", "source_line")
_CONFIGURATIONS = (*CONFIG_KEYS, *_PROVENANCE)
_CLOUD = ("tp", "ep", "dp", "pp", "concurrency", "framework", "precision", "spec_decoding", *_PROVENANCE)
#: what one node carries (:func:`model.present.fleet_answer.capacity_of`): ramp knees on the ``auto`` basis (each
#: measured tok/s/GPU in turn), frontier points' GPUs, concurrency and tokens per request
_CAPACITY = ("request_rate_rps", "gpus", "concurrency", "isl", "osl", "prefix_cache_hit_rate", "model",
             *(throughput_column(basis) for basis in MEASURED_BASES), "output_tokens_per_second_per_gpu",
             "source_file", "source_line")


@dataclass(frozen=True)
class Step:
    """One named step of an answer: the parts it needs first (``needs(view)``: some depend on what the view
    states), ``run(view, inputs, **parts)`` returning its value from those parts, each passed by its name and type
    (a part the view does not need is left to its default, None; :data:`_SAYS_NOTES` are passed ``said``, the notes
    the caller hands in), what of the view it
    reads beside those parts (``key(view)``: the values of the view that can change its value, declared here once;
    None reads the whole view), the store columns it reads beyond the analysis's
    (:func:`model.data.inputs.analysis_columns`) and the other stored inputs it reads
    (:data:`model.data.inputs.READS`)."""

    name: str
    needs: Callable[[View], tuple[str, ...]]
    run: Callable[..., Any]
    columns: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()
    key: Callable[[View], tuple] | None = None


def _always(*names: str) -> Callable[[View], tuple[str, ...]]:
    return lambda view: names


def _fields(*names: str) -> Callable[[View], tuple]:
    """A step's key: the named fields of the view."""
    return lambda view: tuple((n, getattr(view, n)) for n in names)


def _changing(*kinds: str) -> Callable[[View], tuple]:
    """A step's key: every field of the view declared to change one of ``kinds`` (:data:`model.core.view_fields.FIT`,
    ``RATE``, ``ANSWER``)."""
    names = tuple(f.name for f in FIELDS if f.changes in kinds)
    return _fields(*names)


#: what the interactivity you need is read from beside the pricing: the view's own, its pair
_AT_X = ("interactivity_needed", "pair")


def _points(view: View, inputs: Inputs) -> Points:
    return steps.points_of(view, inputs.rows, inputs.requests)


def _rows(view: View, inputs: Inputs, points: Points) -> Rows:
    return steps.rows_of_points(view, points, inputs.presets)


def _fit_needs(view: View) -> tuple[str, ...]:
    """A fit of series per hardware reads no rate (the rows only); one whose series mix hardware is fitted on tokens
    per dollar, so it reads the rates."""
    return ("points",) if "hardware" in view.by else ("rows",)


def _fit(view: View, inputs: Inputs, points: Points | None = None, rows: Rows | None = None) -> Fit:
    if rows is None:
        return steps.fit_of(points.points, points.scenario, {})
    return steps.fit_of(rows.points, rows.scenario, rows.usd_per_gpu_hour)


def _pricing(view: View, inputs: Inputs, rows: Rows, fit: Fit) -> Pricing:
    return steps.pricing_of(view, rows, inputs.presets, fit, inputs.calibration)


def _cost(view: View, inputs: Inputs, pricing: Pricing) -> Cost:
    return steps.cost_of(view, pricing)


def _rates(view: View, inputs: Inputs, rows: Rows) -> pd.DataFrame:
    return rates_of(view, steps.hardware_of(rows.points), inputs.presets, inputs.rate_files, rows.usd_per_gpu_hour)


def _notes(view: View, inputs: Inputs, pricing: Pricing, said: tuple[str, ...] = ()) -> tuple[Note, ...]:
    return steps.notes_of(view, (*said, *noted("rows", inputs.notes)), pricing.analysis, pricing.baseline,
                          pricing.x_range)


def _crossings(view: View, inputs: Inputs, pricing: Pricing) -> Crossings:
    return steps.crossings_of(pricing)


def _crossed(view: View, inputs: Inputs, crossings: Crossings, cost: Cost) -> Crossed:
    return steps.crossed_of(view, crossings, cost)


def _cloud(view: View, inputs: Inputs, rows: Rows, fit: Fit, pricing: Pricing) -> Analysis:
    return cloud_of(rows, inputs, pricing, fit)


def _frontier_table(view: View, inputs: Inputs, rows: Rows, pricing: Pricing) -> pd.DataFrame:
    spread = steps.spread_of(inputs.pooled, view.basis, rows.scenario.by)
    table = steps.frontier_table_of(pricing.analysis.frontier, spread)
    return frontier_bands(table, point_bands(inputs.intervals, view.basis))   # each point's run-to-run band


def _history(view: View, inputs: Inputs, rows: Rows, cost: Cost) -> History:
    return steps.history_of(view, inputs.loaded, cost.analysis.scenario, inputs.presets, cost.interactivity_needed,
                            inputs.calibration)


def _profiles(view: View, inputs: Inputs, cost: Cost) -> tuple[ProfileAnswer, ...]:
    return tuple(profiles_of(view, cost.analysis.curves, cost.at_x, inputs.presets))


def _capacity(view: View, inputs: Inputs, rows: Rows, cost: Cost) -> pd.DataFrame:
    return capacity_of(view, rows.points, rows.scenario.by, cost.interactivity_needed)


def _fleet(view: View, inputs: Inputs, capacity: pd.DataFrame | None = None, rates: pd.DataFrame | None = None,
           cost: Cost | None = None) -> FleetAnswer | None:
    if not (view.has_demand or view.has_budget):
        return None
    return with_status(fleet_of(view, capacity, cost.interactivity_needed, inputs.presets, rates, cost.bands))


def with_status(fleet: FleetAnswer | None) -> FleetAnswer | None:
    """``fleet`` with the status of each sized row (:func:`model.core.status.capacity_status`)."""
    if fleet is None or fleet.sized.empty:
        return fleet
    return replace(fleet, sized=fleet.sized.assign(status=capacity_status(fleet.sized, fleet.capacity)))


def _volume(view: View, inputs: Inputs, capacity: pd.DataFrame | None = None, rates: pd.DataFrame | None = None,
            rows: Rows | None = None, cost: Cost | None = None) -> VolumeAnswer | None:
    if not view.has_demand:
        return None
    volume = volume_of(view, capacity, rates, rows.points, cost.interactivity_needed, list(inputs.api_prices),
                       bands=cost.bands)
    if volume is None:
        return None
    return replace(volume, rows=volume.rows.assign(status=[option_status(k) for k in volume.rows["kind"]]))


def _ramps(view: View, inputs: Inputs, rows: Rows, said: tuple[str, ...] = ()) -> RampAnswer:
    return ramp_answer(rows.points, view, rows.usd_per_gpu_hour, inputs.evals, rule=view.rule,
                       gpus_per_node=view.gpus_per_node,
                       notes=(*said, *noted("rows", inputs.notes), *rows.priced.notes))


def _goodput_caps(view: View, inputs: Inputs, cost: Cost) -> pd.DataFrame:
    return steps.caps_table_of(view.replace(method=cost.method), inputs.rows, inputs.requests, inputs.presets,
                               cost.interactivity_needed)


def _recommendation(view: View, inputs: Inputs, rows: Rows, cost: Cost, crossed: Crossed,
                    fleet: FleetAnswer | None = None, volume: VolumeAnswer | None = None) -> Recommendation:
    return recommendation_of(view, rows, cost, crossed, fleet, volume)


def _overview(view: View, inputs: Inputs, rows: Rows) -> Overview:
    return steps.overview_of(rows.rows)


def _provenance(view: View, inputs: Inputs, rows: Rows, crossed: Crossed) -> pd.DataFrame:
    return provenance_of(inputs.sources, rows.rows, crossed.analysis)


def _run_to_run(view: View, inputs: Inputs, cost: Cost, fleet: FleetAnswer | None = None,
                rates: pd.DataFrame | None = None) -> RunToRun:
    def sized_again(capacity: pd.DataFrame):
        return fleet_of(view, capacity, cost.interactivity_needed, inputs.presets, rates)

    return run_to_run_of(view, inputs.intervals, cost.analysis.frontier, cost.iso_error, fleet,
                         sized_again if fleet is not None else None)


def _mix(view: View, inputs: Inputs, fleet: FleetAnswer | None = None, cost: Cost | None = None) -> MixAnswer | None:
    return mix_of(view, fleet, bands=cost.bands) if view.request_mix and view.has_demand else None


def _sell(view: View, inputs: Inputs, cost: Cost, rates: pd.DataFrame, fleet: FleetAnswer | None = None) -> SellAnswer:
    return sell_of(view, cost, rates, list(inputs.api_prices), fleet)


def _solve(view: View, inputs: Inputs, cost: Cost | None = None, rows: Rows | None = None,
           rates: pd.DataFrame | None = None) -> SolveAnswer | None:
    return solve_of(view, cost, rows, inputs.presets, rates) if cost is not None else None


def _chargeback(view: View, inputs: Inputs, fleet: FleetAnswer | None = None) -> ChargebackAnswer | None:
    return chargeback_of(view, fleet)


def _demand_parts(view: View) -> tuple[str, ...]:
    return ("capacity", "rates", "cost") if view.has_demand or view.has_budget else ()


#: every step of an answer, in the order it runs
STEPS: tuple[Step, ...] = (
    Step("points", _always(), _points, key=_changing(FIT)),
    Step("rows", _always("points"), _rows, key=_changing(RATE)),
    Step("fit", _fit_needs, _fit, key=_fields()),
    Step("pricing", _always("rows", "fit"), _pricing, reads=("calibration",),
         key=_fields("method", "targets", "baseline")),
    Step("cost", _always("pricing"), _cost, key=_fields(*_AT_X)),
    Step("rates", _always("rows"), _rates, key=_fields("price_set", "tier", "price_stale_days")),
    Step("notes", _always("pricing"), _notes, key=_fields("baseline", "interactivity_needed", "targets")),
    Step("crossings", _always("pricing"), _crossings, key=_fields()),
    Step("crossed", _always("crossings", "cost"), _crossed, key=_fields("all_curves")),
    Step("cloud", _always("rows", "fit", "pricing"), _cloud, columns=_CLOUD, key=_fields()),
    Step("frontier_table", _always("rows", "pricing"), _frontier_table, columns=(*_CONFIGURATIONS, "tp", "ep", "dp",
                                                                             "pp", "concurrency"),
         reads=("intervals",), key=_fields()),
    Step("history", _always("rows", "cost"), _history, columns=_CONFIGURATIONS),
    Step("profiles", _always("cost"), _profiles),
    Step("capacity", _always("rows", "cost"), _capacity, columns=_CAPACITY),
    Step("fleet", _demand_parts, _fleet),
    Step("volume", lambda view: ("capacity", "rates", "rows", "cost") if view.has_demand else (), _volume,
         reads=("api_prices",)),
    Step("ramps", _always("rows"), _ramps, columns=(*_CAPACITY, *(f"ttft_{p}_s" for p in TTFT_PERCENTILES)),
         reads=("evals",)),
    Step("goodput_caps", _always("cost"), _goodput_caps, reads=("requests",)),
    Step("recommendation", lambda view: ("rows", "cost", "crossed", *(("fleet", "volume") if view.has_demand else ())),
         _recommendation),
    Step("overview", _always("rows"), _overview, columns=("run_date",), key=_fields()),
    Step("provenance", _always("rows", "crossed"), _provenance, reads=("sources",), key=_fields()),
    Step("mix", lambda view: ("fleet", "cost") if view.request_mix and view.has_demand else (), _mix),
    Step("run_to_run", lambda view: ("cost", *(("fleet", "rates") if view.has_demand or view.has_budget else ())),
         _run_to_run, columns=("source_file", "source_line"), reads=("intervals",)),
    # issue 52: the seller's side, the inverse question, the bill by tenant
    Step("sell", lambda view: ("cost", "rates", *(("fleet",) if view.has_demand or view.has_budget else ())), _sell,
         reads=("api_prices",)),
    Step("solve", lambda view: ("cost", "rows", "rates") if view.max_usd_per_mtok is not None or view.has_demand
         else (), _solve, columns=_CAPACITY),
    Step("chargeback", lambda view: ("fleet",) if view.tenants and view.has_demand else (), _chargeback),
)
BY_STEP = {s.name: s for s in STEPS}
#: every part an answer can hold
PARTS = tuple(BY_STEP)


def steps_for(view: View, parts: Iterable[str] | None) -> tuple[str, ...]:
    """The steps the ``parts`` of ``view``'s answer need (None: every part), in the order they run."""
    wanted = list(PARTS if parts is None else parts)
    unknown = [p for p in wanted if p not in BY_STEP]
    if unknown:
        raise ValueError(f"unknown answer parts {unknown}; choose from {', '.join(PARTS)}")
    needed: set[str] = set()
    while wanted:
        name = wanted.pop()
        if name not in needed:
            needed.add(name)
            wanted.extend(BY_STEP[name].needs(view))
    return tuple(s.name for s in STEPS if s.name in needed)


def reading(view: View, parts: Iterable[str] | None = None) -> Reading:
    """What the ``parts`` of ``view``'s answer read from the store (:class:`model.data.inputs.Reading`): the
    analysis's columns and each step's own, and the stored inputs the steps read; per-request data only when the
    view prices good tokens or asks for the caps table."""
    names = steps_for(view, parts)
    columns = analysis_columns(view, [c for n in names for c in BY_STEP[n].columns])
    reads = {r for n in names for r in BY_STEP[n].reads}
    if view.goodput and "rows" in names:
        reads.add("requests")
    return reading_of(view, columns, reads)


_PART_FIELDS = tuple(f.name for f in fields(Answer) if f.name not in ("view", "inputs", "ran", "computed"))
assert set(_PART_FIELDS) == set(PARTS), "every step is a part of the answer, and every part a step"


class Memo(Protocol):
    """Where a caller keeps step values between answers (:func:`build_answer`'s ``memo``): the dashboard's is its
    shared cache (``ui.data``), the command line's a folder on disk for the fit (:mod:`model.data.memo`). ``key`` says
    everything the value depends on within the caller's inputs; ``needs`` the keys of the values it was made of."""

    def get_or_make(self, key: tuple, make: Callable[[], Any], needs: tuple[tuple, ...]) -> Any: ...


def step_key(view: View, name: str, keys: Mapping[str, tuple], notes: tuple[str, ...] = ()) -> tuple:
    """The key of step ``name`` of ``view``'s answer: its name, what it reads of the view (:attr:`Step.key`; the
    whole view where it declares nothing), the notes handed in where it prints them, and the keys of the steps it
    needs (``keys``), so it changes whenever anything the step's value is made of does."""
    step = BY_STEP[name]
    own = step.key(view) if step.key is not None else (("view", view.model_dump_json()),)
    said = (("notes", tuple(map(str, notes))),) if name in _SAYS_NOTES else ()
    return (name, own, said, tuple(keys[n] for n in step.needs(view)))


#: the steps that print the notes :func:`build_answer` is handed (a link's notices)
_SAYS_NOTES = ("notes", "ramps")


def build_answer(view: View, inputs: Inputs, parts: Iterable[str] | None, *,
                 given: Mapping[str, Any] | None = None, notes: Iterable[str] = (), memo: Memo | None = None) -> Answer:
    """The answer of ``view`` (its workload set) from ``inputs``: the steps ``parts`` need (None: every part) run
    now, in the order of :data:`STEPS`. ``memo`` keeps step values between answers under their keys
    (:func:`step_key`, within ``inputs``: the caller's memo knows which inputs it serves), so a value already made
    for the same key is not made again (a rate change re-runs only the steps that read a rate). ``given`` hands in
    parts computed already (a step given is not run); ``notes`` (e.g. a link's notices) go first among its notes.
    :attr:`Answer.computed` lists the steps this call ran."""
    names = steps_for(view, parts)
    notes = tuple(notes)
    done: dict[str, Any] = {}
    keys: dict[str, tuple] = {}
    computed: list[str] = []

    def run(name: str):
        step = BY_STEP[name]

        def make():
            computed.append(name)
            said = {"said": notes} if name in _SAYS_NOTES else {}
            return step.run(view, inputs, **{n: done[n] for n in step.needs(view)}, **said)
        return make

    for name in names:
        if given and name in given:
            done[name] = given[name]
            continue
        if memo is None:
            done[name] = run(name)()
            continue
        keys[name] = step_key(view, name, keys, notes)
        done[name] = memo.get_or_make(keys[name], run(name), tuple(keys[n] for n in BY_STEP[name].needs(view)
                                                                   if n in keys))
    return Answer(view, inputs, names, **{p: done[p] if p in done else NotAsked(p) for p in PARTS},
                  computed=tuple(computed))


def answer_of_view(con, view: View, parts: Iterable[str] | None, *, notes: Iterable[str] = (),
                   memo=None) -> Answer:
    """The answer of ``view`` read from the store ``con`` for ``parts`` (what the caller renders; None: every part,
    the history's fits per run date included): its workload set (:func:`model.data.inputs.with_workload`), what
    its parts read (:func:`reading`) loaded once, then :func:`build_answer`. The CLI's and the tests' way.
    ``memo``: what a command keeps between runs (:class:`model.data.memo.DiskMemo`): the data version's calibration
    and the view's fit are read from it when kept, and kept when made."""
    view = with_workload(con, view)
    read = reading(view, parts)
    calibration = memo.kept(("calibration", read.version), lambda: load_calibration(con, read.version)) \
        if memo is not None and "calibration" in read.reads else None
    return build_answer(view, load_inputs(con, read, calibration=calibration), parts, notes=notes,
                        memo=memo.within(read) if memo is not None else None)


def fit_of_inputs(view: View, inputs: Inputs) -> Fit:
    """The frontier fit of ``view`` from ``inputs`` (steps ``rows`` and ``fit``): what a cache keyed by the view's
    frontier key holds, handed to :func:`build_answer` as ``given={"fit": ...}``."""
    rows = steps.rows_of(view, inputs.rows, inputs.requests, inputs.presets)
    return steps.fit_of(rows.points, rows.scenario, rows.usd_per_gpu_hour)


#: the columns of the labelled points the Frontier chart reads (:func:`model.present.figures.frontier_figure`: axes,
#: series, and the hover's hardware, recipe, parallelism, concurrency, run date and source:line), the report's
#: chart too: the step keeps these (at 1M rows the other columns would be about 150 MB more)
CLOUD_COLUMNS = ("series", "hardware", "interactivity", "tokens_per_second_per_gpu", "usd_per_mtok", "framework",
                 "precision", "spec_decoding", "tp", "ep", "dp", "pp", "concurrency", "run_date", "source_file",
                 "source_line")


def cloud_of(rows: Rows, inputs: Inputs, pricing: Pricing, fit: Fit | None = None) -> Analysis:
    """Step ``cloud``: every usable point labelled and priced, beside the frontier (the Frontier chart), in the
    columns the chart reads (:data:`CLOUD_COLUMNS`, its own copy, each text value held once); ``fit``: the rows as
    it prepared them (else prepared again)."""
    result = analyse(rows.points, pricing.analysis.scenario, inputs.presets, frontier=pricing.analysis.frontier,
                     with_points=True, crossovers="none", prepared=fit.prepared if fit is not None else None)
    points = result.points
    return replace(result, points=shared_strings(points[[c for c in CLOUD_COLUMNS if c in points.columns]].copy()))


def fleet_at(answer: Answer, **changes) -> FleetAnswer | None:
    """The fleet ``answer``'s view would get with ``changes`` to its demand or budget fields (a typed peak, say),
    from the answer's own capacity and rates: one step with an argument, never a second answer. Raises ValueError
    (the view's own words) for values the view refuses."""
    view = answer.view.replace(**changes)
    if not (view.has_demand or view.has_budget):
        return None
    return with_status(fleet_of(view, answer.capacity, answer.cost.interactivity_needed, answer.inputs.presets,
                                answer.rates, answer.cost.bands))
