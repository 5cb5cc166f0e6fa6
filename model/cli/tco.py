"""``costfrontier tco`` and ``costfrontier size``: on-prem $/GPU-hour and fleet sizing from the shell.

    costfrontier tco --hardware H200 --server-usd 300000 --gpus-per-node 8 --network-pct 15 --install-usd 0
                     --years 5 --rate-pct 10 --kw-per-gpu 1.37 --pue 1.3 --usd-per-kwh 0.08
                     --colo-usd-per-kw-month 184 --maintenance-pct 3 --utilization 0.7
                     [--name "H200 on-prem 5y" --save] [--vs-rate USD] [--json]
                     [--opencost-pricing FILE [--purchase-date YYYY-MM-DD] [--opencost-node LABEL=VALUE]
                      [--opencost-gpu LABEL=VALUE]]   (the paid $/GPU-hour as OpenCost's CSV pricing)
    costfrontier tco --hardware H200 --usd-per-gpu-hour 2.9 --name "H200 cloud" --save   (a plain-rate profile)
    costfrontier tco --list [--json]
    costfrontier size --demand-rps R | --tokens-per-day T [--peak-to-average F] | --budget-mw M | --budget-usd-month B
                      [--headroom 1.0] [--spares 0] [the view options of iso: --sla, --where, --by, --rate,
                      --profile NAME ..., --interactivity X, --link URL] [--rack-kw KW] [--json]

``size`` prints the fleet of the view's answer (:attr:`model.present.parts.Answer.fleet`): the same
view options mean what they mean for ``iso`` and ``report``.

Inputs left out of ``tco`` start from the cited reference values (``data/samples/tco_reference_values.csv``)
and the preset's all-in kW per GPU; the output names each default and its source.
"""

from __future__ import annotations

import argparse
import json
import math
import sys

from model.cli.options import (
    UsageError,
    add_options,
    fleet_args,
    jsonable,
    records,
    selection_args,
    view_args,
)
from model.core.onprem_labels import ONPREM_COUNTS, ONPREM_LABELS
from model.core.view_fields import BY_NAME

__all__ = ["add_parsers", "run", "number_type"]

#: the build-up options: each input of :class:`model.core.tco.OnPremInputs` but the colocation switch, as
#: ``--name-with-dashes`` with its one label (ONPREM_LABELS) for help, and the default it takes
_ONPREM_DEFAULTS = {
    "gpus_per_node": "default 8", "network_usd": "instead of --network-pct", "years": "default 5",
    "rate_pct": "0 = straight-line; default 0", "kw_per_gpu": "default: the preset's",
    "pue": "default 1.56, Uptime Institute 2024", "usd_per_kwh": "default 0.0806, EIA US industrial 2023",
    "colo_usd_per_kw_month": "default 184.06, CBRE H2 2024", "rack_usd_per_month": "instead of colocation",
    "nodes_per_rack": "with --rack-usd-per-month", "utilization": "a fraction, 0..1; default 1",
}


def _number(whole: bool = False):
    """An argparse type reading a number by the one rule (:func:`model.core.names.number`: 1,5 is 1.5,
    1,000,000 a million); a refusal quotes what was typed."""
    def read(text: str):
        from model.core.names import number

        try:
            value = number(text, "a whole number" if whole else "a number")
            if whole and not value.is_integer():
                raise ValueError("not a whole number")
        except ValueError as exc:
            said = str(exc)
            raise argparse.ArgumentTypeError(said if repr(text) in said else f"{text!r}: {said}") from None
        return int(value) if whole else value
    read.__name__ = "whole number" if whole else "number"
    return read


#: the argparse type of a number typed as people type it (:func:`_number`)
number_type = _number


_ONPREM_OPTIONS = tuple(
    ("--" + name.replace("_", "-"), name, _number(whole=name in ONPREM_COUNTS),
     (label + (f" ({_ONPREM_DEFAULTS[name]})" if name in _ONPREM_DEFAULTS else "")).replace("%", "%%"))
    for name, label in ONPREM_LABELS.items() if name != "colo_includes_power")


def add_parsers(sub) -> None:
    """Register ``tco`` and ``size`` on the ``costfrontier`` sub-command parser."""
    tco = sub.add_parser("tco", help="on-prem $/GPU-hour from a server quote and a power bill (cost profiles)")
    tco.add_argument("--hardware", help="GPU, e.g. H200")
    for option, dest, kind, text in _ONPREM_OPTIONS:
        tco.add_argument(option, dest=dest, type=kind, help=text)
    tco.add_argument("--colo-includes-power", action="store_true", help=ONPREM_LABELS["colo_includes_power"])
    tco.add_argument("--usd-per-gpu-hour", type=_number(), help="a plain rate instead of a build-up (a cloud quote)")
    tco.add_argument("--name", help="profile name (default '<hardware> on-prem <years>y')")
    tco.add_argument("--source", default="", help="where the numbers come from (kept with a saved profile)")
    tco.add_argument("--save", action="store_true", help="store the profile in the database (replaces one of that name)")
    tco.add_argument("--vs-rate", type=_number(), metavar="USD",
                     help="a cloud $/GPU-hour: print the break-even server price and electricity price")
    tco.add_argument("--price-set", help="price set whose all-in kW per GPU is the default (default: newest)")
    stale = BY_NAME["price_stale_days"].option          # the view's declaration (model.core.view_fields)
    tco.add_argument(*stale.flags, dest=stale.name, metavar=stale.metavar, help=stale.help)
    tco.add_argument("--list", action="store_true", help="list the stored cost profiles")
    tco.add_argument("--opencost-pricing", metavar="FILE",
                     help="also write the profile's paid $/GPU-hour as OpenCost's custom CSV pricing (CSV_PATH), with "
                          "the purchase date and the depreciation schedule")
    tco.add_argument("--purchase-date", metavar="YYYY-MM-DD", help="when the hardware was bought (default: today)")
    tco.add_argument("--opencost-node", metavar="LABEL=VALUE",
                     help="the node label that marks these nodes (default node.kubernetes.io/instance-type=<gpu>)")
    tco.add_argument("--opencost-gpu", metavar="LABEL=VALUE",
                     help="the node label naming their GPU class (default nvidia.com/gpu_type=<GPU>)")
    tco.add_argument("--json", action="store_true")

    size = sub.add_parser("size", help="fleet for a demand, or capacity for a power or money budget")
    selection_args(size)
    view_args(size)
    fleet_args(size)
    add_options(size, "chargeback")      # the planned fleet's cost by tenant (issue 52)
    size.add_argument("--json", action="store_true")


def run(args, con) -> int | None:
    """Run ``tco`` or ``size``; ``None`` when ``args.command`` is another command."""
    if args.command == "tco":
        return _tco(args, con)
    if args.command == "size":
        return _size(args, con)
    return None


def _print_json(payload) -> None:
    print(json.dumps(jsonable(payload), indent=2, allow_nan=False))


def _tco(args, con) -> int:
    from datetime import date

    import pandas as pd

    from model.core.cost_profiles import CostProfile
    from model.core.dated import old_words
    from model.core.hardware import canonical_hardware
    from model.core.tco import onprem_inputs
    from model.data.presets import load_presets, onprem_default_dates, onprem_defaults
    from model.data.profiles import profiles_table
    from model.data.store import stored_rates

    if args.list:
        table = profiles_table(con)
        if args.json:
            _print_json({"command": "tco", "rows": records(table)})
        elif table.empty:
            print("no stored cost profiles (costfrontier tco ... --name NAME --save)")
        else:
            with pd.option_context("display.width", 200, "display.max_colwidth", 60):
                print(table.to_string(index=False))
        return 0
    if not args.hardware:
        raise UsageError("tco needs --hardware (e.g. --hardware H200), or --list")
    hardware = canonical_hardware(args.hardware)
    given = {dest: getattr(args, dest) for _, dest, _, _ in _ONPREM_OPTIONS if getattr(args, dest) is not None}
    if args.colo_includes_power:
        given["colo_includes_power"] = True
    if args.usd_per_gpu_hour is not None:
        if given:
            raise UsageError("give --usd-per-gpu-hour (a plain rate) or build-up options, not both")
        profile = CostProfile(name=args.name or f"{hardware} {args.usd_per_gpu_hour:g}/h", hardware=hardware,
                              usd_per_gpu_hour=args.usd_per_gpu_hour, source=args.source)
        return _finish_tco(args, con, profile, {}, None)
    presets = load_presets(stored_rates(con))
    defaults = onprem_defaults(hardware, presets, args.price_set)
    dates = onprem_default_dates(hardware, presets, args.price_set)
    stale = BY_NAME["price_stale_days"]
    try:
        stale_days = stale.default if args.price_stale_days is None else stale.check(stale.option.read(
            args.price_stale_days))
    except ValueError as exc:
        raise UsageError(f"--price-stale-days: {exc}") from None
    used: dict[str, dict[str, object]] = {}
    for name, (value, source) in defaults.items():
        if name in given or value is None:
            continue
        if name == "colo_usd_per_kw_month" and "rack_usd_per_month" in given:
            continue
        given[name] = value
        read_on = dates.get(name)
        used[name] = {"value": value, "source": source, "read_on": read_on.isoformat() if read_on else None,
                      "old": old_words(f"default {name}", read_on, date.today(), stale_days)}
    if "kw_per_gpu" not in given:
        raise UsageError(f"no all-in kW per GPU for {hardware} in the presets: give --kw-per-gpu")
    inputs = onprem_inputs(**given)
    name = args.name or f"{hardware} on-prem {inputs.years:g}y"
    profile = CostProfile(name=name, hardware=hardware, onprem=inputs, source=args.source)
    return _finish_tco(args, con, profile, used, inputs)


def _finish_tco(args, con, profile, used: dict, inputs) -> int:
    import pandas as pd

    from model.core.sensitivity import break_even
    from model.data.profiles import save_profiles
    from model.present import fmt

    row: dict[str, object] = {"name": profile.name, "hardware": profile.hardware, "kind": profile.kind}
    breakdown = profile.breakdown()
    if breakdown is not None:
        row.update(breakdown.to_dict())
    else:
        row.update(usd_per_gpu_hour=profile.usd_per_gpu_hour, notes=[])
    comparison = None
    if args.vs_rate is not None and inputs is not None:
        comparison = {k: break_even(inputs, args.vs_rate, k) for k in ("server_usd", "usd_per_kwh")}
        row["break_even"] = {k: {"value": v.value, "note": v.note} for k, v in comparison.items()}
        row["vs_usd_per_gpu_hour"] = args.vs_rate
    row["inputs"] = inputs.model_dump() if inputs is not None else {}
    row["defaults"] = used
    if args.opencost_pricing:
        row["opencost_pricing"] = _opencost_pricing(args, profile)
    if args.save:
        save_profiles(con, [profile], saved_by="cli")
    row["saved"] = bool(args.save)
    if args.json:
        _print_json({"command": "tco", "rows": [row]})
        return 0
    for name, info in used.items():
        print(f"default {name} = {info['value']:g}: {info['source']}"
              + (f" (read on {info['read_on']})" if info.get("read_on") else ""))
    for info in used.values():
        if info.get("old"):
            print(f"note: {info['old']}")
    if breakdown is not None:
        with pd.option_context("display.width", 200, "display.float_format", "{:,.5g}".format):
            print(breakdown.table().to_string(index=False))
        for note in breakdown.notes:
            print(f"note: {note}")
    rate = profile.rate()
    print(f"{profile.name}: " + (fmt.usd(rate, "/GPU-hour") if rate is not None else "unpriced"))
    for key, result in (comparison or {}).items():
        unit = "$ per node" if key == "server_usd" else "$/kWh"
        print(f"break-even {key} vs ${args.vs_rate:g}/GPU-hour: "
              + (f"{result.value:,.4g} {unit}" if math.isfinite(result.value) else result.note))
    if args.save:
        print(f"saved cost profile {profile.name!r}")
    if args.opencost_pricing:
        info = row["opencost_pricing"]
        print(f"wrote {info['file']}: OpenCost CSV pricing at ${info['usd_per_gpu_hour']:.6f}/GPU-hour paid, bought "
              f"{info['purchase_date']}" + (f", depreciated to {info['end_date']}" if info["end_date"] else ""))
    return 0


def _label(text: str | None, option: str) -> tuple[str, str] | None:
    if text is None:
        return None
    key, _, value = text.partition("=")
    if not key.strip() or not value.strip():
        raise UsageError(f"{option} expects LABEL=VALUE, got {text!r}")
    return key.strip(), value.strip()


def _opencost_pricing(args, profile) -> dict:
    """Write ``--opencost-pricing FILE`` (:func:`model.core.opencost_pricing.price_file`); what ``--json`` says of it."""
    from datetime import date
    from pathlib import Path

    from model.core.opencost_pricing import price_file, years_after
    from model.core.tco import TcoInputError

    try:
        purchased = date.fromisoformat(args.purchase_date) if args.purchase_date else date.today()
    except ValueError:
        raise UsageError(f"--purchase-date: not a date YYYY-MM-DD: {args.purchase_date!r}") from None
    try:
        text = price_file(profile, purchased, _label(args.opencost_node, "--opencost-node"),
                          _label(args.opencost_gpu, "--opencost-gpu"))
    except TcoInputError as exc:
        raise UsageError(f"--opencost-pricing: {exc}") from None
    try:
        Path(args.opencost_pricing).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--opencost-pricing: cannot write {args.opencost_pricing}: {exc.strerror or exc}") from None
    years = profile.onprem.years if profile.onprem is not None else None
    return {"file": str(args.opencost_pricing), "usd_per_gpu_hour": profile.paid_rate(),
            "purchase_date": purchased.isoformat(), "purchase_date_from": "given" if args.purchase_date else "today",
            "end_date": years_after(purchased, years).isoformat() if years else None}


def _size(args, con) -> int:
    import pandas as pd

    from model.cli.query import answer_of_args
    from model.core.links import view_url
    from model.core.notes import for_every_answer, link_notices

    wants_demand = args.demand_rps is not None or args.tokens_per_day is not None or \
        args.tokens_per_month is not None or args.trace is not None
    wants_budget = args.budget_mw is not None or args.budget_usd_month is not None
    if not args.link and wants_demand == wants_budget:
        raise UsageError("size needs a demand (--peak-rps, --volume, --tokens-per-day or --trace) or a budget "
                         "(--budget-mw and/or --budget-usd-month), not both")
    answer = answer_of_args(args, con, ("fleet", "rates", "notes", "run_to_run", "chargeback"))
    fleet = answer.fleet
    if fleet is None:
        refused = "; ".join(link_notices(answer.notes))     # the value the link gave, refused by its bound
        raise UsageError("the link's view has no demand or budget: add --demand-rps, --tokens-per-day, "
                         "--budget-mw or --budget-usd-month" + (f" ({refused})" if refused else ""))
    frame = fleet.sized
    band = answer.run_to_run.fleet
    state = answer.view
    notes = list(fleet.notes) + for_every_answer(answer.notes) + answer.old_notes()
    if fleet.question:
        notes.append(f"unusual demand: {fleet.question}: is it what you meant?")
    if args.json:
        _print_json({"command": "size", "sla": state.sla, "sla_description": fleet.sla,
                     "demand": fleet.need if fleet.kind == "demand" else None, "demand_said": fleet.said,
                     "budget_mw": state.budget_mw, "budget_usd_per_month": state.budget_usd_month,
                     "interactivity_needed": fleet.x, "where": state.where(), "by": list(answer.rows.scenario.by),
                     "view": state.to_query(), "link": view_url(state.to_query(), "Fleet"),
                     "rate_sources": records(answer.rates), "notes": notes, "sentences": list(fleet.sentences),
                     "capacity_from": list(fleet.capacity_lines), "columns": fleet.columns, "rows": records(frame),
                     # each series' nodes on its capacity point's run-to-run band (model.core.run_to_run), named
                     "run_to_run": {**answer.run_to_run.payload(),
                                    "rows": records(band) if band is not None else []},
                     "chargeback": answer.chargeback.payload() if answer.chargeback is not None else None})
        return 0
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    print(f"SLA: {fleet.sla}; " + (f"interactivity you need: {fleet.x:.1f} tok/s/user; " if fleet.x else "")
          + (f"demand: {fleet.need}" if fleet.kind == "demand" else fleet.need))
    if fleet.said:
        print(fleet.said)
    if frame.empty:
        print("no series to size in this selection")
        return 0
    shown = frame[fleet.columns].copy()
    for column in ("pricing", "method"):     # said whole in the sentences below: a table cell names it
        if column in shown:
            shown[column] = shown[column].map(lambda v: v if not isinstance(v, str) or len(v) <= 32 else v[:31] + "…")
    with pd.option_context("display.width", 250, "display.max_rows", 500, "display.max_columns", 30,
                           "display.float_format", "{:,.6g}".format):
        print(shown.to_string(index=False))
    for sentence in fleet.sentences:
        print(sentence)
    for line in fleet.capacity_lines:
        print(line)
    from model.present.run_to_run_answer import run_to_run_lines

    for line in run_to_run_lines(band):
        print(line)
    if answer.chargeback is not None:
        from model.cli.sell import print_chargeback

        print_chargeback(answer.chargeback)
    return 0
