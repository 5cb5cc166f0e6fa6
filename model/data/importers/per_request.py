"""Per-request arrays beside a result (vLLM ``--save-detailed``, SGLang ``--output-details``): each completed
request's TTFT and TPOT, kept compactly for goodput (:mod:`model.core.goodput`).

The keys read (vLLM ``vllm/benchmarks/serve.py`` and ``benchmarks/benchmark_serving.py``; SGLang
``python/sglang/bench_serving.py``, which writes the same ones): ``ttfts`` [s, one per request], ``output_lens``
[tokens], ``itls`` [s, the inter-token latencies after the first token, a list per request], ``latencies`` [s,
end to end, newer vLLM writes it even without ``--save-detailed``] and ``errors`` ("" for a completed request).
A request is completed when its error is empty (without ``errors``: when it produced a token). Its TPOT is
vLLM's: (latency - TTFT) / (output tokens - 1) [ms], the latency being TTFT + sum(itls) when not stated.

GuideLLM's ``benchmarks.json`` lists requests per benchmark under ``requests.successful`` (each a
``GenerativeRequestStats`` with the computed ``time_to_first_token_ms`` and ``inter_token_latency_ms``, the decode
gap after the first token: the TPOT its summary is read by). GuideLLM keeps a sample of them (its output sampling),
so the kept count can be below the successful total, which the row's notes then say.
"""

from __future__ import annotations

import math
from typing import Any

from model.core.goodput import Sample, compact, request_tpot_ms
from model.data.importers.base import IngestError

__all__ = ["REQUESTS_KEY", "sample_of", "attach", "attach_guidellm"]

#: the row key an importer puts a point's :class:`~model.core.goodput.Sample` under (popped before the frame)
REQUESTS_KEY = "_requests"


def _numbers(values: list, name: str, line: int, key: str, at: list[int] | None = None) -> list[float]:
    """``values`` as floats; a value that is not a finite number of at least 0 is refused naming its request
    (``at``: the requests' positions in the file, from 0)."""
    out = []
    for i, value in enumerate(values):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            where = (at[i] if at is not None else i) + 1
            raise IngestError(name, f"request {where}: {str(value)[:20]!r} is not a time or count of at least 0",
                              line=line, field=key)
        out.append(float(value))
    return out


def sample_of(obj: dict[str, Any], name: str, line: int) -> tuple[Sample | None, str | None]:
    """The completed requests' (TTFT, TPOT) of one result object, compacted, and a note (subsampled, or arrays
    that cannot be paired and so were not kept); (None, None) when the object has no per-request arrays."""
    ttfts, outs = obj.get("ttfts"), obj.get("output_lens")
    if not isinstance(ttfts, list) or not isinstance(outs, list) or not ttfts:
        return None, None
    itls, lat, errors = obj.get("itls"), obj.get("latencies"), obj.get("errors")
    n = len(ttfts)
    lat = lat if isinstance(lat, list) and len(lat) == n else None
    if len(outs) != n or (lat is None and not (isinstance(itls, list) and len(itls) == n)):
        return None, "per-request arrays of unequal length: not kept, so goodput uses the summary values"
    if isinstance(errors, list) and len(errors) == n:
        done = [not e for e in errors]
    else:
        done = [isinstance(o, (int, float)) and o > 0 for o in outs]
    keep = [i for i in range(n) if done[i]]          # a failed request's values are not read
    ttft = dict(zip(keep, _numbers([ttfts[i] for i in keep], name, line, "ttfts", keep)))
    out = dict(zip(keep, _numbers([outs[i] for i in keep], name, line, "output_lens", keep)))
    if lat is not None:
        latencies = _numbers([lat[i] for i in keep], name, line, "latencies", keep)
        tpot = request_tpot_ms([ttft[i] for i in keep], [out[i] for i in keep], latencies)
    else:
        spans = []
        for i in keep:
            gaps = itls[i] if isinstance(itls[i], list) else []
            spans.append(_numbers(gaps, name, line, "itls", [i] * len(gaps)))
        tpot = request_tpot_ms([ttft[i] for i in keep], [out[i] for i in keep], itls_s=spans)
    return compact([ttft[i] for i in keep], tpot)


def attach(row: dict[str, Any], obj: dict[str, Any], name: str, line: int, notes: set[str]) -> dict[str, Any]:
    """``row`` with its per-request :class:`Sample` under :data:`REQUESTS_KEY` (when ``obj`` has per-request
    arrays); a subsample is said in the row's notes, and the file's ``notes`` say per-request data were kept."""
    sample, said = sample_of(obj, name, line)
    if sample is not None:
        row[REQUESTS_KEY] = sample
        notes.add("per-request TTFT and TPOT kept for goodput (completed requests; TPOT = (latency - TTFT) / "
                  "(output tokens - 1))")
        if said:
            row["notes"] = "; ".join(n for n in (row.get("notes"), said) if n)
    elif said:
        notes.add(said)
    return row


def attach_guidellm(row: dict[str, Any], bench: dict[str, Any], notes: set[str]) -> dict[str, Any]:
    """``row`` with the per-request :class:`Sample` of a GuideLLM benchmark's listed successful requests (those
    stating both ``time_to_first_token_ms`` and ``inter_token_latency_ms``), when it lists any."""
    listed = bench.get("requests")
    listed = listed.get("successful") if isinstance(listed, dict) else None
    if not isinstance(listed, list):
        return row
    pairs = [(r.get("time_to_first_token_ms"), r.get("inter_token_latency_ms")) for r in listed if isinstance(r, dict)]
    pairs = [(a / 1000.0, b) for a, b in pairs if all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                      and math.isfinite(v) and v >= 0 for v in (a, b))]
    if not pairs:
        return row
    sample, said = compact([a for a, _ in pairs], [b for _, b in pairs])
    total = row.get("requests_completed")
    if isinstance(total, int) and total > sample.requests:
        said = "; ".join(x for x in (said, f"per-request data: GuideLLM's file lists {sample.requests:,} of its "
                                     f"{total:,} successful requests (its own sampling); goodput is their share") if x)
        sample = Sample(sample.ttft_s, sample.tpot_ms, total)
    row[REQUESTS_KEY] = sample
    notes.add("per-request TTFT and TPOT (inter_token_latency_ms) of the listed successful requests kept for goodput")
    if said:
        row["notes"] = "; ".join(n for n in (row.get("notes"), said) if n)
    return row
