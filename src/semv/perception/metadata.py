"""EXIF / XMP / QuickTime metadata of one asset, as evidence (``media:<asset>`` extractor).

``read_metadata`` yields at most one evidence item ``ev:exif:<asset id>`` with capture time, GPS
position, camera and software. Everything that could not be established is an
``UncertaintyItem`` (missing exiftool, unreadable file, no metadata, invalid GPS), never an
exception and never evidence (DESIGN §4).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from semv.model import (
    Asset,
    Evidence,
    MediaEvidence,
    MediaLocation,
    Modality,
    ProducerKind,
    Provenance,
    SourceType,
    Stage,
    UncertaintyCode,
    UncertaintyItem,
)
from semv.perception._exif_fields import MetadataFields, parse_tags
from semv.perception._exiftool import (
    ExifToolMissing,
    ExifToolSession,
    FileUnreadable,
    default_session,
)

__all__ = [
    "METADATA_RELIABILITY",
    "ExifToolSession",
    "metadata_evidence_id",
    "read_metadata",
    "tool_versions",
]

METADATA_RELIABILITY: Final = 0.9
"""r_e of metadata evidence: camera metadata is usually right but can be edited or wrong."""

_STAGES: Final = (Stage.RETRIEVE,)
"""Metadata feeds the evidence pool of every subclaim (stage R)."""


def metadata_evidence_id(asset_id: str) -> str:
    """``ev:exif:<asset id>``."""
    return f"ev:exif:{asset_id}"


def tool_versions() -> str:
    """``exiftool <version>``, or ``exiftool missing``: part of the media stage's fingerprint."""
    try:
        return f"exiftool {default_session().version()}"
    except ExifToolMissing:
        return "exiftool missing"


def read_metadata(asset: Asset, *, session: ExifToolSession | None = None) -> MediaEvidence:
    """Read the metadata of ``asset`` with exiftool (the process-wide session by default)."""
    if not asset.loaded:
        return _nothing(asset, UncertaintyCode.MEDIA_NOT_LOADED, "media not loaded (text-only)")
    session = session or default_session()
    try:
        version = session.version()
        tags = session.read_tags(Path(asset.path))
    except ExifToolMissing as exc:
        return _nothing(asset, UncertaintyCode.TOOL_MISSING, str(exc))
    except FileUnreadable as exc:
        return _nothing(asset, UncertaintyCode.MEDIA_UNREADABLE, f"exiftool: {exc}")
    fields = parse_tags(tags)
    uncertainty: list[UncertaintyItem] = []
    if fields.gps_problem is not None:
        uncertainty.append(_item(asset, UncertaintyCode.GPS_INVALID, fields.gps_problem))
    if fields.empty:
        uncertainty.append(
            _item(asset, UncertaintyCode.NO_METADATA, "no capture time, GPS, camera or software")
        )
        return MediaEvidence(asset_id=asset.id, evidence=(), uncertainty=tuple(uncertainty))
    return MediaEvidence(
        asset_id=asset.id,
        evidence=(_evidence(asset, fields, version),),
        uncertainty=tuple(uncertainty),
    )


def _evidence(asset: Asset, fields: MetadataFields, version: str) -> Evidence:
    codes: tuple[UncertaintyCode, ...] = ()
    if fields.capture_time is not None and not fields.capture_time.timezone_known:
        codes = (UncertaintyCode.TIMEZONE_UNKNOWN,)
    return Evidence(
        id=metadata_evidence_id(asset.id),
        source="exiftool",
        source_type=SourceType.METADATA,
        modality=Modality.METADATA,
        content=fields.summary(),
        data=fields.data(),
        reliability=METADATA_RELIABILITY,
        location=MediaLocation(asset_id=asset.id),
        provenance=Provenance(
            producer=ProducerKind.TOOL,
            agent="exiftool",
            tool_version=version,
            method="EXIF/XMP/QuickTime tags: " + ", ".join(fields.tags_used),
            derived_from=(asset.id,),
        ),
        uncertainty=codes,
    )


def _item(asset: Asset, code: UncertaintyCode, detail: str) -> UncertaintyItem:
    return UncertaintyItem(code=code, subject=asset.id, detail=detail, stages=_STAGES)


def _nothing(asset: Asset, code: UncertaintyCode, detail: str) -> MediaEvidence:
    return MediaEvidence(asset_id=asset.id, evidence=(), uncertainty=(_item(asset, code, detail),))
