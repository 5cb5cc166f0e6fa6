"""Plan against actual's chart: realised against planned $/M period by period (pure functions)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

__all__ = ["plan_figure"]


def plan_figure(frame: pd.DataFrame, basis: str) -> go.Figure:
    """Realised and planned $/M on the plan's token ``basis``, one point per period at its middle (the rows of
    :func:`model.present.tables.plan_frame` without the total), the plan's ± as a band when it has one."""
    periods = frame[~frame["total"]].sort_values("period_start")
    middle = list(periods["period_start"] + (periods["period_end"] - periods["period_start"]) / 2)
    hover = "%{customdata}<br>$%{y:,.4f}/M<extra>"
    traces = []
    low, high = periods["planned_low"], periods["planned_high"]
    if (high - low).fillna(0).gt(1e-12).any():
        traces.append(go.Scatter(x=middle + middle[::-1], y=list(high) + list(low)[::-1], fill="toself",
                                 fillcolor="rgba(31,111,235,0.12)", line=dict(width=0), name="the plan's ±",
                                 hoverinfo="skip"))
    traces += [go.Scatter(x=middle, y=list(periods["planned"]), name="planned", mode="lines+markers",
                          line=dict(color="#1f6feb", width=2, dash="dash"), customdata=list(periods["period"]),
                          hovertemplate=hover + "planned</extra>"),
               go.Scatter(x=middle, y=list(periods["realised"]), name="realised", mode="lines+markers",
                          line=dict(color="#cf222e", width=3), marker=dict(size=8),
                          customdata=list(periods["period"]), hovertemplate=hover + "realised</extra>")]
    fig = go.Figure(traces)
    # the axis spans the periods themselves: one period's single point would otherwise get an axis of a few
    # milliseconds around it
    span = [periods["period_start"].min(), periods["period_end"].max()] if not periods.empty else None
    fig.update_layout(template="plotly_white", height=380, margin=dict(l=70, r=20, t=30, b=50),
                      xaxis=dict(title="period (its middle)", range=span, type="date"),
                      yaxis=dict(title=f"$ per million {basis} tokens", tickprefix="$", rangemode="tozero"),
                      legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0))
    return fig
