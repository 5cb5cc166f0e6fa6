"""The options every view command shares, and the one way they fill a :class:`~model.core.view.View`.

Every option is declared with the view field it fills (:data:`model.core.view_fields.FIELDS`); the parsers,
``--link`` merging and the reading of the options below are derived from those declarations.

``frontier``, ``iso``, ``crossover``, ``size`` and ``report`` take the same selection, view and fleet
options with the same meaning; ``--link URL`` is one more way to fill the view (a share link,
read as the dashboard reads it). The view then goes to :func:`model.present.view_answer.answer_of_view`,
whose answer the commands only print.

Building the options imports nothing heavy (the declarations are plain dataclasses): pandas, pydantic
and the model load only when a command reads its options, so ``--help`` and usage errors start at once.
"""

from __future__ import annotations

import argparse
import math
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

from model.core.view_checks import Uses
from model.core.view_fields import BY_NAME, FIELDS, FILTER_FIELDS, PROFILE, WHERE, Option, options_of

if TYPE_CHECKING:
    import pandas as pd
    from pydantic import ValidationError

__all__ = ["UsageError", "add_options", "selection_args", "view_args", "fleet_args", "volume_args", "report_args",
           "view_from_args", "view_of_link", "pairs", "field_of", "one_line", "records", "clean", "jsonable"]

_WORKLOAD = ("model", "isl", "osl")


class UsageError(Exception):
    """A command line that cannot be run: printed as one ``error:`` line, exit 2."""


def add_options(q, group: str) -> None:
    """Add the options of ``group`` (:class:`model.core.view_fields.Option`) to a parser or argument group."""
    exclusive: dict[str, object] = {}
    for opt in options_of(group):
        kwargs: dict[str, object] = {"dest": opt.name, "help": opt.help or None}
        if opt.kind == "flag":
            kwargs["action"] = "store_true"
        else:
            kwargs.update(action="append", default=[]) if opt.kind == "append" else kwargs.update(default=opt.default)
            kwargs.update({k: getattr(opt, k) for k in ("metavar", "type", "choices") if getattr(opt, k) is not None})
        if opt.exclusive and opt.exclusive not in exclusive:
            exclusive[opt.exclusive] = q.add_mutually_exclusive_group()
        (exclusive[opt.exclusive] if opt.exclusive else q).add_argument(*opt.flags, **kwargs)


def selection_args(q: argparse.ArgumentParser) -> None:
    """Which rows, grouped how, priced at which rates, and which repeat runs up to which run date."""
    add_options(q, "selection")
    add_options(q, "runs")


def view_args(q: argparse.ArgumentParser) -> None:
    """Basis, SLA, method, targets, baseline, cost profiles, the interactivity you need and ``--link``."""
    add_options(q, "view")


def fleet_args(q: argparse.ArgumentParser) -> None:
    """A demand (req/s or tokens/day) or a budget to size a fleet for, and how a fleet is sized (the knee rule,
    GPUs per node, kW per GPU, PUE, rack kW, what a typed volume counts)."""
    need = q.add_argument_group("fleet: a demand or a budget, and how it is sized")
    add_options(need, "fleet")
    add_options(need, "sizing")
    add_options(need, "ramp")


def volume_args(q: argparse.ArgumentParser, with_fleet: bool = True) -> None:
    """Buy, rent or call an API: the monthly volume and the ways to serve it (``costfrontier volume``; ``report``
    has the fleet options already: ``with_fleet=False``)."""
    g = q.add_argument_group("volume: buy, rent or call an API")
    add_options(g, "volume")
    if with_fleet:
        add_options(g, "sizing")


def report_args(q: argparse.ArgumentParser) -> None:
    """What only a report adds to the view (its history section)."""
    add_options(q, "report")


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
        known = f"; choose from {', '.join(choices)}" if choices else " (the manual's \"Data formats\" page lists the names)"
        raise UsageError(f"{option}: unknown field {key!r}{known}")
    return resolved[0]


def one_line(exc: ValidationError, flags: dict[str, str] | None = None) -> str:
    """A pydantic error as one line: ``--by: value error, ...`` rather than the dump with a URL. ``flags``
    names the option of a field (``{"targets": "--at"}``); else the field's name is the option's."""
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first.get("loc", ()) if not isinstance(part, int))
    option = (flags or {}).get(where) or f"--{where.replace('_', '-')}"
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"{option + ': ' if where else ''}{first.get('msg', 'invalid value').removeprefix('Value error, ')}{more}"


def view_of_link(url: str):
    """(View, notices) of a share link's query string, read as the dashboard reads it."""
    from model.core.view import View

    return View.from_query(parse_qs(urlsplit(url).query, keep_blank_values=True))


def _stored_profiles(con, names: list[str], version: int | None = None) -> list:
    from model.data.profiles import load_profiles

    stored = {p.name: p for p in load_profiles(con, version)}   # as data version ``version`` held them
    for name in names:
        if name not in stored:
            raise UsageError(f"no stored cost profile {name!r}; known: {', '.join(sorted(stored)) or 'none'} "
                             "(save one with costfrontier tco ... --name NAME --save)")
    return [stored[n] for n in dict.fromkeys(names)]


def _given(args, opt: Option) -> bool:
    return getattr(args, opt.name, opt.unset) != opt.unset


def _options_given(args) -> tuple[dict, list[str]]:
    """The fields the options given set (``--where`` and ``--profile`` aside), and the given options that
    choose rows (group ``selection``), which a share link's view keeps."""
    from model.core.value_checks import CHECKS
    from model.data.trace_files import read_shape_option, read_tenants_option, read_trace_option

    files = {"trace": read_trace_option, "shape": read_shape_option, "tenants": read_tenants_option}
    fields: dict[str, object] = {}
    selection: list[str] = []
    for field in FIELDS:
        opt = field.option
        if opt is None or opt is PROFILE or not _given(args, opt):
            continue
        if opt.group == "selection":
            selection.append(opt.flags[0])
        if opt is WHERE:
            continue
        value = getattr(args, opt.name)
        try:
            read = files[opt.file] if opt.file else CHECKS[opt.read.name] if isinstance(opt.read, Uses) else opt.read
            fields[field.name] = read(value) if read else value
        except ValueError as exc:
            raise UsageError(f"{opt.flags[0]}: {exc}") from None
    return fields, list(dict.fromkeys(selection))


def _where(items: list[str]) -> dict:
    """The view's row fields from ``--where KEY=VALUE`` items: workload (``all`` unless model, ISL and OSL are
    each given once), hardware, framework, precision, speculative decoding, and the other filters."""
    from model.core.view_codecs import hardware_name

    where: dict[str, list[str]] = {}
    for key, value in pairs(items, "--where"):
        field = field_of(key, "--where")
        try:
            where.setdefault(field, []).append(hardware_name(value) if field == "hardware" else value)
        except ValueError as exc:
            raise UsageError(f"--where: {exc}") from None
    fields: dict[str, object] = {name: tuple(where.pop(name)) for name in FILTER_FIELDS if name in where}
    fields["workload"] = "|".join(where.pop(k)[0] for k in _WORKLOAD) \
        if all(len(where.get(k, [])) == 1 for k in _WORKLOAD) else "all"
    fields["filters"] = tuple((k, v) for k, values in where.items() for v in values)
    return fields


def view_from_args(args: argparse.Namespace, con) -> tuple[object, list[str]]:
    """The view the options describe (or ``--link``'s, changed by the options given beside it that do not
    choose rows), and notices (link values ignored, options a link's view keeps).

    Raises :class:`UsageError` for an option that cannot be used (an unknown profile name, a bad number).
    """
    from pydantic import ValidationError

    from model.core.cost_profiles import profiles_from_text, profiles_to_text
    from model.core.view import View

    fields, selection = _options_given(args)
    notices: list[str] = []
    if getattr(args, "link", None):
        base, notices = view_of_link(args.link)
        notices += [f"--link gives the view: {option} is ignored (set it in the link, or leave --link out)"
                    for option in selection]
        fields = {name: value for name, value in fields.items() if BY_NAME[name].option.group != "selection"}
        mine = profiles_from_text(base.profiles)
        priced_by = base.priced_by
    else:
        base = View()
        fields.update(_where(getattr(args, "where", [])))
        mine, priced_by = [], ()
    if getattr(args, "profile", None):
        chosen = _stored_profiles(con, args.profile, fields.get("data_version", base.data_version))
        mine = [p for p in mine if p.name not in {c.name for c in chosen}]
        fields.update(profiles=profiles_to_text([*mine, *chosen]),
                      priced_by=tuple(dict.fromkeys([*priced_by, *(p.name for p in chosen)])))
    try:
        return base.replace(**fields), notices
    except ValidationError as exc:
        raise UsageError(one_line(exc, {f.name: f.option.flags[0] for f in FIELDS if f.option})) from None
    except ValueError as exc:
        raise UsageError(str(exc)) from None


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
