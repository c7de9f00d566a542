"""What the model must answer, role by role: one pydantic model each, whose JSON schema goes to
the server (``response_format``) and into the prompt, and which validates the answer.

These are the *model-facing* shapes; ``_agents`` turns them into the protocol's outputs
(``Claims``, ``ResearchPlan``, ``ArgumentDraft`` ...) and checks what the schema cannot (ids
that must resolve, indices that must exist).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from semv.model import Dimension

__all__ = [
    "ArgueAnswer",
    "BatchedArgueAnswer",
    "DecomposeAnswer",
    "DescribeAnswer",
    "JudgeAnswer",
    "PlanAnswer",
    "ReflectAnswer",
    "VerifyAnswer",
]


class _Answer(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SubclaimAnswer(_Answer):
    dimension: Dimension
    statement: str = Field(min_length=1)
    claim_type: str = Field(min_length=1)
    asserted: bool
    queries: list[str]


class DecomposeAnswer(_Answer):
    subclaims: list[SubclaimAnswer]


class PlanAnswer(_Answer):
    questions: list[str]
    queries: list[str]
    source_types: list[str]
    checks: list[str]
    memory_used: list[str]


class ArgumentAnswer(_Answer):
    text: str = Field(min_length=1)
    evidence: list[str]
    key_facts: list[str]


class ArgueAnswer(_Answer):
    arguments: list[ArgumentAnswer]


class StancedArgumentAnswer(ArgumentAnswer):
    stance: Literal["sup", "att"]


class BatchedArgueAnswer(_Answer):
    arguments: list[StancedArgumentAnswer]


class VerdictAnswer(_Answer):
    index: int = Field(ge=0)
    verified: bool
    reason: str


class VerifyAnswer(_Answer):
    results: list[VerdictAnswer]


class JudgeAnswer(_Answer):
    support_win_rate: float = Field(ge=0.0, le=1.0)
    reason: str


class DescribeAnswer(_Answer):
    description: str = Field(min_length=1)
    visible_text: list[str]
    objects: list[str]


class LessonAnswer(_Answer):
    text: str = Field(min_length=1)
    dimension: Dimension
    kind: Literal["strategy", "pitfall"]
    grounding: list[str]


class ReflectAnswer(_Answer):
    lessons: list[LessonAnswer]
