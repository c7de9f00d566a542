"""The adapter registry: lookup by name (listing valid names on a miss) and format detection."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final

from semv.adapters._base import Adapter
from semv.adapters._cosmos import CosmosAdapter, looks_like_cosmos
from semv.adapters._generic import CASE_FILE_NAMES, GenericAdapter, find_case_file
from semv.errors import AdapterNotFound, InputError

__all__ = ["adapter_names", "detect_adapter", "get_adapter"]

_ADAPTERS: Final[dict[str, Adapter]] = {
    adapter.name: adapter for adapter in (GenericAdapter(), CosmosAdapter())
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
    a ``.json``/``.jsonl`` file whose first row has ``caption1`` and ``caption2`` → cosmos.
    Raises ``InputError`` when nothing matches.
    """
    if path.is_dir():
        if find_case_file(path) is not None or any(
            child.is_dir() and find_case_file(child) is not None for child in path.iterdir()
        ):
            return _ADAPTERS[GenericAdapter.name]
    elif path.is_file():
        if path.name in CASE_FILE_NAMES:
            return _ADAPTERS[GenericAdapter.name]
        if path.suffix.lower() in (".json", ".jsonl") and _first_row_is_cosmos(path):
            return _ADAPTERS[CosmosAdapter.name]
    else:
        raise InputError(f"{path}: no such file or directory")
    raise InputError(
        f"{path}: cannot detect the dataset format; name an adapter ({', '.join(adapter_names())})"
    )


def _first_row_is_cosmos(path: Path) -> bool:
    try:
        with path.open(encoding="utf-8") as handle:
            first = next((line for line in handle if line.strip()), "")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read: {exc}") from exc
    if first.lstrip().startswith("[") and not looks_like_cosmos(first):
        try:
            rows = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            return False
        return isinstance(rows, list) and bool(rows) and looks_like_cosmos(json.dumps(rows[0]))
    return looks_like_cosmos(first)
