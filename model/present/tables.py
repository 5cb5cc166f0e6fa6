"""The tables of an answer, as every surface downloads them: one frame and one column spec per table name
(:func:`table_of`), the whole set in the report's order (:func:`tables`), and one table rounded for people
(:func:`rounded`, what a page's CSV button returns without building a report).

A spec is a list of (header, column, kind) with kind in :data:`model.present.report_output.KINDS`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from model.core.status import PRICED
from model.core.unpriced import sort_cells
from model.present import fmt
from model.present.answers import cell_words, iso_shown
from model.present.parts import fleet_spec
from model.present.report_output import table_frames
from model.present.sell_report import TABLE_PARTS as ISSUE52_PARTS
from model.present.sell_report import issue52_tables
from model.present.volume_answer import shown_rows

__all__ = ["PAGE_TABLES", "TABLE_PARTS", "table_of", "tables", "rounded", "profile_tables", "marked_of", "text_spec",
           "ISO_SPEC", "CROSS_SPEC",
           "FRONTIER_SPEC", "CAPS_TABLE", "CAPS_SPEC", "CALIBRATION_TABLE", "CALIBRATION_SPEC", "MIX_TABLES", "MIX_FLEET_SPEC", "MIX_BUCKET_SPEC",
           "MIX_SINGLE_SPEC", "MIX_CROSSOVER_SPEC", "mix_tables", "PLAN_TABLES", "plan_spec", "plan_frame",
           "plan_tables", "saturation_frame_of"]

#: the tables the pages offer as CSV (under their own table)
PAGE_TABLES = ("Cost at matched interactivity", "Crossovers", "Frontier points")


def text_spec(frame: pd.DataFrame) -> list[tuple[str, str, str]]:
    """Every column as text, headed by its name."""
    return [(c, c, "text") for c in frame.columns]


ISO_SPEC = [("Interactivity [tok/s/user]", "interactivity", "x"), ("Series", "series", "text"),
             ("$/M tokens", "usd_per_mtok", "usd"), ("Ratio", "ratio_to_baseline", "ratio"),
             ("$/GPU-hour", "usd_per_gpu_hour", "usd"), ("tok/s/GPU", "tokens_per_second_per_gpu", "tps"),
             ("Break-even $/GPU-hour", "break_even_usd_per_gpu_hour", "usd"), ("Status", "status_text", "text"),
             ("Range (9 in 10)", "error_text", "text"), ("Low $/M", "usd_per_mtok_low", "usd"),
             ("High $/M", "usd_per_mtok_high", "usd")]
CROSS_SPEC = [("Interactivity [tok/s/user]", "interactivity", "x"), ("$/M tokens at the crossing", "usd_per_mtok", "usd"),
               ("Cheaper below", "cheaper_below", "text"), ("Cheaper above", "cheaper_above", "text"),
               ("May change from [tok/s/user]", "interactivity_low", "x"),
               ("May change to [tok/s/user]", "interactivity_high", "x"),
               ("Within uncertainty", "within_text", "text")]
#: how often the band held on the store's own points (:attr:`model.core.uncertainty.Calibration.table`)
CALIBRATION_TABLE = "How often the range held"
CALIBRATION_SPEC = [("Method", "method", "text"), ("Band from", "kind", "text"),
                    ("Points left out", "points", "int"), ("Inside the band", "inside", "int"),
                    ("Share inside", "share_text", "text"), ("Median distance below [%]", "median_low_pct", "x"),
                    ("Median distance above [%]", "median_high_pct", "x")]
FRONTIER_SPEC = [("Series", "series", "text"), ("Interactivity [tok/s/user]", "interactivity", "x"),
                  ("tok/s/GPU", "tokens_per_second_per_gpu", "tps"), ("$/M tokens", "usd_per_mtok", "usd"),
                  ("$/GPU-hour", "usd_per_gpu_hour", "usd"), ("TP", "tp", "int"), ("EP", "ep", "int"),
                  ("DP", "dp", "int"), ("PP", "pp", "int"), ("Concurrency", "concurrency", "int"),
                  ("Repeats", "repeats", "int"), ("Repeats' min tok/s/GPU", "tput_min", "tps"),
                  ("Repeats' max tok/s/GPU", "tput_max", "tps"),
                  ("Run date", "run_date", "text"), ("Source file", "source_file", "text"),
                  ("Line", "source_line", "int")]

#: the cheapest series as the TTFT cap moves (:attr:`model.present.parts.Answer.goodput_caps`)
CAPS_TABLE = "Cheapest as the TTFT cap moves"
CAPS_SPEC = [("At interactivity [tok/s/user]", "interactivity", "x"), ("TTFT cap [s]", "ttft_cap_s", "text"),
             ("TPOT cap [ms]", "tpot_cap_ms", "text"), ("Cheapest", "cheapest", "text"),
             ("$ per good M tokens", "usd_per_good_mtok", "usd"), ("Runner-up", "runner_up", "text"),
             ("Runner-up $ per good M tokens", "runner_up_usd_per_good_mtok", "usd"),
             ("Points with per-request data", "points_with_requests", "int")]


def _error_text(row) -> str:
    """The band column of the report's iso table: ``± 6 %``, ``−8/+11 %``, ``exact (measured)``, ``not
    estimated (too few points in the store to test)`` or ``—``."""
    if row["status"] not in PRICED:
        return "—"
    if row["error_from"] == "measured":
        return "exact (measured)"
    if row["error_from"] == "none" or row["usd_per_mtok_low"] != row["usd_per_mtok_low"]:
        return "not estimated (too few points in the store to test)"
    text = fmt.band(row["usd_per_mtok"], row["usd_per_mtok_low"], row["usd_per_mtok_high"], row["error_from"])
    return text + " (its own points)" if row["error_from"] == "own" else text


def _iso_frame(iso: pd.DataFrame) -> pd.DataFrame:
    """The iso cells as the report, the CSV and the workbook show them: each with its status in words
    (:func:`model.present.answers.cell_words`) and its ±; priced cells first, cheapest first, at each target (the
    cost step's order: :func:`model.core.unpriced.sort_cells`). ``break_even_usd_per_gpu_hour`` is the cost
    step's: the rate at which the series would cost what the cheapest priced one does there."""
    iso = iso.assign(status_text=cell_words(iso))
    if "usd_per_mtok_low" in iso:
        iso["error_text"] = [_error_text(r) for _, r in iso.iterrows()]
    return sort_cells(iso)


_INPUT_SPEC = [("Input", "input", "text"), ("Value", "value", "text"), ("Where it came from", "source", "text")]
_PARTS_SPEC = [("Profile", "profile", "text"), ("Capital [$/GPU-hour]", "capital", "usd"),
               ("Power [$/GPU-hour]", "power", "usd"), ("Facility [$/GPU-hour]", "facility", "usd"),
               ("Operations [$/GPU-hour]", "operations", "usd"),
               ("At full use [$/GPU-hour]", "usd_per_gpu_hour_full_use", "usd"),
               ("Utilisation", "utilization", "share"), ("Effective [$/GPU-hour]", "usd_per_gpu_hour", "usd")]
_TORNADO_SPEC = [("Input", "label", "text"), ("Base", "base_value", "text"), ("Low (−20 %)", "low_value", "text"),
                 ("High (+20 %)", "high_value", "text"), ("At low", "low", "usd"), ("At high", "high", "usd"),
                 ("Note", "note", "text")]
_HISTORY_SPEC = [("Series", "series", "text"), ("Run date", "run_date", "text"),
                 ("$/M that date alone", "usd_per_mtok", "usd"), ("Status", "status", "text"),
                 ("$/M as of that date", "as_of_usd_per_mtok", "usd"),
                 ("Its range: low $/M", "as_of_usd_per_mtok_low", "usd"),
                 ("Its range: high $/M", "as_of_usd_per_mtok_high", "usd"),
                 ("Best so far $/M", "best_usd_per_mtok", "usd"), ("Best so far set by", "best_from", "text"),
                 ("Source", "source", "text")]


_VOLUME_SPEC = [("Option", "option", "text"), ("$ per month", "usd_per_month", "dollars"),
                ("Effective [$/M tokens]", "effective_usd_per_mtok", "usd"), ("Nodes", "nodes", "int"),
                ("Nodes, mean", "mean_nodes", "x"), ("Node-hours a month", "node_hours", "int"),
                ("Utilisation", "used", "text"), ("Within the capacity's ±", "within", "text"),
                ("Status", "status", "text"), ("How it is priced", "detail", "text")]
_BREAK_EVEN_SPEC = [("Cheaper", "cheaper", "text"), ("Than", "than", "text"),
                    ("Above [tokens/month]", "above_tokens_per_month", "int"), ("In words", "text", "text")]



def marked_of(answer) -> pd.DataFrame:
    """The answer's crossovers marked for uncertainty, with ``within_text`` for people."""
    marked = answer.crossed.marked
    return marked.assign(within_text=[_within_words(r) for r in marked.to_dict("records")]) \
        if not marked.empty else marked


def _within_words(row) -> str:
    if not row["within_uncertainty"]:
        return "no"
    lo, hi = row.get("uncertain_from", np.nan), row.get("uncertain_to", np.nan)
    return (f"yes: from {lo:.1f} to {hi:.1f} tok/s/user the two ranges overlap" if np.isfinite(lo) and np.isfinite(hi)
            else "yes: the two ranges overlap")


def _iso(answer):
    cost = answer.cost
    iso = _iso_frame(iso_shown(cost)) if not cost.iso.empty else cost.iso
    return iso, [(f"Ratio to {cost.baseline}", c, k) if c == "ratio_to_baseline" else (h, c, k)
                 for h, c, k in ISO_SPEC]


def _crossovers(answer):
    return marked_of(answer).sort_values("interactivity", kind="stable"), CROSS_SPEC


def _frontier(answer):
    frontier = answer.cost.analysis.frontier
    return (answer.frontier_table.sort_values(["series", "interactivity"]) if not frontier.empty else frontier,
            FRONTIER_SPEC)


def _fleet(answer):
    fleet = answer.fleet
    if fleet is None or fleet.sized.empty:
        return None
    return fleet.sized, fleet_spec(fleet)


def _history(answer):
    return (answer.history.table, _HISTORY_SPEC) if answer.view.history and not answer.history.table.empty else None


def _volume(answer):
    volume = answer.volume
    if volume is None:
        return None

    return volume.rows.assign(used=volume.rows["utilization"].map(
        lambda v: "—" if v is None or v != v else fmt.percent(v)), within=shown_rows(volume)["within"]), _VOLUME_SPEC


def _break_even_volumes(answer):
    volume = answer.volume
    if volume is None or not volume.break_evens:
        return None
    return pd.DataFrame(list(volume.break_evens)), _BREAK_EVEN_SPEC


def _goodput_caps(answer):
    """The cheapest as the TTFT cap moves, as the Crossovers page shows it (whenever a point in view has
    per-request data; None otherwise)."""
    caps = answer.goodput_caps
    if caps.empty or answer.interactivity_needed is None:
        return None
    return caps.assign(interactivity=answer.interactivity_needed), CAPS_SPEC


#: the run-to-run band beside the interpolation ±, each named (model.core.run_to_run): at each target, and at each
#: frontier point
RUN_TO_RUN_TABLE = "Run-to-run"
RUN_TO_RUN_SPEC = [("Interactivity [tok/s/user]", "interactivity", "x"), ("Series", "series", "text"),
                   ("$/M tokens", "usd_per_mtok", "usd"), ("Interpolation range (9 in 10)", "error_text", "text"),
                   ("Run-to-run low [$/M]", "run_to_run_low", "usd"), ("Run-to-run high [$/M]", "run_to_run_high", "usd"),
                   ("Run-to-run from", "run_to_run_from", "text")]


def run_to_run_frame(answer) -> pd.DataFrame:
    """The iso cells with their interpolation ± and their run-to-run $/M band side by side."""
    iso = _iso_frame(answer.cost.iso_error)
    band = answer.run_to_run.iso
    if band.empty:
        return iso.assign(run_to_run_low=math.nan, run_to_run_high=math.nan, run_to_run_from="")
    return iso.merge(band, on=["series", "interactivity"], how="left")


def _run_to_run(answer):
    """The run-to-run table, when a point in view states an interval (None otherwise)."""
    if not answer.run_to_run.any or answer.cost.iso.empty:
        return None
    return run_to_run_frame(answer), RUN_TO_RUN_SPEC


def _calibration(answer):
    """How often the band held when each of the store's measured points was left out (the method section's
    table); None when the store has no point to test."""
    table = answer.cost.uncertainty.calibration.table
    if table.empty:
        return None
    return table.assign(share_text=[f"{r.share_inside:.0%} (target 90 %)" for r in table.itertuples()]), \
        CALIBRATION_SPEC


def _provenance_table(answer):
    frame = answer.provenance
    return frame, text_spec(frame)


def profile_tables(pa) -> dict[str, tuple[pd.DataFrame, list]]:
    """The tables of one cost profile (:class:`model.present.parts.ProfileAnswer`): its inputs, its parts
    and, for a priced build-up, its sensitivity."""
    p = pa.profile
    out = {f"Inputs: {p.name}": (pa.inputs, _INPUT_SPEC), f"Parts: {p.name}": (pa.parts.copy(), _PARTS_SPEC)}
    if pa.tornado is not None:
        unit = pa.tornado_unit
        swing = pa.tornado.assign(low=pa.tornado[f"{unit}_low"], high=pa.tornado[f"{unit}_high"])
        for column in ("base_value", "low_value", "high_value"):
            swing[column] = swing[column].map(lambda v: f"{v:,.6g}")
        out[f"Sensitivity: {p.name}"] = (swing, [(h, c, k) if c not in ("low", "high") else
                                                 (f"{h} [{'$/M' if unit == 'usd_per_mtok' else '$/GPU-hour'}]", c, k)
                                                 for h, c, k in _TORNADO_SPEC])
    return out


#: name -> builder of (frame, spec), or None when the view has no such table
_BUILDERS = {"Cost at matched interactivity": _iso, "Crossovers": _crossovers, "Frontier points": _frontier,
             "Fleet": _fleet, "History by run date": _history, "Buy, rent or API": _volume,
             "Break-even volumes": _break_even_volumes, CAPS_TABLE: _goodput_caps, "Provenance": _provenance_table,
             RUN_TO_RUN_TABLE: _run_to_run, CALIBRATION_TABLE: _calibration}


#: the parts of an answer each table reads (a surface offering a table's CSV asks for these)
TABLE_PARTS = {"Cost at matched interactivity": ("cost", "crossed"), "Crossovers": ("crossed",),
               "Frontier points": ("cost", "frontier_table"), "Fleet": ("fleet",), "History by run date": ("history",),
               "Buy, rent or API": ("volume",), "Break-even volumes": ("volume",), CAPS_TABLE: ("goodput_caps",),
               "Provenance": ("provenance",), RUN_TO_RUN_TABLE: ("cost", "run_to_run"),
               CALIBRATION_TABLE: ("cost",), **ISSUE52_PARTS}


def table_of(answer, name: str) -> tuple[pd.DataFrame, list] | None:
    """The table ``name`` of ``answer`` (:class:`model.present.parts.Answer`) as (frame, spec); None when the
    view has none by that name."""
    if name in _BUILDERS:
        return _BUILDERS[name](answer)
    if name in ISSUE52_PARTS:
        return issue52_tables(answer).get(name)
    for pa in answer.profiles:
        found = profile_tables(pa).get(name)
        if found is not None:
            return found
    return None


def tables(answer) -> dict[str, tuple[pd.DataFrame, list]]:
    """Every table of ``answer`` in the report's order: the three page tables, the cheapest as the TTFT cap moves
    (when the view sets goodput caps), each cost profile's, the fleet, the history (when the view asks for it),
    buy-rent-or-API, then the provenance."""
    out = {name: _BUILDERS[name](answer) for name in PAGE_TABLES}
    if answer.view.goodput and (caps := _goodput_caps(answer)) is not None:   # a view pricing good tokens
        out[CAPS_TABLE] = caps
    for pa in answer.profiles:
        out.update(profile_tables(pa))
    for name in ("Fleet", "History by run date", "Buy, rent or API", "Break-even volumes", RUN_TO_RUN_TABLE,
                 CALIBRATION_TABLE, "Provenance"):
        if name == RUN_TO_RUN_TABLE and "run_to_run" not in answer.ran:    # a surface that did not ask for it
            continue
        if name == "Provenance":          # the seller's side, the $/M cap, the bill by tenant (issue 52)
            out.update(issue52_tables(answer))
        found = _BUILDERS[name](answer)
        if found is not None:
            out[name] = found
    return out


def rounded(answer, name: str) -> pd.DataFrame:
    """The table ``name`` as a download gives it: rounded for people, headers in words (a page's CSV)."""
    found = table_of(answer, name)
    if found is None:
        raise KeyError(f"no table {name!r} in this view")
    return table_frames(*found)[1]


# ------------------------------------------------------------------ the cheapest mix of GPU types (issue 43)

#: the GPU mix page's decision table, the report's "GPU mix" and its downloads: one row per GPU type the answer buys
MIX_FLEET_SPEC = [("GPU type", "type", "text"), ("Nodes", "nodes", "int"), ("Spares", "spares", "int"),
                  ("GPUs", "gpus", "int"), ("$/GPU-hour paid", "usd_per_gpu_hour", "usd"),
                  ("$ per month", "usd_per_month", "dollars"), ("IT power [kW]", "kw", "tps"),
                  ("Utilisation", "utilization_text", "text"), ("Peak utilisation", "peak_utilization_text", "text"),
                  ("Serves", "serves", "text")]
MIX_BUCKET_SPEC = [("Bucket", "label", "text"), ("ISL [tokens]", "isl", "int"), ("OSL [tokens]", "osl", "int"),
                   ("Share of requests", "share_text", "text"), ("Peak [req/s]", "peak_rps", "rps"),
                   ("Requests in the trace", "requests", "int"), ("Measured", "measured_text", "text"),
                   ("Note", "note", "text")]
MIX_SINGLE_SPEC = [("GPU type", "type", "text"), ("Nodes", "nodes", "int"), ("$ per month", "usd_per_month", "dollars"),
                   ("Solver", "status", "text"), ("Note", "note", "text")]
MIX_CROSSOVER_SPEC = [("Long requests", "long_share_text", "text"), ("Mix [$ per month]", "mix_usd_per_month", "dollars"),
                      ("The mix", "mix_types", "text"), ("Best single type", "best_single", "text"),
                      ("Best single type [$ per month]", "best_single_usd_per_month", "dollars"),
                      ("Saving [$ per month]", "saving_usd_per_month", "dollars")]
#: the tables of a mix, by name, in the order the page and the report show them
MIX_TABLES = ("GPU mix", "GPU mix: buckets", "GPU mix: each type alone", "GPU mix: along the share of long requests")


def _percent_text(values: pd.Series, digits: int = 1) -> list[str]:
    return ["—" if v is None or v != v else f"{float(v):.{digits}%}" for v in values]


def mix_tables(mix) -> dict[str, tuple[pd.DataFrame, list]]:
    """The tables of a mix (:class:`model.core.mix.MixAnswer`) as (frame, spec), by name (:data:`MIX_TABLES`): the
    fleet it buys, the buckets (measured or not, and why), each type alone, and the crossover along the mix (when
    there is one). The GPU mix page, the report's section and its CSV/XLSX read these."""
    fleet = mix.fleet.assign(utilization_text=_percent_text(mix.fleet["utilization"]),
                             peak_utilization_text=_percent_text(mix.fleet["peak_utilization"]))
    buckets = mix.buckets.assign(share_text=_percent_text(mix.buckets["share"]),
                                 measured_text=["yes" if m else "no: not in the fleet" for m in mix.buckets["measured"]])
    out = {"GPU mix": (fleet, MIX_FLEET_SPEC), "GPU mix: buckets": (buckets, MIX_BUCKET_SPEC),
           "GPU mix: each type alone": (mix.single, MIX_SINGLE_SPEC)}
    if mix.crossover is not None:
        out["GPU mix: along the share of long requests"] = (
            mix.crossover.assign(long_share_text=_percent_text(mix.crossover["long_share"], 0)), MIX_CROSSOVER_SPEC)
    return out


# ------------------------------------------------------------------ plan against actual (issue 42)

#: the tables of a comparison, by name (:func:`plan_tables`)
PLAN_TABLES = ("Plan vs actual", "Plan vs actual: at the realised volume", "Plan vs actual: how close to the limits")
_SATURATION_SPEC = [("Period", "period", "text"), ("Engines", "engines", "int"), ("Engine-hours", "engine_hours", "int"),
                    ("KV-cache use, mean", "kv_mean", "text"), ("KV p95 (highest)", "kv_p95", "text"),
                    ("KV max", "kv_max", "text"), ("Hours with requests waiting", "hours_with_queue", "int"),
                    ("Queue max", "queue_depth_max", "int"), ("Running, mean", "running_requests_mean", "text"),
                    ("Ceiling seen", "running_ceiling_seen", "int"), ("Preemptions", "preemptions", "int"),
                    ("Plan's utilisation", "plan_text", "text"), ("At its limits", "limit_text", "text")]
_PLAN_OPTIONS_SPEC = [("Option", "option", "text"), ("$ per month at the realised volume", "usd_per_month", "dollars"),
                      ("Over the period", "usd_over_period", "dollars"),
                      ("Effective [$/M tokens]", "effective_usd_per_mtok", "usd"), ("Nodes", "nodes", "int")]


def plan_spec(basis: str) -> list[tuple[str, str, str]]:
    """The plan-vs-actual table's columns, tokens and $/M on the plan's token ``basis``: tokens served, their share
    of the plan's volume, the implied utilisation of the planned fleet and the input that explains most of the $/M
    variance."""
    return [("Period", "period", "text"), ("Hours", "hours", "int"), ("Realised $", "usd", "usd"),
            ("Planned $", "planned_usd", "usd"), (f"{basis.capitalize()} tokens", "tokens_text", "text"),
            ("Of plan", "volume_ratio_text", "text"), ("Realised [$/M]", "realised", "usd"),
            ("Planned [$/M]", "planned", "usd"), ("Plan's ±", "planned_range", "text"),
            ("Utilisation", "utilization_text", "text"), ("Explained by", "explained_by", "text")]


def plan_frame(comparison) -> pd.DataFrame:
    """One row per period of a comparison (:class:`model.core.actuals.Comparison`) and the total: realised and
    planned $ and $/M on the plan's basis (``period_start``, ``period_end``: naive UTC timestamps; the total's span
    every period), tokens served, the share of the plan's volume, the implied utilisation and the input that
    explains most of the $/M variance. The page's table and chart, the report's section and its downloads."""
    basis, rows = comparison.plan.basis, []
    for entry in [*comparison.periods, {**comparison.total, "_total": True}]:
        mtok = entry["usd_per_mtok"][basis]
        low, high = mtok["planned_low"], mtok["planned_high"]
        start, end = pd.Timestamp(entry["period_start"]), pd.Timestamp(entry["period_end"])
        rows.append({"period": "total" if entry.get("_total") else f"{start:%Y-%m-%d}–{end:%Y-%m-%d}",
                     "period_start": start, "period_end": end, "total": bool(entry.get("_total")),
                     "hours": entry["hours"], "usd": entry["usd"], "planned_usd": entry["planned_usd"],
                     "tokens": entry["tokens_on_basis"], "planned_tokens": entry["planned_tokens_on_basis"],
                     "tokens_text": "—" if entry["tokens_on_basis"] is None else f"{entry['tokens_on_basis']:,.0f}",
                     "volume_ratio": entry["volume_ratio"], "realised": mtok["realised"], "planned": mtok["planned"],
                     "planned_low": low, "planned_high": high,
                     "planned_range": (f"{fmt.usd(low)}–{fmt.usd(high)}" if low is not None and high is not None
                                       and high - low > 1e-12 else "exact (measured)" if comparison.plan.error == 0
                                       else "—"),
                     "implied_utilization": entry["implied_utilization"], "explained_by": mtok["explained_by"] or "—"})
    frame = pd.DataFrame(rows)
    return frame.assign(volume_ratio_text=_percent_text(frame["volume_ratio"]),
                        utilization_text=_percent_text(frame["implied_utilization"]))


def plan_tables(comparison) -> dict[str, tuple[pd.DataFrame, list]]:
    """The tables of a comparison as (frame, spec), by name (:data:`PLAN_TABLES`): period by period and the total,
    and the plan's options re-run at the realised volume (when there are any)."""
    out = {"Plan vs actual": (plan_frame(comparison), plan_spec(comparison.plan.basis))}
    realised = comparison.at_realised
    if realised and realised["options"]:
        out["Plan vs actual: at the realised volume"] = (pd.DataFrame(realised["options"]), _PLAN_OPTIONS_SPEC)
    if comparison.saturation:
        out["Plan vs actual: how close to the limits"] = (saturation_frame_of(comparison), _SATURATION_SPEC)
    return out


def saturation_frame_of(comparison) -> pd.DataFrame:
    """How close the fleet ran to its limits (:func:`model.core.saturation.summary`), the total first, then each
    period that has figures, beside the plan's utilisation."""
    sat = comparison.saturation
    rows = []
    for label, s in [("total", sat["total"]), *((f"{pd.Timestamp(p['period_start']):%Y-%m-%d}–"
                                                 f"{pd.Timestamp(p['period_end']):%Y-%m-%d}", q)
                                                for p, q in zip(comparison.periods, sat["periods"]) if q)]:
        rows.append({"period": label, **s, "kv_mean": fmt.percent(s["kv_cache_usage_mean"]),
                     "kv_p95": fmt.percent(s["kv_cache_usage_p95"]), "kv_max": fmt.percent(s["kv_cache_usage_max"]),
                     "running_requests_mean": "—" if s["running_requests_mean"] is None
                     else f"{s['running_requests_mean']:,.1f}",
                     "plan_text": fmt.percent(s["plan_utilization"]), "limit_text": "yes" if s["at_limit"] else "no"})
    return pd.DataFrame(rows)
