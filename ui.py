"""The dashboard's Streamlit layer: state <-> URL, sidebar, caching, and one renderer per page.

The only module besides ``app.py`` and ``pages/`` that imports Streamlit. Caching
lives here as thin wrappers over undecorated ``model`` functions: the DuckDB
connection (``st.cache_resource``), and query + frontier (``st.cache_data``). A
rate slider re-prices the cached frontier without touching the database.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

import numpy as np
import pandas as pd
import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

from model import figures
from model.analysis import Analysis, analyse, frontiers_for
from model.capacity import BLENDED_FORMULA, SLA, TTFT_PERCENTILES, compare_systems, knee, ramp_points
from model.cost import load_presets, preset_rates, price_sets, tiers
from model.evals import flag_regressions, load_evals
from model.export import safe_csv
from model.frontier import BASES, SERIES_KEY_CHOICES
from model.ingest import IngestError, ingest_file
from model.iso import break_even_rates, iso_table
from model.ramp_figures import ramp_figure
from model.samples import load_samples
from model.store import (
    StoreError,
    connect,
    data_version,
    default_db_path,
    distinct_values,
    list_sources,
    load_points,
    remove_source,
    stored_rates,
    workloads,
)
from model.viewstate import ViewState, parse_query

MAX_UPLOAD_MB = float(os.environ.get("COSTFRONTIER_MAX_UPLOAD_MB", "200"))
#: page id -> URL path Streamlit gives the page (from its file name in pages/)
PAGE_PATHS = {"overview": "", "frontier": "Frontier", "cost": "Matched_interactivity", "crossovers": "Crossovers",
              "ramps": "Ramps", "tco_rates": "TCO_rates", "data": "Data"}
_NAV = (  # the sidebar's page links (the automatic nav would call the overview "app")
    ("app.py", "Overview", ":material/home:"),
    ("pages/1_Frontier.py", "Frontier", ":material/scatter_plot:"),
    ("pages/2_Matched_interactivity.py", "Cost at matched interactivity", ":material/payments:"),
    ("pages/3_Crossovers.py", "Crossovers", ":material/compare_arrows:"),
    ("pages/4_Ramps.py", "Load ramps and capacity", ":material/speed:"),
    ("pages/5_TCO_rates.py", "TCO rates", ":material/tune:"),
    ("pages/6_Data.py", "Data", ":material/database:"),
)
_MD_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_{}[]()#+-.!|<>~$:"})


def _plain(text: str) -> str:
    """Text from files, safe to hand to a Markdown-rendering element: every Markdown/HTML character escaped."""
    return str(text).translate(_MD_SPECIAL)


# --------------------------------------------------------------------------- caching at the edge

@st.cache_resource(show_spinner=False)
def _connection(path: str):
    return connect(path)


def _cursor():
    return _connection(str(default_db_path())).cursor()


def _version() -> tuple:
    """Changes whenever a source is added or removed: part of every data cache key."""
    return data_version(_cursor())


# Points and frontiers are cached as resources: shared, not copied on every hit (cache_data would
# pickle 100k rows per rerun). Everything downstream treats them as read-only (filters and assign copy).
@st.cache_resource(show_spinner=False, max_entries=32)
def _points(path: str, version: tuple, where: tuple) -> pd.DataFrame:
    return load_points(_connection(path).cursor(), {k: list(v) for k, v in where})


@st.cache_resource(show_spinner=False, max_entries=64)
def _frontier(path: str, version: tuple, where: tuple, by: tuple, basis: str, rates: tuple, sla: str,
              weights: tuple) -> pd.DataFrame:
    return frontiers_for(_points(path, version, where), by, basis, dict(rates), sla, *weights)


@st.cache_data(show_spinner=False, max_entries=4)
def _export_csv(path: str, version: tuple, where: tuple) -> str:
    """Every column of the rows in view, formula-neutralised for spreadsheets."""
    return safe_csv(load_points(_connection(path).cursor(), {k: list(v) for k, v in where}, full=True))


@st.cache_data(show_spinner=False, max_entries=8)
def _options(path: str, version: tuple) -> dict[str, list]:
    cur = _connection(path).cursor()
    out = {name: distinct_values(cur, name) for name in ("hardware", "framework", "precision", "spec_decoding")}
    out["workloads"] = workloads(cur)
    return out


@st.cache_data(show_spinner=False, max_entries=8)
def _presets(path: str, version: tuple) -> pd.DataFrame:
    return load_presets(stored_rates(_connection(path).cursor()))


# --------------------------------------------------------------------------- view state and sidebar

@dataclass
class Ctx:
    """What a page needs: the view state, the data and the answer."""

    page: str
    state: ViewState
    points: pd.DataFrame
    presets: pd.DataFrame
    options: dict
    empty: bool
    version: tuple                       # the data version this rerun read: every cache key uses it
    memo: dict = field(default_factory=dict)

    def update(self, **changes) -> "Ctx":
        self.state = self.state.model_copy(update=changes)
        st.session_state["_view"] = self.state
        _write_query(self.state)
        return self

    def analysis(self, with_points: bool = False) -> Analysis:
        """The answer for the current state; memoised per scenario within one rerun."""
        scenario = self.state.scenario()
        key = (scenario, _where_key(self.state), with_points)
        if key not in self.memo:
            self.memo[key] = self._analysis(scenario, with_points)
        return self.memo[key]

    def _analysis(self, scenario, with_points: bool) -> Analysis:
        path, version = str(default_db_path()), self.version
        where = _where_key(self.state)
        # the frontier depends on rates only when series mix hardware (then it is fitted on tokens per $)
        rates = tuple(sorted(_all_rates(self).items())) if "hardware" not in self.state.by else ()
        frontier = _frontier(path, version, where, self.state.by, self.state.basis, rates, self.state.sla,
                             (self.state.w_input, self.state.w_cached))
        return analyse(self.points, scenario, self.presets, frontier=frontier, with_points=with_points)


def _all_rates(ctx: Ctx) -> dict[str, float]:
    try:
        rates = preset_rates(ctx.presets, ctx.state.price_set, ctx.state.tier)
    except ValueError:
        rates = {}
    rates.update(dict(ctx.state.rates))
    return rates


def _where_key(state: ViewState) -> tuple:
    return tuple(sorted((k, tuple(v)) for k, v in state.where().items()))


def _write_query(state: ViewState) -> None:
    wanted = state.to_query()
    current = {k: st.query_params.get(k) for k in st.query_params.keys()}
    if current != wanted:
        st.query_params.from_dict(wanted)


def share_link(state: ViewState, page: str) -> str:
    """Absolute link to ``page`` with the view's query string."""
    try:
        base = str(st.context.url or "").split("?")[0]
    except Exception:  # older runtimes or AppTest without a browser
        base = ""
    if not base:
        base = "http://localhost:8501/"
    root = base.rstrip("/")
    for suffix in PAGE_PATHS.values():
        if suffix and root.lower().endswith("/" + suffix.lower()):
            root = root[: -len(suffix) - 1]
    path = PAGE_PATHS.get(page, "")
    query = urlencode(state.to_query(), safe=":,|")
    return f"{root}/{path}" + (f"?{query}" if query else "")


def _initial_state() -> ViewState:
    if "_view" not in st.session_state:
        state, notices = parse_query({k: st.query_params.get_all(k) for k in st.query_params.keys()})
        st.session_state["_view"] = state
        st.session_state["_notices"] = notices
    return st.session_state["_view"]


def _nav(sb) -> None:
    """Labelled page links. Under AppTest a page runs as its own main script and the others are not
    registered, so links are skipped there (the real server always has them)."""
    for script, label, icon in _NAV:
        try:
            sb.page_link(script, label=label, icon=icon)
        except StreamlitPageNotFoundError:
            return


def _seed(key: str, value) -> None:
    """Give a widget its value from the view state unless the user already set it this page."""
    if key not in st.session_state:
        st.session_state[key] = value


def _on_price_set_change() -> None:
    for key in [k for k in st.session_state.keys() if str(k).startswith("rate::")]:
        del st.session_state[key]
    st.session_state["_view"] = st.session_state["_view"].model_copy(update={"rates": ()})


def reset_rates() -> None:
    """Callback: every rate back to the chosen preset."""
    _on_price_set_change()


def _workload_label(wl: str, options: dict) -> str:
    if wl == "all":
        return "All workloads (series split by model and ISL/OSL)"
    model, isl, osl = (wl.split("|") + ["", "", ""])[:3]
    n = next((row[3] for row in options["workloads"] if "|".join(row[:3]) == wl), 0)
    name = model or "unnamed model"
    return f"{name} · ISL {isl or '?'} / OSL {osl or '?'} ({n} points)"


def start(page: str) -> Ctx:
    """Every page starts here: read the link, draw the shared sidebar, load the data."""
    try:
        _connection(str(default_db_path()))
    except StoreError as exc:
        st.error(_plain(f"Cannot open the database: {exc}"))
        st.stop()
    state = _initial_state()
    path, version = str(default_db_path()), _version()
    options = _options(path, version)
    presets = _presets(path, version)
    for notice in st.session_state.get("_notices", []):
        st.warning(_plain(notice), icon="⚠️")
    st.session_state["_notices"] = []

    sb = st.sidebar
    _nav(sb)
    workloads = ["|".join(row[:3]) for row in options["workloads"]]
    if len(workloads) > 1:
        workloads.append("all")
    if state.workload and state.workload not in workloads and workloads:
        st.warning(_plain(f"Workload {state.workload!r} from the link is not in the data; showing {workloads[0]!r}."))
        state = state.model_copy(update={"workload": None})
    _seed("wl", state.workload or (workloads[0] if workloads else None))
    sb.header("View")
    wl = sb.selectbox("Model and workload", workloads, key="wl", format_func=lambda w: _workload_label(w, options),
                      help="ISL/OSL: input/output sequence length [tokens]") if workloads else None
    selections = {}
    for key, column, label in (("hw", "hardware", "Hardware"), ("fw", "framework", "Framework"),
                               ("prec", "precision", "Precision"), ("spec", "spec_decoding", "Speculative decoding")):
        values = [v for v in getattr(state, column) if v in options[column]]
        _seed(key, values)
        selections[column] = tuple(sb.multiselect(label, options[column], key=key, placeholder="all"))
    by_default = tuple(state.by) + (("model", "isl", "osl") if wl == "all" and "isl" not in state.by else ())
    _seed("by", list(by_default))
    by = tuple(sb.multiselect("Series = rows sharing", SERIES_KEY_CHOICES, key="by",
                              help="Series pool over parallelism and concurrency; the frontier is per series."))
    if not by:
        sb.caption("No grouping keys: everything is one series.")
    _seed("basis", state.basis)
    basis = sb.radio("Token basis", BASES, key="basis", horizontal=True,
                     help="Which tokens a $/M counts; each from its own per-GPU throughput. Blended weighs "
                          "input tokens by their price relative to an output token.")
    weights = {"w_input": state.w_input, "w_cached": state.w_cached}
    if basis == "blended":
        c1, c2 = sb.columns(2)
        _seed("win", state.w_input)
        _seed("wc", state.w_cached)
        weights["w_input"] = c1.number_input("input weight", 0.0, 10.0, key="win", step=0.05, format="%.3f")
        weights["w_cached"] = c2.number_input("cached weight", 0.0, 10.0, key="wc", step=0.005, format="%.3f")
        sb.caption(_plain(BLENDED_FORMULA))
    sla = _sla_controls(sb, state)
    _seed("method", state.method)
    method = sb.radio("Interpolation", ("linear", "monotone"), key="method", horizontal=True,
                      help="linear in $/M between frontier points (reproduces InferenceX), or a monotone cubic.")

    sb.header("TCO rates [$/GPU-hour]")
    sets = price_sets(presets)
    _seed("ps", state.price_set if state.price_set in sets else sets[0])
    price_set = sb.selectbox("Price set", sets, key="ps", on_change=_on_price_set_change)
    tier_options = tiers(presets, price_set)
    _seed("tier", state.tier if state.tier in tier_options else tier_options[0])
    if st.session_state["tier"] not in tier_options:
        st.session_state["tier"] = tier_options[0]
    tier = sb.selectbox("Tier", tier_options, key="tier", on_change=_on_price_set_change)
    preset = preset_rates(presets, price_set, tier)

    where_state = state.model_copy(update={"workload": wl, **selections})
    points = _points(path, version, _where_key(where_state))
    in_view = sorted(points["hardware"].dropna().unique()) if not points.empty else []
    overrides = dict(state.rates)
    new_rates = {}
    for hw in in_view:
        key = f"rate::{hw}"
        if hw not in preset and hw not in overrides and key not in st.session_state:
            # no preset and no rate given: ask, never invent one (unpriced until set)
            value = sb.number_input(f"{hw} (no preset)", min_value=0.01, max_value=1000.0, value=None, step=0.05,
                                    key=f"rate_new::{hw}", placeholder="set $/GPU-hour", format="%.2f")
            if value is None:
                continue
            st.session_state[key] = float(value)   # from now on a slider like the others
        default = float(overrides.get(hw, preset.get(hw, 0.0)))
        _seed(key, default)
        top = max(10.0, round(default * 3, 0))
        value = sb.slider(hw + ("" if hw in preset else " (no preset)"), 0.05, top, key=key, step=0.01,
                          format="$%.2f")
        if hw not in preset or abs(value - preset[hw]) > 1e-9:
            new_rates[hw] = round(float(value), 4)
    for hw, value in overrides.items():       # keep overrides of hardware filtered out of view
        if hw not in in_view:
            new_rates[hw] = value
    sb.button("Reset rates to preset", on_click=reset_rates, key="reset_rates_sidebar",
              disabled=not new_rates)

    state = where_state.model_copy(update={"by": by, "basis": basis, "method": method, "price_set": price_set,
                                           "tier": tier, "rates": tuple(sorted(new_rates.items())), "sla": sla,
                                           **weights})
    ctx = Ctx(page, state, points, presets, options, empty=not options["workloads"], version=version)
    ctx.update()
    return ctx


_SLA_INPUTS = (  # widget key, SLA text key, label, step
    ("sla_ttft", "ttft", "TTFT at most [s]", 0.1),
    ("sla_tpot", "tpot", "median TPOT at most [ms]", 1.0),
    ("sla_int", "interactivity", "interactivity at least [tok/s/user]", 1.0),
    ("sla_e2e", "e2e", "median end-to-end at most [s]", 1.0),
    ("sla_ok", "success", "success rate at least [%]", 0.5),
)


def _sla_controls(sb, state: ViewState) -> str:
    """The latency SLA, shared by every page: 0 leaves a limit off. Returns the SLA text."""
    current = SLA.from_text(state.sla) if state.sla else SLA()
    seeds = {"sla_ttft": current.ttft_max_s, "sla_tpot": current.tpot_max_ms, "sla_int": current.interactivity_min,
             "sla_e2e": current.e2e_max_s,
             "sla_ok": None if current.success_min is None else round(current.success_min * 100, 3)}
    label = "Latency SLA" + (f": {current.describe()}" if state.sla else " (off)")
    with sb.expander(label, expanded=bool(state.sla)):
        _seed("sla_pct", current.ttft_percentile)
        pct = st.selectbox("TTFT percentile", TTFT_PERCENTILES, key="sla_pct")
        parts = []
        for key, name, text, step in _SLA_INPUTS:
            _seed(key, float(seeds[key] or 0.0))
            value = st.number_input(text, min_value=0.0, max_value=100_000.0 if name != "success" else 100.0,
                                    step=step, key=key, help="0 = no limit")
            if value > 0:
                if name == "ttft":
                    parts.append(f"ttft_{pct}={value:g}")
                elif name == "success":
                    parts.append(f"success={value / 100:g}")
                else:
                    parts.append(f"{name}={value:g}")
        st.caption("Rows that break a limit are left out before any frontier is fitted.")
    return ",".join(parts)


def share_box(ctx: Ctx) -> None:
    """The visible 'share this view' affordance: the link, ready to copy."""
    link = share_link(ctx.state, ctx.page)
    with st.sidebar:
        st.header("Share this view")
        st.code(link, language=None, wrap_lines=True)
        st.caption(f"{len(link)} characters. Opens this page with these filters, rates and targets.")


# --------------------------------------------------------------------------- shared bits

def _money_columns(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    out = frame.copy()
    for col in columns:
        out[col] = out[col].map(lambda v: figures.usd(v))
    return out


def _status_text(row) -> str:
    if row["status"] == "ok":
        return figures.usd(row["usd_per_mtok"])
    if row["status"] == "clamped":
        return figures.usd(row["usd_per_mtok"]) + " (clamped)"
    return f"out of reach ({row['status']})"


def _no_data(ctx: Ctx) -> bool:
    if ctx.empty:
        st.info("No benchmark data yet. Load the bundled samples on the Overview page, or upload files on the Data page.")
        return True
    if ctx.points.empty:
        st.info("No rows match these filters. Clear a filter in the sidebar.")
        return True
    return False


def _notes(result: Analysis) -> None:
    for note in result.notes:
        st.warning(_plain(note))


# --------------------------------------------------------------------------- pages

def overview_page() -> None:
    ctx = start("overview")
    st.title("Cost Frontier")
    st.caption("What does a million tokens cost on this hardware, at this speed?")
    if ctx.empty:
        st.subheader("No benchmark data loaded")
        st.markdown(
            "Load the bundled samples (SemiAnalysis InferenceX GLM-5 FP8 on B200 and MI355X, Wafer's GLM-5.2 "
            "MXFP4 ramp, TCO price sets), upload your own files on the **Data** page, or from a shell run "
            "`costfrontier ingest FILE...`.")
        if not _read_only() and st.button("Load the bundled samples", key="load_samples", type="primary"):
            results = load_samples(_connection(str(default_db_path())).cursor())
            st.success(f"Loaded {sum(r.rows_added for r in results)} rows from {len(results)} files.")
            st.rerun()
        share_box(ctx)
        return
    sources = list_sources(_cursor())
    c1, c2, c3, c4 = st.columns([1, 1, 1, 1.6])
    c1.metric("Sources", len(sources))
    c2.metric("Rows in view", f"{len(ctx.points):,}")
    hardware = sorted(ctx.points["hardware"].dropna().unique()) if not ctx.points.empty else []
    c3.metric("Hardware in view", len(hardware))
    c3.caption(_plain(", ".join(hardware)) or "—")
    dates = ctx.points["run_date"].dropna() if "run_date" in ctx.points else pd.Series(dtype=object)
    c4.metric("Latest run", str(dates.max()) if not dates.empty else "not stated")
    if not dates.empty and dates.min() != dates.max():
        c4.caption(f"earliest {dates.min()}")
    if _no_data(ctx):
        share_box(ctx)
        return
    result = ctx.analysis()
    _notes(result)
    if not result.curves:
        st.info("No series has both interactivity and throughput on this basis, so there is no frontier to price.")
        share_box(ctx)
        return
    lo = min(c.x_min for c in result.curves.values())
    hi = max(c.x_max for c in result.curves.values())
    default_x = ctx.state.headline_x or (result.targets[len(result.targets) // 2] if result.targets else lo)
    _seed("x", float(np.clip(default_x, lo, hi)))
    x = st.number_input("Interactivity you need [tok/s/user]", min_value=float(lo * 0.5), max_value=float(hi * 1.5),
                        key="x", step=1.0, format="%.1f")
    ctx.update(headline_x=float(x))
    at_x = iso_table(result.curves, [x], ctx.state.method).sort_values("usd_per_mtok", na_position="last")
    st.subheader(_plain(_headline(result, x, at_x)))
    at_x["$/M"] = [_status_text(r) for _, r in at_x.iterrows()]
    at_x["$/GPU-hour"] = at_x["usd_per_gpu_hour"].map(lambda v: figures.usd(v, "/h"))
    st.dataframe(at_x[["series", "$/M", "$/GPU-hour", "tokens_per_second_per_gpu"]].rename(
        columns={"tokens_per_second_per_gpu": "tok/s/GPU"}), hide_index=True, width="stretch", key="headline_table",
        column_config={"tok/s/GPU": st.column_config.NumberColumn(format="%.1f")})
    with st.expander("Sources loaded", expanded=False):
        st.dataframe(sources.drop(columns=["sha256"]), hide_index=True, width="stretch")
    share_box(ctx)


def _headline(result: Analysis, x: float, at_x: pd.DataFrame) -> str:
    """Which series is cheapest at ``x``, by how much, and where that changes. ``at_x``: the iso rows at x."""
    at = at_x.dropna(subset=["usd_per_mtok"]).sort_values("usd_per_mtok")
    if at.empty:
        return f"No series reaches {x:.1f} tok/s/user."
    best = at.iloc[0]
    text = f"At {x:.1f} tok/s/user, {best['series']} is cheapest at {figures.usd(best['usd_per_mtok'])}"
    if len(at) > 1:
        second = at.iloc[1]
        saving = 1 - best["usd_per_mtok"] / second["usd_per_mtok"]
        text += f", {saving:.0%} below {second['series']} ({figures.usd(second['usd_per_mtok'])})"
    cross = result.crossovers
    mine = cross[(cross["series_a"] == best["series"]) | (cross["series_b"] == best["series"])]
    if not mine.empty:
        nearest = mine.iloc[(mine["interactivity"] - x).abs().argsort()].iloc[0]
        other = nearest["series_b"] if nearest["series_a"] == best["series"] else nearest["series_a"]
        text += f"; {other} takes over {'above' if nearest['interactivity'] > x else 'below'} " \
                f"{nearest['interactivity']:.1f} tok/s/user"
    return text + "."


def frontier_page() -> None:
    ctx = start("frontier")
    st.title("Frontier")
    st.caption("Every measured point, and each series' Pareto frontier of throughput per GPU against interactivity.")
    if _no_data(ctx):
        share_box(ctx)
        return
    c1, c2 = st.columns([2, 1])
    _seed("y", ctx.state.frontier_y)
    y = c1.radio("Y axis", ("throughput", "cost"), key="y", horizontal=True,
                 format_func=lambda v: "tok/s/GPU" if v == "throughput" else "$ per million tokens")
    _seed("opt", ctx.state.optimal_only)
    optimal = c2.toggle("Optimal only", key="opt", help="Hide points that are not on a frontier.")
    ctx.update(frontier_y=y, optimal_only=bool(optimal))
    result = ctx.analysis(with_points=True)
    _notes(result)
    st.plotly_chart(figures.frontier_figure(result.points, result.frontier, y, bool(optimal)), width="stretch",
                    key="frontier_chart")
    if not optimal and len(result.points) > figures.DETAIL_LIMIT:
        st.caption(f"{len(result.points):,} measured points: hovering one shows its series and values; frontier "
                   "points (and 'Optimal only') show hardware, recipe, parallelism, concurrency, date and source.")
    shown = result.frontier[["series", "interactivity", "tokens_per_second_per_gpu", "usd_per_mtok", "tp", "ep", "dp",
                             "pp", "concurrency", "source_file", "source_line"]]
    st.dataframe(_money_columns(shown, ["usd_per_mtok"]), hide_index=True, width="stretch")
    share_box(ctx)


def _targets_control(ctx: Ctx, result: Analysis) -> tuple[float, ...]:
    default = ", ".join(f"{x:g}" for x in (ctx.state.targets or result.targets))
    _seed("at", default)
    text = st.text_input("Interactivity targets [tok/s/user], comma-separated", key="at",
                         help="Defaults are spread over the range every series reaches.")
    try:
        targets = tuple(sorted({float(t) for t in text.replace(";", ",").split(",") if t.strip()}))
        if any(not (0 < t < 100_000) for t in targets) or len(targets) > 20:
            raise ValueError
    except ValueError:
        st.warning("Targets must be up to 20 positive numbers separated by commas; using the defaults.")
        targets = ()
    if targets == tuple(result.targets) and not ctx.state.targets:
        targets = ()
    return targets


def cost_page() -> None:
    ctx = start("cost")
    st.title("Cost at matched interactivity")
    if _no_data(ctx):
        share_box(ctx)
        return
    result = ctx.analysis()
    targets = _targets_control(ctx, result)
    names = sorted(result.curves)
    _seed("base", ctx.state.baseline if ctx.state.baseline in names else (names[0] if names else None))
    baseline = st.selectbox("Baseline series for ratios", names, key="base") if names else None
    ctx.update(targets=targets, baseline=baseline)
    result = ctx.analysis()
    _notes(result)
    st.plotly_chart(figures.cost_figure(result.curves, result.iso, ctx.state.method), width="stretch", key="cost_chart")
    if result.iso.empty:
        st.info("No series to price.")
    else:
        table = result.iso.assign(cell=[_status_text(r) for _, r in result.iso.iterrows()])
        wide = table.pivot(index="series", columns="interactivity", values="cell")
        wide.columns = [f"{c:g} tok/s/user" for c in wide.columns]
        st.markdown("**$ per million tokens** (hollow markers and *(clamped)*: within 1% past a frontier's end)")
        st.table(wide)
        ratios = table.pivot(index="series", columns="interactivity", values="ratio_to_baseline")
        ratios.columns = [f"{c:g} tok/s/user" for c in ratios.columns]
        st.markdown("**Cost relative to " + _plain(baseline) + "** (above 1: dearer than the baseline)")
        st.table(ratios.map(lambda v: "—" if pd.isna(v) else f"{v:.2f}×"))
    st.caption(f"Method: {ctx.state.method}; basis: {ctx.state.basis} tokens. "
               "Cost = $/GPU-hour ÷ (3600 × tok/s/GPU ÷ 10⁶). No extrapolation past a frontier's end.")
    share_box(ctx)


def crossover_page() -> None:
    ctx = start("crossovers")
    st.title("Crossovers")
    if _no_data(ctx):
        share_box(ctx)
        return
    result = ctx.analysis()
    _notes(result)
    st.plotly_chart(figures.crossover_figure(result.curves, result.crossovers, result.reach, ctx.state.method),
                    width="stretch", key="crossover_chart")
    if result.crossovers.empty:
        st.info("No two cost curves cross inside their common range: the cheaper series stays cheaper.")
    else:
        for _, row in result.crossovers.iterrows():
            st.markdown("- **" + _plain(figures.crossover_label(row)) + "** (vs " + _plain(row["cheaper_above"])
                        + ", " + _plain(figures.usd(row["usd_per_mtok"])) + " at the crossing)")
        st.dataframe(_money_columns(result.crossovers, ["usd_per_mtok"]), hide_index=True, width="stretch",
                     key="crossover_table")
    st.markdown("**Reach**: the interactivity range of each frontier [tok/s/user]")
    st.dataframe(_money_columns(result.reach, ["usd_per_mtok_at_min", "usd_per_mtok_at_max"]), hide_index=True,
                 width="stretch")
    names = sorted(result.curves)
    if len(names) >= 2:
        st.subheader("Break-even $/GPU-hour")
        pairs = [f"{a}||{b}" for a in names for b in names if a != b]
        _seed("pair", ctx.state.pair if ctx.state.pair in pairs else pairs[0])
        pair = st.selectbox("Series against series", pairs, key="pair",
                            format_func=lambda p: " priced to match ".join(p.split("||")))
        ctx.update(pair=pair)
        a, b = pair.split("||")
        lo = max(result.curves[a].x_min, result.curves[b].x_min)
        hi = min(result.curves[a].x_max, result.curves[b].x_max)
        if hi <= lo:
            st.info(_plain(f"{a} and {b} share no interactivity range."))
        else:
            table = break_even_rates(result.curves, a, b, np.linspace(lo, hi, 60), ctx.state.method)
            st.plotly_chart(figures.break_even_figure(table, a, b), width="stretch", key="break_even_chart")
            st.caption(_plain(f"Break-even rate = rate of {a} × cost of {b} ÷ cost of {a}, at the same interactivity."))
    share_box(ctx)


def _on_rates_table_edit() -> None:
    edits = st.session_state.get("rates_table", {}).get("edited_rows", {})
    table = st.session_state.get("_rates_rows", [])
    for index, change in edits.items():
        value = change.get("your $/GPU-hour")
        if value is not None and 0 < float(value) <= 1000 and int(index) < len(table):
            st.session_state[f"rate::{table[int(index)]}"] = float(value)


def rates_page() -> None:
    ctx = start("tco_rates")
    st.title("TCO rates")
    st.caption("All-in $ per GPU-hour. Edit here or with the sidebar sliders: every page re-prices at once.")
    try:
        preset = preset_rates(ctx.presets, ctx.state.price_set, ctx.state.tier)
    except ValueError:
        preset = {}
    in_view = sorted(ctx.points["hardware"].dropna().unique()) if not ctx.points.empty else []
    rows = []
    for hw in in_view:
        current = st.session_state.get(f"rate::{hw}", preset.get(hw))
        kw = ctx.presets[(ctx.presets["hardware"] == hw) & (ctx.presets["price_set"] == ctx.state.price_set)
                         & (ctx.presets["tier"] == ctx.state.tier)]["all_in_kw_per_gpu"]
        rows.append({"hardware": hw, "preset $/GPU-hour": preset.get(hw), "your $/GPU-hour": current,
                     "all-in kW/GPU": float(kw.iloc[0]) if len(kw) else None})
    st.session_state["_rates_rows"] = in_view
    if rows:
        st.data_editor(pd.DataFrame(rows), key="rates_table", hide_index=True, width="stretch",
                       disabled=["hardware", "preset $/GPU-hour", "all-in kW/GPU"], on_change=_on_rates_table_edit,
                       column_config={"your $/GPU-hour": st.column_config.NumberColumn(
                           min_value=0.01, max_value=1000.0, step=0.01, format="$%.2f")})
    else:
        st.info("No hardware in view.")
    st.button("Reset to preset", on_click=reset_rates, key="reset_rates")
    with st.expander(f"All presets in {ctx.state.price_set} / {ctx.state.tier}"):
        chosen = ctx.presets[(ctx.presets["price_set"] == ctx.state.price_set) & (ctx.presets["tier"] == ctx.state.tier)]
        st.dataframe(chosen, hide_index=True, width="stretch")
    st.caption("Presets: SemiAnalysis AI Cloud TCO Model (2025-08 as used by InferenceX; 2026-07 market survey).")
    share_box(ctx)


_META_FIELDS = (  # widget key, field, label
    ("meta_hw", "hardware", "Hardware (e.g. H200)"),
    ("meta_gpus", "gpus", "GPUs serving each point"),
    ("meta_model", "model", "Model"),
    ("meta_fw", "framework", "Framework"),
    ("meta_prec", "precision", "Precision"),
    ("meta_conc", "concurrency", "Concurrency"),
)


def _metadata_form() -> list[str]:
    """Fields the files may not state, as ``--set`` pairs; they fill only empty cells."""
    st.caption("Fields your files may not state (GPU benchmarks rarely name the GPU). They fill only what a file "
               "leaves empty; the preview below updates as you type.")
    cols = st.columns(3)
    pairs = []
    for i, (key, name, label) in enumerate(_META_FIELDS):
        value = cols[i % 3].text_input(label, key=key).strip()
        if value:
            pairs.append(f"{name}={value}")
    return pairs


@st.cache_data(show_spinner=False, max_entries=32)
def _dry_run(name: str, content: bytes, set_fields: tuple[str, ...]) -> dict:
    """Ingest into a throw-away in-memory database: the exact checks of the real ingest, nothing stored."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / Path(name).name
        path.write_bytes(content)
        con = connect(":memory:")
        try:
            result = ingest_file(con, path, list(set_fields), display_name=name)
            rows = load_points(con, full=True).head(20) if result.kind == "points" else pd.DataFrame()
            return {"ok": True, "summary": result.summary, "kind": result.kind, "format": result.format,
                    "rows": result.rows_added, "warnings": result.warnings, "preview": rows}
        except IngestError as exc:
            return {"ok": False, "error": str(exc)}
        finally:
            con.close()


def _read_only() -> bool:
    """Read-only deployments: COSTFRONTIER_READ_ONLY=1, or read_only = true in .streamlit/secrets.toml."""
    if os.environ.get("COSTFRONTIER_READ_ONLY", "").strip().lower() in ("1", "true", "yes"):
        return True
    try:
        return bool(st.secrets.get("read_only", False))
    except Exception:  # no secrets file
        return False


def data_page() -> None:
    ctx = start("data")
    st.title("Data")
    con = _connection(str(default_db_path()))
    if _read_only():
        st.info("This is a read-only deployment: uploads and deletions are off. Share links still work.")
    else:
        _upload_section(con)
    st.subheader("Ingested sources")
    sources = list_sources(_cursor())
    st.dataframe(sources.drop(columns=["sha256"]), hide_index=True, width="stretch", key="sources_table")
    if not ctx.points.empty:
        # fresh version, not ctx.version: an upload earlier in this rerun may have added rows
        csv = _export_csv(str(default_db_path()), _version(), _where_key(ctx.state))
        st.download_button("Download the filtered rows as CSV", csv, file_name="costfrontier.csv",
                           mime="text/csv", key="download")
    if not _read_only() and not sources.empty:
        with st.expander("Delete a source"):
            choice = st.selectbox("Source", sources["source_id"].tolist(), key="delete_choice",
                                  format_func=lambda i: f"#{i} {sources.set_index('source_id').loc[i, 'file_name']}")
            sure = st.checkbox("I have downloaded what I need; delete it", key="delete_confirm")
            if st.button("Delete", key="delete", disabled=not sure):
                removed = remove_source(con.cursor(), int(choice))
                st.success(f"Deleted source #{choice} ({removed} rows).")
                st.rerun()
    share_box(ctx)


def _upload_section(con) -> None:
    st.subheader("Upload benchmark files")
    files = st.file_uploader("CSV or JSON result files (vLLM, SGLang, InferenceX, AIPerf, GenAI-Perf, trtllm-bench, "
                             "LLMPerf, guidellm, or a CSV)", accept_multiple_files=True, key="upload",
                             type=["csv", "tsv", "txt", "json", "jsonl"])
    set_fields = _metadata_form()
    if not files:
        return
    st.markdown("**Preview** (checked exactly as the ingest will; nothing is stored yet)")
    ready = []
    for upload in files:
        if upload.size > MAX_UPLOAD_MB * 1e6:
            st.error(_plain(f"{upload.name}: {upload.size / 1e6:.0f} MB is over the upload limit of "
                            f"{MAX_UPLOAD_MB:g} MB (COSTFRONTIER_MAX_UPLOAD_MB)."))
            continue
        dry = _dry_run(upload.name, upload.getvalue(), tuple(set_fields))
        if not dry["ok"]:
            st.error(_plain(dry["error"]))
            continue
        ready.append(upload)
        st.success(_plain(f"{upload.name}: {dry['format']} → {dry['rows']} {dry['kind']} rows"))
        for warning in dry["warnings"]:
            st.warning(_plain(f"{upload.name}: {warning}"))
        if not dry["preview"].empty:
            cols = [c for c in ("hardware", "gpus", "model", "framework", "precision", "spec_decoding", "tp",
                                "concurrency", "request_rate_rps", "interactivity", "total_tokens_per_second_per_gpu",
                                "output_tokens_per_second_per_gpu", "ttft_p50_s", "source_line")
                    if c in dry["preview"] and dry["preview"][c].notna().any()]
            st.dataframe(dry["preview"][cols], hide_index=True, width="stretch")
    if ready and st.button(f"Ingest {len(ready)} file{'s' if len(ready) > 1 else ''}", key="ingest", type="primary"):
        progress = st.progress(0.0, text="Ingesting…")
        for i, upload in enumerate(ready):
            _ingest_upload(con, upload, set_fields)
            progress.progress((i + 1) / len(ready), text=f"{i + 1} of {len(ready)} files")


def _ingest_upload(con, upload, set_fields: list[str]) -> None:
    name = upload.name
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / Path(name).name
        path.write_bytes(upload.getvalue())
        try:
            result = ingest_file(con.cursor(), path, set_fields, display_name=name)
        except IngestError as exc:
            st.error(_plain(str(exc)))
            return
    if result.duplicate_of is not None:
        st.info(_plain(result.summary))
    else:
        st.success(_plain(result.summary))
    for warning in result.warnings:
        st.warning(_plain(f"{name}: {warning}"))


# --------------------------------------------------------------------------- ramps, capacity, accuracy

@st.cache_data(show_spinner=False, max_entries=8)
def _evals(path: str, version: tuple) -> pd.DataFrame:
    return load_evals(_connection(path).cursor())


def _accuracy_section(ctx: Ctx) -> None:
    """Accuracy evaluations of the models in view, with regressions against the reference precision flagged."""
    evals = _evals(str(default_db_path()), ctx.version)
    models = set(ctx.points["model"].dropna()) if "model" in ctx.points else set()
    evals = evals[evals["model"].isin(models)] if not evals.empty else evals
    if evals.empty:
        return
    st.subheader("Accuracy beside cost")
    _seed("tol", ctx.state.eval_tolerance)
    tolerance = st.number_input("Flag a score drop larger than", 0.0, 1.0, step=0.005, format="%.3f", key="tol",
                                help="...or larger than the two scores' combined standard error.")
    ctx.update(eval_tolerance=float(tolerance))
    flags = flag_regressions(evals, "fp8", tolerance)
    shown = flags[["model", "eval", "setting", "precision", "score", "stderr", "drop", "flagged", "reason"]]
    st.dataframe(shown, hide_index=True, width="stretch", key="evals_table")
    st.caption("Reference precision: fp8. Source: the evaluation file's own rows (see the Data page).")


def _basis_text(basis: str) -> str:
    return {"output": "output (generated) tokens", "total": "total (input + output) tokens",
            "input": "input tokens", "blended": "blended tokens"}.get(basis, f"{basis} tokens")


def ramps_page() -> None:
    ctx = start("ramps")
    st.title("Load ramps and capacity")
    st.caption("Request-rate ramps against a latency SLA: the highest measured load that meets it, and what a "
               "million tokens costs there. Set the SLA in the sidebar.")
    if _no_data(ctx):
        share_box(ctx)
        return
    sla = SLA.from_text(ctx.state.sla) if ctx.state.sla else None
    rates = _all_rates(ctx)
    ramp = ramp_points(ctx.points, ctx.state.by, sla)
    if ramp.empty:
        st.info("No request-rate ramps in view. A ramp is rows with a request rate and no interactivity, such as "
                "the bundled Wafer GLM-5.2 sample: pick its workload in the sidebar.")
        share_box(ctx)
        return
    knees = knee(ctx.points, sla, rates, "auto", ctx.state.by)
    st.plotly_chart(ramp_figure(ramp, sla, knees), width="stretch", key="ramp_chart")
    st.markdown("**Knee of each ramp** under " + _plain(sla.describe() if sla else "no SLA (the highest rate measured)"))
    table = knees[["series", "status", "request_rate", "tokens_per_second_per_node", "tokens_per_second_per_gpu",
                   "basis", "usd_per_gpu_hour", "usd_per_mtok", "ttft_s", "first_failure"]]
    st.dataframe(_money_columns(table, ["usd_per_mtok"]), hide_index=True, width="stretch", key="knee_table",
                 column_config={"tokens_per_second_per_node": st.column_config.NumberColumn("tok/s/node", format="%.0f"),
                                "tokens_per_second_per_gpu": st.column_config.NumberColumn("tok/s/GPU", format="%.1f"),
                                "request_rate": st.column_config.NumberColumn("req/s", format="%.2f")})
    for basis in sorted(set(knees["basis"].dropna())):
        st.caption(_plain(f"Numbers on basis '{basis}' count {_basis_text(basis)}, as the source reports them; "
                          "nothing is converted."))
    _compare_section(ctx, rates, sla)
    _accuracy_section(ctx)
    share_box(ctx)


def _compare_section(ctx: Ctx, rates: dict[str, float], sla) -> None:
    st.subheader("Tokens per dollar, side by side")
    _seed("peak", ctx.state.compare_peaks)
    peaks = st.toggle("Compare peaks (ignore the SLA)", key="peak",
                      help="A system with no point meeting the SLA (e.g. a published peak without TTFT) can only "
                           "be compared at its peak.")
    rows = knee(ctx.points, None if peaks else sla, rates, "auto", ctx.state.by)
    rows = rows[rows["tokens_per_second_per_node"].notna()]
    names = rows["series"].tolist()
    if len(names) < 2:
        st.info("Fewer than two systems have a throughput to compare"
                + (" under this SLA; try comparing peaks." if sla and not peaks else "."))
        ctx.update(compare_peaks=bool(peaks))
        return
    _seed("cmp", [n for n in ctx.state.compare if n in names] or names)
    chosen = st.multiselect("Systems", names, key="cmp")
    _seed("cmpb", ctx.state.compare_base if ctx.state.compare_base in names else names[0])
    base = st.selectbox("Against", names, key="cmpb")
    ctx.update(compare=tuple(chosen), compare_base=base, compare_peaks=bool(peaks))
    picked = rows[rows["series"].isin(set(chosen) | {base})]
    try:
        table = compare_systems(picked, rates, baseline=base)
    except ValueError as exc:
        st.warning(_plain(str(exc)))
        return
    for _, row in table.iterrows():
        c1, c2, c3 = st.columns(3)
        c1.metric("Throughput ratio", f"{row['throughput_ratio']:.2f}×")
        c2.metric("Tokens per $ ratio", f"{row['tokens_per_usd_ratio']:.2f}×")
        c3.metric("Break-even price", figures.usd(row["break_even_usd_per_gpu_hour"], "/GPU-h"))
        st.text(row["arithmetic"])
