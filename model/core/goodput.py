"""Goodput: the share of a load point's requests that met a TTFT cap and a TPOT cap together, and the throughput
of good requests only (DistServe's and GuideLLM's goodput, on the throughput basis a frontier uses).

Per-request data are kept at ingest where a file has them (:mod:`model.data.requests`): per load point, each
completed request's TTFT [s] and TPOT [ms] as float64 arrays (exact: a count over the stored pairs equals one over
the file's), at most :data:`MAX_PAIRS` pairs (beyond that an evenly spaced subsample in the file's order, said in
the row's notes). Then, for caps ``a`` [s] and ``b`` [ms]::

    good fraction   = #(requests with TTFT <= a and TPOT <= b) / #(requests kept)
    good throughput = throughput x good fraction       (every tok/s and tok/s/GPU column of the point)

A point without per-request data keeps its summary values (its throughput as measured) and is counted in a note.
The caps never change a point's interactivity (1000 / its median TPOT).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

import numpy as np
import pandas as pd

__all__ = ["Caps", "Sample", "MAX_PAIRS", "MAX_TTFT_S", "MAX_TPOT_MS", "CAPS_EXAMPLE", "THROUGHPUT_COLUMNS",
           "caps_from_text", "check_goodput", "request_tpot_ms", "compact", "good_fraction", "apply_goodput",
           "basis_words", "TTFT_CAPS"]

#: the most (TTFT, TPOT) pairs kept per load point; beyond it an evenly spaced subsample
MAX_PAIRS = 10_000
#: bounds of the caps: a TTFT cap is in (0, 3600] s, a TPOT cap in (0, 60000] ms
MAX_TTFT_S = 3600.0
MAX_TPOT_MS = 60_000.0
CAPS_EXAMPLE = "ttft=2,tpot=50"
#: the TTFT caps the crossovers table tries [s]
TTFT_CAPS = (0.5, 1.0, 2.0, 5.0, 10.0)
#: the columns a good fraction scales (whole system and per GPU; per role of disaggregated rows)
THROUGHPUT_COLUMNS = (
    "total_tokens_per_second_per_gpu", "output_tokens_per_second_per_gpu", "input_tokens_per_second_per_gpu",
    "total_tokens_per_second", "output_tokens_per_second", "input_tokens_per_second",
    "input_tokens_per_second_per_prefill_gpu", "output_tokens_per_second_per_decode_gpu",
)


@dataclass(frozen=True)
class Caps:
    """Goodput caps: TTFT [s] and TPOT [ms]; None leaves that measure uncapped (at least one is set)."""

    ttft_s: float | None = None
    tpot_ms: float | None = None

    def text(self) -> str:
        """As a link and ``--goodput`` write it: ``ttft=2,tpot=50``."""
        parts = [f"{k}={v:g}" for k, v in (("ttft", self.ttft_s), ("tpot", self.tpot_ms)) if v is not None]
        return ",".join(parts)

    def words(self) -> str:
        """``TTFT ≤ 2 s and TPOT ≤ 50 ms``."""
        parts = ([f"TTFT ≤ {self.ttft_s:g} s"] if self.ttft_s is not None else []) + \
            ([f"TPOT ≤ {self.tpot_ms:g} ms"] if self.tpot_ms is not None else [])
        return " and ".join(parts)


def caps_from_text(text: str) -> Caps:
    """``ttft=2,tpot=50`` (TTFT in s, TPOT in ms; either may be left out) as :class:`Caps`; ValueError in the
    product's words for anything else."""
    said = f"goodput caps are ttft=SECONDS,tpot=MILLISECONDS, e.g. {CAPS_EXAMPLE}"
    values: dict[str, float] = {}
    for item in (p.strip() for p in str(text).split(",")):
        if not item:
            continue
        key, sep, raw = item.partition("=")
        key = key.strip().lower().removesuffix("_s").removesuffix("_ms")
        if not sep or key not in ("ttft", "tpot"):
            raise ValueError(f"{said}; got {item[:40]!r}")
        if key in values:
            raise ValueError(f"{said}; {key} is given twice")
        try:
            value = float(raw.strip())
        except ValueError:
            raise ValueError(f"{said}; {key}={raw.strip()[:20]!r} is not a number") from None
        top, unit = (MAX_TTFT_S, "s") if key == "ttft" else (MAX_TPOT_MS, "ms")
        if not (math.isfinite(value) and 0 < value <= top):
            raise ValueError(f"a {key.upper()} cap must be more than 0 and at most {top:g} {unit}, got {raw.strip()[:20]}")
        values[key] = value
    if not values:
        raise ValueError(said)
    return Caps(values.get("ttft"), values.get("tpot"))


def check_goodput(text: str) -> str:
    """The view's check of its ``goodput`` field: the caps' canonical text, or "" for none."""
    return caps_from_text(text).text() if text and text.strip() else ""


@dataclass(frozen=True, eq=False)
class Sample:
    """One load point's per-request data: completed requests' TTFT [s] and TPOT [ms] (float64, equal length),
    and how many completed requests the file held (more than kept when subsampled)."""

    ttft_s: np.ndarray
    tpot_ms: np.ndarray
    requests: int

    @property
    def kept(self) -> int:
        return int(len(self.ttft_s))


def request_tpot_ms(ttft_s, output_lens, latencies_s=None, itls_s=None) -> np.ndarray:
    """Each request's TPOT [ms] as vLLM computes it: (latency - TTFT) / (output tokens - 1), the latency being the
    sum of the inter-token latencies after the first token when the file states none; 0 for a one-token output."""
    ttft = np.asarray(ttft_s, dtype=float)
    out = np.asarray(output_lens, dtype=float)
    if latencies_s is not None:
        decode = np.asarray(latencies_s, dtype=float) - ttft
    else:
        decode = np.array([float(np.sum(x)) if x else 0.0 for x in itls_s], dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(out > 1, decode / (out - 1) * 1000.0, 0.0)


def compact(ttft_s, tpot_ms, limit: int = MAX_PAIRS) -> tuple[Sample, str | None]:
    """The pairs as a :class:`Sample`, at most ``limit`` (an evenly spaced subsample in the file's order beyond
    it, deterministic), and the note saying so (None when all are kept)."""
    ttft = np.asarray(ttft_s, dtype=np.float64)
    tpot = np.asarray(tpot_ms, dtype=np.float64)
    n = len(ttft)
    if n <= limit:
        return Sample(ttft, tpot, n), None
    idx = (np.arange(limit, dtype=np.int64) * n) // limit
    return Sample(ttft[idx], tpot[idx], n), (f"per-request data: {limit:,} of {n:,} requests kept (every "
                                             f"{n / limit:.3g}th, evenly spaced) for goodput")


def good_fraction(sample: Sample, caps: Caps) -> float:
    """The share of ``sample``'s requests with TTFT ≤ the TTFT cap and TPOT ≤ the TPOT cap (NaN when empty)."""
    if sample.kept == 0:
        return math.nan
    ok = np.ones(sample.kept, dtype=bool)
    if caps.ttft_s is not None:
        ok &= sample.ttft_s <= np.float64(caps.ttft_s)
    if caps.tpot_ms is not None:
        ok &= sample.tpot_ms <= np.float64(caps.tpot_ms)
    return float(np.count_nonzero(ok)) / sample.kept


def basis_words(caps: Caps | None) -> str:
    """What $/M is per: ``per good M tokens`` under caps, else ``per M tokens``."""
    return "per good M tokens" if caps is not None else "per M tokens"


def apply_goodput(rows: pd.DataFrame, samples: Mapping[int, Sample], caps: Caps | None) -> tuple[pd.DataFrame, list[str]]:
    """``rows`` with every throughput column times its point's good fraction under ``caps`` (a ``good_fraction``
    column: NaN where a point has no per-request data, which keeps its summary values), and the notes."""
    if caps is None or rows.empty:
        return rows, []
    ids = rows["point_id"].to_numpy() if "point_id" in rows.columns else np.array([], dtype=np.int64)
    fractions = np.array([good_fraction(samples[int(i)], caps) if int(i) in samples else math.nan for i in ids],
                         dtype=float)
    out = rows.copy()
    out["good_fraction"] = fractions
    have = ~np.isnan(fractions)
    for column in THROUGHPUT_COLUMNS:
        if column in out.columns:
            values = out[column].astype("Float64")
            scaled = (values * fractions).where(fractions > 0)   # no good request: no good throughput to fit
            out[column] = values.where(~pd.Series(have, index=out.index), scaled)
    missing, none_good = int((~have).sum()), int((fractions == 0).sum())
    notes = [f"goodput caps {caps.words()}: a point's throughput counts only its requests meeting both, so $/M are "
             f"{basis_words(caps)} ({int(have.sum()):,} of {len(rows):,} points have per-request data)"]
    if missing:
        notes.append(f"{missing:,} point{'s' if missing != 1 else ''} ha{'ve' if missing != 1 else 's'} no per-request "
                     "data: priced at their summary throughput, as if every request met the caps")
    if none_good:
        notes.append(f"{none_good:,} point{'s' if none_good != 1 else ''} with no request meeting the caps left out "
                     "of the frontier")
    return out, notes
