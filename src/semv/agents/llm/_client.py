"""Async client for OpenAI-compatible ``/v1/chat/completions`` servers (vLLM, Ollama, llama.cpp,
hosted APIs).

Retries with exponential backoff and full jitter on 429, 5xx, connection errors and timeouts
(honouring ``Retry-After``); a semaphore bounds concurrent requests; cancelling the awaiting
task cancels the request. Structured output: ``response_format`` ``json_schema`` when the server
supports it; a server that rejects it (400/422/500 naming ``response_format``) is remembered and
downgraded step by step (see ``_FORMATS``), and the answer is validated by the caller either way.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import random
import time
from dataclasses import dataclass
from typing import Any

import httpx

__all__ = ["ChatReply", "ChatRequest", "LlmClient", "LlmUnavailable"]

logger = logging.getLogger(__name__)

_RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
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
    ) -> None:
        if response_format not in _FORMATS:
            raise ValueError(f"response_format must be one of {_FORMATS}")
        self.api_key = api_key
        self.timeout_s = timeout_s
        self.retries = retries
        self.backoff_s = backoff_s
        self.backoff_max_s = backoff_max_s
        self.concurrency = concurrency
        self._transport = transport
        self._format: dict[str, str] = {}  # per server URL: the format it accepted last
        self._default_format = response_format
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pool: tuple[httpx.AsyncClient, asyncio.Semaphore] | None = None
        self.requests = 0  # HTTP requests sent (every attempt), for tests and accounting

    def _client(self) -> tuple[httpx.AsyncClient, asyncio.Semaphore]:
        """The pool of the running event loop (``asyncio.run`` per case makes a new loop; a
        pool never crosses loops)."""
        loop = asyncio.get_running_loop()
        entry = self._pool if self._loop is loop else None
        if entry is None or entry[0].is_closed:
            headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
            client = httpx.AsyncClient(
                timeout=httpx.Timeout(self.timeout_s),
                headers=headers,
                transport=self._transport,
                limits=httpx.Limits(max_connections=self.concurrency),
            )
            entry = (client, asyncio.Semaphore(self.concurrency))
            self._loop, self._pool = loop, entry
        return entry

    async def aclose(self) -> None:
        pool, self._pool, self._loop = self._pool, None, None
        if pool is not None:
            await pool[0].aclose()

    def _backoff(self, attempt: int, retry_after: str | None) -> float:
        if retry_after:
            try:
                return min(float(retry_after), self.backoff_max_s)
            except ValueError:
                pass
        ceiling = min(self.backoff_max_s, self.backoff_s * (2**attempt))
        return random.uniform(0.0, ceiling)

    def _body(self, req: ChatRequest, fmt: str) -> dict[str, Any]:
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

    async def chat(self, req: ChatRequest) -> ChatReply:
        """POST one chat completion; raise ``LlmUnavailable`` when it cannot be had."""
        client, limit = self._client()
        endpoint = req.url.rstrip("/") + "/chat/completions"
        queued = time.perf_counter()
        attempt = 0
        async with limit:
            started = time.perf_counter()
            waited = started - queued
            while True:
                fmt = self._format.get(req.url, self._default_format)
                retry_after: str | None = None
                try:
                    self.requests += 1
                    response = await client.post(endpoint, json=self._body(req, fmt))
                except (httpx.TimeoutException, httpx.TransportError) as exc:
                    problem = f"{type(exc).__name__}: {exc}".rstrip(": ")
                else:
                    status = response.status_code
                    if status == 200:
                        reply = self._reply(response, attempt, time.perf_counter() - started)
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

    @staticmethod
    def _reply(response: httpx.Response, retries: int, seconds: float) -> ChatReply:
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
