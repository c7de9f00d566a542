"""Inputs and outputs of the two roles whose stages live in other modules: ``describe`` (an
image, for perception) and ``reflect`` (memory candidates after gold is revealed). The
integrator aligns these with the protocol methods those modules add."""

from __future__ import annotations

from pydantic import Field

from semv.model import Asset, Dimension, Evidence, Frozen, Stance, UncertaintyItem

__all__ = [
    "ImageDescribeInput",
    "ImageDescription",
    "LessonCandidate",
    "ReflectInput",
    "ReflectOutput",
    "TraceArgument",
    "TraceSubclaim",
]


class ImageDescribeInput(Frozen):
    """Describe one image asset (VLM role). The image goes to the model as a data URL."""

    asset: Asset
    claim: str | None = Field(None, description="The claim shared with the image (untrusted).")


class ImageDescription(Frozen):
    asset_id: str
    description: str = Field(description="What is visibly shown ('' when unavailable).")
    visible_text: tuple[str, ...] = ()
    objects: tuple[str, ...] = ()
    uncertainty: tuple[UncertaintyItem, ...] = ()


class TraceArgument(Frozen):
    id: str
    stance: Stance
    text: str
    evidence: tuple[str, ...]
    verified: bool
    strength: float


class TraceSubclaim(Frozen):
    id: str
    dimension: Dimension
    statement: str
    decision: str
    score: float
    arguments: tuple[TraceArgument, ...]


class ReflectInput(Frozen):
    """A committed run and its revealed gold label → candidate lessons for memory."""

    case_id: str
    claim: str
    predicted: str
    gold: str
    subclaims: tuple[TraceSubclaim, ...]
    evidence: tuple[Evidence, ...] = ()
    max_lessons: int = Field(3, ge=1)


class LessonCandidate(Frozen):
    text: str
    dimension: Dimension
    kind: str = Field(pattern=r"^(strategy|pitfall)$")
    grounding: tuple[str, ...] = Field(description="Argument / evidence ids of the run.")
    unresolved: tuple[str, ...] = Field(
        (), description="Ids the model cited that are not in the run (dropped from grounding)."
    )


class ReflectOutput(Frozen):
    candidates: tuple[LessonCandidate, ...]
    uncertainty: tuple[UncertaintyItem, ...] = ()
