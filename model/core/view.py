"""The view: every control that changes what is shown, and its round trip through a share link.

:class:`View` is built from the declarations of :mod:`model.core.view_fields` (one per field: type, bounds,
link key, codec, option, what it changes); nothing here names a field's key or codec again. Reading a link
(:meth:`View.from_query`) is lenient per field: an unknown key or an invalid value is dropped with a notice
in the product's words, never an exception. Only values that differ from the defaults are written back
(:meth:`View.to_query`), so links stay short.

The analysis (:func:`model.core.analysis.analyse`) takes a view too: its grouping, basis, method, price set,
rates, targets, baseline, SLA, weights and disaggregation are the view's own fields.
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import parse_qs, urlsplit

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    ValidationError,
    create_model,
    field_validator,
    model_validator,
)

from model.core.cost_profiles import profiles_from_text
from model.core.names import join_names, split_names, validation_reason
from model.core.value_checks import CHECKS, merge_profiles
from model.core.view_checks import Uses
from model.core.view_codecs import merge_texts, short
from model.core.view_fields import (
    BY_KEY,
    DEFAULT_PRICE_SET,
    DEFAULT_TIER,
    FIELDS,
    FILTER_FIELDS,
    FIT,
    MAX_VALUE_LENGTH,
    RATE,
)

__all__ = ["View", "pair_text", "reconcile", "MAX_VALUE_LENGTH"]


class _Rules(BaseModel):
    """What a view does beyond its fields (which come from :data:`model.core.view_fields.FIELDS`)."""

    model_config = ConfigDict(frozen=True)

    @model_validator(mode="after")
    def _together(self):
        """Rules across fields: the volume one way (a peak may go with it), the API priced one way, profiles chosen
        by a name they have."""
        if self.tokens_per_day is not None and self.tokens_per_month is not None:
            raise ValueError("give the volume one way: tokens a day or tokens a month")
        if self.api is not None and self.api_usd:
            raise ValueError("price the API by a model name or by custom prices, not both")
        if self.priced_by:
            known = {p.name for p in self.cost_profiles()}
            unknown = [n for n in self.priced_by if n not in known]
            if unknown:
                raise ValueError(f"no cost profile named {short(unknown[0])!r} in this view")
        return self

    @field_validator("plan", check_fields=False)
    @classmethod
    def _plan(cls, text: str) -> str:
        """The plan's link (its form checked by :func:`model.core.view_checks.check_plan`) opens a view that states
        a volume and names no plan of its own, read without a notice: a value it would ignore is refused here, not
        dropped from the plan."""
        if not text:
            return text
        plan, notices = View.from_query(parse_qs(urlsplit(text).query, keep_blank_values=True))
        if notices:
            raise ValueError(f"the plan's link: {notices[0]}")
        if plan.plan:
            raise ValueError("the plan's link names a plan of its own: give the link the proposal was made from")
        if not plan.has_demand:
            raise ValueError("the plan's link has no volume (tpm=, tpd=, rps= or a trace): a plan against actual "
                             "needs the volume the proposal was sized for")
        return text

    # ------------------------------------------------------------------ what the view asks for
    @property
    def has_demand(self) -> bool:
        """Whether the view states a demand, in any of its ways: a peak (req/s), a volume a month or a day, or a
        request trace. The one definition every part reads (fleet, buy-rent-or-API, the recommendation, the
        commands): a demand stated one way is the same demand however it was stated."""
        return (self.demand_rps is not None or self.tokens_per_month is not None or self.tokens_per_day is not None
                or bool(self.trace))

    @property
    def has_budget(self) -> bool:
        """Whether the view states a power or money budget (and no demand: a demand sizes the fleet then)."""
        return not self.has_demand and (self.budget_mw is not None or self.budget_usd_month is not None)

    def pair_names(self) -> tuple[str, ...]:
        """The two series of :attr:`pair` (``()`` when none is chosen); names may hold any printable text."""
        return split_names(self.pair, "||")

    def cost_profiles(self) -> list:
        """The view's cost profiles (:class:`model.core.cost_profiles.CostProfile`)."""
        return profiles_from_text(self.profiles)

    def replace(self, **changes) -> "View":
        """A validated copy with ``changes`` (``model_copy`` would skip validation)."""
        return type(self)(**{**self.model_dump(), **changes})

    def frontier_key(self) -> tuple:
        """The fields that change the frontier fit, as ``(name, value)`` pairs: the rows, the grouping, basis,
        SLA, weights and disaggregation, and (only when series mix hardware, which are then fitted on tokens
        per dollar) what sets the $/GPU-hour. Two views with one key fit the same frontier on one data version."""
        with_rates = "hardware" not in self.by
        return tuple((f.name, getattr(self, f.name)) for f in FIELDS
                     if f.changes == FIT or (with_rates and f.changes == RATE))

    def where(self) -> dict[str, list]:
        """Store filters (field -> accepted values) for :func:`model.data.store.load_points`."""
        out: dict[str, list] = {}
        if self.workload and self.workload != "all":
            # an empty part is a value to match (rows that do not state it), never a wildcard
            for name, value in zip(("model", "isl", "osl"), (self.workload.split("|") + ["", "", ""])[:3]):
                out[name] = [value or None]
        for name in FILTER_FIELDS:
            if getattr(self, name):
                out[name] = list(getattr(self, name))
        for name, value in self.filters:
            out.setdefault(name, []).append(value or None)
        return out

    # ------------------------------------------------------------------ the link
    def to_query(self) -> dict[str, str]:
        """Non-default fields as short query parameters, each value at most :data:`MAX_VALUE_LENGTH`
        characters, the limit :meth:`from_query` reads: a value that does not fit is left out (with the
        keys that need it), never written to be dropped when the link opens (:meth:`left_out_of_link`)."""
        return self._link()[0]

    def left_out_of_link(self) -> tuple[str, ...]:
        """What :meth:`to_query` leaves out because it does not fit a link, in the product's words
        (``"cost profiles"``); empty when the whole view fits."""
        return tuple(BY_KEY[key].said for key in self._link()[1])

    def _link(self) -> tuple[dict[str, str], tuple[str, ...]]:
        full = {f.key: f.codec.write(getattr(self, f.name)) for f in FIELDS
                if getattr(self, f.name) != f.default}
        too_long = tuple(key for key, value in full.items() if len(value) > MAX_VALUE_LENGTH)
        dropped = set(too_long) | {dep for key in too_long for dep in BY_KEY[key].needs}
        return {k: v for k, v in full.items() if k not in dropped}, too_long

    @classmethod
    def from_query(cls, params: dict[str, Any]) -> tuple["View", list[str]]:
        """A view from query parameters, and a notice for each value ignored.

        A value may be a list (a key repeated in the link): list-valued keys (hardware, rates, profiles,
        targets, ...) merge their values; a hardware given two different rates, or two different profiles
        with one name, are refused with a notice naming them; a repeated scalar keeps its first value
        with a notice. Notices are in the product's words (never an exception's text).
        """
        values: dict[str, Any] = {}
        notices: list[str] = []
        unknown = [key for key in params if key not in BY_KEY]
        if len(unknown) == 1:
            notices.append(f"ignored unknown link parameter {short(unknown[0])!r}")
        elif unknown:   # one notice, however many (a link of 1,000 made-up keys is one box, not 1,000)
            shown = ", ".join(repr(short(key, 20)) for key in unknown[:5])
            notices.append(f"ignored {len(unknown):,} unknown link parameters: {shown}"
                           f"{', …' if len(unknown) > 5 else ''}")
        for field in FIELDS:   # in declaration order: cost profiles before the names that choose them
            if field.key not in params:
                continue
            key = field.key
            texts = _values(params[key])
            text = max(texts, key=len) if any(len(t) > MAX_VALUE_LENGTH for t in texts) else \
                merge_profiles(key, texts, notices) if field.codec.merge == "profiles" and len(texts) > 1 else \
                merge_texts(field.codec, key, texts, notices)
            if len(text) > MAX_VALUE_LENGTH:
                notices.append(f"ignored link parameter {key!r}: value longer than {MAX_VALUE_LENGTH} characters")
                continue
            try:
                candidate = field.codec.read(text)
                cls(**{"profiles": values.get("profiles", ""), field.name: candidate})
            except ValidationError as exc:
                notices.append(f"ignored link parameter {key}={short(text)!r}: "
                               f"{short(validation_reason(exc.errors()[0]), 160)}")
                continue
            except (ValueError, TypeError) as exc:   # our own messages: the codecs, number(), TcoInputError
                reason = str(exc) if isinstance(exc, ValueError) else "not a value this link parameter takes"
                notices.append(f"ignored link parameter {key}={short(text)!r}: {short(reason, 160)}")
                continue
            values[field.name] = candidate
        try:
            return cls(**values), notices
        except ValidationError as exc:   # values each valid alone but not together: never a crash
            reason = short(validation_reason(exc.errors()[0]), 160)
        keys = {f.name: f.key for f in FIELDS}
        for name in reversed(list(values)):     # the later value in FIELDS order goes, the rest of the view stays
            try:
                view = cls(**{k: v for k, v in values.items() if k != name})
            except ValidationError:
                continue
            notices.append(f"ignored link parameter {keys[name]}: {reason}")
            return view, notices
        notices.append(f"ignored the link's view: {reason}")
        return cls(), notices


def _annotated(field) -> Any:
    check = CHECKS[field.check.name] if isinstance(field.check, Uses) else field.check
    checks = ([BeforeValidator(field.before)] if field.before else []) + ([AfterValidator(check)] if check else [])
    return Annotated[(field.type, *checks)] if checks else field.type


View = create_model("View", __base__=_Rules, __module__=__name__,
                    __doc__="Filters, grouping, rates, targets and sizing of one view (fields: "
                            ":data:`model.core.view_fields.FIELDS`). Frozen: it hashes and keys caches.",
                    **{f.name: (_annotated(f), f.default) for f in FIELDS})


def _values(raw: Any) -> list[str]:
    values = list(raw) if isinstance(raw, (list, tuple)) else [raw]
    return ["" if v is None else str(v) for v in values]


def pair_text(a: str, b: str) -> str:
    """The :attr:`View.pair` value for series ``a`` and ``b`` (read back by :meth:`View.pair_names`)."""
    return join_names((a, b), "||")


def _match(value: str, known: list[str]) -> str | None:
    """``value`` as ``known`` spells it, compared case-insensitively; None when absent."""
    lower = {str(k).lower(): k for k in known}
    return lower.get(str(value).lower())


def _known_rates(pairs: tuple, known: list[str], what: str, notices: list[str]) -> tuple:
    kept = []
    for hw, rate in pairs:
        found = _match(hw, known)
        if found is None:
            notices.append(f"ignored the {what} for {short(hw)!r}: no such hardware in the data")
        else:
            kept.append((found, rate))
    return tuple(kept)


def reconcile(view: View, options: dict) -> tuple[View, list[str]]:
    """Check the values that depend on the data against it; each value dropped gets a notice.

    ``options``: ``workloads`` (keys ``model|isl|osl``), ``hardware``, ``framework``, ``precision``,
    ``spec_decoding`` (values in the data), ``price_sets`` (price set -> its tiers) and
    ``priced`` (hardware names a preset prices). Names are matched case-insensitively and
    returned as the data spells them.
    """
    notices: list[str] = []
    changes: dict[str, Any] = {}
    workloads = list(options.get("workloads", []))
    if view.workload and view.workload != "all" and view.workload not in workloads:
        shown = workloads[0] if workloads else "none"
        notices.append(f"workload {short(view.workload)!r} from the link is not in the data; showing {shown!r}")
        changes["workload"] = None
    for name in FILTER_FIELDS:
        kept = []
        for value in getattr(view, name):
            found = _match(value, options.get(name, []))
            if found is None:
                label = "speculative decoding" if name == "spec_decoding" else name
                notices.append(f"ignored {label} filter {short(value)!r}: not in the data")
            else:
                kept.append(found)
        if tuple(kept) != getattr(view, name):
            changes[name] = tuple(dict.fromkeys(kept))
    sets = options.get("price_sets", {})
    price_set = view.price_set
    if sets and price_set not in sets:
        price_set = DEFAULT_PRICE_SET if DEFAULT_PRICE_SET in sets else sorted(sets)[-1]
        notices.append(f"price set {short(view.price_set)!r} is not known; showing {price_set} "
                       f"(known: {', '.join(sorted(sets))})")
        changes["price_set"] = price_set
    tiers = sets.get(price_set, [])
    if tiers and view.tier not in tiers:
        tier = DEFAULT_TIER if DEFAULT_TIER in tiers else tiers[0]
        notices.append(f"tier {short(view.tier)!r} is not in price set {price_set}; showing {tier}")
        changes["tier"] = tier
    known_hw = list(options.get("hardware", []))
    for name, what in (("rates", "rate"), ("rent", "rented rate")):
        kept = _known_rates(getattr(view, name), known_hw, what, notices)
        if kept != getattr(view, name):
            changes[name] = kept
    return (view.replace(**changes) if changes else view), notices
