"""``costfrontier tco`` and ``costfrontier size``: on-prem $/GPU-hour and fleet sizing from the shell.

    costfrontier tco --hardware H200 --server-usd 300000 --gpus-per-node 8 --network-pct 15 --install-usd 0
                     --years 5 --rate-pct 10 --kw-per-gpu 1.37 --pue 1.3 --usd-per-kwh 0.08
                     --colo-usd-per-kw-month 184 --maintenance-pct 3 --utilization 0.7
                     [--name "H200 on-prem 5y" --save] [--vs-rate USD] [--json]
    costfrontier tco --hardware H200 --usd-per-gpu-hour 2.9 --name "H200 cloud" --save   (a plain-rate profile)
    costfrontier tco --list [--json]
    costfrontier size --demand-rps R | --tokens-per-day T [--peak-to-average F] | --budget-mw M | --budget-usd-month B
                      [--headroom 1.0] [--spares 0] [--sla K=V ...] [--where K=V ...] [--by k,k]
                      [--rate HW=USD ... | --profile NAME ...] [--interactivity X] [--rack-kw KW] [--json]

Inputs left out of ``tco`` start from the cited reference values (``data/samples/tco_reference_values.csv``)
and the preset's all-in kW per GPU; the output names each default and its source.
"""

from __future__ import annotations

import argparse
import json
import math
import sys

import pandas as pd

from model.capacity import CAPACITY_BASES, KNEE_RULES, SLA, SLA_KEYS
from model.cost import load_presets, resolve_rates
from model.fleet import (
    TOKEN_BASES,
    demand,
    node_capacity,
    preset_kw_per_gpu,
    pricing_options,
    size_fleet,
)
from model.hardware import canonical_hardware
from model.profiles import load_profiles, profiles_table, save_profiles
from model.store import load_points, stored_rates
from model.tco import CostProfile, onprem_defaults, onprem_inputs

__all__ = ["add_parsers", "run"]

#: (option, input name, type, help) of the build-up options
_ONPREM_OPTIONS = (
    ("--server-usd", "server_usd", float, "server price per node [$]"),
    ("--gpus-per-node", "gpus_per_node", int, "GPUs per node (default 8)"),
    ("--network-pct", "network_pct", float, "network and storage [%% of the server price]"),
    ("--network-usd", "network_usd", float, "network and storage per node [$] (instead of --network-pct)"),
    ("--install-usd", "install_usd", float, "installation per node [$]"),
    ("--years", "years", float, "depreciation period [years] (default 5)"),
    ("--rate-pct", "rate_pct", float, "cost of capital [%%/year]; 0 = straight-line (default 0)"),
    ("--kw-per-gpu", "kw_per_gpu", float, "all-in IT power per GPU [kW] (default: the preset's)"),
    ("--pue", "pue", float, "power usage effectiveness (default 1.56, Uptime Institute 2024)"),
    ("--usd-per-kwh", "usd_per_kwh", float, "electricity [$/kWh] (default 0.0806, EIA US industrial 2023)"),
    ("--colo-usd-per-kw-month", "colo_usd_per_kw_month", float,
     "colocation [$/kW-month] (default 184.06, CBRE H2 2024)"),
    ("--rack-usd-per-month", "rack_usd_per_month", float, "rack space [$/rack-month] (instead of colocation)"),
    ("--nodes-per-rack", "nodes_per_rack", int, "nodes per rack (with --rack-usd-per-month)"),
    ("--maintenance-pct", "maintenance_pct", float, "support and maintenance [%% of capital per year]"),
    ("--licence-usd-per-gpu-year", "licence_usd_per_gpu_year", float, "software licences [$/GPU-year]"),
    ("--staff-usd-per-year", "staff_usd_per_year", float, "staff [$/year] for the whole fleet"),
    ("--fleet-gpus", "fleet_gpus", int, "GPUs the staff cost is spread over"),
    ("--utilization", "utilization", float, "share of hours serving billable load [0..1] (default 1)"),
)


def add_parsers(sub) -> None:
    """Register ``tco`` and ``size`` on the ``costfrontier`` sub-command parser."""
    from model.cli import _selection_args

    tco = sub.add_parser("tco", help="on-prem $/GPU-hour from a server quote and a power bill (cost profiles)")
    tco.add_argument("--hardware", help="GPU, e.g. H200")
    for option, dest, kind, text in _ONPREM_OPTIONS:
        tco.add_argument(option, dest=dest, type=kind, help=text)
    tco.add_argument("--colo-includes-power", action="store_true", help="the colocation price includes electricity")
    tco.add_argument("--usd-per-gpu-hour", type=float, help="a plain rate instead of a build-up (a cloud quote)")
    tco.add_argument("--name", help="profile name (default '<hardware> on-prem <years>y')")
    tco.add_argument("--source", default="", help="where the numbers come from (kept with a saved profile)")
    tco.add_argument("--save", action="store_true", help="store the profile in the database (replaces one of that name)")
    tco.add_argument("--vs-rate", type=float, metavar="USD",
                     help="a cloud $/GPU-hour: print the break-even server price and electricity price")
    tco.add_argument("--price-set", help="price set whose all-in kW per GPU is the default (default: newest)")
    tco.add_argument("--list", action="store_true", help="list the stored cost profiles")
    tco.add_argument("--json", action="store_true")

    size = sub.add_parser("size", help="fleet for a demand, or capacity for a power or money budget")
    need = size.add_argument_group("demand or budget (one)")
    need.add_argument("--demand-rps", type=float, help="peak demand [req/s]")
    need.add_argument("--tokens-per-day", type=float, help="average demand [tokens/day] (see --token-basis)")
    need.add_argument("--peak-to-average", type=float, help="peak ÷ average load, with --tokens-per-day (default 1)")
    need.add_argument("--token-basis", default="total", choices=TOKEN_BASES, help="what --tokens-per-day counts")
    need.add_argument("--budget-mw", type=float, help="facility power budget [MW]")
    need.add_argument("--budget-usd-month", type=float, help="money budget [$/month]")
    size.add_argument("--headroom", type=float, default=1.0, help="capacity ÷ peak demand (default 1.0)")
    size.add_argument("--spares", type=int, default=0, help="whole spare nodes (N+1 = 1)")
    size.add_argument("--sla", action="append", default=[], metavar="KEY=VALUE",
                      help=f"latency limit (repeat): {', '.join(SLA_KEYS)}; e.g. ttft_p95=5")
    _selection_args(size)
    size.add_argument("--profile", action="append", default=[], metavar="NAME",
                      help="price with a stored cost profile (repeat to compare; see `tco --list`)")
    size.add_argument("--interactivity", type=float, help="sweeps: target interactivity [tok/s/user]")
    size.add_argument("--basis", default="auto", choices=CAPACITY_BASES)
    size.add_argument("--rule", default=KNEE_RULES[0], choices=KNEE_RULES)
    size.add_argument("--gpus-per-node", type=int, help="GPUs per node (default 8)")
    size.add_argument("--kw-per-gpu", type=float, help="all-in IT power per GPU [kW] (default: the preset's)")
    size.add_argument("--pue", type=float, help="PUE for facility kW and the MW budget (default: profile's, else 1)")
    size.add_argument("--rack-kw", type=float, help="IT power per rack [kW] (racks are counted only with it)")
    size.add_argument("--json", action="store_true")


def run(args, con) -> int | None:
    """Run ``tco`` or ``size``; ``None`` when ``args.command`` is another command."""
    if args.command == "tco":
        return _tco(args, con)
    if args.command == "size":
        return _size(args, con)
    return None


def _jsonable(value):
    """Nested dicts/lists with NaN and infinities as null (strict JSON), numpy scalars as Python numbers."""
    from model.cli import _clean

    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return _clean(value)


def _print_json(payload) -> None:
    print(json.dumps(_jsonable(payload), indent=2, allow_nan=False))


def _tco(args, con) -> int:
    from model.cli import UsageError

    if args.list:
        table = profiles_table(con)
        if args.json:
            from model.cli import _records

            _print_json({"command": "tco", "rows": _records(table)})
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
    defaults = onprem_defaults(hardware, load_presets(stored_rates(con)), args.price_set)
    used: dict[str, dict[str, object]] = {}
    for name, (value, source) in defaults.items():
        if name in given or value is None:
            continue
        if name == "colo_usd_per_kw_month" and "rack_usd_per_month" in given:
            continue
        given[name] = value
        used[name] = {"value": value, "source": source}
    if "kw_per_gpu" not in given:
        raise UsageError(f"no all-in kW per GPU for {hardware} in the presets: give --kw-per-gpu")
    inputs = onprem_inputs(**given)
    name = args.name or f"{hardware} on-prem {inputs.years:g}y"
    profile = CostProfile(name=name, hardware=hardware, onprem=inputs, source=args.source)
    return _finish_tco(args, con, profile, used, inputs)


def _finish_tco(args, con, profile: CostProfile, used: dict, inputs) -> int:
    from model.fleet import break_even

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
    if args.save:
        save_profiles(con, [profile], saved_by="cli")
    row["saved"] = bool(args.save)
    if args.json:
        _print_json({"command": "tco", "rows": [row]})
        return 0
    for name, info in used.items():
        print(f"default {name} = {info['value']:g}: {info['source']}")
    if breakdown is not None:
        with pd.option_context("display.width", 200, "display.float_format", "{:,.5g}".format):
            print(breakdown.table().to_string(index=False))
        for note in breakdown.notes:
            print(f"note: {note}")
    rate = profile.rate()
    print(f"{profile.name}: " + (f"${rate:.4f}/GPU-hour" if rate is not None else "unpriced"))
    for key, result in (comparison or {}).items():
        unit = "$ per node" if key == "server_usd" else "$/kWh"
        print(f"break-even {key} vs ${args.vs_rate:g}/GPU-hour: "
              + (f"{result.value:,.4g} {unit}" if math.isfinite(result.value) else result.note))
    if args.save:
        print(f"saved cost profile {profile.name!r}")
    return 0


def _pricing(args, con, hardware: list[str]) -> list[dict]:
    """One pricing option per (hardware, profile): label, paid $/GPU-hour, kW per GPU, PUE."""
    from model.cli import UsageError, _pairs

    presets = load_presets(stored_rates(con))
    kw_preset = preset_kw_per_gpu(presets, args.price_set)
    if args.profile:
        if args.rate:
            raise UsageError("give --rate or --profile, not both")
        stored = {p.name: p for p in load_profiles(con)}
        for name in args.profile:
            if name not in stored:
                raise UsageError(f"no stored cost profile {name!r}; known: {', '.join(stored) or 'none'} "
                                 "(save one with costfrontier tco ... --name NAME --save)")
        chosen = [stored[name] for name in args.profile]
        return pricing_options(sorted({p.hardware for p in chosen}), {}, kw_preset, chosen, args.kw_per_gpu, args.pue)
    overrides = {}
    for hw, value in _pairs(args.rate, "--rate"):
        try:
            overrides[canonical_hardware(hw)] = float(value)
        except ValueError:
            raise UsageError(f"--rate {hw}={value}: not a number") from None
    rates = resolve_rates(hardware, presets, args.price_set, args.tier, overrides)
    return [{**option, "pricing": "--rate" if option["hardware"] in overrides else f"preset {args.price_set}/{args.tier}"}
            for option in pricing_options(hardware, rates, kw_preset, (), args.kw_per_gpu, args.pue)]


def _size(args, con) -> int:
    from model.cli import UsageError, _records, _scenario

    wants_demand = args.demand_rps is not None or args.tokens_per_day is not None
    wants_budget = args.budget_mw is not None or args.budget_usd_month is not None
    if wants_demand == wants_budget:
        raise UsageError("size needs a demand (--demand-rps or --tokens-per-day) or a budget "
                         "(--budget-mw and/or --budget-usd-month), not both")
    scenario, where = _scenario(argparse.Namespace(**{**vars(args), "basis": "total", "method": "linear", "at": "",
                                                         "baseline": None, "rate": [], "w_input": None,
                                                         "w_cached": None}))
    sla = SLA.from_text(args.sla)
    points = load_points(con, where)
    capacity = node_capacity(points, sla, scenario.by, args.basis, args.rule, args.gpus_per_node, args.interactivity)
    hardware = sorted(capacity["hardware"].dropna().unique())
    need = demand(requests_per_second=args.demand_rps, tokens_per_day=args.tokens_per_day,
                  peak_to_average=args.peak_to_average, token_basis=args.token_basis, headroom=args.headroom,
                  spares=args.spares) if wants_demand else None
    options = _pricing(args, con, hardware)
    frame = size_fleet(capacity, options, need, args.budget_mw, args.budget_usd_month, args.rack_kw)
    notes = []
    unmatched = sorted({o["hardware"] for o in options if o["hardware"] not in hardware}) \
        if args.profile else []
    if unmatched:
        notes.append(f"no {', '.join(unmatched)} series in this selection to size with the chosen profiles")
    if capacity.empty:
        notes.append("no load ramps or sweeps in this selection")
    elif capacity["per_node_rps"].isna().all():
        notes.append(f"no measured point meets the limits ({sla.describe()})")
    if args.json:
        _print_json({"command": "size", "sla": sla.to_text(), "sla_description": sla.describe(),
                     "demand": need.describe() if need is not None else None,
                     "budget_mw": args.budget_mw, "budget_usd_per_month": args.budget_usd_month,
                     "where": where, "by": list(scenario.by), "notes": notes, "rows": _records(frame)})
        return 0
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    print(f"SLA: {sla.describe()}; " + (f"demand: {need.describe()}" if need is not None else
                                         f"budget: {args.budget_mw or 0:g} MW, ${args.budget_usd_month or 0:,.0f}/month"))
    if frame.empty:
        print("no series to size in this selection")
        return 0
    columns = (["series", "method", "pricing", "per_node_rps", "nodes", "gpus", "kw", "racks", "usd_per_gpu_hour",
                "usd_per_month", "note"] if need is not None else
               ["series", "method", "pricing", "limit", "nodes", "gpus", "kw", "usd_per_month", "requests_per_second",
                "tokens_per_second", "tokens_per_month", "users", "note"])
    with pd.option_context("display.width", 250, "display.max_rows", 500, "display.max_columns", 30,
                           "display.max_colwidth", 50, "display.float_format", "{:,.6g}".format):
        print(frame[columns].to_string(index=False))
    for series, method, text in frame.drop_duplicates(["series", "method"])[
            ["series", "method", "capacity_from"]].itertuples(index=False):
        print(f"{series} ({method}): {text}")
    return 0
