"""The buy, rent or API chart: monthly cost of each option against monthly volume (a pure function)."""

from __future__ import annotations

import math

import plotly.graph_objects as go

from model.present import fmt
from model.present.volume_answer import VolumeAnswer, curve

__all__ = ["volume_figure", "chart_range"]

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
