"""The decomposer's request, sent before ``semv verify`` imports the pipeline.

On the LLM backend a first pass is a chain of model round trips that opens with the
decomposer's; everything the process does before that request leaves adds to the wall time.
Its prompt holds only the claim and its context, so ``semv verify`` sends it
(``start_decompose``) as soon as the case is loaded and the store is open, from a thread, and
imports the pipeline, the stages and the offline backend while the server answers. With
``plans`` (a run with memory off, as ``semv verify`` runs), the decomposer's answer then sends
the plan requests the run starts on it (``LlmAgents.start_early``: one per stated subclaim,
rendered by the same ``_requests.early_plans``), before the answer is handed on.

The run itself is unchanged: the backend renders the decomposer's prompt, looks it up in the
response cache, fits it to its budget, records the call and caches the answer exactly as
without this module. Only when its request reaches the client (``LlmClient.chat``) byte for
byte identical to the one sent here (endpoint, API key, JSON body) does the client take the
early answer (``take``) instead of sending the request again; a different request, an early
request that failed or answered anything but 200 leaves the call to send its own, with its
retries. The call's record keeps the early request's real send time and duration, so the
run's model critical path is what the server spent.

Sent only where the backend's first call is certain to be this request: the ``semv``
procedure on the LLM backend, without ``--replay``, no answer to it in the response cache, no
case prompt budget (a request over budget is never sent), and no image the model describes
first (``llm.vision`` with media loaded). ``SEMV_LLM_PREFETCH=0`` turns it off: every request
is then sent by the call that needs it.
"""

from __future__ import annotations

import concurrent.futures
import json
import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from semv.agents.llm._cache import ResponseCache
from semv.agents.llm._client import (
    ChatRequest,
    LlmUnavailable,
    chat_endpoint,
    completion_reply,
    request_body,
    tls_needed,
)
from semv.agents.llm._requests import (
    chat_request,
    decompose_user,
    early_plans,
    parse_answer,
    response_key,
    system_message,
    target_of,
)
from semv.agents.llm._schemas import DecomposeAnswer, PlanAnswer
from semv.config import environment_variable

if TYPE_CHECKING:
    import httpx

    from semv.config import Settings
    from semv.model import Case
    from semv.store import Store

__all__ = ["Sent", "discard", "start_decompose", "take"]

logger = logging.getLogger(__name__)

Sent = concurrent.futures.Future[tuple["httpx.Response", float, float]]
"""An early request: the server's response, and ``time.perf_counter()`` when it was sent and
when it was answered."""

_lock = threading.Lock()
_sent: dict[tuple[str, str, str], Sent] = {}


def _key(endpoint: str, api_key: str | None, body: dict[str, Any]) -> tuple[str, str, str]:
    return endpoint, api_key or "", json.dumps(body, sort_keys=True, ensure_ascii=False)


def start_decompose(
    settings: Settings, case: Case, store: Store | None, *, plans: bool = False
) -> bool:
    """Send the decomposer's request for ``case`` now, from a thread, where the backend's run
    will certainly make it first (see the module's docstring), and with ``plans`` the plan
    requests its answer lets the run start; True when sent."""
    cfg = settings.llm
    if not settings.environment.llm_prefetch:
        return False
    if settings.agents.backend != "llm" or cfg.case_prompt_tokens is not None:
        return False
    if cfg.vision and any(a.loaded for a in case.media):
        return False
    api_key = environment_variable(cfg.api_key_env)
    request = _request(settings, "decompose", decompose_user(case), DecomposeAnswer)
    if _cached(store, "decompose", request):
        return False  # the run takes the cached answer: nothing to send

    def then(response: httpx.Response) -> None:
        _send_plans(settings, case, store, api_key, response)

    _send(request, cfg.response_format, api_key, cfg.timeout_s, then if plans else None)
    return True


def _request(settings: Settings, role: str, user: str, answer: type[BaseModel]) -> ChatRequest:
    cfg = settings.llm
    messages = [system_message(role, answer), {"role": "user", "content": user}]
    return chat_request(cfg, target_of(cfg, role), messages, answer)


def _cached(store: Store | None, prompt: str, request: ChatRequest) -> bool:
    """The response cache holds an answer to ``request`` (the backend's key, ``_complete``)."""
    return store is not None and ResponseCache(store).get(response_key(request, prompt)) is not None


def _send(
    request: ChatRequest,
    fmt: str,
    api_key: str | None,
    timeout_s: float,
    then: Callable[[httpx.Response], None] | None = None,
) -> None:
    """Register ``request`` and post it from a thread (once per identical request)."""
    endpoint = chat_endpoint(request.url)
    body = request_body(request, fmt)
    sent: Sent = concurrent.futures.Future()
    with _lock:
        key = _key(endpoint, api_key, body)
        if key in _sent:
            return
        _sent[key] = sent
    thread = threading.Thread(
        target=_post,
        args=(sent, endpoint, api_key, body, timeout_s, then),
        name="semv-llm-prefetch",
        daemon=True,
    )
    thread.start()


def _post(
    sent: Sent,
    endpoint: str,
    api_key: str | None,
    body: dict[str, Any],
    timeout_s: float,
    then: Callable[[httpx.Response], None] | None,
) -> None:
    import httpx

    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        with httpx.Client(
            timeout=httpx.Timeout(timeout_s), headers=headers, verify=tls_needed(endpoint)
        ) as client:
            started = time.perf_counter()
            response = client.post(endpoint, json=body)
            answered = time.perf_counter()
    except Exception as exc:  # the backend's call sends the request itself
        sent.set_exception(exc)
        return
    if then is not None and response.status_code == 200:
        try:  # registered before anyone sees this answer, so the run's calls find them
            then(response)
        except Exception as exc:  # nothing more is sent early; the run sends its own
            logger.debug("no early plan requests: %s", exc)
    sent.set_result((response, started, answered))


def _send_plans(
    settings: Settings,
    case: Case,
    store: Store | None,
    api_key: str | None,
    response: httpx.Response,
) -> None:
    """The plan requests the run will start on this decomposer's answer (none when the
    answer is unusable: the run repairs it first)."""
    try:
        content = completion_reply(response, 0, 0.0).content
    except LlmUnavailable:
        return
    answer, _problem = parse_answer(content, DecomposeAnswer)
    if answer is None:
        return
    cfg = settings.llm
    for user in early_plans(case, answer).values():
        request = _request(settings, "plan", user, PlanAnswer)
        if not _cached(store, "plan", request):
            _send(request, cfg.response_format, api_key, cfg.timeout_s)


def take(endpoint: str, api_key: str | None, body: dict[str, Any]) -> Sent | None:
    """The early request of exactly this endpoint, key and body (once), or None."""
    if not _sent:
        return None
    with _lock:
        return _sent.pop(_key(endpoint, api_key, body), None)


def discard() -> None:
    """Forget every early request no call took (``semv verify`` at its end)."""
    with _lock:
        _sent.clear()
