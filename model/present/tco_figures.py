"""Figures of the TCO builder: the cost breakdown per profile and the sensitivity tornado (pure functions)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from model.core.tco import PARTS

__all__ = ["breakdown_figure", "tornado_figure"]

_PART_COLOURS = {"capital": "#1f6feb", "power": "#f0a020", "facility": "#8c564b", "operations": "#6e7781"}


def breakdown_figure(frame: pd.DataFrame) -> go.Figure:
    """Stacked bars of each on-prem profile's $/GPU-hour at full use by part, and every profile's
    effective rate (÷ utilisation) as a marker. ``frame``: :func:`model.core.cost_profiles.breakdown_frame`."""
    traces = [go.Bar(name=part, x=frame["profile"], y=frame[part], marker_color=_PART_COLOURS[part],
                     hovertemplate="%{x}<br>" + part + " $%{y:.3f}/GPU-hour<extra></extra>") for part in PARTS]
    traces.append(go.Scatter(name="effective (÷ utilisation)", x=frame["profile"], y=frame["usd_per_gpu_hour"],
                             mode="markers", marker=dict(symbol="diamond", size=12, color="#111"),
                             hovertemplate="%{x}<br>effective $%{y:.3f}/GPU-hour<extra></extra>"))
    fig = go.Figure(traces)
    fig.update_layout(barmode="stack", template="plotly_white", height=380, margin=dict(l=60, r=20, t=20, b=40),
                      yaxis=dict(title="$ per GPU-hour", tickprefix="$"),
                      legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0))
    return fig


def tornado_figure(frame: pd.DataFrame, base: float, unit: str = "usd_per_mtok") -> go.Figure:
    """Horizontal bars of $/M (or $/GPU-hour) at each input's low and high value around ``base``.
    ``frame``: :func:`model.core.sensitivity.tornado`, widest first."""
    rows = frame.iloc[::-1]
    low, high = rows[f"{unit}_low"] - base, rows[f"{unit}_high"] - base
    money = "$/M" if unit == "usd_per_mtok" else "$/GPU-hour"
    fig = go.Figure([
        go.Bar(name="input −20 %", y=rows["label"], x=low, base=base, orientation="h", marker_color="#2da44e",
               customdata=rows[f"{unit}_low"], hovertemplate="%{y} −20 %: $%{customdata:.3f}<extra></extra>"),
        go.Bar(name="input +20 %", y=rows["label"], x=high, base=base, orientation="h", marker_color="#cf222e",
               customdata=rows[f"{unit}_high"], hovertemplate="%{y} +20 %: $%{customdata:.3f}<extra></extra>"),
    ])
    fig.update_layout(barmode="overlay", template="plotly_white", height=60 + 40 * len(rows),
                      margin=dict(l=140, r=20, t=20, b=40), xaxis=dict(title=money, tickprefix="$"),
                      legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0))
    fig.add_vline(x=base, line=dict(color="#111", width=1))
    return fig
