"""Cases whose decisive evidence is the media's own metadata, built from a real camera photo.

Each case is a folder (``case.yaml`` + ``photo.jpg``): the Nikon COOLPIX P6000 street photo
``exif-samples/jpg/gps/DSCN0010.jpg`` with its EXIF rewritten by ``exiftool`` (GPS position,
capture time, camera make/model, Software tag), a claim about a climate strike in a city on a
given day, and news reports that the event happened there and then. The reports are true
reports *of the event*; whether this photo shows it is what the metadata speaks to.

The cases (``CASES``):

- ``gps-and-time-far``: GPS in Madrid (1,870 km from the claimed Berlin), capture time 1,043
  days before the claimed day;
- ``gps-far``, ``time-far``: one of the two contradicts, the other matches;
- ``consistent``: GPS and capture time match the claimed place and day (the positive
  control: the same photo verifies);
- ``spanish``: the same contradiction for a claim written in Spanish;
- the honest exceptions, where the metadata must *not* decide: ``stripped`` (no GPS, no
  capture time), ``editor`` (the contradicting tags in a file written by an image editor),
  ``implausible`` (GPS 0,0 and a capture in the year 9999), ``after-publication`` (a capture
  time after the photo was already published), ``screenshot`` (no camera make or model: the
  time is when a file was saved, not when the scene was captured).

    python scripts/make_exif_cases.py OUT_DIR      (writes OUT_DIR/<case>/)

The photo is read in place from ``../shared/data/exif-samples``; nothing of it is written to
the repository. ``tests/test_media_directness.py`` builds the same cases in a temporary folder.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
PHOTO = ROOT.parent / "shared" / "data" / "exif-samples" / "jpg" / "gps" / "DSCN0010.jpg"

BERLIN = (52.5200, 13.4050)
MADRID = (40.4168, -3.7038)
CLAIMED_DAY = "2019-09-20"
CLAIMED_TIME = "2019:09:20 11:42:10"
YEARS_BEFORE = "2016:11:11 11:42:10"
"""1,043 days before the claimed day."""

CLAIM_EN = "Climate strike protesters fill the streets of Berlin, Germany, on 20 September 2019."
CLAIM_ES = (
    "Manifestantes de la huelga por el clima llenan las calles de Madrid, España, "
    "el 20 de septiembre de 2019."
)

NEWS_EN = (
    {
        "id": "news-strike-berlin",
        "url": "https://news.example.org/2019/09/20/berlin-climate-strike",
        "title": "Climate strike draws huge crowds in Berlin",
        "publisher": "Example News",
        "published": "2019-09-20",
        "source_type": "news",
        "reliability": 0.7,
        "text": (
            "More than 100,000 people joined the climate strike in Berlin, Germany, on "
            "20 September 2019, marching from the Brandenburg Gate through the city centre."
        ),
    },
    {
        "id": "news-strike-germany",
        "url": "https://wire.example.org/2019/09/20/germany-strikes",
        "title": "Germany: climate protests in hundreds of cities",
        "publisher": "Example Wire",
        "published": "2019-09-20",
        "source_type": "news",
        "reliability": 0.7,
        "text": (
            "Protesters filled the streets of Berlin on 20 September 2019 as part of a "
            "global climate strike; the police counted crowds around the Brandenburg Gate."
        ),
    },
)
NEWS_ES = (
    {
        "id": "noticia-huelga-madrid",
        "url": "https://noticias.example.org/2019/09/20/huelga-clima-madrid",
        "title": "Miles de personas en la huelga por el clima en Madrid",
        "publisher": "Noticias de Ejemplo",
        "published": "2019-09-20",
        "source_type": "news",
        "reliability": 0.7,
        "text": (
            "Miles de personas se manifestaron en Madrid, España, el 20 de septiembre de "
            "2019 en la huelga mundial por el clima."
        ),
    },
    {
        "id": "noticia-huelga-espana",
        "url": "https://diario.example.org/2019/09/20/huelga-clima",
        "title": "La huelga por el clima llena las calles de Madrid",
        "publisher": "Diario de Ejemplo",
        "published": "2019-09-20",
        "source_type": "news",
        "reliability": 0.7,
        "text": (
            "Los manifestantes llenaron las calles de Madrid el 20 de septiembre de 2019 "
            "durante la huelga por el clima."
        ),
    },
)
EARLIER_POST = {
    "id": "post-2019-09-19",
    "url": "https://social.example.org/@streets/posts/1",
    "title": "Protesters in Berlin",
    "publisher": "Example Social",
    "published": "2019-09-19",
    "source_type": "prior-caption",
    "reliability": 0.5,
    "about_asset": "asset:1",
    "text": "Protesters on a street in Berlin, Germany, posted on 19 September 2019.",
}


@dataclass(frozen=True)
class ExifCase:
    """One constructed case: how the photo's EXIF is rewritten and what the claim says."""

    name: str
    tags: tuple[str, ...]
    """exiftool assignments (``-TAG=VALUE``; ``-TAG=`` removes the tag)."""
    claim: str = CLAIM_EN
    language: str = "en"
    location: str = "Berlin, Germany"
    evidence: tuple[dict[str, object], ...] = NEWS_EN
    expected: str = ""
    """The label the case must get."""
    rule: int = 0
    """The aggregation rule that must decide it (``semv.reasoning.aggregate``)."""
    deciding: tuple[str, ...] = field(default=())
    """Subclaims that must be among those deciding the verdict."""
    names: tuple[str, ...] = ()
    """What the verdict's first sentence must name about the media's own evidence."""


def _gps(lat: float, lon: float) -> tuple[str, ...]:
    return (
        f"-GPSLatitude={abs(lat)}",
        f"-GPSLatitudeRef={'N' if lat >= 0 else 'S'}",
        f"-GPSLongitude={abs(lon)}",
        f"-GPSLongitudeRef={'E' if lon >= 0 else 'W'}",
    )


def _time(stamp: str) -> tuple[str, ...]:
    return (f"-DateTimeOriginal={stamp}", f"-CreateDate={stamp}", f"-ModifyDate={stamp}")


_CAMERA = ("-Software=",)
"""The camera photo as the camera wrote it (the sample's transfer-tool tag removed)."""
_NO_GPS_TIME = ("-gps:all=", "-DateTimeOriginal=", "-CreateDate=", "-ModifyDate=")

CASES: tuple[ExifCase, ...] = (
    ExifCase(
        "gps-and-time-far",
        _CAMERA + _gps(*MADRID) + _time(YEARS_BEFORE),
        expected="false-context",
        rule=2,
        deciding=("where", "when"),
        names=("EXIF GPS 40.4168, -3.7038", "1,870 km", "EXIF capture time 2016-11-11"),
    ),
    ExifCase(
        "gps-far",
        _CAMERA + _gps(*MADRID) + _time(CLAIMED_TIME),
        expected="false-context",
        rule=2,
        deciding=("where",),
        names=("EXIF GPS 40.4168, -3.7038",),
    ),
    ExifCase(
        "time-far",
        _CAMERA + _gps(*BERLIN) + _time(YEARS_BEFORE),
        expected="false-context",
        rule=2,
        deciding=("when",),
        names=("EXIF capture time 2016-11-11", "1,043 days before"),
    ),
    ExifCase(
        "consistent",
        _CAMERA + _gps(*BERLIN) + _time(CLAIMED_TIME),
        expected="verified",
        rule=3,
        deciding=("what", "where", "when"),
        names=("EXIF GPS 52.5200, 13.4050", "EXIF capture time 2019-09-20"),
    ),
    ExifCase(
        "spanish",
        _CAMERA + _gps(*BERLIN) + _time(YEARS_BEFORE),
        claim=CLAIM_ES,
        language="es",
        location="Madrid, España",
        evidence=NEWS_ES,
        expected="false-context",
        rule=2,
        deciding=("when",),
        names=("EXIF capture time 2016-11-11",),
    ),
    ExifCase(
        "stripped",
        _CAMERA + _NO_GPS_TIME,
        expected="partially-verified",
        rule=4,
        deciding=("what",),
        names=("no GPS position", "no capture time"),
    ),
    ExifCase(
        "editor",
        ("-Software=Adobe Photoshop 21.0 (Windows)", *_gps(*MADRID), *_time(YEARS_BEFORE)),
        expected="partially-verified",
        rule=4,
        deciding=("what",),
        names=("EXIF GPS 40.4168, -3.7038", "written by Photoshop"),
    ),
    ExifCase(
        "implausible",
        _CAMERA + _gps(0.0, 0.0) + _time("9999:01:01 00:00:00"),
        expected="partially-verified",
        rule=4,
        deciding=("what",),
        names=("GPS position was implausible", "capture time was implausible"),
    ),
    ExifCase(
        "after-publication",
        _CAMERA + _gps(*BERLIN) + _time("2021:06:01 10:00:00"),
        evidence=(*NEWS_EN, EARLIER_POST),
        expected="verified",
        rule=3,
        deciding=("where", "when"),
        names=("EXIF GPS 52.5200, 13.4050", "prior caption (ev:sup:post-2019-09-19)"),
    ),
    ExifCase(
        "screenshot",
        ("-Make=", "-Model=", "-Software=", "-gps:all=", *_time("2022:03:01 09:15:00")),
        expected="partially-verified",
        rule=4,
        deciding=("what",),
        names=("names no camera", "no GPS position"),
    ),
)
BY_NAME = {case.name: case for case in CASES}


def build(case: ExifCase, folder: Path, photo: Path = PHOTO) -> Path:
    """Write ``folder/case.yaml`` and ``folder/photo.jpg`` (the photo with ``case.tags``
    applied by exiftool) and return ``folder``."""
    folder.mkdir(parents=True)
    target = folder / "photo.jpg"
    shutil.copyfile(photo, target)
    subprocess.run(
        ["exiftool", "-q", "-overwrite_original", *case.tags, str(target)],
        check=True,
        capture_output=True,
    )
    spec = {
        "id": f"exif-{case.name}",
        "claim": case.claim,
        "media": [{"path": "photo.jpg", "role": "primary"}],
        "context": {"date": CLAIMED_DAY, "location": case.location, "language": case.language},
        "evidence": [dict(item) for item in case.evidence],
    }
    (folder / "case.yaml").write_text(yaml.safe_dump(spec, sort_keys=False, allow_unicode=True))
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder to write the case folders into")
    parser.add_argument("--case", action="append", choices=sorted(BY_NAME), help="only these")
    args = parser.parse_args(argv)
    if not PHOTO.is_file():
        print(f"{PHOTO}: the sample photo is missing", file=sys.stderr)
        return 2
    if shutil.which("exiftool") is None:
        print("exiftool: not installed (libimage-exiftool-perl)", file=sys.stderr)
        return 2
    for name in args.case or sorted(BY_NAME):
        folder = args.out / name
        if folder.exists():
            print(f"{folder}: already exists", file=sys.stderr)
            return 2
        build(BY_NAME[name], folder)
        print(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
