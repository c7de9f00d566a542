"""The adapter registry: lookup by name (listing valid names on a miss) and format detection."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final

from semv.adapters._base import Adapter, LoadedCase
from semv.adapters._cosmos import CosmosAdapter, looks_like_cosmos
from semv.adapters._fivepils import FivePilsOocAdapter, looks_like_fivepils
from semv.adapters._generic import CASE_FILE_NAMES, GenericAdapter, find_case_file
from semv.adapters._mmfakebench import MmFakeBenchAdapter
from semv.adapters._mv2026 import Mv2026Adapter, is_mv2026_case
from semv.adapters._remmd import RemmdAdapter
from semv.adapters._verite import VeriteAdapter
from semv.errors import AdapterNotFound, InputError
from semv.safeload import loads_json

__all__ = ["adapter_names", "detect_adapter", "get_adapter", "load_cases"]

_ADAPTERS: Final[dict[str, Adapter]] = {
    adapter.name: adapter
    for adapter in (
        GenericAdapter(),
        CosmosAdapter(),
        Mv2026Adapter(),
        RemmdAdapter(),
        MmFakeBenchAdapter(),
        VeriteAdapter(),
        FivePilsOocAdapter(),
    )
}


def adapter_names() -> tuple[str, ...]:
    """The registered adapter names, sorted."""
    return tuple(sorted(_ADAPTERS))


def get_adapter(name: str) -> Adapter:
    """The adapter called ``name``; ``AdapterNotFound`` (listing valid names) otherwise."""
    try:
        return _ADAPTERS[name]
    except KeyError:
        valid = ", ".join(adapter_names())
        raise AdapterNotFound(f"unknown adapter {name!r}; valid adapters: {valid}") from None


def detect_adapter(path: Path) -> Adapter:
    """Guess the adapter for ``path``.

    A folder with a case file (or whose sub-folders have one), or a case file itself → generic;
    a ``.json``/``.jsonl`` file whose first row has ``caption1`` and ``caption2`` → cosmos;
    a folder with ``input/*.json`` (or sub-folders with one) → mv2026; a folder of
    ``<id>/sample.json`` → remmd; a ``.csv`` with ``caption,image_path,label`` → verite; a JSON
    list whose first record has ``fake_cls`` → mmfakebench; a JSON list whose first record has
    ``caption``, ``true_caption`` and ``evidence_captions`` → 5pils-ooc.
    Raises ``InputError`` when nothing matches.
    """
    if path.is_dir():
        children = [child for child in sorted(path.iterdir()) if child.is_dir()]
        if find_case_file(path) is not None or any(
            find_case_file(child) is not None for child in children
        ):
            return _ADAPTERS[GenericAdapter.name]
        if is_mv2026_case(path) or any(is_mv2026_case(child) for child in children):
            return _ADAPTERS[Mv2026Adapter.name]
        if any((child / "sample.json").is_file() for child in children):
            return _ADAPTERS[RemmdAdapter.name]
    elif path.is_file():
        if path.name in CASE_FILE_NAMES:
            return _ADAPTERS[GenericAdapter.name]
        if path.suffix.lower() in (".json", ".jsonl") and _first_row_is_cosmos(path):
            return _ADAPTERS[CosmosAdapter.name]
        if path.suffix.lower() == ".csv" and _csv_header_is_verite(path):
            return _ADAPTERS[VeriteAdapter.name]
        if path.suffix.lower() == ".json" and _first_record_has(path, "fake_cls"):
            return _ADAPTERS[MmFakeBenchAdapter.name]
        if path.suffix.lower() == ".json" and _first_record_is_fivepils(path):
            return _ADAPTERS[FivePilsOocAdapter.name]
    else:
        raise InputError(f"{path}: no such file or directory")
    raise InputError(
        f"{path}: cannot detect the dataset format; name an adapter ({', '.join(adapter_names())})"
    )


def load_cases(
    path: Path, *, adapter: str | None = None, text_only: bool = False, limit: int | None = None
) -> tuple[str, list[LoadedCase]]:
    """Read and validate every case at ``path`` before anything runs (bad input leaves no
    run): the adapter's contract and the cases."""
    if not path.exists():
        raise InputError(f"{path}: no such file or directory")
    chosen = get_adapter(adapter) if adapter else detect_adapter(path)
    cases = list(chosen.load(path, text_only=text_only, limit=limit))
    if not cases:
        raise InputError(f"{path}: no cases found ({chosen.name} adapter)")
    return chosen.contract, cases


def _first_row_is_cosmos(path: Path) -> bool:
    try:
        with path.open(encoding="utf-8") as handle:
            first = next((line for line in handle if line.strip()), "")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read: {exc}") from exc
    if first.lstrip().startswith("[") and not looks_like_cosmos(first):
        try:
            rows = loads_json(path.read_text(encoding="utf-8"), str(path))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, InputError):
            return False
        return isinstance(rows, list) and bool(rows) and looks_like_cosmos(json.dumps(rows[0]))
    return looks_like_cosmos(first)


def _csv_header_is_verite(path: Path) -> bool:
    try:
        with path.open(encoding="utf-8") as handle:
            header = handle.readline()
    except (OSError, UnicodeDecodeError):
        return False
    columns = {c.strip() for c in header.split(",")}
    return {"caption", "image_path", "label"} <= columns


def _first_record_has(path: Path, key: str) -> bool:
    try:
        rows = loads_json(path.read_text(encoding="utf-8"), str(path))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, InputError):
        return False
    return isinstance(rows, list) and bool(rows) and isinstance(rows[0], dict) and key in rows[0]


def _first_record_is_fivepils(path: Path) -> bool:
    try:
        rows = loads_json(path.read_text(encoding="utf-8"), str(path))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, InputError):
        return False
    return (
        isinstance(rows, list)
        and bool(rows)
        and isinstance(rows[0], dict)
        and looks_like_fivepils(rows[0])
    )
