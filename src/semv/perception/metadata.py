"""EXIF / XMP / QuickTime metadata of one asset, as evidence (``media:<asset>`` extractor).

``read_metadata`` yields at most one evidence item ``ev:exif:<asset id>`` with capture time, GPS
position, camera and software. Everything that could not be established is an
``UncertaintyItem`` (missing exiftool, unreadable file, no metadata, invalid GPS), never an
exception and never evidence (DESIGN §4).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any, Final

from semv.model import (
    Asset,
    Evidence,
    Exif,
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
from semv.perception._exif_fields import (
    MetadataFields,
    implausible_time,
    parse_tags,
    without_capture_time,
)
from semv.perception._exiftool import (
    ExifToolMissing,
    ExifToolSession,
    FileUnreadable,
    default_session,
)
from semv.perception._toolcache import remembered
from semv.perception.extraction import ExtractContext

__all__ = [
    "METADATA_RELIABILITY",
    "ExifToolSession",
    "extract",
    "metadata_evidence_id",
    "read_metadata",
    "time_gaps",
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
    """``exiftool <version>``, or ``exiftool missing``: part of the media stage's fingerprint
    (remembered by the program file's identity, ``semv.perception._toolcache``: asking
    starts exiftool)."""
    return remembered("exiftool", default_session().executable, _exiftool_version)


def _exiftool_version() -> str:
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
    if fields.capture_time is not None:
        problem = implausible_time(
            fields.capture_time.iso, acquired=_acquired(asset), now=dt.datetime.now(dt.UTC)
        )
        if problem is not None:
            uncertainty.append(_item(asset, UncertaintyCode.METADATA_INVALID, problem))
            fields = without_capture_time(fields)
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


def _acquired(asset: Asset) -> dt.datetime | None:
    """When the file itself was last written (its modification time), None if unknown."""
    try:
        return dt.datetime.fromtimestamp(Path(asset.path).stat().st_mtime, tz=dt.UTC)
    except (OSError, ValueError, OverflowError):
        return None


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
        observation=fields.observation(),
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


def extract(asset: Asset, path: Path, context: ExtractContext) -> MediaEvidence:
    """The metadata extractor of the media stage: ``read_metadata`` plus time gaps.

    Adds to the evidence the gap between EXIF modification and capture time and between the
    file system's modification time and the capture time (a file modified long after it was
    taken was at least re-saved).
    """
    if not context.usable:
        return MediaEvidence(asset_id=asset.id, evidence=())
    result = read_metadata(asset)
    if not result.evidence:
        return result
    item = result.evidence[0]
    exif = item.observed(Exif)
    if exif is None:
        return result
    try:
        mtime = path.stat().st_mtime
    except OSError:
        mtime = None
    gaps = time_gaps(exif, mtime)
    if not gaps:
        return result
    extra = []
    if "modify_gap_hours" in gaps:
        extra.append(f"EXIF modified {gaps['modify_gap_hours']:+.1f} h after capture")
    if "file_modified_gap_hours" in gaps:
        extra.append(f"file modified {gaps['file_modified_gap_hours']:+.1f} h after capture")
    content = item.content.removesuffix(".") + ("; " + "; ".join(extra) if extra else "") + "."
    updated = item.model_copy(
        update={"observation": exif.model_copy(update=gaps), "content": content}
    )
    return MediaEvidence(
        asset_id=asset.id, evidence=(updated, *result.evidence[1:]), uncertainty=result.uncertainty
    )


def time_gaps(exif: Exif, file_mtime: float | None) -> dict[str, Any]:
    """``modify_gap_hours`` (EXIF modify − capture) and ``file_modified`` with
    ``file_modified_gap_hours`` (file system mtime − capture), when both times are known.

    A capture time without time zone is compared as if it were UTC; ``gap_approximate`` says
    so (the gap is then off by the camera's UTC offset, at most 14 h).
    """
    out: dict[str, Any] = {}
    capture = _stamp(exif.capture_time)
    if file_mtime is not None:
        modified = dt.datetime.fromtimestamp(file_mtime, tz=dt.UTC).replace(microsecond=0)
        out["file_modified"] = modified.isoformat()
    if capture is None:
        return out
    approximate = capture.tzinfo is None
    base = capture if capture.tzinfo is not None else capture.replace(tzinfo=dt.UTC)
    modify = _stamp(exif.modify_time)
    if modify is not None:
        approximate = approximate or modify.tzinfo is None
        mod = modify if modify.tzinfo is not None else modify.replace(tzinfo=base.tzinfo)
        out["modify_gap_hours"] = round((mod - base).total_seconds() / 3600, 2)
    if file_mtime is not None:
        gap = dt.datetime.fromtimestamp(file_mtime, tz=dt.UTC) - base
        out["file_modified_gap_hours"] = round(gap.total_seconds() / 3600, 2)
    if approximate:
        out["gap_approximate"] = True
    return out


def _stamp(value: object) -> dt.datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
