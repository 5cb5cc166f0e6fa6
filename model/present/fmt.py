"""Numbers formatted for people: the one place the pages, the CLI and reports take text from.

Money has two decimals, and below $0.10 at least two significant digits (never "$0.000" for a
cost that is not zero), interactivity one decimal, ratios read
"1.41x", dates are dates, and column names are words with units.
"""

from __future__ import annotations

import math

import pandas as pd

__all__ = ["usd", "usd_decimals", "dollars", "USD_PLAIN_LOW", "USD_PLAIN_HIGH", "interactivity", "ratio", "percent",
           "plus_minus", "usd_pm", "usd_span", "band", "band_pm", "usd_band", "compact", "amount", "yes_no", "date", "count", "tokens",
           "COLUMN_LABELS", "for_people", "sentence"]


def _missing(value) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    try:
        return not math.isfinite(float(value))
    except (TypeError, ValueError):
        return False


#: money below this (and above 0) [$] or from USD_PLAIN_HIGH up is written with significant digits and a power
#: of ten (``$4.9e-324/M``, ``$5.42e+302``), never as hundreds of digits
USD_PLAIN_LOW = 1e-7
USD_PLAIN_HIGH = 1e15


def usd_decimals(value) -> int:
    """Decimals money is shown with: 2 from $0.10 up (and for zero), else 3 or as many as give two
    significant digits (``0.0612`` -> 3, ``0.00042`` -> 5), at most 8 (below :data:`USD_PLAIN_LOW` money has
    significant digits, :func:`usd`). The one rule of :func:`usd` and the report's rounding."""
    value = abs(float(value))
    if value >= 0.1 or value == 0 or not math.isfinite(value):
        return 2
    return min(8, max(3, 1 - math.floor(math.log10(value))))


def _far(value: float) -> bool:
    return 0 < abs(value) < USD_PLAIN_LOW or abs(value) >= USD_PLAIN_HIGH


def usd(value, per: str = "/M") -> str:
    """``0.2194`` -> ``"$0.22/M"``; ``0.0612`` -> ``"$0.061/M"``; ``0.000423`` -> ``"$0.00042/M"``;
    ``5e-324`` -> ``"$4.9e-324/M"``; ``5.4e302`` -> ``"$5.42e+302/M"``; missing -> ``"—"``. A cost that is not
    zero never reads ``$0.00``, and no amount has more than about 20 characters."""
    if _missing(value):
        return "—"
    value = float(value)
    if _far(value):
        return f"${value:.{2 if abs(value) < 1 else 3}g}{per}"
    return f"${value:,.{usd_decimals(value)}f}{per}"


def dollars(value) -> str:
    """Whole dollars: ``156604.2`` -> ``"$156,604"``; from :data:`USD_PLAIN_HIGH` up with a power of ten
    (``"$6.56e+307"``); below a dollar as :func:`usd` (``"$0.42"``); missing -> ``"—"``."""
    if _missing(value):
        return "—"
    value = float(value)
    return usd(value, "") if _far(value) or abs(value) < 1 and value != 0 else f"${value:,.0f}"


def interactivity(value) -> str:
    """``89.3949`` -> ``"89.4 tok/s/user"``."""
    return "—" if _missing(value) else f"{float(value):,.1f} tok/s/user"


def ratio(value) -> str:
    """``1.4123`` -> ``"1.41x"``."""
    return "—" if _missing(value) else f"{float(value):.2f}x"


def percent(fraction, digits: int = 0) -> str:
    """``0.2345`` -> ``"23%"``; below 1% but above 0 keeps one decimal (``"0.4%"``)."""
    if _missing(fraction):
        return "—"
    value = float(fraction) * 100
    if digits == 0 and 0 < abs(value) < 1:
        digits = 1
    return f"{value:.{digits}f}%"


def plus_minus(fraction, origin: str = "") -> str:
    """The interpolation error beside a value: ``0.061`` -> ``"± 6 %"``, below 1 % one decimal (``"± 0.4 %"``);
    ``origin`` ``"measured"`` -> ``"(measured)"``; no estimate -> ``"± ?"``. See :mod:`model.core.uncertainty`."""
    if origin == "measured":
        return "(measured)"
    if _missing(fraction):
        return "± ?"
    value = float(fraction) * 100
    return f"± {value:.1f} %" if 0 < value < 1 else f"± {value:.0f} %"


def usd_pm(value, fraction, origin: str = "", per: str = "/M") -> str:
    """A price with its ±, the one way a ± is written beside a number: ``(0.3649, 0.167)`` -> ``"$0.36/M ± 17 %"``;
    a measured point -> ``"$0.36/M (measured)"``."""
    return f"{usd(value, per)} {plus_minus(fraction, origin)}"


def usd_span(low, high, per: str = "/M") -> str:
    """A range of prices: ``(0.304, 0.426)`` -> ``"$0.30 to $0.43/M"``; two ends that differ never print alike
    (``(0.4012, 0.4049)`` -> ``"$0.401 to $0.405/M"``)."""
    a, b = usd(low, ""), usd(high, per)
    if _missing(low) or _missing(high) or float(low) == float(high) or a != usd(high, ""):
        return f"{a} to {b}"
    for digits in range(3, 10):          # as many significant digits as tell the two ends apart
        a, b = f"${float(low):,.{digits}g}", f"${float(high):,.{digits}g}"
        if a != b:
            break
    return f"{a} to {b}{per}"


def _pct(fraction: float) -> str:
    value = abs(fraction) * 100
    return f"{value:.1f}" if 0 < value < 1 else f"{value:,.0f}"


def band(value, low, high, origin: str = "") -> str:
    """A value's band (:mod:`model.core.uncertainty`) beside it, as how far each end lies from it:
    ``(0.37, 0.34, 0.41)`` -> ``"−8/+11 %"``; two ends the same distance away (as printed) -> ``"± 6 %"``;
    ``origin`` ``"measured"`` -> ``"(measured)"``; no band -> ``"± ?"``."""
    if origin == "measured":
        return "(measured)"
    if _missing(value) or _missing(low) or _missing(high) or float(value) <= 0:
        return "± ?"
    return band_pm(1 - float(low) / float(value), float(high) / float(value) - 1)


def band_pm(down, up) -> str:
    """A band as fractions below and above a value: ``(0.08, 0.11)`` -> ``"−8/+11 %"``, ``(0.06, 0.06)`` ->
    ``"± 6 %"``; missing -> ``"± ?"``."""
    if _missing(down) or _missing(up):
        return "± ?"
    if _pct(down) == _pct(up):
        return f"± {_pct(up)} %"
    return f"−{_pct(down)}/+{_pct(up)} %"


def usd_band(value, low, high, origin: str = "", per: str = "/M") -> str:
    """A price with its band, the one way a band is written beside a number: ``$0.37/M −8/+11 %``,
    ``$0.37/M ± 6 %``, ``$0.36/M (measured)``, ``$0.36/M ± ?``."""
    return f"{usd(value, per)} {band(value, low, high, origin)}"


def compact(value) -> str:
    """A large count as people type it: ``16e9`` -> ``"16 B"``, ``1.25e9`` -> ``"1.25 B"``, ``5.26e8`` -> ``"526 M"``,
    ``1200`` -> ``"1,200"`` (three significant digits at most, no trailing zeros)."""
    if _missing(value):
        return "—"
    value = float(value)
    for size, unit in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
        if abs(value) >= size:
            return f"{float(f'{value / size:.3g}'):,g} {unit}"
    return f"{value:,.0f}" if abs(value) >= 1000 or value == int(value) else f"{value:.3g}"


def amount(value) -> str:
    """A typed quantity without exponent notation: ``2.5e6`` -> ``"2,500,000"``, ``0.0806`` -> ``"0.0806"``,
    ``True`` -> ``"yes"``."""
    if isinstance(value, bool):
        return yes_no(value)
    if _missing(value):
        return "—"
    value = float(value)
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:,.6f}".rstrip("0").rstrip(".")


def yes_no(value) -> str:
    """A flag for people: ``"yes"`` or ``"no"``."""
    return "yes" if value else "no"


def date(value) -> str:
    """A timestamp or date as ``2026-05-20`` (time of day dropped when it is midnight)."""
    if _missing(value):
        return "not stated"
    stamp = pd.Timestamp(value)
    return stamp.strftime("%Y-%m-%d") if stamp == stamp.normalize() else stamp.strftime("%Y-%m-%d %H:%M")


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``count(1, "row")`` -> ``"1 row"``; ``count(3, "row")`` -> ``"3 rows"``."""
    return f"{n:,} {noun if n == 1 else (plural or noun + 's')}"


def tokens(value) -> str:
    """A token count for people: ``1.99e9`` -> ``"1.99 B"``, ``4.5e7`` -> ``"45.0 M"``; missing -> ``"—"``."""
    if _missing(value):
        return "—"
    value = float(value)
    if abs(value) >= 1e9:
        return f"{value / 1e9:,.2f} B"
    if abs(value) >= 1e6:
        return f"{value / 1e6:,.1f} M"
    return f"{value:,.0f}"


#: column -> header in words with units
COLUMN_LABELS = {
    "series": "Series", "series_a": "Series A", "series_b": "Series B", "hardware": "Hardware",
    "framework": "Framework", "precision": "Precision", "spec_decoding": "Speculative decoding",
    "interactivity": "Interactivity [tok/s/user]", "tokens_per_second_per_gpu": "Throughput [tok/s/GPU]",
    "usd_per_mtok": "Cost [$/M tokens]", "usd_per_gpu_hour": "Rate [$/GPU-hour]",
    "ttft_cap_s": "TTFT cap [s]", "tpot_cap_ms": "TPOT cap [ms]", "cheapest": "Cheapest",
    "usd_per_good_mtok": "Cost [$ per good M tokens]", "runner_up": "Runner-up",
    "runner_up_usd_per_good_mtok": "Runner-up [$ per good M tokens]",
    "points_with_requests": "Points with per-request data",
    "min_interactivity": "Lowest interactivity [tok/s/user]", "max_interactivity": "Highest interactivity [tok/s/user]",
    "usd_per_mtok_at_min": "Cost at lowest [$/M]", "usd_per_mtok_at_max": "Cost at highest [$/M]",
    "best_usd_per_mtok": "Best so far [$/M]", "as_of_usd_per_mtok": "As of that date [$/M]",
    "best_from": "Best so far set by", "run_date": "Run date", "tput_min": "Repeats' min [tok/s/GPU]",
    "tput_max": "Repeats' max [tok/s/GPU]",
    "cheaper_below": "Cheaper below", "cheaper_above": "Cheaper above", "tp": "TP", "ep": "EP", "dp": "DP",
    "pp": "PP", "concurrency": "Concurrency", "source_file": "Source file", "source_line": "Line",
    "file_name": "File", "format": "Format", "kind": "Kind", "rows": "Rows", "ingested_at": "Ingested",
    "notes": "Notes", "first_run_date": "First run", "last_run_date": "Last run", "source_id": "Source #",
    "status": "Status", "request_rate": "Request rate [req/s]", "tokens_per_second_per_node": "Throughput [tok/s/node]",
    "basis": "Token basis", "ttft_s": "TTFT [s]", "first_failure": "First failure", "model": "Model",
    "eval": "Evaluation", "setting": "Setting", "score": "Score", "stderr": "Std. error", "drop": "Drop",
    "flagged": "Flagged", "reason": "Why", "price_set": "Price set", "tier": "Tier",
    "all_in_kw_per_gpu": "All-in power [kW/GPU]", "source": "Source", "gpus": "GPUs",
    "usd_per_gpu_hour_preset": "Preset [$/GPU-hour]", "pricing": "Priced by", "per_node_rps": "Per node [req/s]",
    "nodes": "Nodes", "kw": "IT power [kW]", "facility_kw": "Facility power [kW]", "usd_per_month": "$ per month",
    "usd_per_year": "$ per year",
    "note": "Note", "limit": "Budget that binds", "requests_per_second": "Serves [req/s]",
    "tokens_per_second": "Serves [tok/s]", "users": "Users at the interactivity", "method": "Capacity from",
    "capacity_from": "Measured point", "profile": "Profile", "capital": "Capital [$/GPU-hour]",
    "power": "Power [$/GPU-hour]", "facility": "Facility [$/GPU-hour]", "operations": "Operations [$/GPU-hour]",
    "usd_per_gpu_hour_full_use": "At full use [$/GPU-hour]", "utilization": "Utilisation",
    "option": "Option", "effective_usd_per_mtok": "Effective [$/M tokens]",
    "tokens_per_month": "Tokens per month", "mean_nodes": "Nodes following the load, mean",
    "node_hours": "Node-hours a month", "usd_per_month_autoscaled": "Rented on demand: $ per month following the load",
    "usd_per_gpu_hour_autoscaled": "Rented on demand [$/GPU-hour]",
    "effective_usd_per_mtok_autoscaled": "Rented on demand: effective [$/M tokens]",
    "utilization_autoscaled": "Rented on demand: utilisation", "mean_rps": "Mean [req/s]",
    "within": "Within the capacity's ±",
}

_MONEY = ("usd_per_mtok", "usd_per_mtok_at_min", "usd_per_mtok_at_max", "best_usd_per_mtok", "as_of_usd_per_mtok",
          "effective_usd_per_mtok", "effective_usd_per_mtok_autoscaled")
_RATES = ("usd_per_gpu_hour", "usd_per_gpu_hour_preset", "capital", "power", "facility", "operations",
          "usd_per_gpu_hour_full_use", "usd_per_gpu_hour_autoscaled")
_DOLLARS = ("usd_per_month", "usd_per_year", "usd_per_month_autoscaled")
_COUNTS = ("nodes", "gpus", "users", "spares")
_X = ("interactivity", "min_interactivity", "max_interactivity")
_DATES = ("ingested_at", "first_run_date", "last_run_date", "run_date")


def for_people(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` as text a reader can use: money, interactivity, throughput and dates
    formatted, missing cells as "—", headers in words with units. For display and reports only."""
    out = pd.DataFrame(index=frame.index)
    for column in frame.columns:
        values = frame[column]
        if column in _MONEY:
            text = values.map(usd)
        elif column in _RATES:
            text = values.map(lambda v: usd(v, "/h"))
        elif column in _DOLLARS:
            text = values.map(dollars)
        elif column in _COUNTS:
            text = values.map(lambda v: "—" if _missing(v) else f"{float(v):,.0f}")
        elif column in _X:
            text = values.map(lambda v: "—" if _missing(v) else f"{float(v):,.1f}")
        elif column in _DATES:
            text = values.map(lambda v: "—" if _missing(v) else date(v))
        elif column == "tokens_per_month":
            text = values.map(tokens)
        elif column == "utilization" and "option" in frame.columns:   # the buy/rent/API table: share of capacity
            text = values.map(percent)
        elif column in ("utilization", "utilization_autoscaled"):      # the fleet's: as its report table says it
            text = values.map(lambda v: "—" if _missing(v) else f"{float(v):.1%}")
        elif column in ("tokens_per_second_per_gpu", "tokens_per_second_per_node"):
            text = values.map(lambda v: "—" if _missing(v) else f"{float(v):,.1f}")
        elif pd.api.types.is_float_dtype(values):
            text = values.map(lambda v: "—" if _missing(v) else f"{float(v):,.4g}")
        else:
            text = values.map(lambda v: "—" if _missing(v) else str(v))
        out[COLUMN_LABELS.get(column, column.replace("_", " ").capitalize())] = text
    return out


def sentence(text: str) -> str:
    """``text`` as a sentence a page or report prints: its first letter capital, ending in a full stop unless it ends
    in one already (or in ``?``, ``!`` or ``:``). Notes are written lower case and without one, to sit inside other
    sentences; this is the one place they are made whole."""
    text = str(text).strip()
    if not text:
        return text
    text = text[:1].upper() + text[1:]
    return text if text[-1] in ".?!:" else text + "."
