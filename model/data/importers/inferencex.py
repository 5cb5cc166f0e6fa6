"""InferenceX (formerly InferenceMAX, SemiAnalysis) results.

``inferencex_agg``: ``agg_<run>.json`` objects from ``utils/process_result.py``, or
the ``agg_bmk.json`` array ``utils/collect_results.py`` merges them into.
``inferencex_agentic``: the current nested agentic aggregate (:mod:`.inferencex_agentic`; an array mixing it
with flat rows is read as ``inferencex_agg``, which reads both). A row that measured nothing is left out of an
array with a note; a file of nothing else is refused.
``inferencex_api``: rows of the app's ``/api/v1/benchmarks`` (config at the top,
numbers in a ``metrics`` map under the agg names).

Units as written: latencies in **seconds** (``median_ttft``...), throughputs in
**tok/s per GPU**, ``*_intvty`` = 1000 / TPOT [tok/s/user]. Per-GPU
denominators: single node divides everything by ``tp``; disaggregated
(multinode) rows divide total by all GPUs, output by decode GPUs and input by
prefill GPUs, and are stored so: total per GPU of both roles, input per prefill
GPU, output per decode GPU (the per-role fields), with each role's GPU count.
``std_intvty`` (1000 / std of TPOT) is meaningless and dropped.
"""

from __future__ import annotations

from typing import Any

from model.data.importers import inferencex_agentic as agentic
from model.data.importers._common import Rows, first, integer, iso_date, num, objects, scalar_extras
from model.data.importers.base import Format, IngestError

__all__ = ["FORMATS", "matches_agg", "matches_agentic", "matches_api", "parse_agg", "parse_api"]

#: agg keys read into fields (the rest of the scalars go to extra)
_AGG_CONSUMED = {
    "hw", "conc", "image", "model", "framework", "precision", "spec_decoding", "mtp", "disagg", "isl", "osl",
    "tp", "ep", "num_prefill_gpu", "num_decode_gpu", "decode_tp", "decode_ep", "hardware", "spec_method",
    "date", "run_url", "metrics", "workers",
}
_METRICS_CONSUMED = {
    "tput_per_gpu", "output_tput_per_gpu", "input_tput_per_gpu", "median_ttft", "p90_ttft", "p95_ttft",
    "p99_ttft", "median_tpot", "median_intvty", "median_e2el", "std_intvty",
}


def matches_agg(keys: set[str]) -> bool:
    """An agg row: ``tput_per_gpu`` with ``hw`` and ``conc``; or an agentic aggregate (nested
    ``request_metrics``, or flat rows of which none measured anything: ``num_requests_total``)."""
    return {"hw", "conc"} <= keys and ("tput_per_gpu" in keys or agentic.NESTED_KEYS <= keys
                                       or {"num_requests_total", "num_requests_successful", "scenario_type"} <= keys)


def matches_agentic(keys: set[str]) -> bool:
    """A nested agentic aggregate (current InferenceX): ``request_metrics`` and ``num_requests_total``, no
    flat ``tput_per_gpu`` (an array mixing both layouts is read as ``inferencex_agg``, which reads both)."""
    return {"hw", "conc"} | agentic.NESTED_KEYS <= keys and "tput_per_gpu" not in keys


def matches_api(keys: set[str]) -> bool:
    """An API row: ``hardware`` and a ``metrics`` map, with ``spec_method`` or ``benchmark_type``."""
    return {"hardware", "metrics"} <= keys and bool({"spec_method", "benchmark_type"} & keys)


def _truthy(value: Any) -> bool:
    return value is True or str(value).strip().lower() in ("true", "1", "yes")


def _measurements(m: dict, disagg: bool) -> dict[str, Any]:
    """Fields from the agg-named numbers (seconds, tok/s/GPU, tok/s/user).

    ``tput_per_gpu`` is per GPU of every role. On a disaggregated row ``input_tput_per_gpu`` is
    per prefill GPU and ``output_tput_per_gpu`` per decode GPU, so they go to the per-role fields
    (their per-GPU-of-all-roles values are derived at ingest: role rate x role GPUs / all GPUs).
    """
    tpot_s = num(m.get("median_tpot"))
    inp, out = num(m.get("input_tput_per_gpu")), num(m.get("output_tput_per_gpu"))
    return {
        "total_tokens_per_second_per_gpu": num(m.get("tput_per_gpu")),
        "output_tokens_per_second_per_gpu": None if disagg else out,
        "input_tokens_per_second_per_gpu": None if disagg else inp,
        "output_tokens_per_second_per_decode_gpu": out if disagg else None,
        "input_tokens_per_second_per_prefill_gpu": inp if disagg else None,
        "interactivity": num(m.get("median_intvty")),
        "tpot_median_ms": None if tpot_s is None else tpot_s * 1000.0,
        "ttft_p50_s": num(m.get("median_ttft")),
        "ttft_p90_s": num(m.get("p90_ttft")),
        "ttft_p95_s": num(m.get("p95_ttft")),
        "ttft_p99_s": num(m.get("p99_ttft")),
        "e2e_latency_median_s": num(m.get("median_e2el")),
    }


def _gpus(obj: dict, disagg: bool, tp_key: str) -> dict[str, Any]:
    """GPU counts: prefill + decode for disaggregated rows, else ``tp`` (what process_result divides by)."""
    if disagg:
        prefill, decode = integer(obj.get("num_prefill_gpu")), integer(obj.get("num_decode_gpu"))
        # the older agg writer (no prefill_tp/decode_tp) divides tput_per_gpu by TP, all GPUs of the run
        older = tp_key in obj and "prefill_tp" not in obj and "decode_tp" not in obj
        return {"disaggregated": True, "gpus_prefill": prefill, "gpus_decode": decode,
                "gpus": first(integer(obj.get(tp_key)) if older else None,
                              prefill + decode if prefill and decode else None),
                "tp": integer(obj.get("decode_tp")), "ep": integer(obj.get("decode_ep"))}
    tp = integer(obj.get(tp_key))
    return {"disaggregated": False, "gpus": tp, "tp": tp, "ep": integer(obj.get("ep", obj.get("decode_ep")))}


def _image(value: Any) -> str | None:
    return str(value).replace("#", "/") if value else None


def _extras(obj: dict, metrics: dict, skip: set[str]) -> dict[str, Any]:
    out = scalar_extras(obj, skip)
    out.update(scalar_extras(metrics, _METRICS_CONSUMED | set(out)))
    return out


def _workload_and_recipe(line: int, obj: dict, hardware: Any, spec: Any) -> dict[str, Any]:
    """The fields agg objects and API rows spell alike (they name hardware and spec differently)."""
    return {
        "source_line": line,
        "hardware": hardware,
        "model": obj.get("model"),
        "isl": integer(obj.get("isl")),
        "osl": integer(obj.get("osl")),
        "framework": obj.get("framework"),
        "framework_version": _image(obj.get("image")),
        "precision": obj.get("precision"),
        "spec_decoding": spec,
        "concurrency": num(obj.get("conc")),
    }


def _agg_row(line: int, obj: dict) -> dict[str, Any]:
    disagg = _truthy(obj.get("disagg")) or _truthy(obj.get("is_multinode")) or "prefill_tp" in obj
    spec = obj.get("spec_decoding")
    if spec is None and "mtp" in obj:
        spec = "mtp" if _truthy(obj["mtp"]) or integer(obj["mtp"]) else "none"
    flat_agentic = agentic.is_flat_agentic(obj)
    row: dict[str, Any] = {
        **_workload_and_recipe(line, obj, obj.get("hw"), spec),
        **_gpus(obj, disagg, "tp"),
        # the agentic aggregation divides all three rates by all GPUs, even on disaggregated rows
        **_measurements(obj, disagg and not flat_agentic),
    }
    if flat_agentic:
        isl, osl = num(obj.get("mean_input_tokens")), num(obj.get("mean_output_tokens_actual"))
        row.update({
            "isl": None if isl is None else round(isl), "osl": None if osl is None else round(osl),
            "scenario": obj.get("scenario_type"),
            "total_tokens_per_second": num(obj.get("total_tput_tps")),
            "output_tokens_per_second": num(obj.get("output_tput_tps")),
            "input_tokens_per_second": num(obj.get("input_tput_tps")),
            "prefix_cache_hit_rate": num(obj.get("server_gpu_cache_hit_rate")),
            "requests_completed": integer(obj.get("num_requests_successful")),
            "notes": agentic.FLAT_ROW_NOTE,
            "std_intvty": num(obj.get("std_intvty")),   # here the std of per-request interactivity
        })
        if disagg:
            row["output_tokens_per_second_per_gpu"] = row["input_tokens_per_second_per_gpu"] = None
    consumed = {"total_tput_tps", "output_tput_tps", "input_tput_tps", "server_gpu_cache_hit_rate",
                "num_requests_successful", "scenario_type"} if flat_agentic else set()
    row.update(_extras(obj, {}, _AGG_CONSUMED | _METRICS_CONSUMED | consumed | set(row)))
    return row


def _api_row(line: int, obj: dict) -> dict[str, Any]:
    metrics = obj.get("metrics") if isinstance(obj.get("metrics"), dict) else {}
    disagg = _truthy(obj.get("disagg"))
    row: dict[str, Any] = {
        **_workload_and_recipe(line, obj, obj.get("hardware"), obj.get("spec_method")),
        # aggregated rows: num_prefill_gpu/num_decode_gpu are not GPU counts; tp is the divisor
        **_gpus(obj, disagg, "decode_tp"),
        **_measurements(metrics, disagg),
        "run_date": iso_date(obj.get("date")),
        "url": obj.get("run_url"),
    }
    if not disagg:
        row.update({"tp": first(integer(obj.get("decode_tp")), integer(obj.get("prefill_tp")))})
        row["gpus"] = row["tp"]
    skip = _AGG_CONSUMED | set(row) | ({"num_prefill_gpu", "num_decode_gpu"})
    row.update(_extras(obj, metrics, skip))
    return row


def _notes(rows: Rows) -> list[str]:
    notes = ["std_intvty dropped (1000 / std of TPOT is not an interactivity)"]
    n = sum(1 for row in rows if row.get("disaggregated"))
    if n:
        notes.append(f"{n} disaggregated rows: input tok/s per prefill GPU and output per decode GPU stored as "
                     "stated; system tok/s derived = role rate x role GPUs, and input/output per GPU of both "
                     "roles = system / all GPUs")
    return notes


def parse_agg(records: list[tuple[int, Any]], name: str) -> tuple[Rows, list[str]]:
    """One row per agg object.

    Returns
    -------
    rows : list of dict
        per-GPU throughputs [tok/s/GPU] as given, interactivity [tok/s/user] =
        ``median_intvty``, TPOT [ms] = ``median_tpot`` x 1000, TTFT/E2E [s];
        ``gpus`` = ``tp`` (single node) or prefill + decode GPUs (disaggregated).
    notes : list of str
    """
    rows, left_out, nested, flat = [], [], 0, 0
    for line, obj in objects(records, name, "InferenceX agg"):
        empty = agentic.measured_nothing(obj) if "hw" in obj else None
        if empty:
            left_out.append(f"line {line} (conc {obj.get('conc')}) left out: {empty}")
        elif agentic.is_nested(obj) and "hw" in obj:
            rows.append(agentic.nested_row(line, obj))
            nested += 1
        elif "tput_per_gpu" not in obj or "hw" not in obj:
            missing = "hw" if "hw" not in obj else "tput_per_gpu"
            raise IngestError(name, f"not an InferenceX agg row: no {missing}", line=line, field=missing)
        else:
            rows.append(_agg_row(line, obj))
            flat += agentic.is_flat_agentic(obj)
    if not rows and left_out:
        raise IngestError(name, f"no element measured anything (all {len(left_out)}: "
                          + "; ".join(left_out[:3]) + ("; ..." if len(left_out) > 3 else "") + ")")
    notes = _notes(rows) if len(rows) > nested + flat else []
    return rows, [*left_out, *notes, *agentic.flat_notes(flat), *agentic.nested_notes(nested)]


def parse_api(records: list[tuple[int, Any]], name: str) -> tuple[Rows, list[str]]:
    """One row per API benchmark row (units as :func:`parse_agg`)."""
    rows = []
    for line, obj in objects(records, name, "InferenceX API"):
        if "hardware" not in obj or not isinstance(obj.get("metrics"), dict):
            raise IngestError(name, "not an InferenceX API row: no hardware/metrics", line=line, field="metrics")
        rows.append(_api_row(line, obj))
    return rows, _notes(rows)


FORMATS = (
    Format("inferencex_api", "json", lambda keys, head: matches_api(keys), parse_api),
    Format("inferencex_agentic", "json", lambda keys, head: matches_agentic(keys), parse_agg),
    Format("inferencex_agg", "json", lambda keys, head: matches_agg(keys), parse_agg),
)
