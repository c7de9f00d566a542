"""Choose and build the agent backend (``--backend offline|llm|local``, ``[agents] backend``).

``local`` is the LLM backend with its requests answered in-process by a llama.cpp model
(``semv.agents.llm._local``): the same roles, prompts, schemas, budget, trace and response
cache, no server, no retries (a local model that fails fails again), one request at a time."""

from __future__ import annotations

from typing import Any

from semv.agents._protocol import Agents
from semv.config import Settings
from semv.errors import ConfigError
from semv.store import Store

__all__ = [
    "BACKENDS",
    "build_agents",
    "executor_concurrency",
    "load_local",
    "local_settings",
    "probe_llm",
    "with_llm_overrides",
]

BACKENDS = ("offline", "llm", "local")


def with_llm_overrides(
    settings: Settings,
    *,
    backend: str | None = None,
    url: str | None = None,
    model: str | None = None,
) -> Settings:
    """Command-line values over the configuration file's (settings are frozen: a copy)."""
    if backend is not None and backend not in BACKENDS:
        raise ConfigError(f"--backend: unknown backend {backend!r} (choose {', '.join(BACKENDS)})")
    llm: dict[str, Any] = {k: v for k, v in (("url", url), ("model", model)) if v}
    update: dict[str, Any] = {}
    if backend is not None:
        update["agents"] = settings.agents.model_copy(update={"backend": backend})
    if model and (backend or settings.agents.backend) == "local":
        update["local"] = settings.local.model_copy(update={"model": model})
        llm.pop("model")
    if llm:
        update["llm"] = settings.llm.model_copy(update=llm)
    return settings.model_copy(update=update) if update else settings


def build_agents(settings: Settings, *, store: Store | None = None, replay: bool = False) -> Agents:
    """The configured backend; the LLM backend keeps its response cache in ``store``."""
    from semv.agents.offline import OfflineAgents

    if settings.agents.backend == "offline":
        if replay:
            raise ConfigError("--replay replays model answers: it needs --backend llm")
        return OfflineAgents(settings)
    from semv.agents.llm import LlmAgents

    if settings.agents.backend == "local":
        return _local_agents(settings, store=store, replay=replay)
    return LlmAgents(settings, store=store, replay=replay)


def local_settings(settings: Settings) -> Settings:
    """The LLM backend's settings for the in-process model of ``[local]``: its name and
    context length, one request at a time, no retries, every role on it."""
    from semv.agents.llm import LOCAL_URL

    llm = settings.llm.model_copy(
        update={
            "url": LOCAL_URL,
            "model": settings.local.model,
            "context_tokens": settings.local.context_tokens,
            "concurrency": 1,
            "retries": 0,
            "roles": {
                name: role.model_copy(update={"url": None, "model": None})
                for name, role in settings.llm.roles.items()
            },
            "escalate_model": None,
            "escalate_url": None,
        }
    )
    return settings.model_copy(update={"llm": llm})


def _local_agents(settings: Settings, *, store: Store | None, replay: bool) -> Agents:
    from semv.agents.llm import LlmAgents, LlmClient, LocalTransport

    local = local_settings(settings)
    cfg = local.llm
    if replay:  # answers come from the response cache: no model is loaded
        return LlmAgents(local, store=store, replay=True)
    client = LlmClient(
        api_key=None,
        timeout_s=cfg.timeout_s,
        retries=0,
        backoff_s=cfg.backoff_s,
        backoff_max_s=cfg.backoff_max_s,
        concurrency=1,
        response_format=cfg.response_format,
        transport=LocalTransport(load_local(settings)),
        tokens_per_s=cfg.tokens_per_s,
        timeout_margin=cfg.timeout_margin,
    )
    return LlmAgents(local, store=store, client=client)


def load_local(settings: Settings) -> Any:
    """The ``[local]`` model, checked and loading (``LocalModel``); ``ModelMissing`` (exit 2)
    names the file and how to get it."""
    from semv.agents.llm import local_model

    cfg = settings.local
    return local_model(cfg.model, cfg.path, context_tokens=cfg.context_tokens, threads=cfg.threads)


def executor_concurrency(settings: Settings) -> int:
    """Independent nodes run together; with a model server, as many as it may serve at once
    (so the wall time can approach the critical path)."""
    return max(4, settings.llm.concurrency) if settings.agents.backend == "llm" else 4


def llm_urls(settings: Settings) -> list[str]:
    """Every model server the LLM backend's roles may call (base URL, per-role overrides, the
    stronger verifier's), in order, without repeats."""
    cfg = settings.llm
    urls = [cfg.url, *(r.url for r in cfg.roles.values() if r.url)]
    if cfg.escalate_model and cfg.escalate_url:
        urls.append(cfg.escalate_url)
    return list(dict.fromkeys(urls))


def probe_llm(settings: Settings, *, timeout_s: float = 3.0) -> None:
    """Before a run with ``--backend llm`` (not ``--replay``): one request to each model
    server; a server that cannot be reached is a user condition (``ConfigError``, exit 2)
    named with the next step, instead of a run whose every role falls back. Any HTTP answer
    (even 401 or 404: not every server lists ``/models``) counts as a server."""
    if settings.agents.backend == "local":
        load_local(settings)  # checks the file and starts loading it while the run imports
        return
    if settings.agents.backend != "llm":
        return
    import httpx

    from semv.agents.llm import tls_needed

    for url in llm_urls(settings):
        target = url.rstrip("/") + "/models"
        try:
            # a plain-HTTP server needs no certificate store (~0.1 s of CPU to load)
            verify = tls_needed(target)
            httpx.get(target, timeout=timeout_s, follow_redirects=False, verify=verify)
        except httpx.HTTPError as exc:
            raise ConfigError(
                f"no model server at {url} ({type(exc).__name__}: {exc or 'no answer'}); start "
                "one (or pass --llm-url), or run the rules with --backend offline"
            ) from None
