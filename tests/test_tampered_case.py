"""End to end on a constructed tampered case: a real camera photo with an object
from another photo pasted in and the file re-saved at another quality *with its old EXIF block*
— what editors and ``exiftool`` do by default, and what made the hidden case end
``partially-verified`` with authenticity ``weakly-supported``: the camera make/model and
consistent timestamps argued for an unedited capture although the pixels were edited.

The case is built at test time from two training-split photos of the forensic corpus
(``semv.eval.forensic_corpus.split_of``; the held-out split is never read) and checked both
ways: the tampered photo's authenticity must not come out supported by its camera EXIF, and the
untouched photo put through the same re-save (the negative control) must not be attacked or
refuted. Shared data is read in place; nothing of it is written to the repository.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
import yaml
from PIL import Image

import semv
from semv.eval.forensic_corpus import split_of
from semv.model import Result
from tests.conftest import shared_data

pytestmark = [pytest.mark.shared_data, pytest.mark.slow]

HOST = ("metadata-extractor-images", "jpg", "Sony DSC-HX5V (2).jpg")
"""SONY DSC-HX5V, 730×547, captured and modified 2010-05-15 17:12:05, GPS in Germany: camera
make/model with consistent timestamps, the EXIF the old rule counted as support."""
DONOR = ("exif-samples", "jpg", "gps", "DSCN0025.jpg")
"""Nikon street scene; the two walkers (72×108 px) are the pasted object."""
OBJECT = (112, 272, 184, 380)
AT = (517, 389)
"""Off the 8×8 grid, on the field beside the signpost."""
QUALITY = 85
"""The re-save (the camera saved at about 99)."""
CLAIM = (
    "Two walkers pass the Alt Hammoor signpost by a wheat field in North Rhine-Westphalia, "
    "Germany, on 15 May 2010."
)
SUPPORTED = ("supported", "weakly-supported")
REFUTED = ("refuted", "weakly-refuted")


def build(folder: Path, *, tampered: bool) -> Path:
    """A case folder with the host photo re-saved at ``QUALITY`` with its EXIF block, the
    donor's object pasted first when ``tampered``."""
    host_path, donor_path = shared_data(*HOST), shared_data(*DONOR)
    for source in (HOST, DONOR):  # training split of the forensic corpus (own groups)
        assert split_of("/".join(source)) == "train"
    with Image.open(host_path) as raw:
        exif = raw.info["exif"]
        photo = raw.convert("RGB")
    if tampered:
        with Image.open(donor_path) as raw:
            photo.paste(raw.convert("RGB").crop(OBJECT), AT)
    folder.mkdir(parents=True)
    photo.save(folder / "photo.jpg", "JPEG", quality=QUALITY, exif=exif)
    spec = {
        "id": folder.name,
        "claim": CLAIM,
        "media": [{"path": "photo.jpg", "role": "primary"}],
        "context": {"language": "en"},
    }
    (folder / "case.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    return folder


def authenticity(result: Result) -> tuple[str, list[tuple[str, tuple[str, ...]]]]:
    sub = next(s for s in result.subclaims if s.dimension == "authenticity")
    return sub.decision, [(a.stance.value, tuple(a.evidence)) for a in sub.arguments]


def camera_exif_is_consistent(photo: Path) -> bool:
    """The precondition of the old support, read from the file: camera make/model, no
    Software tag, capture (DateTimeOriginal) and modification (DateTime) within a day."""
    with Image.open(photo) as raw:
        exif = raw.getexif()
    capture = exif.get_ifd(0x8769).get(0x9003)  # Exif IFD, DateTimeOriginal
    modify = exif.get(0x0132)  # DateTime
    if not (exif.get(0x010F) and exif.get(0x0110) and capture and modify):
        return False
    times = [dt.datetime.strptime(str(t).strip(), "%Y:%m:%d %H:%M:%S") for t in (capture, modify)]
    return 0x0131 not in exif and abs(times[1] - times[0]) <= dt.timedelta(days=1)


def test_pasted_object_with_camera_exif_is_not_supported_as_authentic(tmp_path: Path) -> None:
    folder = build(tmp_path / "tampered", tampered=True)
    assert camera_exif_is_consistent(folder / "photo.jpg")  # the old rule's precondition holds
    result = semv.verify(folder, data_dir=tmp_path / "s")
    decision, arguments = authenticity(result)
    assert decision not in SUPPORTED
    assert not [a for a in arguments if a[0] == "sup" and "ev:exif:asset:1" in a[1]]
    # the EXIF item still argues where it is bound to the claim: time and place
    by_dim = {s.dimension: s.decision for s in result.subclaims}
    assert by_dim["when"] in SUPPORTED and by_dim["where"] in SUPPORTED
    # the sign in the photo reads "Alt Hammoor", which the caption states (its parse misses
    # the name): an extraction miss is no refutation of the caption's context
    assert by_dim["why"] not in REFUTED


def test_untouched_photo_resaved_is_not_attacked(tmp_path: Path) -> None:
    """Negative control: the same re-save without the paste is neither attacked nor refuted
    (the fix must not turn camera EXIF, a re-save or a map anomaly into evidence of editing)."""
    folder = build(tmp_path / "clean", tampered=False)
    assert camera_exif_is_consistent(folder / "photo.jpg")
    result = semv.verify(folder, data_dir=tmp_path / "s")
    decision, arguments = authenticity(result)
    assert decision not in REFUTED
    assert not [a for a in arguments if a[0] == "att"]
    assert result.label != "manipulated-or-synthetic"
