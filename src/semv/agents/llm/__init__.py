"""The LLM backend: every agent role over any OpenAI-compatible chat-completions server.

``LlmAgents`` (and the two names beside it) import on first use: ``semv verify`` sends the
decomposer's first request (``semv.agents.llm._prefetch``) with only the client, the prompts
and the schemas loaded, before the backend's roles, the offline fallback and the pipeline are
imported."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from semv.agents.llm._client import (
    ChatReply,
    ChatRequest,
    LlmClient,
    LlmUnavailable,
    tls_needed,
)
from semv.agents.llm._contracts import (
    ImageDescribeInput,
    ImageDescription,
    LessonCandidate,
    ReflectInput,
    ReflectOutput,
    TraceArgument,
    TraceSubclaim,
)

if TYPE_CHECKING:
    from semv.agents.llm._agents import LlmAgents, ReplayMiss, repair_evidence_id

__all__ = [
    "ChatReply",
    "ChatRequest",
    "ImageDescribeInput",
    "ImageDescription",
    "LessonCandidate",
    "LlmAgents",
    "LlmClient",
    "LlmUnavailable",
    "ReflectInput",
    "ReflectOutput",
    "ReplayMiss",
    "TraceArgument",
    "TraceSubclaim",
    "repair_evidence_id",
    "tls_needed",
]

_FROM_AGENTS = frozenset({"LlmAgents", "ReplayMiss", "repair_evidence_id"})


def __getattr__(name: str) -> Any:
    if name in _FROM_AGENTS:
        from semv.agents.llm import _agents

        return getattr(_agents, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
