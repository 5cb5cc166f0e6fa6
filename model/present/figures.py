"""Plotly figures, built by pure functions (no Streamlit) so tests can read their traces.

One colour per hardware on every chart (NVIDIA greens, AMD reds); series of one
hardware differ by line dash. Units on every axis; money as ``$0.22/M``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from model.core.hardware import hardware_colour
from model.core.iso import CostCurve, cost_within
from model.present.fmt import usd

if TYPE_CHECKING:
    from model.core.uncertainty import Uncertainty

__all__ = ["usd", "only", "on_good_tokens", "frontier_figure", "history_figure", "cost_figure", "crossover_figure", "break_even_figure", "crossover_label",
           "band_traces"]

X_TITLE = "Interactivity [tok/s/user]"
_DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")


def _styles(series: list[str], hardware_of: dict[str, str]) -> dict[str, tuple[str, str]]:
    seen: dict[str, int] = {}
    out = {}
    for name in series:
        hw = hardware_of.get(name, name.split(" · ")[0])
        out[name] = (hardware_colour(hw), _DASHES[seen.get(hw, 0) % len(_DASHES)])
        seen[hw] = seen.get(hw, 0) + 1
    return out


def _figure(traces: list[dict], y_title: str, title: str | None = None, y_money: str | None = None) -> go.Figure:
    """One figure from trace dicts. Built unvalidated (25x faster with hundreds of series); the
    structure is pinned by tests/test_figures.py instead."""
    layout = dict(
        title=dict(text=title) if title else None, template="plotly_white", height=460,
        margin=dict(l=60, r=20, t=50 if title else 20, b=50),
        legend=dict(orientation="h", yanchor="bottom", y=1.02, xanchor="left", x=0), hovermode="closest",
        xaxis=dict(title=dict(text=X_TITLE), rangemode="tozero"),
        yaxis=dict(title=dict(text=y_title), rangemode="tozero",
                   **(dict(tickprefix="$", ticksuffix=y_money) if y_money else {})),
    )
    return go.Figure(data=traces, layout=layout, _validate=False)


def on_good_tokens(fig: go.Figure, caps) -> go.Figure:
    """Under goodput caps (:class:`model.core.goodput.Caps`, or None), the figure's y axis says its basis: "good"
    tokens and good throughput (every $/M and tok/s/GPU then counts only the requests that met the caps)."""
    title = fig.layout.yaxis.title.text or ""
    if caps and "good" not in title:
        title = title.replace("per million tokens", "per good million tokens").replace(
            "Throughput [", "Good throughput [")
        fig.update_layout(yaxis_title_text=title)
    return fig


_HOVER = ("<b>%{customdata[0]}</b> %{customdata[1]}<br>parallelism %{customdata[2]} · concurrency %{customdata[3]}"
          "<br>%{x:.1f} tok/s/user · %{customdata[4]}<br>run %{customdata[5]} · %{customdata[6]}<extra></extra>")


def _texts(frame: pd.DataFrame, column: str) -> list:
    """``column`` of ``frame`` as text, row by row: ``str`` of a value, "" where it is missing or there is no column."""
    if column not in frame:
        return [""] * len(frame)
    values = frame[column].astype(object).to_numpy()
    missing = frame[column].isna().to_numpy()
    return ["" if gone else str(v) for v, gone in zip(values, missing)]


def _parallelism(frame: pd.DataFrame) -> list[str]:
    """``TP8×EP8`` from the parallelism columns present (each rounded to a whole number), "—" when none is set."""
    parts = []
    for col in ("tp", "ep", "dp", "pp"):
        if col in frame:
            values = frame[col].astype("Float64").round().to_numpy(dtype=float, na_value=np.nan)
            parts.append([f"{col.upper()}{int(v)}" if v == v else "" for v in values])
    return ["×".join(t for t in tags if t) or "—" for tags in zip(*parts)] if parts else ["—"] * len(frame)


def _customdata(frame: pd.DataFrame, value_col: str) -> np.ndarray:
    """Hover fields, one row per point: hardware, recipe, parallelism, concurrency, value, run date, source:line.
    Plain Python over the columns' values: a few hundred rows cost microseconds, not pandas' per-call overhead."""
    n = len(frame)
    recipe = _texts(frame, "framework")
    for col in ("precision", "spec_decoding"):
        recipe = [r if part == "" else f"{r} · {part}" for r, part in zip(recipe, _texts(frame, col))]
    if "concurrency" in frame:
        values = frame["concurrency"].astype(object).to_numpy()
        missing = frame["concurrency"].isna().to_numpy()
        conc = ["—" if gone else f"{v:g}" for v, gone in zip(values, missing)]
    else:
        conc = ["—"] * n
    values = frame[value_col].to_numpy(dtype=float, na_value=np.nan)
    shown = [usd(v) for v in values] if value_col == "usd_per_mtok" else [f"{v:,.1f} tok/s/GPU" for v in values]
    date = [d[:10] or "—" for d in _texts(frame, "run_date")]
    source = [f"{f}:{line}" for f, line in zip(_texts(frame, "source_file"), _texts(frame, "source_line"))]
    columns = (frame["hardware"].astype(str).to_numpy(dtype=object), recipe, _parallelism(frame), conc, shown, date,
               source)
    out = np.empty((n, len(columns)), dtype=object)
    for i, column in enumerate(columns):
        out[:, i] = column
    return out


#: above this many measured points, they hover with series and values only (full detail stays on
#: frontier points): 100,000 points with full hover text make a 14 MB figure and a 4.7 s rerun
DETAIL_LIMIT = 20_000
#: measured points drawn by default; past this an even sample is drawn (frontier points are always drawn)
CLOUD_LIMIT = 5_000


def thin_cloud(points: pd.DataFrame, limit: int = CLOUD_LIMIT) -> pd.DataFrame:
    """Every ``k``-th measured point (in row order), ``k`` the smallest step that keeps at most ``limit``:
    the cloud's shape for the browser at a fraction of its weight. ``points`` as it is when small enough."""
    step = -(-len(points) // limit)
    return points if step <= 1 else points.iloc[::step]


def frontier_figure(points: pd.DataFrame, frontier: pd.DataFrame, y: str = "throughput",
                    optimal_only: bool = False) -> go.Figure:
    """Measured points and each series' Pareto frontier.

    y : ``"throughput"`` (tok/s/GPU on the basis) or ``"cost"`` ($/M).
    Hover shows hardware, recipe, parallelism, concurrency, date and source file:line on frontier
    points always, and on measured points up to :data:`DETAIL_LIMIT` of them.
    Above 5,000 measured points they are drawn with WebGL.
    """
    value_col = "tokens_per_second_per_gpu" if y == "throughput" else "usd_per_mtok"
    y_title = "Throughput [tok/s/GPU]" if y == "throughput" else "Cost [$ per million tokens]"
    show_points = not optimal_only and "series" in points and not points.empty
    firsts = [f[["series", "hardware"]].drop_duplicates("series") for f in (frontier, points if show_points else None)
              if f is not None and not f.empty]
    names = pd.concat(firsts).drop_duplicates("series") if firsts else pd.DataFrame(columns=["series", "hardware"])
    series = sorted(names["series"].tolist())
    hw_of = dict(zip(names["series"].tolist(), names["hardware"].tolist()))
    styles = _styles(series, hw_of)
    scatter = "scattergl" if show_points and len(points) > 5000 else "scatter"
    traces = []
    if show_points:
        detailed = len(points) <= DETAIL_LIMIT
        data = _customdata(points, value_col) if detailed else None
        light = ("%{x:.1f} tok/s/user · " + ("%{y:,.1f} tok/s/GPU" if y == "throughput" else "$%{y:.3f}/M"))
        rows_of = points.groupby("series", sort=False, observed=True).indices   # series -> row positions
        xs, ys = points["interactivity"].to_numpy(), points[value_col].to_numpy()   # sliced per series, not the frame
        for name in series:
            take = rows_of.get(name)
            if take is None:
                continue
            colour, _ = styles[name]
            hover = dict(customdata=data[take], hovertemplate=_HOVER) if detailed else \
                dict(hovertemplate=light + "<extra>" + name + "</extra>")
            traces.append(dict(
                type=scatter, x=xs[take], y=ys[take], mode="markers",
                name=f"{name} (measured)", legendgroup=name, showlegend=False,
                marker=dict(color=colour, size=7, opacity=0.35), meta={"kind": "points", "series": name}, **hover))
    if not frontier.empty:
        ordered = frontier.sort_values(["series", "interactivity"], kind="stable")
        details = _customdata(ordered, value_col)           # once for all series, then sliced
        rows_of = ordered.reset_index(drop=True).groupby("series", sort=False, observed=True).indices
        xs, ys = ordered["interactivity"].to_numpy(), ordered[value_col].to_numpy()
        bars = ordered[[c for c in _BAR_COLUMNS if c in ordered]]   # what the spread bars read
        for name in series:
            take = rows_of.get(name)
            if take is None:
                continue
            colour, dash = styles[name]
            traces.append(dict(
                type="scatter", x=xs[take], y=ys[take],
                mode="lines+markers", name=name, legendgroup=name,
                line=dict(color=colour, dash=dash, width=2.5), marker=dict(color=colour, size=8),
                customdata=details[take], hovertemplate=_HOVER, meta={"kind": "frontier", "series": name},
                **_spread_bars(bars.iloc[take], y, colour)))
    return _figure(traces, y_title, y_money="/M" if y == "cost" else None)


_BAR_COLUMNS = ("tput_min", "tput_max", "tokens_per_second_per_gpu", "usd_per_mtok", "usd_per_gpu_hour")


def _spread_bars(front: pd.DataFrame, y: str, colour: str) -> dict:
    """Min–max bars of a frontier point's repeats (``tput_min``/``tput_max`` from
    :attr:`model.present.parts.Answer.frontier_table`): on tok/s/GPU as measured, on $/M
    the same repeats priced at the point's rate. Nothing where no point was measured more than once."""
    if "tput_min" not in front or not front["tput_min"].notna().any():
        return {}
    lo = front["tput_min"].to_numpy(dtype=float, na_value=np.nan)
    hi = front["tput_max"].to_numpy(dtype=float, na_value=np.nan)
    if y == "throughput":
        value = front["tokens_per_second_per_gpu"].to_numpy(dtype=float, na_value=np.nan)
        plus, minus = hi - value, value - lo
    else:
        value = front["usd_per_mtok"].to_numpy(dtype=float, na_value=np.nan)
        rate = front["usd_per_gpu_hour"].to_numpy(dtype=float, na_value=np.nan)
        with np.errstate(divide="ignore", invalid="ignore"):
            plus, minus = rate * 1e6 / 3600 / lo - value, value - rate * 1e6 / 3600 / hi
    plus, minus = np.nan_to_num(np.maximum(plus, 0)), np.nan_to_num(np.maximum(minus, 0))
    return {"error_y": dict(type="data", symmetric=False, array=plus, arrayminus=minus, color=colour,
                            thickness=1.5, width=4, visible=True)}


def history_figure(table: pd.DataFrame, x: float) -> go.Figure:
    """Each series' best-so-far $/M at ``x`` as a staircase over run dates (lines), and the $/M of each
    date's runs alone (markers). ``table``: :attr:`model.present.parts.Answer.history`."""
    traces = []
    names = sorted(table["series"].unique()) if not table.empty else []
    styles = _styles(names, {})
    for name in names:
        one = table[table["series"] == name]
        colour, dash = styles[name]
        traces.append(dict(type="scatter", x=one["run_date"].tolist(), y=one["best_usd_per_mtok"].to_numpy(dtype=float),
                           mode="lines", line=dict(color=colour, dash=dash, width=2.5, shape="hv"),
                           name=f"{name}: best so far", legendgroup=name, customdata=one[["best_from"]].to_numpy(),
                           hovertemplate="%{x}: best so far $%{y:.3f}/M<br>set by %{customdata[0]}<extra>" + name
                           + "</extra>", meta={"kind": "best", "series": name}))
        traces.append(dict(type="scatter", x=one["run_date"].tolist(), y=one["usd_per_mtok"].to_numpy(dtype=float),
                           mode="markers", marker=dict(color=colour, size=9, symbol="circle-open"),
                           name=f"{name}: that date's runs", legendgroup=name, customdata=one[["source"]].to_numpy(),
                           hovertemplate="%{x}: $%{y:.3f}/M from %{customdata[0]}<extra>" + name + "</extra>",
                           meta={"kind": "date", "series": name}))
    fig = _figure(traces, f"Cost at {x:.4g} tok/s/user [$ per million tokens]", y_money="/M")
    fig.update_layout(xaxis=dict(title=dict(text="Run date"), type="category"))
    return fig


def _dense(curve: CostCurve, method: str, n: int = 120) -> tuple[np.ndarray, np.ndarray]:
    """Points to draw the curve with: its own breakpoints when linear (exact), else a fine grid."""
    if method == "linear":
        return curve.x, curve.usd_per_mtok
    x = np.unique(np.r_[np.linspace(curve.x_min, curve.x_max, n), curve.x])
    return x, cost_within(curve, x, method)


def _curve_traces(curves: dict[str, CostCurve], method: str) -> list[dict]:
    styles = _styles(sorted(curves), {n: c.hardware[0] for n, c in curves.items()})
    traces = []
    for name in sorted(curves):
        colour, dash = styles[name]
        x, y = _dense(curves[name], method)
        traces.append(dict(type="scatter", x=x, y=y, mode="lines", name=name, legendgroup=name,
                           line=dict(color=colour, dash=dash, width=2.5),
                           hovertemplate="%{x:.1f} tok/s/user<br>$%{y:.3f}/M<extra>" + name + "</extra>",
                           meta={"kind": "curve", "series": name}))
    return traces


def _rgba(colour: str, alpha: float) -> str:
    """``#76b900`` -> ``rgba(118,185,0,0.18)`` (a named or rgb() colour is kept as it is)."""
    if not colour.startswith("#") or len(colour) != 7:
        return colour
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


#: bands are drawn for at most this many curves (past it they hide the curves; the ± stays in the tables)
BAND_LIMIT = 8


def band_traces(curves: dict[str, CostCurve], method: str, errors: Uncertainty | None, n: int = 160) -> list[dict]:
    """A shaded band around each cost curve (:mod:`model.core.uncertainty`): where 9 in 10 measured points left out
    fell; zero width at measured points, wider where the neighbours are far apart in interactivity or price. A
    series without a band has none drawn; past :data:`BAND_LIMIT` curves there are none."""
    if errors is None or len(curves) > BAND_LIMIT:
        return []
    styles = _styles(sorted(curves), {k: c.hardware[0] for k, c in curves.items()})
    traces = []
    for name in sorted(curves):
        curve = curves[name]
        if len(curve.x) < 2 or errors.kind(name) == "none":
            continue
        x = np.unique(np.r_[np.linspace(curve.x_min, curve.x_max, n), curve.x])
        y = cost_within(curve, x, method)
        low, high = errors.band(curve, x)
        with np.errstate(invalid="ignore", divide="ignore"):
            down, up = np.round((1 - low / y) * 100, 1), np.round((high / y - 1) * 100, 1)
        colour, _ = styles[name]
        traces.append(dict(
            type="scatter", x=np.r_[x, x[::-1]], y=np.r_[high, low[::-1]], mode="lines",
            fill="toself", fillcolor=_rgba(colour, 0.2), line=dict(width=0.5, color=_rgba(colour, 0.45)),
            name=f"{name} range (9 in 10)", legendgroup=name, showlegend=False,
            customdata=np.c_[np.r_[down, down[::-1]], np.r_[up, up[::-1]]],
            hovertemplate="%{x:.1f} tok/s/user<br>$%{y:.3f}/M<br>−%{customdata[0]} %/+%{customdata[1]} %"
                          "<extra>" + name + " range</extra>",
            meta={"kind": "band", "series": name}))
    return traces


def _scaled_to_curves(fig: go.Figure, traces: list[dict]) -> go.Figure:
    """The y axis spans the cost curves, not their bands: a band wider than its curve (few points far apart)
    runs off the chart instead of squashing every curve flat (its ± stays in the hover and the tables)."""
    tops = [np.nanmax(t["y"]) for t in traces if t.get("meta", {}).get("kind") == "curve" and len(t["y"])]
    bands = [np.nanmax(t["y"]) for t in traces if t.get("meta", {}).get("kind") == "band" and len(t["y"])]
    if tops and bands and max(bands) > max(tops) * 1.1:
        fig.update_yaxes(range=[0, float(max(tops)) * 1.1])
    return fig


def cost_figure(curves: dict[str, CostCurve], iso: pd.DataFrame, method: str = "linear",
                errors: Uncertainty | None = None) -> go.Figure:
    """$/M against interactivity per series, with the iso targets marked (hollow = clamped) and, given the
    view's ``errors``, each curve's ± band."""
    traces = band_traces(curves, method, errors) + _curve_traces(curves, method)
    at = iso[iso["usd_per_mtok"].notna()] if not iso.empty else iso
    if not at.empty:
        colours = [hardware_colour(curves[s].hardware[0]) if s in curves else "#999" for s in at["series"]]
        traces.append(dict(
            type="scatter", x=at["interactivity"].to_numpy(), y=at["usd_per_mtok"].to_numpy(), mode="markers",
            name="at targets", showlegend=False, customdata=at["series"].to_numpy(),
            marker=dict(color=colours, size=11, symbol=["circle-open" if c else "circle" for c in at["clamped"]],
                        line=dict(width=2, color=colours)),
            hovertemplate="%{customdata}<br>%{x:g} tok/s/user<br>$%{y:.3f}/M<extra></extra>",
            meta={"kind": "targets"}))
    fig = _scaled_to_curves(_figure(traces, "Cost [$ per million tokens]", y_money="/M"), traces)
    for x in sorted(iso["interactivity"].unique()) if not iso.empty else []:
        fig.add_vline(x=x, line=dict(color="#bbb", width=1, dash="dot"))
    return fig


def crossover_label(row: pd.Series | dict) -> str:
    """``"MI355X cheaper below 89.4 tok/s/user"``."""
    return f"{row['cheaper_below']} cheaper below {row['interactivity']:.1f} tok/s/user"


def crossover_figure(curves: dict[str, CostCurve], crossovers: pd.DataFrame, reach: pd.DataFrame,
                     method: str = "linear", errors: Uncertainty | None = None) -> go.Figure:
    """Cost curves with every crossover marked and numbered, and each series' reach limit.

    Crossovers carry a number on the chart (1, 2, ...) in the order of ``crossovers``; their
    words go in a list beside the chart and in the hover, so labels never pile up. Given ``errors``,
    each curve has its ± band, and a crossover marked ``within_uncertainty`` is drawn grey and says so.
    """
    traces = band_traces(curves, method, errors) + _curve_traces(curves, method)
    if not crossovers.empty:
        unsure = crossovers["within_uncertainty"].to_numpy(dtype=bool) if "within_uncertainty" in crossovers \
            else np.zeros(len(crossovers), dtype=bool)
        traces.append(dict(
            type="scatter", x=crossovers["interactivity"].to_numpy(), y=crossovers["usd_per_mtok"].to_numpy(),
            mode="markers+text", name="crossover",
            marker=dict(symbol="x", size=13, color=["#888" if u else "#111" for u in unsure], line=dict(width=2)),
            text=[str(i) for i in range(1, len(crossovers) + 1)], textposition="top center",
            textfont=dict(size=13, color="#111"),
            customdata=[crossover_label(r) + (" (within uncertainty)" if u else "")
                        for (_, r), u in zip(crossovers.iterrows(), unsure)],
            hovertemplate="%{customdata}<br>$%{y:.3f}/M<extra>crossover %{text}</extra>",
            meta={"kind": "crossovers"}))
    if not reach.empty:
        colours = [hardware_colour(curves[s].hardware[0]) if s in curves else "#999" for s in reach["series"]]
        traces.append(dict(
            type="scatter", x=reach["max_interactivity"].to_numpy(), y=reach["usd_per_mtok_at_max"].to_numpy(),
            mode="markers", name="reach", showlegend=False, customdata=reach["series"].to_numpy(),
            marker=dict(symbol="line-ns", size=18, color=colours, line=dict(width=3, color=colours)),
            hovertemplate="%{customdata}: frontier ends at %{x:.1f} tok/s/user<extra>reach</extra>",
            meta={"kind": "reach"}))
    return _scaled_to_curves(_figure(traces, "Cost [$ per million tokens]", y_money="/M"), traces)


def break_even_figure(table: pd.DataFrame, series: str, against: str, at: float | None = None) -> go.Figure:
    """Break-even $/GPU-hour of ``series`` against ``against`` across interactivity, with its current
    rate and, when given, the interactivity ``at`` the answer is read at."""
    traces = [
        dict(type="scatter", x=table["interactivity"].to_numpy(), y=table["break_even_usd_per_gpu_hour"].to_numpy(),
             mode="lines", name=f"rate at which {series} matches {against}", line=dict(width=3, color="#1f6feb"),
             hovertemplate="%{x:.1f} tok/s/user<br>$%{y:.2f}/GPU-h<extra></extra>", meta={"kind": "break_even"}),
        dict(type="scatter", x=table["interactivity"].to_numpy(), y=table["usd_per_gpu_hour"].to_numpy(),
             mode="lines", name=f"current rate for {series}", line=dict(width=2, dash="dash", color="#666"),
             hovertemplate="$%{y:.2f}/GPU-h<extra></extra>", meta={"kind": "current_rate"}),
    ]
    fig = _figure(traces, "$ per GPU-hour", y_money="/GPU-h")
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.18, xanchor="left", x=0),
                      margin=dict(l=60, r=20, t=20, b=90))
    if at is not None:
        fig.add_vline(x=at, line=dict(color="#bbb", width=1, dash="dot"))
    return fig


def only(series: list[str] | None, curves: dict[str, CostCurve], *frames: pd.DataFrame) -> tuple:
    """``curves`` and each frame cut to ``series`` (None keeps everything): a frame's rows are kept when its
    ``series`` column, or both its ``series_a`` and ``series_b``, are among them."""
    if series is None:
        return (curves, *frames)
    keep = set(series)
    out: list = [{name: curves[name] for name in series if name in curves}]
    for frame in frames:
        if frame is None or frame.empty:
            out.append(frame)
        elif "series" in frame:
            out.append(frame[frame["series"].isin(keep)])
        else:
            out.append(frame[frame["series_a"].isin(keep) & frame["series_b"].isin(keep)])
    return tuple(out)
