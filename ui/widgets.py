"""Small rendering helpers the pages share: tables for people, notes, empty states."""

from __future__ import annotations

import re

import pandas as pd
import streamlit as st

from model.core.analysis import Analysis
from model.present import fmt
from model.present.answer_steps import DRAW_LIMIT
from model.present.figures import BAND_LIMIT
from model.present.fmt import for_people
from model.present.report_output import table_frames
from ui.data import Ctx, per_view
from ui.state import bind, plain

__all__ = ["table", "spec_table", "answer_table", "view_table", "upload_error", "notes", "no_data", "rate_sources",
           "drawn", "band_note"]


#: widest a text column is drawn at first [px]: longer cells end in "…" (a click on a cell shows all of it), so
#: a long name or source does not push the numbers a decision needs off a 1280-pixel screen
TEXT_WIDTH = 240
#: characters of a text cell past which its column is drawn :data:`TEXT_WIDTH` wide
_LONG_TEXT = 34
#: headers said shorter, or in the product's units, in a table (the full header is the column's tooltip): long
#: ones would push a decision's columns off a 1280-pixel screen; the upload preview's come from column names
SHORT_HEADERS = {"Lowest interactivity [tok/s/user]": "Lowest [tok/s/user]",
                 "Highest interactivity [tok/s/user]": "Highest [tok/s/user]",
                 "Total tokens per second per gpu": "Total [tok/s/GPU]",
                 "Output tokens per second per gpu": "Output [tok/s/GPU]",
                 "Request rate rps": "Request rate [req/s]", "Ttft p50 s": "TTFT p50 [s]",
                 "Users at the interactivity": "Users", "Budget that binds": "Limit"}


def _columns(shown: pd.DataFrame, detail_labels: list[str], key: str | None) -> dict:
    """``st.dataframe`` arguments that fit the table to the screen: long text columns capped at :data:`TEXT_WIDTH`,
    long headers shortened (:data:`SHORT_HEADERS`), the first column pinned (it stays while the rest scroll on a
    phone), and the ``detail_labels`` columns left out unless the table's "More columns" switch is on."""
    config = {}
    for i, label in enumerate(shown.columns):
        cells = shown[label].head(200).astype(str)    # the first rows say how wide a column is
        long_text = len(cells) and cells.str.len().max() > _LONG_TEXT
        if long_text or label in SHORT_HEADERS or i == 0:
            config[label] = st.column_config.Column(SHORT_HEADERS.get(label, label),
                                                     width=TEXT_WIDTH if long_text else None, pinned=i == 0 or None,
                                                     help=label if label in SHORT_HEADERS else None)
    out = {"column_config": config}
    if detail_labels:
        names = ", ".join(detail_labels) if len(detail_labels) <= 4 else f"{len(detail_labels)} more"
        if not st.toggle(f"More columns ({names})", key=f"{key}_details",
                         help="The table shows first the columns a decision needs; this adds the rest. The "
                              "download has every column either way."):
            out["column_order"] = [c for c in shown.columns if c not in detail_labels]
    return out


def _details(frame: pd.DataFrame, shown: pd.DataFrame, details) -> list[str]:
    """The headers (as :func:`for_people` wrote them) of the ``details`` columns ``frame`` holds."""
    labels = dict(zip(frame.columns, shown.columns))
    return [labels[c] for c in details if c in labels]


def table(frame: pd.DataFrame, key: str | None = None, details=(), **kwargs) -> None:
    """A data frame as people read it: formatted numbers, "—" for missing, headers in words.

    ``details``: columns that are not needed for the decision the table serves (sources, recipe parts, ranges),
    drawn only when the reader turns on the table's "More columns" switch (needs ``key``); the rest is drawn so
    it fits a 1280×720 screen beside the sidebar (:func:`_columns`)."""
    shown = for_people(frame)
    st.dataframe(shown, hide_index=True, width="stretch", key=key,
                 **{**_columns(shown, _details(frame, shown, details), key), **kwargs})


def spec_table(frame: pd.DataFrame, spec: list, key: str | None = None, details=(), **kwargs) -> None:
    """A table as the report shows it (:func:`model.present.report_output.table_frames` of ``frame`` and its
    ``spec``: the same text, headers and rounding as the report and its downloads); ``details``: headers shown only
    when the table's "More columns" switch is on."""
    shown = table_frames(frame, spec)[0]
    st.dataframe(shown, hide_index=True, width="stretch", key=key,
                 **{**_columns(shown, [d for d in details if d in shown.columns], key), **kwargs})


def answer_table(frame: pd.DataFrame, columns: list[str]) -> None:
    """A page's answer as a small static table of its decision ``columns`` (formatted for people): it wraps its text
    to the screen, so on a phone no column a decision needs hides behind a sideways scroll (the full table follows,
    :func:`table`)."""
    st.table(for_people(frame[[c for c in columns if c in frame.columns]]).set_index(for_people(
        frame[[columns[0]]]).columns[0]))


def view_table(ctx: Ctx, name: str, make, key: str | None = None, details=(), **kwargs) -> None:
    """:func:`table` of ``make()``, a frame that depends only on the view and the data: made and formatted once
    per view and data version for every session (:func:`ui.data.per_view`)."""
    frame, shown = per_view(ctx, name, lambda: (lambda raw: (raw.head(0), for_people(raw)))(make()))
    st.dataframe(shown, hide_index=True, width="stretch", key=key,
                 **{**_columns(shown, _details(frame, shown, details), key), **kwargs})


_FORM_FIELD = re.compile(r"the form's '([^']+)' field")


def upload_error(name: str, message: str) -> None:
    """One error box for an upload the preview refused: the form fields that would let it in, named once each
    (a file that states no hardware and no GPU count is refused once per throughput column, each saying so), then
    any other problem as a list, not one run-on paragraph."""
    lines = [line.strip().removeprefix("also ") for line in message.splitlines() if line.strip()]
    needs = list(dict.fromkeys(field for line in lines for field in _FORM_FIELD.findall(line)))
    others = [line.removeprefix(name).lstrip(",: ") for line in lines if not _FORM_FIELD.search(line)]
    text = f"**{plain(name)}**: "
    if needs:
        text += ("fill the form's " + " and ".join(f"**{plain(field)}**" for field in needs)
                 + f" field{'s' if len(needs) > 1 else ''} above (the file does not state "
                 + ("it" if len(needs) == 1 else "them") + "); the preview follows as you type.")
    else:
        text += "not read:"
    st.error(text + "".join(f"\n- {plain(line)}" for line in others))


def notes(result: Analysis) -> None:
    for note in result.notes:
        st.warning(plain(fmt.sentence(note)))


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


def rate_sources(rates: pd.DataFrame) -> None:
    """Where every $/GPU-hour in view comes from (the answer's rate table), in the one vocabulary the report and the
    CLI use."""
    with st.expander("Where each rate comes from", expanded=False):
        for row in rates.to_dict("records"):
            st.markdown(plain(f"{row['hardware']}: {row['detail']}"))


def drawn(crossed) -> list[str] | None:
    """Past :data:`DRAW_LIMIT` series: the "Draw all" switch, a caption saying what the chart draws, and the series
    it draws (``crossed``: the answer's :class:`model.present.parts.Crossed`); None draws every series."""
    count = len(crossed.analysis.curves)
    if count <= DRAW_LIMIT:
        return None
    bind(st.toggle, "all_curves", f"Draw all {count:,} series")
    chosen = crossed.drawn
    if chosen is not None:
        st.caption(f"Drawing {len(chosen)} of {count:,} series: the baseline, every series that is cheapest somewhere "
                   "(the lower envelope) and the cheapest at the targets. The tables list all of them.")
    return chosen


def band_note(curves: dict) -> None:
    """Past :data:`model.present.figures.BAND_LIMIT` curves the chart draws no ± bands: say where the ± is."""
    if len(curves) > BAND_LIMIT:
        st.caption(f"The ± bands are drawn for up to {BAND_LIMIT} series (more hide the curves); the ± of every "
                   "value is in the tables.")
