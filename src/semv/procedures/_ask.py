"""The optional model capability the baselines' stages use for their LLM variant.

A backend that can answer a procedure's own structured prompts (``semv.agents.llm.LlmAgents``)
has ``ask`` and ``evidence_block``; the offline backend has neither, and the stages then run
their deterministic offline implementation. The LLM path falls back to the offline one, with
a ``model-fallback`` uncertainty item, when the model's answer is unusable."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel

from semv.model import Evidence, Stage, UncertaintyCode, UncertaintyItem

__all__ = ["StructuredAsker", "asker", "fallback_note"]

_A = TypeVar("_A", bound=BaseModel)


@runtime_checkable
class StructuredAsker(Protocol):
    async def ask(
        self, *, role: str, duty: str, user: str, version: str, answer: type[_A]
    ) -> tuple[_A | None, str | None]: ...

    def evidence_block(self, evidence: Sequence[Evidence]) -> list[dict[str, str]]: ...


def asker(agents: Any) -> StructuredAsker | None:
    """``agents`` when it can answer structured prompts, else None (offline)."""
    return agents if isinstance(agents, StructuredAsker) else None


def fallback_note(subject: str, role: str, problem: str) -> UncertaintyItem:
    return UncertaintyItem(
        code=UncertaintyCode.MODEL_FALLBACK,
        subject=subject,
        detail=f"{role}: {problem}; the offline rules answered"[:500],
        stages=(Stage.AGGREGATE,),
    )
