"""What one role's request to the model server is, as pure functions of the configuration.

The backend (``LlmAgents``) builds every request here, and so does the decomposer's request
that ``semv verify`` sends before the pipeline is imported (``_prefetch``): the two build the
same bytes from the same case and settings because they share these functions, and the
client takes an early answer only for a byte-identical request.

Imports only the configuration, the model, the prompts and the response cache's key (no
offline backend, no stage graph).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from semv.agents.llm._cache import request_key
from semv.agents.llm._client import ChatRequest
from semv.agents.llm._prompts import bounded_schema, prompt_version, render, system_prompt
from semv.agents.llm._schemas import BatchedArgueAnswer, DecomposeAnswer
from semv.config import LlmConfig
from semv.model import Case, Dimension

__all__ = [
    "DUTIES",
    "Target",
    "chat_request",
    "decompose_user",
    "early_plans",
    "list_bounds",
    "parse_answer",
    "plan_user",
    "response_key",
    "sent_schema",
    "string_bounds",
    "system_message",
    "target_of",
    "worst_case_chars",
]

_A = TypeVar("_A", bound=BaseModel)
_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)

DUTIES = {  # a role whose prompt opens with its task needs no duty line besides
    "decompose": "",
    "plan": "You plan how to verify one subclaim.",
    "proponent": "",
    "opponent": "",
    "debaters": "",
    "verify": "",
    "escalate": "You are the senior verifier: give the final judgment on whether arguments "
    "about an undecided subclaim are grounded in the evidence they cite.",
    "judge_clash": "",
    "describe": "You describe images for fact-checkers, factually and without speculation.",
    "reflect": "You extract reusable verification lessons from a finished run.",
}
"""Each protocol role's duty line in its system prompt."""


@dataclass(frozen=True)
class Target:
    """Where a role's request goes and how the model samples it."""

    url: str
    model: str
    temperature: float
    max_tokens: int


def target_of(cfg: LlmConfig, role: str) -> Target:
    """The role's server, model and sampling: its ``llm.roles`` override, else the backend's
    (``escalate``: the stronger verifier's server and model when configured). Its completion
    budget: the override's, else the role's ``llm.role_max_tokens`` within ``llm.max_tokens``."""
    override = cfg.roles.get(role)
    budget = min(cfg.role_max_tokens.get(role, cfg.max_tokens), cfg.max_tokens)
    if role == "escalate":
        return Target(
            url=cfg.escalate_url or cfg.url,
            model=cfg.escalate_model or cfg.model,
            temperature=cfg.temperature,
            max_tokens=budget,
        )
    return Target(
        url=(override.url if override and override.url else cfg.url),
        model=(override.model if override and override.model else cfg.model),
        temperature=(
            override.temperature
            if override and override.temperature is not None
            else cfg.temperature
        ),
        max_tokens=(override.max_tokens if override and override.max_tokens else budget),
    )


def list_bounds(cfg: LlmConfig, answer: type[BaseModel]) -> dict[str, int]:
    """``maxItems`` of the answer's lists in the schema sent to the server: a grammar-
    constrained small model cannot loop on a list past what the backend keeps anyway, and
    the longest answer the schema allows fits the role's token budget (``worst_case_chars``)."""
    n = cfg.max_arguments
    return {
        "arguments": 2 * n if answer is BatchedArgueAnswer else n,
        "results": 2 * n,  # a subclaim's debate drafts, verified in one call
        "subclaims": len(Dimension),
        "lessons": 3,
        "evidence": 3,
        "key_facts": 3,
        "queries": 3,
        "questions": 3,
        "checks": 3,
        "source_types": 3,
        "memory_used": 3,
        "grounding": 3,
        "visible_text": 6,
        "objects": 6,
    }


def string_bounds() -> dict[str, int]:
    """``maxLength`` of the answer's strings (a string property, or a list's string items) in
    the schema sent to the server: under llama.cpp's grammar a small model that starts
    repeating itself at temperature 0 must close the string by then, so its answer ends
    inside the role's token budget instead of being cut mid-string (unusable twice, then the
    offline fallback). A server that ignores the schema is not held to it, and validation
    does not check it. Sentences get room for the one or two the prompts ask for; ids
    (``ev:retrieved:<16 hex>``, memory ids) and phrases less."""
    return {
        "description": 300,
        "text": 200,
        "statement": 160,
        "questions": 160,
        "checks": 160,
        "reason": 160,
        "key_facts": 80,
        "evidence": 80,
        "grounding": 80,
        "visible_text": 80,
        "queries": 60,
        "memory_used": 60,
        "claim_type": 40,
        "source_types": 40,
        "objects": 40,
    }


_NUMBER_CHARS = 24
"""The longest JSON number a grammar-constrained answer writes (``-0.12345678901234567e-10``)."""


def worst_case_chars(schema: dict[str, Any]) -> float:
    """The longest compact JSON text the bounded ``schema`` allows, in characters (``inf`` if
    a list or string is unbounded): every list full, every string at its ``maxLength``, every
    enum at its longest value. Escapes (``\\n`` for one character) and the grammar's optional
    whitespace are not counted. The role's completion budget must hold it
    (``tests/test_llm_budget.py``), or a valid answer is cut mid-way and falls back."""
    defs: dict[str, Any] = schema.get("$defs", {})

    def longest(node: Any) -> float:
        if isinstance(node, dict) and isinstance(node.get("$ref"), str):
            node = defs.get(node["$ref"].removeprefix("#/$defs/"), {})
        if not isinstance(node, dict):
            return float("inf")
        if "enum" in node:
            return float(max(len(json.dumps(v)) for v in node["enum"]))
        if "const" in node:
            return float(len(json.dumps(node["const"])))
        if "anyOf" in node:
            return max(longest(n) for n in node["anyOf"])
        kind = node.get("type")
        if kind == "object":
            fields = node.get("properties", {})
            inner = sum(len(json.dumps(k)) + 1 + longest(v) for k, v in fields.items())
            return 2 + inner + max(len(fields) - 1, 0)
        if kind == "array":
            if "maxItems" not in node:
                return float("inf")
            items = int(node["maxItems"])
            return 2 + items * longest(node.get("items", {})) + max(items - 1, 0)
        if kind == "string":
            return 2 + float(node.get("maxLength", float("inf")))
        if kind in ("integer", "number"):
            return float(_NUMBER_CHARS)
        if kind == "boolean":
            return 5.0
        if kind == "null":
            return 4.0
        return float("inf")

    return longest(schema)


def sent_schema(cfg: LlmConfig, answer: type[BaseModel]) -> dict[str, Any]:
    """The answer's schema as a request sends it: with the backend's list and string bounds."""
    return bounded_schema(answer.model_json_schema(), list_bounds(cfg, answer), string_bounds())


def system_message(role: str, answer: type[BaseModel], duty: str | None = None) -> dict[str, Any]:
    """The role's system message: its duty (``DUTIES`` unless given) and its answer's shape."""
    content = system_prompt(role, DUTIES[role] if duty is None else duty, answer)
    return {"role": "system", "content": content}


def chat_request(
    cfg: LlmConfig, target: Target, messages: list[dict[str, Any]], answer: type[BaseModel]
) -> ChatRequest:
    """The request of ``messages`` to ``target``, its answer constrained to ``answer``'s
    schema with the backend's list and string bounds."""
    return ChatRequest(
        url=target.url,
        model=target.model,
        messages=messages,
        temperature=target.temperature,
        max_tokens=target.max_tokens,
        seed=cfg.seed,
        schema_name=answer.__name__,
        schema=sent_schema(cfg, answer),
    )


def response_key(request: ChatRequest, prompt: str, version: str | None = None) -> str:
    """The response cache's key of ``request`` made from the template ``prompt`` (its
    ``version`` when a procedure's own template states one)."""
    return request_key(
        model=request.model,
        prompt_version=version or prompt_version(prompt),
        messages=request.messages,
        params=request.params(),
    )


def decompose_user(case: Case) -> str:
    """The decomposer's user message: the claim alone, with the case's stated date and place
    (what the claim asserts per dimension is the claim's, not the evidence's)."""
    context = "; ".join(
        f"{k}: {v}"
        for k, v in (("date", case.context.date), ("location", case.context.location))
        if v
    )
    return render(
        "decompose",
        dimensions=[d.value for d in Dimension],
        claim=case.claim,
        context=context,
    )


def plan_user(
    dimension: str, claim: str, subclaim_id: str, statement: str, memory: Sequence[str]
) -> str:
    """The planner's user message for one subclaim (with the recalled memory records)."""
    return render(
        "plan",
        dimension=dimension,
        claim=claim,
        subclaim_id=subclaim_id,
        statement=statement,
        memory=list(memory),
    )


def early_plans(case: Case, answer: DecomposeAnswer) -> dict[str, str]:
    """Per dimension whose statement the decomposer's ``answer`` gives, the plan node's user
    message as it will render it with memory off: ``decompose`` keeps a stated dimension's
    statement, and the subclaim's id is ``claim:<dimension>``."""
    stated = {s.dimension.value: s.statement.strip() for s in answer.subclaims}
    return {
        dim: plan_user(dim, case.claim, f"claim:{dim}", statement, ())
        for dim, statement in stated.items()
        if statement
    }


def parse_answer(content: str, answer: type[_A]) -> tuple[_A | None, str | None]:
    """The model's ``content`` validated as ``answer`` (a JSON object, optionally fenced),
    or None and what is wrong with it."""
    text = content.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"not JSON ({exc.msg} at char {exc.pos})"
    try:
        return answer.model_validate(data), None
    except ValidationError as exc:
        errors = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}"
            for e in exc.errors()[:5]
        )
        return None, f"schema violation: {errors}"
