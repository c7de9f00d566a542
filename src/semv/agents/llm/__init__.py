"""The LLM backend: every agent role over any OpenAI-compatible chat-completions server."""

from semv.agents.llm._agents import LlmAgents, ReplayMiss, repair_evidence_id
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
