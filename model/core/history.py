"""History by run date: each series' $/M at one interactivity, run date by run date.

Pure functions over pandas frames; no I/O. For every run date ``d`` of the rows (rows that state no
run date are left out and counted, never given one) and every series that ran on ``d``:

- ``usd_per_mtok``: the series' $/M at ``x`` from the frontier of ``d``'s runs alone, and ``status``, its cell's
  status (:data:`model.core.status.STATUSES`; ``missing`` when that date's runs give the series no curve);
- ``as_of_usd_per_mtok``: from the frontier of every run on or before ``d``, exactly what a view
  ``as_of=d`` gives (the repeats choice applies to both), when priced (measured or interpolated: a clamped value
  is never a step);
- ``as_of_usd_per_mtok_low``/``_high``: its band (:mod:`model.core.uncertainty`: where 9 in 10 measured points
  left out fell; the value itself at a measured point), calibrated on the store's frontiers (``calibration``);
- ``best_usd_per_mtok``: the best so far, a staircase that never rises: a date's as-of value is a new step only
  when it lies below the band of the step before (``best_usd_per_mtok_low``), so a value the interpolation alone
  could explain never counts as progress; one lower, but inside that band, keeps the step and says so in
  ``note``, as does one above it (a later run *lowered* the interpolated frontier at ``x``, or a latest/median
  repeat is worse).
- ``source``: the files of ``d``'s runs of the series; ``best_from``: the run (date and files) whose
  as-of frontier set the current step.
"""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from model.core.analysis import analyse
from model.core.frontier import series_labels
from model.core.iso import iso_table
from model.core.repeats import choose_repeats, run_dates, runs_in_view
from model.core.status import PRICED
from model.core.uncertainty import Calibration, chosen_method, iso_with_error, no_calibration, uncertainty

if TYPE_CHECKING:
    from model.core.view import View

__all__ = ["HISTORY_COLUMNS", "history"]

HISTORY_COLUMNS = ["series", "run_date", "usd_per_mtok", "status", "as_of_usd_per_mtok", "as_of_usd_per_mtok_low",
                   "as_of_usd_per_mtok_high", "best_usd_per_mtok", "best_usd_per_mtok_low", "best_usd_per_mtok_high",
                   "source", "best_from", "note"]
_AT = ["series", "usd_per_mtok", "status", "usd_per_mtok_low", "usd_per_mtok_high"]


def _at(rows: pd.DataFrame, scenario: View, presets: pd.DataFrame, x: float,
        calibration: Calibration) -> pd.DataFrame:
    """Every series' iso row at ``x`` from ``rows`` with its band (:data:`_AT`), by the scenario's method (resolved:
    the same for every date)."""
    if rows.empty:
        return pd.DataFrame(columns=_AT)
    result = analyse(rows, scenario, presets, crossovers="none", calibration=calibration)
    method = result.scenario.method
    iso = iso_table(result.curves, [x], method)
    return iso_with_error(iso, result.curves, uncertainty(result.curves, method, calibration))[_AT]


def _labels(rows: pd.DataFrame, scenario: View) -> pd.Series:
    return series_labels(rows, scenario.by)


def history(rows: pd.DataFrame, scenario: View, x: float, presets: pd.DataFrame,
            repeats: str = "pooled", as_of: date | None = None, calibration: Calibration | None = None
            ) -> tuple[pd.DataFrame, list[str]]:
    """The history table (:data:`HISTORY_COLUMNS`, by series then run date) at interactivity ``x``
    [tok/s/user], and notes (rows without a run date, steps where the as-of frontier rose).

    ``rows``: the view's rows before any run-date or repeat choice; ``as_of`` ends the history there;
    ``calibration``: the store's (:func:`model.core.uncertainty.store_calibration`) for the bands and, when the
    scenario asks for ``auto``, the method, one for every date (so each as-of value is what ``iso --as-of`` gives).
    """
    calibration = calibration if calibration is not None else no_calibration()
    scenario = scenario.model_copy(update={"method": chosen_method(scenario.method, calibration)})
    notes: list[str] = []
    dates = run_dates(rows)
    undated = int(dates.isna().sum())
    if undated:
        notes.append(f"{undated} of {len(rows)} rows {'states' if undated == 1 else 'state'} no run date: left out of "
                     "the history (never given one)")
    dated = rows[dates.notna().to_numpy()]
    dates = dates[dates.notna()]
    if as_of is not None:
        keep = (dates <= pd.Timestamp(as_of)).to_numpy()
        dated, dates = dated[keep], dates[keep]
    if dated.empty:
        return pd.DataFrame(columns=HISTORY_COLUMNS), notes
    labels = _labels(dated, scenario)
    files = dated["source_file"].astype(str) if "source_file" in dated.columns else pd.Series("", index=dated.index)
    out = []
    best: dict[str, tuple[float, float, float, str]] = {}
    for day in sorted(dates.unique()):
        on_day = (dates == day).to_numpy()
        alone = _at(choose_repeats(dated[on_day], repeats, scenario.by), scenario, presets, x, calibration)
        alone = alone.set_index("series")
        upto = _at(runs_in_view(dated, pd.Timestamp(day).date(), repeats, scenario.by).rows, scenario, presets, x,
                   calibration).set_index("series")
        text = pd.Timestamp(day).date().isoformat()
        for series in sorted(labels[on_day].unique()):
            mine = on_day & (labels == series).to_numpy()
            source = ", ".join(sorted(set(files[mine])))
            usd = float(alone.loc[series, "usd_per_mtok"]) if series in alone.index else np.nan
            status = str(alone.loc[series, "status"]) if series in alone.index else "missing"
            # only a priced value (measured or interpolated) sets a step; a clamped one is shown, never ranked
            priced = series in upto.index and upto.loc[series, "status"] in PRICED
            as_of_usd, low, high = ((float(upto.loc[series, c]) for c in ("usd_per_mtok", "usd_per_mtok_low",
                                                                          "usd_per_mtok_high"))
                                    if priced else (np.nan, np.nan, np.nan))
            note = ""
            if as_of_usd == as_of_usd:
                if series not in best:
                    best[series] = (as_of_usd, low, high, f"{text} · {source}")
                else:
                    floor = best[series][1] if best[series][1] == best[series][1] else best[series][0]
                    if as_of_usd < floor - 1e-12:
                        best[series] = (as_of_usd, low, high, f"{text} · {source}")
                    elif as_of_usd < best[series][0] - 1e-12:
                        note = (f"the frontier as of {text} gives ${as_of_usd:.4g}/M at {x:g} tok/s/user, below the "
                                f"best so far (${best[series][0]:.4g}/M) but inside its range (from "
                                f"${floor:.4g}/M): not a new step")
                    elif as_of_usd > best[series][0] + 1e-12:
                        note = (f"the frontier as of {text} gives ${as_of_usd:.4g}/M at {x:g} tok/s/user, above the "
                                f"best so far (${best[series][0]:.4g}/M): the step stays")
            b = best.get(series)
            out.append({"series": series, "run_date": text, "usd_per_mtok": usd, "status": status,
                        "as_of_usd_per_mtok": as_of_usd, "as_of_usd_per_mtok_low": low,
                        "as_of_usd_per_mtok_high": high, "best_usd_per_mtok": b[0] if b else np.nan,
                        "best_usd_per_mtok_low": b[1] if b else np.nan, "best_usd_per_mtok_high": b[2] if b else np.nan,
                        "source": source, "best_from": b[3] if b else "", "note": note})
    frame = pd.DataFrame(out, columns=HISTORY_COLUMNS)
    risen = int(frame["note"].str.contains("above the best").sum())
    if risen:
        notes.append(f"{risen} history {'row' if risen == 1 else 'rows'} where the frontier as of that date is dearer at {x:g} tok/s/user than "
                     "an earlier one (a new run lowered the interpolated frontier, or a repeat choice replaced a "
                     "better run); best so far keeps the earlier step")
    within = int(frame["note"].str.contains("inside its range").sum())
    if within:
        notes.append(f"{within} history {'row' if within == 1 else 'rows'} where the frontier as of that date is "
                     f"cheaper at {x:g} tok/s/user than the best so far, but inside its range: the interpolation "
                     "alone could explain it, so best so far keeps the earlier step")
    return frame.sort_values(["series", "run_date"], kind="stable", ignore_index=True), notes
