"""Canonical JSON and hashing shared by the store, fingerprints and the trace chain."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic_core import to_jsonable_python


def canonical_json(value: Any) -> str:
    """Deterministic JSON of models, mappings and sequences: sorted keys, no whitespace."""
    return json.dumps(
        to_jsonable_python(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def content_hash(value: Any) -> str:
    """sha256 of the canonical JSON of a value (the content address of a node output)."""
    return sha256_text(canonical_json(value))


def sha256_file(path: str, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()
