"""The sections of the agent backends: which one runs (``agents``), the OpenAI-compatible
LLM backbone and its per-role overrides and prices (``llm``), the in-process model
(``local``)."""

from __future__ import annotations

from pydantic import Field

from semv.config._section import _Section

__all__ = ["BackendConfig", "LlmConfig", "LlmRoleConfig", "LocalConfig", "ModelPrice"]


class BackendConfig(_Section):
    """Which implementation of the agent roles runs (``--backend``)."""

    backend: str = Field(
        "offline",
        pattern=r"^(offline|llm|local)$",
        description="offline: deterministic rules; llm: an OpenAI-compatible server ([llm]); "
        "local: the LLM backend's roles on an in-process llama.cpp model ([local]).",
    )


class LlmRoleConfig(_Section):
    """Per-role overrides of the LLM backbone (unset fields inherit from ``LlmConfig``)."""

    url: str | None = Field(None, description="Base URL of another OpenAI-compatible server.")
    model: str | None = Field(None, description="Another model for this role.")
    temperature: float | None = Field(None, ge=0.0, le=2.0)
    max_tokens: int | None = Field(None, ge=1)


class ModelPrice(_Section):
    """What a model costs per million tokens (``llm.prices.<model>``), for the cost columns
    of ``semv eval`` and the report; not part of the backend's identity."""

    prompt_per_mtok: float = Field(0.0, ge=0.0, description="Price of 1M prompt tokens.")
    completion_per_mtok: float = Field(0.0, ge=0.0, description="Price of 1M completion tokens.")


class LlmConfig(_Section):
    """The LLM backend (``--backend llm``): one OpenAI-compatible backbone for every agent role.

    The papers serve one multimodal backbone locally (SEMV: vLLM, 32K context; the reference
    code: temperature 0 and JSON output); any ``/v1/chat/completions`` server works. The API
    key is read from the environment variable named by ``api_key_env`` and never stored.
    """

    url: str = Field("http://127.0.0.1:8000/v1", description="Base URL (…/v1).")
    model: str = Field("qwen2.5-coder-0.5b-instruct", description="Model name sent to the server.")
    api_key_env: str = Field("SEMV_LLM_API_KEY", description="Environment variable of the key.")
    temperature: float = Field(0.0, ge=0.0, le=2.0, description="Sampling temperature.")
    max_tokens: int = Field(1024, ge=1, description="Completion token limit per call.")
    seed: int | None = Field(0, description="Sampling seed sent to servers that accept one.")
    response_format: str = Field(
        "json_schema",
        pattern=r"^(json_schema|json_object_schema|json_object|none)$",
        description="The first structured-output form to try; a server that rejects it is "
        "downgraded json_schema → json_object_schema → json_object → none (the answer is "
        "always parsed and validated).",
    )
    timeout_s: float = Field(
        60.0,
        gt=0,
        description="Least time-out of one request; a request whose completion budget needs "
        "longer at the server's speed gets that (see tokens_per_s).",
    )
    tokens_per_s: float = Field(
        4.0,
        gt=0,
        description="Completion speed assumed before the server's own is measured; the "
        "time-out of a request is timeout_s + timeout_margin × (its max_tokens / the speed, "
        "the slowest of the last answers once measured).",
    )
    timeout_margin: float = Field(
        2.0, ge=1.0, description="Factor over the expected answer time before a time-out."
    )
    retries: int = Field(
        3,
        ge=0,
        description="Retries on 429/5xx/connection errors, and on time-outs as "
        "retry_timeouts says.",
    )
    retry_timeouts: bool | None = Field(
        None,
        description="Retry a request that timed out: none: only on a remote server (one on "
        "this machine is still computing the answer a retry would queue behind); true: "
        "always; false: never.",
    )
    backoff_s: float = Field(0.5, ge=0, description="First backoff; doubles per retry.")
    backoff_max_s: float = Field(8.0, ge=0, description="Backoff ceiling (before jitter).")
    concurrency: int = Field(8, ge=1, description="Concurrent requests to the server.")
    vision: bool = Field(
        False, description="The model accepts images (a VLM): the describe role sends them."
    )
    batch_argue: bool = Field(
        True,
        description="Proponent and opponent in one call per subclaim (false: two concurrent "
        "calls); chosen on the real test model, docs/evaluation.md.",
    )
    evidence_chars: int = Field(
        600,
        ge=100,
        description="Excerpt budget of a long evidence text in a prompt, in characters (whole "
        "sentences, the part that best matches the subclaim; its offsets are shown).",
    )
    excerpt_min_chars: int = Field(
        200,
        ge=50,
        description="The excerpt budget a prompt that does not fit shrinks its texts to first.",
    )
    evidence_per_role: int = Field(
        6,
        ge=1,
        description="Evidence items in one role's prompt: the subclaim dimension's fitting "
        "sources, in rank order, top k.",
    )
    context_tokens: int | None = Field(
        None,
        ge=256,
        description="The model's context length when the server does not state it (llama.cpp "
        "/props, vLLM /v1/models); none: only the per-call budget bounds a prompt.",
    )
    call_prompt_tokens: int | None = Field(
        None, ge=64, description="Most prompt tokens in one request (none: the context's room)."
    )
    case_prompt_tokens: int | None = Field(
        None,
        ge=64,
        description="Most prompt tokens one case may send (none: unbounded); a request that "
        "would exceed it is not sent and the role falls back.",
    )
    chars_per_token: float = Field(
        3.0,
        gt=0.0,
        description="The token estimate (UTF-8 bytes / this, plus 4 per message) when the "
        "server exposes no tokenizer.",
    )
    prices: dict[str, ModelPrice] = Field(
        default_factory=dict,
        description="Per model name: price per million prompt and completion tokens.",
    )
    currency: str = Field("USD", description="The currency of ``prices``.")
    max_arguments: int = Field(
        2,
        ge=1,
        description="Arguments per side and subclaim (the longest batched answer of 2 per side "
        "fits the argue budget; 4 per side would need ~2,000 tokens a call).",
    )
    escalate_model: str | None = Field(
        None,
        description="Stronger verifier for uncertain subclaims (A-QBAF MV2026 §2.6.3; the "
        "trigger is [escalation]); none: no escalation.",
    )
    escalate_url: str | None = Field(None, description="Server of the stronger verifier.")
    roles: dict[str, LlmRoleConfig] = Field(
        default_factory=dict,
        description="Per-role overrides: decompose, plan, argue, verify, judge_clash, "
        "describe, reflect.",
    )
    role_max_tokens: dict[str, int] = Field(
        default_factory=lambda: {
            "decompose": 992,
            "plan": 544,
            "argue": 1024,
            "verify": 320,
            "escalate": 320,
            "judge_clash": 160,
            "describe": 384,
            "reflect": 544,
        },
        description="Completion-token budget of each role, at most max_tokens (a "
        "``roles.<role>.max_tokens`` overrides both; a role not named here has max_tokens): "
        "the longest answer its bounded schema allows at chars_per_token, so a valid answer "
        "is never cut; the budget sets the request's time-out.",
    )


class LocalConfig(_Section):
    """The local model (``--backend local``: the LLM backend's roles on a GGUF model run
    in-process by llama.cpp, ``xllamacpp``, with the same prompts, schemas, budget and trace
    as over HTTP; and the offline backend's optional judge, ``offline.judge``)."""

    model: str = Field(
        "qwen2.5-coder-1.5b-instruct",
        description="Model name (one of semv.agents.llm._models.MODELS, assembled into the "
        "cache folder by `make local-model`) or, with ``path``, any name.",
    )
    path: str | None = Field(
        None, description="A GGUF file to load instead of the cached ``model``."
    )
    threads: int | None = Field(
        None,
        ge=1,
        description="CPU threads of the model (none: the usable cores other processes leave "
        "idle, sampled over 0.25 s when it loads, at least one).",
    )
    context_tokens: int = Field(8192, ge=512, description="The model's context length (n_ctx).")
