"""Every field of a view, declared once: its type, default and bounds, its link key (the widget's key too),
how it is written in a link, its command-line option and help, and what it changes.

:class:`model.core.view.View` (pydantic) is built from :data:`FIELDS`; the link codec
(:meth:`~model.core.view.View.from_query`, :meth:`~model.core.view.View.to_query`), the command line's options
and ``--link`` merging (:mod:`model.cli.options`) and the dashboard's bindings (:func:`ui.state.bind`) read
them. Adding a field is one :class:`ViewField` here plus the code that uses it.

Light on purpose: ``costfrontier --help`` reads this module, so it imports the standard library only (and
:mod:`model.core.view_codecs`); a check that needs more imports it when it runs. The tuples of choices
below are copies of the analysis modules' own (``tests/test_cli_startup.py`` checks each stays equal).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any, Callable

from model.core import view_codecs as c
from model.core.names import name_problem
from model.core.view_codecs import short

__all__ = ["ViewField", "Option", "Bounds", "FIELDS", "BY_NAME", "BY_KEY", "WHERE", "PROFILE", "LINK", "FIT", "RATE", "ANSWER",
           "options_of", "BASES", "DISAGG_MODES", "METHODS", "REPEATS", "LENSES", "DEFAULT_SERIES_KEYS",
           "DEFAULT_PRICE_SET", "DEFAULT_TIER", "DEFAULT_STALE_DAYS", "SLA_KEYS", "MAX_USD_PER_GPU_HOUR", "MIN_USD_PER_GPU_HOUR",
           "MAX_DEMAND_RPS",
           "MAX_INTERACTIVITY", "MAX_VALUE_LENGTH", "FILTER_FIELDS"]

#: model.core.frontier.BASES, DISAGG_MODES, DEFAULT_SERIES_KEYS; model.core.iso.METHODS; model.core.repeats.REPEATS
BASES = ("total", "output", "input", "blended")
DISAGG_MODES = ("per-role", "share")
DEFAULT_SERIES_KEYS = ("hardware", "framework", "precision", "spec_decoding")
METHODS = ("linear", "monotone")
REPEATS = ("pooled", "latest", "median")
#: model.core.sla.SLA_KEYS
SLA_KEYS = ("ttft_p50", "ttft_p90", "ttft_p95", "ttft_p99", "tpot", "interactivity", "e2e", "success")
#: model.core.cost.DEFAULT_PRICE_SET and DEFAULT_TIER
DEFAULT_PRICE_SET = "2025-08"
DEFAULT_TIER = "owning_hyperscaler"
#: buy, rent or API (model.core.volume): the full cost, or the marginal one of capacity already owned
LENSES = ("full", "marginal")
DEFAULT_STALE_DAYS = 180

#: the most a $/GPU-hour may be, set by hand, rented or in a link: the one bound every surface imports
MAX_USD_PER_GPU_HOUR = 1000.0
#: the least a $/GPU-hour may be: below it a rate is a slip (a hundredth of a cent an hour), and fleet costs and
#: break-evens computed from it run to hundreds of digits
MIN_USD_PER_GPU_HOUR = 1e-4
#: the most peak demand a fleet is sized for [req/s]: the view's bound, and sizing's (model.core.demand)
MAX_DEMAND_RPS = 1e9
#: interactivity is below this [tok/s/user]
MAX_INTERACTIVITY = 100_000.0
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
    ``sizing`` (fleet and volume), ``volume`` and ``report``. ``read`` turns the parsed value into the
    field's (a ValueError in the product's words); ``kind`` is ``value``, ``append`` or ``flag``."""

    flags: tuple[str, ...]
    group: str
    help: str = ""
    metavar: str | None = None
    kind: str = "value"
    type: Callable | None = None
    choices: tuple[str, ...] | None = None
    default: Any = None
    read: Callable[[Any], Any] | None = None
    exclusive: str | None = None

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
    check: Callable[[Any], Any] | None = None
    before: Callable[[Any], Any] | None = None
    option: Option | None = None
    words: str = ""
    needs: tuple[str, ...] = ()

    @property
    def said(self) -> str:
        """The field in the Share box's words (``"cost profiles"``)."""
        return self.words or self.name.replace("_", " ")


# ------------------------------------------------------------------------------------------ checks

def _names(value: tuple[str, ...]) -> tuple[str, ...]:
    for name in value:
        problem = name_problem(name)
        if problem:
            raise ValueError(f"the name {short(name)!r} {problem}")
    return tuple(dict.fromkeys(value))      # a name given twice (a link key repeated alike) is one


def _one_of(what: str, choices: tuple[str, ...]) -> Callable[[str], str]:
    def check(value: str) -> str:
        if value not in choices:
            raise ValueError(f"{what} must be one of {', '.join(choices)}")
        return value
    return check


@dataclass(frozen=True)
class Bounds:
    """The check of a number (or None) between ``low`` and ``high``, each end included unless open; a widget
    bound to the field offers the same range (:func:`ui.state.bind`)."""

    low: float
    high: float
    message: str
    open_low: bool = False
    open_high: bool = False

    def __call__(self, value):
        if value is None:
            return value
        above = self.low < value if self.open_low else self.low <= value
        below = value < self.high if self.open_high else value <= self.high
        if not (above and below):
            raise ValueError(self.message)
        return value


def _by(value: tuple[str, ...]) -> tuple[str, ...]:
    from model.core.frontier import SERIES_KEY_CHOICES

    bad = [k for k in value if k not in SERIES_KEY_CHOICES]
    if bad:
        raise ValueError(f"cannot group by {', '.join(bad)}; choose from {', '.join(SERIES_KEY_CHOICES)}")
    return tuple(dict.fromkeys(value))


def _rates(what: str) -> Callable:
    def check(value: tuple[tuple[str, float], ...]) -> tuple[tuple[str, float], ...]:
        for hw, rate in value:
            problem = name_problem(hw)
            if problem:
                raise ValueError(f"the hardware name {short(hw)!r} {problem}")
            if not (MIN_USD_PER_GPU_HOUR <= rate <= MAX_USD_PER_GPU_HOUR):
                raise ValueError(f"{what} for {hw} must be in [{MIN_USD_PER_GPU_HOUR:g}, {MAX_USD_PER_GPU_HOUR:g}], "
                                 f"got {rate:g}")
        return tuple(sorted(dict(value).items()))
    return check


def _targets(value: tuple[float, ...]) -> tuple[float, ...]:
    if len(value) > 20:
        raise ValueError("at most 20 targets")
    for x in value:
        if not (0 < x < MAX_INTERACTIVITY):
            raise ValueError(f"interactivity target must be in (0, {MAX_INTERACTIVITY:.0f}) tok/s/user, got {x:g}")
    return tuple(sorted(set(value)))


def _sla(value: str) -> str:
    from model.core.sla import SLA

    return SLA.from_text(value).to_text() if value else ""


def _profiles(value: str) -> str:
    from model.core.cost_profiles import profiles_from_text

    profiles_from_text(value)          # raises TcoInputError (a ValueError) naming what is wrong
    return value


def _filters(value: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    from model.core.columns import resolve_column

    out = []
    for name, text in value:
        resolved = resolve_column(str(name))
        if not isinstance(resolved, tuple):
            raise ValueError(f"{short(name)!r} is not a field rows can be filtered on")
        if any(ord(ch) < 32 for ch in str(text)) or len(str(text)) > 120:
            raise ValueError(f"{short(text)!r} is not a value this product stores")
        out.append((resolved[0], str(text)))
    return tuple(dict.fromkeys(out))


def _as_of(value):
    if isinstance(value, str):
        value = c.DATE.read(value)
    if isinstance(value, date) and not (date(1990, 1, 1) <= value <= date(2100, 12, 31)):
        raise ValueError("a run date must be between 1990-01-01 and 2100-12-31")
    return value


def _api(value: str | None) -> str | None:
    if value is not None and name_problem(value):
        raise ValueError(f"the API model name {short(value)!r} {name_problem(value)}")
    return value


def _api_usd(value: tuple[float, ...]) -> tuple[float, ...]:
    if value and (len(value) != 3 or not all(0 <= x <= 1000 for x in value) or not (value[0] > 0 and value[2] > 0)):
        raise ValueError("API prices are three $/M numbers, input,cached input,output, e.g. 1.4,0.26,4.4 "
                         "(input and output above 0, each at most 1,000)")
    return value


#: the demand, budgets and volume a view takes (fleet sizing answers all of them); each message states its limits
_DEMAND = Bounds(0, MAX_DEMAND_RPS, "peak demand must be more than 0 and at most 1e9 req/s", open_low=True)
_MW = Bounds(0, 1e6, "the power budget must be more than 0 and at most 1e6 MW", open_low=True)
_USD = Bounds(0, 1e15, "the money budget must be more than $0 and at most $1e15 a month", open_low=True)
_TPD = Bounds(0, 1e17, "the demand must be more than 0 and at most 1e17 tokens a day", open_low=True)
_TPM = Bounds(0, 1e18, "the volume must be more than 0 and at most 1e18 tokens a month", open_low=True)


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

#: every field of a view, in the order a link is read (cost profiles before the names that choose them)
FIELDS: tuple[ViewField, ...] = (
    _f("workload", "wl", str | None, None, c.TEXT, FIT, "GLM-5|8192|1024", "x" * 3000, option=WHERE),
    _f("hardware", "hw", tuple[str, ...], (), c.HARDWARE, FIT, "B200,MI355X", "H200\tx", check=_names,
       option=WHERE, words="hardware choice"),
    _f("framework", "fw", tuple[str, ...], (), c.NAMES, FIT, "sglang", "a\nb", check=_names, option=WHERE),
    _f("precision", "prec", tuple[str, ...], (), c.NAMES, FIT, "fp8", "a\x07", check=_names, option=WHERE),
    _f("spec_decoding", "spec", tuple[str, ...], (), c.NAMES, FIT, "mtp", "a\u200bb", check=_names, option=WHERE),
    _f("by", "by", tuple[str, ...], DEFAULT_SERIES_KEYS, c.NAMES, FIT, "hardware,model", "colour", check=_by,
       option=Option(("--by",), "selection", "series grouping keys, comma-separated", metavar="K,K",
                     default=",".join(DEFAULT_SERIES_KEYS), read=c.series_keys)),
    _f("basis", "basis", str, "total", c.TEXT, FIT, "blended", "tokens", check=_one_of("basis", BASES),
       option=Option(("--basis",), "view", "token basis (default total)", choices=BASES)),
    _f("method", "method", str, "linear", c.TEXT, ANSWER, "monotone", "cubic", check=_one_of("method", METHODS),
       option=Option(("--method",), "view", "interpolation between frontier points (default linear)",
                     choices=METHODS)),
    _f("price_set", "ps", str, DEFAULT_PRICE_SET, c.TEXT, RATE, "2026-07", "x" * 3000,
       option=Option(("--price-set",), "selection", f"price set of the preset rates (default {DEFAULT_PRICE_SET})",
                     metavar="ID", default=DEFAULT_PRICE_SET)),
    _f("tier", "tier", str, DEFAULT_TIER, c.TEXT, RATE, "sales_quote", "x" * 3000,
       option=Option(("--tier",), "selection", f"tier of the preset rates (default {DEFAULT_TIER})", metavar="ID",
                     default=DEFAULT_TIER)),
    _f("rates", "r", tuple[tuple[str, float], ...], (), c.RATES, RATE, "B200:1.6,MI355X:1.2", "B200:-1",
       check=_rates("$/GPU-hour"), words="rates",
       option=Option(("--rate",), "selection", "$/GPU-hour override", metavar="HW=USD", kind="append",
                     read=c.hardware_rates)),
    _f("targets", "at", tuple[float, ...], (), c.TARGETS, ANSWER, "24,55", "10,x", check=_targets, words="targets",
       option=Option(("--at",), "view", "interactivity targets [tok/s/user], comma-separated", metavar="X,Y",
                     read=c.TARGETS.read)),
    _f("baseline", "base", str | None, None, c.TEXT, ANSWER, "MI355X", "x" * 3000,
       option=Option(("--baseline",), "view", "series the iso ratios divide by (default: the first by name)",
                     metavar="SERIES")),
    _f("interactivity_needed", "x", float | None, None, c.NUMBER, ANSWER, "40", "abc",
       check=Bounds(0, MAX_INTERACTIVITY, "interactivity must be in (0, 100000) tok/s/user", True, True),
       option=Option(("--interactivity", "--x"), "view", "the interactivity you need [tok/s/user]: the answer, the "
                     "break-even and fleet sizing use it (default: the middle target)", metavar="TOK_S_USER",
                     read=c.NUMBER.read)),
    _f("frontier_y", "y", str, "throughput", c.TEXT, ANSWER, "cost", "z",
       check=_one_of("y", ("throughput", "cost"))),
    _f("optimal_only", "opt", bool, False, c.FLAG, ANSWER, "1", "yes"),
    _f("pair", "pair", str | None, None, c.TEXT, ANSWER, "B200 · sglang||MI355X · vllm", "x" * 3000),
    _f("sla", "sla", str, "", c.TEXT, FIT, "ttft_p95=2,tpot=50", "tpot=fast", check=_sla,
       option=Option(("--sla",), "view", f"keep only rows meeting it before fitting (repeat): {', '.join(SLA_KEYS)}; "
                     "e.g. ttft_p95=2", metavar="KEY=VALUE", kind="append", read=",".join)),
    _f("w_input", "win", float, 0.25, c.NUMBER, FIT, "0.3", "nan",
       check=Bounds(0, 10, "a token weight must be in [0, 10]"),
       option=Option(("--w-input",), "view", "blended basis: weight of an uncached input token relative to an "
                     "output token (default 0.25)", read=c.NUMBER.read)),
    _f("w_cached", "wc", float, 0.025, c.NUMBER, FIT, "0.03", "11",
       check=Bounds(0, 10, "a token weight must be in [0, 10]"),
       option=Option(("--w-cached",), "view", "blended basis: weight of a cached input token relative to an "
                     "output token (default 0.025)", read=c.NUMBER.read)),
    _f("eval_tolerance", "tol", float, 0.01, c.NUMBER, ANSWER, "0.05", "2",
       check=Bounds(0, 1, "tolerance must be in [0, 1]")),
    _f("compare", "cmp", tuple[str, ...], (), c.LABELS, ANSWER, "a · x||b · y", "a\tb", check=_names,
       words="compared series"),
    _f("compare_base", "cmpb", str | None, None, c.TEXT, ANSWER, "a · x", "x" * 3000),
    _f("compare_peaks", "peak", bool, False, c.FLAG, ANSWER, "1", "2"),
    # profiles: a fit, not only a rate: two chosen profiles of one hardware split its rows (side by side)
    _f("profiles", "prof", str, "", c.PROFILES, FIT, _ONE_PROFILE, "p1.!!!!", check=_profiles, option=PROFILE,
       words="cost profiles", needs=("use",)),
    _f("priced_by", "use", tuple[str, ...], (), c.LABELS, FIT, "H200 quote", "a\x07", check=_names, option=PROFILE),
    _f("all_points", "all", bool, False, c.FLAG, ANSWER, "1", "maybe"),
    _f("all_curves", "allc", bool, False, c.FLAG, ANSWER, "1", "maybe"),
    _f("demand_rps", "rps", float | None, None, c.NUMBER, ANSWER, "3", "-1", check=_DEMAND,
       option=Option(("--demand-rps",), "fleet", "peak demand [req/s]", read=c.NUMBER.read)),
    _f("headroom", "hr", float, 1.0, c.NUMBER, ANSWER, "1.2", "0.5",
       check=Bounds(1, 100, "headroom must be between 1 and 100"),
       option=_sizing("--headroom", float, "capacity ÷ peak demand (default 1.0)")),
    _f("spares", "sp", int, 0, c.WHOLE, ANSWER, "1", "1.5",
       check=Bounds(0, 100_000, "spares must be between 0 and 100,000 nodes"),
       option=_sizing("--spares", int, "whole spare nodes, owned or reserved (N+1 = 1)")),
    _f("budget_mw", "mw", float | None, None, c.NUMBER, ANSWER, "2.5", "0", check=_MW,
       option=Option(("--budget-mw",), "fleet", "facility power budget [MW]", read=c.NUMBER.read)),
    _f("budget_usd_month", "bud", float | None, None, c.NUMBER, ANSWER, "1e6", "abc", check=_USD,
       option=Option(("--budget-usd-month",), "fleet", "money budget [$/month]", read=c.NUMBER.read)),
    _f("tokens_per_day", "tpd", float | None, None, c.NUMBER, ANSWER, "1e9", "1e999", check=_TPD,
       option=Option(("--tokens-per-day",), "fleet", "average demand [tokens/day]", read=c.NUMBER.read)),
    _f("peak_to_average", "pta", float, 1.0, c.NUMBER, ANSWER, "3", "0.5",
       check=Bounds(1, 1000, "peak-to-average must be between 1 and 1000"),
       option=_sizing("--peak-to-average", float, "peak ÷ average load (default 1): whole nodes are bought for "
                      "the peak; a fleet's demand in --tokens-per-day is an average")),
    _f("filters", "f", tuple[tuple[str, str], ...], (), c.FILTERS, FIT, "tp=8", "colour=red", check=_filters,
       option=WHERE, words="filters"),
    _f("mix_workloads", "mix", bool, False, c.FLAG, FIT, "1", "on",
       option=Option(("--mix-workloads",), "selection", "compare series across workloads (model, ISL, OSL) "
                     "instead of splitting them", kind="flag")),
    _f("disagg", "dis", str, "per-role", c.TEXT, FIT, "share", "both",
       check=_one_of("disaggregated rows", DISAGG_MODES),
       option=Option(("--disagg",), "view", "disaggregated prefill/decode rows on the input/output basis: per-role "
                     "= per GPU of its own role as stated (default); share = total per GPU of both roles x token "
                     "share", choices=DISAGG_MODES)),
    _f("repeats", "rep", str, "pooled", c.TEXT, FIT, "latest", "newest", check=_one_of("repeats", REPEATS),
       option=Option(("--repeats",), "runs", "rows of one configuration measured more than once: pooled = all "
                     "(default), latest = the latest run of each, median = the median of each measure",
                     choices=REPEATS)),
    _f("as_of", "asof", date | None, None, c.DATE, FIT, "2025-06-30", "2025-13-01", before=_as_of,
       option=Option(("--as-of",), "runs", "only rows run on or before this date (rows that state no run date "
                     "are left out, and counted)", metavar="YYYY-MM-DD")),
    _f("data_version", "v", int | None, None, c.WHOLE, FIT, "3", "0",
       check=Bounds(1, 1e15, "a data version is a whole number from 1 (costfrontier versions lists them)"),
       option=Option(("--data-version",), "runs", "read the store as data version N held it (a pinned link's "
                     "v=N); default: the latest (costfrontier versions lists them)", metavar="N",
                     read=c.WHOLE.read), words="data version"),
    _f("history", "hist", bool, False, c.FLAG, ANSWER, "1", "x",
       option=Option(("--history",), "report", "add the history by run date (each series' $/M at the "
                     "interactivity you need, date by date)", kind="flag")),
    _f("tokens_per_month", "tpm", float | None, None, c.NUMBER, ANSWER, "2e9", "-5", check=_TPM,
       option=Option(("--tokens-per-month",), "volume", "average volume [tokens a month on the capacity's basis, "
                     "total by default; 730 h]", metavar="N", read=c.NUMBER.read)),
    _f("api", "api", str | None, None, c.TEXT, ANSWER, "GLM-5.2", "a\tb", check=_api,
       option=Option(("--api",), "volume", "the hosted API model to compare with (default: matched by name)",
                     metavar="MODEL", exclusive="api")),
    _f("api_usd", "apiusd", tuple[float, ...], (), c.PRICES, ANSWER, "1.4,0.26,4.4", "1,2", check=_api_usd,
       option=Option(("--api-usd",), "volume", "custom API prices [$/M input, cached input, output]",
                     metavar="IN,CACHED,OUT", exclusive="api", read=c.PRICES.read)),
    _f("rent", "rent", tuple[tuple[str, float], ...], (), c.RATES, ANSWER, "MI355X:2.1", "MI355X:abc",
       check=_rates("a rented $/GPU-hour"),
       option=Option(("--rent",), "volume", "rented $/GPU-hour (repeat per GPU)", metavar="HW=USD", kind="append",
                     read=c.hardware_rates)),
    _f("on_demand", "od", bool, False, c.FLAG, ANSWER, "1", "-",
       option=Option(("--on-demand",), "volume", "rented nodes on demand, paid per node-hour carrying load "
                     "(default: reserved, every hour)", kind="flag")),
    _f("min_nodes", "odmin", int, 1, c.WHOLE, ANSWER, "2", "-1",
       check=Bounds(0, 100_000, "min nodes must be a whole number from 0 to 100,000"),
       option=Option(("--min-nodes",), "volume", "on demand: nodes kept up (default 1)", read=c.WHOLE.read)),
    _f("lens", "lens", str, "full", c.TEXT, ANSWER, "marginal", "half", check=_one_of("lens", LENSES),
       option=Option(("--lens",), "volume", "full cost (default), or marginal: owned capacity counts power and "
                     "operations only", choices=LENSES)),
    _f("cache_hit", "ch", float | None, None, c.NUMBER, ANSWER, "0.6", "60",
       check=Bounds(0, 1, "the cache-hit rate is a fraction in [0, 1], e.g. 0.6 for 60 %"),
       option=Option(("--cache-hit",), "volume", "prefix-cache hit rate for the API's bill (default: the rows', "
                     "else 0)", metavar="FRACTION", read=c.NUMBER.read)),
    _f("stale_days", "stale", int, DEFAULT_STALE_DAYS, c.WHOLE, ANSWER, "90", "0",
       check=Bounds(1, 100_000, "stale days must be a whole number from 1 to 100,000"),
       option=Option(("--stale-days",), "volume", f"an API price read longer ago may be stale (default "
                     f"{DEFAULT_STALE_DAYS})", read=c.WHOLE.read)),
)

BY_NAME = {f.name: f for f in FIELDS}
BY_KEY = {f.key: f for f in FIELDS}


def options_of(group: str) -> list[Option]:
    """The options of ``group`` (see :class:`Option`), each once, in the order of :data:`FIELDS`."""
    found = [f.option for f in FIELDS if f.option is not None and f.option.group == group]
    if group == "view":
        found.append(LINK)
    return list(dict.fromkeys(found))
