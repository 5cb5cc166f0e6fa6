"""The types of an answer's parts, in one place: what each step of :mod:`model.present.view_answer` returns and
every surface (the pages, the CLI, the report, the workbook, the bundle) reads, and the :class:`Answer` that holds
them. Plain values: a part's words (a fleet's headline, a choice's text) are computed by the step that builds it,
so this module imports nothing else of :mod:`model.present`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING

import pandas as pd

from model.core.analysis import Analysis, Prepared
from model.core.cost_profiles import CostProfile
from model.core.dated import old_rate_notes
from model.core.goodput import Caps
from model.core.notes import Note, noted
from model.core.run_to_run import RULE
from model.core.sla import SLA
from model.core.status import PRICED
from model.core.uncertainty import Uncertainty, relative_bands
from model.core.view import View
from model.core.volume import Option
from model.data.inputs import Inputs

if TYPE_CHECKING:       # a hint only: model.core.mix imports the MILP solver (SciPy), which a command not mixing never loads
    from model.core.mix import MixAnswer

__all__ = ["Priced", "Good", "Points", "Rows", "Fit", "Cost", "Pricing", "Crossings", "Crossed", "History",
           "Overview", "FleetAnswer", "VolumeAnswer", "RampComparison", "RampAnswer", "Choice", "Recommendation",
           "RunToRun", "ProfileAnswer", "SellAnswer", "SolveAnswer", "ChargebackAnswer", "PartNotAsked", "NotAsked",
           "Answer", "FLEET_SPEC", "BUDGET_SPEC", "fleet_spec", "fleet_columns", "facility_differs"]


#: the fleet table, the numbers a decision needs first: the page, the report, its CSV and XLSX, and ``size`` show
#: these columns in this order (:func:`fleet_spec`)
FLEET_SPEC = [("Series", "series", "text"), ("Nodes", "nodes", "int"),
              ("Nodes, capacity at its range's top", "nodes_low", "int"),
              ("Nodes, capacity at its range's bottom", "nodes_high", "int"), ("GPUs", "gpus", "int"),
              ("IT power [kW]", "kw", "tps"), ("Facility power [kW]", "facility_kw", "tps"), ("Racks", "racks", "int"),
              ("$ per month", "usd_per_month", "dollars"),
              ("$ per month, capacity at its range's top", "usd_per_month_low", "dollars"),
              ("$ per month, capacity at its range's bottom", "usd_per_month_high", "dollars"),
              ("Rented on demand: nodes following the load, mean", "mean_nodes", "x"),
              ("Rented on demand: $ per month following the load", "usd_per_month_autoscaled", "dollars"),
              ("Rented on demand: $/GPU-hour (set in this view)", "usd_per_gpu_hour_autoscaled", "usd"),
              ("Per node [req/s]", "per_node_rps", "rps"), ("Capacity from", "method", "text"),
              ("$/GPU-hour paid", "usd_per_gpu_hour", "usd"), ("Priced by", "pricing", "text"),
              ("Effective [$/M tokens]", "effective_usd_per_mtok", "usd"), ("Utilisation", "utilization", "share"),
              ("Rented on demand: effective [$/M tokens]", "effective_usd_per_mtok_autoscaled", "usd"),
              ("Rented on demand: utilisation", "utilization_autoscaled", "share"), ("Status", "status", "text"),
              ("Note", "note", "text")]
#: ... and for a budget
BUDGET_SPEC = [("Series", "series", "text"), ("Budget that binds", "limit", "text"), ("Nodes", "nodes", "int"),
               ("GPUs", "gpus", "int"), ("IT power [kW]", "kw", "tps"), ("Facility power [kW]", "facility_kw", "tps"),
               ("$ per month", "usd_per_month", "dollars"),
               ("Serves [req/s]", "requests_per_second", "rps"), ("Serves [tok/s]", "tokens_per_second", "tps"),
               ("Concurrent users", "users", "int"), ("Serves [tokens/month]", "tokens_per_month", "tps"),
               ("Capacity from", "method", "text"), ("Priced by", "pricing", "text"), ("Status", "status", "text"),
               ("Note", "note", "text")]
_FOLLOWING = {"mean_nodes", "usd_per_month_autoscaled", "usd_per_gpu_hour_autoscaled",
              "effective_usd_per_mtok_autoscaled", "utilization_autoscaled"}


def fleet_spec(fleet) -> list[tuple[str, str, str]]:
    """The spec of ``fleet``'s table (:class:`FleetAnswer`): :data:`FLEET_SPEC` (or
    :data:`BUDGET_SPEC`) for the columns it holds; racks only when counted, following the load only where it is
    billed (hardware the view rents on demand: :func:`model.core.fleet.bill_following`) and the demand has a curve
    to follow."""
    spec = FLEET_SPEC if fleet.kind == "demand" else BUDGET_SPEC
    sized = fleet.sized
    billed = "usd_per_month_autoscaled" in sized.columns and sized["usd_per_month_autoscaled"].notna().any()
    skip = set() if fleet.over_time is not None and billed else set(_FOLLOWING)
    if "racks" in sized.columns and sized["racks"].isna().all():
        skip.add("racks")
    if not facility_differs(sized):
        skip.add("facility_kw")
    return [(h, c, k) for h, c, k in spec if c in sized.columns and c not in skip]


def facility_differs(sized: pd.DataFrame) -> bool:
    """Some row's PUE is not 1 (the view's, or a cost profile's): its facility power is not its IT power, and every
    table and sentence of the fleet says both."""
    return "pue" in sized.columns and bool(pd.to_numeric(sized["pue"], errors="coerce").fillna(1).ne(1).any())


def fleet_columns(fleet) -> list[str]:
    """The columns of :func:`fleet_spec`, in order."""
    return [c for _, c, _ in fleet_spec(fleet)]


@dataclass(frozen=True, eq=False)
class Priced:
    """The rows priced by the view's cost profiles (a hardware two profiles price appears once per profile),
    the rate overrides that result, and what could not be applied."""

    points: pd.DataFrame
    rates: dict[str, float]
    notes: tuple[Note, ...]


@dataclass(frozen=True, eq=False)
class Good:
    """The rows on good tokens under the view's goodput caps (:func:`model.core.goodput.apply_goodput`), the caps
    (None: none set) and the notes."""

    rows: pd.DataFrame
    caps: Caps | None
    notes: tuple[Note, ...]


@dataclass(frozen=True, eq=False)
class Points:
    """The rows an answer fits, whatever the rates (step ``points``): on good tokens when the view sets goodput caps,
    a hardware two chosen cost profiles name repeated once per profile, and the series keys split by workload when
    the view mixes them."""

    good: Good
    points: pd.DataFrame
    scenario: View                       # the view with its series keys split (its rates as the view's)
    split_note: Note | None


@dataclass(frozen=True, eq=False)
class Rows:
    """The rows an answer prices (step ``rows``): on good tokens when the view sets goodput caps, priced by its
    cost profiles, split by workload when it mixes them, and the $/GPU-hour of every priced name in view."""

    good: Good
    priced: Priced
    scenario: View                       # the view as priced: the profiles' rates, the series keys split
    split_note: Note | None              # why the series keys were split (None: not split)
    usd_per_gpu_hour: dict[str, float]   # [$/GPU-hour] of every priced name

    @property
    def rows(self) -> pd.DataFrame:
        """The store rows the view selects, after its as-of and repeats, on good tokens under its caps."""
        return self.good.rows

    @property
    def points(self) -> pd.DataFrame:
        """:attr:`rows` priced by the view's cost profiles (a hardware two profiles price appears once per profile)."""
        return self.priced.points

    @property
    def notes(self) -> tuple[Note, ...]:
        return (*self.good.notes, *self.priced.notes, *((self.split_note,) if self.split_note else ()))


@dataclass(frozen=True, eq=False)
class Fit:
    """A view's frontier (:func:`model.core.analysis.frontiers_for`) and its leave-one-out for every method
    (method -> :func:`model.core.leave_one_out.leave_one_out`). Series of one hardware are predicted at $1/GPU-hour
    (their relative errors do not depend on the rate), so one fit serves every rate of a view whose series are per
    hardware; ``rates`` is what the fit priced by when series mix hardware (None: no rate)."""

    frontier: pd.DataFrame
    rates: dict[str, float] | None
    loo: dict[str, pd.DataFrame]
    prepared: Prepared | None = None       # the rows it was fitted on (model.core.analysis.prepared_of)


@dataclass(frozen=True, eq=False)
class Cost:
    """The cost of every series at matched interactivity (step ``cost``)."""

    analysis: Analysis                     # frontiers priced, cost curves, the iso table; no crossings
    baseline: str | None                   # the series ratios divide by
    iso: pd.DataFrame                      # cost at the targets, with ratios to the baseline
    uncertainty: Uncertainty               # the bands of the view's method, calibrated on the store's frontiers
    iso_error: pd.DataFrame                # iso with each cell's band (model.core.uncertainty.iso_with_error)
    x_range: tuple[float, float] | None    # where the interactivity you need may be set [tok/s/user]
    interactivity_needed: float | None     # the interactivity you need [tok/s/user]
    at_x: pd.DataFrame                     # every series there, priced cheapest first, then the rest by status,
                                           # each cell with its band (model.core.uncertainty.iso_with_error)
    pair: tuple[str, str] | None           # the pair the break-even prices
    break_even: dict | None                # model.present.answers.break_even_answer of the pair at x
    unpriced: pd.DataFrame = None          # each series without a rate against each priced one at x
                                           # (model.core.unpriced.unpriced_at: the rate at which it would match)

    @property
    def method(self) -> str:
        return self.analysis.scenario.method

    @property
    def bands(self) -> dict[str, tuple[float, float]]:
        """Each priced series' band at the interactivity you need as (down, up) fractions of its $/M ((0, 0) at a
        measured point; NaN where none is estimated; :func:`model.core.uncertainty.relative_bands`): what the fleet
        and the volume steps give each series' capacity."""
        if self.interactivity_needed is None:
            return {}
        return relative_bands(self.at_x[self.at_x["status"].isin(PRICED)]) if "status" in self.at_x else {}


@dataclass(frozen=True, eq=False)
class Pricing:
    """What the cost of a view is before the interactivity you need is read (step ``pricing``): it depends on the fit,
    the rates, the method, the targets and the baseline only, so the dashboard shares it between the views of a
    slider (:func:`pricing_key`)."""

    analysis: Analysis
    baseline: str | None
    iso: pd.DataFrame                      # every cell at the targets with its status (model.core.status)
    uncertainty: Uncertainty
    iso_error: pd.DataFrame
    x_range: tuple[float, float] | None
    without: pd.DataFrame                  # every series in view without a cost curve, and why
    at_one: object                         # their throughput read at $1/GPU-hour (model.core.unpriced.curves_at_one)


@dataclass(frozen=True, eq=False)
class Crossings:
    """Where the cheapest series changes before the interactivity you need is read (step ``crossings``): the lower
    envelope and the crossings of the pairs in view, marked for the ± bands."""

    analysis: Analysis
    marked: pd.DataFrame


@dataclass(frozen=True, eq=False)
class Crossed:
    """Where the cheapest series changes (step ``crossed``)."""

    analysis: Analysis                     # the cost analysis with the lower envelope and the crossings in view
    marked: pd.DataFrame                   # its crossings with within_uncertainty (model.core.uncertainty)
    drawn: list[str] | None                # the series a cost chart draws (None: every one)
    break_even_curve: pd.DataFrame | None  # the pair's break-even $/GPU-hour across their common range


@dataclass(frozen=True, eq=False)
class History:
    """Each series' $/M at the interactivity you need, run date by run date (step ``history``)."""

    table: pd.DataFrame
    notes: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class Overview:
    """What the rows in view are (step ``overview``): counted after the view's as-of and repeats, the rows its
    answer prices."""

    rows: int
    hardware: tuple[str, ...]
    latest_run: object | None              # a date, or None when no row states one
    earliest_run: object | None


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
    said: str = ""                             # the demand's peak and volume, one derived from the other
    over_time: pd.DataFrame | None = None      # model.core.fleet.fleet_over_time (None: no curve to follow)
    capacity_lines: tuple[str, ...] = ()       # where each series' per-node capacity comes from
    #: the fleet's answer in one sentence: for a demand the cheapest fleet bought for the peak (and the cheapest
    #: rented on demand, following the load, where the view rents so); for a budget the series that serves most
    #: (model.present.fleet_answer.fleet_headline)
    headline: str = ""
    #: why the demand looks like a slip, asked before it is applied or acted on (model.core.plausible.fleet_question:
    #: the smallest fleet in view has more than 1,000 nodes); None when it does not, or for a budget
    question: str | None = None

    @property
    def columns(self) -> list[str]:
        """The table's columns, decision columns first (:data:`FLEET_SPEC`)."""
        return fleet_columns(self)

    @property
    def answer_columns(self) -> list[str]:
        """The decision columns alone (what a page shows first, on a phone's width too): the series, its nodes,
        GPUs, power and $ a month; rented on demand where the view rents so; for a budget what it serves."""
        wanted = (["series", "nodes", "gpus", "kw", "facility_kw", "usd_per_month", "usd_per_month_autoscaled"]
                  if self.kind == "demand" else ["series", "nodes", "gpus", "facility_kw", "usd_per_month",
                                                 "requests_per_second"])
        return [c for c in wanted if c in self.columns]


@dataclass(frozen=True)
class VolumeAnswer:
    """The answer at one monthly volume. ``rows`` (:data:`ROW_COLUMNS`) is cheapest first, each owned or rented
    option with the node counts, $ a month and effective $/M its capacity's ± allows (``*_low``, ``*_high``);
    ``settled`` says whether the cheapest is cheaper than the rest beyond their ± and :data:`model.core.volume.
    NEAR_TIE` (None: fewer than two options), ``contenders`` the options about the same as it."""

    volume: float                            # [tokens/month on ``basis``]
    basis: str
    lens: str
    x: float | None                          # interactivity the capacity was read at [tok/s/user]
    api: dict | None                         # model, provider, matched (how), usd_per_mtok, read_on, source, cache_hit
    api_choices: tuple[str, ...]             # priced models the user may pick
    options: tuple[Option, ...]
    rows: pd.DataFrame
    break_evens: tuple[dict, ...]            # cheaper, than, above_tokens_per_month, intervals, text
    verdict: str
    notes: tuple[str, ...] = ()
    said: str = ""                           # the demand's peak and volume, one derived from the other
    settled: bool | None = None
    contenders: tuple[str, ...] = ()
    #: why the volume looks like a slip (model.core.plausible.fleet_question of the owned and rented options' nodes)
    question: str | None = None
    #: the API price compared with, in one line: model, provider, its three $/M, the date read, how it was matched
    #: and its source ("" when no API is priced)
    api_line: str = ""

    @property
    def cheapest(self) -> str | None:
        """The cheapest option when the ranking is settled (or the only one); None when others are about the same."""
        return str(self.rows["option"].iloc[0]) if not self.rows.empty and self.settled is not False else None

    def payload(self) -> dict:
        """What ``costfrontier volume --json`` prints (numbers unrounded)."""
        return {"tokens_per_month": self.volume, "basis": self.basis, "lens": self.lens, "interactivity_needed": self.x,
                "demand": self.said, "api": self.api, "cheapest": self.cheapest, "settled": self.settled,
                "contenders": list(self.contenders), "verdict": self.verdict,
                "options": [{k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in r.items()}
                            for r in self.rows.to_dict("records")],
                "break_evens": [{**b, "intervals": [[lo, None if math.isinf(hi) else hi] for lo, hi in b["intervals"]]}
                                for b in self.break_evens],
                "notes": list(self.notes)}


@dataclass(frozen=True, eq=False)
class RampComparison:
    """Tokens per dollar of the view's ramp series side by side (:func:`model.core.capacity.compare_systems`)."""

    peaks: bool                                 # at each ramp's peak (the SLA ignored), else at its knee
    systems: tuple[str, ...]                    # series with a throughput to compare
    chosen: tuple[str, ...]                     # the ones compared: the view's ``compare`` among them, else all
    base: str | None                            # the one the others are divided by
    table: pd.DataFrame                         # one row per compared series other than the base
    left_out: tuple[str, ...] = ()              # ramp series with no throughput there (no rate meets the SLA)
    message: str = ""                           # why there is no table ("" when there is one)


@dataclass(frozen=True, eq=False)
class RampAnswer:
    """The ramp part of one view's answer; build it with :func:`ramp_answer`."""

    sla: SLA | None                             # the view's SLA (None: every rate passes)
    rule: str                                   # how a knee is read off a ramp (model.core.capacity.KNEE_RULES)
    basis: str                                  # the token basis asked for (model.core.capacity.CAPACITY_BASES)
    by: tuple[str, ...]                         # the series keys
    usd_per_gpu_hour: dict                      # the answer's rates [$/GPU-hour], cost profiles included
    points: pd.DataFrame                        # model.core.capacity.ramp_points of the rows in view
    knees: pd.DataFrame                         # model.core.capacity.knee: one row per ramp series
    comparison: RampComparison
    evals: pd.DataFrame                         # model.data.evals.flag_regressions of the models in view
    tolerance: float                            # the score drop flagged [fraction]
    notes: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        """No ramp rows in view."""
        return self.points.empty

    @property
    def missing_rates(self) -> list[str]:
        """Hardware of a knee that no rate prices."""
        return sorted({str(hw) for hw in self.knees["hardware"].dropna() if hw not in self.usd_per_gpu_hour})


@dataclass(frozen=True)
class Choice:
    """One way to pay for tokens: a series at the interactivity you need, or an option at the monthly volume.
    ``low``/``high`` are its band [$/M]: a series' interpolation band (the value itself when measured), an option's
    effective $/M as low and as high as its capacity's band allows (a price's: the price); NaN: none estimated."""

    name: str
    kind: str                  # "series", "owned", "rented" or "api"
    usd_per_mtok: float        # its $/M (effective at the volume for an option)
    low: float                 # [$/M]
    high: float                # [$/M]
    error_from: str            # "measured", "own", "store", "price", "capacity" (an option's) or "none"
    usd_per_month: float = math.nan
    nodes: float = math.nan
    utilization: float = math.nan
    status: str = ""           # its cell's status (model.core.status: measured or interpolated; "" for a price)
    #: an option at the volume: its $ a month and nodes as low and as high as its capacity's band allows
    usd_per_month_span: tuple[float, float] | None = None
    nodes_span: tuple[float, float] | None = None
    capacity_band: tuple[float, float] | None = None   # an option's capacity band as (down, up) fractions of $/M
    #: ``$0.37/M −8/+11 %``; a measured point ``$0.36/M (measured)``; an option at the volume ``$0.24/M`` (a price,
    #: or capacity whose band moves no node), or ``$1.73/M ($1.73 to $3.46/M)`` when its capacity's band spans a
    #: node boundary (model.present.recommendation.choice_text)
    text: str = ""

    @property
    def error(self) -> float:
        """The larger side of the band as a fraction of the value (0 at a measured point or a price)."""
        if self.error_from in ("measured", "price"):
            return 0.0
        v = self.usd_per_mtok
        return max(1 - self.low / v, self.high / v - 1) if v > 0 else math.nan

    @property
    def banded(self) -> bool:
        """Its band is known (a measured point and a price are exact)."""
        return math.isfinite(self.low) and math.isfinite(self.high)

    def payload(self) -> dict:
        out = {"name": self.name, "kind": self.kind, "usd_per_mtok": _num(self.usd_per_mtok),
               "error": _num(self.error), "error_from": self.error_from, "low": _num(self.low),
               "high": _num(self.high), "text": self.text, "usd_per_month": _num(self.usd_per_month),
               "nodes": _num(self.nodes), "utilization": _num(self.utilization), "status": self.status}
        if self.kind != "series":
            lo, hi = self.usd_per_month_span or (math.nan, math.nan)
            n_lo, n_hi = self.nodes_span or (math.nan, math.nan)
            out.update(usd_per_month_low=_num(lo), usd_per_month_high=_num(hi), nodes_low=_num(n_lo),
                       nodes_high=_num(n_hi))
        return out


def _num(value):
    return None if value is None or (isinstance(value, float) and not math.isfinite(value)) else float(value)


@dataclass(frozen=True)
class Recommendation:
    """The one recommendation of a view. ``lines`` are what the report's first page prints, ``headline`` the first."""

    x: float | None                       # the interactivity you need [tok/s/user]
    method: str
    basis: str
    demand: str | None                    # the demand or volume as typed, in words
    series: tuple[Choice, ...]            # the priced series at x, cheapest first
    settled: bool | None                  # the best two series are apart beyond their bands (None: fewer than two)
    contenders: tuple[str, ...]           # the series whose band reaches the cheapest's (one when settled)
    options: tuple[Choice, ...]           # owning, renting, the API at the volume, cheapest first ((): no volume)
    fleet: dict | None                    # series, nodes, gpus, kw, usd_per_month, usd_per_gpu_hour, pricing
    break_even: dict | None               # series, against, rate, low, high, current, settled, text
    lines: tuple[str, ...]
    notes: tuple[str, ...] = ()
    unpriced: tuple[dict, ...] = ()       # each series without a rate: series, hardware, reaches, matches (_unpriced)
    held: tuple[dict, ...] = ()           # each series clamped at x that could be the cheapest (_held)
    options_settled: bool | None = None   # the cheapest option is cheaper beyond the ± and the margin (None: < 2)
    option_contenders: tuple[str, ...] = ()   # the options about the same as the cheapest
    #: a view holding a request mix: the mix's fleet (model.core.mix.MixAnswer) in place of the view's own: types
    #: (type, nodes, gpus, usd_per_month), usd_per_month, its low and high, covered_share, unmeasured (labels)
    mix: dict | None = None

    @property
    def headline(self) -> str:
        return self.lines[0]

    @property
    def winner(self) -> str | None:
        """What the recommendation names: the cheapest option at the volume when no other is about the same (within
        the capacity's ± or :data:`model.core.volume.NEAR_TIE`), else the cheapest series when the data settle it
        (or the only one priced); None when they do not, or no range can say whether they do, or when a series in view that reaches the interactivity you need has no rate (its
        break-even rates are the answer: :attr:`unpriced`) or is clamped there within reach of the cheapest."""
        if any(u["reaches"] for u in self.unpriced) or self.held:
            return None
        if self.options:
            return self.options[0].name if self.options_settled is not False else None
        if len(self.series) == 1 or (self.series and self.settled is True):
            return self.series[0].name
        return None

    def payload(self) -> dict:
        """``--json``: every number unrounded, with the sentences. ``settled`` and ``contenders`` are the ranking
        the headline names (the options at the volume when the view has one, else the series);
        ``series_settled`` the series' at the interactivity you need."""
        ranked = bool(self.options)
        return {"interactivity_needed": self.x, "method": self.method, "basis": self.basis, "demand": self.demand,
                "winner": self.winner, "settled": self.options_settled if ranked else self.settled,
                "contenders": list(self.option_contenders if ranked else self.contenders),
                "series_settled": self.settled, "series_contenders": list(self.contenders),
                "series": [c.payload() for c in self.series], "options": [c.payload() for c in self.options],
                "fleet": {k: (_num(v) if isinstance(v, float) else v) for k, v in self.fleet.items()}
                if self.fleet else None,
                "break_even": {k: (_num(v) if isinstance(v, float) else v) for k, v in self.break_even.items()}
                if self.break_even else None,
                "mix": {k: (_num(v) if isinstance(v, float) else v) for k, v in self.mix.items()} if self.mix else None,
                "headline": self.headline, "text": list(self.lines), "notes": list(self.notes),
                "held": [{**h, "usd_per_mtok": _num(h["usd_per_mtok"])} for h in self.held],
                "unpriced": [{**u, "tokens_per_second_per_gpu": _num(u["tokens_per_second_per_gpu"]),
                              "matches": [{k: (_num(v) if isinstance(v, float) else v) for k, v in m.items()}
                                          for m in u["matches"]]} for u in self.unpriced]}


@dataclass(frozen=True, eq=False)
class RunToRun:
    """The run-to-run band of an answer (see the module)."""

    points: pd.DataFrame
    iso: pd.DataFrame
    fleet: pd.DataFrame | None
    any: bool
    rule: str = RULE
    notes: tuple[str, ...] = field(default=())

    def payload(self) -> dict:
        """What ``--json`` carries beside the rows: the rule and the notes."""
        return {"rule": self.rule, "any_interval": self.any, "notes": list(self.notes)}


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
class SellAnswer:
    """What each series earns at the interactivity you need. ``rows`` (:data:`SELL_COLUMNS`): one per series and way
    of paying for its GPUs (owned; rented where the view rents its hardware), most profitable first."""

    x: float | None                      # the interactivity you need [tok/s/user]
    utilisation: float
    licence_fee: float
    pue: float
    rows: pd.DataFrame
    prices: tuple[dict, ...]             # each API price sold at: model, provider, matched, the three $/M, read_on
    headline: str
    notes: tuple[str, ...] = ()

    def payload(self) -> dict:
        """What ``costfrontier sell --json`` prints (numbers unrounded; NaN as null)."""
        def clean(v):
            return None if isinstance(v, float) and not math.isfinite(v) else v
        return {"interactivity_needed": self.x, "utilisation": self.utilisation, "licence_fee": self.licence_fee,
                "pue": self.pue, "headline": self.headline, "prices": list(self.prices),
                "rows": [{k: clean(v) for k, v in r.items()} for r in self.rows.to_dict("records")],
                "notes": list(self.notes)}


@dataclass(frozen=True)
class SolveAnswer:
    """The answers to the view's inverse questions (None where the view does not ask one)."""

    cap: float | None                    # the $/M cap [$/M]
    by_series: pd.DataFrame              # CAP_COLUMNS, the highest interactivity first
    cap_text: str
    slo: pd.DataFrame | None             # SLO_COLUMNS, cheapest first (None: the view states no demand)
    slo_text: str
    notes: tuple[str, ...] = ()

    @property
    def overall(self) -> dict | None:
        """The series reaching the highest interactivity under the cap, with its range (None: none does)."""
        found = self.by_series[self.by_series["status"] != "none"] if self.by_series is not None else None
        return None if found is None or found.empty else found.iloc[0].to_dict()

    def payload(self) -> dict:
        """What ``costfrontier solve --json`` prints (numbers unrounded; NaN as null)."""
        def records(frame):
            return None if frame is None else [{k: (None if isinstance(v, float) and not math.isfinite(v) else v)
                                                for k, v in r.items()} for r in frame.to_dict("records")]
        return {"max_usd_per_mtok": self.cap, "under_cap": records(self.by_series), "overall": records(
            pd.DataFrame([self.overall]))[0] if self.overall else None, "cap_text": self.cap_text,
            "cheapest_fleet": records(self.slo), "fleet_text": self.slo_text, "notes": list(self.notes)}


@dataclass(frozen=True)
class ChargebackAnswer:
    """The planned fleet's $ a month split by tenant."""

    series: str                        # the fleet split (the cheapest sized series)
    usd_per_month: float               # the fleet's $ a month
    usd_per_month_low: float           # within its capacity's ± (NaN: none estimated)
    usd_per_month_high: float
    tokens_per_month: float            # on ``basis``
    basis: str
    prices: dict                       # usd_per_m_input, usd_per_m_cached_input, usd_per_m_output
    w_input: float
    w_cached: float
    rows: pd.DataFrame                 # model.core.chargeback.SPLIT_COLUMNS, largest first
    text: str

    def payload(self) -> dict:
        """What ``size --json`` carries as ``chargeback`` (numbers unrounded; NaN as null)."""
        def clean(v):
            return None if isinstance(v, float) and not math.isfinite(v) else v
        return {"series": self.series, "usd_per_month": self.usd_per_month,
                "usd_per_month_low": clean(self.usd_per_month_low), "usd_per_month_high": clean(self.usd_per_month_high),
                "tokens_per_month": self.tokens_per_month, "basis": self.basis, **self.prices,
                "w_input": self.w_input, "w_cached": self.w_cached, "text": self.text,
                "tenants": [{k: clean(v) for k, v in r.items()} for r in self.rows.to_dict("records")]}


class PartNotAsked(AttributeError):
    """A part of an answer read although :func:`build_answer` was not asked for it: the surface must ask for the
    parts it renders (the message names the part)."""


class NotAsked:
    """What an :class:`Answer` holds for a part it was not asked for: any use of it raises :class:`PartNotAsked`."""

    __slots__ = ("part",)

    def __init__(self, part: str):
        object.__setattr__(self, "part", part)

    def _refuse(self, *_args, **_kwargs):
        raise PartNotAsked(f"the answer's {self.part!r} part was not asked for: pass it in build_answer(parts=...)")

    __getattr__ = __bool__ = __iter__ = __len__ = __getitem__ = _refuse

    def __repr__(self) -> str:
        return f"NotAsked({self.part!r})"


@dataclass(frozen=True, eq=False)
class Answer:
    """The answer of one view: one typed value per part asked for (a part not asked for is :class:`NotAsked`).
    Build it with :func:`build_answer`. Read-only: the dashboard shares one per view, parts and data version
    between sessions."""

    view: View                              # the view, its workload set
    inputs: Inputs                          # what the store read for it
    ran: tuple[str, ...]                    # the steps that ran (or were handed in), in order
    points: Points                          # the rows as fitted, whatever the rates
    rows: Rows
    fit: Fit
    pricing: Pricing                        # the cost before the interactivity you need is read (shared by a slider)
    cost: Cost
    rates: pd.DataFrame                     # every priced name with its rate and source (RATE_COLUMNS)
    notes: tuple[Note, ...]                 # what the reader must know
    crossings: Crossings                    # the crossings before the interactivity you need is read
    crossed: Crossed
    cloud: Analysis                         # every usable point labelled and priced (the Frontier chart)
    frontier_table: pd.DataFrame            # the frontier points with their repeats' spread
    history: History
    profiles: tuple[ProfileAnswer, ...]
    capacity: pd.DataFrame                  # what one node of each series carries at the interactivity you need
    fleet: FleetAnswer | None               # None: the view has no demand and no budget
    volume: VolumeAnswer | None             # None: the view has no demand
    ramps: RampAnswer
    goodput_caps: pd.DataFrame              # the cheapest as the TTFT cap moves
    recommendation: Recommendation
    overview: Overview
    provenance: pd.DataFrame                # every source whose rows or rates the view uses
    mix: MixAnswer | None                   # None: the view holds no request mix
    run_to_run: RunToRun                    # the run-to-run band, named
    sell: SellAnswer                        # what each series earns sold
    solve: SolveAnswer | None               # None: no cap, no demand
    chargeback: ChargebackAnswer | None     # None: no tenants
    computed: tuple[str, ...] = ()          # the steps this answer's build ran (not kept or handed in)

    @property
    def interactivity_needed(self) -> float | None:
        """The interactivity you need [tok/s/user] (:attr:`Cost.interactivity_needed`)."""
        return self.cost.interactivity_needed

    def old_notes(self, today: date | None = None) -> list[str]:
        """The preset or ingested rates pricing this answer that were read more than the view's
        ``price_stale_days`` before ``today`` (default: the date today), one note per read date
        (:func:`model.core.dated.old_rate_notes`). A function of the rates and the day, not a part."""
        v = self.view
        return list(noted("rate", old_rate_notes(self.rates, v.price_set, v.tier, today or date.today(),
                                                 v.price_stale_days)))
