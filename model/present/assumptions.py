"""The assumptions of an answer in words (the report's "Assumptions" table and the XLSX's second sheet):
the workload, filters, grouping, SLA, basis, interpolation and its error, targets, the interactivity you
need, the baseline, repeats, run dates, the source of every rate and the fleet's demand or budget; every dated
default (a preset rate, an on-prem reference value a cost profile starts from) with the date it was read and an
``old`` flag when read more than the view's ``price_stale_days`` before today (:mod:`model.core.dated`)."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING

import pandas as pd

from model.core.analysis import Analysis
from model.core.dated import age_days, is_old, read_on_text
from model.core.interactivity import WORDS as INTERACTIVITY_WORDS
from model.core.onprem_labels import ONPREM_LABELS
from model.core.sla import SLA
from model.core.uncertainty import AUTO
from model.core.view_fields import BY_NAME
from model.data.presets import onprem_default_dates, onprem_defaults
from model.present import fmt

__all__ = ["assumptions_of", "priced_workload", "ERROR_WORDS", "ASSUMPTION_COLUMNS"]

#: the assumptions table's columns: "Read on" is the date a dated default was read (empty for the view's own
#: choices), "Old" says ``old: N days`` when it was read more than the view's price_stale_days before today
ASSUMPTION_COLUMNS = ["Item", "Value", "Where it came from", "Read on", "Old"]

#: the ± rule in words a buyer can use (the rule itself: :data:`model.core.uncertainty.RULE`)
ERROR_WORDS = ("if we had not measured a point, our method would have been off by about the ± there: each measured "
               "frontier point with a neighbour on each side is left out and predicted from the others, and the range "
               "is where 9 in 10 of them fell; it widens with the gap to the nearest measured points and the change "
               "in price across it (zero at a measured point) and always reaches the other method's value; a series "
               "with 10 or more such points uses its own, others those of every frontier in the store")

_METHOD_TEXT = {
    "linear": "linear in $/M between neighbouring frontier points (reproduces the InferenceX iso tables)",
    "monotone": "monotone cubic (PCHIP) through tokens per dollar between frontier points",
}

if TYPE_CHECKING:
    from model.present.parts import Answer


def _workload(points: pd.DataFrame) -> str:
    """``"GLM-5, ISL 8192 / OSL 1024 tokens"`` for each (model, ISL, OSL) in ``points``, joined by ``; ``."""
    if points.empty:
        return "no rows"
    parts = []
    combos = points[["model", "isl", "osl"]].drop_duplicates().astype(object)
    for model, isl, osl in sorted(combos.itertuples(index=False, name=None), key=str):
        text = str(model) if pd.notna(model) else "model not stated"
        if pd.notna(isl) or pd.notna(osl):
            text += f", ISL {_int_or(isl)} / OSL {_int_or(osl)} tokens"
        parts.append(text)
    return "; ".join(parts)


def priced_workload(result: Analysis, points: pd.DataFrame) -> str:
    """The workload of the frontiers (what the costs are about), else of every row in view."""
    return _workload(result.frontier if not result.frontier.empty else points)


def _unpriced_workload(result: Analysis, points: pd.DataFrame) -> str:
    priced = set(priced_workload(result, points).split("; "))
    return "; ".join(w for w in _workload(points).split("; ") if w not in priced and w != "no rows")


def _int_or(value) -> str:
    return "?" if pd.isna(value) else f"{int(value)}"


def assumptions_of(answer: "Answer", today: date | None = None) -> pd.DataFrame:
    """Item, value, where it came from, the date it was read and whether that is old (:data:`ASSUMPTION_COLUMNS`),
    one row per assumption of ``answer``; ``today`` (default: the date today) is what ages are counted to."""
    s, state, result = answer.rows.scenario, answer.view, answer.cost.analysis
    method = answer.cost.method
    points, x = answer.rows.rows, answer.interactivity_needed
    basis = {"total": "total tokens (input + output)", "output": "output tokens", "input": "input tokens",
             "blended": f"blended: output tokens + {s.w_input:g} x uncached input + {s.w_cached:g} x cached input"}
    where = state.where()
    filters = "; ".join(f"{k} = {', '.join('(not stated)' if v is None else str(v) for v in vs)}"
                        for k, vs in sorted(where.items()) if vs) or "none (all rows)"
    rows = [
        ("Workload", priced_workload(result, points), "the benchmark rows on a frontier"),
        *([("Also in view, not priced", other, "rows without interactivity (load ramps, single points)")]
          if (other := _unpriced_workload(result, points)) else []),
        ("Filters", filters, "the view"),
        ("Series grouped by", ", ".join(s.by), "the view"),
        ("Latency SLA", SLA.from_text(s.sla).describe() if s.sla else "none",
         "the view; rows breaking it are left out before the frontier fit"),
        ("Token basis", basis[s.basis], "the view"),
        ("Interactivity [tok/s/user]", INTERACTIVITY_WORDS[s.interactivity_from],
         "the view (--interactivity-from, link ia=)" if s.interactivity_from != "tpot" else
         "default (--interactivity-from, link ia=: tpot or itl)"),
        *([("Disaggregated prefill/decode rows", next(n for n in result.notes if "disaggregated rows:" in n),
            "the view (--disagg, link dis=)")] if any("disaggregated rows:" in n for n in result.notes) else []),
        ("Interpolation", f"{method}: {_METHOD_TEXT[method]}; no extrapolation past a frontier's end, "
                          "values within 1% past an end are clamped to it",
         "the view" if state.method != AUTO else "default: the method that fits this store's frontiers better "
                                                 "when each point is left out in turn"),
        ("Interpolation error (±)", ERROR_WORDS, "calibrated on every frontier of the data version in use; not "
                                                 "run-to-run noise"),
        ("Interactivity targets [tok/s/user]", ", ".join(f"{t:.1f}" for t in result.targets) or "none",
         "the view" if s.targets else "default: round values spread over the range every series reaches"),
        ("Interactivity you need [tok/s/user]", "—" if x is None else f"{x:.1f}",
         "the view" if state.interactivity_needed else "default: the middle target"),
        ("Ratios relative to", answer.cost.baseline or "—",
         "the view" if state.baseline == answer.cost.baseline else "default: the first series by name"),
        ("Cost formula", "$/M tokens = $/GPU-hour / (3600 x tok/s/GPU / 10^6)", "SemiAnalysis InferenceX"),
        ("Repeat runs", _REPEATS_TEXT[state.repeats],
         "the view (--repeats, link rep=)" if state.repeats != "pooled" else "default: all pooled"),
        ("Run dates", f"rows run on or before {state.as_of.isoformat()}; rows that state no run date are left out"
         if state.as_of else "every run date; rows that state none included", "the view (--as-of, link asof=)"
         if state.as_of else "default"),
    ]
    dated: dict[int, object] = {}
    for r in answer.rates.to_dict("records"):
        value = fmt.usd(r["usd_per_gpu_hour"], "") if r["source"] != "not set" else "not set"
        dated[len(rows)] = r.get("read_on")
        rows.append((f"$/GPU-hour, {r['hardware']}", value, r["detail"]))
    for item, value, source, read_on in _profile_defaults(answer):
        dated[len(rows)] = read_on
        rows.append((item, value, source))
    rows.extend(_rented_and_api(answer))
    fleet = answer.fleet
    if fleet is not None:
        rows.append(("Fleet " + fleet.kind, fleet.need, "the view"))
        rows.append(("Fleet pricing", "every hour of every GPU is paid for (730 hours a month); an on-prem "
                     "profile's full-use rate applies", "how Cost Frontier sizes a fleet"))
        rows.extend(_fleet_settings(state))
    today, limit = today or date.today(), state.price_stale_days
    frame = pd.DataFrame(rows, columns=ASSUMPTION_COLUMNS[:3])
    days = [read_on_text(dated.get(i)) for i in range(len(rows))]
    frame["Read on"] = [d if d != "not dated" else "" for d in days]
    frame["Old"] = [f"old: {age_days(d, today)} days (more than {limit})" if is_old(d, today, limit) else ""
                    for d in days]
    return frame


#: the items of the rented rates and the API's prices (the workbook names their cells: rent_<hardware>, api_usd_*)
RENTED_ITEM = "Rented $/GPU-hour, "
API_ITEMS = {"usd_per_m_input": "API $/M input tokens", "usd_per_m_cached_input": "API $/M cached input tokens",
             "usd_per_m_output": "API $/M output tokens", "cache_hit": "API prefix-cache hit rate"}


def _rented_and_api(answer: "Answer") -> list[tuple[str, str, str]]:
    """The rented $/GPU-hour the view sets (on demand or reserved) and, with a demand, the API price it compares
    with and the cache-hit rate its bill assumes."""
    state = answer.view
    how = ("on demand: node-hours following the load are billed" if state.on_demand else
           "reserved: every hour of the peak's nodes is billed")
    out = [(f"{RENTED_ITEM}{hw}", fmt.usd(usd, ""), f"set in this view (--rent, link rent=); {how}")
           for hw, usd in state.rent]
    volume = answer.volume if "volume" in answer.ran else None
    api = volume.api if volume is not None else None
    if api:
        source = f"{api['model']} ({api['provider'] or 'provider not stated'}), read {api['read_on'] or 'on an unstated date'}" \
            f"; {api['matched']}" + (f"; {api['source']}" if api["source"] and api["source"] != api["matched"] else "")
        for key, item in API_ITEMS.items():
            value = fmt.percent(api[key]) if key == "cache_hit" else fmt.usd(api[key], "")
            out.append((item, value, api["cache_hit_from"] if key == "cache_hit" else source))
    return out


def _fleet_settings(view) -> list[tuple[str, str, str]]:
    """The fleet's settings (the view's knee rule, GPUs per node, kW per GPU, PUE, rack kW, token basis): each
    set in the view, or the default it takes."""

    defaults = {"rule": "first_failure: the rate before the first one breaking the SLA",
                "gpus_per_node": "as the rows state, else 8",
                "kw_per_gpu": "the cost profile's, else the price set's all-in kW per GPU",
                "pue": "the cost profile's, else 1", "rack_kw": "racks not counted",
                "token_basis": "the capacity's basis (total where the rows state it, else output)"}
    out = []
    for name, default in defaults.items():
        value = getattr(view, name)
        label = BY_NAME[name].label or name
        if name == "kw_per_gpu" and value:   # one line per hardware the view gives its own, "*" for every other
            out.extend((f"Fleet: {label}, {'every hardware without its own' if hw == '*' else hw}", f"{kw:g}",
                        f"the view (link {BY_NAME[name].key}=)") for hw, kw in value)
            continue
        unset = value is None or value == () or (name == "rule" and value == "first_failure")
        out.append((f"Fleet: {label}", default if unset else f"{value:g}" if isinstance(value, float) else str(value),
                    "default" if unset else f"the view (link {BY_NAME[name].key}=)"))
    return out


def _profile_defaults(answer: "Answer") -> list[tuple[str, str, str, object]]:
    """(item, value, source, read on) of each cited default an on-prem cost profile of the view still holds
    (its value equals the default's): the reference values and the preset's all-in kW per GPU."""

    out = []
    presets = answer.inputs.presets
    for p in answer.view.cost_profiles():
        if p.onprem is None:
            continue
        defaults, dates = onprem_defaults(p.hardware, presets), onprem_default_dates(p.hardware, presets)
        for name, (default, source) in defaults.items():
            value = getattr(p.onprem, name, None)
            if default is None or not isinstance(value, (int, float)) or abs(float(value) - default) > 1e-12:
                continue
            out.append((f"{ONPREM_LABELS.get(name, name)}, cost profile '{p.name}'", fmt.amount(value),
                        f"default: {source}", dates.get(name)))
    return out


_REPEATS_TEXT = {
    "pooled": "all pooled: every measured row of a configuration is a candidate for the frontier",
    "latest": "latest run: of each configuration (hardware, recipe, parallelism, load, workload) only its latest "
              "run date's rows (then the last file ingested)",
    "median": "median of repeats: each configuration as the median of its repeats, measure by measure",
}
