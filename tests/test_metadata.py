"""Metadata extraction: piexif round trips, degraded cases, and real camera/phone files."""

from __future__ import annotations

import shutil
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import piexif
import pytest
from PIL import Image

from semv.model import (
    Asset,
    Evidence,
    Exif,
    MediaEvidence,
    MediaKind,
    Modality,
    ProducerKind,
    SourceType,
    Stage,
    UncertaintyCode,
)
from semv.perception._exif_fields import parse_tags
from semv.perception.metadata import ExifToolSession, read_metadata

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"

needs_exiftool = pytest.mark.skipif(
    shutil.which("exiftool") is None, reason="exiftool is not installed"
)

Rational = tuple[int, int]


def _dms(value: float) -> tuple[Rational, Rational, Rational]:
    degrees = int(value)
    minutes = int((value - degrees) * 60)
    seconds = round(((value - degrees) * 60 - minutes) * 60 * 1000)
    return (degrees, 1), (minutes, 1), (seconds, 1000)


def _photo(
    path: Path,
    *,
    original: str | None = "2019:06:01 14:32:10",
    offset: str | None = "+02:00",
    gps: tuple[float, float] | None = (45.7629, 4.8311),
    refs: tuple[bytes, bytes] = (b"N", b"E"),
    gps_time: tuple[str, tuple[Rational, Rational, Rational]] | None = None,
    software: str | None = None,
) -> Asset:
    """A small JPEG with the given EXIF, written with piexif, as an asset."""
    zeroth: dict[int, Any] = {piexif.ImageIFD.Make: b"Canon", piexif.ImageIFD.Model: b"EOS 80D"}
    if software:
        zeroth[piexif.ImageIFD.Software] = software.encode()
    exif: dict[int, Any] = {}
    if original:
        exif[piexif.ExifIFD.DateTimeOriginal] = original.encode()
    if offset:
        exif[piexif.ExifIFD.OffsetTimeOriginal] = offset.encode()
    gps_ifd: dict[int, Any] = {}
    if gps is not None:
        gps_ifd = {
            piexif.GPSIFD.GPSLatitudeRef: refs[0],
            piexif.GPSIFD.GPSLatitude: _dms(abs(gps[0])),
            piexif.GPSIFD.GPSLongitudeRef: refs[1],
            piexif.GPSIFD.GPSLongitude: _dms(abs(gps[1])),
        }
    if gps_time is not None:
        gps_ifd[piexif.GPSIFD.GPSDateStamp] = gps_time[0].encode()
        gps_ifd[piexif.GPSIFD.GPSTimeStamp] = gps_time[1]
    data = piexif.dump({"0th": zeroth, "Exif": exif, "GPS": gps_ifd, "1st": {}})
    Image.new("RGB", (64, 48), (90, 140, 200)).save(path, "JPEG", exif=data)
    return _asset(path)


def _asset(path: Path, kind: MediaKind = MediaKind.IMAGE, *, loaded: bool = True) -> Asset:
    return Asset(id="asset:1", path=str(path), kind=kind, loaded=loaded)


def _codes(result: MediaEvidence) -> list[UncertaintyCode]:
    return [item.code for item in result.uncertainty]


def _exif(evidence: Evidence) -> Exif:
    exif = evidence.observed(Exif)
    assert exif is not None
    return exif


def _data(result: MediaEvidence) -> Exif:
    [evidence] = result.evidence
    return _exif(evidence)


# ---- round trips through piexif + exiftool --------------------------------------------------


@needs_exiftool
def test_round_trip_time_and_gps(tmp_path: Path) -> None:
    result = read_metadata(_photo(tmp_path / "a.jpg", software="Darktable 4.6"))
    assert result.asset_id == "asset:1" and result.uncertainty == ()
    [evidence] = result.evidence
    assert evidence.id == "ev:exif:asset:1"
    assert evidence.modality is Modality.METADATA
    assert evidence.source_type is SourceType.METADATA
    assert evidence.source == "exiftool"
    assert evidence.reliability == 0.9
    assert evidence.location is not None and evidence.location.asset_id == "asset:1"
    assert evidence.uncertainty == ()
    data = _exif(evidence)
    assert data.capture_time == "2019-06-01T14:32:10+02:00"
    assert data.timezone_known is True
    assert data.latitude == pytest.approx(45.7629, abs=1e-6)
    assert data.longitude == pytest.approx(4.8311, abs=1e-6)
    assert (data.make, data.model, data.software) == ("Canon", "EOS 80D", "Darktable 4.6")
    provenance = evidence.provenance
    assert provenance is not None
    assert provenance.producer is ProducerKind.TOOL and provenance.agent == "exiftool"
    assert provenance.tool_version and provenance.tool_version[0].isdigit()
    assert provenance.derived_from == ("asset:1",)
    assert "EXIF:DateTimeOriginal" in provenance.method
    assert evidence.content == (
        "Metadata: captured 2019-06-01T14:32:10+02:00; GPS 45.762900, 4.831100; "
        "camera Canon EOS 80D; software Darktable 4.6."
    )


@needs_exiftool
def test_southern_and_western_hemispheres_are_negative(tmp_path: Path) -> None:
    asset = _photo(tmp_path / "rio.jpg", gps=(-22.9068, -43.1729), refs=(b"S", b"W"))
    data = _data(read_metadata(asset))
    assert data.latitude == pytest.approx(-22.9068, abs=1e-6)
    assert data.longitude == pytest.approx(-43.1729, abs=1e-6)


@needs_exiftool
def test_offset_derived_from_gps_utc_time(tmp_path: Path) -> None:
    asset = _photo(
        tmp_path / "b.jpg",
        offset=None,
        gps_time=("2019:06:01", ((12, 1), (32, 1), (7, 1))),
    )
    data = _data(read_metadata(asset))
    assert data.capture_time == "2019-06-01T14:32:10+02:00"
    assert data.timezone_known is True
    assert data.timezone_source == "offset of the GPS (UTC) time"


@needs_exiftool
def test_unknown_time_zone_is_flagged(tmp_path: Path) -> None:
    result = read_metadata(_photo(tmp_path / "c.jpg", offset=None, gps=None))
    [evidence] = result.evidence
    exif = _exif(evidence)
    assert exif.capture_time == "2019-06-01T14:32:10"
    assert exif.timezone_known is False
    assert exif.latitude is None
    assert evidence.uncertainty == (UncertaintyCode.TIMEZONE_UNKNOWN,)
    assert "time zone unknown" in evidence.content


@needs_exiftool
def test_null_island_is_dropped(tmp_path: Path) -> None:
    result = read_metadata(_photo(tmp_path / "d.jpg", gps=(0.0, 0.0)))
    assert _codes(result) == [UncertaintyCode.GPS_INVALID]
    [item] = result.uncertainty
    assert item.subject == "asset:1" and "(0, 0)" in item.detail
    assert item.stages == (Stage.RETRIEVE,)
    data = _data(result)
    assert data.latitude is None and data.longitude is None
    assert data.capture_time == "2019-06-01T14:32:10+02:00"


@needs_exiftool
def test_no_metadata(tmp_path: Path) -> None:
    path = tmp_path / "plain.png"
    Image.new("RGB", (20, 20)).save(path)
    result = read_metadata(_asset(path))
    assert result.evidence == ()
    assert _codes(result) == [UncertaintyCode.NO_METADATA]


@needs_exiftool
def test_unreadable_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.jpg"
    path.write_bytes(bytes(range(256)) * 8)
    result = read_metadata(_asset(path))
    assert result.evidence == ()
    assert _codes(result) == [UncertaintyCode.MEDIA_UNREADABLE]
    missing = read_metadata(_asset(tmp_path / "gone.jpg"))
    assert _codes(missing) == [UncertaintyCode.MEDIA_UNREADABLE]


def test_not_loaded_asset_is_not_read(tmp_path: Path) -> None:
    session = ExifToolSession(executable=str(tmp_path / "no-exiftool"))
    result = read_metadata(_asset(tmp_path / "x.jpg", loaded=False), session=session)
    assert result.evidence == ()
    assert _codes(result) == [UncertaintyCode.MEDIA_NOT_LOADED]


def test_missing_exiftool_is_an_uncertainty_not_an_error(tmp_path: Path) -> None:
    path = tmp_path / "a.jpg"
    Image.new("RGB", (8, 8)).save(path)
    session = ExifToolSession(executable=str(tmp_path / "no-exiftool"))
    result = read_metadata(_asset(path), session=session)
    assert result.evidence == ()
    assert _codes(result) == [UncertaintyCode.TOOL_MISSING]
    assert "exiftool not found" in result.uncertainty[0].detail


def test_broken_exiftool_is_an_uncertainty(tmp_path: Path) -> None:
    path = tmp_path / "a.jpg"
    Image.new("RGB", (8, 8)).save(path)
    fake = tmp_path / "exiftool"
    fake.write_text("#!/bin/sh\nexit 3\n", encoding="utf-8")
    fake.chmod(0o755)
    result = read_metadata(_asset(path), session=ExifToolSession(executable=str(fake)))
    assert _codes(result) == [UncertaintyCode.TOOL_MISSING]


@needs_exiftool
def test_session_is_thread_safe_and_restartable(tmp_path: Path) -> None:
    assets = [
        _photo(tmp_path / f"{n}.jpg", original=f"2019:06:0{n} 10:00:00", gps=None)
        for n in range(1, 7)
    ]
    session = ExifToolSession()
    try:
        sequential = [read_metadata(a, session=session) for a in assets]
        with ThreadPoolExecutor(max_workers=4) as pool:
            parallel = list(pool.map(lambda a: read_metadata(a, session=session), assets * 3))
        assert parallel == sequential * 3
        session.close()
        assert read_metadata(assets[0], session=session) == sequential[0]
    finally:
        session.close()


# ---- tag parsing (pure) ---------------------------------------------------------------------


def test_out_of_range_coordinates_are_dropped() -> None:
    fields = parse_tags({"Composite:GPSLatitude": 95.0, "Composite:GPSLongitude": 10.0})
    assert fields.latitude is None and fields.gps_problem is not None
    assert "latitude 95.0 is outside" in fields.gps_problem
    fields = parse_tags({"Composite:GPSLatitude": 45.0, "Composite:GPSLongitude": -200.5})
    assert fields.longitude is None and "longitude -200.5 is outside" in str(fields.gps_problem)
    assert fields.empty


def test_void_gps_and_incomplete_position() -> None:
    void = parse_tags(
        {"Composite:GPSLatitude": 45.0, "Composite:GPSLongitude": 4.0, "EXIF:GPSStatus": "V"}
    )
    assert void.latitude is None and "void" in str(void.gps_problem)
    partial = parse_tags({"EXIF:GPSLatitude": 45.0, "EXIF:GPSLatitudeRef": "N"})
    assert partial.latitude is None and "incomplete" in str(partial.gps_problem)


def test_hemisphere_reference_of_a_vendor_block() -> None:
    # FLIR-style: unsigned coordinates with their references, no Composite position
    fields = parse_tags(
        {
            "APP1:GPSLatitude": 34.0754,
            "APP1:GPSLatitudeRef": "N",
            "APP1:GPSLongitude": 118.2543,
            "APP1:GPSLongitudeRef": "W",
        }
    )
    assert (fields.latitude, fields.longitude) == (34.0754, -118.2543)


def test_quicktime_create_date_is_utc() -> None:
    fields = parse_tags({"QuickTime:CreateDate": "2017:02:22 08:20:28"})
    assert fields.capture_time is not None
    assert fields.capture_time.iso == "2017-02-22T08:20:28+00:00"
    assert fields.capture_time.timezone_known


def test_placeholder_dates_are_ignored() -> None:
    assert parse_tags({"EXIF:DateTimeOriginal": "0000:00:00 00:00:00"}).empty
    assert parse_tags({"EXIF:DateTimeOriginal": "    :  :     :  :  "}).empty


def test_implausible_gps_clock_leaves_time_zone_unknown() -> None:
    # camera clock vs GPS clock about 22 h apart: one of them is wrong
    fields = parse_tags(
        {
            "EXIF:DateTimeOriginal": "2008:10:22 16:28:39",
            "Composite:GPSDateTime": "2008:10:23 14:27:07.24Z",
        }
    )
    assert fields.capture_time is not None
    assert fields.capture_time.iso == "2008-10-22T16:28:39"
    assert not fields.capture_time.timezone_known


def test_invalid_offset_tag_is_ignored() -> None:
    fields = parse_tags(
        {"EXIF:DateTimeOriginal": "2019:06:01 14:32:10", "EXIF:OffsetTimeOriginal": "+25:00"}
    )
    assert fields.capture_time is not None and not fields.capture_time.timezone_known


# ---- real files ------------------------------------------------------------------------------


def _real(*parts: str) -> MediaEvidence:
    path = SHARED_DATA.joinpath(*parts)
    if not path.is_file():
        pytest.skip(f"shared data not available: {path} (only dev machines and CI have ../shared)")
    kind = MediaKind.VIDEO if path.suffix in (".mov", ".mp4") else MediaKind.IMAGE
    return read_metadata(_asset(path, kind))


@needs_exiftool
@pytest.mark.shared_data
def test_real_null_island_phone_photo() -> None:
    result = _real("metadata-extractor-images", "jpg", "Samsung GT-I9000 (Galaxy S).jpg")
    assert _codes(result) == [UncertaintyCode.GPS_INVALID]
    data = _data(result)
    assert data.latitude is None
    assert data.capture_time == "2011-04-02T18:30:10"
    assert data.model == "GT-I9000"


@needs_exiftool
@pytest.mark.shared_data
def test_real_flir_block_uses_its_west_reference() -> None:
    # exiftool prints "118 deg ... E" for this file, but the FLIR block's reference is W:
    # applied, the position is Los Angeles, consistent with the -07:00 offset of the photo
    data = _data(_real("metadata-extractor-images", "jpg", "FLIR iPhone device.jpg"))
    assert data.latitude == pytest.approx(34.0754, abs=1e-3)
    assert data.longitude == pytest.approx(-118.2543, abs=1e-3)
    assert data.capture_time == "2021-05-16T12:27:36.107-07:00"


@needs_exiftool
@pytest.mark.shared_data
def test_real_gps_derived_time_zone() -> None:
    data = _data(_real("metadata-extractor-images", "jpg", "HTC Desire.jpg"))
    assert data.capture_time == "2011-05-06T09:59:48+02:00"
    assert data.latitude == pytest.approx(45.5007, abs=1e-3)


@needs_exiftool
@pytest.mark.shared_data
def test_real_gps_photo_with_wrong_gps_date() -> None:
    result = _real("exif-samples", "jpg", "gps", "DSCN0010.jpg")
    data = _data(result)
    assert data.latitude == pytest.approx(43.4674, abs=1e-3)
    assert data.longitude == pytest.approx(11.8851, abs=1e-3)
    assert data.capture_time == "2008-10-22T16:28:39" and data.timezone_known is False
    assert data.software == "Nikon Transfer 1.1 W"


@needs_exiftool
@pytest.mark.shared_data
def test_real_edited_file_signals() -> None:
    data = _data(_real("metadata-extractor-images", "jpg", "FujiFilm FinePixS2Pro.jpg"))
    assert data.software == "Adobe Photoshop 7.0"
    assert data.capture_time == "2002-08-24T13:59:08"
    assert data.modify_time == "2002-09-03T12:47:28"


@needs_exiftool
@pytest.mark.shared_data
def test_real_videos_with_gps() -> None:
    mov = _data(_real("metadata-extractor-images", "video", "with-gps.mov"))
    assert mov.capture_time == "2019-07-24T11:25:40+03:00"
    assert (mov.latitude, mov.longitude) == (32.0929, 34.862)
    assert (mov.make, mov.model) == ("Apple", "iPhone 6")
    mp4 = _data(_real("metadata-extractor-images", "video", "with-gps.mp4"))
    assert (mp4.latitude, mp4.longitude) == (51.4169, -0.0806)
    assert mp4.capture_time == "2017-02-22T08:20:28+00:00"


@needs_exiftool
@pytest.mark.shared_data
def test_real_file_without_metadata() -> None:
    result = _real("exif-samples", "jpg", "orientation", "landscape_6.jpg")
    assert result.evidence == ()
    assert _codes(result) == [UncertaintyCode.NO_METADATA]


@needs_exiftool
def test_session_survives_the_thread_that_started_it(tmp_path: Path) -> None:
    # asyncio.to_thread workers come and go; exiftool must not die with the first of them
    asset = _photo(tmp_path / "a.jpg")
    session = ExifToolSession()
    try:
        with ThreadPoolExecutor(max_workers=1) as pool:
            first = pool.submit(read_metadata, asset, session=session).result()
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # "ExifTool process was previously running but died"
            assert read_metadata(asset, session=session) == first
    finally:
        session.close()
