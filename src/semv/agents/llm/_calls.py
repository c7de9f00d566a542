"""The plumbing every role of the LLM backend shares (``LlmCalls``): render the versioned
prompt, fit it to the token budget, look the request up in the response cache, else call the
server; parse and validate the answer against the role's schema; on failure, one repair attempt
(the error is shown to the model); still unusable (or the server unreachable after retries) →
the caller falls back to the offline role and a ``model-fallback`` item records it. Every call
is accounted (role, node, tokens, latency, retries) in the ``semv.usage`` ledger bound to the
run."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel

from semv.agents.llm._budget import EvidencePrompt, TokenBudget, Variant
from semv.agents.llm._cache import ResponseCache
from semv.agents.llm._client import ChatRequest, LlmClient, LlmUnavailable
from semv.agents.llm._evidence import prompt_item
from semv.agents.llm._requests import (
    Target,
    chat_request,
    parse_answer,
    response_key,
    system_message,
    target_of,
)
from semv.agents.offline import OfflineAgents
from semv.config import LlmConfig, Settings, environment_variable
from semv.errors import SemvError
from semv.model import Evidence, Stage, UncertaintyCode, UncertaintyItem
from semv.store import Store
from semv.usage import CallRecord, Ledger, current_ledger, current_node

__all__ = ["LlmCalls", "ReplayMiss", "ServerUnreachable"]

# the backend's logger, named as before the split (its warnings are configured by this name)
logger = logging.getLogger("semv.agents.llm._agents")
_A = TypeVar("_A", bound=BaseModel)


class ServerUnreachable(str):
    """The problem text of a call that got no answer at all (server down, retries spent): the
    role's offline answer stands in, exactly as the offline backend gives it."""


class ReplayMiss(SemvError):
    """``--replay`` needs a model answer that is not in the response cache (a user
    condition: exit 2, the message names the next step)."""

    exit_code = 2


class LlmCalls:
    """What every role of ``LlmAgents`` shares: the offline backend as the per-role fallback,
    the response cache (``store``; ``replay`` forbids HTTP), the client and token budget, and
    the fit → ask → validate → one repair loop with its accounting."""

    def __init__(
        self,
        settings: Settings,
        *,
        store: Store | None = None,
        replay: bool = False,
        fallback: OfflineAgents | None = None,
        client: LlmClient | None = None,
    ) -> None:
        self.settings = settings
        self.config: LlmConfig = settings.llm
        self.fallback = fallback or OfflineAgents(settings)
        self.cache = ResponseCache(store) if store is not None else None
        self.replay = replay
        if replay and self.cache is None:
            raise ValueError("replay needs a store holding the response cache")
        cfg = self.config
        self.client = client or LlmClient(
            api_key=environment_variable(cfg.api_key_env),
            timeout_s=cfg.timeout_s,
            retries=cfg.retries,
            backoff_s=cfg.backoff_s,
            backoff_max_s=cfg.backoff_max_s,
            concurrency=cfg.concurrency,
            response_format=cfg.response_format,
            tokens_per_s=cfg.tokens_per_s,
            timeout_margin=cfg.timeout_margin,
            retry_timeouts=cfg.retry_timeouts,
        )
        self.budget = TokenBudget(cfg, self.client)
        self.ledger = Ledger()  # every call of this backend's life (a run's goes to its own too)
        self._warned: set[str] = set()  # fallback reasons already warned about

    # ---- plumbing ----------------------------------------------------------------------------

    def _target(self, role: str) -> Target:
        return target_of(self.config, role)

    def _record(self, record: CallRecord) -> None:
        self.ledger.add(record)
        ledger = current_ledger.get()
        if ledger is not None:
            ledger.add(record)

    def _fallback_counted(self, role: str) -> None:
        self.ledger.fallback(role)
        ledger = current_ledger.get()
        if ledger is not None:
            ledger.fallback(role)

    @staticmethod
    def _note(item: UncertaintyItem) -> None:
        ledger = current_ledger.get()
        if ledger is not None:
            ledger.note(item)

    def _warn_fallback(self, what: str, problem: str | None) -> None:
        """One warning per distinct problem (a dead server would otherwise warn once per case
        and role); later fallbacks for the same reason are counted in the run's usage."""
        reason = str(problem)
        if reason in self._warned:
            logger.debug("%s falls back to the offline backend: %s", what, reason)
            return
        self._warned.add(reason)
        logger.warning(
            "%s falls back to the offline backend: %s (further fallbacks for this reason are "
            "not repeated; the run's usage counts them)",
            what,
            reason,
        )

    def _invocation(self) -> int:
        ledger = current_ledger.get()
        return (ledger or self.ledger).new_invocation()

    def _key(
        self, target: Target, prompt: str, version: str | None, messages: list[dict[str, Any]],
        answer: type[BaseModel],
    ) -> tuple[ChatRequest, str]:  # fmt: skip
        request = chat_request(self.config, target, messages, answer)
        return request, response_key(request, prompt, version)

    def _cost(self, model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
        price = self.config.prices.get(model)
        if price is None:
            return None
        ledger = current_ledger.get()
        if ledger is not None:
            ledger.currency = self.config.currency
        return (
            prompt_tokens * price.prompt_per_mtok + completion_tokens * price.completion_per_mtok
        ) / 1e6

    async def _complete(
        self,
        *,
        role: str,
        config_role: str,
        prompt: str,
        messages: list[dict[str, Any]],
        answer: type[BaseModel],
        invocation: int,
        task: str,
        version: str | None = None,
        tokens: int | None = None,
    ) -> tuple[str | None, str | None]:
        """One request (cache → server). Returns (content, problem). ``tokens``: the prompt's
        counted tokens, checked against the case's budget before anything is sent."""
        target = self._target(config_role)
        request, key = self._key(target, prompt, version, messages, answer)
        node = current_node.get()
        start = time.perf_counter()
        if self.cache is not None:
            hit = await asyncio.to_thread(self.cache.get, key)
            if hit is not None:
                self._record(CallRecord(role, node, invocation, task, start, 0.0, cached=True))
                return hit, None
            if self.replay:
                failure = await asyncio.to_thread(self.cache.get_failure, key)
                if failure is not None:
                    self._record(
                        CallRecord(role, node, invocation, task, start, 0.0, cached=True, ok=False)
                    )
                    return None, failure
                raise ReplayMiss(
                    f"--replay: no cached answer for role {role} of model {target.model} "
                    f"(node {node or '?'}); run once without --replay first"
                )
        budget = self.config.case_prompt_tokens
        ledger = current_ledger.get() or self.ledger
        if tokens is not None and not ledger.reserve(tokens, budget):
            problem = (
                f"case prompt budget exhausted: {ledger.reserved_tokens} of "
                f"llm.case_prompt_tokens {budget} spent, this request needs {tokens}"
            )
            if self.cache is not None:
                await asyncio.to_thread(self.cache.put_failure, key, role, problem)
            return None, problem
        try:
            reply = await self.client.chat(request)
        except LlmUnavailable as exc:
            self._record(
                CallRecord(
                    role,
                    node,
                    invocation,
                    task,
                    start + exc.waited,
                    exc.seconds,
                    retries=exc.retries,
                    ok=False,
                    queued=exc.waited,
                )
            )
            problem = f"server unavailable: {exc}"
            if self.cache is not None:
                await asyncio.to_thread(self.cache.put_failure, key, role, problem)
            return None, problem
        self._record(
            CallRecord(
                role,
                node,
                invocation,
                task,
                reply.sent_at if reply.sent_at is not None else start + reply.waited,
                reply.seconds,
                queued=0.0 if reply.sent_at is not None else reply.waited,
                prompt_tokens=reply.prompt_tokens,
                completion_tokens=reply.completion_tokens,
                retries=reply.retries,
                cost=self._cost(target.model, reply.prompt_tokens, reply.completion_tokens),
            )
        )
        if self.cache is not None:
            await asyncio.to_thread(self.cache.put, key, role, reply.content)
        return reply.content, None

    async def _fit(
        self,
        *,
        role: str,
        target: Target,
        prompt: str,
        version: str | None,
        answer: type[BaseModel],
        system: dict[str, Any],
        user: str | list[dict[str, Any]] | EvidencePrompt,
    ) -> tuple[list[dict[str, Any]] | None, int | None, str | None]:
        """The first messages that fit the request's token limit (an ``EvidencePrompt`` is
        shrunk in its declared order), their counted tokens (None: not counted, no limit
        applies), or the problem when nothing fits. A shrink step whose answer is cached is
        taken without counting (it costs no tokens); under ``--replay`` also one whose failure
        is, and no server is ever asked (the first cached step is the one that was sent)."""
        if not isinstance(user, EvidencePrompt):
            variants: list[tuple[Any, Variant | None]] = [(user, None)]
        else:
            variants = [(v.user, v) for v in user.variants()]
        if self.cache is not None:
            cache = self.cache

            def found(key: str) -> bool:
                return cache.has(key) if self.replay else cache.get(key) is not None

            for text, variant in variants:
                messages = [system, {"role": "user", "content": text}]
                _request, key = self._key(target, prompt, version, messages, answer)
                if await asyncio.to_thread(found, key):
                    self._left_out(role, user, variant)
                    return messages, None, None
        if self.replay:
            return [system, {"role": "user", "content": variants[0][0]}], None, None
        limit, source = await self.budget.call_limit(target.url, target.model, target.max_tokens)
        if limit is None and self.config.case_prompt_tokens is None:
            self._left_out(role, user, variants[0][1])
            return [system, {"role": "user", "content": variants[0][0]}], None, None
        tokens = 0
        for text, variant in variants:
            messages = [system, {"role": "user", "content": text}]
            tokens = await self.budget.count(target.url, target.model, messages)
            if limit is None or tokens <= limit:
                self._left_out(role, user, variant)
                return messages, tokens, None
        problem = (
            f"prompt over budget: {tokens} tokens after {len(variants) - 1} shrink steps, "
            f"limit {limit} ({source})"
        )
        first = [system, {"role": "user", "content": variants[0][0]}]
        await self._refuse(role, target, prompt, version, first, answer, problem)
        return None, None, problem

    async def _refuse(
        self, role: str, target: Target, prompt: str, version: str | None,
        messages: list[dict[str, Any]], answer: type[BaseModel], problem: str,
    ) -> None:  # fmt: skip
        """A request the budget kept from being sent is remembered as a failure, so that
        ``--replay`` falls back the same way."""
        if self.cache is not None:
            _request, key = self._key(target, prompt, version, messages, answer)
            await asyncio.to_thread(self.cache.put_failure, key, role, problem)

    def _left_out(
        self, role: str, user: str | list[dict[str, Any]] | EvidencePrompt, variant: Variant | None
    ) -> None:
        if variant is None or not isinstance(user, EvidencePrompt):
            return
        trim = variant.trim(role, user.subject, user.beyond_k)
        if trim is None:
            return
        self.ledger.trim(trim)
        ledger = current_ledger.get()
        if ledger is not None:
            ledger.trim(trim)

    async def _ask(
        self,
        *,
        role: str,
        prompt: str,
        answer: type[_A],
        user: str | list[dict[str, Any]] | EvidencePrompt,
        invocation: int,
        task: str | None = None,
        config_role: str | None = None,
        duty: str | None = None,
        version: str | None = None,
    ) -> tuple[_A | None, str | None]:
        """Fit the prompt to its budget, ask, validate, repair once. Returns (answer, None) or
        (None, why it is unusable)."""
        target = self._target(config_role or role)
        system = system_message(role, answer, duty or None)
        messages, tokens, problem = await self._fit(
            role=role,
            target=target,
            prompt=prompt,
            version=version,
            answer=answer,
            system=system,
            user=user,
        )
        if messages is None:
            self._fallback_counted(role)
            return None, problem
        for attempt in range(2):
            content, problem = await self._complete(
                role=role,
                config_role=config_role or role,
                prompt=prompt,
                messages=messages,
                answer=answer,
                invocation=invocation,
                task=task or role,
                version=version,
                tokens=tokens,
            )
            if content is None:
                self._fallback_counted(role)
                # the server is unavailable: no repair attempt
                return None, ServerUnreachable(problem or "server unavailable")
            parsed, problem = parse_answer(content, answer)
            if parsed is not None:
                return parsed, None
            if attempt == 0:
                messages = [
                    *messages,
                    {"role": "assistant", "content": content[:4000]},
                    {
                        "role": "user",
                        "content": f"That answer is invalid: {problem}. Reply again with only "
                        "the corrected JSON object matching the schema.",
                    },
                ]
                if tokens is not None:
                    tokens = await self.budget.count(target.url, target.model, messages)
                    limit, source = await self.budget.call_limit(
                        target.url, target.model, target.max_tokens
                    )
                    if limit is not None and tokens > limit:
                        problem = f"{problem}; the repair prompt ({tokens} tokens) is over {source}"
                        await self._refuse(role, target, prompt, version, messages, answer, problem)
                        break
        self._fallback_counted(role)
        return None, f"unusable answer after one repair: {problem}"

    async def ask(
        self, *, role: str, duty: str, user: str, version: str, answer: type[_A]
    ) -> tuple[_A | None, str | None]:
        """A structured call for a role a procedure defines itself (its template rendered with
        ``render_from``, untrusted text delimited): cached, accounted, validated against
        ``answer`` and repaired once like the protocol's roles. Returns (answer, None) or
        (None, why it is unusable); the caller decides the fallback."""
        return await self._ask(
            role=role,
            prompt=role,
            answer=answer,
            user=user,
            invocation=self._invocation(),
            duty=duty,
            version=version,
        )

    def evidence_block(self, evidence: Sequence[Evidence]) -> list[dict[str, str]]:
        """The evidence as the prompts show it: id and a bounded, headed text."""
        return self._evidence_block(evidence)

    def _evidence_block(
        self, evidence: Sequence[Evidence], query: str = ""
    ) -> list[dict[str, str]]:
        """Each item headed and bounded: a measurement as its typed line, a text as an
        excerpt of ``llm.evidence_chars`` (offsets shown)."""
        chars = self.config.evidence_chars
        return [prompt_item(ev, chars, query).as_dict() for ev in evidence]

    def _evidence_prompt(
        self,
        render_with: Callable[[list[dict[str, str]]], str],
        evidence: Sequence[Evidence],
        *,
        subject: str,
        query: str,
        pinned: frozenset[str] = frozenset(),
        beyond_k: Sequence[Evidence] = (),
    ) -> EvidencePrompt:
        cfg = self.config
        return EvidencePrompt(
            render=render_with,
            evidence=tuple(evidence),
            chars=cfg.evidence_chars,
            min_chars=min(cfg.excerpt_min_chars, cfg.evidence_chars),
            query=query,
            subject=subject,
            pinned=pinned,
            beyond_k=tuple(e.id for e in beyond_k),
        )

    @staticmethod
    def _fallback_note(subject: str, role: str, problem: str, stage: Stage) -> UncertaintyItem:
        return UncertaintyItem(
            code=UncertaintyCode.MODEL_FALLBACK,
            subject=subject,
            detail=f"{role}: {problem}"[:500],
            stages=(stage,),
        )
