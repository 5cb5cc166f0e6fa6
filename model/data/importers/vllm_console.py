"""``vllm bench serve``'s console output, kept as a result file (a log, a terminal copied into a text file).

The shape (vLLM's ``benchmarks/serve.py``, as it prints): before each run the arguments it echoes
(``Namespace(...)`` or ``args: ...`` with ``model=``, ``max_concurrency=``, ``request_rate=`` and the dataset's
lengths, where the log holds them; then ``Traffic request rate: inf``, ``Burstiness factor: 1.0 (...)``,
``Maximum request concurrency: 32``), a progress bar, and the block::

    ============ Serving Benchmark Result ============
    Successful requests:                     32
    Failed requests:                         0
    Maximum request concurrency:             32
    Request rate configured (RPS):           2.00
    Benchmark duration (s):                  150.87
    Total input tokens:                      65536
    Total generated tokens:                  65536
    Request throughput (req/s):              0.21
    Output token throughput (tok/s):         434.40
    Peak output token throughput (tok/s):    504.00
    Peak concurrent requests:                32.00
    Total Token throughput (tok/s):          868.80
    ---------------Time to First Token----------------
    Mean TTFT (ms): / Median TTFT (ms): / P99 TTFT (ms): (and P50, P90, P95 with --metric-percentiles)
    -----Time per Output Token (excl. 1st token)------  (Mean, Median, Pxx TPOT)
    ---------------Inter-token Latency----------------  (Mean, Median, Pxx ITL)
    ----------------End-to-end Latency----------------  (Mean, Median, Pxx E2EL)
    ---------------Speculative Decoding---------------  (Acceptance rate (%), Acceptance length, Drafts, ...)
    ==================================================

Each block is one load point: it is turned into the keys of vLLM's own result JSON (``completed``, ``duration``,
``median_tpot_ms``, ``max_concurrent_requests``, ``spec_decode_acceptance_rate``, ...) and read by :mod:`.vllm`, so a
console log and the ``--save-result`` JSON of one run give one row (printed to two decimals). The block's own
``Maximum request concurrency`` and ``Request rate configured`` win over the echoed ones; the echoed arguments fill
what the block does not state (the model only ever comes from them); a log of several runs (a sweep) gives a row per
block, each with the arguments echoed before it. "Peak concurrent requests" (the most requests in flight at once)
is kept in extra as ``max_concurrent_requests``, beside the configured concurrency.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from model.data.importers._common import Rows, num
from model.data.importers.base import Format, IngestError

__all__ = ["FORMATS", "BANNER", "matches", "parse"]

BANNER = "Serving Benchmark Result"
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_LINE = re.compile(r"^\s*(?P<key>[A-Za-z][^:]{1,60}?):\s+(?P<value>\S+)\s*$")
#: block line -> vLLM result key
_KEYS = {
    "successful requests": "completed", "failed requests": "failed",
    "maximum request concurrency": "max_concurrency", "request rate configured (rps)": "request_rate",
    "benchmark duration (s)": "duration", "total input tokens": "total_input_tokens",
    "total generated tokens": "total_output_tokens", "request throughput (req/s)": "request_throughput",
    "output token throughput (tok/s)": "output_throughput", "total token throughput (tok/s)": "total_token_throughput",
    "peak output token throughput (tok/s)": "max_output_tokens_per_s",
    "peak concurrent requests": "max_concurrent_requests", "request goodput (req/s)": "request_goodput",
    "acceptance rate (%)": "spec_decode_acceptance_rate", "acceptance length": "spec_decode_acceptance_length",
    "drafts": "spec_decode_num_drafts", "draft tokens": "spec_decode_draft_tokens",
    "accepted tokens": "spec_decode_accepted_tokens",
}
_STAT = re.compile(r"^(mean|median|p\d+(?:\.\d+)?)\s+(ttft|tpot|itl|e2el)\s+\(ms\)$", re.I)
_ECHO = {"traffic request rate": "request_rate", "burstiness factor": "burstiness",
         "maximum request concurrency": "max_concurrency"}
_ARG = re.compile(r"\b(model|served_model_name|max_concurrency|request_rate|num_prompts|random_input_len|"
                  r"random_output_len|backend|dataset_name|burstiness)=('[^']*'|\"[^\"]*\"|[^,)\s]+)")
_ECHO_LINE = re.compile(r"^\s*(?P<key>Traffic request rate|Burstiness factor|Maximum request concurrency):\s+"
                        r"(?P<value>\S+)", re.I)


def matches(header, head: str = "") -> bool:
    """A console log of ``vllm bench serve``: its result banner in the first MiB."""
    return BANNER in head and "=" * 5 in head


def _value(text: str) -> Any:
    text = text.strip().strip("'\"")
    if text.lower() in ("none", "null"):
        return None
    if text.lower() == "inf":
        return "inf"
    value = num(text)
    return value if value is not None else text


def _echoed(line: str, args: dict) -> None:
    """Arguments echoed before a block: ``Namespace(model='...', ...)`` and the three lines the benchmark prints."""
    for key, value in _ARG.findall(line):
        args[key] = _value(value)
    found = _ECHO_LINE.match(line)
    if found:
        args[_ECHO[found["key"].lower()]] = _value(found["value"])


def _block(lines: list[tuple[int, str]], name: str) -> dict:
    obj: dict[str, Any] = {}
    for number, line in lines:
        found = _LINE.match(line)
        if not found:
            continue
        key, text = " ".join(found["key"].split()).lower(), found["value"]
        stat = _STAT.match(key)
        target = f"{stat[1].lower()}_{stat[2].lower()}_ms" if stat else _KEYS.get(key)
        if target is None:
            continue
        value = _value(text)
        if value is not None and not isinstance(value, (int, float)) and value != "inf":
            raise IngestError(name, f"not a number ({text[:40]!r})", line=number, field=found["key"].strip())
        obj[target] = value
    return obj


def parse(path: Path, name: str) -> tuple[Rows, list[str]]:
    """One row per result block of the log (see the module), read as :mod:`.vllm` reads its JSON."""
    from model.data.importers import vllm

    try:
        text = Path(path).read_text(encoding="utf-8-sig", errors="strict")
    except UnicodeDecodeError as exc:
        raise IngestError(name, f"not UTF-8 text (byte {exc.start}); save the log as UTF-8") from None
    args: dict[str, Any] = {}
    blocks: list[tuple[int, dict, dict]] = []
    inside, current, start, prefix = False, [], 0, ""
    for number, raw in enumerate(text.splitlines(), start=1):
        line = _ANSI.sub("", raw)
        if BANNER in line:          # a log prefix before the banner ("(APIServer pid=1) ") is before each line
            rule = re.search(r"={5,}", line)
            inside, current, start, prefix = True, [], number, line[:rule.start()] if rule else ""
            continue
        if inside and prefix and line.startswith(prefix):
            line = line[len(prefix):]
        if inside and re.fullmatch(r"\s*={10,}\s*", line):
            blocks.append((start, _block(current, name), dict(args)))
            inside = False
            continue
        if inside:
            current.append((number, line))
        else:
            _echoed(line, args)
    if inside and current:                         # a log cut after the block's last line
        blocks.append((start, _block(current, name), dict(args)))
    records = []
    for start, obj, echoed in blocks:
        if "completed" not in obj:
            raise IngestError(name, "the result block has no 'Successful requests' line", line=start)
        for key in ("max_concurrency", "request_rate", "burstiness", "num_prompts"):
            if key not in obj and echoed.get(key) is not None:
                obj[key] = echoed[key]
        model = echoed.get("served_model_name") or echoed.get("model")
        if model is not None:
            obj["model_id"] = str(model)
        if echoed.get("backend") is not None:
            obj["backend"] = str(echoed["backend"])
        obj.setdefault("request_throughput", obj.get("completed", 0) / obj["duration"]
                       if obj.get("duration") else None)
        records.append((start, obj))
    if not records:
        raise IngestError(name, f"no '{BANNER}' block with its closing line of '=' found")
    rows, notes = vllm.parse(records, name)
    notes = ["vllm bench serve console output: one row per result block, numbers as printed (2 decimals)",
             *notes]
    if any(row.get("model") is None for row in rows):
        notes.append("the log echoes no model: use --set model=...")
    return rows, notes


FORMATS = (Format("vllm_console", "text", matches, parse),)
