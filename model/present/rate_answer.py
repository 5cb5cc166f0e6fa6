"""The rates of an answer with their sources, and its cost profiles with their build-ups, tornado and
break-even server price: pure steps (:class:`model.present.parts.Answer` calls them).

Rates come from :func:`model.core.cost_profiles.price_with_profiles` (cost profiles chosen in the view) over
:func:`model.core.cost.resolve_rates` (the view's own rates over the presets), each with its source in one
vocabulary (:data:`RATE_SOURCES`).
"""

from __future__ import annotations

import math
from datetime import date
from typing import Mapping

import pandas as pd

from model.core.cost import has_price_set, resolve_rates
from model.core.cost_profiles import CostProfile, breakdown_frame
from model.core.dated import age_days, is_old, read_on_text
from model.core.sensitivity import break_even as server_break_even
from model.core.sensitivity import tornado
from model.core.status import PRICED
from model.core.tco import ONPREM_LABELS, OnPremInputs
from model.core.view import View
from model.data.presets import onprem_defaults
from model.present import fmt
from model.present.parts import ProfileAnswer

__all__ = ["RATES_IN_VIEW", "rates_in_view", "RATE_SOURCES", "rate_source_text", "rates_of", "profiles_of", "RATE_COLUMNS"]

#: where a $/GPU-hour comes from, the one vocabulary of every surface
RATE_SOURCES = ("preset", "ingested price set", "cost profile", "set in this view", "not set")
RATE_COLUMNS = ["hardware", "usd_per_gpu_hour", "usd_per_gpu_hour_full_use", "source", "detail", "profile", "read_on",
                "preset_usd_per_gpu_hour", "preset_read_on", "all_in_kw_per_gpu"]


def rate_source_text(kind: str, *, price_set: str = "", tier: str = "", source: str = "", file: str = "",
                     profile: CostProfile | None = None, preset: float | None = None) -> str:
    """A rate's source in words, e.g. ``preset: price set 2025-08, tier owning_hyperscaler (SemiAnalysis ...)``.

    ``kind`` is one of :data:`RATE_SOURCES`.
    """
    if kind == "preset":
        return f"preset: price set {price_set}, tier {tier}" + (f" ({source})" if source else "")
    if kind == "ingested price set":
        return f"ingested price set: {file or 'a TCO rates file'} (price set {price_set}, tier {tier})" + \
            (f"; {source}" if source else "")
    if kind == "cost profile" and profile is not None:
        rate, full = profile.rate(), profile.paid_rate()
        if rate is None:
            return f"cost profile '{profile.name}': no price yet"
        if profile.onprem is not None and full is not None and abs(full - rate) > 1e-12:
            return (f"cost profile '{profile.name}' (on-prem build-up): {fmt.usd(rate, '/GPU-hour')} effective, "
                    f"{fmt.usd(full, '/GPU-hour')} at full use ÷ {fmt.percent(profile.onprem.utilization)} "
                    "utilisation")
        return f"cost profile '{profile.name}' ({profile.kind}): {fmt.usd(rate, '/GPU-hour')}"
    if kind == "set in this view":
        return "set in this view (typed, or from a link or --rate)" + \
            (f"; preset {fmt.usd(preset, '/GPU-hour')}" if preset is not None else "")
    return "not set: unpriced, left out of every cost"


def rates_of(view: View, hardware: list[str], presets: pd.DataFrame, files: Mapping[tuple[str, str, str], str],
             usd_per_gpu_hour: dict[str, float]) -> pd.DataFrame:
    """One row per priced name in view (hardware, or a cost profile shown side by side): ``hardware``,
    ``usd_per_gpu_hour`` (what prices tokens), ``usd_per_gpu_hour_full_use`` (what a fleet pays every hour),
    ``source`` (one of :data:`RATE_SOURCES`), ``detail`` (the source in words) and ``profile`` (the cost
    profile's name when one prices it), ``read_on`` (the date a preset or ingested rate was read, ISO text; None
    for any other source), and beside it the view's preset (``preset_usd_per_gpu_hour``, ``preset_read_on``) and
    the all-in kW per GPU (a profile's, else the preset's). ``files``: :func:`model.data.inputs.rate_files`."""
    profiles = {p.name: p for p in view.cost_profiles()}
    by_hw = {profiles[n].hardware.lower(): profiles[n] for n in view.priced_by if n in profiles}
    own = {hw.lower() for hw, _ in view.rates}
    preset = resolve_rates(hardware, presets, view.price_set, view.tier) \
        if has_price_set(presets, view.price_set, view.tier) else {}
    table = presets[(presets["price_set"] == view.price_set) & (presets["tier"] == view.tier)]
    source_of = {str(h).lower(): str(s) for h, s in zip(table["hardware"], table["source"])
                 if pd.notna(s) and str(s) not in ("", "nan")}
    read_of = {str(h).lower(): read_on_text(d) for h, d in zip(table["hardware"], table["read_on"])} \
        if "read_on" in table.columns else {}
    kw_of = {str(h).lower(): float(k) for h, k in zip(table["hardware"], table["all_in_kw_per_gpu"])
             if pd.notna(k)} if "all_in_kw_per_gpu" in table.columns else {}
    rows = []
    for hw in hardware:
        rate = usd_per_gpu_hour.get(hw)
        full = rate
        p = profiles.get(hw) if hw in view.priced_by else by_hw.get(hw.lower())   # side by side: named by it
        if p is not None:
            kind, detail, full = "cost profile", rate_source_text("cost profile", profile=p), p.paid_rate()
        elif rate is None:
            kind, detail = "not set", rate_source_text("not set")
        elif hw.lower() in own:
            kind, detail = "set in this view", rate_source_text("set in this view", preset=preset.get(hw))
        elif (view.price_set, view.tier, hw.lower()) in files:
            kind = "ingested price set"
            detail = rate_source_text(kind, price_set=view.price_set, tier=view.tier,
                                      file=files[(view.price_set, view.tier, hw.lower())],
                                      source=source_of.get(hw.lower(), ""))
        else:
            kind = "preset"
            detail = rate_source_text(kind, price_set=view.price_set, tier=view.tier,
                                      source=source_of.get(hw.lower(), ""))
        dated = read_of.get(hw.lower()) if kind in ("preset", "ingested price set") else None
        preset_read = read_of.get(hw.lower())
        kw = p.onprem.kw_per_gpu if p is not None and p.onprem is not None else kw_of.get(hw.lower())
        rows.append({"hardware": hw, "usd_per_gpu_hour": rate if rate is not None else math.nan,
                     "usd_per_gpu_hour_full_use": full if full is not None else math.nan,
                     "source": kind, "detail": detail, "profile": p.name if p is not None else None,
                     "read_on": dated if dated != "not dated" else None,
                     "preset_usd_per_gpu_hour": preset.get(hw, math.nan),
                     "preset_read_on": preset_read if preset_read not in (None, "not dated") else None,
                     "all_in_kw_per_gpu": kw if kw is not None else math.nan})
    return pd.DataFrame(rows, columns=RATE_COLUMNS)


def profiles_of(view: View, curves: dict, at_x: pd.DataFrame, presets: pd.DataFrame) -> list[ProfileAnswer]:
    """Every cost profile of the view with its inputs, parts, tornado (at the $/M ``at_x`` shows: the answer's
    series at the interactivity you need) and break-even server price."""
    out = []
    profiles = view.cost_profiles()
    for p in profiles:
        series = next((s for s, c in curves.items()
                       if str(c.hardware[0]).lower() in (p.hardware.lower(), p.name.lower())), None)
        tps = _throughput_at_x(at_x, series) if series else math.nan
        swings, unit = None, "usd_per_gpu_hour"
        if p.onprem is not None and p.onprem.server_usd is not None:
            swings = tornado(p.onprem, tps)
            unit = "usd_per_mtok" if tps == tps else "usd_per_gpu_hour"
        out.append(ProfileAnswer(p, p.name in view.priced_by, _inputs(p, presets), breakdown_frame([p]),
                                 series, tps, swings, unit, _break_evens(view, p, profiles, presets)))
    return out


def _throughput_at_x(at_x: pd.DataFrame, series: str) -> float:
    """The tok/s/GPU the answer's own $/M of ``series`` at x implies (``rate / (0.0036 × $/M)``), so a tornado's
    base $/M is the iso table's at x whatever the interpolation method [tok/s/GPU]; NaN where that $/M is not priced
    (clamped, unreachable, missing: :data:`model.core.status.PRICED`)."""
    row = at_x[at_x["series"] == series]
    if row.empty or not row["usd_per_mtok"].notna().iloc[0] or row["status"].iloc[0] not in PRICED:
        return math.nan
    usd, rate = float(row["usd_per_mtok"].iloc[0]), float(row["usd_per_gpu_hour"].iloc[0])
    return rate * 1e6 / (3600 * usd)


def _inputs(p: CostProfile, presets: pd.DataFrame) -> pd.DataFrame:
    if p.onprem is None:
        return pd.DataFrame([{"input": "Rate [$/GPU-hour]", "value": fmt.usd(p.usd_per_gpu_hour, ""),
                              "source": p.source or "entered"}])
    defaults = onprem_defaults(p.hardware, presets)
    rows = []
    for name, label in ONPREM_LABELS.items():
        value = getattr(p.onprem, name)
        if value is None or (name in ("network_usd", "rack_usd_per_month", "nodes_per_rack") and not value):
            continue
        default, source = defaults.get(name, (None, ""))
        same = default is not None and isinstance(value, (int, float)) and abs(float(value) - default) < 1e-12
        built_in = value == OnPremInputs.model_fields[name].default
        rows.append({"input": label, "value": fmt.amount(value) if isinstance(value, (int, float)) else str(value),
                     "source": f"default: {source}" if same else
                     "the build-up's own default (no cited value)" if built_in else (p.source or "entered")})
    return pd.DataFrame(rows, columns=["input", "value", "source"])


def _break_evens(view: View, p: CostProfile, profiles: list[CostProfile], presets: pd.DataFrame) -> tuple:
    if p.onprem is None or p.onprem.server_usd is None:
        return ()
    against = [(f"cost profile '{q.name}'", q.rate()) for q in profiles
               if q.onprem is None and q.rate() and q.hardware.lower() == p.hardware.lower()]
    if not against:
        preset = resolve_rates([p.hardware], presets, view.price_set, view.tier).get(p.hardware) \
            if has_price_set(presets, view.price_set, view.tier) else None
        if preset:
            against = [(f"the preset {view.price_set} / {view.tier}", preset)]
    out = []
    for label, rate in against:
        solved = server_break_even(p.onprem, rate, "server_usd")
        note = (f"{p.name} matches {label} ({fmt.usd(rate, '/GPU-hour')}) at a server price of "
                + (f"${solved.value:,.0f} per node (quoted ${p.onprem.server_usd:,.0f})" if solved.value == solved.value
                   else solved.note))
        out.append((label, float(rate), float(solved.value), note))
    return tuple(out)


#: the columns of :func:`rates_in_view`, as the TCO rates page shows them
RATES_IN_VIEW = ["hardware", "preset $/GPU-hour", "your $/GPU-hour", "all-in kW/GPU", "preset read on", "old",
                 "priced by"]


def rates_in_view(rates: pd.DataFrame, hardware: list[str], profiles: dict, today: date, limit: int) -> pd.DataFrame:
    """Each hardware in view with its preset and the rate in force (:data:`RATES_IN_VIEW`), read from the answer's
    rate table (``rates``: :data:`RATE_COLUMNS`): a hardware a cost profile prices shows the profile's rate and
    names it (``priced by``); a preset read more than ``limit`` days before ``today`` is flagged old."""
    by_hw: dict[str, dict] = {}     # a profile's row names the profile: its hardware's row
    for r in rates.to_dict("records"):
        hw = profiles[r["profile"]].hardware if r["profile"] in profiles else r["hardware"]
        by_hw.setdefault(str(hw).lower(), r)

    def of(hw: str, column: str):
        value = by_hw.get(hw.lower(), {}).get(column)
        return None if value is None or value != value else value

    read = [of(hw, "preset_read_on") for hw in hardware]
    return pd.DataFrame({"hardware": hardware,
                         "preset $/GPU-hour": [of(hw, "preset_usd_per_gpu_hour") for hw in hardware],
                         "your $/GPU-hour": pd.Series([of(hw, "usd_per_gpu_hour") for hw in hardware], dtype=object),
                         "all-in kW/GPU": [of(hw, "all_in_kw_per_gpu") for hw in hardware],
                         "preset read on": [read_on_text(d) for d in read],
                         "old": [f"old: {age_days(d, today)} days" if is_old(d, today, limit) else "" for d in read],
                         "priced by": [f"cost profile '{of(hw, 'profile')}' (read-only)" if of(hw, "profile") else ""
                                       for hw in hardware]}, columns=RATES_IN_VIEW)
