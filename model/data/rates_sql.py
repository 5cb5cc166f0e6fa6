"""The throughput arithmetic of ingest, as SQL over the staged rows: derivations and like-with-like checks.

Every throughput has a denominator: the whole system [tok/s], every GPU of the row
[tok/s/GPU: system / ``gpus``], or, for a disaggregated row, the GPUs of one role
(input per prefill GPU, output per decode GPU: :data:`model.core.schema.ROLE_RATES`).
A value a file states is kept; a missing one is derived only by converting
between these denominators (system = per GPU x GPUs = role rate x role GPUs).

Checks compare like with like. Input or output above total refuses the file only
when both are per system or per GPU of all roles as stated (a contradiction between
values of one denominator). System rates derived from per-role rates are only
cross-checked against the total, with a warning naming the rows: a role count the
file states differently from the one its rates were divided by is not an
impossible value.
"""

from __future__ import annotations

from typing import Any

import duckdb

from model.core.schema import ROLE_RATES

__all__ = ["derive_sql", "part_probes", "role_gap", "role_cross_check", "ROLE_TOLERANCE", "PART_TOLERANCE"]

#: relative slack when checking that input or output tok/s do not exceed total tok/s (rounding in files)
PART_TOLERANCE = 1e-3
#: role-derived input + output may differ from the stated total by this much [fraction] without a warning
ROLE_TOLERANCE = 0.01

_ROLES = "(disaggregated AND gpus_prefill > 0 AND gpus_decode > 0)"
_PARTS = {"input": "input_tokens_per_second_per_prefill_gpu", "output": "output_tokens_per_second_per_decode_gpu"}


def _count(role: str) -> str:
    return ROLE_RATES[role][1]


def derive_sql(inner: str) -> str:
    """Three SELECT levels over ``inner`` (the mapped rows, stated values only).

    1. Interactivity = 1000 / TPOT, success rate = completed / (completed + failed); a disaggregated
       row's input (output) tok/s/GPU is per prefill (decode) GPU (InferenceX's convention), so it
       moves to the role column unless the file filled that column itself.
    2. System tok/s = stated, else per GPU x ``gpus``, else role rate x role GPUs; ``_all_<part>``
       keeps the system value from stated system or all-GPU values only (for the refusal check)
       and ``_role_<part>`` says the system value came from a role rate.
    3. tok/s/GPU = system / ``gpus`` (all GPUs of both roles); role rate = system / role GPUs.
    """
    one = ["coalesce(interactivity, 1000.0 / tpot_median_ms) AS interactivity",
           "coalesce(success_rate, CAST(requests_completed AS DOUBLE) "
           "/ NULLIF(requests_completed + requests_failed, 0)) AS success_rate"]
    two, extra, three = [], [], []
    for part, role in _PARTS.items():
        per_gpu, count = ROLE_RATES[role][0], _count(role)
        one.append(f"coalesce({role}, CASE WHEN {_ROLES} THEN {per_gpu} END) AS {role}")
        one.append(f"CASE WHEN {_ROLES} AND {role} IS NULL THEN NULL ELSE {per_gpu} END AS {per_gpu}")
    for basis in ("total", "output", "input"):
        per_gpu, system = f"{basis}_tokens_per_second_per_gpu", f"{basis}_tokens_per_second"
        stated = f"coalesce({system}, {per_gpu} * NULLIF(gpus, 0))"
        extra.append(f"{stated} AS _all_{basis}")
        if basis in _PARTS:
            role, count = _PARTS[basis], _count(_PARTS[basis])
            from_role = f"{role} * CASE WHEN disaggregated AND {count} > 0 THEN {count} END"
            two.append(f"coalesce({stated}, {from_role}) AS {system}")
            extra.append(f"({stated} IS NULL AND {from_role} IS NOT NULL) AS _role_{basis}")
            three.append(f"coalesce({role}, CASE WHEN disaggregated AND {count} > 0 THEN {system} / {count} END) "
                         f"AS {role}")
        else:
            two.append(f"{stated} AS {system}")
        three.append(f"coalesce({per_gpu}, {system} / NULLIF(gpus, 0)) AS {per_gpu}")
    level1 = f"SELECT * REPLACE ({', '.join(one)}) FROM ({inner}) base"
    level2 = f"SELECT * REPLACE ({', '.join(two)}), {', '.join(extra)} FROM ({level1}) roles"
    return f"SELECT * REPLACE ({', '.join(three)}) FROM ({level2}) systems"


def part_probes() -> list[tuple[str, str, str]]:
    """Refusals (condition, field, message): a part above its total, both of one denominator as stated."""
    probes = []
    for part in ("output", "input"):
        # the parts of a throughput cannot exceed it (a per-request rate read as a system rate does)
        per_gpu_only = (f"(gpus IS NULL AND {part}_tokens_per_second_per_gpu > "
                        f"total_tokens_per_second_per_gpu * {1 + PART_TOLERANCE!r})")
        probes.append((f"(_all_{part} > _all_total * {1 + PART_TOLERANCE!r} OR {per_gpu_only})",
                       f"{part}_tokens_per_second",
                       f"{part} tok/s exceeds total tok/s (input + output), both per system or per GPU of "
                       "all roles; check that both are system throughputs over the same wall time"))
    return probes


def role_gap() -> str:
    """The condition on a staged row that :func:`role_cross_check` warns about (the ingest's validation
    pass counts it, so the check's own query runs only when some row meets it)."""
    return ("(_role_input OR _role_output) AND abs(input_tokens_per_second + output_tokens_per_second "
            f"- total_tokens_per_second) > {ROLE_TOLERANCE!r} * total_tokens_per_second")


def role_cross_check(con: duckdb.DuckDBPyConnection, select: str, params: list[Any], shown: int = 5) -> list[str]:
    """A warning naming the rows whose role-derived input + output disagrees with the total by over 1 %."""
    lines, worst = con.execute(
        f"SELECT list(source_line ORDER BY source_line), max(abs((input_tokens_per_second + output_tokens_per_second)"
        f" / total_tokens_per_second - 1)) FROM ({select}) staged WHERE {role_gap()}",
        params).fetchone()
    if not lines:
        return []
    more = f" and {len(lines) - shown} more" if len(lines) > shown else ""
    return [f"{len(lines)} disaggregated row{'s' if len(lines) > 1 else ''} (line "
            f"{', '.join(str(n) for n in lines[:shown])}{more}): input per prefill GPU x prefill GPUs + output per "
            f"decode GPU x decode GPUs differs from total per GPU x all GPUs by up to {worst:.0%}; the rates are "
            "stored as stated (their role GPU counts may not be the ones the file states)"]
