"""The buy, rent or API chart (monthly cost of each option against monthly volume) and the demand against capacity
over the day (pure functions)."""

from __future__ import annotations

import math

import plotly.graph_objects as go

from model.present import fmt
from model.present.parts import VolumeAnswer
from model.present.volume_answer import curve

__all__ = ["volume_figure", "chart_range", "day_figure"]

_COLOURS = {"owned": ("#1f6feb", "#0a3069", "#54aeff"), "rented": ("#bf8700", "#7d4e00", "#d4a72c"),
            "api": ("#cf222e", "#82071e", "#ff8182")}


def chart_range(answer: VolumeAnswer) -> tuple[float, float]:
    """Volumes the chart spans [tokens/month]: a decade around the view's volume and every finite break-even."""
    marks = [answer.volume] + [b["above_tokens_per_month"] for b in answer.break_evens
                               if b["above_tokens_per_month"] and math.isfinite(b["above_tokens_per_month"])]
    return min(marks) / 10, max(marks) * 10


def volume_figure(answer: VolumeAnswer) -> go.Figure:
    """Steps where a node is added (owned, rented), a line for the API, on a log volume axis; the view's
    volume and each break-even where an option starts to beat the API are marked."""
    lo, hi = chart_range(answer)
    traces, seen = [], {}
    for option in answer.options:
        xs, ys = curve(option, lo, hi)
        n = seen[option.kind] = seen.get(option.kind, -1) + 1
        colour = _COLOURS[option.kind][n % 3]
        traces.append(go.Scatter(x=xs, y=ys, name=option.name, mode="lines",
                                 line=dict(color=colour, width=2, dash="dot" if option.kind == "rented" else None),
                                 hovertemplate=option.name + "<br>%{x:.3s} tokens/month: $%{y:,.0f}/month<extra></extra>"))
    fig = go.Figure(traces)
    fig.add_vline(x=answer.volume, line=dict(color="#111", width=1, dash="dash"),
                  annotation_text=f"your volume {fmt.tokens(answer.volume)}", annotation_position="top left")
    for b in answer.break_evens:
        start = b["above_tokens_per_month"]
        if start and math.isfinite(start) and lo < start < hi and "API" in b["than"]:
            fig.add_vline(x=start, line=dict(color="#6e7781", width=1, dash="dot"))
    fig.update_layout(template="plotly_white", height=440, margin=dict(l=70, r=20, t=30, b=50),
                      xaxis=dict(title=f"{answer.basis} tokens per month", type="log"),
                      yaxis=dict(title="$ per month", tickprefix="$", type="log"),
                      legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0))
    return fig


def day_figure(over_time, series: str | None = None) -> go.Figure:
    """Demand against capacity over the shape's span for one series (the first when ``series`` is None):
    the load λ(t) [req/s], the req/s the nodes bought for the peak carry, and those of the nodes following the
    load (:func:`model.core.fleet.fleet_over_time`), each a step per interval."""
    names = list(dict.fromkeys(over_time["series"]))
    part = over_time[over_time["series"] == (series if series in names else names[0])]
    step = float(part["t_h"].iloc[1] - part["t_h"].iloc[0]) if len(part) > 1 else 1.0
    xs = list(part["t_h"]) + [float(part["t_h"].iloc[-1]) + step]

    def line(column: str) -> list[float]:
        values = list(part[column])
        return values + values[-1:]

    fig = go.Figure([
        go.Scatter(x=xs, y=line("demand_rps"), name="demand", mode="lines", line=dict(color="#111", width=2,
                   shape="hv"), fill="tozeroy", fillcolor="rgba(17,17,17,0.08)",
                   hovertemplate="hour %{x:.2f}: %{y:.3g} req/s<extra>demand</extra>"),
        go.Scatter(x=xs, y=line("capacity_rps"), name=f"bought for the peak ({part['nodes'].iloc[0]:,.0f} nodes)",
                   mode="lines", line=dict(color=_COLOURS["owned"][0], width=2, shape="hv"),
                   hovertemplate="%{y:.3g} req/s<extra>bought for the peak</extra>"),
        go.Scatter(x=xs, y=line("capacity_autoscaled_rps"),
                   name=f"on demand, following the load ({part['nodes_autoscaled'].mean():.3g} nodes on average)",
                   mode="lines",
                   line=dict(color=_COLOURS["rented"][0], width=2, dash="dot", shape="hv"),
                   hovertemplate="%{y:.3g} req/s<extra>following the load</extra>")])
    # the title above the plot, the legend under the x axis: a long legend wraps downwards, never over the title
    fig.update_layout(template="plotly_white", height=420, margin=dict(l=70, r=20, t=40, b=40),
                      title=dict(text=str(part["series"].iloc[0]), font=dict(size=13), y=0.98, yanchor="top"),
                      xaxis=dict(title="hour" if xs[-1] <= 24 else "hours from the trace's first request"),
                      yaxis=dict(title="requests per second", rangemode="tozero"),
                      legend=dict(orientation="h", yanchor="top", y=-0.18, x=0))
    return fig
