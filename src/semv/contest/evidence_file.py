"""Reviewer evidence from a file (``semv contest --add-evidence FILE``): JSON or plain text."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from semv.config import Settings
from semv.errors import InputError
from semv.model import Evidence, Modality, SourceType, SuppliedItem
from semv.safeload import loads_json, read_text_bounded

__all__ = ["evidence_from_data", "read_evidence_file"]


def read_evidence_file(path: Path, *, reviewer: str, settings: Settings) -> Evidence:
    """An evidence item from ``path``: a JSON object with Evidence fields (``content`` or
    ``text`` required; id, source, type, modality and reliability default sensibly), or any
    other file read as UTF-8 text. Human provenance is attached when the action is applied."""
    try:
        raw = read_text_bounded(path)
    except FileNotFoundError as exc:
        raise InputError(f"{path}: no such evidence file") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read evidence file: {exc}") from exc
    data: dict[str, Any]
    if path.suffix.lower() == ".json":
        try:
            loaded = loads_json(raw, str(path))
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}: not valid JSON (line {exc.lineno}): {exc.msg}") from exc
        if not isinstance(loaded, dict):
            raise InputError(f"{path}: expected a JSON object describing one evidence item")
        data = dict(loaded)
        if "text" in data and "content" not in data:
            data["content"] = data.pop("text")
    else:
        data = {"content": raw.strip()}
    return evidence_from_data(data, reviewer=reviewer, settings=settings, where=str(path))


def evidence_from_data(
    data: dict[str, Any], *, reviewer: str, settings: Settings, where: str
) -> Evidence:
    """An evidence item from plain data (Evidence fields, ``content`` required), with the same
    defaults as an evidence file; ``InputError`` names ``where`` and the problem."""
    data = dict(data)
    content = str(data.get("content") or "").strip()
    if not content:
        raise InputError(f"{where}: the evidence has no content")
    digest = hashlib.sha256(content.encode("utf-8")).hexdigest()[:10]
    data.setdefault("id", f"ev:human:{digest}")
    data.setdefault("source", reviewer)
    data.setdefault("source_type", SourceType.HUMAN.value)
    data.setdefault("modality", Modality.TEXT.value)
    data.setdefault("reliability", settings.contest.human_reliability)
    if "observation" not in data and "data" not in data:
        data["observation"] = SuppliedItem().model_dump(mode="json")
    try:
        return Evidence.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        raise InputError(f"{where}: invalid evidence: {problems}") from exc
