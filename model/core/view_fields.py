"""Every field of a view, declared once: its type, default and bounds, its link key (the widget's key too),
how it is written in a link, its command-line option and help, and what it changes.

:class:`model.core.view.View` (pydantic) is built from :data:`FIELDS`; the link codec
(:meth:`~model.core.view.View.from_query`, :meth:`~model.core.view.View.to_query`), the command line's options
and ``--link`` merging (:mod:`model.cli.options`) and the dashboard's bindings (:func:`ui.state.bind`) read
them. Adding a field is one :class:`ViewField` here plus the code that uses it; the checks its values pass
and the limits they hold are in :mod:`model.core.view_checks`.

Light on purpose: ``costfrontier --help`` reads this module, so it imports the standard library only (and
:mod:`model.core.view_codecs`); a check that needs more imports it when it runs. The tuples of choices
below are copies of the analysis modules' own (``tests/test_cli_startup.py`` checks each stays equal).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any, Callable

from model.core import view_codecs as c
from model.core.limits import (
    MAX_DEMAND_RPS,
    MAX_INTERACTIVITY,
    MAX_USD_PER_GPU_HOUR,
    MIN_INTERACTIVITY,
    MIN_USD_PER_GPU_HOUR,
)
from model.core.view_checks import (
    DEMAND_BOUNDS,
    MW_BOUNDS,
    RACK_KW_BOUNDS,
    TPD_BOUNDS,
    TPM_BOUNDS,
    USD_BOUNDS,
    Bounds,
    Uses,
    check_api,
    check_api_usd,
    check_as_of,
    check_digest,
    check_kw_per_gpu,
    check_names,
    check_plan,
    check_rates,
    check_shape,
    check_targets,
    check_tenants,
    one_of,
)

__all__ = ["ViewField", "Option", "Bounds", "FIELDS", "BY_NAME", "BY_KEY", "PLURAL_WORDS", "WHERE", "PROFILE", "LINK", "FIT", "RATE", "ANSWER",
           "options_of", "BASES", "DISAGG_MODES", "METHODS", "METHOD_CHOICES", "REPEATS", "LENSES", "DEFAULT_SERIES_KEYS",
           "DEFAULT_PRICE_SET", "DEFAULT_TIER", "DEFAULT_STALE_DAYS", "DEFAULT_PRICE_STALE_DAYS", "SLA_KEYS", "MAX_USD_PER_GPU_HOUR", "MIN_USD_PER_GPU_HOUR",
           "KNEE_RULES", "TOKEN_BASES", "COST_BASES", "INTERACTIVITY_FROM",
           "MAX_DEMAND_RPS",
           "MAX_INTERACTIVITY", "MAX_VALUE_LENGTH", "FILTER_FIELDS"]

#: model.core.frontier.BASES, DISAGG_MODES, DEFAULT_SERIES_KEYS; model.core.iso.METHODS; model.core.repeats.REPEATS;
#: model.core.interactivity.DEFINITIONS
BASES = ("total", "output", "input", "blended")
DISAGG_MODES = ("per-role", "share")
DEFAULT_SERIES_KEYS = ("hardware", "framework", "precision", "spec_decoding")
METHODS = ("linear", "monotone")
#: model.core.uncertainty.METHOD_CHOICES: what a view may ask for, "auto" (the default) the method that fits better
METHOD_CHOICES = ("auto", *METHODS)
REPEATS = ("pooled", "latest", "median")
#: model.core.interactivity.DEFINITIONS: what tokens per second per user counts
INTERACTIVITY_FROM = ("tpot", "itl")
#: model.core.sla.SLA_KEYS
SLA_KEYS = ("ttft_p50", "ttft_p90", "ttft_p95", "ttft_p99", "tpot", "interactivity", "e2e", "success")
#: model.core.cost.DEFAULT_PRICE_SET and DEFAULT_TIER
DEFAULT_PRICE_SET = "2025-08"
DEFAULT_TIER = "owning_hyperscaler"
#: model.core.actual_rows.COST_BASES: the cost an actual counts
COST_BASES = ("bill", "allocation", "usage")
#: a plan as a link names it (the plan field's example): GLM-5.2 20k/1k on MI355X at 36.5 B tokens, data version 8
_ONE_PLAN = "http://localhost:8501/Buy_rent_or_API?wl=GLM-5.2|20000|1000&hw=MI355X&tpm=3.65e10&v=8"
#: buy, rent or API (model.core.volume): the full cost, or the marginal one of capacity already owned
LENSES = ("full", "marginal")
#: model.core.capacity.KNEE_RULES: how a knee is read off a request-rate ramp
KNEE_RULES = ("first_failure", "highest_pass")
#: model.core.demand.TOKEN_BASES: what a typed volume counts
TOKEN_BASES = ("total", "output", "input")
DEFAULT_STALE_DAYS = 180
#: a price preset or on-prem default read more days ago than this is flagged as old (model.core.dated)
DEFAULT_PRICE_STALE_DAYS = 365

#: the one limit on a link value [characters]: a link writes none longer, and reads none longer
MAX_VALUE_LENGTH = 2000
#: the fields whose rows a filter field of the store holds (other filters go in ``filters``)
FILTER_FIELDS = ("hardware", "framework", "precision", "spec_decoding")

#: what a field changes: the rows or the frontier fit (a new fit) ...
FIT = "fit"
#: ... the $/GPU-hour only (a new fit only when series mix hardware: they are then fitted on tokens per $) ...
RATE = "rate"
#: ... or only what is priced, sized or shown from the fitted frontier
ANSWER = "answer"


@dataclass(frozen=True)
class Option:
    """A command-line option. ``group`` says which commands take it (:func:`model.cli.options.add_options`):
    ``selection`` (which rows; a share link's view cannot be changed by them), ``runs``, ``view``, ``fleet``,
    ``sizing`` (fleet and volume), ``volume``, ``report`` and ``mix`` (the request mix: ``mix`` and ``report``).
    ``read`` turns the parsed value into the field's (a ValueError in the product's words), ``file`` names what a
    file given instead holds; ``kind`` is
    ``value``, ``append`` or ``flag``."""

    flags: tuple[str, ...]
    group: str
    help: str = ""
    metavar: str | None = None
    kind: str = "value"
    type: Callable | None = None
    choices: tuple[str, ...] | None = None
    default: Any = None
    read: Callable[[Any], Any] | Uses | None = None
    exclusive: str | None = None
    #: what a FILE given here holds, read into the field's value by :mod:`model.cli.options`
    #: (:mod:`model.data.trace_files`): ``"trace"`` (a request trace) or ``"shape"`` (24 weights)
    file: str | None = None

    @property
    def name(self) -> str:
        """The attribute argparse stores it under."""
        return self.flags[0].lstrip("-").replace("-", "_")

    @property
    def unset(self) -> Any:
        """The parsed value when the option is not given."""
        return [] if self.kind == "append" else False if self.kind == "flag" else self.default


@dataclass(frozen=True)
class ViewField:
    """One field of a view. ``check`` takes the typed value and returns it (normalised) or raises ValueError
    in the product's words; ``before`` reads a value given as text before the type is checked. ``example``
    and ``bad`` are a valid non-default and an invalid link value (the round-trip test walks them)."""

    name: str
    key: str
    type: Any
    default: Any
    codec: c.Codec
    changes: str
    example: str
    bad: str
    check: Callable[[Any], Any] | Uses | None = None
    before: Callable[[Any], Any] | None = None
    option: Option | None = None
    words: str = ""
    needs: tuple[str, ...] = ()
    label: str = ""              # the dashboard control's label, with its unit
    explain: str = ""            # what it means and implies, for the control's help (else the option's help)
    #: the words name several things ("rates": they "do not fit"), else one ("request trace": it "does not")
    plural: bool = False

    @property
    def said(self) -> str:
        """The field in the Share box's words (``"cost profiles"``)."""
        return self.words or self.name.replace("_", " ")

    @property
    def help(self) -> str:
        """What the field means: the control's help and the option's (``--help``) words, declared once here."""
        if self.explain:
            return self.explain
        text = self.option.help if self.option is not None and self.option not in (WHERE, PROFILE, LINK) else ""
        return text[:1].upper() + text[1:] if text else ""


# ------------------------------------------------------------------------------------------ options

#: ``--where KEY=VALUE``: fills workload (model, isl, osl), hardware, framework, precision, spec_decoding, filters
WHERE = Option(("--where",), "selection", "keep rows whose field equals a value (repeat a key to allow several)",
               metavar="KEY=VALUE", kind="append")
#: ``--profile NAME``: a stored cost profile, added to the view's profiles and pricing series
PROFILE = Option(("--profile",), "view", "price by a stored cost profile (costfrontier tco ... --save); repeat for "
                 "several; two profiles of one hardware are shown side by side", metavar="NAME", kind="append")
#: ``--link URL``: a share link's view, instead of the selection and view options
LINK = Option(("--link",), "view", "a share link: its view replaces the selection and view options", metavar="URL")


def _sizing(flag: str, type_: Callable, text: str) -> Option:
    return Option((flag,), "sizing", text, read=c.WHOLE.read if type_ is int else c.NUMBER.read)


_f = ViewField   # the table below, one field a row

#: a cost profile named "H200 quote" pricing H200 at $2/GPU-hour, as a link writes it (the profiles' example)
_ONE_PROFILE = "p1.eNqLrlbKU7JS8jAyMFAoLM0vSVXSUcqACgCZRUpWRnoGtbEAzFYJ5Q"
#: a trace of 12 requests over three minutes (model.core.trace.Trace.to_text), the trace's example
_ONE_TRACE = "t1;demo.csv;24000;3000;4,6,2"

#: every field of a view, in the order a link is read (cost profiles before the names that choose them)
FIELDS: tuple[ViewField, ...] = (
    _f("workload", "wl", str | None, None, c.TEXT, FIT, "GLM-5|8192|1024", "x" * 3000, option=WHERE,
       explain="The model and its workload; ISL/OSL: input/output sequence length [tokens]."),
    _f("hardware", "hw", tuple[str, ...], (), c.HARDWARE, FIT, "B200,MI355X", "H200\tx", check=check_names,
       option=WHERE, words="hardware choice"),
    _f("framework", "fw", tuple[str, ...], (), c.NAMES, FIT, "sglang", "a\nb", check=check_names, option=WHERE),
    _f("precision", "prec", tuple[str, ...], (), c.NAMES, FIT, "fp8", "a\x07", check=check_names, option=WHERE),
    _f("spec_decoding", "spec", tuple[str, ...], (), c.NAMES, FIT, "mtp", "a\u200bb", check=check_names, option=WHERE),
    _f("by", "by", tuple[str, ...], DEFAULT_SERIES_KEYS, c.NAMES, FIT, "hardware,model", "colour", check=Uses("by"),
       option=Option(("--by",), "selection", "series grouping keys, comma-separated: rows sharing them are one series, pooled "
                     "over parallelism and concurrency; the frontier is per series", metavar="K,K",
                     default=",".join(DEFAULT_SERIES_KEYS), read=Uses("series_keys")), label='Series = rows sharing',
       explain="Rows sharing these keys are one series, pooled over parallelism and concurrency; the frontier is per "
               "series."),
    _f("basis", "basis", str, "total", c.TEXT, FIT, "blended", "tokens", check=one_of("basis", BASES),
       option=Option(("--basis",), "view", "token basis: which tokens a $/M counts, each from its own per-GPU throughput "
                     "(default total: each row's own measured tokens; auto, the load ramps' word, is total); blended "
                     "weighs input tokens by their price relative to an output token", choices=(*BASES, "auto"),
                     read=lambda v: "total" if v == "auto" else v), label="Token basis"),
    _f("method", "method", str, "auto", c.TEXT, ANSWER, "linear", "cubic", check=one_of("method", METHOD_CHOICES),
       option=Option(("--method",), "view", "interpolation between frontier points: auto (the default; the dashboard's "
                     "\"fits better\"): whichever of the two fits the view's own points better when each is left out "
                     "in turn (median and p90 error); linear in $/M between frontier points (reproduces InferenceX); or monotone, a "
                     "monotone cubic. The cost pages show each method's leave-one-out error and a ± band at each "
                     "value, and the answer says which method it used", choices=METHOD_CHOICES),
       label='Interpolation'),
    _f("price_set", "ps", str, DEFAULT_PRICE_SET, c.TEXT, RATE, "2026-07", "x" * 3000,
       option=Option(("--price-set",), "selection", f"price set of the preset rates (default {DEFAULT_PRICE_SET})",
                     metavar="ID", default=DEFAULT_PRICE_SET)),
    _f("tier", "tier", str, DEFAULT_TIER, c.TEXT, RATE, "sales_quote", "x" * 3000,
       option=Option(("--tier",), "selection", f"tier of the preset rates (default {DEFAULT_TIER})", metavar="ID",
                     default=DEFAULT_TIER)),
    _f("rates", "r", tuple[tuple[str, float], ...], (), c.RATES, RATE, "B200:1.6,MI355X:1.2", "B200:-1",
       check=check_rates("$/GPU-hour"), words="rates", plural=True,
       option=Option(("--rate",), "selection", "$/GPU-hour override", metavar="HW=USD", kind="append",
                     read=c.hardware_rates)),
    _f("targets", "at", tuple[float, ...], (), c.TARGETS, ANSWER, "24,55", "10,x", check=check_targets, words="targets", plural=True,
       option=Option(("--at",), "view", "interactivity targets [tok/s/user], comma-separated: up to 20 positive numbers "
                     "(default: spread over the range every series reaches)", metavar="X,Y",
                     read=c.TARGETS.read), label='Interactivity targets [tok/s/user], comma-separated'),
    _f("baseline", "base", str | None, None, c.TEXT, ANSWER, "MI355X", "x" * 3000,
       option=Option(("--baseline",), "view", "series the iso ratios divide by (default: the first by name)",
                     metavar="SERIES"), label='Baseline series for ratios'),
    _f("interactivity_needed", "x", float | None, None, c.NUMBER, ANSWER, "40", "abc",
       check=Bounds(MIN_INTERACTIVITY, MAX_INTERACTIVITY, "interactivity must be at least 0.01 and below 100000 "
                    "tok/s/user", open_high=True),
       option=Option(("--interactivity", "--x"), "view", "the interactivity you need [tok/s/user], at least 0.01 and below 100,000: "
                     "the answer, the break-even and fleet sizing use it, the same on every page and in the report "
                     "(default: the middle target)", metavar="TOK_S_USER",
                     read=c.NUMBER.read), label='Interactivity you need [tok/s/user]',
       explain="The interactivity you need [tok/s/user]: the answer, the break-even and fleet sizing use it, the same "
               "on every page and in the report (default: the middle target); the box offers the reach of the data in "
               "view."),
    _f("frontier_y", "y", str, "throughput", c.TEXT, ANSWER, "cost", "z",
       check=one_of("y", ("throughput", "cost"))),
    _f("optimal_only", "opt", bool, False, c.FLAG, ANSWER, "1", "yes",
       explain="Hide points that are not on a frontier."),
    _f("pair", "pair", str | None, None, c.TEXT, ANSWER, "B200 · sglang||MI355X · vllm", "x" * 3000),
    _f("sla", "sla", str, "", c.TEXT, FIT, "ttft_p95=2,tpot=50", "tpot=fast", check=Uses("sla"),
       option=Option(("--sla",), "view", f"keep only rows meeting it before fitting (repeat): {', '.join(SLA_KEYS)}; "
                     "e.g. ttft_p95=2", metavar="KEY=VALUE", kind="append", read=",".join)),
    _f("goodput", "good", str, "", c.TEXT, FIT, "ttft=2,tpot=50", "ttft=-1", check=Uses("goodput"), words="goodput caps", plural=True,
       option=Option(("--goodput",), "view", "goodput caps, e.g. ttft=2,tpot=50 (TTFT s, TPOT ms): throughput counts only "
                     "requests meeting both, so each load point with per-request data (vLLM --save-detailed, SGLang "
                     "--output-details, GuideLLM's listed requests, AIPerf's profile_export.jsonl beside its summary) "
                     "is priced on its good requests' tokens and its $/M is per good M tokens (empty: off)",
                     metavar="ttft=S,tpot=MS"), label='Goodput caps (TTFT in s, TPOT in ms)'),
    _f("w_input", "win", float, 0.25, c.NUMBER, FIT, "0.3", "nan",
       check=Bounds(0, 10, "a token weight must be in [0, 10]"),
       option=Option(("--w-input",), "view", "blended basis: weight of an uncached input token relative to an "
                     "output token, in [0, 10] (default 0.25)", read=c.NUMBER.read), label='input weight'),
    _f("w_cached", "wc", float, 0.025, c.NUMBER, FIT, "0.03", "11",
       check=Bounds(0, 10, "a token weight must be in [0, 10]"),
       option=Option(("--w-cached",), "view", "blended basis: weight of a cached input token relative to an "
                     "output token, in [0, 10] (default 0.025)", read=c.NUMBER.read), label='cached weight'),
    _f("eval_tolerance", "tol", float, 0.01, c.NUMBER, ANSWER, "0.05", "2",
       check=Bounds(0, 1, "tolerance must be in [0, 1]"),
       explain="An accuracy score that drops by more than this (from 0 to 1) against fp8, or by more than the two "
               "scores' combined standard error, is flagged."),
    _f("compare", "cmp", tuple[str, ...], (), c.LABELS, ANSWER, "a · x||b · y", "a\tb", check=check_names,
       words="compared series", plural=True),
    _f("compare_base", "cmpb", str | None, None, c.TEXT, ANSWER, "a · x", "x" * 3000),
    _f("compare_peaks", "peak", bool, False, c.FLAG, ANSWER, "1", "2",
       explain="Compare the ramps' peaks instead of their knees under the SLA: a system with no point meeting the "
               "SLA (e.g. a published peak without TTFT) can only be compared at its peak."),
    # profiles: a fit, not only a rate: two chosen profiles of one hardware split its rows (side by side)
    _f("profiles", "prof", str, "", c.PROFILES, FIT, _ONE_PROFILE, "p1.!!!!", check=Uses("profiles"), option=PROFILE,
       words="cost profiles", plural=True, needs=("use",)),
    _f("priced_by", "use", tuple[str, ...], (), c.LABELS, FIT, "H200 quote", "a\x07", check=check_names, option=PROFILE,
       explain="The cost profiles that price their hardware's series; a hardware two chosen profiles name is shown "
               "side by side, once per profile."),
    _f("all_points", "all", bool, False, c.FLAG, ANSWER, "1", "maybe",
       explain="Draw every measured point; off: an even sample of them, so the page opens fast (frontiers are always "
               "complete)."),
    _f("all_curves", "allc", bool, False, c.FLAG, ANSWER, "1", "maybe",
       explain="Draw every series; off: the chart draws what a person can read (every series stays in the tables "
               "and the download)."),
    _f("demand_rps", "rps", float | None, None, c.NUMBER, ANSWER, "3", "-1", check=DEMAND_BOUNDS,
       option=Option(("--demand-rps", "--peak-rps"), "sizing", "peak demand [req/s], from 1e-6 to 1e9: sizes the "
                     "fleet bought for the peak (with a volume too, the volume prices it); one needing more than "
                     "1,000 nodes is taken as a likely slip and asked about", read=c.NUMBER.read), label='Peak demand [req/s]',
       explain="Peak demand [req/s], from 1e-6 to 1e9: sizes the fleet bought for the peak (with a volume too, the "
               "volume prices it); one needing more than 1,000 nodes is taken as a likely slip and asked about before "
               "it applies."),
    _f("headroom", "hr", float, 1.0, c.NUMBER, ANSWER, "1.2", "0.5",
       check=Bounds(1, 100, "headroom must be between 1 and 100"),
       option=_sizing("--headroom", float, "capacity ÷ peak demand, from 1 to 100 (default 1.0)"), label='Headroom [capacity ÷ peak]'),
    _f("spares", "sp", int, 0, c.WHOLE, ANSWER, "1", "1.5",
       check=Bounds(0, 100_000, "spares must be between 0 and 100,000 nodes"),
       option=_sizing("--spares", int, "whole spare nodes, owned or reserved (N+1 = 1), from 0 to 100,000"), label='Spare nodes (N+1 = 1)'),
    _f("budget_mw", "mw", float | None, None, c.NUMBER, ANSWER, "2.5", "0", check=MW_BOUNDS,
       option=Option(("--budget-mw",), "fleet", "facility power budget [MW], from 0.001 (1 kW) to 1e6", read=c.NUMBER.read), label='Power budget [MW, facility]'),
    _f("budget_usd_month", "bud", float | None, None, c.NUMBER, ANSWER, "1e6", "abc", check=USD_BOUNDS,
       option=Option(("--budget-usd-month",), "fleet", "money budget [$/month], from $1 to $1e15", read=c.NUMBER.read), label='Money budget [$/month]'),
    _f("tokens_per_day", "tpd", float | None, None, c.NUMBER, ANSWER, "1e9", "1e999", check=TPD_BOUNDS,
       option=Option(("--tokens-per-day",), "sizing", "average demand [tokens/day], from 1 to 1e17", read=c.NUMBER.read), label='Volume [tokens per day]'),
    _f("peak_to_average", "pta", float, 1.0, c.NUMBER, ANSWER, "3", "0.5",
       check=Bounds(1, 1000, "peak-to-average must be between 1 and 1000"),
       option=_sizing("--peak-to-average", float, "peak ÷ average load, from 1 to 1,000 (default 1), when the "
                      "demand has no shape or trace: whole nodes are bought for the peak"), label='Peak ÷ average load'),
    _f("shape", "shape", str, "", c.TEXT, ANSWER, "business-hours", "spiky", check=check_shape, words="demand shape",
       option=Option(("--shape",), "sizing", "the demand over a day: flat, business-hours, diurnal, 24 hourly "
                     "weights (comma-separated, from midnight) or a FILE of them", metavar="SHAPE|FILE",
                     file="shape"),
       explain="The demand over a day: flat, business-hours, diurnal, or 24 hourly weights (comma-separated, from "
               "midnight)."),
    _f("trace", "trace", str, "", c.TEXT, ANSWER, _ONE_TRACE, "t1;x", check=Uses("trace"), words="request trace",
       option=Option(("--trace",), "sizing", "a request trace FILE (CSV: timestamp,input_tokens,output_tokens or "
                     "the Azure trace's TIMESTAMP,ContextTokens,GeneratedTokens): its windows are the demand's "
                     "shape", metavar="FILE", file="trace")),
    _f("trace_window", "tw", int, 5, c.WHOLE, ANSWER, "15", "0",
       check=Bounds(1, 1440, "the trace window must be a whole number of minutes from 1 to 1,440"),
       option=Option(("--trace-window",), "sizing", "minutes of one window of a trace, a whole number from 1 to 1,440 (default 5)",
                     metavar="MINUTES", read=c.WHOLE.read), label='Trace window [minutes]'),
    _f("request_mix", "rmix", str, "", c.TEXT, ANSWER, "1024:256:0.7,8192:1024:0.3", "1024:256:0.7",
       check=Uses("request_mix"), words="request mix", label="Request mix (ISL:OSL:share, ...)",
       option=Option(("--mix",), "mix", "the request mix: buckets ISL:OSL:SHARE,... (tokens; a share is a fraction "
                     "of requests, or NN%), e.g. 1024:256:0.7,8192:1024:0.3", metavar="ISL:OSL:SHARE,...")),
    _f("plan", "plan", str, "", c.TEXT, ANSWER, _ONE_PLAN, "http://x/?rps=abc", check=check_plan, words="plan",
       label="The plan: the share link the proposal was made from",
       option=Option(("--plan",), "report", "plan against actual: the share link the proposal was made from (pinned, "
                     "with v=N, it shows the numbers as presented); its view's volume and owned fleet are the plan, and "
                     "the report adds its section against the stored actuals", metavar="LINK")),
    _f("cost_basis", "cb", str | None, None, c.TEXT, ANSWER, "allocation", "net",
       check=lambda v: v if v is None else one_of("the actuals' cost basis", COST_BASES)(v),
       label="The actuals' cost",
       option=Option(("--cost-basis",), "report", "plan against actual: which stored cost to read: bill (a finance bill), "
                     "allocation (OpenCost's allocation cost, which reconciles to the bill) or usage (its usage cost: "
                     "consumption only, a lower bound); default: bill, else allocation, else usage", choices=COST_BASES)),
    _f("scale_step", "step", int, 1, c.WHOLE, ANSWER, "2", "0",
       check=Bounds(1, 100_000, "the scale-up step must be a whole number of nodes from 1 to 100,000"),
       option=Option(("--scale-step",), "sizing", "on demand: nodes added or removed at a time, from 1 to 100,000 (default 1)",
                     read=c.WHOLE.read), label='Scale-up step [nodes]'),
    _f("rule", "rule", str, KNEE_RULES[0], c.TEXT, ANSWER, "highest_pass", "best",
       check=one_of("the knee rule", KNEE_RULES), label="Knee of a load ramp",
       option=Option(("--rule",), "ramp", "how a knee is read off a request-rate ramp: first_failure = the rate "
                     "before the first one breaking the SLA (default); highest_pass = the highest rate meeting it",
                     choices=KNEE_RULES)),
    _f("gpus_per_node", "gpn", int | None, None, c.WHOLE, ANSWER, "4", "0",
       check=Bounds(1, 1024, "GPUs per node must be a whole number from 1 to 1,024"), label="GPUs per node",
       option=Option(("--gpus-per-node",), "ramp", "GPUs per node where the rows do not say, from 1 to 1,024 (default 8): a "
                     "node holds whole serving instances of the measured configuration, so a point measured on 8 GPUs "
                     "fills one node of 8, two of 16, and spans two nodes of 4 (nodes bought in twos)",
                     metavar="N", read=c.WHOLE.read)),
    _f("kw_per_gpu", "kwg", tuple[tuple[str, float], ...], (), c.PER_HARDWARE, ANSWER, "1.4,B200:1.2", "B200:0",
       check=check_kw_per_gpu, label="kW per GPU (all-in IT)", words="kW per GPU",
       option=Option(("--kw-per-gpu",), "fleet", "all-in IT power per GPU [kW] of one hardware, HW=KW (repeat per "
                     "GPU), or KW alone for every hardware without its own (default: the cost profile's, else the "
                     "price set's)", metavar="[HW=]KW", kind="append", read=c.hardware_numbers)),
    _f("pue", "pue", float | None, None, c.NUMBER, ANSWER, "1.4", "0.9",
       check=Bounds(1, 3, "PUE (facility power ÷ IT power) must be from 1 to 3"), label="PUE",
       option=Option(("--pue",), "fleet", "PUE, from 1 to 3: facility power = IT power × PUE, shown beside the IT "
                     "power and counted against the MW budget (default: the cost profile's, else 1)", metavar="PUE", read=c.NUMBER.read)),
    _f("rack_kw", "rack", float | None, None, c.NUMBER, ANSWER, "40", "0",
       check=RACK_KW_BOUNDS,
       label="IT power per rack [kW]",
       option=Option(("--rack-kw",), "fleet", "IT power per rack [kW], from 1 to 1,000 (racks are counted only with it)",
                     metavar="KW", read=c.NUMBER.read)),
    _f("token_basis", "tb", str | None, None, c.TEXT, ANSWER, "output", "words",
       check=lambda v: v if v is None else one_of("the volume's token basis", TOKEN_BASES)(v),
       label="A typed volume counts",
       option=Option(("--token-basis",), "fleet", "what --tokens-per-day and --volume count (default: the "
                     "capacity's basis, as volume reads it: total where the rows state it, else output)",
                     choices=TOKEN_BASES),
       explain="What a typed volume of tokens counts (default: the capacity's basis: total where the rows state it, "
               "else output)."),
    _f("filters", "f", tuple[tuple[str, str], ...], (), c.FILTERS, FIT, "tp=8", "colour=red", check=Uses("filters"),
       option=WHERE, words="filters", plural=True),
    _f("mix_workloads", "mix", bool, False, c.FLAG, FIT, "1", "on",
       option=Option(("--mix-workloads",), "selection", "compare series across workloads (model, ISL, OSL) "
                     "instead of splitting them", kind="flag")),
    _f("disagg", "dis", str, "per-role", c.TEXT, FIT, "share", "both",
       check=one_of("disaggregated rows", DISAGG_MODES),
       option=Option(("--disagg",), "view", "disaggregated prefill/decode rows on the input/output basis: a row states "
                     "its input rate per prefill GPU and its output rate per decode GPU; per-role keeps those "
                     "(default); share splits the total per GPU of both roles by the token share, which compares with "
                     "aggregated rows like for like", choices=DISAGG_MODES), label='Disaggregated rows'),
    _f("interactivity_from", "ia", str, "tpot", c.TEXT, FIT, "itl", "both",
       check=one_of("interactivity from", INTERACTIVITY_FROM),
       option=Option(("--interactivity-from",), "view", "what tokens per second per user counts: tpot = 1000 ÷ median time per "
                     "output token, the tokens a user receives per second (default); itl = 1000 ÷ median inter-token "
                     "latency, the streamed chunks per second: with speculative decoding a chunk carries several "
                     "tokens, so the two can be several times apart. A point that states no ITL keeps its TPOT-based "
                     "value (the notes count them)",
                     choices=INTERACTIVITY_FROM), label='Interactivity from'),
    _f("repeats", "rep", str, "pooled", c.TEXT, FIT, "latest", "newest", check=one_of("repeats", REPEATS),
       option=Option(("--repeats",), "runs", "rows of one configuration (hardware, recipe, parallelism, concurrency, "
                     "workload) from several files or run dates: pooled = all of them (default), latest = the latest "
                     "run of each, median = the median of each measure",
                     choices=REPEATS), label='Repeat runs'),
    _f("as_of", "asof", date | None, None, c.DATE, FIT, "2025-06-30", "2025-13-01", before=check_as_of,
       option=Option(("--as-of",), "runs", "only rows run on or before this date (rows that state no run date "
                     "are left out, and counted); left empty: all", metavar="YYYY-MM-DD"), label='As of (run date)'),
    _f("data_version", "v", int | None, None, c.WHOLE, FIT, "3", "0",
       check=Bounds(1, 1e15, "a data version is a whole number from 1 (costfrontier versions lists them)"),
       option=Option(("--data-version",), "runs", "read the store as data version N held it (a pinned link's "
                     "v=N); default: the latest (costfrontier versions lists them)", metavar="N",
                     read=c.WHOLE.read), words="data version"),
    _f("data_digest", "vd", str | None, None, c.TEXT, ANSWER, "3f9a2c", "3f9a2", check=check_digest,
       option=Option(("--data-digest",), "runs", "with --data-version N: what version N showed when the link was "
                     "made (a pinned link's vd=); refused, not answered, where this store's version N shows other "
                     "data (costfrontier versions lists each version's)", metavar="CODE"), words="data digest"),
    _f("history", "hist", bool, False, c.FLAG, ANSWER, "1", "x",
       option=Option(("--history",), "report", "add the history by run date to the report: a section with each series' "
                     "$/M at the interactivity you need, date by date (the History page's chart and table)", kind="flag"), label='Add this history to the report'),
    _f("tokens_per_month", "tpm", float | None, None, c.NUMBER, ANSWER, "2e9", "-5", check=TPM_BOUNDS,
       option=Option(("--tokens-per-month", "--volume"), "sizing", "volume [tokens a month on the capacity's "
                     "basis, total by default; 730 h], from 1 to 1e18: prices the fleet (its mean load, the peak by the "
                     "shape); 2e12, 2,000,000,000,000 and 2 000 000 000 000 are all read as written",
                     metavar="N", read=c.NUMBER.read), label='Volume [tokens per month]'),
    _f("api", "api", str | None, None, c.TEXT, ANSWER, "GLM-5.2", "a\tb", check=check_api,
       option=Option(("--api",), "volume", "the hosted API model to compare with (default: matched by name)",
                     metavar="MODEL", exclusive="api")),
    _f("api_usd", "apiusd", tuple[float, ...], (), c.PRICES, ANSWER, "1.4,0.26,4.4", "1,2", check=check_api_usd,
       option=Option(("--api-usd",), "volume", "custom API prices [$/M input, cached input, output]: three numbers, e.g. "
                     "3,0.3,15 (the InferenceX whitepaper's list prices)",
                     metavar="IN,CACHED,OUT", exclusive="api", read=c.PRICES.read)),
    _f("rent", "rent", tuple[tuple[str, float], ...], (), c.RATES, ANSWER, "MI355X:2.1", "MI355X:abc",
       check=check_rates("a rented $/GPU-hour"),
       option=Option(("--rent",), "sizing", "rented $/GPU-hour (repeat per GPU)", metavar="HW=USD", kind="append",
                     read=c.hardware_rates)),
    _f("on_demand", "od", bool, False, c.FLAG, ANSWER, "1", "-",
       option=Option(("--on-demand",), "sizing", "rented nodes on demand, paid per node-hour carrying load "
                     "(default: reserved, every hour)", kind="flag"), label='Rent on demand (pay node-hours carrying load; else reserved)'),
    _f("min_nodes", "odmin", int, 1, c.WHOLE, ANSWER, "2", "-1",
       check=Bounds(0, 100_000, "min nodes must be a whole number from 0 to 100,000"),
       option=Option(("--min-nodes",), "sizing", "on demand: nodes kept up (default 1)", read=c.WHOLE.read), label='Nodes kept up on demand'),
    _f("lens", "lens", str, "full", c.TEXT, ANSWER, "marginal", "half", check=one_of("lens", LENSES),
       option=Option(("--lens",), "volume", "full cost (default), or marginal: owned capacity counts power and "
                     "operations only", choices=LENSES), label='Lens'),
    _f("cache_hit", "ch", float | None, None, c.NUMBER, ANSWER, "0.6", "60",
       check=Bounds(0, 1, "the cache-hit rate is a fraction in [0, 1], e.g. 0.6 for 60 %"),
       option=Option(("--cache-hit",), "volume", "prefix-cache hit rate for the API's bill, a fraction from 0 to 1: 0.6 "
                     "for 60 % (default: the rows', else 0)", metavar="FRACTION", read=c.NUMBER.read), label='Prefix-cache hit rate [0–1]',
       explain="The share of input tokens served from the prefix cache, a fraction from 0 to 1 (0.6 for 60 %), priced "
               "at the cached input price: the API's bill on Buy, rent or API, the revenue on Sell (default: the "
               "rows', else 0)."),
    # the seller's side, the inverse question and the bill by tenant (issue 52: model.core.sell, solve, chargeback)
    _f("input_share", "sin", float | None, None, c.NUMBER, ANSWER, "0.992", "99.2",
       check=Bounds(0, 1, "the input share is a fraction of the tokens sold in [0, 1], e.g. 0.992 for 99.2 %"),
       label="Input share of the tokens sold [0–1]",
       option=Option(("--input-share",), "sell", "share of the tokens sold that are input, a fraction from 0 to 1: 0.992 "
                     "for 99.2 % (default: the trace's, else the workload's ISL ÷ (ISL + OSL))", metavar="FRACTION", read=c.NUMBER.read)),
    _f("licence_fee", "fee", float, 0.0, c.NUMBER, ANSWER, "0.3", "30",
       check=Bounds(0, 1, "the licence fee is a share of revenue in [0, 1), e.g. 0.3 for 30 %", open_high=True),
       label="Licence fee [share of revenue]",
       option=Option(("--licence-fee",), "sell", "share of the revenue paid to the model's owner, a fraction from 0 to "
                     "below 1: 0.3 for 30 % (default 0)",
                     metavar="FRACTION", read=c.NUMBER.read)),
    _f("utilisation", "util", float, 0.6, c.NUMBER, ANSWER, "0.8", "60",
       check=Bounds(0, 1, "utilisation is a share of hours in (0, 1], e.g. 0.6 for 60 %", open_low=True),
       label="Utilisation [share of hours sold]",
       option=Option(("--utilisation",), "sell", "share of a GPU's hours that sell at its throughput, more than 0 and at "
                     "most 1: 0.6 for 60 % (default 0.6, the InferenceX whitepaper's)", metavar="FRACTION", read=c.NUMBER.read)),
    _f("max_usd_per_mtok", "cap", float | None, None, c.NUMBER, ANSWER, "0.5", "0",
       check=Bounds(1e-6, 1e4, "the $/M cap must be more than $0.000001 and at most $10,000 per million tokens"),
       label="$/M cap [$ per million tokens]",
       option=Option(("--max-usd-per-mtok",), "solve", "the highest interactivity whose $/M stays at or under this "
                     "cap [$ per million tokens, more than $0.000001 and at most $10,000], per series and overall", metavar="USD", read=c.NUMBER.read)),
    _f("tenants", "ten", str, "", c.TEXT, ANSWER, "acme:9e8:1e8,beta:3e8:2e8:1e8", "acme:9e8",
       check=check_tenants, words="tenants", plural=True, label="Tenants (NAME:INPUT:OUTPUT[:CACHED], ...)",
       option=Option(("--tenants",), "chargeback", "split the fleet's cost by tenant: NAME:INPUT:OUTPUT[:CACHED] tokens "
                     "over any span (their shares split the cost), comma-separated, e.g. acme:9e8:1e8,beta:3e8:2e8:1e8 "
                     "(the fourth number: the cached part of the input); or a trace FILE with a tenant, user or "
                     "workload column (FILE@COLUMN names another)", metavar="TABLE|FILE", file="tenants"),
       explain="Split the fleet's cost by tenant: NAME:INPUT:OUTPUT[:CACHED] tokens over any span (their shares split "
               "the cost), comma-separated, e.g. acme:9e8:1e8,beta:3e8:2e8:1e8 (the fourth number: the cached part of "
               "the input)."),
    _f("stale_days", "stale", int, DEFAULT_STALE_DAYS, c.WHOLE, ANSWER, "90", "0",
       check=Bounds(1, 100_000, "stale days must be a whole number from 1 to 100,000"),
       option=Option(("--stale-days",), "volume", f"an API price read longer ago may be stale (default "
                     f"{DEFAULT_STALE_DAYS})", read=c.WHOLE.read)),
    _f("price_stale_days", "pstale", int, DEFAULT_PRICE_STALE_DAYS, c.WHOLE, ANSWER, "730", "0",
       check=Bounds(1, 100_000, "price stale days must be a whole number from 1 to 100,000"),
       option=Option(("--price-stale-days",), "view", "a price preset or on-prem default read more days ago is "
                     f"flagged as old (default {DEFAULT_PRICE_STALE_DAYS})", metavar="DAYS", read=c.WHOLE.read)),
)

BY_NAME = {f.name: f for f in FIELDS}
BY_KEY = {f.key: f for f in FIELDS}
#: the Share box's words of the fields that name several things (:attr:`ViewField.plural`)
PLURAL_WORDS = frozenset(f.said for f in FIELDS if f.plural)


def options_of(group: str) -> list[Option]:
    """The options of ``group`` (see :class:`Option`), each once, in the order of :data:`FIELDS`."""
    found = [f.option for f in FIELDS if f.option is not None and f.option.group == group]
    if group == "view":
        found.append(LINK)
    return list(dict.fromkeys(found))
