"""The canonical case bundle B_x (Eq. 1; Module A, §4.1)."""

from __future__ import annotations

import unicodedata
from typing import Final

from pydantic import Field, field_validator

from semv.model._base import Frozen
from semv.model._enums import MediaKind, SourceType

MAX_CASE_ID: Final = 200
"""Longest case id: ids appear in file names, tab-separated listings and report titles."""


def case_id_problem(value: str) -> str | None:
    """Why ``value`` cannot be a case id (empty, longer than MAX_CASE_ID, or holding a
    control, line-separator or other non-printable character), or None."""
    if not value.strip():
        return "is empty"
    if len(value) > MAX_CASE_ID:
        return f"is {len(value)} characters long (at most {MAX_CASE_ID})"
    for char in value:
        if unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"):
            return f"holds the non-printable character U+{ord(char):04X}"
    return None


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

    @field_validator("id")
    @classmethod
    def _printable_id(cls, value: str) -> str:
        problem = case_id_problem(value)
        if problem is not None:
            raise ValueError(f"case id {value[:60]!r} {problem}")
        return value

    media: tuple[Asset, ...] = ()
    context: Context = Context()
    evidence: tuple[SuppliedEvidence, ...] = ()
    adapter: str = Field("generic", description="δ: adapter name and output contract.")
    source_path: str | None = Field(None, description="Where the case was read from.")
