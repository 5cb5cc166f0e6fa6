"""Plotly figures for load ramps, built by pure functions (no Streamlit) so tests can read their traces.

Throughput per node against offered request rate, TTFT percentiles on a second y axis, the
SLA's TTFT limit drawn as a line, SLA-breaking points drawn as hollow red crosses, and each
series' knee as a star. Colours per hardware as in :mod:`model.present.figures`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from model.core.capacity import ramp_points
from model.core.hardware import hardware_colour
from model.core.sla import SLA, TTFT_PERCENTILES, sla_failures, sla_mask

__all__ = ["RAMP_X_TITLE", "TTFT_Y_TITLE", "BREAK_COLOUR", "ramp_y_title", "ramp_figure"]

RAMP_X_TITLE = "Request rate [req/s]"
TTFT_Y_TITLE = "TTFT [s]"
#: how SLA-breaking points are drawn
BREAK_COLOUR = "#d62728"
_TTFT_DASHES = {"p50": "dot", "p90": "dashdot", "p95": "dash", "p99": "longdash"}


def ramp_y_title(basis: str | None) -> str:
    """``"output"`` -> ``"Throughput [output tok/s/node]"``."""
    return f"Throughput [{basis + ' ' if basis and basis != 'auto' else ''}tok/s/node]"


def ramp_figure(ramp: pd.DataFrame, sla: SLA | None = None, knee: pd.DataFrame | None = None) -> go.Figure:
    """Throughput [tok/s/node] against request rate [req/s], TTFT percentiles [s] on the right axis.

    Parameters
    ----------
    ramp : DataFrame  :func:`model.core.capacity.ramp_points` output (raw points are passed through it)
    sla : SLA, optional  its TTFT limit is drawn on the TTFT axis; points breaking it are hollow red x
    knee : DataFrame, optional  :func:`model.core.capacity.knee` output; each knee is marked with a star

    Returns
    -------
    plotly Figure. Trace names: ``"<series>"`` (throughput, passing points), ``"<series> breaks SLA"``,
    ``"<series> TTFT p95"`` (one per percentile present), ``"<series> knee"`` (its ``meta``: ``kind="knee"``,
    ``series``, ``usd_per_mtok``, None when unpriced) and ``"SLA: TTFT p95 <= 5 s"``.
    """
    if "tokens_per_second_per_node" not in ramp.columns or "series" not in ramp.columns:
        ramp = ramp_points(ramp, sla=sla)
    elif sla is not None and "meets_sla" not in ramp.columns:
        ramp = ramp.assign(meets_sla=sla_mask(ramp, sla), sla_failure=sla_failures(ramp, sla))
    fig = go.Figure()
    bases = sorted(set(ramp["basis"].dropna().astype(str))) if "basis" in ramp.columns else []
    for series, part in ramp.groupby("series", sort=True):
        hardware = str(part["hardware"].iloc[0]) if "hardware" in part.columns else str(series).split(" · ")[0]
        colour = hardware_colour(hardware)
        part = part.sort_values("request_rate_rps")
        ok = part["meets_sla"].to_numpy(dtype=bool) if "meets_sla" in part.columns else np.ones(len(part), bool)
        why = part["sla_failure"].fillna("").astype(str).tolist() if "sla_failure" in part.columns else [""] * len(part)
        fig.add_trace(go.Scatter(
            x=part["request_rate_rps"], y=part["tokens_per_second_per_node"], mode="lines", name=f"{series} (ramp)",
            legendgroup=str(series), showlegend=False, line=dict(color=colour, width=2), hoverinfo="skip",
        ))
        good = part[ok]
        fig.add_trace(go.Scatter(
            x=good["request_rate_rps"], y=good["tokens_per_second_per_node"], mode="markers", name=str(series),
            legendgroup=str(series), marker=dict(color=colour, size=9, symbol="circle"),
            hovertemplate="%{x:g} req/s<br>%{y:,.0f} tok/s/node<br>meets the SLA<extra>" + str(series) + "</extra>",
        ))
        bad = part[~ok]
        if not bad.empty:
            fig.add_trace(go.Scatter(
                x=bad["request_rate_rps"], y=bad["tokens_per_second_per_node"], mode="markers",
                name=f"{series} breaks SLA", legendgroup=str(series),
                marker=dict(symbol="x-open", size=12, color=BREAK_COLOUR, line=dict(color=BREAK_COLOUR, width=2)),
                text=[w for w, o in zip(why, ok) if not o],
                hovertemplate="%{x:g} req/s<br>%{y:,.0f} tok/s/node<br>breaks: %{text}<extra>" + str(series) + "</extra>",
            ))
        for p in TTFT_PERCENTILES:
            column = f"ttft_{p}_s"
            if column not in part.columns or part[column].isna().all():
                continue
            have = part[part[column].notna()]
            fig.add_trace(go.Scatter(
                x=have["request_rate_rps"], y=have[column], mode="lines+markers", name=f"{series} TTFT {p}",
                legendgroup=str(series), yaxis="y2", line=dict(color=colour, dash=_TTFT_DASHES[p], width=1.5),
                marker=dict(color=colour, size=5, symbol="diamond"), opacity=0.7,
                hovertemplate="%{x:g} req/s<br>TTFT " + p + " %{y:.2f} s<extra>" + str(series) + "</extra>",
            ))
    if knee is not None and not knee.empty:
        for _, row in knee[knee["request_rate"].notna()].iterrows():
            hardware = row.get("hardware") or str(row["series"]).split(" · ")[0]
            cost = row.get("usd_per_mtok", np.nan)
            priced = bool(pd.notna(cost) and np.isfinite(cost))
            fig.add_trace(go.Scatter(
                x=[row["request_rate"]], y=[row["tokens_per_second_per_node"]], mode="markers",
                name=f"{row['series']} knee", legendgroup=str(row["series"]),
                marker=dict(symbol="star", size=18, color=hardware_colour(str(hardware)), line=dict(color="#111", width=1)),
                text=[f"${cost:,.2f}/M tokens at ${row['usd_per_gpu_hour']:,.2f}/GPU-hour" if priced else "unpriced"],
                meta=dict(kind="knee", series=str(row["series"]), usd_per_mtok=float(cost) if priced else None),
                hovertemplate=("knee %{x:g} req/s<br>%{y:,.0f} tok/s/node<br>%{text}<extra>" + str(row["series"])
                               + "</extra>"),
            ))
    if sla is not None and sla.ttft_max_s is not None:
        xs = ramp["request_rate_rps"].dropna()
        x0, x1 = (0.0, float(xs.max()) * 1.05) if not xs.empty else (0.0, 1.0)
        fig.add_trace(go.Scatter(
            x=[x0, x1], y=[sla.ttft_max_s] * 2, mode="lines", yaxis="y2",
            name=f"SLA: TTFT {sla.ttft_percentile} <= {sla.ttft_max_s:g} s",
            line=dict(color=BREAK_COLOUR, dash="dash", width=1.5), hoverinfo="name",
        ))
    fig.update_layout(
        template="plotly_white", height=460, margin=dict(l=60, r=60, t=20, b=50), hovermode="closest",
        legend=dict(orientation="h", yanchor="bottom", y=1.02, xanchor="left", x=0),
        xaxis=dict(title=dict(text=RAMP_X_TITLE), rangemode="tozero"),
        yaxis=dict(title=dict(text=ramp_y_title(bases[0] if len(bases) == 1 else None)), rangemode="tozero"),
        yaxis2=dict(title=dict(text=TTFT_Y_TITLE), overlaying="y", side="right", rangemode="tozero", showgrid=False),
    )
    return fig
