"""``costfrontier tco``: on-prem $/GPU-hour from the shell (``size``, the fleet: :mod:`model.cli.size`).

    costfrontier tco --hardware H200 --server-usd 300000 --gpus-per-node 8 --network-pct 15 --install-usd 0
                     --years 5 --rate-pct 10 --kw-per-gpu 1.37 --pue 1.3 --usd-per-kwh 0.08
                     --colo-usd-per-kw-month 184 --maintenance-pct 3 --utilization 0.7
                     [--name "H200 on-prem 5y" --save] [--vs-rate USD] [--json]
                     [--opencost-pricing FILE [--purchase-date YYYY-MM-DD] [--opencost-node LABEL=VALUE]
                      [--opencost-gpu LABEL=VALUE]]   (the paid $/GPU-hour as OpenCost's CSV pricing)
    costfrontier tco --hardware H200 --usd-per-gpu-hour 2.9 --name "H200 cloud" --save   (a plain-rate profile)
    costfrontier tco --list [--json]

Inputs left out of ``tco`` start from the cited reference values (``data/samples/tco_reference_values.csv``)
and the preset's all-in kW per GPU; the output names each default and its source.
"""

from __future__ import annotations

import json
import math
from datetime import date
from pathlib import Path

import pandas as pd

from model.cli.as_json import jsonable, records
from model.cli.parsers import ONPREM_OPTIONS
from model.cli.running import UsageError, in_store
from model.core.cost_profiles import CostProfile
from model.core.dated import old_words
from model.core.hardware import canonical_hardware
from model.core.opencost_pricing import price_file, years_after
from model.core.sensitivity import break_even
from model.core.tco import TcoInputError, onprem_inputs
from model.core.view_fields import BY_NAME
from model.data.presets import load_presets, onprem_default_dates, onprem_defaults
from model.data.profiles import profiles_table, save_profiles
from model.data.store import stored_rates
from model.present import fmt

__all__ = ["main", "run"]


def main(args, ctrl_c) -> int:
    """Run ``tco`` on the store (:func:`model.cli.running.in_store`; a build-up without a store prices against the
    built-in presets)."""
    return in_store(args, ctrl_c, run)


def _print_json(payload) -> None:
    print(json.dumps(jsonable(payload), indent=2, allow_nan=False))


def run(args, con) -> int:
    """Run ``tco``: list the stored cost profiles, or price (and save) one."""
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
    given = {dest: getattr(args, dest) for _, dest, _, _ in ONPREM_OPTIONS if getattr(args, dest) is not None}
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
