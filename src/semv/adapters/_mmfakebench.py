"""The MMFakeBench adapter: one JSON list of image-text pairs with four-way fake classes.

Each record: ``image_path`` (relative to the dataset root; the released JSON sits in
``source/`` beside the ``real/`` and ``fake/`` image folders, so the path is tried against the
file's folder and its parent), ``text`` (the claim), ``fake_cls`` ∈ ``FAKE_CLASSES`` and
``gt_answers`` (``True`` for original pairs, ``Fake`` otherwise; it must agree with
``fake_cls``). Gold (sealed): ``fake_cls``, with the binary answer as a detail; the label maps
are ``FOUR_CLASS`` and ``BINARY``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from semv.adapters._base import INTERNAL_CONTRACT, LoadedCase, limited
from semv.adapters._documents import read_json
from semv.adapters._gold import SealedGold
from semv.adapters._media import MediaProblem, load_asset
from semv.errors import InputError
from semv.model import Case

__all__ = ["BINARY", "FAKE_CLASSES", "MmFakeBenchAdapter"]

FAKE_CLASSES: Final[tuple[str, ...]] = (
    "original",
    "textual_veracity_distortion",
    "visual_veracity_distortion",
    "mismatch",
)
"""The four-class label map (``original`` = real)."""

BINARY: Final[dict[str, str]] = {
    "original": "real",
    "textual_veracity_distortion": "fake",
    "visual_veracity_distortion": "fake",
    "mismatch": "fake",
}
"""The binary label map: every distortion class is ``fake``."""

_ANSWERS: Final = {"true": "real", "real": "real", "fake": "fake", "false": "fake"}


class MmFakeBenchAdapter:
    """Reads MMFakeBench JSON. Label contract: internal (mapped by ``semv.eval``)."""

    name = "mmfakebench"
    contract = INTERNAL_CONTRACT

    def load(
        self, path: Path, *, text_only: bool = False, limit: int | None = None
    ) -> Iterator[LoadedCase]:
        return limited(_cases(path, text_only=text_only), limit)


def _cases(path: Path, *, text_only: bool) -> Iterator[LoadedCase]:
    if not path.is_file():
        raise InputError(f"{path}: not a file (an MMFakeBench JSON list)")
    rows = read_json(path)
    if not isinstance(rows, list):
        raise InputError(f"{path}: expected a JSON list of records")
    for index, row in enumerate(rows):
        yield _case(path, index, row, text_only=text_only)


def _field(row: dict[str, Any], key: str, where: str) -> str:
    value = row.get(key)
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{where}: {key} must be a non-empty string")
    return value.strip()


def _image(path: Path, relative: str) -> Path:
    name = relative.lstrip("/")
    for root in (path.parent, path.parent.parent):
        if (root / name).is_file():
            return root / name
    return path.parent / name


def _case(path: Path, index: int, row: Any, *, text_only: bool) -> LoadedCase:
    where = f"{path}: record {index}"
    if not isinstance(row, dict):
        raise InputError(f"{where}: expected a JSON object, got {type(row).__name__}")
    text = _field(row, "text", where)
    image = _field(row, "image_path", where)
    fake_cls = _field(row, "fake_cls", where)
    if fake_cls not in FAKE_CLASSES:
        raise InputError(f"{where}: fake_cls {fake_cls!r} is not one of {FAKE_CLASSES}")
    answer = _ANSWERS.get(_field(row, "gt_answers", where).lower())
    if answer is None:
        raise InputError(f"{where}: gt_answers must be True or Fake, got {row['gt_answers']!r}")
    if answer != BINARY[fake_cls]:
        raise InputError(f"{where}: gt_answers {row['gt_answers']!r} contradicts {fake_cls}")
    try:
        asset = load_asset(
            _image(path, image),
            number=1,
            shown_as=image,
            text_only=text_only,
            within=path.parent.parent,
        )
    except MediaProblem as exc:
        raise InputError(f"{where}: image {image}: {exc}") from exc
    case = Case(
        id=f"{path.stem}:{index}",
        claim=text,
        media=(asset,),
        adapter=MmFakeBenchAdapter.name,
        source_path=str(path.absolute()),
    )
    return LoadedCase(
        case=case, gold=SealedGold(fake_cls, source=where, details={"binary": answer})
    )
