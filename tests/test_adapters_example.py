"""The committed example case ``examples/lyon-flood`` and the script that generates it."""

from __future__ import annotations

import math
import shutil
import subprocess
import sys
from pathlib import Path

import piexif
import pytest
from PIL import Image

from semv.adapters import GenericAdapter, detect_adapter
from semv.errors import GoldAccessError
from semv.model import Exif, RunStatus, SourceType
from semv.perception.metadata import read_metadata

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "lyon-flood"
SCRIPT = ROOT / "scripts" / "make_example.py"
PARIS = (48.8566, 2.3522)


def _km(a: tuple[float, float], b: tuple[float, float]) -> float:
    lat1, lon1, lat2, lon2 = map(math.radians, (*a, *b))
    h = (
        math.sin((lat2 - lat1) / 2) ** 2
        + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    )
    return 2 * 6371.0 * math.asin(math.sqrt(h))


def test_example_loads_as_a_generic_case() -> None:
    adapter = detect_adapter(EXAMPLE)
    assert isinstance(adapter, GenericAdapter)
    [loaded] = list(adapter.load(EXAMPLE))
    case = loaded.case
    assert case.id == "lyon-flood"
    assert case.claim.startswith("Flooding in Paris on 14 March 2024")
    assert case.context.date == "2024-03-14" and case.context.location == "Paris, France"
    [photo] = case.media
    assert photo.loaded and photo.sha256 is not None
    news, factcheck = case.evidence
    assert news.source_type is SourceType.NEWS and news.url is not None
    assert factcheck.source_type is SourceType.FACT_CHECK and "Lyon" in factcheck.text
    assert all(".example.org/" in (item.url or "") for item in case.evidence)
    assert loaded.gold is not None
    with pytest.raises(GoldAccessError):
        loaded.gold.reveal(RunStatus.RUNNING)
    assert loaded.gold.reveal(RunStatus.COMMITTED) == "false-context"


def test_example_photo_is_small_and_the_right_size() -> None:
    photo = EXAMPLE / "photo.jpg"
    assert photo.stat().st_size < 200_000
    with Image.open(photo) as image:
        assert image.size == (800, 600) and image.format == "JPEG"


@pytest.mark.skipif(shutil.which("exiftool") is None, reason="exiftool is not installed")
def test_example_metadata_contradicts_the_claim() -> None:
    [loaded] = list(GenericAdapter().load(EXAMPLE))
    result = read_metadata(loaded.case.media[0])
    assert result.uncertainty == ()
    [evidence] = result.evidence
    data = evidence.observed(Exif)
    assert data is not None and data.capture_time is not None
    assert data.latitude is not None and data.longitude is not None
    assert data.capture_time == "2019-06-01T14:32:10+02:00"
    assert data.timezone_known is True
    assert not data.capture_time.startswith(loaded.case.context.date or "")
    assert _km((data.latitude, data.longitude), PARIS) > 350  # Lyon, not Paris
    assert (data.make, data.model) == ("Canon", "Canon EOS 80D")


def test_generation_is_deterministic_and_matches_the_committed_case(tmp_path: Path) -> None:
    pytest.importorskip("piexif")
    for out in ("one", "two"):
        subprocess.run(
            [sys.executable, str(SCRIPT), "--out", str(tmp_path / out)],
            check=True,
            capture_output=True,
        )
    for name in ("photo.jpg", "case.yaml", "gold.yaml"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()
    for name in ("case.yaml", "gold.yaml"):
        assert (tmp_path / "one" / name).read_bytes() == (EXAMPLE / name).read_bytes()
    generated = piexif.load(str(tmp_path / "one" / "photo.jpg"))
    committed = piexif.load(str(EXAMPLE / "photo.jpg"))
    for ifd in ("0th", "Exif", "GPS"):
        assert generated[ifd] == committed[ifd]
