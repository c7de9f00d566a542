"""An MV2026 case folder in the official layout, made from the Lyon example photo.

``input/lyon-flood.json`` has the eight input fields, ``input/media/`` the photo, and
``output/report.md`` a gold report in the challenge layout (sections and a
``Final Verification Status:`` line). Everything is made up; URLs live under example.org.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PHOTO = ROOT / "examples" / "lyon-flood" / "photo.jpg"

INPUT = {
    "Title": "Paris under water",
    "Caption": (
        "Flooding in Paris on 14 March 2024: the Seine has burst its banks and the quays near "
        "the Île de la Cité are under water."
    ),
    "Description": "A photo of a flooded river bank shared widely on 14 March 2024.",
    "Social Media Link": "https://social.example.org/@riverwatch/posts/48213",
    "Location": "Paris, France",
    "Violence Level": "none",
    "Category": "natural disaster",
    "Time": "2024-03-14",
}

REPORT = """# Verification report: lyon-flood

## Summary

The photo is genuine but does not show Paris in March 2024: it was taken in Lyon in 2019.

## Content classification

Category: natural disaster (claimed flood); genuine photo reused out of context.

## Source

**Original source:** https://social.example.org/@riverwatch/posts/48213
**Publication time:** 14 March 2024

## Where

The river is the Saône below the Fourvière hill in Lyon (EXIF GPS 45.7629 N, 4.8311 E).

## When

**Event time:** 2019-06-01 (EXIF DateTimeOriginal 2019-06-01 14:32:10 +02:00).

## Who

Posted by the account @riverwatch; no people are identifiable in the photo.

## Why

The post attaches an older photo to a real news event (the Seine did rise in Paris).

## Forensic analysis

No sign of editing; camera metadata (Canon EOS 80D) is consistent.

## Evidence

- https://factcheck.example.org/2024/03/15/paris-flood-photo-is-lyon-2019
- https://news.example.org/2024/03/14/seine-rises-paris
- https://photoblog.example.org/2019/06/02/saone-fourviere

## Uncertainty

None of the sources gives the exact minute of capture beyond the EXIF time.

**Final Verification Status:** False context

**Confidence:** high
"""


def make_mv2026_case(root: Path, name: str = "lyon-flood", *, media: bool = True) -> Path:
    """Write the case folder ``root/name`` and return it."""
    folder = root / name
    (folder / "input" / "media").mkdir(parents=True)
    (folder / "output").mkdir()
    (folder / "input" / f"{name}.json").write_text(
        json.dumps(INPUT, ensure_ascii=False, indent=2), encoding="utf-8"
    )
    if media:
        shutil.copy(PHOTO, folder / "input" / "media" / "photo.jpg")
    (folder / "output" / "report.md").write_text(REPORT, encoding="utf-8")
    return folder
