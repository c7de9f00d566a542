"""The generic case-folder adapter (DESIGN §4).

A case folder holds ``case.yaml`` (or ``case.json``), its media files and, optionally, a gold
file ``gold.yaml``/``gold.json``. ``load`` accepts a case folder, a case file, or a folder of case
folders (read in name order).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Final, TypeVar

from pydantic import ValidationError

from semv.adapters._base import INTERNAL_CONTRACT, LoadedCase, limited
from semv.adapters._documents import describe_validation_error, read_document
from semv.adapters._gold import SealedGold
from semv.adapters._media import MediaProblem, load_asset
from semv.adapters._schema import CaseFile, GoldFile
from semv.errors import InputError
from semv.model import Asset, Case, Context, SuppliedEvidence, case_id_problem

__all__ = ["CASE_FILE_NAMES", "GOLD_FILE_NAMES", "GenericAdapter", "find_case_file"]

CASE_FILE_NAMES: Final = ("case.yaml", "case.yml", "case.json")
GOLD_FILE_NAMES: Final = ("gold.yaml", "gold.yml", "gold.json")

_M = TypeVar("_M", CaseFile, GoldFile)


def find_case_file(folder: Path) -> Path | None:
    """The case file of ``folder``, None when it has none; ``InputError`` when ambiguous."""
    return _single(folder, CASE_FILE_NAMES)


class GenericAdapter:
    """Reads case folders. Label contract: the internal label space."""

    name = "generic"
    contract = INTERNAL_CONTRACT

    def load(
        self, path: Path, *, text_only: bool = False, limit: int | None = None
    ) -> Iterator[LoadedCase]:
        """Yield the case(s) at ``path``; see the module docstring for accepted layouts."""
        return limited((_load_case(f, text_only=text_only) for f in _case_files(path)), limit)


def _single(folder: Path, names: tuple[str, ...]) -> Path | None:
    found = [folder / name for name in names if (folder / name).is_file()]
    if len(found) > 1:
        listed = ", ".join(file.name for file in found)
        raise InputError(f"{folder}: more than one of {listed}; keep exactly one")
    return found[0] if found else None


def _case_files(path: Path) -> Iterator[Path]:
    if path.is_file():
        yield path
        return
    if not path.is_dir():
        raise InputError(f"{path}: no such file or directory")
    own = find_case_file(path)
    if own is not None:
        yield own
        return
    found = False
    for child in sorted(path.iterdir()):
        if child.is_dir() and (case_file := find_case_file(child)) is not None:
            found = True
            yield case_file
    if not found:
        raise InputError(
            f"{path}: no case file found (expected one of {', '.join(CASE_FILE_NAMES)} "
            "in the folder or in its sub-folders)"
        )


def _load_case(case_file: Path, *, text_only: bool) -> LoadedCase:
    folder = case_file.parent
    spec = _validated(case_file, CaseFile)
    media = tuple(
        _asset(case_file, index, entry.path, entry.role, text_only=text_only)
        for index, entry in enumerate(spec.media)
    )
    evidence = _evidence(case_file, spec, media)
    case_id = spec.id or folder.absolute().name
    problem = case_id_problem(case_id)
    if problem is not None:
        field = "id" if spec.id else "id (the folder name)"
        raise InputError(f"{case_file}: {field}: case id {case_id[:60]!r} {problem}")
    case = Case(
        id=case_id,
        claim=spec.claim,
        media=media,
        context=Context(
            date=spec.context.date,
            location=spec.context.location or None,
            source_url=spec.context.source_url or None,
            language=spec.context.language or None,
        ),
        evidence=evidence,
        adapter=GenericAdapter.name,
        source_path=str(folder.absolute()),
    )
    return LoadedCase(case=case, gold=_gold(folder), released=spec.released)


def _validated(file: Path, model: type[_M]) -> _M:
    document = read_document(file)
    if not isinstance(document, dict):
        kind = "empty document" if document is None else type(document).__name__
        raise InputError(f"{file}: expected a mapping of fields at the top level, got {kind}")
    try:
        return model.model_validate(document)
    except ValidationError as exc:
        raise InputError(f"{file}: {describe_validation_error(exc)}") from exc


def _asset(case_file: Path, index: int, path: str, role: str, *, text_only: bool) -> Asset:
    folder = case_file.parent.resolve()
    target = (folder / path).resolve()
    if not target.is_relative_to(folder):
        raise InputError(
            f"{case_file}: media[{index}].path: {path} is outside the case folder "
            "(media must live in the case folder or below it)"
        )
    try:
        return load_asset(
            case_file.parent / path,
            number=index + 1,
            shown_as=path,
            role=role,
            text_only=text_only,
        )
    except MediaProblem as exc:
        field = f"media[{index}].path" if exc.about_path else f"media[{index}]"
        raise InputError(f"{case_file}: {field}: {exc}") from exc


def _evidence(
    case_file: Path, spec: CaseFile, media: tuple[Asset, ...]
) -> tuple[SuppliedEvidence, ...]:
    asset_ids = {asset.id for asset in media}
    seen: set[str] = set()
    items = []
    for index, entry in enumerate(spec.evidence):
        if entry.id is not None:
            if entry.id in seen:
                raise InputError(f"{case_file}: evidence[{index}].id: duplicate id {entry.id!r}")
            seen.add(entry.id)
        if entry.about_asset is not None and entry.about_asset not in asset_ids:
            raise InputError(
                f"{case_file}: evidence[{index}].about_asset: no media item {entry.about_asset}"
            )
        items.append(
            SuppliedEvidence(
                id=entry.id,
                text=entry.text,
                url=entry.url or None,
                title=entry.title or None,
                publisher=entry.publisher or None,
                published=entry.published or None,
                source_type=entry.source_type,
                reliability=entry.reliability,
                about_asset=entry.about_asset,
            )
        )
    return tuple(items)


def _gold(folder: Path) -> SealedGold | None:
    gold_file = _single(folder, GOLD_FILE_NAMES)
    if gold_file is None:
        return None
    gold = _validated(gold_file, GoldFile)
    return SealedGold(gold.label.value, gold.rationale or None, source=str(gold_file))
