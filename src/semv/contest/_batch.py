"""Review batches H (Eq. 23) as files: the model, its published JSON Schema, loading."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Any, Final

from pydantic import Field, TypeAdapter, ValidationError

from semv.errors import InputError
from semv.model import Frozen, ReviewAction
from semv.safeload import loads_json, read_text_bounded

__all__ = [
    "POLICY_SYMBOL",
    "SCHEMA_FILE",
    "Policy",
    "ReviewBatch",
    "batch_schema",
    "load_batch",
    "parse_action",
]

SCHEMA_FILE: Final = Path(__file__).with_name("review-batch.schema.json")
"""The published JSON Schema of a review batch (``semv contest --schema`` prints it)."""


class Policy(StrEnum):
    """Revision policies of §6.4: what is recomputed after a batch is applied."""

    GLOBAL = "global"
    """U: everything from claims on is recomputed."""
    CAUSAL = "causal"
    """C: every subclaim from the restart stage u* on, then aggregation and output."""
    SCOPED = "scoped"
    """C+S: only the affected subclaims from u* on (their dependency closure), then Q/F/O."""


POLICY_SYMBOL: Final = {Policy.GLOBAL: "U", Policy.CAUSAL: "C", Policy.SCOPED: "C+S"}


class ReviewBatch(Frozen):
    """A non-empty batch of review actions h (Eq. 21) applied together to one run."""

    base_run: str | None = Field(
        None, description="The run the batch revises (the CLI's RUN argument may give it)."
    )
    policy: Policy | None = Field(None, description="Revision policy; default from settings.")
    actions: tuple[ReviewAction, ...] = Field(min_length=1, description="The actions h ∈ H.")


_ACTION: TypeAdapter[Any] = TypeAdapter(ReviewAction)


def parse_action(data: Any) -> Any:
    """Validate one review action (accept | reject | edit | add) from plain data."""
    return _ACTION.validate_python(data)


def batch_schema() -> dict[str, Any]:
    """The JSON Schema of ``ReviewBatch`` (the file ``SCHEMA_FILE`` holds the same)."""
    schema = ReviewBatch.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://semv.example.org/schemas/review-batch.schema.json"
    return schema


def load_batch(path: Path) -> ReviewBatch:
    """Read and validate a review batch file; ``InputError`` names the file and the problem."""
    try:
        raw = loads_json(read_text_bounded(path), str(path))
    except FileNotFoundError as exc:
        raise InputError(f"{path}: no such review batch file") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read review batch: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not valid JSON (line {exc.lineno}): {exc.msg}") from exc
    try:
        return ReviewBatch.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'batch'}: {e['msg']}" for e in exc.errors()
        )
        raise InputError(f"{path}: invalid review batch: {problems}") from exc
