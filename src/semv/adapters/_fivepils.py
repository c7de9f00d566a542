"""The 5Pils-OOC adapter: fact-checkers' accurate and out-of-context captions of real images,
each with captions of the same image found on the web.

Input: the JSON list of 5Pils-OOC (``test.json`` of the COVE release, or a folder holding one
``*.json`` file). Per row:

- ``caption`` is the claim;
- ``evidence_captions`` (up to three, often in other languages) are captions of *this image*
  found on the web by reverse image search: supplied evidence that refers to the media
  (``SourceType.WEB``, ``about_asset`` set), never reports of an event alone;
- ``image_URL`` is the image, kept as a not-loaded asset (the dataset ships URLs only), so a
  case runs text-only and the media stage records ``media-not-loaded``;
- the gold label is ``NOOC`` when ``caption == true_caption`` (the accurate caption) and ``OOC``
  otherwise. The true caption, date, place, source and motivation, and the fact-check's URL and
  organisation, are gold details: sealed with the label and revealed only after the report is
  committed. The fact-check URL is never the case's source URL, since its slug often states the
  verdict.

Case ids are ``<file stem>:<row id>``; the two rows of one image share ``image_id``, which is the
bootstrap cluster (``cluster_key``). Label contract: COSMOS (OOC / NOOC).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

from semv.adapters._base import COSMOS_CONTRACT, LoadedCase, limited
from semv.adapters._documents import parse_json, read_text
from semv.adapters._gold import SealedGold
from semv.errors import InputError
from semv.model import Asset, Case, CosmosLabel, MediaKind, SourceType, SuppliedEvidence

__all__ = ["FIVEPILS_GOLD_DETAILS", "WEB_CAPTION_PUBLISHER", "FivePilsOocAdapter", "cluster_key"]

WEB_CAPTION_PUBLISHER: Final = "5Pils-OOC web caption of the image"
"""Publisher recorded on the supplied evidence made from ``evidence_captions``."""

FIVEPILS_GOLD_DETAILS: Final[tuple[str, ...]] = (
    "true_caption",
    "date",
    "location",
    "source",
    "motivation",
    "type_of_image",
    "claimed_location",
    "claimed_date",
    "URL",
    "org",
    "publication_date",
    "provenance",
    "verification_strategy",
    "verification_tool",
)
"""Row fields sealed with the gold label: what the fact-checker found out about the image."""

_REQUIRED: Final = ("caption", "true_caption")


class FivePilsOocAdapter:
    """Reads 5Pils-OOC's JSON list. Label contract: COSMOS (OOC / NOOC)."""

    name = "5pils-ooc"
    contract = COSMOS_CONTRACT

    def load(
        self, path: Path, *, text_only: bool = False, limit: int | None = None
    ) -> Iterator[LoadedCase]:
        """Yield one case per row of ``path``, ids ``<file stem>:<row id>``. Images are never
        fetched: every asset is a not-loaded URL whatever ``text_only`` says."""
        return limited(_cases(path), limit)


def looks_like_fivepils(record: Mapping[str, Any]) -> bool:
    """True when a JSON record has 5Pils-OOC's caption, true caption and web captions."""
    return all(key in record for key in ("caption", "true_caption", "evidence_captions"))


def cluster_key(case: Case) -> str:
    """The image a 5Pils-OOC case belongs to (its two rows share it): the asset's URL."""
    return case.media[0].path if case.media else case.id


def _file(path: Path) -> Path:
    if not path.is_dir():
        return path
    found = sorted(p for p in path.glob("*.json") if p.is_file())
    if len(found) != 1:
        listed = ", ".join(f.name for f in found) or "none"
        raise InputError(f"{path}: expected exactly one .json file (found: {listed})")
    return found[0]


def _cases(path: Path) -> Iterator[LoadedCase]:
    file = _file(path)
    rows = parse_json(read_text(file), file)
    if not isinstance(rows, list):
        raise InputError(f"{file}: expected a JSON list of 5Pils-OOC rows")
    for index, row in enumerate(rows):
        yield _case(file, index, row)


def _case(file: Path, index: int, row: Any) -> LoadedCase:
    where = f"{file}: row {index}"
    if not isinstance(row, dict):
        raise InputError(f"{where}: expected a JSON object, got {type(row).__name__}")
    claim, true_caption = (_text(row, key, where) for key in _REQUIRED)
    row_id = row.get("id", index)
    if not isinstance(row_id, int | str) or isinstance(row_id, bool):
        raise InputError(f"{where}: id must be a number or a string")
    asset = _asset(row.get("image_URL"), row.get("image_id", row_id))
    evidence = tuple(
        SuppliedEvidence(
            text=caption,
            publisher=WEB_CAPTION_PUBLISHER,
            source_type=SourceType.WEB,
            about_asset=asset.id,
        )
        for caption in _captions(row.get("evidence_captions"), where)
    )
    case = Case(
        id=f"{file.stem}:{row_id}",
        claim=claim,
        media=(asset,),
        evidence=evidence,
        adapter=FivePilsOocAdapter.name,
        source_path=str(file.absolute()),
    )
    label = CosmosLabel.NOOC if claim == true_caption else CosmosLabel.OOC
    details = {key: row[key] for key in FIVEPILS_GOLD_DETAILS if key in row}
    return LoadedCase(case=case, gold=SealedGold(label.value, source=where, details=details))


def _asset(url: object, image_id: object) -> Asset:
    """The row's image as a not-loaded asset: its URL when it has one, else a placeholder
    named after the image id (two rows of one image share it either way)."""
    if isinstance(url, str) and urlsplit(url.strip()).scheme in ("http", "https"):
        return Asset(id="asset:1", path=url.strip(), kind=MediaKind.IMAGE, loaded=False)
    return Asset(id="asset:1", path=f"5pils-image-{image_id}", kind=MediaKind.IMAGE, loaded=False)


def _captions(value: object, where: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError(f"{where}: evidence_captions must be a list")
    out = []
    for n, item in enumerate(value):
        if not isinstance(item, str):
            raise InputError(f"{where}: evidence_captions[{n}] must be a string")
        if item.strip():
            out.append(item.strip())
    return out


def _text(row: Mapping[str, Any], key: str, where: str) -> str:
    value = row.get(key)
    if value is None:
        raise InputError(f"{where}: {key} missing")
    if not isinstance(value, str):
        raise InputError(f"{where}: {key} must be a string, got {type(value).__name__}")
    if not value.strip():
        raise InputError(f"{where}: {key} is empty")
    return value.strip()
