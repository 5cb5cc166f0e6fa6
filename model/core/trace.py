"""A request trace: when each request arrived and its input and output tokens, read into the load of each
window (λ(t) [req/s]) and the requests' mean ISL and OSL.

Accepted columns (a header row, names matched without regard to case):

- ``timestamp,input_tokens,output_tokens``: the time of each request in seconds (any origin) or as a date and
  time (``2024-05-10 00:00:01.5``);
- the Azure LLM inference trace (Azure/AzurePublicDataset): ``TIMESTAMP,ContextTokens,GeneratedTokens``, the
  timestamp a date and time with up to 7 decimals of a second (``2023-11-16 18:15:46.6805900``).

A value that cannot be read is refused with the file, row (the line in the file) and field. The trace is kept
compact: requests per minute from the first request's time (:attr:`Trace.counts`), and the token totals; a
window of whole minutes (default 5) groups them: ``λ(window) = requests in it / window seconds``, the trace
spanning ``windows × window`` seconds from its first request.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass

import numpy as np

from model.core.shape import Curve

__all__ = ["Trace", "TraceError", "Requests", "read_trace", "read_requests", "BIN_S", "MAX_BINS"]

#: seconds of one stored bin: windows are whole multiples of it
BIN_S = 60
#: the longest trace read [bins of a minute]: 31 days
MAX_BINS = 31 * 24 * 60
_COLUMNS = {"timestamp": ("timestamp",), "input_tokens": ("input_tokens", "contexttokens"),
            "output_tokens": ("output_tokens", "generatedtokens")}


class TraceError(ValueError):
    """A trace that cannot be read: the message names the file, row and field."""


@dataclass(frozen=True)
class Trace:
    """Requests per minute from the first request, and the trace's token totals."""

    name: str
    counts: tuple[int, ...]
    input_tokens: float
    output_tokens: float

    @property
    def requests(self) -> int:
        return int(sum(self.counts))

    @property
    def mean_isl(self) -> float:
        return self.input_tokens / self.requests if self.requests else math.nan

    @property
    def mean_osl(self) -> float:
        return self.output_tokens / self.requests if self.requests else math.nan

    def windows(self, minutes: int) -> np.ndarray:
        """Requests in each window of ``minutes`` (the last one may hold fewer minutes of the trace)."""
        counts = np.asarray(self.counts, dtype=float)
        n = -(-len(counts) // minutes)
        padded = np.zeros(n * minutes)
        padded[:len(counts)] = counts
        return padded.reshape(n, minutes).sum(axis=1)

    def rates(self, minutes: int) -> np.ndarray:
        """λ of each window [req/s]."""
        return self.windows(minutes) / (minutes * BIN_S)

    def mean_rps(self, minutes: int) -> float:
        return float(self.rates(minutes).mean())

    def curve(self, minutes: int) -> Curve:
        rates = self.rates(minutes)
        mean = rates.mean()
        return Curve(tuple(float(r / mean) for r in rates), float(minutes * BIN_S), f"trace {self.name}")

    def words(self) -> str:
        hours = len(self.counts) * BIN_S / 3600
        return (f"trace {self.name}: {self.requests:,} requests over {hours:.3g} hours, mean ISL {self.mean_isl:,.0f} / "
                f"OSL {self.mean_osl:,.0f}")

    # ------------------------------------------------------------------ compact text (the view holds it)
    def to_text(self) -> str:
        return "t1;" + ";".join([self.name, f"{self.input_tokens:.0f}", f"{self.output_tokens:.0f}",
                                 ",".join(str(c) if c else "" for c in self.counts)])

    @classmethod
    def from_text(cls, text: str) -> "Trace":
        parts = text.split(";")
        if len(parts) != 5 or parts[0] != "t1":
            raise ValueError("not a request trace this product wrote")
        try:
            counts = tuple(int(c) if c else 0 for c in parts[4].split(","))
            tokens = float(parts[2]), float(parts[3])
        except ValueError:
            raise ValueError("not a request trace this product wrote") from None
        if not counts or len(counts) > MAX_BINS or min(counts) < 0 or not sum(counts) or \
                not all(math.isfinite(t) and t >= 0 for t in tokens):
            raise ValueError("not a request trace this product wrote")
        return cls(parts[1], counts, *tokens)


def _where(name: str, line: int, field: str) -> str:
    return f"{name}, row {line}, field {field}"


@dataclass(frozen=True)
class Requests:
    """Every request of a trace file: its time from the first request [s], and its input and output tokens."""

    name: str                   # the file's name as messages say it
    seconds: np.ndarray         # [s] from the first request
    input_tokens: np.ndarray    # [tokens]
    output_tokens: np.ndarray   # [tokens]


def read_requests(data: bytes | str, name: str) -> Requests:
    """Every request of a trace CSV file's bytes or text (``name``: the file's name, for messages), one by one.
    Raises :class:`TraceError` naming file, row and field."""
    import pandas as pd

    text = data.decode("utf-8-sig", errors="replace") if isinstance(data, bytes) else data
    label = name.replace(";", ",")[:120] or "trace"
    try:
        frame = pd.read_csv(io.StringIO(text), dtype=str, skipinitialspace=True)
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise TraceError(f"{label}: not a CSV file ({str(exc).splitlines()[0][:120]})") from None
    found = {}
    lower = {str(c).strip().lower(): c for c in frame.columns}
    for field, names in _COLUMNS.items():
        column = next((lower[n] for n in names if n in lower), None)
        if column is None:
            raise TraceError(f"{label}: no column {field} (accepted: timestamp,input_tokens,output_tokens or the "
                             "Azure trace's TIMESTAMP,ContextTokens,GeneratedTokens)")
        found[field] = column
    if frame.empty:
        raise TraceError(f"{label}: no requests")
    lines = np.arange(len(frame)) + 2
    tokens = {}
    for field in ("input_tokens", "output_tokens"):
        raw = frame[found[field]]
        values = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float)
        bad = ~(np.isfinite(values) & (values >= 0))
        if bad.any():
            i = int(np.argmax(bad))
            raise TraceError(f"{_where(label, lines[i], found[field])}: {str(raw.iloc[i])[:40]!r} is not a token count "
                             "(a number of 0 or more)")
        tokens[field] = values
    raw = frame[found["timestamp"]]
    seconds = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float)
    if np.isnan(seconds).all():
        stamps = pd.to_datetime(raw, format="ISO8601", errors="coerce")
        seconds = (stamps - stamps.min()).dt.total_seconds().to_numpy(dtype=float)
    bad = ~np.isfinite(seconds)
    if bad.any():
        i = int(np.argmax(bad))
        raise TraceError(f"{_where(label, lines[i], found['timestamp'])}: {str(raw.iloc[i])[:40]!r} is not a time "
                         "(seconds, or a date and time such as 2023-11-16 18:15:46.68)")
    return Requests(label, seconds - seconds.min(), tokens["input_tokens"], tokens["output_tokens"])


def read_trace(data: bytes | str, name: str) -> Trace:
    """The :class:`Trace` of a CSV file's bytes or text (``name``: the file's name, for messages). Raises
    :class:`TraceError` naming file, row and field."""
    requests = read_requests(data, name)
    bins = np.floor(requests.seconds / BIN_S).astype(np.int64)
    if bins.max() >= MAX_BINS:
        raise TraceError(f"{requests.name}: the trace spans more than {MAX_BINS // 1440} days; give a shorter one")
    counts = np.bincount(bins, minlength=int(bins.max()) + 1)
    return Trace(requests.name, tuple(int(c) for c in counts), float(requests.input_tokens.sum()),
                 float(requests.output_tokens.sum()))
