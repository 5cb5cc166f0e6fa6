"""Step ``provenance`` of an answer: every source whose rows or rates the view uses, with its SHA-256, run dates
and row counts (the report's Provenance table, the bundle's, the Data page's)."""

from __future__ import annotations

import pandas as pd

from model.core.analysis import Analysis
from model.data.presets import builtin_presets

__all__ = ["provenance_of"]


def provenance_of(sources: pd.DataFrame, points: pd.DataFrame, result: Analysis) -> pd.DataFrame:
    """Step ``provenance``: every source whose rows or rates this view uses: name, format, SHA-256, run dates, row
    counts (``points``: the rows the answer prices; ``result``: its analysis)."""

    in_view = points["source_id"].value_counts() if not points.empty else pd.Series(dtype=int)
    on_frontier = result.frontier["source_id"].value_counts() if not result.frontier.empty else pd.Series(dtype=int)
    used = sources[sources["source_id"].isin(in_view.index)].copy()
    used["use"] = "benchmark rows"
    overrides = {hw.lower() for hw, _ in result.scenario.rates}
    preset_priced = any(hw.lower() not in overrides for hw in result.usd_per_gpu_hour)
    if preset_priced:
        rates = sources[sources["kind"] == "tco_rates"].copy()
        rates["use"] = "$/GPU-hour presets"
        used = pd.concat([used, rates], ignore_index=True)
        name, rows, builtin = builtin_presets()
        if builtin not in set(rates["sha256"]):
            used = pd.concat([used, pd.DataFrame([{
                "source_id": pd.NA, "file_name": name, "format": "csv", "kind": "tco_rates",
                "rows": rows, "sha256": builtin, "use": "$/GPU-hour presets (built in)"}])], ignore_index=True)
    used = used.sort_values(["use", "file_name"], kind="stable")

    def dates(row) -> str:
        first, last = row.get("first_run_date"), row.get("last_run_date")
        if first is None or pd.isna(first):
            return "not stated"
        first, last = str(first)[:10], str(last)[:10]
        return first if first == last else f"{first} to {last}"

    return pd.DataFrame({
        "File": used["file_name"].astype(str),
        "Format": used["format"].astype(str),
        "Used for": used["use"],
        "SHA-256": used["sha256"].astype(str),
        "Run date": [dates(r) for r in used.to_dict("records")],
        "Rows in file": [int(v) for v in used["rows"]],
        "Rows in view": [int(in_view.get(i, 0)) if pd.notna(i) else 0 for i in used["source_id"]],
        "Measured rows on a frontier": [int(on_frontier.get(i, 0)) if pd.notna(i) else 0 for i in used["source_id"]],
    })
