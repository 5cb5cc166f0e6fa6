"""Published $/M tables checked, not trusted: every published value recomputed from its own numbers.

Pure functions over pandas frames; no I/O. A published number is printed rounded, so each one stands
for an interval: half a unit of its last printed digit either side (a column's printed digits are the
most decimals any of its values shows: ``0.30`` stored as 0.3 beside ``0.22`` counts as two).
A recomputed value carries the intervals of what it is computed from, propagated exactly
(``$/M = rate × 10⁶ / (3600 × tok/s/GPU)`` is increasing in the rate and decreasing in the
throughput, and linear interpolation is increasing in each knot's value). A cell is **flagged** when
the two intervals do not meet: the table disagrees with its own numbers beyond its rounding.

Three checks:

- ``row``: a published row that states its throughput and $/M (``published_usd_per_mtok`` beside
  ``total_tokens_per_second_per_gpu``) is recomputed from that throughput and the rate;
- ``cell``: an iso-interactivity table's $/M cell is recomputed from the throughput it was computed from:
  the Pareto frontier of the published rows of that hardware and speculative decoding, linear in $/M
  between its points (InferenceX's method), at the cell's interactivity;
- ``ratio``: a table's ratio cell (``b200_over_mi355x``) is recomputed from the same row's two $/M cells.

The rate is the one the table states where it states one, else the rate the caller passes (a preset), named
in the verdict; a rate is taken as printed to its own digits, cents at least (1.95 and 2.00: ± 0.005).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from model.core.frontier import pareto_mask

__all__ = ["CHECK_COLUMNS", "printed_decimals", "half_unit", "check_rows", "check_iso", "plan_rows", "plan_iso",
           "price_rows", "price_iso", "verdicts"]

CHECK_COLUMNS = ["source_id", "check", "line", "hardware", "spec_decoding", "interactivity", "published",
                 "published_lo", "published_hi", "recomputed", "recomputed_lo", "recomputed_hi", "agrees", "detail"]
_K = 1e6 / 3600


def printed_decimals(values) -> int:
    """The most decimals any of ``values`` shows when printed (at most 6)."""
    best = 0
    for v in values:
        if v is None or (isinstance(v, float) and math.isnan(v)):
            continue
        text = f"{float(v):.6f}".rstrip("0").rstrip(".")
        best = max(best, len(text.split(".")[1]) if "." in text else 0)
    return best


def half_unit(values) -> float:
    """Half a unit of the last printed digit of ``values`` (:func:`printed_decimals`)."""
    return 0.5 * 10.0 ** -printed_decimals(values)


def rate_half_unit(rate: float) -> float:
    """Half a unit of a rate's last printed digit, a rate being printed to cents at least (2.00 is stored
    as 2.0, and no price list prints whole dollars per GPU-hour)."""
    return 0.5 * 10.0 ** -max(2, printed_decimals([rate]))


def _usd(rate, tput):
    with np.errstate(divide="ignore", invalid="ignore"):
        return _K * np.asarray(rate, dtype=float) / np.asarray(tput, dtype=float)


def check_rows(rows: pd.DataFrame, rates: dict[str, float]) -> pd.DataFrame:
    """The ``row`` check of every row stating ``published_usd_per_mtok`` and a total throughput per GPU.

    ``rows``: store points (``source_id``, ``source_line``, ``hardware``, ...); ``rates``: hardware -> $/GPU-hour.
    """
    return price_rows(plan_rows(rows), rates)


def plan_rows(rows: pd.DataFrame) -> list[tuple]:
    """What :func:`check_rows` needs of ``rows`` before a rate is known: one ``(source_id, row, published $/M,
    its half unit, tok/s/GPU, its half unit)`` per row checked. :func:`price_rows` prices it."""
    out = []
    have = rows[rows["published_usd_per_mtok"].notna() & rows["total_tokens_per_second_per_gpu"].notna()] \
        if not rows.empty and "published_usd_per_mtok" in rows.columns else rows.iloc[0:0]
    for source_id, part in have.groupby("source_id", sort=True):
        dp = half_unit(part["published_usd_per_mtok"])
        dt = half_unit(part["total_tokens_per_second_per_gpu"])
        for r in part.to_dict("records"):
            out.append((source_id, r, float(r["published_usd_per_mtok"]), dp,
                        float(r["total_tokens_per_second_per_gpu"]), dt))
    return out


def price_rows(plan: list[tuple], rates: dict[str, float]) -> pd.DataFrame:
    """:func:`check_rows` of the rows :func:`plan_rows` planned, at ``rates`` (hardware -> $/GPU-hour)."""
    out = []
    for source_id, r, p, dp, t, dt in plan:
        rate = rates.get(str(r["hardware"]))
        if rate is None:
            out.append(_cell(source_id, "row", r, p, dp, math.nan, math.nan, math.nan,
                             f"no $/GPU-hour for {r['hardware']}: not checked"))
            continue
        dr = rate_half_unit(rate)
        value = float(_usd(rate, t))
        lo, hi = float(_usd(rate - dr, t + dt)), float(_usd(rate + dr, t - dt))
        out.append(_cell(source_id, "row", r, p, dp, value, lo, hi, f"{t:g} tok/s/GPU at ${rate:g}/GPU-hour"))
    return pd.DataFrame(out, columns=CHECK_COLUMNS)


def _cell(source_id, check, r, p, dp, value, lo, hi, detail, hardware=None, x=None) -> dict:
    agrees = None if value != value else bool(lo <= p + dp + 1e-12 and p - dp <= hi + 1e-12)
    return {"source_id": int(source_id), "check": check, "line": r.get("source_line"),
            "hardware": hardware if hardware is not None else r.get("hardware"),
            "spec_decoding": r.get("spec_decoding"), "interactivity": x if x is not None else r.get("interactivity"),
            "published": p, "published_lo": p - dp, "published_hi": p + dp, "recomputed": value,
            "recomputed_lo": lo, "recomputed_hi": hi, "agrees": agrees, "detail": detail}


def _frontier_of(rows: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The Pareto frontier of ``rows`` as increasing interactivity [tok/s/user] and its tok/s/GPU (several
    frontier points at one interactivity keep the highest throughput, the cheapest)."""
    xs = rows["interactivity"].to_numpy(dtype=float)
    ys = rows["total_tokens_per_second_per_gpu"].to_numpy(dtype=float)
    keep = pareto_mask(xs, ys)
    order = np.argsort(xs[keep])
    fx, fy = xs[keep][order], ys[keep][order]
    if not len(fx):
        return fx, fy
    # (np.interp needs increasing x)
    fx, first = np.unique(fx, return_index=True)
    return fx, np.maximum.reduceat(fy, first)


def _frontier_at(fx: np.ndarray, fy: np.ndarray, x: float, rate: float, dr: float,
                 dt: float) -> tuple[float, float, float]:
    """$/M at ``x`` on the frontier ``fx, fy`` (:func:`_frontier_of`), linear in $/M between its points, with its
    interval."""
    if not len(fx) or x < fx[0] or x > fx[-1]:
        return math.nan, math.nan, math.nan
    value = float(np.interp(x, fx, _usd(rate, fy)))
    lo = float(np.interp(x, fx, _usd(rate - dr, fy + dt)))
    hi = float(np.interp(x, fx, _usd(rate + dr, fy - dt)))
    return value, lo, hi


def check_iso(cells: pd.DataFrame, rows: pd.DataFrame, rates: dict[str, float]) -> pd.DataFrame:
    """The ``cell`` and ``ratio`` checks of published iso tables.

    ``cells``: the store's ``published_iso`` rows (source_id, source_line, spec_decoding, interactivity,
    metric ``usd_per_mtok`` / ``ratio`` / ``tokens_per_second_per_gpu`` / ``usd_per_gpu_hour``, hardware,
    hardware_b, value); ``rows``: the store's published rows (points with ``published_usd_per_mtok``), the
    throughput a cell was computed from where the table does not state it.
    """
    return price_iso(plan_iso(cells, rows), rates)


def plan_iso(cells: pd.DataFrame, rows: pd.DataFrame) -> list[tuple] | None:
    """What :func:`check_iso` needs before a rate is known (None: no cells), in its order: for each $/M cell
    ``("cell", source_id, cell, hardware, x, published, its half unit, the rate the table states or None, how
    it is recomputed)``, and each ratio's finished check as ``("done", check)`` (a ratio needs no rate).
    :func:`price_iso` prices it."""
    if cells.empty:
        return None
    out = []
    frontiers: dict = {}
    for source_id, table in cells.groupby("source_id", sort=True):
        money = table[table["metric"] == "usd_per_mtok"]
        stated_tput = table[table["metric"] == "tokens_per_second_per_gpu"]
        stated_rate = table[table["metric"] == "usd_per_gpu_hour"]
        dp = {hw: half_unit(part["value"]) for hw, part in money.groupby("hardware")}
        for r in money.to_dict("records"):
            hw, x, p = str(r["hardware"]), float(r["interactivity"]), float(r["value"])
            r = {**r, "source_line": r.get("source_line")}
            own_rate = stated_rate[(stated_rate["hardware"] == hw) & (stated_rate["source_line"] == r["source_line"])]
            stated = float(own_rate["value"].iloc[0]) if len(own_rate) else None
            tput = stated_tput[(stated_tput["hardware"] == hw) & (stated_tput["source_line"] == r["source_line"])]
            if len(tput):
                how = ("stated", float(tput["value"].iloc[0]), half_unit(stated_tput[stated_tput["hardware"] == hw]["value"]))
            else:
                spec = r.get("spec_decoding") if r.get("spec_decoding") is not None and "spec_decoding" in rows.columns \
                    else None
                if (hw, spec) not in frontiers:
                    frontiers[hw, spec] = _published_frontier(rows, hw, spec)
                how = frontiers[hw, spec]
            out.append(("cell", source_id, r, hw, x, p, dp[hw], stated, how))
        ratios = table[table["metric"] == "ratio"]
        dq = half_unit(ratios["value"]) if len(ratios) else 0.0
        for r in ratios.to_dict("records"):
            a, b, q = str(r["hardware"]), str(r["hardware_b"]), float(r["value"])
            line = money[money["source_line"] == r["source_line"]]
            pa, pb = line[line["hardware"] == a]["value"], line[line["hardware"] == b]["value"]
            label = f"{a}/{b}"
            if pa.empty or pb.empty:
                out.append(("done", _cell(source_id, "ratio", r, q, dq, math.nan, math.nan, math.nan,
                                          "the row lacks a $/M cell it divides: not checked", label)))
                continue
            va, vb = float(pa.iloc[0]), float(pb.iloc[0])
            da, db = dp[a], dp[b]
            out.append(("done", _cell(source_id, "ratio", r, q, dq, va / vb, (va - da) / (vb + db),
                                      (va + da) / (vb - db), f"${va:g}/M ÷ ${vb:g}/M from the same row", label)))
    return out


def _published_frontier(rows: pd.DataFrame, hw: str, spec) -> tuple:
    """How a cell of ``hw`` (and speculative decoding ``spec``, None: any) without a stated throughput is
    recomputed: ``("frontier", fx, fy, dt, rows, files)``, or ``("skip", why)``."""
    mine = rows[(rows["hardware"].astype(str) == hw)]
    if spec is not None:
        mine = mine[mine["spec_decoding"].astype(str) == str(spec)]
    workloads = mine[["model", "isl", "osl"]].astype(str).drop_duplicates() if not mine.empty else mine
    if mine.empty:
        return ("skip", "no published rows of its throughput: not checked")
    if len(workloads) > 1:
        return ("skip", f"published rows of {len(workloads)} workloads match: not checked")
    files = ", ".join(sorted(set(mine["source_file"].astype(str)))) if "source_file" in mine else ""
    return ("frontier", *_frontier_of(mine), half_unit(mine["total_tokens_per_second_per_gpu"]), len(mine), files)


def price_iso(plan: list[tuple] | None, rates: dict[str, float]) -> pd.DataFrame:
    """:func:`check_iso` of the cells :func:`plan_iso` planned, at ``rates`` (hardware -> $/GPU-hour) where a
    table states no rate of its own."""
    if plan is None:
        return pd.DataFrame(columns=CHECK_COLUMNS)
    out = []
    for job in plan:
        if job[0] == "done":
            out.append(job[1])
            continue
        _, source_id, r, hw, x, p, dp, stated, how = job
        rate = stated if stated is not None else rates.get(hw)
        if rate is None:
            out.append(_cell(source_id, "cell", r, p, dp, math.nan, math.nan, math.nan,
                             f"no $/GPU-hour for {hw}: not checked", hw, x))
            continue
        dr = rate_half_unit(rate)
        said = "stated" if stated is not None else "preset"
        if how[0] == "stated":
            _, t, dt = how
            value, lo, hi = float(_usd(rate, t)), float(_usd(rate - dr, t + dt)), float(_usd(rate + dr, t - dt))
            detail = f"{t:g} tok/s/GPU as the table states, at ${rate:g}/GPU-hour ({said})"
        elif how[0] == "skip":
            out.append(_cell(source_id, "cell", r, p, dp, math.nan, math.nan, math.nan, how[1], hw, x))
            continue
        else:
            _, fx, fy, dt, count, files = how
            value, lo, hi = _frontier_at(fx, fy, x, rate, dr, dt)
            detail = (f"frontier of {count} published rows ({files}), linear in $/M, at ${rate:g}/GPU-hour "
                      f"({said})") if value == value else "outside the published rows' reach: not checked"
        out.append(_cell(source_id, "cell", r, p, dp, value, lo, hi, detail, hw, x))
    return pd.DataFrame(out, columns=CHECK_COLUMNS)


def verdicts(checks: pd.DataFrame, sources: pd.DataFrame) -> pd.DataFrame:
    """One verdict per published table: ``source_id``, ``file_name``, ``checked``, ``flagged``, ``not_checked``,
    ``verdict`` in words (naming each flagged cell with both numbers)."""
    rows = []
    for source_id, part in checks.groupby("source_id", sort=True):
        name = sources.loc[sources["source_id"] == source_id, "file_name"]
        checked = part[part["agrees"].notna()]
        flagged = checked[checked["agrees"] == False]  # noqa: E712
        skipped = len(part) - len(checked)
        if checked.empty:
            text = f"none of {len(part)} published values could be checked"
        elif flagged.empty:
            text = f"all {len(checked)} checked values agree with their own numbers within rounding"
        else:
            text = (f"{len(flagged)} of {len(checked)} checked values disagree beyond rounding: "
                    + "; ".join(_flag_text(f) for f in flagged.to_dict("records")))
        if skipped:
            text += f" ({skipped} not checked)"
        rows.append({"source_id": int(source_id), "file_name": name.iloc[0] if len(name) else "",
                     "checked": len(checked), "flagged": len(flagged), "not_checked": skipped, "verdict": text})
    return pd.DataFrame(rows, columns=["source_id", "file_name", "checked", "flagged", "not_checked", "verdict"])


def _flag_text(f: dict) -> str:
    where = f"line {int(f['line'])}" if f["line"] is not None and f["line"] == f["line"] else "a row"
    x = f" at {f['interactivity']:g} tok/s/user" if f["interactivity"] is not None and \
        f["interactivity"] == f["interactivity"] else ""
    if f["check"] == "ratio":
        return (f"{where} {f['hardware']}{x}: published ratio {f['published']:g}, its own cells give "
                f"{f['recomputed']:.3f} ({f['recomputed_lo']:.3f}–{f['recomputed_hi']:.3f})")
    return (f"{where} {f['hardware']}{x}: published ${f['published']:g}/M, recomputed ${f['recomputed']:.3f}/M "
            f"(${f['recomputed_lo']:.3f}–{f['recomputed_hi']:.3f} within rounding)")
