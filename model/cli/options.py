"""The options every view command shares, and the one way they fill a :class:`~model.core.viewstate.ViewState`.

``frontier``, ``iso``, ``crossover``, ``size`` and ``report`` take the same selection, view and fleet
options with the same meaning; ``--link URL`` is one more way to fill the view (a share link,
read as the dashboard reads it). The view then goes to :func:`model.present.view_answer.answer_of_view`,
whose answer the commands only print.

Building the options imports nothing heavy (the choices come from :mod:`model.cli.choices`): pandas, pydantic
and the model load only when a command reads its options, so ``--help`` and usage errors start at once.
"""

from __future__ import annotations

import argparse
import math
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

from model.cli.choices import (
    BASES,
    DEFAULT_PRICE_SET,
    DEFAULT_SERIES_KEYS,
    DEFAULT_TIER,
    DISAGG_MODES,
    METHODS,
    REPEATS,
    SLA_KEYS,
)

if TYPE_CHECKING:
    import pandas as pd
    from pydantic import ValidationError

__all__ = ["UsageError", "selection_args", "view_args", "fleet_args", "volume_args", "view_from_args", "view_of_link", "pairs",
           "one_line", "records", "clean", "jsonable"]

#: --where fields that have a field of their own in the view (the rest go to ViewState.filters)
_OWN_FIELDS = ("hardware", "framework", "precision", "spec_decoding")
_WORKLOAD = ("model", "isl", "osl")


class UsageError(Exception):
    """A command line that cannot be run: printed as one ``error:`` line, exit 2."""


def selection_args(q: argparse.ArgumentParser) -> None:
    """Which rows, grouped how, priced at which rates."""
    q.add_argument("--where", action="append", default=[], metavar="KEY=VALUE",
                   help="keep rows whose field equals a value (repeat a key to allow several)")
    q.add_argument("--by", default=",".join(DEFAULT_SERIES_KEYS), help="series grouping keys, comma-separated")
    q.add_argument("--rate", action="append", default=[], metavar="HW=USD", help="$/GPU-hour override")
    q.add_argument("--price-set", default=DEFAULT_PRICE_SET)
    q.add_argument("--tier", default=DEFAULT_TIER)
    q.add_argument("--mix-workloads", action="store_true",
                   help="compare series across workloads (model, ISL, OSL) instead of splitting them")
    q.add_argument("--repeats", choices=REPEATS, default=None,
                   help="rows of one configuration measured more than once: pooled = all (default), latest = the "
                        "latest run of each, median = the median of each measure")
    q.add_argument("--as-of", dest="as_of", metavar="YYYY-MM-DD", default=None,
                   help="only rows run on or before this date (rows that state no run date are left out, and counted)")


def view_args(q: argparse.ArgumentParser, basis_choices=BASES, basis_default: str = "total") -> None:
    """Basis, SLA, method, targets, baseline, cost profiles, the interactivity you need and ``--link``."""
    q.add_argument("--basis", default=basis_default, choices=basis_choices)
    q.add_argument("--disagg", default="per-role", choices=DISAGG_MODES,
                   help="disaggregated prefill/decode rows on the input/output basis: per-role = per GPU of its own "
                        "role as stated; share = total per GPU of both roles x token share")
    q.add_argument("--w-input", type=float, default=None,
                   help="blended basis: weight of an uncached input token relative to an output token (default 0.25)")
    q.add_argument("--w-cached", type=float, default=None,
                   help="blended basis: weight of a cached input token relative to an output token (default 0.025)")
    q.add_argument("--sla", action="append", default=[], metavar="KEY=VALUE",
                   help=f"keep only rows meeting it before fitting (repeat): {', '.join(SLA_KEYS)}; e.g. ttft_p95=2")
    q.add_argument("--method", default="linear", choices=METHODS)
    q.add_argument("--at", default="", help="interactivity targets [tok/s/user], comma-separated")
    q.add_argument("--baseline", help="series the iso ratios divide by (default: the first by name)")
    q.add_argument("--profile", action="append", default=[], metavar="NAME",
                   help="price by a stored cost profile (costfrontier tco ... --save); repeat for several; "
                        "two profiles of one hardware are shown side by side")
    q.add_argument("--interactivity", "--x", dest="x", type=float, metavar="TOK_S_USER",
                   help="the interactivity you need [tok/s/user]: the answer, the break-even and fleet sizing use it "
                        "(default: the middle target)")
    q.add_argument("--link", metavar="URL", help="a share link: its view replaces the selection and view options")


def fleet_args(q: argparse.ArgumentParser) -> None:
    """A demand (req/s or tokens/day) or a budget to size a fleet for."""
    need = q.add_argument_group("fleet: a demand or a budget")
    need.add_argument("--demand-rps", type=float, help="peak demand [req/s]")
    need.add_argument("--tokens-per-day", type=float, help="average demand [tokens/day]")
    need.add_argument("--peak-to-average", type=float, help="peak ÷ average load, with --tokens-per-day (default 1)")
    need.add_argument("--headroom", type=float, help="capacity ÷ peak demand (default 1.0)")
    need.add_argument("--spares", type=int, help="whole spare nodes (N+1 = 1)")
    need.add_argument("--budget-mw", type=float, help="facility power budget [MW]")
    need.add_argument("--budget-usd-month", type=float, help="money budget [$/month]")


def pairs(items: list[str], what: str) -> list[tuple[str, str]]:
    out = []
    for item in items:
        if "=" not in item:
            raise UsageError(f"{what} expects KEY=VALUE, got {item!r}")
        key, value = item.split("=", 1)
        out.append((key.strip(), value.strip()))
    return out


def field_of(key: str, option: str, choices: tuple[str, ...] | None = None) -> str:
    """The field a name means, with the same aliases as file headers (``spec_decode`` -> ``spec_decoding``)."""
    from model.core.columns import resolve_column

    resolved = resolve_column(key)
    if not isinstance(resolved, tuple) or (choices and resolved[0] not in choices):
        known = f"; choose from {', '.join(choices)}" if choices else " (see model/core/columns.py for the names)"
        raise UsageError(f"{option}: unknown field {key!r}{known}")
    return resolved[0]


def one_line(exc: ValidationError) -> str:
    """A pydantic error as one line: ``--by: value error, ...`` rather than the dump with a URL."""
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first.get("loc", ()) if not isinstance(part, int))
    option = f"--{where.replace('_', '-')}: " if where else ""
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"{option}{first.get('msg', 'invalid value').removeprefix('Value error, ')}{more}"


def view_of_link(url: str):
    """(ViewState, notices) of a share link's query string, read as the dashboard reads it."""
    from model.core.viewstate import parse_query

    return parse_query(parse_qs(urlsplit(url).query, keep_blank_values=True))


def _stored_profiles(con, names: list[str]) -> list:
    from model.data.profiles import load_profiles

    stored = {p.name: p for p in load_profiles(con)}
    for name in names:
        if name not in stored:
            raise UsageError(f"no stored cost profile {name!r}; known: {', '.join(sorted(stored)) or 'none'} "
                             "(save one with costfrontier tco ... --name NAME --save)")
    return [stored[n] for n in dict.fromkeys(names)]


#: options that change a link's view (option dest -> ViewState field); the others cannot be merged into it
_OVER_A_LINK = {"x": "headline_x", "basis": "basis", "method": "method", "baseline": "baseline",
                "disagg": "disagg", "w_input": "w_input", "w_cached": "w_cached", "demand_rps": "demand_rps",
                "tokens_per_day": "tokens_per_day", "peak_to_average": "peak_to_average", "headroom": "headroom",
                "spares": "spares", "budget_mw": "budget_mw", "budget_usd_month": "budget_usd_month",
                "repeats": "repeats", "as_of": "as_of",
                "tokens_per_month": "tokens_per_month", "api": "api", "cache_hit": "cache_hit", "lens": "lens",
                "min_nodes": "min_nodes", "stale_days": "stale_days"}


def _on_top_of_link(args) -> tuple[dict, list[str]]:
    """The view changes options given beside ``--link`` make (``--at 50``, ``--x 55``, a demand...), and the
    options that cannot change a link's view (the selection: ``--where``, ``--by``, ``--rate``, price set)."""
    from model.core.analysis import Scenario

    changes: dict[str, object] = {}
    defaults = {"basis": "total", "method": "linear", "disagg": "per-role"}
    for dest, field in _OVER_A_LINK.items():
        value = getattr(args, dest, None)
        if value is not None and value != defaults.get(dest):
            changes[field] = value
    if getattr(args, "at", ""):
        try:
            changes["targets"] = tuple(float(x) for x in args.at.split(",") if x.strip())
        except ValueError:
            raise UsageError(f"--at expects numbers separated by commas, got {args.at!r}") from None
    if getattr(args, "sla", None):
        changes["sla"] = ",".join(args.sla)
    changes.update(_volume_fields(args))
    ignored = [option for option, given in (
        ("--where", getattr(args, "where", [])), ("--rate", getattr(args, "rate", [])),
        ("--by", getattr(args, "by", None) not in (None, ",".join(DEFAULT_SERIES_KEYS))),
        ("--price-set", getattr(args, "price_set", None) not in (None, Scenario().price_set)),
        ("--tier", getattr(args, "tier", None) not in (None, Scenario().tier)),
        ("--mix-workloads", getattr(args, "mix_workloads", False))) if given]
    return changes, ignored


def volume_args(q: argparse.ArgumentParser, with_fleet: bool = True) -> None:
    """Buy, rent or call an API: the monthly volume and the ways to serve it (``costfrontier volume``; ``report``
    has the fleet options already: ``with_fleet=False``)."""
    g = q.add_argument_group("volume: buy, rent or call an API")
    g.add_argument("--tokens-per-month", type=float, metavar="N",
                   help="average volume [tokens a month on the capacity's basis, total by default; 730 h]")
    if with_fleet:
        g.add_argument("--peak-to-average", type=float, help="peak ÷ average load: whole nodes are bought for the peak")
        g.add_argument("--headroom", type=float, help="capacity ÷ peak demand (default 1.0)")
        g.add_argument("--spares", type=int, help="whole spare nodes owned or reserved (N+1 = 1)")
    api = g.add_mutually_exclusive_group()
    api.add_argument("--api", metavar="MODEL", help="the hosted API model to compare with (default: matched by name)")
    api.add_argument("--api-usd", metavar="IN,CACHED,OUT", help="custom API prices [$/M input, cached input, output]")
    g.add_argument("--cache-hit", type=float, metavar="FRACTION",
                   help="prefix-cache hit rate for the API's bill (default: the rows', else 0)")
    g.add_argument("--rent", action="append", default=[], metavar="HW=USD", help="rented $/GPU-hour (repeat per GPU)")
    g.add_argument("--on-demand", action="store_true", help="rented nodes on demand, paid per node-hour carrying load "
                                                             "(default: reserved, every hour)")
    g.add_argument("--min-nodes", type=int, help="on demand: nodes kept up (default 1)")
    g.add_argument("--lens", choices=("full", "marginal"),
                   help="full cost (default), or marginal: owned capacity counts power and operations only")
    g.add_argument("--stale-days", type=int, help="an API price read longer ago may be stale (default 180)")


def _volume_fields(args) -> dict:
    """ViewState fields from the options that take parsing (``--rent``, ``--api-usd``, ``--on-demand``)."""
    from model.core.hardware import canonical_hardware

    out: dict[str, object] = {}
    rent = []
    for hw, value in pairs(getattr(args, "rent", None) or [], "--rent"):
        try:
            rent.append((canonical_hardware(hw), float(value)))
        except ValueError:
            raise UsageError(f"--rent {hw}={value}: not a number of $/GPU-hour") from None
    if rent:
        out["rent"] = tuple(rent)
    if getattr(args, "api_usd", None):
        try:
            out["api_usd"] = tuple(float(x) for x in args.api_usd.split(","))
        except ValueError:
            raise UsageError(f"--api-usd expects three numbers IN,CACHED,OUT [$/M], got {args.api_usd!r}") from None
        if len(out["api_usd"]) != 3:
            raise UsageError(f"--api-usd expects three numbers IN,CACHED,OUT [$/M], got {args.api_usd!r}")
    if getattr(args, "on_demand", False):
        out["on_demand"] = True
    return out


def view_from_args(args: argparse.Namespace, con) -> tuple[object, list[str]]:
    """The view the options describe (or ``--link``'s), and notices (link values ignored).

    Raises :class:`UsageError` for an option that cannot be used (an unknown profile name, a bad number).
    """
    from pydantic import ValidationError

    from model.core.analysis import Scenario
    from model.core.cost_profiles import profiles_from_text, profiles_to_text
    from model.core.frontier import SERIES_KEY_CHOICES
    from model.core.hardware import canonical_hardware
    from model.core.viewstate import ViewState

    link = getattr(args, "link", None)
    if link:
        state, notices = view_of_link(link)
        changes, ignored = _on_top_of_link(args)
        notices += [f"--link gives the view: {option} is ignored (set it in the link, or leave --link out)"
                    for option in ignored]
        if getattr(args, "profile", None):
            chosen = _stored_profiles(con, args.profile)
            mine = [p for p in profiles_from_text(state.profiles) if p.name not in {c.name for c in chosen}]
            changes.update(profiles=profiles_to_text([*mine, *chosen]),
                           priced_by=tuple(dict.fromkeys([*state.priced_by, *(p.name for p in chosen)])))
        try:
            return (state.replace(**changes) if changes else state), notices
        except ValidationError as exc:
            raise UsageError(one_line(exc)) from None
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    fields: dict[str, object] = {}
    where: dict[str, list[str]] = {}
    for key, value in pairs(args.where, "--where"):
        field = field_of(key, "--where")
        where.setdefault(field, []).append(canonical_hardware(value) if field == "hardware" else value)
    for field in _OWN_FIELDS:
        if field in where:
            fields[field] = tuple(where.pop(field))
    if all(len(where.get(k, [])) == 1 for k in _WORKLOAD):
        fields["workload"] = "|".join(where.pop(k)[0] for k in _WORKLOAD)
    else:
        fields["workload"] = "all"
    fields["filters"] = tuple((k, v) for k, values in where.items() for v in values)
    fields["by"] = tuple(field_of(k.strip(), "--by", SERIES_KEY_CHOICES) for k in args.by.split(",") if k.strip())
    rates = []
    for hw, value in pairs(args.rate, "--rate"):
        try:
            rates.append((canonical_hardware(hw), float(value)))
        except ValueError:
            raise UsageError(f"--rate {hw}={value}: not a number") from None
    try:
        targets = tuple(float(x) for x in args.at.split(",") if x.strip())
    except ValueError:
        raise UsageError(f"--at expects numbers separated by commas, got {args.at!r}") from None
    fields.update(rates=tuple(rates), targets=targets, price_set=args.price_set, tier=args.tier,
                  basis=args.basis if args.basis in BASES else "total", method=args.method, baseline=args.baseline,
                  sla=",".join(args.sla), mix_workloads=bool(args.mix_workloads), headline_x=args.x,
                  disagg=getattr(args, "disagg", None) or "per-role")
    for name in ("repeats", "as_of"):
        if getattr(args, name, None) is not None:
            fields[name] = getattr(args, name)
    if getattr(args, "history_section", False):
        fields["history"] = True
    for name in ("w_input", "w_cached"):
        if getattr(args, name, None) is not None:
            fields[name] = getattr(args, name)
    for name in ("demand_rps", "tokens_per_day", "peak_to_average", "headroom", "spares", "budget_mw",
                 "budget_usd_month"):
        if getattr(args, name, None) is not None:
            fields[name] = getattr(args, name)
    fields.update(_volume_fields(args))
    for name in ("tokens_per_month", "api", "cache_hit", "lens", "min_nodes", "stale_days"):
        if getattr(args, name, None) is not None:
            fields[name] = getattr(args, name)
    if args.profile:
        chosen = _stored_profiles(con, args.profile)
        fields.update(profiles=profiles_to_text(chosen), priced_by=tuple(p.name for p in chosen))
    try:
        Scenario(**{k: v for k, v in fields.items() if k in Scenario.model_fields})   # names the option at fault
        state = ViewState(**fields)
    except ValidationError as exc:
        raise UsageError(one_line(exc)) from None
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return state, []


def clean(value):
    import pandas as pd

    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is pd.NA or value is pd.NaT:
        return None
    if hasattr(value, "item"):
        return clean(value.item())
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def records(frame: pd.DataFrame) -> list[dict]:
    return [{k: clean(v) for k, v in row.items()} for row in frame.to_dict("records")]


def jsonable(value):
    """Nested dicts/lists with NaN and infinities as null (strict JSON), numpy scalars as Python numbers."""
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return clean(value)
