"""Latency SLAs: the limits a serving point must meet (TTFT at a percentile, TPOT, interactivity, end-to-end latency, success rate), as text for links and the CLI, and as masks over benchmark rows."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = [
    "SLA", "SLA_KEYS", "TTFT_PERCENTILES", "numeric_column", "sla_failures", "sla_mask", "split_by_sla",
]


#: TTFT percentiles an SLA may name; each maps to the field ``ttft_<p>_s``
TTFT_PERCENTILES = ("p50", "p90", "p95", "p99")


#: keys of the SLA text form (``ttft_p95=5,tpot=50``); ``ttft_<p>`` for every percentile
SLA_KEYS = tuple(f"ttft_{p}" for p in TTFT_PERCENTILES) + ("tpot", "interactivity", "e2e", "success")


class SLA(BaseModel):
    """Latency and reliability limits; ``None`` = no limit.

    Attributes
    ----------
    ttft_percentile : str  which TTFT percentile ``ttft_max_s`` limits, one of :data:`TTFT_PERCENTILES`
    ttft_max_s : float, optional  TTFT at that percentile must be <= this [s]
    tpot_max_ms : float, optional  median TPOT must be <= this [ms]
    interactivity_min : float, optional  interactivity must be >= this [tok/s/user]
    e2e_max_s : float, optional  median end-to-end latency must be <= this [s]
    success_min : float, optional  success rate must be >= this [fraction, 0..1]
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    ttft_percentile: str = "p95"
    ttft_max_s: float | None = Field(None, gt=0)
    tpot_max_ms: float | None = Field(None, gt=0)
    interactivity_min: float | None = Field(None, gt=0)
    e2e_max_s: float | None = Field(None, gt=0)
    success_min: float | None = Field(None, gt=0, le=1)

    @field_validator("ttft_percentile")
    @classmethod
    def _percentile(cls, value: str) -> str:
        if value not in TTFT_PERCENTILES:
            raise ValueError(f"unknown TTFT percentile {value!r}; choose one of {', '.join(TTFT_PERCENTILES)}")
        return value

    @field_validator("ttft_max_s", "tpot_max_ms", "interactivity_min", "e2e_max_s", "success_min")
    @classmethod
    def _finite(cls, value: float | None) -> float | None:
        if value is not None and not math.isfinite(value):
            raise ValueError("an SLA limit must be a finite number")
        return value

    @property
    def ttft_field(self) -> str:
        """The points column the TTFT limit reads, e.g. ``ttft_p95_s``."""
        return f"ttft_{self.ttft_percentile}_s"

    @property
    def is_empty(self) -> bool:
        """True when no limit is set (every row meets it)."""
        return not self.limits()

    def limits(self) -> list[tuple[str, str, str, float]]:
        """The limits that are set: (text key, points column, ``"<="`` or ``">="``, value)."""
        out = []
        if self.ttft_max_s is not None:
            out.append((f"ttft_{self.ttft_percentile}", self.ttft_field, "<=", self.ttft_max_s))
        if self.tpot_max_ms is not None:
            out.append(("tpot", "tpot_median_ms", "<=", self.tpot_max_ms))
        if self.interactivity_min is not None:
            out.append(("interactivity", "interactivity", ">=", self.interactivity_min))
        if self.e2e_max_s is not None:
            out.append(("e2e", "e2e_latency_median_s", "<=", self.e2e_max_s))
        if self.success_min is not None:
            out.append(("success", "success_rate", ">=", self.success_min))
        return out

    @classmethod
    def from_text(cls, text: str | list[str] | tuple[str, ...] | None) -> "SLA":
        """Parse ``"ttft_p95=5,tpot=50"`` (or a list of such parts, as from repeated ``--sla``).

        Keys (:data:`SLA_KEYS`): ``ttft_p50|p90|p95|p99`` [s], ``tpot`` [ms], ``interactivity``
        [tok/s/user], ``e2e`` [s], ``success`` [fraction; ``99%`` is read as 0.99]. Empty text is
        the empty SLA. Unknown keys, a second TTFT percentile and non-numbers raise ValueError.
        """
        parts: list[str] = []
        for chunk in ([text] if isinstance(text, str) else list(text or [])):
            parts.extend(p.strip() for p in re.split(r"[,;&]", chunk) if p.strip())
        values: dict[str, object] = {}
        for part in parts:
            if "=" not in part:
                raise ValueError(f"SLA limit {part!r}: expected KEY=VALUE, e.g. ttft_p95=5")
            key, raw = (s.strip() for s in part.split("=", 1))
            key = key.lower()
            if key not in SLA_KEYS:
                hint = " (name a percentile: ttft_p95=5)" if key == "ttft" else ""
                raise ValueError(f"unknown SLA key {key!r}{hint}; choose from {', '.join(SLA_KEYS)}")
            percent = raw.endswith("%")
            try:
                value = float(raw.rstrip("%").strip())
            except ValueError:
                raise ValueError(f"SLA limit {key}: not a number (got {raw!r})") from None
            if percent:
                if key != "success":
                    raise ValueError(f"SLA limit {key}: a percentage only makes sense for success")
                value /= 100.0
            if key.startswith("ttft_"):
                percentile = key.removeprefix("ttft_")
                if "ttft_percentile" in values and values["ttft_percentile"] != percentile:
                    raise ValueError("an SLA limits TTFT at one percentile only")
                values["ttft_percentile"], values["ttft_max_s"] = percentile, value
            else:
                field = {"tpot": "tpot_max_ms", "interactivity": "interactivity_min", "e2e": "e2e_max_s",
                         "success": "success_min"}[key]
                values[field] = value
        return cls(**values)

    def to_text(self) -> str:
        """The inverse of :meth:`from_text`: ``"ttft_p95=5,success=0.99"``; ``""`` when empty."""
        return ",".join(f"{key}={value:g}" for key, _, _, value in self.limits())

    def describe(self) -> str:
        """Readable limits with units, e.g. ``"TTFT p95 <= 5 s, success >= 0.99"``."""
        units = {"tpot": ("TPOT", "ms"), "interactivity": ("interactivity", "tok/s/user"),
                 "e2e": ("E2E latency", "s"), "success": ("success rate", "")}
        out = []
        for key, _, op, value in self.limits():
            name, unit = (f"TTFT {self.ttft_percentile}", "s") if key.startswith("ttft_") else units[key]
            out.append(f"{name} {op} {value:g}{(' ' + unit) if unit else ''}")
        return ", ".join(out) or "no SLA"


def numeric_column(points: pd.DataFrame, name: str) -> np.ndarray:
    if name not in points.columns:
        return np.full(len(points), np.nan)
    return pd.to_numeric(points[name], errors="coerce").to_numpy(dtype=float, na_value=np.nan)


def _limit_pass(points: pd.DataFrame, column: str, op: str, value: float) -> tuple[np.ndarray, np.ndarray]:
    """(passes, missing) per row for one limit."""
    values = numeric_column(points, column)
    missing = ~np.isfinite(values)
    with np.errstate(invalid="ignore"):
        ok = values <= value if op == "<=" else values >= value
    return ok & ~missing, missing


def sla_mask(points: pd.DataFrame, sla: SLA | None) -> np.ndarray:
    """Which rows meet every limit of ``sla``.

    Parameters
    ----------
    points : DataFrame  rows with the columns the limits read (``ttft_<p>_s`` [s],
        ``tpot_median_ms`` [ms], ``interactivity`` [tok/s/user], ``e2e_latency_median_s`` [s],
        ``success_rate`` [fraction])
    sla : SLA or None  ``None`` or an empty SLA passes every row

    Returns
    -------
    ndarray of bool, one per row. A row missing a limited field fails that limit.
    """
    mask = np.ones(len(points), dtype=bool)
    for _, column, op, value in (sla.limits() if sla is not None else []):
        ok, _ = _limit_pass(points, column, op, value)
        mask &= ok
    return mask


def sla_failures(points: pd.DataFrame, sla: SLA | None) -> pd.Series:
    """Why each row breaks the SLA: ``""`` when it meets it, else the broken limits joined by ``"; "``.

    E.g. ``"ttft_p95_s 6.1 > 5"`` or ``"ttft_p95_s missing"``. Index as ``points``.
    """
    reasons: list[list[str]] = [[] for _ in range(len(points))]
    for _, column, op, value in (sla.limits() if sla is not None else []):
        ok, missing = _limit_pass(points, column, op, value)
        values = numeric_column(points, column)
        broken = ">" if op == "<=" else "<"
        for i in np.flatnonzero(~ok):
            reasons[i].append(f"{column} missing" if missing[i] else f"{column} {values[i]:.4g} {broken} {value:g}")
    return pd.Series(["; ".join(r) for r in reasons], index=points.index, dtype="string")


def split_by_sla(points: pd.DataFrame, sla: SLA | None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(rows meeting the SLA, rows breaking it with a ``sla_failure`` text column).

    For concurrency sweeps: fit the frontier on the first frame; show the second as excluded.
    """
    mask = sla_mask(points, sla)
    rejected = points[~mask]
    return points[mask], rejected.assign(sla_failure=sla_failures(rejected, sla))
