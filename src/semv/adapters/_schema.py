"""The input schema of a generic case folder (DESIGN §4): ``case.yaml``/``case.json``, gold file.

These models describe what a user writes, not the internal model: they forbid unknown keys, accept
YAML dates for date fields, and are converted to ``semv.model.Case`` by the generic adapter.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from semv.model import InternalLabel, SourceType

__all__ = ["CaseFile", "ContextEntry", "EvidenceEntry", "GoldFile", "MediaEntry"]


def _date_as_text(value: object) -> object:
    """YAML reads ``2024-03-14`` as a date: keep it as the ISO text the user wrote."""
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat()
    return value


DateText = Annotated[str, BeforeValidator(_date_as_text)]
"""A date as given (free text or ISO), also accepting a YAML date value."""

NonBlank = Annotated[str, Field(min_length=1)]
"""A string with at least one non-space character (input models strip whitespace)."""


class _Input(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)


class MediaEntry(_Input):
    """One media file of the case."""

    path: NonBlank = Field(description="File path relative to the case folder.")
    role: NonBlank = Field("primary", description="Role of the file (primary, context, ...).")


class ContextEntry(_Input):
    """Claimed context of the media."""

    date: DateText | None = None
    location: str | None = None
    source_url: str | None = None
    language: str | None = Field(None, description="ISO 639-1 language hint.")


class EvidenceEntry(_Input):
    """One supplied evidence item."""

    id: NonBlank | None = None
    url: str | None = None
    title: str | None = None
    publisher: str | None = None
    published: DateText | None = None
    text: NonBlank
    source_type: SourceType = SourceType.SUPPLIED
    reliability: float | None = Field(None, ge=0.0, le=1.0)
    about_asset: str | None = Field(
        None, pattern=r"^asset:\d+$", description="Asset id the item describes (asset:1...)."
    )


def _aware_datetime(value: object) -> object:
    """A release time: an ISO 8601 date-time with its UTC offset (``2026-05-04T09:00:00Z``)."""
    if isinstance(value, dt.datetime):
        value = value.isoformat()
    if not isinstance(value, str):
        raise ValueError("expected an ISO 8601 date-time")
    try:
        parsed = dt.datetime.fromisoformat(value.strip())
    except ValueError as exc:
        raise ValueError(f"{value!r} is not an ISO 8601 date-time") from exc
    if parsed.tzinfo is None:
        raise ValueError(f"{value!r} has no UTC offset (add Z or +hh:mm)")
    return parsed.astimezone(dt.UTC).isoformat()


ReleaseTime = Annotated[str, BeforeValidator(_aware_datetime)]
"""When a case was released to the verifiers (MV2026's T of Eq. 32 counts from it), in UTC."""


class CaseFile(_Input):
    """``case.yaml`` / ``case.json``."""

    id: NonBlank | None = Field(None, description="Case id; defaults to the folder name.")
    released: ReleaseTime | None = Field(
        None, description="When the case was released (ISO 8601 with offset; MV2026 Eq. 32)."
    )
    claim: NonBlank
    media: tuple[MediaEntry, ...] = ()
    context: ContextEntry = ContextEntry()
    evidence: tuple[EvidenceEntry, ...] = ()


class GoldFile(_Input):
    """``gold.yaml`` / ``gold.json``: the gold annotation, kept apart from the case."""

    label: InternalLabel
    rationale: str | None = None
