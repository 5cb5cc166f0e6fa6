"""Accuracy beside cost: evaluation scores per recipe (model, precision) and regression flags.

A recipe is flagged on an eval when its score is below the reference precision's score
(same model, eval and setting) by more than the user's tolerance, or by more than the
combined standard error ``sqrt(stderr² + stderr_ref²)`` when both standard errors are known.
Scores are fractions (0..1), as stored in the ``evals`` table.
"""

from __future__ import annotations

import math

import duckdb
import numpy as np
import pandas as pd

from model.data.versions import visible_sql

__all__ = ["EVAL_COLUMNS", "load_evals", "flag_regressions"]

#: columns of :func:`load_evals`
EVAL_COLUMNS = ("source_id", "source_line", "model", "eval", "setting", "precision", "score", "stderr")


def load_evals(con: duckdb.DuckDBPyConnection, model: str | list[str] | None = None,
               precision: str | list[str] | None = None, version: int | None = None) -> pd.DataFrame:
    """Evaluation scores from the ``evals`` table, optionally for some models/precisions.

    Parameters
    ----------
    con : DuckDB connection  a Cost Frontier database
    model, precision : str or list of str, optional  keep only these (exact match)
    version : int, optional  the scores of that data version (default: the latest)

    Returns
    -------
    DataFrame with :data:`EVAL_COLUMNS`: ``score`` [fraction], ``stderr`` [fraction, may be missing],
    ordered by model, eval, precision.
    """
    clauses, params = [], []
    for column, wanted in (("model", model), ("precision", precision)):
        if wanted is None:
            continue
        values = [wanted] if isinstance(wanted, str) else list(wanted)
        if not values:
            continue
        clauses.append(f"{column} IN ({', '.join('?' * len(values))})")  # column names are our own literals
        params.extend(str(v) for v in values)
    shown, shown_params = visible_sql(con, version)
    if shown:
        clauses.append(shown)
        params.extend(shown_params)
    sql = (f"SELECT {', '.join(EVAL_COLUMNS)} FROM evals"
           + (" WHERE " + " AND ".join(clauses) if clauses else "")
           + " ORDER BY model, eval, precision, source_id")
    return con.execute(sql, params).df()


_KEYS = ["model", "eval", "setting"]


def flag_regressions(evals: pd.DataFrame, reference_precision: str = "fp8", tolerance: float = 0.01) -> pd.DataFrame:
    """Compare every non-reference precision with the reference on each eval, and flag drops.

    Parameters
    ----------
    evals : DataFrame  as :func:`load_evals` (model, eval, setting, precision, score, stderr)
    reference_precision : str  the precision the others are measured against, e.g. ``"fp8"``
    tolerance : float  largest acceptable drop in score [fraction, >= 0], e.g. 0.01 = one point

    Returns
    -------
    DataFrame, one row per (model, eval, setting, precision) with a reference score:
    ``score``, ``reference_score`` [fraction], ``drop`` (reference − score; negative = better),
    ``combined_stderr`` (NaN when either stderr is missing), ``flagged`` (bool) and ``reason``
    (text; ``""`` when not flagged). Evals without a reference score are left out.
    """
    tolerance = float(tolerance)
    if not (math.isfinite(tolerance) and tolerance >= 0):
        raise ValueError(f"tolerance must be a finite number >= 0 (got {tolerance})")
    columns = ["model", "eval", "setting", "precision", "reference_precision", "score", "stderr", "reference_score",
               "reference_stderr", "drop", "combined_stderr", "tolerance", "flagged", "reason"]
    if evals.empty:
        return pd.DataFrame(columns=columns)
    frame = evals.copy()
    for key in _KEYS:
        if key not in frame.columns:
            frame[key] = None
    frame["_setting"] = frame["setting"].astype("object").where(frame["setting"].notna(), "")
    frame["_model"] = frame["model"].astype("object").where(frame["model"].notna(), "")
    ref = frame[frame["precision"] == reference_precision]
    if ref.empty:
        known = ", ".join(sorted(frame["precision"].dropna().astype(str).unique()))
        raise ValueError(f"no scores for reference precision {reference_precision!r}; precisions: {known}")
    ref = ref.drop_duplicates(["_model", "eval", "_setting"], keep="last")[
        ["_model", "eval", "_setting", "score", "stderr"]].rename(
        columns={"score": "reference_score", "stderr": "reference_stderr"})
    other = frame[frame["precision"] != reference_precision]
    out = other.merge(ref, on=["_model", "eval", "_setting"], how="inner")
    score = out["score"].astype(float).to_numpy()
    ref_score = out["reference_score"].astype(float).to_numpy()
    se = pd.to_numeric(out["stderr"], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    ref_se = pd.to_numeric(out["reference_stderr"], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    # scores are stated to a few decimals: 0.955 - 0.945 is 0.010000000000000009 in floating point,
    # which must not count as more than a 0.01 tolerance
    drop = np.round(ref_score - score, 9)
    combined = np.sqrt(se ** 2 + ref_se ** 2)
    over_tol = drop > tolerance
    with np.errstate(invalid="ignore"):
        over_se = np.isfinite(combined) & (drop > combined)
    reasons = []
    for d, c, t, s in zip(drop, combined, over_tol, over_se):
        parts = []
        if t:
            parts.append(f"drop {d:.4f} > tolerance {tolerance:g}")
        if s:
            parts.append(f"drop {d:.4f} > combined stderr {c:.4f}")
        reasons.append("; ".join(parts))
    out = out.assign(reference_precision=reference_precision, drop=drop, combined_stderr=combined,
                     tolerance=tolerance, flagged=over_tol | over_se, reason=reasons)
    return out[columns].sort_values(["model", "eval", "precision"], kind="stable").reset_index(drop=True)
