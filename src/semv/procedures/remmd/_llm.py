"""The LLM variant of each ReMMD step over the project's LLM backend (``semv.agents.llm``).

Prompts are data (``prompts/*.j2``, versioned like the backend's own); post text, OCR,
descriptions and evidence are quoted in ``<untrusted>`` blocks (the backend's delimiter
defusing) under the backend's shared system prompt. A request goes through the backend's
client, response cache (``--replay`` included) and usage ledger; an answer is validated
against its schema, repaired once, and otherwise the step keeps its offline result with a
``model-fallback`` uncertainty item.
"""

from __future__ import annotations

import hashlib
import re
from functools import cache
from importlib import resources
from typing import Any, Literal, TypeVar

import jinja2
from pydantic import BaseModel, ConfigDict

from semv.agents.llm import LlmAgents, untrusted
from semv.model import Stage, UncertaintyCode, UncertaintyItem

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
    """One ReMMD step through the backend's ``ask`` (cache → server, usage ledger, validate,
    repair once): (answer, None) or (None, why it is unusable)."""
    return await agents.ask(
        role=f"remmd_{name}",
        duty=_DUTIES[name],
        user=render(name, **values),
        version=prompt_version(name),
        answer=answer,
    )
