"""The canonical case bundle B_x (Eq. 1; Module A, §4.1)."""

from __future__ import annotations

from pydantic import Field

from semv.model._base import Frozen
from semv.model._enums import MediaKind, SourceType


class Asset(Frozen):
    """One image, video or audio file of a case. ``id`` is ``asset:<n>``."""

    id: str = Field(pattern=r"^asset:\d+$")
    path: str = Field(description="Absolute path of the file.")
    kind: MediaKind
    role: str = Field("primary", description="The asset's role in the case (primary, context...).")
    sha256: str | None = Field(
        None, description="SHA-256 of the file content; None when the file is not loaded."
    )
    position: int = Field(0, ge=0, description="Sequence position within the case.")
    loaded: bool = Field(
        True, description="False when the adapter runs text-only: the file is not read."
    )


class Context(Frozen):
    """Optional contextual metadata ζ."""

    date: str | None = Field(None, description="Claimed date of the event, as given.")
    location: str | None = Field(None, description="Claimed place, as given.")
    source_url: str | None = None
    language: str | None = Field(None, description="Language hint (ISO 639-1).")


class SuppliedEvidence(Frozen):
    """Evidence 𝓔^(0) supplied with the case, before normalization into ``Evidence``."""

    id: str | None = None
    text: str = Field(min_length=1)
    url: str | None = None
    title: str | None = None
    publisher: str | None = None
    published: str | None = None
    source_type: SourceType = SourceType.SUPPLIED
    reliability: float | None = Field(None, ge=0.0, le=1.0)
    about_asset: str | None = Field(
        None, description="Asset id this evidence describes (e.g. a prior caption of an image)."
    )


class Case(Frozen):
    """x = ⟨V_x, c_0, ζ, 𝓔^(0), δ⟩ (Eq. 1). Holds no gold label: gold stays with the adapter."""

    id: str = Field(min_length=1)
    claim: str = Field(min_length=1, description="The main textual claim c_0.")
    media: tuple[Asset, ...] = ()
    context: Context = Context()
    evidence: tuple[SuppliedEvidence, ...] = ()
    adapter: str = Field("generic", description="δ: adapter name and output contract.")
    source_path: str | None = Field(None, description="Where the case was read from.")
