"""Cached data access at the edge: thin wrappers over undecorated ``model`` functions; the only place the answer of
a view is cached (the core never sees a cache).

The reader of the store is a Streamlit cache resource; everything else lives in one cache bounded in bytes
(:data:`ui.lru.CACHE`, ``$COSTFRONTIER_CACHE_MB``, least recently used first out), under one typed key each:

- the inputs of a view, ``("inputs", data version, path, Reading)``: :func:`model.data.inputs.load_inputs` of the
  view's :class:`~model.data.inputs.Reading` for every part a page shows (one read of the rows per filters, shared
  by every page and every view of those filters), with the data version's calibration
  (``("calibration", ...)``, one per data version);
- each step of an answer, ``("step", data version, path, Reading, step key)``: the memo of
  :func:`model.present.view_answer.build_answer`, keyed by what each step declares it reads
  (:func:`model.present.view_answer.step_key`): a rate change re-runs the steps that read a rate, never the fit; the
  interactivity you need re-reads the cost there, never the pricing.

Every key holds the data version read once per rerun, so one rerun never mixes two versions; entries of older
versions go when a rerun first sees a newer one.
"""

from __future__ import annotations

import copy
import os
import threading
from dataclasses import dataclass
from typing import Iterable

import pandas as pd
import streamlit as st

from model.core.cost import price_sets, tiers
from model.core.trace import is_reference
from model.core.uncertainty import Calibration
from model.core.view import View
from model.data.actuals import actuals_frame
from model.data.calibration import load_calibration
from model.data.export import safe_csv
from model.data.identity import identity
from model.data.inputs import Inputs, load_inputs, with_workload
from model.data.intervals import load_intervals
from model.data.presets import load_presets
from model.data.published import PublishedPlan, priced_checks, published_plan
from model.data.snapshot import Snapshot, open_reader
from model.data.snapshot import write as store_write
from model.data.store import (
    StoreError,
    default_db_path,
    distinct_values,
    list_sources,
    load_points,
    stored_rates,
    workloads,
)
from model.data.versions import acting
from model.present.actual_answer import comparison_on
from model.present.answers import workload_label
from model.present.parts import Answer
from model.present.view_answer import build_answer, reading
from ui.lru import CACHE, trim_if_grown
from ui.state import view

__all__ = ["Ctx", "db_path", "reader", "begin", "store_away", "end", "snapshot", "write", "cursor", "version", "options",
           "presets", "inputs", "export_csv", "answer_of", "comparison", "actuals", "intervals", "resolved_on", "per_view",
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


def _inputs_key(ver: tuple, state: View) -> tuple:
    return ("inputs", ver, db_path(), reading(state, None))


def inputs(state: View, snap: Snapshot | None = None) -> Inputs:
    """What every page of ``state`` reads (the :class:`~model.data.inputs.Reading` of every part), read once per
    filters and data version (``snap``: default this rerun's snapshot), text held once per distinct value
    (:func:`model.data.store.shared_strings`), shared and read-only."""
    snap = snap or snapshot()
    key = _inputs_key(snap.version, state)
    return CACHE.get_or_make(key, lambda: load_inputs(snap.con.cursor(), key[3], shared=True,
                                                      calibration=calibration(snap, key[3].version)))


def calibration(snap: Snapshot, version: int | None) -> Calibration:
    """The bands' calibration of data version ``version`` (None: the snapshot's latest): every frontier of the
    store, read and fitted once per data version (:func:`model.data.calibration.load_calibration`), whatever the
    view filters."""
    return CACHE.get_or_make(("calibration", snap.version, db_path(), version),
                             lambda: load_calibration(snap.con.cursor(), version))


class _Steps:
    """The memo :func:`answer_of` hands :func:`model.present.view_answer.build_answer`: each step's value in
    :data:`ui.lru.CACHE` under its key within one view's inputs, counted apart from the inputs and the steps it is
    made of (an entry goes with them)."""

    def __init__(self, snap: Snapshot, inputs_key: tuple):
        self.prefix, self.inputs_key = ("step", snap.version, db_path(), inputs_key[3]), inputs_key

    def get_or_make(self, key: tuple, make, needs: tuple) -> object:
        return CACHE.get_or_make((*self.prefix, key), make,
                                 deps=(self.inputs_key, *((*self.prefix, n) for n in needs)))


def answer_of(state: View, parts: Iterable[str] | None = None, snap: Snapshot | None = None) -> Answer:
    """The answer of ``state`` (its workload set) for ``parts`` (None: every part) on the snapshot ``snap``
    (default: the newest published one, held while the answer is built: a deferred download runs outside the
    rerun), each step's value shared by every session, view and page that needs it under the same key."""
    if snap is None:
        with reader(db_path()).hold() as held:
            return answer_of(state, parts, held)
    state = resolved_on(snap, state)
    inputs_key = _inputs_key(snap.version, state)
    return build_answer(state, inputs(state, snap), parts, memo=_Steps(snap, inputs_key))


def resolved_on(snap: Snapshot, state: View) -> View:
    """``state`` as the store ``snap`` answers it (:func:`model.data.inputs.with_workload`): its workload set as the
    store's first when it names none, a stored trace it names by reference read in; once per snapshot and view."""
    if state.workload is not None and not is_reference(state.trace):
        return state
    return CACHE.get_or_make(("resolved", snap.version, db_path(), state.model_dump_json()),
                             lambda: with_workload(snap.con.cursor(), state))


def per_view(ctx: "Ctx", name: str, make):
    """``make()``, a figure or table that depends only on the view and the data: made once per view and data
    version for every session (shared: nobody may change it)."""
    return CACHE.get_or_make(("view_part", ctx.version, db_path(), ctx.state.model_dump_json(), name), make)


def comparison(link: str, cost_basis: str | None = None, snap: Snapshot | None = None):
    """The plan of the share link ``link`` against the stored actuals (:func:`model.present.actual_answer.comparison_on`,
    its views answered by :func:`answer_of`) on ``snap`` (default: the newest published one), once per data version,
    link and cost basis for every session. Raises :class:`model.core.actual_rows.ActualsError` saying why there is none."""
    if snap is None:
        with reader(db_path()).hold() as held:
            return comparison(link, cost_basis, held)
    return CACHE.get_or_make(("comparison", snap.version, db_path(), link, cost_basis), lambda: comparison_on(
        snap.con.cursor(), link, cost_basis, lambda v, parts: answer_of(v, parts, snap)))


def actuals(ver: tuple) -> pd.DataFrame:
    """The stored actuals (:func:`model.data.actuals.actuals_frame`) of snapshot ``ver``, latest data version
    (shared, read-only)."""
    return CACHE.get_or_make(("actuals", ver, db_path()), lambda: actuals_frame(cursor()))


def intervals(ver: tuple) -> pd.DataFrame:
    """The stored run-to-run intervals (:func:`model.data.intervals.load_intervals`) of snapshot ``ver``, each with
    its source's file name and the point's line, flagged ones first (shared, read-only)."""
    def make() -> pd.DataFrame:
        cur = cursor()
        frame = load_intervals(cur)
        if frame.empty:
            return frame
        lines = cur.execute("SELECT p.point_id, s.file_name, p.source_line FROM points p JOIN sources s "
                            "USING (source_id) WHERE p.point_id IN (SELECT point_id FROM point_intervals)").df()
        frame = frame.merge(lines, on="point_id", how="left")
        order = frame["status"].map({"differs": 0, "not checked": 1, "one run, no interval": 2}).fillna(3)
        return frame.assign(_order=order).sort_values(["_order", "file_name", "metric"], kind="stable") \
            .drop(columns="_order").reset_index(drop=True)

    return CACHE.get_or_make(("intervals", ver, db_path()), make)


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
        table = _presets(path, ver, dv)
        out["price_sets"] = {ps: tiers(table, ps) for ps in price_sets(table)}
        out["priced"] = sorted(table["hardware"].astype(str).unique())
        return out

    return copy.deepcopy(CACHE.get_or_make(("options", ver, path, dv), make))


def _presets(path: str, ver: tuple, dv: int | None = None) -> pd.DataFrame:
    return CACHE.get_or_make(("presets", ver, path, dv), lambda: load_presets(stored_rates(cursor(), dv)))


def _pinned() -> int | None:
    """The data version this session's view is pinned to (a link's ``v=``); None: the latest."""
    return view().data_version


def presets(ver: tuple) -> pd.DataFrame:
    """The $/GPU-hour presets of snapshot ``ver`` in the session view's data version (shared, read-only)."""
    return _presets(db_path(), ver, _pinned())


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
    """What a page needs for this rerun: the view (its workload set), what the store holds for it (the rows its
    filters select, before as-of and repeats: the sidebar's rate boxes and the pages' "in view"), the presets, the
    options and the data version. :meth:`answer` is the view's answer for the parts a page renders."""

    state: View
    inputs: Inputs | None
    presets: pd.DataFrame
    options: dict
    version: tuple
    url_path: str = ""

    @property
    def empty(self) -> bool:
        return not self.options["workloads"]

    @property
    def points(self) -> pd.DataFrame:
        """The rows the view's filters select, before its as-of and repeats (an empty frame without data)."""
        return self.inputs.loaded if self.inputs is not None else pd.DataFrame(columns=["hardware", "model"])

    def answer(self, *parts: str) -> Answer:
        """The answer of this view for ``parts`` (:func:`answer_of`) on this rerun's snapshot."""
        return answer_of(self.state, parts or None, snapshot())
