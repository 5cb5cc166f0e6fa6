"""Cached data access at the edge: thin Streamlit cache wrappers over undecorated ``model`` functions; the only
place the answer of a view is cached (the core never sees a cache).

The reader of the store is a cache resource; everything else lives in one cache bounded in bytes
(:data:`ui.lru.CACHE`, ``$COSTFRONTIER_CACHE_MB``, least recently used first out): rows, the per-version store
parts (presets, TCO rates files, API prices, sources) and frontiers (shared, never copied per hit). Two entries
make the answer: one frontier fit per (data version, :func:`frontier_key`) and one answer per (data version,
view) (:func:`answer_of`), which every session's pages, the report box and the CSV buttons render; figures a
page builds once per view are kept beside it (:func:`per_view`). The parts of an answer that only its fit and
rates decide (the priced frontier and curves, every point labelled and priced, the repeats' spread, the
frontier table) are shared by every view of one fit and rates (:class:`ui.shared_answer.SharedAnswer`), so a distinct view (a
slider step) costs what its own answer adds, not a copy of the rows. Everything they hold is read-only. Every
key holds the data version read once per rerun, so one rerun never mixes two versions; entries of older
versions go when a rerun first sees a newer one.
"""

from __future__ import annotations

import copy
import os
import threading
from dataclasses import dataclass, field

import pandas as pd
import streamlit as st

from model.core.cost import load_presets, price_sets, tiers
from model.core.repeats import RunsInView, runs_in_view
from model.core.view import View
from model.core.view_fields import FIELDS, RATE
from model.data.api_prices import load_api_prices
from model.data.evals import load_evals
from model.data.export import safe_csv
from model.data.identity import identity
from model.data.inputs import DASHBOARD_PARTS, Inputs, analysis_columns, inputs_of, rate_files, with_workload
from model.data.published import PublishedPlan, priced_checks, published_plan
from model.data.requests import load_samples
from model.data.snapshot import Snapshot, open_reader
from model.data.snapshot import write as store_write
from model.data.store import (
    StoreError,
    default_db_path,
    distinct_values,
    list_sources,
    load_points,
    shared_strings,
    stored_rates,
    workloads,
)
from model.data.versions import acting, latest_version
from model.present.answer_steps import Fit
from model.present.answers import workload_label
from model.present.view_answer import Answer, fit_of_inputs, rates_of_inputs
from ui.lru import CACHE, trim_if_grown
from ui.shared_answer import SharedAnswer
from ui.state import view

__all__ = ["Ctx", "db_path", "reader", "begin", "store_away", "end", "snapshot", "write", "cursor", "version", "options", "presets", "points", "export_csv",
           "frontier_key", "answer_of", "per_view",
           "sources", "published_checks_of", "user", "page_name",
           "read_only", "clear"]




def db_path() -> str:
    return str(default_db_path())


@st.cache_resource(show_spinner=False)
def reader(path: str):
    """One reader per process: follows the live database, holds nothing a writer waits for."""
    return open_reader(path)


class _Held:
    """A snapshot this rerun holds (:meth:`model.data.snapshot.Reader.acquire`), let go exactly once: by
    :func:`end`, by the next :func:`begin` of the same rerun, or when the rerun's thread ends however it ends (a
    rerun stopped before the frame's ``finally``, in a widget callback or by a closed session): the thread's
    locals go then, and with them this hold."""

    __slots__ = ("reader", "snap", "__weakref__")

    def __init__(self, reader, snap: Snapshot):
        self.reader, self.snap = reader, snap

    def release(self) -> None:
        snap, self.snap = self.snap, None
        if snap is not None:
            self.reader.release(snap)

    __del__ = release


#: the snapshot of the rerun running on this thread (Streamlit runs each rerun on a thread of its own)
_RUN = threading.local()


def begin() -> Snapshot:
    """Once per rerun (the frame): the newest published snapshot, which every read in this rerun uses.
    Raises :class:`model.data.store.StoreError` (show ``.public``) when the file cannot be served.

    The snapshot is held (:meth:`model.data.snapshot.Reader.acquire`) until :func:`end`, which ``app.py`` calls
    when the rerun finishes, or until the rerun's thread ends (:class:`_Held`): a version replaced meanwhile is
    closed then, never kept by a session that went away. Nothing between taking the hold and keeping it can be
    interrupted (no Streamlit call), so no hold is ever lost."""
    rd = reader(db_path())
    held = _Held(rd, rd.acquire())
    old, _RUN.held = getattr(_RUN, "held", None), held
    if old is not None:
        old.release()
    CACHE.retain(lambda key: key[1] == held.snap.version)   # the newest version: what older ones cached goes
    return held.snap


_HAD_DATA = "_had_data"


def store_away(snap: Snapshot, own_view: bool) -> bool:
    """Whether the store file is missing while this session has something to lose: it was served data before
    (a redeploy swapping the file), or its view is not the default one (a link opened during the swap). The
    frame then keeps the view as it is and says so, instead of drawing it over no data; a session that has
    neither (a new deployment with no store yet) goes on, so the Data page can create one."""
    if snap.version != ("missing",):
        st.session_state[_HAD_DATA] = True
        return False
    return bool(st.session_state.get(_HAD_DATA)) or own_view


def end() -> None:
    """When a rerun finishes (or stops): let go of its snapshot, so a replaced version closes now."""
    held, _RUN.held = getattr(_RUN, "held", None), None
    if held is not None:
        held.release()
    trim_if_grown()      # what a first view of a big store built beside what it keeps goes back to the system


def snapshot() -> Snapshot:
    """This rerun's snapshot (:func:`begin`)."""
    held = getattr(_RUN, "held", None)
    return held.snap if held is not None and held.snap is not None else begin()


def cursor():
    """A cursor on this rerun's snapshot (read-only)."""
    return snapshot().con.cursor()


def version() -> tuple:
    """Changes whenever a new snapshot is published: part of every data cache key."""
    return snapshot().version


def user() -> str | None:
    """Who is writing, for the change log (:func:`model.data.identity.identity`): the sign-in proxy's header only
    when a trusted proxy passed the request on, else ``unknown`` with the reason; with no such header,
    ``COSTFRONTIER_USER``, else None."""
    try:
        headers, peer = dict(st.context.headers), st.context.ip_address
    except Exception:   # AppTest has no request
        headers, peer = {}, None
    return identity(headers, peer).name


def page_name() -> str:
    """The dashboard page this rerun draws (its URL path; "Overview" for the default page), for the change log."""
    ctx = st.session_state.get("_ctx")
    path = getattr(ctx, "url_path", "") or "Overview"
    return f"dashboard {path.replace('_', ' ')}"


def write(fn, what: str, action: str = "ingest"):
    """Run ``fn(con)`` as one write (a new snapshot is published when it returns); a busy or refused
    write shows a message naming no path or process, and returns None. Its data version names this page and
    the user (:func:`user`); ``action`` is what it does unless ``fn`` says (remove, profile, api-price)."""
    try:
        with acting(action, page_name(), user()):
            result = store_write(db_path(), fn)
    except StoreError as exc:
        st.error(f"Could not {what}: {exc.public}")
        return None
    clear()
    return result


def read_only() -> bool:
    """Read-only deployments: COSTFRONTIER_READ_ONLY=1, or read_only = true in .streamlit/secrets.toml."""
    if os.environ.get("COSTFRONTIER_READ_ONLY", "").strip().lower() in ("1", "true", "yes"):
        return True
    try:
        return bool(st.secrets.get("read_only", False))
    except Exception:  # no secrets file
        return False


def _where_key(state: View) -> tuple:
    return tuple(sorted((k, tuple(v)) for k, v in state.where().items()))


def _rows_key(state: View) -> tuple:
    """Which rows and columns a view loads: its filters, and the columns its pages' parts read
    (:func:`model.data.inputs.analysis_columns` of :data:`model.data.inputs.DASHBOARD_PARTS`: a pure function of
    the view; at 1M rows a third of the columns, and of the bytes, are never read by a page)."""
    return _where_key(state), analysis_columns(state, DASHBOARD_PARTS)


def _points(path: str, ver: tuple, rows: tuple, dv: int | None, con) -> pd.DataFrame:
    key = ("points", ver, path, rows, dv)
    where, columns = rows
    return CACHE.get_or_make(key, lambda: shared_strings(load_points(con, {k: list(v) for k, v in where},
                                                                     columns=columns, version=dv)), group=key)


def points(state: View, ver: tuple) -> pd.DataFrame:
    """The rows the view's filters select (before its as-of and repeats) in the view's data version (its pin,
    else the latest), in the columns its pages read (:func:`_rows_key`), shared and read-only."""
    return _points(db_path(), ver, _rows_key(state), state.data_version, snapshot().con)


def _runs(path: str, ver: tuple, rows: tuple, dv: int | None, runs: tuple, con) -> RunsInView:
    """The rows that build the frontier: ``runs`` is (as_of, repeats, the view's series keys)
    (:func:`model.core.repeats.runs_in_view`)."""
    as_of, repeats, view_by = runs
    loaded = _points(path, ver, rows, dv, con)
    key = ("runs", ver, path, rows, dv, runs)
    return CACHE.get_or_make(key, lambda: runs_in_view(loaded, as_of, repeats, view_by), group=key,
                             groups=(("points", ver, path, rows, dv),))


def _store_parts(path: str, ver: tuple, dv: int | None, con) -> tuple:
    """What every view of a data version reads beside its rows: TCO rates files, API prices, sources, evaluations
    (``dv``: the pinned data version, None the latest), and the number of the version they are."""
    def make() -> tuple:
        cur = con.cursor()
        return (rate_files(cur, dv), tuple(load_api_prices(cur, dv)), list_sources(cur, dv),
                load_evals(cur, version=dv), dv or latest_version(cur))

    return CACHE.get_or_make(("store_parts", ver, path, dv), make, group=("store_parts", ver, path, dv))


def frontier_key(state: View) -> tuple:
    """The key of the one frontier cache: :meth:`model.core.view.View.frontier_key`, the fields that change the
    fit (declared in :mod:`model.core.view_fields`)."""
    return state.frontier_key()


def _rate_key(state: View) -> tuple:
    """What sets the $/GPU-hour (the fields declared :data:`model.core.view_fields.RATE`)."""
    return tuple((f.name, getattr(state, f.name)) for f in FIELDS if f.changes == RATE)


def _fit(path: str, ver: tuple, key: tuple, inputs: Inputs) -> Fit:
    # the one frontier cache: a rate change of a view whose series are per hardware refits nothing
    # (measured as it grows: its leave-one-out is computed when first read)
    return CACHE.get_or_make(("fit", ver, path, key), lambda: fit_of_inputs(inputs), group=("fit", ver, path, key),
                             size=lambda _: 0)


def _inputs(path: str, ver: tuple, state: View, con) -> Inputs:
    state = with_workload(con.cursor(), state)
    rows, dv = _rows_key(state), state.data_version
    files, api, sources, evals, number = _store_parts(path, ver, dv, con)
    loaded = _points(path, ver, rows, dv, con)
    return inputs_of(state, loaded, _presets(path, ver, con, dv), files,
                     runs=_runs(path, ver, rows, dv, (state.as_of, state.repeats, tuple(state.by)), con),
                     columns=rows[1], api_prices=api, sources=sources, evals=evals,
                     requests=_requests(path, ver, rows, dv, loaded, con), data_version=number)


def _requests(path: str, ver: tuple, rows: tuple, dv: int | None, loaded: pd.DataFrame, con):
    """The per-request data (goodput) of the points a view's filters select, read once per data version and
    filters, as :func:`model.data.inputs.load_inputs` reads them (not every point's in the store)."""
    key = ("requests", ver, path, rows, dv)
    return CACHE.get_or_make(key, lambda: load_samples(con.cursor(), loaded["point_id"]), group=key,
                             groups=(("points", ver, path, rows, dv),))


def _answer(path: str, ver: tuple, view_json: str, con) -> Answer:
    """The one answer of a view on a data version, shared by every session, page, report and CSV (read-only):
    measured again each time it is read, as its parts are computed."""
    key = ("answer", ver, path, view_json)
    found = CACHE.get(key)
    if found is None:
        inputs = _inputs(path, ver, View.model_validate_json(view_json), con)
        view = inputs.view
        fkey = frontier_key(view)
        group = ("part", ver, path, fkey, _rate_key(view))
        rows, dv = _rows_key(view), view.data_version
        runs = ("runs", ver, path, rows, dv, (view.as_of, view.repeats, tuple(view.by)))
        anchors = (("points", ver, path, rows, dv), runs, ("fit", ver, path, fkey), ("store_parts", ver, path, dv),
                   ("presets", ver, path, dv), ("requests", ver, path, rows, dv))
        made = SharedAnswer(inputs, _fit(path, ver, fkey, inputs), group=group, anchors=anchors)
        found = CACHE.get_or_make(key, lambda: made, size=lambda _: 0, groups=(*anchors, group))
    CACHE.touch(key, found, vars(found))
    if found.fit is not None:
        CACHE.touch(("fit", ver, path, frontier_key(found.state)), found.fit, vars(found.fit))
    return found


def answer_of(state: View, snap: Snapshot | None = None) -> Answer:
    """The answer of ``state`` on the snapshot ``snap`` (default: the newest published one, held while the
    answer is built; a deferred download runs outside the rerun): the same object for every caller of one
    view and data version while it is cached."""
    if snap is None:
        with reader(db_path()).hold() as held:
            return _answer(db_path(), held.version, state.model_dump_json(), held.con)
    return _answer(db_path(), snap.version, state.model_dump_json(), snap.con)


def per_view(ctx: "Ctx", name: str, make):
    """``make()``, a figure or table that depends only on the view and the data: made once per view and data
    version for every session (shared: nobody may change it)."""
    return CACHE.get_or_make(("view_part", ctx.version, db_path(), ctx.state.model_dump_json(), name), make)


def export_csv(state: View, ver: tuple) -> str:
    """Every column of the rows in view, formula-neutralised for spreadsheets."""
    where, dv = _where_key(state), state.data_version
    return CACHE.get_or_make(("export_csv", ver, db_path(), where, dv), lambda: safe_csv(
        load_points(cursor(), {k: list(v) for k, v in where}, full=True, version=dv)))


def _options(path: str, ver: tuple, dv: int | None = None) -> dict:
    def make() -> dict:
        cur = cursor()
        out = {name: distinct_values(cur, name, dv) for name in ("hardware", "framework", "precision", "spec_decoding")}
        rows = workloads(cur, dv)
        out["workloads"] = ["|".join(row[:3]) for row in rows]
        out["workload_labels"] = {"|".join(row[:3]): workload_label(*row[:5]) for row in rows}
        table = _presets(path, ver, snapshot().con, dv)
        out["price_sets"] = {ps: tiers(table, ps) for ps in price_sets(table)}
        out["priced"] = sorted(table["hardware"].astype(str).unique())
        return out

    return copy.deepcopy(CACHE.get_or_make(("options", ver, path, dv), make))


def _presets(path: str, ver: tuple, con, dv: int | None = None) -> pd.DataFrame:
    return CACHE.get_or_make(("presets", ver, path, dv), lambda: load_presets(stored_rates(con.cursor(), dv)),
                             group=("presets", ver, path, dv))


def _pinned() -> int | None:
    """The data version this session's view is pinned to (a link's ``v=``); None: the latest."""
    return view().data_version


def presets(ver: tuple) -> pd.DataFrame:
    """The $/GPU-hour presets of snapshot ``ver`` in the session view's data version (shared, read-only)."""
    return _presets(db_path(), ver, snapshot().con, _pinned())


def options(ver: tuple) -> dict:
    """What the data holds: filter values, workloads, and the price sets with their tiers (computed once per
    snapshot and pinned data version; each call gets its own copy)."""
    return _options(db_path(), ver, _pinned())


def _published_plan(path: str, ver: tuple) -> PublishedPlan:
    # what the checks read from the store, before a rate is chosen: once per data version for every session
    # (deploy/warm.py's run of the Data page computes it), so a view's own rates only price it (about 10 ms)
    return CACHE.get_or_make(("published_plan", ver, path), lambda: published_plan(cursor()))


def _published(path: str, ver: tuple, price_set: str, tier: str, rates: tuple) -> tuple[pd.DataFrame, pd.DataFrame]:
    verdicts, checks = CACHE.get_or_make(("published", ver, path, price_set, tier, rates), lambda: priced_checks(
        _published_plan(path, ver), price_set, tier, dict(rates)))
    return verdicts.copy(), checks.copy()


def published_checks_of(state: View, ver: tuple) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(verdict per published table, every checked value) at the view's price set and rates."""
    return _published(db_path(), ver, state.price_set, state.tier, state.rates)


def sources(ver: tuple) -> pd.DataFrame:
    """The ingested sources (:func:`model.data.store.list_sources`) of snapshot ``ver`` in the session view's data
    version."""
    dv = _pinned()
    return CACHE.get_or_make(("sources", ver, db_path(), dv), lambda: list_sources(cursor(), dv)).copy()


def clear() -> None:
    """After a write: drop every cached entry (the version key would also catch it on the next rerun)."""
    CACHE.clear()


@dataclass
class Ctx:
    """What a page needs: the view state, the data in view and the answer, for this rerun."""

    state: View
    points: pd.DataFrame
    presets: pd.DataFrame
    options: dict
    version: tuple
    url_path: str = ""
    memo: dict = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not self.options["workloads"]

    @property
    def answer(self) -> Answer:
        """The answer of this view (:func:`answer_of`) on this rerun's snapshot: every page, the report box and
        the CSV buttons render it."""
        if "answer" not in self.memo:
            self.memo["answer"] = answer_of(self.state, snapshot())
        return self.memo["answer"]

    def rates(self) -> dict[str, float]:
        """$/GPU-hour of every hardware in view, by the one rate rule (the answer's), without a fit."""
        return rates_of_inputs(_inputs(db_path(), self.version, self.state, snapshot().con))
