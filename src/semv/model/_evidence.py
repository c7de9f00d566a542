"""Evidence e = ⟨id, src, obs, r, q, λ, ρ, ω⟩ (Eq. 4) and uncertainty items."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from semv.model._base import Frozen
from semv.model._enums import Modality, ProducerKind, SourceType, Stage, UncertaintyCode


class Provenance(Frozen):
    """ρ_e: who produced the item, from what, when, with which tool and version, URL."""

    producer: ProducerKind
    agent: str = Field(description="The tool, dataset, user or reviewer that produced it.")
    tool_version: str | None = None
    method: str = Field("", description="How it was produced (e.g. 'EXIF DateTimeOriginal').")
    derived_from: tuple[str, ...] = Field((), description="Asset or evidence ids it came from.")
    url: str | None = None
    retrieved_at: str | None = None


class MediaLocation(Frozen):
    """λ_e: which asset, time span (s) or region (x, y, w, h in pixels) the item looked at."""

    asset_id: str
    start_s: float | None = None
    end_s: float | None = None
    region: tuple[int, int, int, int] | None = None


class Evidence(Frozen):
    """One normalized, provenance-bearing evidence item (Eq. 4)."""

    id: str = Field(pattern=r"^ev:[A-Za-z0-9_.:\-]+$")
    source: str = Field(description="src_e: publisher, tool, or dataset name.")
    source_type: SourceType
    modality: Modality
    content: str = Field(description="obs_e: the observed content, as text.")
    data: dict[str, Any] = Field(
        default_factory=dict,
        description="Structured observations (e.g. capture_time, latitude, longitude).",
    )
    reliability: float = Field(ge=0.0, le=1.0, description="r_e")
    relevance: float = Field(0.5, ge=0.0, le=1.0, description="q_e (per subclaim after ranking)")
    location: MediaLocation | None = None
    provenance: Provenance | None = None
    uncertainty: tuple[UncertaintyCode, ...] = ()
    url: str | None = None
    title: str | None = None
    published: str | None = None


class UncertaintyItem(Frozen):
    """A missing tool, unreadable media, failed retrieval, or an unresolved condition.

    Never evidence (DESIGN §4): it explains what could not be established and which stages
    it affects, so a reviewer can tell a factual conflict from a missing tool.
    """

    code: UncertaintyCode
    subject: str = Field(description="The id it concerns: an asset, a subclaim, an argument.")
    detail: str = ""
    stages: tuple[Stage, ...] = ()
