"""The data model: one row per measured load point of one benchmark run.

Defined once as a pydantic model (validation at the edge, :class:`BenchmarkPoint`)
and once as the DuckDB table (:data:`POINTS_DDL`). Units live in the field names.
"""

from __future__ import annotations

import math
from datetime import date
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from model.core.hardware import canonical_hardware

__all__ = [
    "BenchmarkPoint",
    "POINT_FIELDS",
    "MEASUREMENT_FIELDS",
    "SQL_TYPES",
    "POINTS_DDL",
    "SOURCES_DDL",
    "COST_PROFILES_DDL",
    "PROFILE_VERSIONS_DDL",
    "VERSIONS_DDL",
    "PINS_DDL",
    "SCHEMA_VERSION",
    "ROLE_RATES",
    "MIGRATIONS",
    "canonical_spec_decoding",
    "canonical_precision",
    "MIN_TOKENS_PER_SECOND_PER_GPU",
]

#: the least throughput a stored point may have [tok/s/GPU]: below it a value is a unit slip or noise, and node
#: counts for a demand would run past any number (a throughput of 1e-300 once overflowed the sizing)
MIN_TOKENS_PER_SECOND_PER_GPU = 1e-3

SCHEMA_VERSION = 5
"""1: the first marked layout. 2: per-role rates of disaggregated rows. 3: the date each TCO rate was read
(``tco_rates.read_on``). 4: numbered data versions (see :data:`MIGRATIONS`). 5: the median ITL of a point
(``points.itl_median_ms``, appended empty: a file ingested before stated it in ``extra`` at most)."""

#: Measured quantities; a point needs at least one of them.
MEASUREMENT_FIELDS = (
    "total_tokens_per_second_per_gpu",
    "output_tokens_per_second_per_gpu",
    "input_tokens_per_second_per_gpu",
    "total_tokens_per_second",
    "output_tokens_per_second",
    "input_tokens_per_second",
    "interactivity",
    "tpot_median_ms",
    "input_tokens_per_second_per_prefill_gpu",
    "output_tokens_per_second_per_decode_gpu",
)

#: Rates of one role of a disaggregated (prefill/decode) row and the GPU count they are per:
#: per-role field -> (the all-GPU per-GPU field of the same tokens, the role's GPU count field).
ROLE_RATES = {
    "input_tokens_per_second_per_prefill_gpu": ("input_tokens_per_second_per_gpu", "gpus_prefill"),
    "output_tokens_per_second_per_decode_gpu": ("output_tokens_per_second_per_gpu", "gpus_decode"),
}

_SPEC_ALIASES = {
    "": "none", "none": "none", "no": "none", "off": "none", "false": "none", "null": "none",
    "mtp": "mtp", "eagle": "eagle", "eagle3": "eagle3", "ngram": "ngram", "medusa": "medusa",
    "draft": "draft_model", "draft_model": "draft_model", "dflash": "dflash",
}


def canonical_spec_decoding(value: str | None) -> str | None:
    """Canonical speculative-decoding method: ``none``, ``mtp``, ``eagle``, ...

    ``"mtp (5/1/6)"`` becomes ``mtp`` (the step/topk/draft config is kept by the
    caller in ``extra``). Unknown methods are lower-cased and kept.
    """
    if value is None:
        return None
    text = str(value).strip().lower()
    head = text.split("(")[0].strip().replace("-", "_").replace(" ", "_")
    return _SPEC_ALIASES.get(head, head or "none")


def canonical_precision(value: str | None) -> str | None:
    """Lower-case precision label (``fp8``, ``fp4``, ``mxfp4``, ``bf16``, ...)."""
    if value is None:
        return None
    text = str(value).strip().lower().replace("-", "").replace("_", "")
    return {"bfloat16": "bf16", "float16": "fp16", "nvfp4": "fp4"}.get(text, text) or None


class BenchmarkPoint(BaseModel):
    """One measured load point of one benchmark run.

    Fields a file lacks stay ``None``; nothing is invented. The only derived
    values are unit normalisations done by :meth:`_normalise`:
    interactivity = 1000 / tpot_median_ms, tokens/s/GPU = tokens/s / gpus (all GPUs of
    both roles), and for disaggregated rows tokens/s = role rate x role GPUs and back
    (input per prefill GPU, output per decode GPU: :data:`ROLE_RATES`).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    # workload
    model: str | None = None
    isl: int | None = Field(None, ge=0, description="input sequence length [tokens]")
    osl: int | None = Field(None, ge=0, description="output sequence length [tokens]")
    prefix_cache_hit_rate: float | None = Field(None, ge=0, le=1, description="[fraction]")
    scenario: str | None = None
    # system
    hardware: str = Field(description="canonical GPU name, e.g. B200, MI355X")
    gpus: int | None = Field(None, gt=0, description="GPUs serving this point")
    gpus_prefill: int | None = Field(None, ge=0, description="prefill GPUs (disaggregated)")
    gpus_decode: int | None = Field(None, ge=0, description="decode GPUs (disaggregated)")
    # recipe
    framework: str | None = None
    framework_version: str | None = None
    precision: str | None = None
    spec_decoding: str | None = None
    tp: int | None = Field(None, gt=0)
    ep: int | None = Field(None, gt=0)
    dp: int | None = Field(None, gt=0)
    pp: int | None = Field(None, gt=0)
    disaggregated: bool | None = None
    kv_cache_dtype: str | None = None
    tags: str | None = None
    # load
    concurrency: float | None = Field(None, gt=0, description="configured max concurrency [requests]")
    request_rate_rps: float | None = Field(None, gt=0, description="offered request rate [req/s]; None = unbounded")
    # measurements
    total_tokens_per_second_per_gpu: float | None = Field(None, gt=0, ge=MIN_TOKENS_PER_SECOND_PER_GPU,
                                                        description="[tok/s/GPU]")
    output_tokens_per_second_per_gpu: float | None = Field(None, gt=0, ge=MIN_TOKENS_PER_SECOND_PER_GPU,
                                                        description="[tok/s/GPU]")
    input_tokens_per_second_per_gpu: float | None = Field(None, gt=0, ge=MIN_TOKENS_PER_SECOND_PER_GPU,
                                                        description="[tok/s/GPU]")
    total_tokens_per_second: float | None = Field(None, gt=0, description="whole system [tok/s]")
    output_tokens_per_second: float | None = Field(None, gt=0, description="whole system [tok/s]")
    input_tokens_per_second: float | None = Field(None, gt=0, description="whole system [tok/s]")
    interactivity: float | None = Field(None, gt=0, description="1000 / median TPOT [tok/s/user]")
    ttft_p50_s: float | None = Field(None, ge=0, description="[s]")
    ttft_p90_s: float | None = Field(None, ge=0, description="[s]")
    ttft_p95_s: float | None = Field(None, ge=0, description="[s]")
    ttft_p99_s: float | None = Field(None, ge=0, description="[s]")
    tpot_median_ms: float | None = Field(None, gt=0, description="[ms]")
    e2e_latency_median_s: float | None = Field(None, ge=0, description="[s]")
    requests_completed: int | None = Field(None, ge=0)
    requests_failed: int | None = Field(None, ge=0)
    success_rate: float | None = Field(None, ge=0, le=1, description="[fraction]")
    power_per_gpu_w: float | None = Field(None, gt=0, description="average [W/GPU]")
    published_usd_per_mtok: float | None = Field(None, gt=0, description="the source's own $/M tokens")
    # provenance (per row; the file itself is in the sources table)
    source_line: int | None = None
    run_date: date | None = None
    url: str | None = None
    notes: str | None = None
    extra: str | None = Field(None, description="JSON object of columns the importer did not know")
    # per-role rates of disaggregated rows (appended last: older databases gain them as trailing columns)
    input_tokens_per_second_per_prefill_gpu: float | None = Field(
        None, gt=0, ge=MIN_TOKENS_PER_SECOND_PER_GPU, description="disaggregated: input tok/s per prefill GPU [tok/s/GPU]")
    output_tokens_per_second_per_decode_gpu: float | None = Field(
        None, gt=0, ge=MIN_TOKENS_PER_SECOND_PER_GPU, description="disaggregated: output tok/s per decode GPU [tok/s/GPU]")
    # the time between streamed chunks (schema 5): with speculative decoding a chunk carries several tokens, so it
    # can be several times the TPOT; the view's "interactivity from" chooses which one the frontier reads
    itl_median_ms: float | None = Field(None, gt=0, description="median inter-token latency, between chunks [ms]")

    @field_validator("hardware", mode="before")
    @classmethod
    def _hardware(cls, value: Any) -> str:
        name = canonical_hardware(value)
        if not name:
            raise ValueError("hardware is empty")
        return name

    @field_validator("spec_decoding", mode="before")
    @classmethod
    def _spec(cls, value: Any) -> Any:
        return canonical_spec_decoding(value) if isinstance(value, str) else value

    @field_validator("precision", mode="before")
    @classmethod
    def _precision(cls, value: Any) -> Any:
        return canonical_precision(value) if isinstance(value, str) else value

    @field_validator("framework", mode="before")
    @classmethod
    def _framework(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("*", mode="before")
    @classmethod
    def _finite(cls, value: Any) -> Any:
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError("must be a finite number (got NaN or infinity)")
        return value

    @model_validator(mode="after")
    def _normalise(self) -> "BenchmarkPoint":
        if not any(getattr(self, f) is not None for f in (*MEASUREMENT_FIELDS, "ttft_p50_s", "request_rate_rps")):
            raise ValueError(
                "no measurement: need a throughput (tok/s or tok/s/GPU), interactivity or TPOT"
            )
        derived: dict[str, Any] = {}
        if self.interactivity is None and self.tpot_median_ms is not None:
            derived["interactivity"] = 1000.0 / self.tpot_median_ms
        value = {f: getattr(self, f) for f in MEASUREMENT_FIELDS}
        roles = self.disaggregated and self.gpus_prefill and self.gpus_decode
        for role, (per_gpu, count) in ROLE_RATES.items():
            if roles and value[role] is None and value[per_gpu] is not None:
                # a disaggregated row's input/output per GPU is per GPU of its role (InferenceX's convention)
                derived[role], derived[per_gpu] = value[per_gpu], None
                value[role], value[per_gpu] = value[per_gpu], None
        for basis in ("total", "output", "input"):
            per_gpu, system = f"{basis}_tokens_per_second_per_gpu", f"{basis}_tokens_per_second"
            role = next((r for r, (g, _) in ROLE_RATES.items() if g == per_gpu), None)
            count = getattr(self, ROLE_RATES[role][1]) if role and self.disaggregated else None
            if value[system] is None and value[per_gpu] is not None and self.gpus:
                value[system] = derived[system] = value[per_gpu] * self.gpus
            elif value[system] is None and role and value[role] is not None and count:
                value[system] = derived[system] = value[role] * count
            if value[per_gpu] is None and value[system] is not None and not self.gpus and \
                    not (role and value[role] is not None):
                raise ValueError(f"{basis} tok/s is per system but the GPU count is unknown: "
                                 "add a 'gpus' column or --set gpus=N")
            if value[per_gpu] is None and value[system] is not None and self.gpus:
                derived[per_gpu] = value[system] / self.gpus
                if derived[per_gpu] < MIN_TOKENS_PER_SECOND_PER_GPU:   # the floor holds for a derived rate too
                    raise ValueError(f"{system} gives under {MIN_TOKENS_PER_SECOND_PER_GPU:g} tok/s per GPU, "
                                     "the least a point may have")
            if role and value[role] is None and value[system] is not None and count:
                derived[role] = value[system] / count
        if derived:
            # frozen model: bypass __setattr__ for the normalised values
            for key, value in derived.items():
                object.__setattr__(self, key, value)
        return self


def _sql_type(annotation: Any) -> str:
    text = str(annotation)
    if "bool" in text:
        return "BOOLEAN"
    if "int" in text:
        return "BIGINT"
    if "float" in text:
        return "DOUBLE"
    if "date" in text:
        return "DATE"
    return "VARCHAR"


#: Field names of :class:`BenchmarkPoint`, in table column order.
POINT_FIELDS: tuple[str, ...] = tuple(BenchmarkPoint.model_fields)
SQL_TYPES: dict[str, str] = {
    name: _sql_type(info.annotation) for name, info in BenchmarkPoint.model_fields.items()
}

SOURCES_DDL = """
CREATE TABLE IF NOT EXISTS sources (
    source_id     BIGINT PRIMARY KEY,
    file_name     VARCHAR NOT NULL,
    format        VARCHAR NOT NULL,
    kind          VARCHAR NOT NULL,      -- points | tco_rates | evals | published_iso | api_prices | actuals
    sha256        VARCHAR NOT NULL UNIQUE,
    rows          BIGINT NOT NULL,
    ingested_at   TIMESTAMP NOT NULL,
    notes         VARCHAR,
    set_fields    VARCHAR,               -- JSON of --set key=value given at ingest
    added_in      BIGINT,                -- the data version that added it (model.data.versions)
    removed_in    BIGINT,                -- the version that hid it (remove); NULL while shown
    purged_in     BIGINT                 -- the version that deleted its rows for good (purge)
)
"""

COST_PROFILES_DDL = """
CREATE TABLE IF NOT EXISTS cost_profiles (
    name              VARCHAR PRIMARY KEY,   -- unique profile name; series are priced by it
    hardware          VARCHAR NOT NULL,      -- canonical GPU name
    kind              VARCHAR NOT NULL,      -- rate | on-prem
    usd_per_gpu_hour  DOUBLE,                -- effective $/GPU-hour when saved; NULL = unpriced
    inputs            VARCHAR NOT NULL,      -- JSON of the whole profile (model.core.cost_profiles.CostProfile)
    source            VARCHAR,               -- provenance of the numbers
    saved_by          VARCHAR NOT NULL,      -- cli | dashboard | ...
    saved_at          TIMESTAMP NOT NULL     -- UTC
)
"""

#: one row per committed write: the data version (model.data.versions)
VERSIONS_DDL = """
CREATE TABLE IF NOT EXISTS store_versions (
    version    BIGINT PRIMARY KEY,   -- 1, 2, ...: one per committed write transaction
    "at"       TIMESTAMP NOT NULL,   -- UTC
    action     VARCHAR NOT NULL,     -- ingest | upload | remove | load-samples | profile | api-price | purge | migrate
    what       VARCHAR,              -- file names, source ids, profile names
    "by"       VARCHAR,              -- the CLI command or dashboard page
    user_name  VARCHAR               -- COSTFRONTIER_USER or the deployment's user header; NULL when unknown
)
"""

#: every saved state of every cost profile: the profiles of version N are the rows with version <= N < removed_in
PROFILE_VERSIONS_DDL = """
CREATE TABLE IF NOT EXISTS cost_profile_versions (
    version BIGINT NOT NULL, removed_in BIGINT, name VARCHAR NOT NULL, hardware VARCHAR NOT NULL,
    kind VARCHAR NOT NULL, usd_per_gpu_hour DOUBLE, inputs VARCHAR NOT NULL, source VARCHAR,
    saved_by VARCHAR NOT NULL, saved_at TIMESTAMP NOT NULL
)
"""

#: the versions pinned links and reports name, recorded so that purge keeps what they show
PINS_DDL = """
CREATE TABLE IF NOT EXISTS pins (
    version BIGINT NOT NULL, "at" TIMESTAMP NOT NULL, what VARCHAR, "by" VARCHAR, user_name VARCHAR
)
"""

POINTS_DDL = (
    "CREATE TABLE IF NOT EXISTS points (\n    point_id BIGINT NOT NULL,  -- source_id * 1e10 + ordinal: unique by construction; no index to keep up\n"
    "    source_id BIGINT NOT NULL,\n"
    + ",\n".join(f"    {name} {SQL_TYPES[name]}" for name in POINT_FIELDS)
    + "\n)"
)

#: field -> (warn above, refuse above). Values past "warn" are possible but suspicious
#: (accepted with a warning); values past "refuse" are not physical for one GPU or user.
PLAUSIBILITY: dict[str, tuple[float, float]] = {
    "total_tokens_per_second_per_gpu": (100_000.0, 10_000_000.0),
    "output_tokens_per_second_per_gpu": (50_000.0, 10_000_000.0),
    "input_tokens_per_second_per_gpu": (100_000.0, 10_000_000.0),
    "input_tokens_per_second_per_prefill_gpu": (1_000_000.0, 10_000_000.0),
    "output_tokens_per_second_per_decode_gpu": (50_000.0, 10_000_000.0),
    "total_tokens_per_second": (10_000_000.0, 1e10),
    "output_tokens_per_second": (5_000_000.0, 1e10),
    "input_tokens_per_second": (10_000_000.0, 1e10),
    "interactivity": (2_000.0, 100_000.0),
    "ttft_p50_s": (300.0, 86_400.0),
    "ttft_p90_s": (300.0, 86_400.0),
    "ttft_p95_s": (300.0, 86_400.0),
    "ttft_p99_s": (300.0, 86_400.0),
    "e2e_latency_median_s": (3_600.0, 86_400.0),
    "power_per_gpu_w": (3_000.0, 100_000.0),
    "gpus": (4_096.0, 1_000_000.0),
    "concurrency": (100_000.0, 1e9),
    "published_usd_per_mtok": (1_000.0, 1e6),
}

#: Data steps run once when an older database is migrated to :data:`SCHEMA_VERSION` (after the new
#: columns are appended): version -> statements. Up to version 1 a disaggregated row kept its input
#: (output) rate per prefill (decode) GPU in the per-GPU column; from 2 that rate has its own column
#: and the per-GPU columns are per GPU of both roles, system tok/s / gpus (the system rates were
#: stored as role rate x role GPUs, so nothing is recomputed from a guess).
#: From 3 every write is a numbered data version: what a store held before is version 1.
MIGRATIONS: dict[int, tuple[str, ...]] = {
    2: tuple(
        f"UPDATE points SET {role} = {per_gpu}, {per_gpu} = {per_gpu.replace('_per_gpu', '')} / gpus "
        f"WHERE disaggregated AND {count} > 0 AND gpus > 0 AND {role} IS NULL AND {per_gpu} IS NOT NULL"
        for role, (per_gpu, count) in ROLE_RATES.items()
    ),
    # --- 3, dated assumptions.
    # The trailing column tco_rates.read_on (the date a rate was read) is appended empty by the migration
    # plan; a row whose price set is a month (YYYY-MM) or a day (YYYY-MM-DD) gets that month's first day,
    # resp. that day: the rule data/samples/README.md names ("the earliest day it could have been read"),
    # the same one ingest applies to a rates file without a read_on column. Other price sets stay undated.
    3: (
        "UPDATE tco_rates SET read_on = try_cast(price_set || '-01' AS DATE) "
        "WHERE read_on IS NULL AND regexp_full_match(price_set, '[0-9]{4}-[0-9]{2}')",
        "UPDATE tco_rates SET read_on = try_cast(price_set AS DATE) "
        "WHERE read_on IS NULL AND regexp_full_match(price_set, '[0-9]{4}-[0-9]{2}-[0-9]{2}')",
    ),
    # --- 4, numbered data versions: what the store held becomes version 1.
    4: (
        "INSERT INTO store_versions SELECT 1, CAST(timezone('UTC', now()) AS TIMESTAMP), 'migrate', "
        "'what the store held when versions began: ' || (SELECT count(*) FROM sources) || ' sources, ' || "
        "(SELECT count(*) FROM cost_profiles) || ' cost profiles', 'migration', NULL "
        "WHERE NOT EXISTS (SELECT 1 FROM store_versions) "
        "AND (SELECT count(*) FROM sources) + (SELECT count(*) FROM cost_profiles) > 0",
        "UPDATE sources SET added_in = 1 WHERE added_in IS NULL",
        "INSERT INTO cost_profile_versions SELECT 1, NULL, * FROM cost_profiles",
    ),
    # --- 5, the median ITL beside the median TPOT: the column is appended empty by the migration plan; nothing is
    # derived for rows stored before (their files' ITL, where they had one, is in extra as the file named it)
    5: (),
}
