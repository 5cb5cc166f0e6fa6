"""Plotly figures, built by pure functions (no Streamlit) so tests can read their traces.

One colour per hardware on every chart (NVIDIA greens, AMD reds); series of one
hardware differ by line dash. Units on every axis; money as ``$0.22/M``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from model.hardware import hardware_colour
from model.iso import CostCurve, _inside

__all__ = ["usd", "frontier_figure", "cost_figure", "crossover_figure", "break_even_figure", "crossover_label"]

X_TITLE = "Interactivity [tok/s/user]"
_DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")


def usd(value: float | None, per: str = "/M") -> str:
    """``0.2194`` -> ``"$0.22/M"``; ``None``/NaN -> ``"—"``."""
    if value is None or not np.isfinite(value):
        return "—"
    return f"${value:,.2f}{per}" if abs(value) >= 0.1 else f"${value:,.3f}{per}"


def _styles(series: list[str], hardware_of: dict[str, str]) -> dict[str, tuple[str, str]]:
    seen: dict[str, int] = {}
    out = {}
    for name in series:
        hw = hardware_of.get(name, name.split(" · ")[0])
        out[name] = (hardware_colour(hw), _DASHES[seen.get(hw, 0) % len(_DASHES)])
        seen[hw] = seen.get(hw, 0) + 1
    return out


def _layout(fig: go.Figure, y_title: str, title: str | None = None) -> go.Figure:
    fig.update_layout(
        title=title, template="plotly_white", height=460, margin=dict(l=60, r=20, t=50 if title else 20, b=50),
        legend=dict(orientation="h", yanchor="bottom", y=1.02, xanchor="left", x=0),
        hovermode="closest",
    )
    fig.update_xaxes(title_text=X_TITLE, rangemode="tozero")
    fig.update_yaxes(title_text=y_title, rangemode="tozero")
    return fig


def _hover_text(frame: pd.DataFrame, value_label: str, value_col: str) -> list[str]:
    def par(row) -> str:
        parts = [f"{k.upper()}{int(row[k])}" for k in ("tp", "ep", "dp", "pp")
                 if k in row and pd.notna(row[k])]
        return "×".join(parts) or "—"

    out = []
    for _, row in frame.iterrows():
        recipe = " · ".join(str(row[k]) for k in ("framework", "precision", "spec_decoding")
                            if k in row and pd.notna(row[k]))
        conc = f"{row['concurrency']:g}" if "concurrency" in row and pd.notna(row["concurrency"]) else "—"
        date = str(row["run_date"])[:10] if "run_date" in row and pd.notna(row["run_date"]) else "—"
        source = f"{row.get('source_file', '?')}:{row.get('source_line', '?')}"
        value = row[value_col]
        shown = usd(value) if value_col == "usd_per_mtok" else f"{value:,.1f} tok/s/GPU"
        out.append(
            f"<b>{row['hardware']}</b> {recipe}<br>parallelism {par(row)} · concurrency {conc}"
            f"<br>{row['interactivity']:.1f} tok/s/user · {value_label} {shown}"
            f"<br>run {date} · {source}"
        )
    return out


def frontier_figure(points: pd.DataFrame, frontier: pd.DataFrame, y: str = "throughput",
                    optimal_only: bool = False) -> go.Figure:
    """Measured points and each series' Pareto frontier.

    y : ``"throughput"`` (tok/s/GPU on the basis) or ``"cost"`` ($/M).
    """
    value_col = "tokens_per_second_per_gpu" if y == "throughput" else "usd_per_mtok"
    y_title = "Throughput [tok/s/GPU]" if y == "throughput" else "Cost [$ per million tokens]"
    fig = go.Figure()
    series = sorted(set(frontier["series"]) | (set() if optimal_only else set(points.get("series", []))))
    hw_of = dict(zip(frontier["series"], frontier["hardware"])) if not frontier.empty else {}
    if "series" in points:
        hw_of.update({s: h for s, h in zip(points["series"], points["hardware"]) if s not in hw_of})
    styles = _styles(series, hw_of)
    for name in series:
        colour, dash = styles[name]
        if not optimal_only and "series" in points:
            part = points[points["series"] == name]
            if "tokens_per_second_per_gpu" not in part:
                part = part.assign(tokens_per_second_per_gpu=part.filter(like="_tokens_per_second_per_gpu").iloc[:, 0])
            fig.add_trace(go.Scatter(
                x=part["interactivity"], y=part[value_col], mode="markers", name=f"{name} (measured)",
                legendgroup=name, showlegend=False, marker=dict(color=colour, size=7, opacity=0.35),
                hovertext=_hover_text(part, "", value_col), hoverinfo="text", meta={"kind": "points", "series": name},
            ))
        front = frontier[frontier["series"] == name].sort_values("interactivity")
        if front.empty:
            continue
        fig.add_trace(go.Scatter(
            x=front["interactivity"], y=front[value_col], mode="lines+markers", name=name, legendgroup=name,
            line=dict(color=colour, dash=dash, width=2.5), marker=dict(color=colour, size=8),
            hovertext=_hover_text(front, "frontier", value_col), hoverinfo="text",
            meta={"kind": "frontier", "series": name},
        ))
    if y == "cost":
        fig.update_yaxes(tickprefix="$", ticksuffix="/M")
    return _layout(fig, y_title)


def _dense(curve: CostCurve, method: str, n: int = 120) -> tuple[np.ndarray, np.ndarray]:
    x = np.unique(np.r_[np.linspace(curve.x_min, curve.x_max, n), curve.x])
    return x, _inside(curve, x, method)


def cost_figure(curves: dict[str, CostCurve], iso: pd.DataFrame, method: str = "linear") -> go.Figure:
    """$/M against interactivity per series, with the iso targets marked (hollow = clamped)."""
    fig = go.Figure()
    styles = _styles(sorted(curves), {n: c.hardware[0] for n, c in curves.items()})
    for name in sorted(curves):
        curve = curves[name]
        colour, dash = styles[name]
        x, y = _dense(curve, method)
        fig.add_trace(go.Scatter(x=x, y=y, mode="lines", name=name, legendgroup=name,
                                 line=dict(color=colour, dash=dash, width=2.5),
                                 hovertemplate="%{x:.1f} tok/s/user<br>$%{y:.3f}/M<extra>" + name + "</extra>",
                                 meta={"kind": "curve", "series": name}))
        at = iso[(iso["series"] == name) & iso["usd_per_mtok"].notna()]
        if not at.empty:
            fig.add_trace(go.Scatter(
                x=at["interactivity"], y=at["usd_per_mtok"], mode="markers", name=f"{name} at targets",
                legendgroup=name, showlegend=False,
                marker=dict(color=colour, size=11, symbol=["circle-open" if c else "circle" for c in at["clamped"]],
                            line=dict(width=2, color=colour)),
                hovertemplate="%{x:g} tok/s/user<br>$%{y:.3f}/M<extra>" + name + "</extra>",
                meta={"kind": "targets", "series": name}))
    for x in sorted(iso["interactivity"].unique()) if not iso.empty else []:
        fig.add_vline(x=x, line=dict(color="#bbb", width=1, dash="dot"))
    fig.update_yaxes(tickprefix="$", ticksuffix="/M")
    return _layout(fig, "Cost [$ per million tokens]")


def crossover_label(row: pd.Series | dict) -> str:
    """``"MI355X cheaper below 89.4 tok/s/user"``."""
    return f"{row['cheaper_below']} cheaper below {row['interactivity']:.1f} tok/s/user"


def crossover_figure(curves: dict[str, CostCurve], crossovers: pd.DataFrame, reach: pd.DataFrame,
                     method: str = "linear") -> go.Figure:
    """Cost curves with every crossover marked and labelled, and each series' reach limit."""
    fig = cost_figure(curves, pd.DataFrame(columns=["series", "interactivity", "usd_per_mtok", "clamped"]), method)
    if not crossovers.empty:
        fig.add_trace(go.Scatter(
            x=crossovers["interactivity"], y=crossovers["usd_per_mtok"], mode="markers+text",
            name="crossover", marker=dict(symbol="x", size=14, color="#111", line=dict(width=2)),
            text=[crossover_label(r) for _, r in crossovers.iterrows()], textposition="top left",
            hovertemplate="%{text}<br>$%{y:.3f}/M<extra>crossover</extra>", meta={"kind": "crossovers"}))
    for _, row in reach.iterrows():
        colour = hardware_colour(curves[row["series"]].hardware[0]) if row["series"] in curves else "#999"
        fig.add_trace(go.Scatter(
            x=[row["max_interactivity"]], y=[row["usd_per_mtok_at_max"]], mode="markers",
            name=f"{row['series']} reach", showlegend=False,
            marker=dict(symbol="line-ns", size=18, color=colour, line=dict(width=3, color=colour)),
            hovertemplate=f"{row['series']}: frontier ends at %{{x:.1f}} tok/s/user<extra>reach</extra>",
            meta={"kind": "reach", "series": row["series"]}))
    return fig


def break_even_figure(table: pd.DataFrame, series: str, against: str) -> go.Figure:
    """Break-even $/GPU-hour of ``series`` against ``against`` across interactivity, with its current rate."""
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=table["interactivity"], y=table["break_even_usd_per_gpu_hour"], mode="lines",
                             name=f"break-even rate for {series}", line=dict(width=3, color="#1f6feb"),
                             hovertemplate="%{x:.1f} tok/s/user<br>$%{y:.2f}/GPU-h<extra></extra>",
                             meta={"kind": "break_even"}))
    fig.add_trace(go.Scatter(x=table["interactivity"], y=table["usd_per_gpu_hour"], mode="lines",
                             name=f"current rate for {series}", line=dict(width=2, dash="dash", color="#666"),
                             hovertemplate="$%{y:.2f}/GPU-h<extra></extra>", meta={"kind": "current_rate"}))
    fig.update_yaxes(tickprefix="$", ticksuffix="/GPU-h")
    return _layout(fig, "$ per GPU-hour", title=f"{series} matches {against} at this rate")
