"""The MV2026 adapter: Grand Challenge case folders in the official layout.

A case folder holds ``input/<name>.json`` (one JSON object: title, caption, description, social
media link, location, violence level, category, time; keys compared case- and space-insensitively)
and the media under ``input/media/``; its gold report is ``output/report.md``. PATH is one case
folder or a folder of case folders (sorted by name; the folder name is the case id).

Case: the claim is the caption (else the title, else the description); the title and the
description, when they are not the claim, are supplied evidence from the case input; ``time``,
``location`` and ``social media link`` are the claimed context. ``violence level`` and
``category`` have no place in a case and are not used.

Gold (sealed): the internal label named by the report's ``Final Verification Status:`` line
(the six MV labels, or ``uncertain``), and as details the report's cited URLs, its event and
publication times, and which of the 14 required fields it fills.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

from semv.adapters._base import INTERNAL_CONTRACT, LoadedCase, limited
from semv.adapters._documents import read_json, read_text
from semv.adapters._gold import SealedGold
from semv.adapters._media import MEDIA_EXTENSIONS, MediaProblem, load_asset
from semv.adapters._mvreport import parse_mv_report, status_label
from semv.errors import InputError
from semv.model import Asset, Case, Context, SourceType, SuppliedEvidence

__all__ = ["INPUT_FIELDS", "Mv2026Adapter", "is_mv2026_case"]

INPUT_FIELDS: Final = (
    "title",
    "caption",
    "description",
    "social_media_link",
    "location",
    "violence_level",
    "category",
    "time",
)
"""The input fields of an MV2026 case (normalised key spelling)."""

INPUT_PUBLISHER: Final = "MV2026 case input"


class Mv2026Adapter:
    """Reads MV2026 case folders. Label contract: internal (the six MV labels)."""

    name = "mv2026"
    contract = INTERNAL_CONTRACT

    def load(
        self, path: Path, *, text_only: bool = False, limit: int | None = None
    ) -> Iterator[LoadedCase]:
        return limited(
            (_load(folder, text_only=text_only) for folder in _case_folders(path)), limit
        )


def is_mv2026_case(folder: Path) -> bool:
    """True when ``folder`` has an ``input/`` folder holding a JSON file."""
    return (folder / "input").is_dir() and any((folder / "input").glob("*.json"))


def _case_folders(path: Path) -> Iterator[Path]:
    if not path.is_dir():
        raise InputError(f"{path}: not a folder (an MV2026 case folder or a folder of them)")
    if is_mv2026_case(path):
        yield path
        return
    found = [child for child in sorted(path.iterdir()) if child.is_dir() and is_mv2026_case(child)]
    if not found:
        raise InputError(
            f"{path}: no MV2026 case found (expected input/<name>.json in the folder or in its "
            "sub-folders)"
        )
    yield from found


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.strip().lower()).strip("_")


def _input(folder: Path) -> tuple[Path, dict[str, str]]:
    files = sorted((folder / "input").glob("*.json"))
    if len(files) != 1:
        listed = ", ".join(f.name for f in files)
        raise InputError(f"{folder / 'input'}: expected exactly one JSON file, found {listed}")
    file = files[0]
    document = read_json(file)
    if not isinstance(document, dict):
        raise InputError(f"{file}: expected a JSON object, got {type(document).__name__}")
    values: dict[str, str] = {}
    for raw_key, value in document.items():
        key = _key(str(raw_key))
        if key not in INPUT_FIELDS:
            known = ", ".join(INPUT_FIELDS)
            raise InputError(f"{file}: unknown field {raw_key!r} (known: {known})")
        if value is None:
            continue
        if not isinstance(value, str | int | float):
            raise InputError(f"{file}: {raw_key} must be text, got {type(value).__name__}")
        values[key] = str(value).strip()
    if not any(values.get(k) for k in ("caption", "title", "description")):
        raise InputError(f"{file}: caption, title and description are all empty")
    return file, values


def _media(folder: Path, *, text_only: bool) -> tuple[Asset, ...]:
    media_dir = folder / "input" / "media"
    if not media_dir.is_dir():
        return ()
    files = [f for f in sorted(media_dir.iterdir()) if f.is_file() and not f.name.startswith(".")]
    assets = []
    for number, file in enumerate(files, start=1):
        if file.suffix.lower() not in MEDIA_EXTENSIONS:
            continue  # sidecar files (notes, checksums) are not media
        shown = f"input/media/{file.name}"
        try:
            assets.append(
                load_asset(file, number=number, shown_as=shown, text_only=text_only, within=folder)
            )
        except MediaProblem as exc:
            raise InputError(f"{folder}: {shown}: {exc}") from exc
    return tuple(
        asset.model_copy(update={"id": f"asset:{i}", "position": i - 1})
        for i, asset in enumerate(assets, start=1)
    )


def _url(value: str | None) -> str | None:
    if not value:
        return None
    parts = urlsplit(value)
    return value if parts.scheme in ("http", "https") and parts.netloc else None


def _load(folder: Path, *, text_only: bool) -> LoadedCase:
    _file, values = _input(folder)
    claim_key = next(k for k in ("caption", "title", "description") if values.get(k))
    evidence = tuple(
        SuppliedEvidence(
            id=f"input:{key}",
            text=values[key],
            publisher=INPUT_PUBLISHER,
            source_type=SourceType.SUPPLIED,
        )
        for key in ("title", "description")
        if key != claim_key and values.get(key)
    )
    case = Case(
        id=folder.absolute().name,
        claim=values[claim_key],
        media=_media(folder, text_only=text_only),
        context=Context(
            date=values.get("time") or None,
            location=values.get("location") or None,
            source_url=_url(values.get("social_media_link")),
        ),
        evidence=evidence,
        adapter=Mv2026Adapter.name,
        source_path=str(folder.absolute()),
    )
    return LoadedCase(case=case, gold=_gold(folder))


def _gold(folder: Path) -> SealedGold | None:
    report_file = folder / "output" / "report.md"
    if not report_file.is_file():
        return None
    report = parse_mv_report(read_text(report_file))
    if report.status is None:
        raise InputError(f"{report_file}: no 'Final Verification Status:' line")
    label = status_label(report.status)
    if label is None:
        raise InputError(
            f"{report_file}: unknown final verification status {report.status!r} "
            "(expected one of the MV labels: verified, mostly verified, partially verified, "
            "false context, manipulated or synthetic, insufficient evidence)"
        )
    details: dict[str, Any] = {
        "urls": list(report.urls),
        "event_time": report.event_time.isoformat() if report.event_time else None,
        "publication_times": [d.isoformat() for d in report.publication_times],
        "fields": report.fields,
    }
    return SealedGold(label.value, source=str(report_file), details=details)
