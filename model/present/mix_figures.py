"""The GPU mix's chart: $/month against the share of long requests, each GPU type alone and the cheapest mix
(:attr:`model.core.mix.MixAnswer.crossover`), the mix's share now marked (pure functions)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from model.present import fmt

__all__ = ["mix_crossover_figure", "ALONE"]

#: the suffix of a crossover column holding one type alone [$/month] (:func:`model.core.mix.mix_crossover`)
ALONE = " alone"
_COLOURS = ("#1f6feb", "#bf8700", "#8250df", "#1a7f37", "#cf222e", "#0a3069", "#7d4e00", "#6e7781")


def mix_crossover_figure(crossover: pd.DataFrame, long_share: float | None = None) -> go.Figure:
    """Each type alone (dotted steps) and the cheapest mix (solid, thicker) [$/month] as the share of long requests
    goes from 0 to 100 %; where the mix stands now (``long_share`` [-]) a dashed line. A type alone that cannot
    serve a step leaves a gap there."""
    xs = [100 * v for v in crossover["long_share"]]
    alone = [c for c in crossover.columns if c.endswith(ALONE)]
    traces = [go.Scatter(x=xs, y=list(crossover[column]), name=column, mode="lines+markers",
                         line=dict(color=_COLOURS[i % len(_COLOURS)], width=1.5, dash="dot"), marker=dict(size=4),
                         hovertemplate=column + "<br>%{x:.0f}% long: $%{y:,.0f}/month<extra></extra>")
              for i, column in enumerate(alone)]
    traces.append(go.Scatter(x=xs, y=list(crossover["mix_usd_per_month"]), name="cheapest mix", mode="lines+markers",
                             line=dict(color="#111", width=3), marker=dict(size=6),
                             customdata=list(crossover["mix_types"].fillna("")),
                             hovertemplate="cheapest mix: %{customdata}<br>%{x:.0f}% long: $%{y:,.0f}/month"
                                           "<extra></extra>"))
    fig = go.Figure(traces)
    if long_share is not None:
        fig.add_vline(x=100 * long_share, line=dict(color="#6e7781", width=1, dash="dash"),
                      annotation_text=f"your mix: {fmt.percent(long_share)} long", annotation_position="top left")
    fig.update_layout(template="plotly_white", height=400, margin=dict(l=70, r=20, t=30, b=50),
                      xaxis=dict(title="share of long requests [%]", range=[0, 100], ticksuffix="%"),
                      yaxis=dict(title="$ per month", tickprefix="$", rangemode="tozero"),
                      legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0))
    return fig
