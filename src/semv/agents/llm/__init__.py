"""The LLM backend: every agent role over any OpenAI-compatible chat-completions server.

``LlmAgents`` (and the two names beside it) import on first use: ``semv verify`` sends the
decomposer's first request (``semv.agents.llm._prefetch``) with only the client, the prompts
and the schemas loaded, before the backend's roles, the offline fallback and the pipeline are
imported."""

from __future__ import annotations

import sys
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
    from semv.agents.llm._judge import local_judge
    from semv.agents.llm._local import LOCAL_URL, LocalTransport, local_model
    from semv.agents.llm._models import ModelMissing
    from semv.agents.llm._prefetch import start_decompose
    from semv.agents.llm._prompts import render_from, untrusted

__all__ = [
    "LOCAL_URL",
    "ChatReply",
    "ChatRequest",
    "ImageDescribeInput",
    "ImageDescription",
    "LessonCandidate",
    "LlmAgents",
    "LlmClient",
    "LlmUnavailable",
    "LocalTransport",
    "ModelMissing",
    "ReflectInput",
    "ReflectOutput",
    "ReplayMiss",
    "TraceArgument",
    "TraceSubclaim",
    "local_judge",
    "local_model",
    "render_from",
    "repair_evidence_id",
    "start_decompose",
    "tls_needed",
    "untrusted",
]

_LAZY = {
    "LlmAgents": "_agents",
    "ReplayMiss": "_agents",
    "repair_evidence_id": "_agents",
    "local_judge": "_judge",
    "LOCAL_URL": "_local",
    "LocalTransport": "_local",
    "local_model": "_local",
    "ModelMissing": "_models",
    "start_decompose": "_prefetch",
    "render_from": "_prompts",
    "untrusted": "_prompts",
}
"""Names imported on first use, each from its module (importing this package stays light)."""


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    # the import statement's machinery (``__import__``), not ``importlib.import_module``:
    # only the former is logged by ``python -X importtime``, which start-up profiles (and
    # the test that the early request leaves before the pipeline loads) read
    full = f"{__name__}.{module}"
    __import__(full)
    return getattr(sys.modules[full], name)
