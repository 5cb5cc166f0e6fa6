"""The state of a shareable view, and its round trip through a URL query string.

Every control that changes what is shown is a field here. Parsing is lenient
per field: an unknown key or an invalid value is dropped with a notice, never an
exception. Only values that differ from the defaults are written back, so links
stay short.
"""

from __future__ import annotations

from datetime import date
from typing import Any, Callable

from pydantic import ConfigDict, ValidationError, field_validator, model_validator

from model.core.analysis import Scenario
from model.core.cost import DEFAULT_PRICE_SET, DEFAULT_TIER
from model.core.cost_profiles import profiles_from_text, profiles_to_text
from model.core.frontier import DEFAULT_SERIES_KEYS
from model.core.hardware import canonical_hardware
from model.core.names import (
    decode_name,
    encode_name,
    join_names,
    name_problem,
    number,
    split_names,
    validation_reason,
)
from model.core.repeats import REPEATS
from model.core.volume import VolumeView

__all__ = ["ViewState", "parse_query", "reconcile", "pair_text", "MAX_VALUE_LENGTH"]

#: the one limit on a link value [characters]: :meth:`ViewState.to_query` writes none longer, and
#: :func:`parse_query` reads none longer
MAX_VALUE_LENGTH = 2000
_SCENARIO_FIELDS = ("by", "basis", "method", "price_set", "tier", "rates", "targets", "baseline", "sla", "w_input",
                    "w_cached", "disagg")
_LISTS = ("hw", "fw", "prec", "spec", "by", "at")

#: query key -> field name
KEYS = {
    "wl": "workload", "hw": "hardware", "fw": "framework", "prec": "precision", "spec": "spec_decoding",
    "by": "by", "basis": "basis", "method": "method", "ps": "price_set", "tier": "tier", "r": "rates",
    "at": "targets", "base": "baseline", "x": "headline_x", "y": "frontier_y", "opt": "optimal_only",
    "pair": "pair", "sla": "sla", "win": "w_input", "wc": "w_cached", "tol": "eval_tolerance",
    "cmp": "compare", "cmpb": "compare_base", "peak": "compare_peaks", "prof": "profiles", "use": "priced_by",
    "all": "all_points", "allc": "all_curves", "rps": "demand_rps", "hr": "headroom", "sp": "spares", "mw": "budget_mw", "bud": "budget_usd_month",
    "tpd": "tokens_per_day", "pta": "peak_to_average", "f": "filters", "mix": "mix_workloads", "dis": "disagg",
    "rep": "repeats", "asof": "as_of", "hist": "history",
    "tpm": "tokens_per_month", "api": "api", "apiusd": "api_usd", "rent": "rent", "od": "on_demand",
    "odmin": "min_nodes", "lens": "lens", "ch": "cache_hit", "stale": "stale_days",
}
#: the fields whose rows a filter field of the store holds (other filters go in ``filters``)
_FILTER_FIELDS = ("hardware", "framework", "precision", "spec_decoding")


class ViewState(VolumeView):
    """Filters, grouping, rates and targets of one view. Frozen: hashes, keys caches.

    The buy, rent or API fields come from :class:`model.core.volume.VolumeView`."""

    model_config = ConfigDict(frozen=True)

    workload: str | None = None                 # "model|isl|osl" or "all"
    hardware: tuple[str, ...] = ()
    framework: tuple[str, ...] = ()
    precision: tuple[str, ...] = ()
    spec_decoding: tuple[str, ...] = ()
    by: tuple[str, ...] = DEFAULT_SERIES_KEYS
    basis: str = "total"
    method: str = "linear"
    price_set: str = DEFAULT_PRICE_SET
    tier: str = DEFAULT_TIER
    rates: tuple[tuple[str, float], ...] = ()   # overrides only [$/GPU/h]
    targets: tuple[float, ...] = ()             # [tok/s/user]
    baseline: str | None = None
    headline_x: float | None = None             # [tok/s/user]
    frontier_y: str = "throughput"              # or "cost"
    optimal_only: bool = False
    all_points: bool = False                    # draw every measured point (else a sample past CLOUD_LIMIT)
    all_curves: bool = False                    # draw every cost curve (else what a person can read past DRAW_LIMIT)
    pair: str | None = None                     # "A||B" for the break-even chart
    sla: str = ""                               # "ttft_p95=2,tpot=50" (model.core.sla.SLA text)
    w_input: float = 0.25                       # blended basis weights (relative to an output token)
    w_cached: float = 0.025
    disagg: str = "per-role"                    # disaggregated rows on input/output (model.core.frontier.DISAGG_MODES)
    eval_tolerance: float = 0.01                # accuracy drop flagged beyond this [score, 0..1]
    compare: tuple[str, ...] = ()               # ramp series compared on tokens per dollar
    compare_base: str | None = None
    compare_peaks: bool = False                 # compare peaks, ignoring the SLA
    profiles: str = ""                          # cost profiles, model.core.cost_profiles.profiles_to_text form
    priced_by: tuple[str, ...] = ()             # names of the profiles that price series
    demand_rps: float | None = None             # fleet sizing: peak demand [req/s]
    headroom: float = 1.0                       # capacity bought / peak demand [-]
    spares: int = 0                             # whole spare nodes
    budget_mw: float | None = None              # fleet sizing the other way: facility power [MW]
    budget_usd_month: float | None = None       # ... or money [$/month]
    tokens_per_day: float | None = None         # fleet sizing: average demand [total tokens/day], instead of req/s
    peak_to_average: float = 1.0                # peak ÷ average load, with tokens_per_day [-]
    filters: tuple[tuple[str, str], ...] = ()   # other store filters (field, value); a field given twice: either
    mix_workloads: bool = False                 # workload "all": pool workloads instead of splitting series by them
    repeats: str = "pooled"                     # which repeat runs build the frontier (model.core.repeats.REPEATS)
    as_of: date | None = None                   # only rows run on or before this date (undated rows left out)
    history: bool = False                       # the report adds the history by run date

    @field_validator("repeats")
    @classmethod
    def _repeats(cls, v):
        if v not in REPEATS:
            raise ValueError(f"repeats must be one of {', '.join(REPEATS)}")
        return v

    @field_validator("as_of", mode="before")
    @classmethod
    def _as_of(cls, v):
        if isinstance(v, str):
            try:
                v = date.fromisoformat(v.strip())
            except ValueError:
                raise ValueError(f"{_short(v)!r} is not a date (YYYY-MM-DD)") from None
        if isinstance(v, date) and not (date(1990, 1, 1) <= v <= date(2100, 12, 31)):
            raise ValueError("a run date must be between 1990-01-01 and 2100-12-31")
        return v

    @field_validator("eval_tolerance")
    @classmethod
    def _tolerance(cls, v):
        if not (0 <= v <= 1):
            raise ValueError("tolerance must be in [0, 1]")
        return v

    @field_validator("frontier_y")
    @classmethod
    def _y(cls, v):
        if v not in ("throughput", "cost"):
            raise ValueError("y must be throughput or cost")
        return v

    @field_validator("targets")
    @classmethod
    def _targets(cls, v):
        if len(v) > 20:
            raise ValueError("at most 20 targets")
        return v

    @model_validator(mode="after")
    def _shared_with_scenario(self) -> "ViewState":
        """Fields a Scenario also has are checked (and normalised) by Scenario itself: one definition."""
        try:
            scenario = self.scenario()
        except ValidationError as exc:
            raise ValueError(validation_reason(exc.errors()[0])) from None
        for name in _SCENARIO_FIELDS:
            object.__setattr__(self, name, getattr(scenario, name))   # frozen: normalised values
        return self

    @field_validator("headline_x")
    @classmethod
    def _x(cls, v):
        if v is not None and not (0 < v < 100_000):
            raise ValueError("interactivity must be in (0, 100000) tok/s/user")
        return v

    @field_validator("hardware", "framework", "precision", "spec_decoding", "compare", "priced_by")
    @classmethod
    def _names(cls, v):
        for name in v:
            problem = name_problem(name)
            if problem:
                raise ValueError(f"the name {_short(name)!r} {problem}")
        return v

    @field_validator("rates")
    @classmethod
    def _rate_names(cls, v):
        for hw, _ in v:
            problem = name_problem(hw)
            if problem:
                raise ValueError(f"the hardware name {_short(hw)!r} {problem}")
        return v

    @field_validator("demand_rps", "budget_mw", "budget_usd_month", "tokens_per_day", "tokens_per_month")
    @classmethod
    def _positive(cls, v):
        if v is not None and not (0 < v < 1e12):
            raise ValueError("must be a positive number")
        return v

    @field_validator("headroom")
    @classmethod
    def _headroom(cls, v):
        if not (1 <= v <= 100):
            raise ValueError("headroom must be between 1 and 100")
        return v

    @field_validator("peak_to_average")
    @classmethod
    def _peak(cls, v):
        if not (1 <= v <= 1000):
            raise ValueError("peak-to-average must be between 1 and 1000")
        return v

    @field_validator("filters")
    @classmethod
    def _filters(cls, v):
        from model.core.columns import resolve_column

        out = []
        for name, value in v:
            resolved = resolve_column(str(name))
            if not isinstance(resolved, tuple):
                raise ValueError(f"{_short(name)!r} is not a field rows can be filtered on")
            if any(ord(c) < 32 for c in str(value)) or len(str(value)) > 120:
                raise ValueError(f"{_short(value)!r} is not a value this product stores")
            out.append((resolved[0], str(value)))
        return tuple(dict.fromkeys(out))

    @model_validator(mode="after")
    def _one_demand(self) -> "ViewState":   # tokens_per_month: model.core.volume.VolumeView
        if sum(v is not None for v in (self.demand_rps, self.tokens_per_day, self.tokens_per_month)) > 1:
            raise ValueError("give demand one way: requests per second, tokens per day or tokens per month")
        if self.api is not None and self.api_usd:
            raise ValueError("price the API by a model name or by custom prices, not both")
        return self


    @field_validator("spares")
    @classmethod
    def _spares(cls, v):
        if not (0 <= v <= 100_000):
            raise ValueError("spares must be between 0 and 100,000 nodes")
        return v

    @field_validator("profiles")
    @classmethod
    def _profiles(cls, v):
        profiles_from_text(v)          # raises TcoInputError (a ValueError) naming what is wrong
        return v

    @model_validator(mode="after")
    def _priced_by_known(self) -> "ViewState":
        known = {p.name for p in self.cost_profiles()}
        unknown = [n for n in self.priced_by if n not in known]
        if unknown:
            raise ValueError(f"no cost profile named {_short(unknown[0])!r} in this view")
        return self

    def pair_names(self) -> tuple[str, ...]:
        """The two series of :attr:`pair` (``()`` when none is chosen); names may hold any printable text."""
        return split_names(self.pair, "||")

    def cost_profiles(self) -> list:
        """The view's cost profiles (:class:`model.core.cost_profiles.CostProfile`)."""
        return profiles_from_text(self.profiles)

    def replace(self, **changes) -> "ViewState":
        """A validated copy with ``changes`` (``model_copy`` would skip validation)."""
        return ViewState(**{**self.model_dump(), **changes})

    def scenario(self) -> Scenario:
        return Scenario(by=self.by, basis=self.basis, method=self.method, price_set=self.price_set,
                        tier=self.tier, rates=self.rates, targets=self.targets, baseline=self.baseline,
                        sla=self.sla, w_input=self.w_input, w_cached=self.w_cached, disagg=self.disagg)

    def where(self) -> dict[str, list]:
        """Store filters (field -> accepted values) for :func:`model.data.store.load_points`."""
        out: dict[str, list] = {}
        if self.workload and self.workload != "all":
            # an empty part is a value to match (rows that do not state it), never a wildcard
            for name, value in zip(("model", "isl", "osl"), (self.workload.split("|") + ["", "", ""])[:3]):
                out[name] = [value or None]
        for field in _FILTER_FIELDS:
            if getattr(self, field):
                out[field] = list(getattr(self, field))
        for name, value in self.filters:
            out.setdefault(name, []).append(value or None)
        return out

    def to_query(self) -> dict[str, str]:
        """Non-default fields as short query parameters, each value at most :data:`MAX_VALUE_LENGTH`
        characters, the limit :func:`parse_query` reads: a value that does not fit is left out (with the
        names that need it), never written to be dropped when the link opens (:meth:`left_out_of_link`)."""
        return self._link()[0]

    def left_out_of_link(self) -> tuple[str, ...]:
        """What :meth:`to_query` leaves out because it does not fit a link, in the product's words
        (``"cost profiles"``); empty when the whole view fits."""
        return tuple(_LINK_WORDS.get(key, KEYS[key].replace("_", " ")) for key in self._link()[1])

    def _link(self) -> tuple[dict[str, str], tuple[str, ...]]:
        full = self._full_query()
        too_long = tuple(key for key, value in full.items() if len(value) > MAX_VALUE_LENGTH)
        dropped = set(too_long) | {dep for key in too_long for dep in _NEEDS.get(key, ())}
        return {k: v for k, v in full.items() if k not in dropped}, too_long

    def _full_query(self) -> dict[str, str]:
        default = ViewState()
        out: dict[str, str] = {}
        for key, field in KEYS.items():
            value = getattr(self, field)
            if value == getattr(default, field):
                continue
            if field in ("rates", "rent"):
                out[key] = ",".join(f"{encode_name(hw)}:{rate:.10g}" for hw, rate in value)   # as typed
            elif field == "api_usd":
                out[key] = ",".join(f"{x:.10g}" for x in value)
            elif field in ("targets",):
                out[key] = ",".join(f"{x:g}" for x in value)
            elif field in ("compare", "priced_by"):
                out[key] = join_names(value, "||")
            elif field == "filters":
                out[key] = join_names([f"{name}={v}" for name, v in value], "||")
            elif isinstance(value, tuple):
                out[key] = join_names(value)
            elif isinstance(value, bool):
                out[key] = "1" if value else "0"
            elif isinstance(value, float):   # 2e9, not 2e+09: a '+' in a typed link would read as a space
                out[key] = f"{value:g}".replace("e+0", "e").replace("e+", "e")
            elif isinstance(value, date):
                out[key] = value.isoformat()
            else:
                out[key] = str(value)
        return out


#: key -> keys whose values name what it holds (left out of a link with it)
_NEEDS = {"prof": ("use",)}
#: key -> its words in the Share box
_LINK_WORDS = {"prof": "cost profiles", "f": "filters", "cmp": "compared series", "r": "rates",
               "hw": "hardware choice", "at": "targets"}

_NUMBERS = ("headline_x", "w_input", "w_cached", "eval_tolerance", "demand_rps", "headroom", "budget_mw",
            "budget_usd_month", "tokens_per_day", "peak_to_average", "tokens_per_month", "cache_hit")
#: keys whose values add up when a link repeats them (``?r=B200:1.7&r=MI355X:1.6``)
_MERGED = ("hw", "fw", "prec", "spec", "by", "at", "r", "cmp", "use", "prof")


def pair_text(a: str, b: str) -> str:
    """The :attr:`ViewState.pair` value for series ``a`` and ``b`` (read back by :meth:`ViewState.pair_names`)."""
    return join_names((a, b), "||")


def _rate_pairs(text: str) -> tuple[tuple[str, float], ...]:
    pairs = []
    for item in text.split(","):
        if not item.strip():
            continue
        hw, sep, rate = item.rpartition(":")
        if not sep or not hw.strip():
            raise ValueError(f"{_short(item)!r} is not HARDWARE:RATE, e.g. B200:1.7")
        pairs.append((_hardware(decode_name(hw.strip())), number(rate, f"a $/GPU-hour for {_short(hw)}")))
    return tuple(pairs)


def _hardware(name: str) -> str:
    """The canonical GPU name of a name typed in a link (checked first: canonical names drop text)."""
    problem = name_problem(name)
    if problem:
        raise ValueError(f"the hardware name {_short(name)!r} {problem}")
    return canonical_hardware(name)


def _coerce(field: str, text: str) -> Any:
    if field in ("rates", "rent"):
        return _rate_pairs(text)
    if field == "api_usd":
        return tuple(number(x, "a $/M price") for x in text.split(","))
    if field == "targets":
        return tuple(number(x, f"an interactivity ({_short(x.strip())!r})") for x in text.split(",") if x.strip())
    if field in ("hardware",):
        return tuple(_hardware(x) for x in split_names(text))
    if field in ("compare", "priced_by"):
        return split_names(text, "||")
    if field == "filters":
        pairs = [item.partition("=") for item in split_names(text, "||")]
        if any(not sep for _, sep, _ in pairs):
            raise ValueError("expected field=value items")
        return tuple((name.strip(), value.strip()) for name, _, value in pairs)
    if field in ("framework", "precision", "spec_decoding", "by"):
        return split_names(text)
    if field in _NUMBERS:
        return number(text)
    if field in ("spares", "min_nodes", "stale_days"):
        value = number(text, "a whole number")
        if not value.is_integer():
            raise ValueError("not a whole number")
        return int(value)
    if field == "as_of":
        try:
            return date.fromisoformat(text.strip())
        except ValueError:
            raise ValueError(f"{_short(text)!r} is not a date (YYYY-MM-DD)") from None
    if field in ("optimal_only", "compare_peaks", "all_points", "all_curves", "mix_workloads", "history", "on_demand"):
        if text not in ("0", "1", "true", "false"):
            raise ValueError("expected 0 or 1")
        return text in ("1", "true")
    return text


def _values(raw: Any) -> list[str]:
    values = list(raw) if isinstance(raw, (list, tuple)) else [raw]
    return ["" if v is None else str(v) for v in values]


def _merge(key: str, texts: list[str], notices: list[str], read: Callable[[str], Any],
           name_of: Callable[[Any], str], clash: Callable[[Any, Any], str]) -> list:
    """The items every value of a repeated ``key`` holds, in order; a name given twice with different
    contents is refused (both), with the notice ``clash(first, second)``; an unreadable value gets a notice."""
    kept: dict[str, Any] = {}
    refused: set[str] = set()
    for text in texts:
        try:
            items = read(text)
        except ValueError as exc:   # our own messages (_rate_pairs, TcoInputError)
            notices.append(f"ignored link parameter {key}={_short(text)!r}: {_short(str(exc), 160)}")
            continue
        for item in items:
            name = name_of(item)
            if name in kept and kept[name] != item and name not in refused:
                refused.add(name)
                notices.append(clash(kept[name], item))
            kept.setdefault(name, item)
    return [item for name, item in kept.items() if name not in refused]


def _merge_rates(key: str, texts: list[str], notices: list[str]) -> str:
    """Every ``r=`` value as one; a hardware given two different rates is refused, naming it."""
    pairs = _merge(key, texts, notices, _rate_pairs, lambda pair: pair[0],
                   lambda a, b: f"ignored the rates for {_short(a[0])!r} from the link: given twice, "
                                f"${a[1]:g} and ${b[1]:g} per GPU-hour")
    return ",".join(f"{encode_name(hw)}:{rate:.10g}" for hw, rate in pairs)


def _merge_profiles(key: str, texts: list[str], notices: list[str]) -> str:
    """Every ``prof=`` value as one; two different profiles of one name are refused, naming it."""
    profiles = _merge(key, texts, notices, profiles_from_text, lambda p: p.name,
                      lambda a, _: f"ignored the cost profiles named {_short(a.name)!r} from the link: two differ, "
                                   "and profile names must be unique")
    return profiles_to_text(profiles)


def _one_text(key: str, raw: Any, notices: list[str]) -> str:
    """The one text of ``key``: list values joined, a repeated scalar's first value (with a notice)."""
    texts = _values(raw)
    if any(len(t) > MAX_VALUE_LENGTH for t in texts):
        return max(texts, key=len)   # refused below, as a single long value is
    if key == "r":
        return _merge_rates(key, texts, notices)
    if key == "prof":
        return _merge_profiles(key, texts, notices) if len(texts) > 1 else texts[0]
    if len(texts) == 1:
        return texts[0]
    if key in _MERGED:
        sep = "||" if KEYS[key] in ("compare", "priced_by") else ","
        return sep.join(t for t in texts if t.strip())
    distinct = list(dict.fromkeys(texts))
    if len(distinct) > 1:
        notices.append(f"link parameter {key!r} is given {len(texts)} times with different values; "
                       f"using the first, {_short(distinct[0])!r}")
    return distinct[0]


def parse_query(params: dict[str, Any]) -> tuple[ViewState, list[str]]:
    """A :class:`ViewState` from query parameters, and a notice for each value ignored.

    A value may be a list (a key repeated in the link): list-valued keys (hardware, rates, profiles,
    targets, ...) merge their values; a hardware given two different rates, or two different profiles
    with one name, are refused with a notice naming them; a repeated scalar keeps its first value
    with a notice. Notices are in the product's words (never an exception's text).
    """
    values: dict[str, Any] = {}
    notices: list[str] = []
    order = list(KEYS)   # known keys in KEYS order (cost profiles before the names that choose them)
    unknown = [key for key in params if key not in KEYS]
    if len(unknown) == 1:
        notices.append(f"ignored unknown link parameter {_short(unknown[0])!r}")
    elif unknown:   # one notice, however many (a link of 1,000 made-up keys is one box, not 1,000)
        shown = ", ".join(repr(_short(key, 20)) for key in unknown[:5])
        notices.append(f"ignored {len(unknown):,} unknown link parameters: {shown}{', …' if len(unknown) > 5 else ''}")
    for key, raw in sorted(params.items(), key=lambda kv: order.index(kv[0]) if kv[0] in KEYS else -1):
        if key not in KEYS:
            continue
        text = _one_text(key, raw, notices)
        field = KEYS[key]
        if len(text) > MAX_VALUE_LENGTH:
            notices.append(f"ignored link parameter {key!r}: value longer than {MAX_VALUE_LENGTH} characters")
            continue
        try:
            candidate = _coerce(field, text)
            ViewState(**{"profiles": values.get("profiles", ""), field: candidate})
        except ValidationError as exc:
            notices.append(f"ignored link parameter {key}={_short(text)!r}: "
                           f"{_short(validation_reason(exc.errors()[0]), 160)}")
            continue
        except (ValueError, TypeError) as exc:   # our own messages: _coerce, number(), TcoInputError
            reason = str(exc) if isinstance(exc, ValueError) else "not a value this link parameter takes"
            notices.append(f"ignored link parameter {key}={_short(text)!r}: {_short(reason, 160)}")
            continue
        values[field] = candidate
    try:
        return ViewState(**values), notices
    except ValidationError as exc:   # values each valid alone but not together: never a crash
        reason = _short(validation_reason(exc.errors()[0]), 160)
    key_of = {f: k for k, f in KEYS.items()}
    for field in reversed(list(values)):     # the later value in KEYS order goes, the rest of the view stays
        try:
            state = ViewState(**{k: v for k, v in values.items() if k != field})
        except ValidationError:
            continue
        notices.append(f"ignored link parameter {key_of.get(field, field)}: {reason}")
        return state, notices
    notices.append(f"ignored the link's view: {reason}")
    return ViewState(), notices


def _short(text: str, limit: int = 40) -> str:
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _match(value: str, known: list[str]) -> str | None:
    """``value`` as ``known`` spells it, compared case-insensitively; None when absent."""
    lower = {str(k).lower(): k for k in known}
    return lower.get(str(value).lower())


def reconcile(state: ViewState, options: dict) -> tuple[ViewState, list[str]]:
    """Check the values that depend on the data against it; each value dropped gets a notice.

    ``options``: ``workloads`` (keys ``model|isl|osl``), ``hardware``, ``framework``, ``precision``,
    ``spec_decoding`` (values in the data), ``price_sets`` (price set -> its tiers) and
    ``priced`` (hardware names a preset prices). Names are matched case-insensitively and
    returned as the data spells them.
    """
    notices: list[str] = []
    changes: dict[str, Any] = {}
    workloads = list(options.get("workloads", []))
    if state.workload and state.workload != "all" and state.workload not in workloads:
        shown = workloads[0] if workloads else "none"
        notices.append(f"workload {_short(state.workload)!r} from the link is not in the data; showing {shown!r}")
        changes["workload"] = None
    for field, label in (("hardware", "hardware"), ("framework", "framework"), ("precision", "precision"),
                         ("spec_decoding", "speculative decoding")):
        kept = []
        for value in getattr(state, field):
            found = _match(value, options.get(field, []))
            if found is None:
                notices.append(f"ignored {label} filter {_short(value)!r}: not in the data")
            else:
                kept.append(found)
        if tuple(kept) != getattr(state, field):
            changes[field] = tuple(dict.fromkeys(kept))
    sets = options.get("price_sets", {})
    price_set = state.price_set
    if sets and price_set not in sets:
        price_set = DEFAULT_PRICE_SET if DEFAULT_PRICE_SET in sets else sorted(sets)[-1]
        notices.append(f"price set {_short(state.price_set)!r} is not known; showing {price_set} "
                       f"(known: {', '.join(sorted(sets))})")
        changes["price_set"] = price_set
    tiers = sets.get(price_set, [])
    if tiers and state.tier not in tiers:
        tier = DEFAULT_TIER if DEFAULT_TIER in tiers else tiers[0]
        notices.append(f"tier {_short(state.tier)!r} is not in price set {price_set}; showing {tier}")
        changes["tier"] = tier
    known_hw = list(options.get("hardware", []))
    rates = []
    for hw, rate in state.rates:
        found = _match(hw, known_hw)
        if found is None:
            notices.append(f"ignored the rate for {_short(hw)!r}: no such hardware in the data")
        else:
            rates.append((found, rate))
    if tuple(rates) != state.rates:
        changes["rates"] = tuple(rates)
    rent = []
    for hw, rate in state.rent:
        found = _match(hw, known_hw)
        if found is None:
            notices.append(f"ignored the rented rate for {_short(hw)!r}: no such hardware in the data")
        else:
            rent.append((found, rate))
    if tuple(rent) != state.rent:
        changes["rent"] = tuple(rent)
    return (state.replace(**changes) if changes else state), notices
