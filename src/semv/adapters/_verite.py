"""The VERITE adapter: ``VERITE.csv`` caption-image rows labelled true / miscaptioned /
out-of-context.

Columns: an unnamed row index, ``caption`` (the claim), ``image_path`` and ``label``. The
image is read relative to the CSV's folder when it is there. VERITE ships images only as URLs
(many dead, the archive is gated), so an image that is a URL or is absent is kept as a
not-loaded asset: the case runs text-only and the media stage records the uncertainty code
``media-not-loaded`` for it. Label contract: COSMOS (OOC / NOOC); ``semv.eval`` scores true
vs. not-true and VERITE's pairwise true/miscaptioned and true/out-of-context accuracies.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path
from typing import Final
from urllib.parse import urlsplit

from semv.adapters._base import COSMOS_CONTRACT, LoadedCase, limited
from semv.adapters._gold import SealedGold
from semv.adapters._media import MediaProblem, load_asset, media_kind
from semv.errors import InputError
from semv.model import Asset, Case

__all__ = ["VERITE_LABELS", "VeriteAdapter"]

VERITE_LABELS: Final[tuple[str, ...]] = ("true", "miscaptioned", "out-of-context")

_COLUMNS: Final = ("caption", "image_path", "label")


class VeriteAdapter:
    """Reads ``VERITE.csv``. Label contract: COSMOS."""

    name = "verite"
    contract = COSMOS_CONTRACT

    def load(
        self, path: Path, *, text_only: bool = False, limit: int | None = None
    ) -> Iterator[LoadedCase]:
        return limited(_cases(path, text_only=text_only), limit)


def _cases(path: Path, *, text_only: bool) -> Iterator[LoadedCase]:
    if path.is_dir():
        path = path / "VERITE.csv"
    try:
        handle = path.open(encoding="utf-8", newline="")
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    with handle:
        try:
            reader = csv.DictReader(handle)
            missing = [c for c in _COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                raise InputError(f"{path}: missing column(s) {', '.join(missing)}")
            for row in reader:
                yield _case(path, reader.line_num, row, text_only=text_only)
        except UnicodeDecodeError as exc:
            raise InputError(f"{path}: not UTF-8 text: {exc}") from exc
        except csv.Error as exc:
            raise InputError(f"{path}: line {reader.line_num}: {exc}") from exc


def _case(path: Path, line: int, row: dict[str, str], *, text_only: bool) -> LoadedCase:
    where = f"{path}: line {line}"
    caption = (row.get("caption") or "").strip()
    image = (row.get("image_path") or "").strip()
    label = (row.get("label") or "").strip()
    if not caption:
        raise InputError(f"{where}: caption is empty")
    if not image:
        raise InputError(f"{where}: image_path is empty")
    if label not in VERITE_LABELS:
        raise InputError(f"{where}: label {label!r} is not one of {VERITE_LABELS}")
    row_id = (row.get("") or "").strip() or str(line)
    case = Case(
        id=f"{path.stem}:{row_id}",
        claim=caption,
        media=(_asset(path, image, where, text_only=text_only),),
        adapter=VeriteAdapter.name,
        source_path=str(path.absolute()),
    )
    return LoadedCase(case=case, gold=SealedGold(label, source=where))


def _asset(path: Path, image: str, where: str, *, text_only: bool) -> Asset:
    try:
        if urlsplit(image).scheme in ("http", "https"):
            kind = media_kind(Path(urlsplit(image).path))
            return Asset(id="asset:1", path=image, kind=kind, loaded=False)
        file = path.parent / image
        present = file.is_file()
        return load_asset(
            file,
            number=1,
            shown_as=image,
            text_only=text_only or not present,
            within=path.parent,
        )
    except MediaProblem as exc:
        raise InputError(f"{where}: image {image}: {exc}") from exc
