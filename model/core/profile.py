"""A cost profile: a named way to pay for one hardware's GPU (a plain $/GPU-hour or an on-prem build-up),
validated with readable messages. How profiles price series and travel through tables and links:
:mod:`model.core.cost_profiles`."""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from model.core.hardware import canonical_hardware
from model.core.limits import MAX_USD_PER_GPU_HOUR, MIN_USD_PER_GPU_HOUR
from model.core.names import MAX_NAME_LENGTH, name_problem
from model.core.tco import OnPremInputs, TcoBreakdown, TcoInputError, build_up, explain_validation

__all__ = ["PROFILE_KINDS", "CostProfile", "cost_profile", "profile_of", "unique_profiles"]

PROFILE_KINDS = ("rate", "on-prem")


class CostProfile(BaseModel):
    """A named way to pay for one hardware's GPU: a plain $/GPU-hour or an on-prem build-up.

    Attributes
    ----------
    name : str  unique label, e.g. ``"H200 on-prem 5y"``; prices series by name
    hardware : str  canonical GPU name (``h200`` -> ``H200``)
    usd_per_gpu_hour : float, optional  a plain rate [$/GPU-hour] (preset, cloud quote)
    onprem : OnPremInputs, optional  the build-up instead of a plain rate
    source : str  where the numbers come from (provenance), e.g. ``"SemiAnalysis 2025-08 owning_hyperscaler"``

    Neither a rate nor a build-up (or a build-up without a server price) is an *unpriced* profile.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(description="profile name", min_length=1, max_length=MAX_NAME_LENGTH)
    hardware: str = Field(description="GPU (canonical name)")
    usd_per_gpu_hour: float | None = Field(None, description="plain rate [$/GPU-hour]", ge=MIN_USD_PER_GPU_HOUR,
                                           le=MAX_USD_PER_GPU_HOUR)
    onprem: OnPremInputs | None = None
    source: str = Field("", description="provenance of the numbers", max_length=300)

    @field_validator("name", mode="before")
    @classmethod
    def _name(cls, value):
        if isinstance(value, str):
            problem = name_problem(value)
            if problem:
                raise ValueError(problem)
            value = " ".join(value.split())   # runs of spaces (a non-breaking one too) become one
        return value

    @field_validator("source", mode="before")
    @classmethod
    def _text(cls, value):
        if isinstance(value, str):
            value = " ".join(value.split())   # provenance may be pasted over several lines
            if not value.isprintable():
                raise ValueError("must not hold control characters")
        return value

    @field_validator("hardware", mode="before")
    @classmethod
    def _hardware(cls, value):
        name = canonical_hardware(value)
        if not name:
            raise ValueError("is empty: name the GPU, e.g. H200")
        return name

    @field_validator("usd_per_gpu_hour", mode="before")
    @classmethod
    def _rate(cls, value):
        if isinstance(value, float) and not math.isfinite(value):
            return None
        return value

    @model_validator(mode="after")
    def _one_way(self) -> "CostProfile":
        if self.usd_per_gpu_hour is not None and self.onprem is not None:
            raise ValueError(f"profile {self.name!r}: give a plain $/GPU-hour or an on-prem build-up, not both")
        return self

    @property
    def kind(self) -> str:
        """``"on-prem"`` or ``"rate"``."""
        return "on-prem" if self.onprem is not None else "rate"

    def breakdown(self) -> TcoBreakdown | None:
        """The build-up of an on-prem profile; ``None`` for a plain rate."""
        return build_up(self.onprem) if self.onprem is not None else None

    def rate(self) -> float | None:
        """The $/GPU-hour that prices tokens (on-prem: effective, ÷ utilisation); ``None`` when unpriced."""
        if self.onprem is None:
            return self.usd_per_gpu_hour
        value = build_up(self.onprem).usd_per_gpu_hour
        return value if math.isfinite(value) else None

    def paid_rate(self) -> float | None:
        """The $/GPU-hour paid for every hour a GPU exists (on-prem: at full use); ``None`` when unpriced.

        A fleet's $/month is GPUs × this × 730: idle hours cost the same as busy ones.
        """
        if self.onprem is None:
            return self.usd_per_gpu_hour
        value = build_up(self.onprem).usd_per_gpu_hour_full_use
        return value if math.isfinite(value) else None


def cost_profile(**values) -> CostProfile:
    """:class:`CostProfile` from keyword values, raising :class:`TcoInputError` with readable messages."""
    return profile_of(values, f"cost profile {values.get('name')!r}")


def profile_of(values: dict, what: str) -> CostProfile:
    """:class:`CostProfile` of ``values``; a :class:`TcoInputError` naming ``what`` and each broken field."""
    try:
        return CostProfile(**values)
    except ValidationError as exc:
        raise explain_validation(exc, what, CostProfile.model_fields) from None


def unique_profiles(profiles) -> list[CostProfile]:
    """``profiles`` as a list, refused (:class:`TcoInputError`) when two share a name."""
    profiles = list(profiles)
    seen: set[str] = set()
    for p in profiles:
        if p.name in seen:
            raise TcoInputError(f"two cost profiles are named {p.name!r}; profile names must be unique")
        seen.add(p.name)
    return profiles
