"""Async client for OpenAI-compatible ``/v1/chat/completions`` servers (vLLM, Ollama, llama.cpp,
hosted APIs).

Retries under semv's one retry policy (``semv.retry``: exponential backoff with full jitter on
429, 5xx, connection errors and, for a remote server, timeouts, honouring ``Retry-After``); a
semaphore bounds concurrent requests; cancelling the awaiting task cancels the request.

A slow model is not an unavailable one: each request's time-out is ``timeout_s`` plus
``timeout_margin`` times the time its completion budget takes at the server's speed (the
slowest of its last answers, in completion tokens per second including prompt processing;
``tokens_per_s`` until one is measured). A server on this machine (loopback address, or the
in-process local model) that times out is not asked again (``retry_timeouts`` None): it is
still computing the answer a retry would queue behind.

Structured output: ``response_format`` ``json_schema`` when the server supports it; a server
that rejects it (400/422/500 naming ``response_format``) is remembered and downgraded step by
step (see ``_FORMATS``), and the answer is validated by the caller either way.

Token counting and the context window ask the server itself where it says:
``count_tokens`` uses llama-cpp-python's ``POST /extras/tokenize/count`` or the ``POST /tokenize``
of llama.cpp's server (``{"content"}`` → ``{"tokens"}``) and vLLM (``{"prompt"}`` →
``{"count"}``); ``context_window`` reads llama.cpp's ``GET /props``
(``default_generation_settings.n_ctx``) or vLLM's ``max_model_len`` in ``GET /v1/models``. An
endpoint a server lacks is remembered and not asked again; None means "the server does not
say" and the caller estimates or uses its configuration.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from dataclasses import dataclass
from typing import Any

import httpx

from semv.config import environment_variable
from semv.retry import RETRY_STATUS, Backoff, retry_after_seconds

__all__ = [
    "ChatReply",
    "ChatRequest",
    "LlmClient",
    "LlmUnavailable",
    "chat_endpoint",
    "completion_reply",
    "on_loopback",
    "request_body",
    "tls_needed",
]

logger = logging.getLogger(__name__)

_RETRY_STATUS = RETRY_STATUS
_FORMATS = ("json_schema", "json_object_schema", "json_object", "none")
"""Tried in this order: OpenAI-style ``json_schema``; ``json_object`` carrying the schema (the
llama-cpp-python server's grammar-constrained form); plain JSON mode; nothing."""


class LlmUnavailable(Exception):
    """The server could not answer (after retries): connection refused, timeouts, 5xx, 4xx."""

    def __init__(self, message: str, *, retries: int, seconds: float, waited: float = 0.0) -> None:
        super().__init__(message)
        self.retries = retries
        self.seconds = seconds
        self.waited = waited


@dataclass(frozen=True)
class ChatRequest:
    url: str
    model: str
    messages: list[dict[str, Any]]
    temperature: float
    max_tokens: int
    seed: int | None
    schema_name: str
    schema: dict[str, Any]

    def params(self) -> dict[str, Any]:
        return {
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "seed": self.seed,
            "schema": self.schema,
        }


@dataclass(frozen=True)
class ChatReply:
    content: str
    prompt_tokens: int
    completion_tokens: int
    retries: int
    seconds: float
    finish_reason: str | None
    waited: float = 0.0
    sent_at: float | None = None
    """``time.perf_counter()`` when the request was sent, for an answer whose request left
    before this call (``semv.agents.llm._prefetch``); None: sent by this call."""
    """Seconds queued behind the concurrency limit before the first attempt (not latency)."""


class LlmClient:
    """One pooled ``httpx.AsyncClient`` per event loop; requests are bounded by ``concurrency``."""

    def __init__(
        self,
        *,
        api_key: str | None,
        timeout_s: float,
        retries: int,
        backoff_s: float,
        backoff_max_s: float,
        concurrency: int,
        response_format: str,
        transport: httpx.AsyncBaseTransport | None = None,
        tokens_per_s: float = 4.0,
        timeout_margin: float = 2.0,
        retry_timeouts: bool | None = None,
    ) -> None:
        if response_format not in _FORMATS:
            raise ValueError(f"response_format must be one of {_FORMATS}")
        self.api_key = api_key
        self.timeout_s = timeout_s
        self.retries = retries
        self.backoff_s = backoff_s
        self.backoff_max_s = backoff_max_s
        self.concurrency = concurrency
        self.tokens_per_s = tokens_per_s
        self.timeout_margin = timeout_margin
        self.retry_timeouts = retry_timeouts
        self._speeds: dict[str, list[float]] = {}  # per server URL: its last answers' speeds
        self._transport = transport
        self._format: dict[str, str] = {}  # per server URL: the format it accepted last
        self._default_format = response_format
        self._loop: asyncio.AbstractEventLoop | None = None
        self._limit: asyncio.Semaphore | None = None
        self._pools: dict[bool, httpx.AsyncClient] = {}  # TLS or not → pool, this loop
        self.requests = 0  # HTTP requests sent (every attempt), for tests and accounting
        self._tokenizer: dict[str, str | None] = {}  # server root → the endpoint that counts
        self._counts: dict[tuple[str, str, str], int] = {}
        self._contexts: dict[tuple[str, str], int | None] = {}

    def _client(self, url: str) -> tuple[httpx.AsyncClient, asyncio.Semaphore]:
        """The pool of the running event loop for ``url`` (``asyncio.run`` per case makes a
        new loop; a pool never crosses loops), and the loop's concurrency limit. A plain-HTTP
        server (a local one) gets a pool that loads no certificate store: building the TLS
        context costs ~0.1 s of CPU on the first request's path; an https URL gets a
        verifying pool of its own."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop or self._limit is None:
            self._loop, self._limit, self._pools = loop, asyncio.Semaphore(self.concurrency), {}
        tls = tls_needed(url)
        client = self._pools.get(tls)
        if client is None or client.is_closed:
            headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
            client = httpx.AsyncClient(
                timeout=httpx.Timeout(self.timeout_s),
                headers=headers,
                transport=self._transport,
                limits=httpx.Limits(max_connections=self.concurrency),
                verify=tls,  # never used without TLS: no redirects, no proxy
            )
            self._pools[tls] = client
        return client, self._limit

    async def aclose(self) -> None:
        pools, self._pools, self._loop, self._limit = self._pools, {}, None, None
        for client in pools.values():
            await client.aclose()

    def _backoff(self, attempt: int, retry_after: str | None) -> float:
        policy = Backoff(self.retries, self.backoff_s, self.backoff_max_s)
        return policy.delay(attempt, retry_after_seconds(retry_after))

    def speed(self, url: str) -> float:
        """Completion tokens per second the server at ``url`` managed: the slowest of its last
        answers long enough to say (the configured ``tokens_per_s`` until then)."""
        seen = self._speeds.get(url)
        return min(seen) if seen else self.tokens_per_s

    def _measured(self, url: str, reply: ChatReply) -> None:
        if reply.completion_tokens < _SPEED_MIN_TOKENS or reply.seconds <= 0:
            return
        seen = self._speeds.setdefault(url, [])
        seen.append(reply.completion_tokens / reply.seconds)
        del seen[:-_SPEED_WINDOW]

    def request_timeout(self, req: ChatRequest) -> float:
        """Seconds one attempt of ``req`` may take: ``timeout_s`` plus the margin times its
        completion budget at the server's speed."""
        return self.timeout_s + self.timeout_margin * req.max_tokens / self.speed(req.url)

    def format_for(self, url: str) -> str:
        """The structured-output form the next request to ``url`` uses."""
        return self._format.get(url, self._default_format)

    async def _prefetched(self, endpoint: str, body: dict[str, Any]) -> ChatReply | None:
        """The answer to this exact request when ``semv.agents.llm._prefetch`` sent it before
        this call and the server answered 200; None otherwise (none sent, or it failed: this
        call then sends the request itself, with its retries)."""
        from semv.agents.llm import _prefetch

        sent = _prefetch.take(endpoint, self.api_key, body)
        if sent is None:
            return None
        try:
            response, started, answered = await asyncio.wrap_future(sent)
        except Exception as exc:  # any failure: the call asks again
            logger.debug("the early request to %s failed: %s", endpoint, exc)
            return None
        if response.status_code != 200:
            return None
        self.requests += 1
        try:
            reply = completion_reply(response, 0, answered - started)
        except LlmUnavailable:
            return None
        return dataclasses.replace(reply, sent_at=started)

    async def chat(self, req: ChatRequest) -> ChatReply:
        """POST one chat completion; raise ``LlmUnavailable`` when it cannot be had."""
        client, limit = self._client(req.url)
        endpoint = chat_endpoint(req.url)
        queued = time.perf_counter()
        attempt = 0
        async with limit:
            started = time.perf_counter()
            waited = started - queued
            if (
                early := await self._prefetched(
                    endpoint, request_body(req, self.format_for(req.url))
                )
            ) is not None:
                return dataclasses.replace(early, waited=waited)
            while True:
                fmt = self.format_for(req.url)
                retry_after: str | None = None
                timeout = self.request_timeout(req)
                try:
                    self.requests += 1
                    response = await client.post(
                        endpoint, json=request_body(req, fmt), timeout=httpx.Timeout(timeout)
                    )
                except (httpx.TimeoutException, httpx.TransportError) as exc:
                    problem = f"{type(exc).__name__}: {exc}".rstrip(": ")
                    if isinstance(exc, httpx.TimeoutException) and not self._retry_timeout(req.url):
                        raise LlmUnavailable(
                            f"{problem} after {timeout:.1f}s (not asked again: "
                            f"{self._why_not_retried()}; max_tokens {req.max_tokens} at "
                            f"{self.speed(req.url):.1f} tokens/s)",
                            retries=attempt,
                            seconds=time.perf_counter() - started,
                            waited=waited,
                        ) from None
                else:
                    status = response.status_code
                    if status == 200:
                        reply = completion_reply(response, attempt, time.perf_counter() - started)
                        self._measured(req.url, reply)
                        return dataclasses.replace(reply, waited=waited)
                    text = response.text[:300]
                    rejects_format = status in (400, 422, 500) and "response_format" in text
                    if rejects_format and fmt != "none":
                        downgraded = _FORMATS[_FORMATS.index(fmt) + 1]
                        logger.info("%s rejects %s output; using %s", req.url, fmt, downgraded)
                        self._format[req.url] = downgraded
                        continue
                    problem = f"HTTP {status}: {text}"
                    if status not in _RETRY_STATUS:
                        raise LlmUnavailable(
                            problem,
                            retries=attempt,
                            seconds=time.perf_counter() - started,
                            waited=waited,
                        )
                    retry_after = response.headers.get("retry-after")
                if attempt >= self.retries:
                    raise LlmUnavailable(
                        f"{problem} (after {attempt} retries)",
                        retries=attempt,
                        seconds=time.perf_counter() - started,
                        waited=waited,
                    )
                delay = self._backoff(attempt, retry_after)
                logger.info("%s: %s; retry %d in %.2fs", endpoint, problem, attempt + 1, delay)
                attempt += 1
                await asyncio.sleep(delay)

    def _retry_timeout(self, url: str) -> bool:
        if self.retry_timeouts is not None:
            return self.retry_timeouts
        local = self._transport is not None and getattr(self._transport, "local", False)
        return not (local or on_loopback(url))

    def _why_not_retried(self) -> str:
        if self.retry_timeouts is False:
            return "llm.retry_timeouts is false"
        return "a server on this machine is still computing the answer"

    async def count_tokens(self, url: str, model: str, text: str) -> int | None:
        """Tokens of ``text`` by the server's tokenizer (special tokens parsed, no BOS added by
        llama.cpp); None when the server exposes no tokenizer (or does not answer now)."""
        root = server_root(url)
        key = (root, model, text)
        if key in self._counts:
            return self._counts[key]
        known = self._tokenizer.get(root, "?")
        if known is None:
            return None
        client, _limit = self._client(url)
        endpoints = _COUNT_ENDPOINTS if known == "?" else (known,)
        for endpoint in endpoints:
            body = (
                {"input": text}
                if endpoint.startswith("/extras")
                else {"content": text, "prompt": text}
            )
            body["model"] = model
            try:
                response = await client.post(root + endpoint, json=body)
            except (httpx.TimeoutException, httpx.TransportError) as exc:
                logger.info("%s%s: %s; estimating tokens", root, endpoint, type(exc).__name__)
                return None
            count = None
            if response.status_code == 200:
                try:
                    count = _count_from(response.json())
                except ValueError:
                    count = None
            if count is None:
                if response.status_code < 500:
                    continue  # this server has no such endpoint (404, 405, 422...)
                return None
            self._tokenizer[root] = endpoint
            if len(self._counts) >= _COUNT_CACHE:
                self._counts.clear()
            self._counts[key] = count
            return count
        self._tokenizer[root] = None
        logger.info("%s exposes no tokenizer; token counts are estimates", root)
        return None

    async def context_window(self, url: str, model: str) -> int | None:
        """The model's context length as the server states it, asked once per server and model."""
        root = server_root(url)
        if (root, model) in self._contexts:
            return self._contexts[(root, model)]
        client, _limit = self._client(url)
        found: int | None = None
        for address, read in (
            (root + "/props", _context_from_props),
            (url.rstrip("/") + "/models", lambda body: _context_from_models(body, model)),
        ):
            try:
                response = await client.get(address)
                if response.status_code == 200:
                    found = read(response.json())
            except (httpx.TimeoutException, httpx.TransportError, ValueError):
                found = None
            if found is not None:
                break
        self._contexts[(root, model)] = found
        return found


_SPEED_MIN_TOKENS = 16
"""An answer shorter than this says little about the server's speed (prompt time dominates)."""
_SPEED_WINDOW = 8


def on_loopback(url: str) -> bool:
    """Whether ``url`` names this machine (a loopback host)."""
    host = (httpx.URL(url).host or "").lower().strip("[]")
    return host in {"localhost", "::1"} or host.startswith("127.")


_PROXY_VARIABLES = (
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
)


def completion_reply(response: httpx.Response, retries: int, seconds: float) -> ChatReply:
    """The chat completion in ``response`` (a 200 answer); ``LlmUnavailable`` when its
    envelope is malformed."""
    try:
        body = response.json()
        choice = body["choices"][0]
        content = choice["message"].get("content") or ""
        usage = body.get("usage") or {}
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        raise LlmUnavailable(
            f"malformed completion envelope: {exc}", retries=retries, seconds=seconds
        ) from exc
    return ChatReply(
        content=str(content),
        prompt_tokens=int(usage.get("prompt_tokens") or 0),
        completion_tokens=int(usage.get("completion_tokens") or 0),
        retries=retries,
        seconds=seconds,
        finish_reason=choice.get("finish_reason"),
    )


def chat_endpoint(url: str) -> str:
    """The chat-completions endpoint of the server at ``url`` (…/v1)."""
    return url.rstrip("/") + "/chat/completions"


def request_body(req: ChatRequest, fmt: str) -> dict[str, Any]:
    """The JSON body of ``req`` with the structured-output form ``fmt`` (``_FORMATS``)."""
    body: dict[str, Any] = {
        "model": req.model,
        "messages": req.messages,
        "temperature": req.temperature,
        "max_tokens": req.max_tokens,
        "stream": False,
    }
    if req.seed is not None:
        body["seed"] = req.seed
    if fmt == "json_schema":
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": req.schema_name, "schema": req.schema, "strict": True},
        }
    elif fmt == "json_object_schema":
        body["response_format"] = {"type": "json_object", "schema": req.schema}
    elif fmt == "json_object":
        body["response_format"] = {"type": "json_object"}
    return body


def tls_needed(url: str) -> bool:
    """Whether a request to ``url`` may use TLS, so its client must load the certificate store
    (~0.1 s of CPU): any URL but a plain ``http://`` one, and every URL when the environment
    names a proxy (httpx would go through it, perhaps over TLS)."""
    if not url.lower().startswith("http://"):
        return True
    return any(environment_variable(name) for name in _PROXY_VARIABLES)


# ---- what the server says about tokens ---------------------------------------------------------

_COUNT_ENDPOINTS = ("/extras/tokenize/count", "/tokenize")
_COUNT_CACHE = 4096


def server_root(url: str) -> str:
    """``http://host:port`` of an OpenAI-style base URL ``http://host:port/v1``."""
    root = url.rstrip("/")
    return root.removesuffix("/v1")


def _count_from(body: Any) -> int | None:
    if not isinstance(body, dict):
        return None
    count = body.get("count")
    if isinstance(count, int):
        return count
    tokens = body.get("tokens")
    return len(tokens) if isinstance(tokens, list) else None


def _context_from_props(body: Any) -> int | None:
    if not isinstance(body, dict):
        return None
    settings = body.get("default_generation_settings")
    for value in (settings.get("n_ctx") if isinstance(settings, dict) else None, body.get("n_ctx")):
        if isinstance(value, int) and value > 0:
            return value
    return None


def _context_from_models(body: Any, model: str) -> int | None:
    entries = body.get("data") if isinstance(body, dict) else None
    if not isinstance(entries, list):
        return None
    mine = [e for e in entries if isinstance(e, dict) and e.get("id") == model]
    for entry in mine or (entries if len(entries) == 1 else []):
        value = entry.get("max_model_len") if isinstance(entry, dict) else None
        if isinstance(value, int) and value > 0:
            return value
    return None
