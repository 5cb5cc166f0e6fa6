"""What the options say: the view they describe (or ``--link``'s), and that view's answer.

Every option is declared with the view field it fills (:data:`model.core.view_fields.FIELDS`); the parser is
generated from those declarations (:mod:`model.cli.parsers`), and :func:`view_from_args` reads them back into a
:class:`~model.core.view.View`, merging ``--link``. ``frontier``, ``iso``, ``crossover``, ``size``, ``report`` and
every other view command take the same selection, view and fleet options with the same meaning; the view then
goes to :func:`model.present.view_answer.answer_of_view` (:func:`answer_of_args`), whose answer the commands only
print.
"""

from __future__ import annotations

import argparse
from urllib.parse import parse_qs, urlsplit

from pydantic import ValidationError

from model.cli.running import UsageError, one_line
from model.core.columns import resolve_column
from model.core.cost import resolve_rates
from model.core.cost_profiles import profiles_from_text, profiles_to_text
from model.core.notes import Note
from model.core.plausible import rate_notes
from model.core.value_checks import CHECKS
from model.core.view import View
from model.core.view_checks import Uses
from model.core.view_codecs import hardware_name
from model.core.view_fields import BY_NAME, FIELDS, FILTER_FIELDS, PROFILE, WHERE, Option
from model.data.memo import disk_memo
from model.data.presets import load_presets
from model.data.profiles import load_profiles
from model.data.store import stored_rates
from model.data.trace_files import read_shape_option, read_tenants_option, read_trace_option
from model.data.versions import pin_notes
from model.present.view_answer import answer_of_view

__all__ = ["view_from_args", "view_of_link", "answer_of_args", "answer_of", "link_notes", "pinned_notes", "kept",
           "pairs", "field_of"]

_WORKLOAD = ("model", "isl", "osl")


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
    resolved = resolve_column(key)
    if not isinstance(resolved, tuple) or (choices and resolved[0] not in choices):
        known = f"; choose from {', '.join(choices)}" if choices else " (the manual's \"Data formats\" page lists the names)"
        raise UsageError(f"{option}: unknown field {key!r}{known}")
    return resolved[0]


def view_of_link(url: str) -> tuple[View, list[str]]:
    """(View, notices) of a share link's query string, read as the dashboard reads it."""
    return View.from_query(parse_qs(urlsplit(url).query, keep_blank_values=True))


def _stored_profiles(con, names: list[str], version: int | None = None) -> list:
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


def view_from_args(args: argparse.Namespace, con) -> tuple[View, list[str]]:
    """The view the options describe (or ``--link``'s, changed by the options given beside it that do not
    choose rows), and notices (link values ignored, options a link's view keeps).

    Raises :class:`UsageError` for an option that cannot be used (an unknown profile name, a bad number).
    """
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


# ------------------------------------------------------------------------------------------ the answer

def answer_of_args(args, con, parts=None):
    """The answer of the view the options (or ``--link``) describe: :func:`answer_of` of :func:`view_from_args`."""
    state, notices = view_from_args(args, con)
    return answer_of(args, con, state, notices, parts)


def answer_of(args, con, state: View, notices: list[str], parts=None):
    """The answer of ``state``, with its link ``notices``, what its pinned data version must say and unusual rates
    among its notes; ``parts`` are what the command prints (None: every part). Raises
    :class:`model.data.versions.OtherData` for a pin this store cannot show."""
    return answer_of_view(con, state, parts, notes=[*link_notes(notices), *pinned_notes(con, state),
                                                    *_unusual_rates(state, con)], memo=kept(args))


def kept(args):
    """What this command keeps of the store's data version between runs (:func:`model.data.memo.disk_memo`), or
    None (no store path, caching off)."""
    store = getattr(args, "store", None)
    return disk_memo(store) if store is not None else None


def pinned_notes(con, state: View) -> list[Note]:
    """What a view pinned to a data version must say beside its numbers (:func:`model.data.versions.pin_notes`:
    rows purged since), as the answer's notes; raises for a pin this store cannot show."""
    return [Note("data", n) for n in pin_notes(con, state.data_version, state.data_digest)]


def link_notes(notices: list[str]) -> list[Note]:
    """The notices of reading ``--link`` (values ignored, options a link's view keeps), as the answer's notes."""
    return [Note("link", f"link: {n}") for n in notices]


def _unusual_rates(state: View, con) -> list[Note]:
    """A note per rate set by hand more than 5× or less than 1/5 of its preset in the view's data version
    (:func:`model.core.plausible.rate_notes`)."""
    if not state.rates:
        return []
    presets = resolve_rates([hw for hw, _ in state.rates], load_presets(stored_rates(con, state.data_version)),
                            state.price_set, state.tier)
    return [Note("rate", n) for n in rate_notes(state.rates, presets)]
