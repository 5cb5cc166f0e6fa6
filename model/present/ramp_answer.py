"""The ramp part of a view's answer: load ramps, the knee of each, tokens per dollar, accuracy beside cost.

:func:`ramp_answer` is pure (no store, no Streamlit): it takes the rows the view's answer holds (after the
view's as-of and repeats, priced by its cost profiles), the answer's $/GPU-hour and the store's evaluation
scores, and returns a :class:`RampAnswer`. The Ramps page, ``costfrontier capacity`` and ``costfrontier
compare`` render that value and compute nothing of their own
(:attr:`model.present.parts.Answer.ramps`).

Rules, once:

- **series**: the view's ``by``; a view of every workload (``workload="all"``, not pooled) is split by the
  workload keys that vary among its ramp rows (:func:`model.core.analysis.workload_split`).
- **token basis**: the view's, except that ``total`` reads as ``auto`` (total, else output, else input, as
  each row has it; the knee's ``basis`` column says which), as fleet sizing reads it.
- **comparison**: the knees under the view's SLA (the peaks when the view compares peaks), of the series that
  have a throughput there; the view's ``compare`` among them (else all) against ``compare_base`` (a series, or
  a hardware name; else the first).
- **accuracy**: the evaluation rows of the models in view, each precision against ``fp8``
  (:func:`model.data.evals.flag_regressions` at the view's ``eval_tolerance``).
"""

from __future__ import annotations

import pandas as pd

from model.core.analysis import workload_split
from model.core.capacity import KNEE_RULES, compare_systems, knee, ramp_points
from model.core.hardware import canonical_hardware
from model.core.sla import SLA
from model.core.view import View
from model.data.evals import flag_regressions
from model.present.parts import RampAnswer, RampComparison

__all__ = ["ramp_answer", "REFERENCE_PRECISION", "EVAL_TABLE_COLUMNS"]

#: the precision every other one is scored against on the accuracy table
REFERENCE_PRECISION = "fp8"
#: the columns of the accuracy table every surface shows
EVAL_TABLE_COLUMNS = ["model", "eval", "setting", "precision", "score", "stderr", "drop", "flagged", "reason"]


def _base(reached: pd.DataFrame, names: list[str], wanted: str | None) -> tuple[str, str | None]:
    """The series the others are divided by, and a note when the view's choice is not among them."""
    if wanted in names:
        return wanted, None
    if wanted:
        hardware = reached["hardware"].astype(str).str.lower()
        hits = reached[(hardware == str(wanted).lower()) | (hardware == canonical_hardware(str(wanted)).lower())]
        if not hits.empty:
            return str(hits["series"].iloc[0]), None
        return names[0], f"compare base {wanted!r} is not among the systems compared; against {names[0]}"
    return names[0], None


def _comparison(rows: pd.DataFrame, knees: pd.DataFrame, state: View, sla: SLA | None,
                rates: dict, options: dict) -> tuple[RampComparison, list[str]]:
    peaks = bool(state.compare_peaks)
    at = knee(rows, None, rates, **options) if peaks and sla is not None else knees
    reached = at[at["tokens_per_second_per_node"].notna()]
    names = [str(s) for s in reached["series"]]
    left_out = tuple(str(s) for s in at["series"] if str(s) not in set(names))
    notes = [f"left out (no measured rate meets the SLA): {', '.join(left_out)}"] if left_out and not peaks else []
    if len(names) < 2:
        message = "Fewer than two systems have a throughput to compare" + \
            (" under this SLA; try comparing peaks." if sla is not None and not peaks else ".")
        return RampComparison(peaks, tuple(names), tuple(names), names[0] if names else None, pd.DataFrame(),
                              left_out, message), notes
    chosen = tuple(n for n in state.compare if n in names) or tuple(names)
    base, note = _base(reached, names, state.compare_base)
    if note:
        notes.append(note)
    try:
        table = compare_systems(reached[reached["series"].isin(set(chosen) | {base})], rates,
                                options.get("gpus_per_node"), baseline=base)
        message = ""
    except ValueError as exc:
        table, message = pd.DataFrame(), str(exc)
    return RampComparison(peaks, tuple(names), chosen, base, table, left_out, message), notes


def ramp_answer(rows: pd.DataFrame, state: View, usd_per_gpu_hour: dict[str, float],
                evals: pd.DataFrame | None = None, *, basis: str | None = None, rule: str = KNEE_RULES[0],
                gpus_per_node: int | None = None, notes: tuple[str, ...] | list[str] = ()) -> RampAnswer:
    """The ramp part of the answer of ``state``.

    Parameters
    ----------
    rows : DataFrame  the rows of the view's answer: after as-of and repeats, priced by its cost profiles
    state : View  the view (its SLA, series keys, basis and weights, compared systems, eval tolerance)
    usd_per_gpu_hour : {name: float}  the answer's rates [$/GPU-hour] (a cost profile's name when it prices
        rows side by side)
    evals : DataFrame, optional  the store's evaluation scores (:func:`model.data.evals.load_evals`)
    basis : str, optional  a capacity basis (``auto``, ``total``, ...) instead of the view's
    rule : str  one of :data:`model.core.capacity.KNEE_RULES`
    gpus_per_node : int, optional  where the rows do not say [GPUs/node]
    notes : the answer's notes a reader of this part needs (link notices, rows left out by as-of, cost profiles)
    """
    sla = SLA.from_text(state.sla) if state.sla else None
    basis = basis or ("auto" if state.basis == "total" else state.basis)
    out = list(notes)
    by = tuple(state.by)
    if state.workload == "all" and not state.mix_workloads and "request_rate_rps" in rows.columns:
        by, note = workload_split(rows[rows["request_rate_rps"].notna()], by)
        if note:
            out.append(note)
    options = dict(basis=basis, keys=by, rule=rule, gpus_per_node=gpus_per_node, w_input=state.w_input,
                   w_cached=state.w_cached)
    rates = dict(usd_per_gpu_hour)
    points = ramp_points(rows, by, sla, basis, gpus_per_node, state.w_input, state.w_cached)
    knees = knee(rows, sla, rates, **options)
    missing = sorted({str(hw) for hw in knees["hardware"].dropna() if hw not in rates})
    if missing:
        out.append(f"no $/GPU-hour for {', '.join(missing)}: its knee is unpriced until a rate is set")
    comparison, compared = _comparison(rows, knees, state, sla, rates, options)
    out += compared
    flags = pd.DataFrame(columns=EVAL_TABLE_COLUMNS)
    if evals is not None and not evals.empty and "model" in rows.columns:
        mine = evals[evals["model"].isin(set(rows["model"].dropna()))]
        if not mine.empty:
            flags = flag_regressions(mine, REFERENCE_PRECISION, state.eval_tolerance)
    return RampAnswer(sla, rule, basis, by, rates, points, knees, comparison, flags, float(state.eval_tolerance),
                      tuple(dict.fromkeys(out)))
