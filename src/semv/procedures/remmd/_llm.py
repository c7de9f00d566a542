"""The LLM variant of each ReMMD step over the project's LLM backend (``semv.agents.llm``).

Prompts are data (``prompts/*.j2``, versioned like the backend's own); post text, OCR,
descriptions and evidence are quoted in ``<untrusted>`` blocks (the backend's delimiter
defusing) under the backend's shared system prompt. A request goes through the backend's
client, response cache (``--replay`` included) and usage ledger; an answer is validated
against its schema, repaired once, and otherwise the step keeps its offline result with a
``model-fallback`` uncertainty item.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import time
from functools import cache
from importlib import resources
from typing import Any, Literal, TypeVar

import jinja2
from pydantic import BaseModel, ConfigDict

from semv.agents.llm import LlmAgents
from semv.agents.llm._agents import ReplayMiss, _parse
from semv.agents.llm._cache import request_key
from semv.agents.llm._client import ChatRequest, LlmUnavailable
from semv.agents.llm._prompts import system_prompt, untrusted
from semv.model import Stage, UncertaintyCode, UncertaintyItem
from semv.usage import CallRecord, current_node

__all__ = [
    "DiagnosisAnswer",
    "JudgeAnswer",
    "PointsAnswer",
    "RationaleAnswer",
    "VeracityAnswer",
    "ask",
    "llm_backend",
    "prompt_version",
]

PROMPTS = ("points", "judge", "veracity", "diagnosis", "rationale")
_VERSION = re.compile(r"\{#-?\s*version:\s*(\d+)\s*-?#\}")
_DUTIES = {
    "points": "You decompose social-media posts into atomic points for fact-checkers.",
    "judge": "You judge atomic points of a post against the evidence linked to them.",
    "veracity": "You decide a post's five-way veracity from the states of its points.",
    "diagnosis": "You diagnose a post's distortion types after its veracity is decided.",
    "rationale": "You write short, factual verdict rationales in the post's language.",
}
_A = TypeVar("_A", bound=BaseModel)


class _Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PointAnswer(_Answer):
    text: str
    type: Literal["image_observation", "cross_modal_binding", "sentence_level", "narrative_level"]
    role: Literal["attribution", "event", "number", "date", "entity", "detail", "visual"]
    central: bool
    query: str
    bridge_query: str | None = None


class PointsAnswer(_Answer):
    post_summary: str
    points: list[PointAnswer]


class FindingAnswer(_Answer):
    point: str
    status: Literal["supported", "contradicted", "unverified"]
    evidence_id: str | None = None
    note: str = ""


class JudgeAnswer(_Answer):
    findings: list[FindingAnswer]


class VeracityAnswer(_Answer):
    level1_verdict: Literal["True", "Mostly True", "Mixture", "Mostly False", "False"]
    reason: str = ""


class DiagnosisAnswer(_Answer):
    level2_taxonomy: list[str]
    reason: str = ""


class RationaleAnswer(_Answer):
    level3_rationale: str


def llm_backend(agents: object) -> LlmAgents | None:
    """The LLM backend when the run uses one (the offline backend has no model)."""
    return agents if isinstance(agents, LlmAgents) else None


def _source(name: str) -> str:
    return (resources.files("semv.procedures.remmd") / "prompts" / f"{name}.j2").read_text("utf-8")


@cache
def prompt_version(name: str) -> str:
    text = _source(name)
    match = _VERSION.match(text)
    if match is None:
        raise ValueError(f"remmd prompts/{name}.j2: first line must be '{{#- version: N -#}}'")
    return f"remmd-{name}@{match.group(1)}:{hashlib.sha256(text.encode()).hexdigest()[:12]}"


@cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(lambda n: _source(n.removesuffix(".j2"))),
        autoescape=False,
        undefined=jinja2.StrictUndefined,
    )
    env.globals["untrusted"] = untrusted
    return env


def render(name: str, **values: Any) -> str:
    return _environment().get_template(f"{name}.j2").render(**values).strip()


def fallback_note(step: str, problem: str) -> UncertaintyItem:
    return UncertaintyItem(
        code=UncertaintyCode.MODEL_FALLBACK,
        subject=f"remmd:{step}",
        detail=f"the model's {step} answer was unusable ({problem}); the offline rules answered",
        stages=(Stage.AGGREGATE,),
    )


async def ask(
    agents: LlmAgents, name: str, answer: type[_A], **values: Any
) -> tuple[_A | None, str | None]:
    """One ReMMD step: render, cache → server, validate, repair once. (answer, problem)."""
    role = f"remmd_{name}"
    target = agents._target(role)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system_prompt(role, _DUTIES[name], answer)},
        {"role": "user", "content": render(name, **values)},
    ]
    invocation = agents._invocation()
    problem: str | None = None
    for attempt in range(2):
        request = ChatRequest(
            url=target.url,
            model=target.model,
            messages=messages,
            temperature=target.temperature,
            max_tokens=target.max_tokens,
            seed=agents.config.seed,
            schema_name=answer.__name__,
            schema=answer.model_json_schema(),
        )
        key = request_key(
            model=target.model,
            prompt_version=prompt_version(name),
            messages=messages,
            params=request.params(),
        )
        node = current_node.get()
        start = time.perf_counter()
        content: str | None = None
        if agents.cache is not None:
            content = await asyncio.to_thread(agents.cache.get, key)
            if content is not None:
                agents._record(CallRecord(role, node, invocation, role, start, 0.0, cached=True))
            elif agents.replay:
                raise ReplayMiss(f"--replay: no cached answer for {role} (node {node or '?'})")
        if content is None:
            try:
                reply = await agents.client.chat(request)
            except LlmUnavailable as exc:
                agents._record(
                    CallRecord(role, node, invocation, role, start, exc.seconds, ok=False)
                )
                agents._fallback_counted(role)
                return None, f"server unavailable: {exc}"
            agents._record(
                CallRecord(
                    role,
                    node,
                    invocation,
                    role,
                    start + reply.waited,
                    reply.seconds,
                    prompt_tokens=reply.prompt_tokens,
                    completion_tokens=reply.completion_tokens,
                    retries=reply.retries,
                    queued=reply.waited,
                )
            )
            content = reply.content
            if agents.cache is not None:
                await asyncio.to_thread(agents.cache.put, key, role, content)
        parsed, problem = _parse(content, answer)
        if parsed is not None:
            return parsed, None
        if attempt == 0:
            messages = [
                *messages,
                {"role": "assistant", "content": content[:4000]},
                {
                    "role": "user",
                    "content": f"That answer is invalid: {problem}. Reply again with only the "
                    "corrected JSON object matching the schema.",
                },
            ]
    agents._fallback_counted(role)
    return None, f"unusable answer after one repair: {problem}"
