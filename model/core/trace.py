"""A request trace: when each request arrived and its input and output tokens, read into the load of each
window (λ(t) [req/s]) and the requests' mean ISL and OSL.

Accepted columns (a header row, names matched without regard to case):

- ``timestamp,input_tokens,output_tokens``: the time of each request in seconds (any origin) or as a date and
  time (``2024-05-10 00:00:01.5``);
- the Azure LLM inference trace (Azure/AzurePublicDataset): ``TIMESTAMP,ContextTokens,GeneratedTokens``, the
  timestamp a date and time with up to 7 decimals of a second (``2023-11-16 18:15:46.6805900``).

A value that cannot be read is refused with the file, row (the line in the file) and field, and so is a token
count past :data:`MAX_TOKENS_PER_REQUEST`. The trace is kept compact: requests per minute from the first
request's time (:attr:`Trace.counts`), and the token totals; a window of whole minutes (default 5) groups them:
``λ(window) = requests in it / window seconds``, the trace spanning ``windows × window`` seconds from its first
request.

Reading a file into a trace is :mod:`model.data.trace_files`; this module is the value.

A view carries a trace one of two ways (the view field ``trace``): inline, as :meth:`Trace.to_text` writes it
(``t1;...``, up to about 130,000 characters for 31 days), or as a reference to a trace stored in the store
(:attr:`Trace.reference`, ``s1;`` and 16 hex characters; :mod:`model.data.traces`).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

import numpy as np

from model.core.shape import Curve

__all__ = ["Trace", "TraceError", "Requests", "is_reference", "BIN_S", "COLUMNS",
           "MAX_BINS", "MAX_TOKENS_PER_REQUEST", "REFERENCE_PREFIX"]

#: seconds of one stored bin: windows are whole multiples of it
BIN_S = 60
#: the longest trace read [bins of a minute]: 31 days
MAX_BINS = 31 * 24 * 60
#: the most tokens one request may state, input or output [tokens]: ten times the longest context a model is
#: served with today (about 1 M); past it a value is a unit or column slip (1e308 overflowed the sums)
MAX_TOKENS_PER_REQUEST = 10_000_000
#: how a view names a stored trace: this prefix and :data:`_REFERENCE_CHARS` hex characters of its digest
REFERENCE_PREFIX = "s1;"
_REFERENCE_CHARS = 16
#: the columns a trace states, and the names each is accepted under (matched without regard to case)
COLUMNS = {"timestamp": ("timestamp",), "input_tokens": ("input_tokens", "contexttokens"),
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

    @property
    def reference(self) -> str:
        """How a view names this trace once it is stored (:mod:`model.data.traces`): ``s1;`` and 16 hex
        characters of the SHA-256 of :meth:`to_text` (its name, token totals and requests per minute)."""
        return REFERENCE_PREFIX + hashlib.sha256(self.to_text().encode()).hexdigest()[:_REFERENCE_CHARS]

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


def is_reference(text: str | None) -> bool:
    """Whether a view's ``trace`` value names a stored trace (``s1;`` and 16 hex characters) rather than holding it."""
    body = (text or "")[len(REFERENCE_PREFIX):]
    return bool(text) and text.startswith(REFERENCE_PREFIX) and len(body) == _REFERENCE_CHARS and \
        all(ch in "0123456789abcdef" for ch in body)


@dataclass(frozen=True)
class Requests:
    """Every request of a trace file: its time from the first request [s], and its input and output tokens."""

    name: str                   # the file's name as messages say it
    seconds: np.ndarray         # [s] from the first request
    input_tokens: np.ndarray    # [tokens]
    output_tokens: np.ndarray   # [tokens]
