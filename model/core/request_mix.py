"""A request mix: buckets of requests by input and output length (ISL, OSL) with the share of requests in each,
as a value (issue 43). Typed as ``ISL:OSL:SHARE,...`` (:func:`parse_mix`; a share is a fraction of requests, or a
percentage with its ``%`` sign; the shares sum to 1 within :data:`SHARE_TOLERANCE` and are then scaled to sum to 1
exactly), as a table (:func:`mix_of_rows`), or a trace's requests bucketed by stated edges
(:func:`mix_of_requests`, :func:`mix_of_counts`; default :data:`DEFAULT_ISL_EDGES` and :data:`DEFAULT_OSL_EDGES`),
each bucket standing at the mean ISL and OSL of its requests.

What the mix is served by is :mod:`model.core.mix` (matching, the solver, the answer); reading a trace file's
lengths is :mod:`model.data.trace_files`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from model.core.demand import tokens_per_request
from model.core.trace import Requests

__all__ = ["MixError", "Bucket", "RequestMix", "parse_mix", "mix_of_rows", "parse_edges", "edges_of",
           "mix_of_requests", "mix_of_counts", "DEFAULT_ISL_EDGES", "DEFAULT_OSL_EDGES", "MAX_BUCKETS",
           "SHARE_TOLERANCE"]

#: ISL edges [tokens] a trace is bucketed by: < 1,024, 1,024–4,095, 4,096–16,383, >= 16,384
DEFAULT_ISL_EDGES = (1024, 4096, 16384)
#: OSL edges [tokens]: < 256, 256–1,023, >= 1,024
DEFAULT_OSL_EDGES = (256, 1024)
#: the most buckets a mix holds
MAX_BUCKETS = 64
#: typed shares must sum to 1 within this [-]; they are then scaled to sum to 1 exactly
SHARE_TOLERANCE = 1e-3


class MixError(ValueError):
    """A request mix that cannot be read or answered: the message names the item and says why."""


# ------------------------------------------------------------------------------------------ the request mix

@dataclass(frozen=True)
class Bucket:
    """Requests of one size.

    Attributes
    ----------
    isl, osl : int  the bucket's input and output length [tokens/request] (a trace's: its requests' mean)
    share : float  the share of all requests in it [-]
    label : str  ``8192/1024`` typed; a trace's with its edges, ``ISL 4,096–16,383 · OSL 256–1,023``
    requests : int, optional  the trace's requests in it
    """

    isl: int
    osl: int
    share: float
    label: str
    requests: int | None = None

    def tokens(self, basis: str = "total") -> float:
        """Tokens one request carries on ``basis`` (total, output or input) [tokens/request]."""
        return tokens_per_request(self.isl, self.osl, basis)


@dataclass(frozen=True)
class RequestMix:
    """Buckets of requests by length, their shares summing to 1, and where they come from."""

    buckets: tuple[Bucket, ...]
    source: str = "typed"                       # "typed", or the trace's words
    isl_edges: tuple[int, ...] = ()             # a trace's bucket edges [tokens]
    osl_edges: tuple[int, ...] = ()

    def to_text(self) -> str:
        """``ISL:OSL:SHARE,...`` as :func:`parse_mix` reads it (a view's ``request_mix``)."""
        return ",".join(f"{b.isl}:{b.osl}:{b.share:.6g}" for b in self.buckets)

    def words(self) -> str:
        parts = ", ".join(f"{b.label} {b.share:.1%}" for b in self.buckets)
        return f"{len(self.buckets)} bucket{'s' if len(self.buckets) != 1 else ''} ({self.source}): {parts}"


def _whole_tokens(text: str, what: str, item: str) -> int:
    try:
        value = float(text.replace("_", ""))
    except ValueError:
        raise MixError(f"{item!r}: {what} {text!r} is not a whole number of tokens") from None
    if not (math.isfinite(value) and value >= 1 and value.is_integer() and value <= 1e8):
        raise MixError(f"{item!r}: {what} {text!r} is not a whole number of tokens from 1 to 100,000,000")
    return int(value)


def _share(text: str, item: str) -> float:
    typed = text.strip()
    percent = typed.endswith("%")
    try:
        value = float(typed.removesuffix("%").strip())
    except ValueError:
        raise MixError(f"{item!r}: share {text!r} is not a number (a fraction such as 0.7, or 70%)") from None
    value = value / 100 if percent else value
    if not (math.isfinite(value) and 0 < value <= 1):
        said = " (a percentage needs its % sign: 70%)" if not percent and 1 < value <= 100 else ""
        raise MixError(f"{item!r}: share {text!r} must be a fraction of requests in (0, 1]{said}")
    return value


def parse_mix(text: str) -> RequestMix:
    """The request mix typed as ``ISL:OSL:SHARE,...``, e.g. ``1024:256:0.7,8192:1024:30%``.

    ISL and OSL are whole tokens [tokens/request]; a share is a fraction of requests or a percentage with its
    ``%``; the shares sum to 1 within :data:`SHARE_TOLERANCE` and are then scaled to sum to 1 exactly. Raises
    :class:`MixError` naming the item (a bucket given twice, a share that is not a fraction, shares that do not
    sum to 1)."""
    items = [item.strip() for item in str(text or "").split(",") if item.strip()]
    if not items:
        raise MixError("no buckets: give ISL:OSL:SHARE,... e.g. 1024:256:0.7,8192:1024:0.3")
    if len(items) > MAX_BUCKETS:
        raise MixError(f"{len(items)} buckets: at most {MAX_BUCKETS}")
    for item in items:
        if len(item.split(":")) != 3:
            raise MixError(f"{item!r} is not ISL:OSL:SHARE (e.g. 1024:256:0.7): buckets are separated by commas, so "
                           "a share is written with a point")
    buckets, seen = [], set()
    for item in items:
        parts = item.split(":")
        isl, osl = _whole_tokens(parts[0], "ISL", item), _whole_tokens(parts[1], "OSL", item)
        if (isl, osl) in seen:
            raise MixError(f"{item!r}: bucket {isl}/{osl} is given twice")
        seen.add((isl, osl))
        buckets.append((isl, osl, _share(parts[2], item)))
    total = sum(share for _, _, share in buckets)
    if abs(total - 1) > SHARE_TOLERANCE:
        raise MixError(f"the shares sum to {total:.4g}, not 1: each is the fraction of requests in its bucket")
    return RequestMix(tuple(Bucket(i, o, s / total, f"{i}/{o}") for i, o, s in buckets))


def _cell_text(value) -> str:
    """A table cell as typed: empty for nothing, a whole float without its ``.0``."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def mix_of_rows(rows) -> RequestMix:
    """The request mix typed as a table (the GPU mix page): each row's ``isl`` and ``osl`` [tokens] and ``share`` (a
    fraction of requests, or a percentage with its ``%``); an empty row is skipped. Raises :class:`MixError`
    naming the row (a cell left empty, a share written with a decimal comma) or, as :func:`parse_mix`, the bucket."""
    items = []
    for n, row in enumerate(rows, 1):
        cells = {key: _cell_text(row.get(key)) for key in ("isl", "osl", "share")}
        if not any(cells.values()):
            continue
        empty = [key.upper() if key != "share" else key for key, text in cells.items() if not text]
        if empty:
            raise MixError(f"row {n}: no {' or '.join(empty)}")
        if "," in cells["share"]:
            raise MixError(f"row {n}: share {cells['share']!r}: write a decimal point (0.7) or a percentage (70%)")
        items.append(f"{cells['isl']}:{cells['osl']}:{cells['share']}")
    return parse_mix(",".join(items))


def parse_edges(text: str, what: str) -> tuple[int, ...]:
    """Bucket edges typed as whole tokens, comma-separated (``1024,4096,16384``) [tokens]; raises :class:`MixError`
    naming ``what`` (ISL or OSL) for a value that is not a whole number, or edges that do not increase."""
    parts = [p.strip().replace("_", "") for p in str(text or "").split(",") if p.strip()]
    if not parts:
        raise MixError(f"no {what} edges: give whole token counts, comma-separated, e.g. 1024,4096")
    try:
        values = [float(p) for p in parts]
    except ValueError:
        raise MixError(f"{what} edges {text!r}: whole token counts, comma-separated (e.g. 1024,4096)") from None
    if not all(math.isfinite(v) and v.is_integer() for v in values):
        raise MixError(f"{what} edges {text!r}: whole token counts, comma-separated (e.g. 1024,4096)")
    return edges_of([int(v) for v in values], what)


def edges_of(edges, what: str) -> tuple[int, ...]:
    out = tuple(int(e) for e in edges)
    if any(e < 1 for e in out) or any(b <= a for a, b in zip(out, out[1:])) or len(out) > 15:
        raise MixError(f"{what} edges must be whole tokens, increasing, at most 15 of them; got {list(edges)}")
    return out


def _range_words(i: int, edges: tuple[int, ...]) -> str:
    if not edges:
        return "any"
    if i == 0:
        return f"<{edges[0]:,}"
    if i == len(edges):
        return f"≥{edges[-1]:,}"
    return f"{edges[i - 1]:,}–{edges[i] - 1:,}"


def mix_of_requests(requests: Requests, isl_edges=DEFAULT_ISL_EDGES, osl_edges=DEFAULT_OSL_EDGES) -> RequestMix:
    """A trace's requests bucketed by ISL and OSL: bucket ``(i, j)`` holds ISL in ``[isl_edges[i-1],
    isl_edges[i])`` and OSL likewise [tokens]; each bucket stands at its requests' mean ISL and OSL (rounded, at
    least 1 token), its share the fraction of requests in it. Empty buckets are left out."""
    isl_edges, osl_edges = edges_of(isl_edges, "ISL"), edges_of(osl_edges, "OSL")
    isl = np.asarray(requests.input_tokens, dtype=float)
    osl = np.asarray(requests.output_tokens, dtype=float)
    i = np.searchsorted(np.asarray(isl_edges, dtype=float), isl, side="right")
    j = np.searchsorted(np.asarray(osl_edges, dtype=float), osl, side="right")
    counts = []
    for a in range(len(isl_edges) + 1):
        for b in range(len(osl_edges) + 1):
            inside = (i == a) & (j == b)
            if inside.any():
                counts.append((a, b, int(inside.sum()), float(isl[inside].mean()), float(osl[inside].mean())))
    return mix_of_counts(counts, requests.name, isl_edges, osl_edges)


def mix_of_counts(counts, name: str, isl_edges: tuple[int, ...], osl_edges: tuple[int, ...]) -> RequestMix:
    """The mix of requests counted per ISL and OSL range: ``(a, b, requests, mean ISL, mean OSL)`` per range."""
    total = sum(n for _, _, n, _, _ in counts)
    if not total:
        raise MixError(f"{name}: no requests")
    if len(counts) > MAX_BUCKETS:
        raise MixError(f"{len(counts)} buckets: at most {MAX_BUCKETS} (give fewer edges)")
    buckets = tuple(Bucket(max(1, int(round(mean_isl))), max(1, int(round(mean_osl))), n / total,
                           f"ISL {_range_words(a, isl_edges)} · OSL {_range_words(b, osl_edges)}", n)
                    for a, b, n, mean_isl, mean_osl in sorted(counts))
    return RequestMix(buckets, f"trace {name}: {total:,} requests", isl_edges, osl_edges)
