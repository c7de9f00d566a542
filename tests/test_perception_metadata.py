"""Metadata and integrity through the media stage on real files (exif-samples,
metadata-extractor-images): SHA-256, exiftool and ffprobe agree, GPS sanity, software, gaps.

Expected values were read independently (exiftool -G, ffprobe -show_entries format_tags,
sha256sum) and are written here."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TypeVar

import pytest

from semv.config import Settings
from semv.model import (
    Asset,
    Container,
    Exif,
    FileIntegrity,
    MediaEvidence,
    MediaKind,
    ObservationBase,
    UncertaintyCode,
)
from semv.perception.metadata import time_gaps
from semv.stages.media import extract_media
from tests.conftest import shared_data

pytestmark = pytest.mark.shared_data

_O = TypeVar("_O", bound=ObservationBase)


def _run(path: Path) -> MediaEvidence:
    kind = MediaKind.VIDEO if path.suffix.lower() in (".mov", ".mp4") else MediaKind.IMAGE
    return extract_media(Asset(id="asset:1", path=str(path), kind=kind), Settings())


def _item(media: MediaEvidence, prefix: str, cls: type[_O]) -> _O:
    found = next(e.observed(cls) for e in media.evidence if e.id == f"ev:{prefix}:asset:1")
    assert found is not None
    return found


def _iso6709(text: str) -> tuple[float, float]:
    """'+32.0929+034.8620+028.516/' → (32.0929, 34.862)."""
    import re

    lat, lon = re.findall(r"[+-]\d+(?:\.\d+)?", text)[:2]
    return float(lat), float(lon)


@pytest.mark.parametrize(
    ("name", "lat", "lon", "created"),
    [
        ("with-gps.mov", 32.0929, 34.862, "2019-07-24T08:25:57.000000Z"),
        ("with-gps.mp4", 51.4169, -0.0806, "2017-02-22T08:20:28.000000Z"),
    ],
)
def test_phone_video_gps_from_exiftool_and_ffprobe(
    name: str, lat: float, lon: float, created: str
) -> None:
    path = shared_data("metadata-extractor-images", "video", name)
    media = _run(path)
    exif = _item(media, "exif", Exif)
    container = _item(media, "container", Container)
    assert (exif.latitude, exif.longitude) == (lat, lon)
    assert _iso6709(str(container.location_iso6709)) == (lat, lon)
    assert container.creation_time == created
    assert container.video_streams == 1
    file = _item(media, "file", FileIntegrity)
    assert file.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert file.format == "ISO media (MP4/MOV)"


def test_iphone_video_camera_and_software() -> None:
    media = _run(shared_data("metadata-extractor-images", "video", "with-gps.mov"))
    exif = _item(media, "exif", Exif)
    assert (exif.make, exif.model) == ("Apple", "iPhone 6")
    assert exif.capture_time == "2019-07-24T11:25:40+03:00"
    assert _item(media, "container", Container).software == "12.3"


def test_null_island_is_flagged_through_the_stage() -> None:
    media = _run(shared_data("metadata-extractor-images", "jpg", "Samsung GT-I9000 (Galaxy S).jpg"))
    flagged = [u for u in media.uncertainty if u.code is UncertaintyCode.GPS_INVALID]
    assert len(flagged) == 1 and "(0, 0)" in flagged[0].detail
    assert _item(media, "exif", Exif).latitude is None


def test_edited_files_show_their_software_tag() -> None:
    gimp = _run(
        shared_data("exif-samples", "jpg", "camera_models", "Canon_40D_photoshop_import.jpg")
    )
    assert _item(gimp, "exif", Exif).software == "GIMP 2.4.5"
    photoshop = _run(shared_data("metadata-extractor-images", "jpg", "FujiFilm FinePixS2Pro.jpg"))
    data = _item(photoshop, "exif", Exif)
    assert data.software == "Adobe Photoshop 7.0"
    # modified 2002-09-03 12:47:28, captured 2002-08-24 13:59:08: 9 days 22:48:20 later
    assert data.modify_gap_hours == pytest.approx(238.81, abs=0.01)
    assert data.gap_approximate is True  # neither time carries a zone


def test_time_gaps_with_known_zones() -> None:
    gaps = time_gaps(
        Exif(capture_time="2024-03-12T10:00:00+01:00", modify_time="2024-03-12T12:30:00+01:00"),
        file_mtime=1710248400.0,  # 2024-03-12T13:00:00Z
    )
    assert gaps == {
        "file_modified": "2024-03-12T13:00:00+00:00",
        "modify_gap_hours": 2.5,
        "file_modified_gap_hours": 4.0,
    }
