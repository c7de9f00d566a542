"""End to end on real camera files (../shared/data): EXIF time and GPS against claims."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

import semv
from semv.model import Result
from tests.conftest import shared_data

pytestmark = pytest.mark.shared_data

SUPPORTED = ("supported", "weakly-supported")
REFUTED = ("refuted", "weakly-refuted")


def verify(tmp_path: Path, media: Path, claim: str, **context: str) -> Result:
    folder = tmp_path / "case"
    folder.mkdir(parents=True)
    shutil.copy(media, folder / media.name)
    spec = {"id": "real", "claim": claim, "media": [{"path": media.name}], "context": context}
    (folder / "case.yaml").write_text(yaml.safe_dump(spec))
    return semv.verify(folder, data_dir=tmp_path / "store")


def decisions(result: Result) -> dict[str, str]:
    return {s.dimension: s.decision for s in result.subclaims}


def test_photo_whose_exif_matches_the_claim(tmp_path: Path) -> None:
    # Nikon COOLPIX photo: DateTimeOriginal 2008:10:22 16:28:39, GPS 43.467 N 11.885 E (Arezzo)
    photo = shared_data("exif-samples", "jpg", "gps", "DSCN0010.jpg")
    result = verify(tmp_path, photo, "A street in Arezzo, Italy on 22 October 2008.")
    d = decisions(result)
    assert d["when"] in SUPPORTED and d["where"] in SUPPORTED
    assert "ev:exif:asset:1" in {e.id for e in result.evidence}


def test_photo_whose_exif_contradicts_the_claim(tmp_path: Path) -> None:
    photo = shared_data("exif-samples", "jpg", "gps", "DSCN0010.jpg")
    result = verify(tmp_path, photo, "Protesters march in Paris on 5 May 2015.")
    d = decisions(result)
    assert d["when"] in REFUTED and d["where"] in REFUTED
    where = next(s for s in result.subclaims if s.dimension == "where")
    assert any("ev:exif:asset:1" in a.evidence and a.verified for a in where.arguments)


def test_phone_video_gps_and_creation_date(tmp_path: Path) -> None:
    # QuickTime CreateDate 2019:07:24 08:25:57 UTC, GPS 32.093 N 34.862 E (Tel Aviv district)
    video = shared_data("metadata-extractor-images", "video", "with-gps.mov")
    right = verify(tmp_path / "a", video, "Video filmed in Tel Aviv in July 2019.")
    assert decisions(right)["when"] in SUPPORTED and decisions(right)["where"] in SUPPORTED
    wrong = verify(tmp_path / "b", video, "Video filmed in Cairo in March 2023.")
    assert decisions(wrong)["when"] in REFUTED and decisions(wrong)["where"] in REFUTED
