"""Evidence e = ⟨id, src, obs, r, q, λ, ρ, ω⟩ (Eq. 4) and uncertainty items."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import ConfigDict, Field, model_validator

from semv.model._base import Frozen
from semv.model._enums import (
    EvidenceKind,
    Modality,
    ProducerKind,
    SourceType,
    Stage,
    UncertaintyCode,
)
from semv.model._observation import Observation, ObservationBase, observation_from_data

_O = TypeVar("_O", bound=ObservationBase)

EVIDENCE_SCHEMA_VERSION = 2
"""2: the structured payload is the typed ``observation`` (a tagged union on ``kind``); 1 (before):
an untyped mapping ``data``, still accepted on input and mapped onto the union."""


def _legacy_data_in_schema(schema: dict[str, Any]) -> None:
    properties = schema.setdefault("properties", {})
    properties["data"] = {
        "deprecated": True,
        "description": "Schema version 1: the payload as an untyped mapping. Accepted on input "
        "and mapped onto 'observation' (by its 'kind' key); never written.",
        "type": "object",
        "additionalProperties": True,
    }


class Provenance(Frozen):
    """Provenance: who produced the item, from what, when, with which tool and version, URL."""

    producer: ProducerKind
    agent: str = Field(description="The tool, dataset, user or reviewer that produced it.")
    tool_version: str | None = None
    method: str = Field("", description="How it was produced (e.g. 'EXIF DateTimeOriginal').")
    derived_from: tuple[str, ...] = Field((), description="Asset or evidence ids it came from.")
    url: str | None = None
    retrieved_at: str | None = None


class MediaLocation(Frozen):
    """Where in the media the item looked: which asset, time span (s) or region (x, y, w, h in
    pixels)."""

    asset_id: str
    start_s: float | None = None
    end_s: float | None = None
    region: tuple[int, int, int, int] | None = None


class Evidence(Frozen):
    """One normalized, provenance-bearing evidence item (Eq. 4)."""

    model_config = ConfigDict(json_schema_extra=_legacy_data_in_schema)

    id: str = Field(pattern=r"^ev:[A-Za-z0-9_.:\-]+$")
    source: str = Field(description="Who the item comes from: a publisher, tool or dataset name.")
    source_type: SourceType
    modality: Modality
    content: str = Field(description="What the item says or shows, as text.")
    observation: Observation | None = Field(
        None,
        description="The structured payload (EXIF, forensic map, OCR text...), tagged by "
        "'kind'; None when the item is its text alone.",
    )
    reliability: float = Field(
        ge=0.0,
        le=1.0,
        description="How trustworthy the source is, from 0 (not at all) to 1 (fully).",
    )
    relevance: float = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description="How relevant the item is to a subclaim, from 0 to 1 (set when ranked).",
    )
    location: MediaLocation | None = None
    provenance: Provenance | None = None
    uncertainty: tuple[UncertaintyCode, ...] = ()
    url: str | None = None
    title: str | None = None
    published: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _from_schema_v1(cls, value: Any) -> Any:
        """Map the schema-v1 ``data`` mapping (old stored runs, review batches, evidence
        files) onto ``observation``."""
        if isinstance(value, dict) and "data" in value:
            value = dict(value)
            data = value.pop("data")
            if value.get("observation") is None:
                value["observation"] = observation_from_data(data, str(value.get("id", "")))
            elif data:
                raise ValueError("give either 'observation' or the legacy 'data', not both")
        return value

    @property
    def kind(self) -> EvidenceKind | None:
        """The observation's kind; None for an item that is its text alone."""
        return self.observation.kind if self.observation is not None else None

    def observed(self, cls: type[_O]) -> _O | None:
        """The observation when it is a ``cls``, else None."""
        return self.observation if isinstance(self.observation, cls) else None


class UncertaintyItem(Frozen):
    """A missing tool, unreadable media, failed retrieval, or an unresolved condition.

    Never evidence (DESIGN §4): it explains what could not be established and which stages
    it affects, so a reviewer can tell a factual conflict from a missing tool.
    """

    code: UncertaintyCode
    subject: str = Field(description="The id it concerns: an asset, a subclaim, an argument.")
    detail: str = ""
    stages: tuple[Stage, ...] = ()
