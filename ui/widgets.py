"""Small rendering helpers the pages share: tables for people, notes, empty states."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from model.core.analysis import Analysis
from model.present.answer_steps import DRAW_LIMIT
from model.present.figures import BAND_LIMIT
from model.present.fmt import for_people
from ui.data import Ctx, per_view
from ui.state import bind, plain

__all__ = ["table", "view_table", "notes", "no_data", "rate_sources", "drawn", "band_note"]


def table(frame: pd.DataFrame, key: str | None = None, **kwargs) -> None:
    """A data frame as people read it: formatted numbers, "—" for missing, headers in words."""
    st.dataframe(for_people(frame), hide_index=True, width="stretch", key=key, **kwargs)


def view_table(ctx: Ctx, name: str, make, key: str | None = None, **kwargs) -> None:
    """:func:`table` of ``make()``, a frame that depends only on the view and the data: made and formatted once
    per view and data version for every session (:func:`ui.data.per_view`)."""
    st.dataframe(per_view(ctx, name, lambda: for_people(make())), hide_index=True, width="stretch", key=key,
                 **kwargs)


def notes(result: Analysis) -> None:
    for note in result.notes:
        st.warning(plain(note[:1].upper() + note[1:]))


def no_data(ctx: Ctx) -> bool:
    """Say why there is nothing to show, if so."""
    if ctx.empty:
        st.info("No benchmark data yet. Load the bundled samples on the Overview page, or upload files on the "
                "Data page.")
        return True
    if ctx.points.empty:
        st.info("No rows match these filters. Clear a filter in the sidebar.")
        return True
    return False


def rate_sources(answer) -> None:
    """Where every $/GPU-hour in view comes from, in the one vocabulary the report and the CLI use."""
    with st.expander("Where each rate comes from", expanded=False):
        for row in answer.rates.to_dict("records"):
            st.markdown(plain(f"{row['hardware']}: {row['detail']}"))


def drawn(ctx: Ctx, result: Analysis) -> list[str] | None:
    """Past :data:`DRAW_LIMIT` series: the "Draw all" switch, a caption saying what the chart draws, and the series
    it draws (:meth:`model.present.view_answer.Answer.drawn`); None draws every series."""
    count = len(result.curves)
    if count <= DRAW_LIMIT:
        return None
    bind(st.toggle, "all_curves", f"Draw all {count:,} series",
         help="Off: the chart draws what a person can read; every series stays in the tables and the download.")
    chosen = ctx.answer.drawn(result)
    if chosen is not None:
        st.caption(f"Drawing {len(chosen)} of {count:,} series: the baseline, every series that is cheapest somewhere "
                   "(the lower envelope) and the cheapest at the targets. The tables list all of them.")
    return chosen


def band_note(curves: dict) -> None:
    """Past :data:`model.present.figures.BAND_LIMIT` curves the chart draws no ± bands: say where the ± is."""
    if len(curves) > BAND_LIMIT:
        st.caption(f"The ± bands are drawn for up to {BAND_LIMIT} series (more hide the curves); the ± of every "
                   "value is in the tables.")
