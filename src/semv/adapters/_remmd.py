"""The ReMMDBench adapter: multilingual multi-image articles with L1/L2/L3 annotations.

Three layouts of the same records:

- the benchmark folder: ``<id>/sample.json`` (``text``, ``images``: file names relative to the
  sample folder; other keys such as language or region are kept out of the case) and
  ``<id>/annotation.json`` (``verdict`` = L1, ``distortion_taxonomy`` = L2, ``rationale`` = L3);
- the published ReMMD-Agent runs, ``samples/<id>/result.json``: text-only, the retrieved
  evidence supplied with each case (``semv.adapters._remmd_runs``);
- the project-page export ``samples.json`` (a list of records with ``id``, ``text``, ``images``,
  ``verdict``, ``distortions``, ``rationale``). Its image paths point into the web site
  (``assets/samples/<id>/01.webp``); an image that is not present beside the file is kept as a
  not-loaded asset, so the case runs text-only for it and the media stage records
  ``media-not-loaded``.

Gold (sealed): the L1 verdict as the label, the rationale, and the L2 labels as details.
L2 labels may be given as full names or codes (``T3``); they are stored as full names.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from semv.adapters._base import INTERNAL_CONTRACT, LoadedCase, limited
from semv.adapters._documents import read_json
from semv.adapters._gold import SealedGold
from semv.adapters._media import MediaProblem, load_asset, media_kind
from semv.errors import InputError
from semv.model import REMMD_L1, REMMD_L2, Asset, Case

__all__ = ["REMMD_L1", "REMMD_L2", "RemmdAdapter", "l2_label"]

_BY_CODE: Final = {label.code: label for label in REMMD_L2}
_BY_NAME: Final = {label.lower(): label for label in REMMD_L2}


def l2_label(value: str) -> str | None:
    """The full L2 label for a full name or a code (``"t3"``, ``"T3 Misleading Context"``)."""
    text = value.strip()
    return _BY_NAME.get(text.lower()) or _BY_CODE.get(text.split()[0].upper() if text else "")


class RemmdAdapter:
    """Reads ReMMDBench samples. Label contract: internal (semv's output is mapped to the
    five L1 labels by ``semv.eval``)."""

    name = "remmd"
    contract = INTERNAL_CONTRACT

    def load(
        self, path: Path, *, text_only: bool = False, limit: int | None = None
    ) -> Iterator[LoadedCase]:
        return limited(self._cases(path, text_only=text_only), limit)

    def _cases(self, path: Path, *, text_only: bool) -> Iterator[LoadedCase]:
        from semv.adapters._remmd_runs import is_runs_folder, load_runs

        if is_runs_folder(path):
            yield from load_runs(path, adapter=self.name, text_only=text_only)
            return
        records = _showcase(path) if _is_showcase(path) else _benchmark(path)
        yield from records(text_only)


def _is_showcase(path: Path) -> bool:
    return path.is_file() or (path.is_dir() and (path / "samples.json").is_file())


def _str(record: dict[str, Any], key: str, where: str, *, required: bool = True) -> str:
    value = record.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise InputError(f"{where}: {key} must be a non-empty string")
    return value.strip()


def _labels(record: dict[str, Any], key: str, where: str) -> list[str]:
    value = record.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(f"{where}: {key} must be a list of strings")
    labels = []
    for item in value:
        label = l2_label(item)
        if label is None:
            raise InputError(f"{where}: {key}: unknown L2 label {item!r} (known: {REMMD_L2})")
        labels.append(label)
    return sorted(set(labels), key=REMMD_L2.index)


def _gold(record: dict[str, Any], where: str, l2_key: str) -> SealedGold:
    verdict = _str(record, "verdict", where)
    if verdict not in REMMD_L1:
        raise InputError(f"{where}: verdict {verdict!r} is not an L1 label {REMMD_L1}")
    return SealedGold(
        verdict,
        _str(record, "rationale", where, required=False) or None,
        source=where,
        details={"l2": _labels(record, l2_key, where)},
    )


def _benchmark(path: Path) -> Any:
    if not path.is_dir():
        raise InputError(f"{path}: not a folder of ReMMDBench samples")
    folders = [d for d in sorted(path.iterdir()) if (d / "sample.json").is_file()]
    if not folders:
        raise InputError(f"{path}: no <id>/sample.json found (ReMMDBench layout)")

    def records(text_only: bool) -> Iterator[LoadedCase]:
        for folder in folders:
            sample_file = folder / "sample.json"
            sample = read_json(sample_file)
            if not isinstance(sample, dict):
                raise InputError(f"{sample_file}: expected a JSON object")
            assets = _assets(folder, sample.get("images", []), str(sample_file), text_only, True)
            annotation_file = folder / "annotation.json"
            gold = None
            if annotation_file.is_file():
                annotation = read_json(annotation_file)
                if not isinstance(annotation, dict):
                    raise InputError(f"{annotation_file}: expected a JSON object")
                gold = _gold(annotation, str(annotation_file), "distortion_taxonomy")
            yield LoadedCase(
                case=Case(
                    id=folder.name,
                    claim=_str(sample, "text", str(sample_file)),
                    media=assets,
                    adapter=RemmdAdapter.name,
                    source_path=str(folder.absolute()),
                ),
                gold=gold,
            )

    return records


def _showcase(path: Path) -> Any:
    file = path / "samples.json" if path.is_dir() else path
    rows = read_json(file)
    if not isinstance(rows, list):
        raise InputError(f"{file}: expected a JSON list of samples")

    def records(text_only: bool) -> Iterator[LoadedCase]:
        for index, row in enumerate(rows):
            where = f"{file}: sample {index}"
            if not isinstance(row, dict):
                raise InputError(f"{where}: expected a JSON object")
            sample_id = row.get("id")
            if not isinstance(sample_id, str | int):
                raise InputError(f"{where}: id missing")
            yield LoadedCase(
                case=Case(
                    id=str(sample_id),
                    claim=_str(row, "text", where),
                    media=_assets(file.parent, row.get("images", []), where, text_only, False),
                    adapter=RemmdAdapter.name,
                    source_path=str(file.absolute()),
                ),
                gold=_gold(row, where, "distortions"),
            )

    return records


def _assets(
    folder: Path, images: object, where: str, text_only: bool, must_exist: bool
) -> tuple[Asset, ...]:
    if not isinstance(images, list) or not all(isinstance(i, str) for i in images):
        raise InputError(f"{where}: images must be a list of file names")
    assets = []
    for number, name in enumerate(images, start=1):
        file = folder / name
        if not file.is_file() and name.startswith("assets/"):
            file = folder / name.removeprefix("assets/")
        present = file.is_file()
        if must_exist and not present and not text_only:
            raise InputError(f"{where}: image {name}: file not found")
        try:
            if present or text_only:
                assets.append(
                    load_asset(
                        file, number=number, shown_as=name, text_only=text_only, within=folder
                    )
                )
            else:
                media_kind(file)
                assets.append(
                    load_asset(file, number=number, shown_as=name, text_only=True, within=folder)
                )
        except MediaProblem as exc:
            raise InputError(f"{where}: image {name}: {exc}") from exc
    return tuple(assets)
