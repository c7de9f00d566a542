"""The LLM backend: every agent role over any OpenAI-compatible chat-completions server."""

from semv.agents.llm._agents import (
    DescribeInput,
    ImageDescription,
    LessonCandidate,
    LlmAgents,
    ReflectInput,
    ReflectOutput,
    ReplayMiss,
    TraceArgument,
    TraceSubclaim,
    repair_evidence_id,
)
from semv.agents.llm._client import ChatReply, ChatRequest, LlmClient, LlmUnavailable

__all__ = [
    "ChatReply",
    "ChatRequest",
    "DescribeInput",
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
]
