"""Model-call accounting of one run (the paper's Wall / Tok. / Calls columns)."""

from __future__ import annotations

from pydantic import Field

from semv.model._base import Frozen


class RoleUsage(Frozen):
    calls: int = Field(0, description="HTTP requests answered (cache hits excluded).")
    cached: int = Field(0, description="Answers taken from the response cache.")
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = Field(0.0, description="Σ latency of the role's requests.")
    retries: int = 0
    failures: int = Field(0, description="Requests without an answer (server unavailable).")
    fallbacks: int = Field(
        0,
        description="Role invocations answered by the fallback (unusable after one repair, "
        "or no answer).",
    )
    cost: float | None = Field(
        None, description="Price of the role's tokens (``llm.prices``); None: no price known."
    )


class PromptTrim(Frozen):
    """What one role's prompt left out of the evidence it could have shown: items
    beyond the top k or dropped to fit the token budget, and texts shown as excerpts."""

    role: str
    subject: str = Field(description="The subclaim (or case) the prompt was about.")
    reason: str = Field(description="Why: top-k, the budget it had to fit, or excerpts only.")
    dropped: tuple[str, ...] = Field((), description="Evidence ids not shown.")
    excerpts: tuple[str, ...] = Field(
        (), description="Texts shown in part: 'ev:x chars 120-480 of 2300'."
    )


class Usage(Frozen):
    """Calls, tokens, latency and retries of one case, per role, with wall and critical path."""

    backend: str
    calls: int
    cached: int
    prompt_tokens: int
    completion_tokens: int
    retries: int
    wall_s: float = Field(description="Measured wall time of the run.")
    critical_path_s: float = Field(
        description="Longest path through the stage graph given the per-call latencies and "
        "each node's own compute (the wall time with unlimited parallelism)."
    )
    model_critical_path_s: float = Field(description="The model-call share of that path.")
    roles: dict[str, RoleUsage]
    cost: float | None = Field(
        None, description="Price of the case's tokens (Σ roles with a known price)."
    )
    currency: str | None = None
    left_out: tuple[PromptTrim, ...] = Field(
        (), description="What the prompts left out of the evidence, per role and subject."
    )
