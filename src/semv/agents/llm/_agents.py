"""``LlmAgents``: every agent role over an OpenAI-compatible chat-completions server.

Per role: render the versioned prompt (untrusted content delimited), look the request up in the
response cache, else call the server; parse and validate the answer against the role's schema;
on failure, one repair attempt (the error is shown to the model); still unusable (or the server
unreachable after retries) → the deterministic offline backend answers that role, and a
``model-fallback`` uncertainty item records it; the fallback gives exactly the offline role's
answer. The verifier is the exception when the model *answers* unusably: it fails closed
(v_a = 0 with a code), never "verified" by default; when the server gives no answer at all,
the offline verifier answers like any other role. Every call is accounted (role, node,
tokens, latency, retries) in the ``semv.usage`` ledger bound to the run.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import mimetypes
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from semv._code import code_fingerprint
from semv.agents._early import EarlyStart, current_early
from semv.agents._protocol import (
    ArgueInput,
    ArgueOutput,
    ArgumentDraft,
    ClashInput,
    ClashJudgement,
    DecomposeInput,
    DescribeInput,
    Description,
    PlanInput,
    Verification,
    VerifyInput,
    VerifyOutput,
)
from semv.agents.llm._budget import EvidencePrompt, TokenBudget, Variant
from semv.agents.llm._cache import ResponseCache
from semv.agents.llm._client import ChatRequest, LlmClient, LlmUnavailable
from semv.agents.llm._contracts import (
    ImageDescribeInput,
    ImageDescription,
    LessonCandidate,
    ReflectInput,
    ReflectOutput,
)
from semv.agents.llm._evidence import prompt_item, select_for_dimension
from semv.agents.llm._prompts import prompts_digest, render
from semv.agents.llm._requests import (
    Target,
    chat_request,
    decompose_user,
    early_plans,
    parse_answer,
    plan_user,
    response_key,
    system_message,
    target_of,
)
from semv.agents.llm._schemas import (
    ArgueAnswer,
    ArgumentAnswer,
    BatchedArgueAnswer,
    DecomposeAnswer,
    DescribeAnswer,
    JudgeAnswer,
    PlanAnswer,
    ReflectAnswer,
    VerifyAnswer,
)
from semv.agents.offline import OfflineAgents
from semv.config import LlmConfig, Settings, environment_variable
from semv.dimensions import decompose_case
from semv.errors import SemvError
from semv.model import (
    Case,
    Claims,
    Dimension,
    Evidence,
    ResearchPlan,
    Stage,
    Stance,
    UncertaintyCode,
    UncertaintyItem,
)
from semv.store import Store, content_hash
from semv.usage import CallRecord, Ledger, current_ledger, current_node

__all__ = ["LlmAgents", "ReplayMiss", "repair_evidence_id"]

logger = logging.getLogger(__name__)
_A = TypeVar("_A", bound=BaseModel)
_ID_JUNK = re.compile(r"[\s\"'`\[\]()<>{}]")


class ServerUnreachable(str):
    """The problem text of a call that got no answer at all (server down, retries spent): the
    role's offline answer stands in, exactly as the offline backend gives it."""


class ReplayMiss(SemvError):
    """``--replay`` needs a model answer that is not in the response cache (a user
    condition: exit 2, the message names the next step)."""

    exit_code = 2


# ---- the backend -----------------------------------------------------------------------------


def _offline_describe(offline: OfflineAgents, request: DescribeInput) -> Description:
    """The offline backend's describe role run to completion (it computes synchronously)."""
    return asyncio.run(offline.describe(request))


@dataclass(frozen=True)
class _Outcome:
    answer: BaseModel | None
    problem: str | None


class LlmAgents:
    """The ``Agents`` protocol over ``/v1/chat/completions``, with the offline backend as the
    per-role fallback. ``store`` holds the response cache; ``replay`` forbids HTTP."""

    name = "llm"
    version = "1"

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

    # ---- identity ----------------------------------------------------------------------------

    @property
    def identity(self) -> str:
        """Model, the settings that shape answers, the prompt versions, the code, and the
        fallback's identity: a change of any of them never reuses an old node."""
        cfg = self.config
        shaping = cfg.model_dump(
            mode="json",
            exclude={
                "url",
                "api_key_env",
                "timeout_s",
                "tokens_per_s",
                "timeout_margin",
                "retry_timeouts",
                "retries",
                "backoff_s",
                "backoff_max_s",
                "prices",
                "currency",
            },
        )
        shaping.pop("concurrency", None)
        return (
            f"{self.name}/{self.version}/model:{cfg.model}"
            f"/settings:{content_hash(shaping)[:16]}"
            f"/prompts:{prompts_digest()[:16]}"
            f"/code:{code_fingerprint(('semv.agents.llm',))[:16]}"
            f"/fallback:{self.fallback.identity}"
        )

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

    # ---- roles -------------------------------------------------------------------------------

    # ---- calls started ahead of their nodes -----------------------------------------

    def start_early(self, request: EarlyStart) -> None:
        """Start the decomposer's call (and the offline extractors beside it) now, in the
        running loop: its prompt holds only the claim and its context, so it need not wait
        for the media nodes the ``claims`` node waits for. With ``plan_nodes``, each plan call
        starts as soon as the decomposer's answer gives its subclaim's statement. The nodes
        take these calls when they run (``decompose``, ``plan``); see ``semv.agents._early``."""
        early = current_early.get()
        if early is None or request.decompose_node is None:
            return
        case = request.case
        cfg = self.config
        if cfg.case_prompt_tokens is not None and cfg.vision and any(a.loaded for a in case.media):
            # the case's budget goes first come, first served, and the VLM's describe calls
            # (before the claims node) came first: an early call must not take their share
            return
        user = decompose_user(case)
        # the extractors load spaCy: beside loaded media they wait for the ``claims`` node
        # (the media warm-up loads spaCy after OCR's first read, and the node runs after the
        # media nodes anyway), so they never take the CPU the media extraction needs
        extract = not any(a.loaded for a in case.media)
        early.start(
            ("decompose", user),
            request.decompose_node,
            self._decompose_parts(case, user, plans=request.plan_nodes, extract=extract),
        )

    def _start_plans(self, case: Case, answer: DecomposeAnswer, nodes: Mapping[str, str]) -> None:
        """The plan calls of the subclaims whose statement ``answer`` gives, exactly as the
        plan nodes will render them (``_requests.early_plans``)."""
        early = current_early.get()
        if early is None:
            return
        for dim, user in early_plans(case, answer).items():
            node = nodes.get(dim)
            if node is not None:
                early.start(("plan", user), node, self._plan_answer(user))

    async def _decompose_parts(
        self,
        case: Case,
        user: str,
        *,
        plans: Mapping[str, str] | None = None,
        extract: bool = True,
    ) -> tuple[tuple[DecomposeAnswer | None, str | None], Claims | None]:
        """The model's answer and (``extract``) the offline extractors' claims; the
        extractors (CPU) run in a thread while the model answers, and never hold the answer
        (nor, with ``plans``, the plan calls it lets start) back."""
        base = asyncio.ensure_future(asyncio.to_thread(decompose_case, case)) if extract else None
        try:
            answer, problem = await self._ask(
                role="decompose",
                prompt="decompose",
                answer=DecomposeAnswer,
                user=user,
                invocation=self._invocation(),
            )
            if plans and answer is not None:
                self._start_plans(case, answer, plans)
            return (answer, problem), (await base if base is not None else None)
        finally:
            if base is not None and not base.done():
                base.cancel()

    async def decompose(self, request: DecomposeInput) -> Claims:
        """The model words each dimension's subclaim (statement, type, asserted, queries); the
        structured facts (dates, places, people) come from the offline extractors, which also
        answer any dimension the model leaves out or the whole role when it fails."""
        case = request.case
        user = decompose_user(case)
        early = current_early.get()
        started = early.take(("decompose", user)) if early is not None else None
        parts: tuple[tuple[DecomposeAnswer | None, str | None], Claims | None] = await (
            started if started is not None else self._decompose_parts(case, user)
        )
        (answer, problem), extracted = parts
        if extracted is None:
            base = await asyncio.to_thread(decompose_case, case)
        else:
            base = extracted
        if answer is None:
            self._warn_fallback("decompose", problem)
            self._note(self._fallback_note(case.id, "decompose", str(problem), Stage.CLAIMS))
            return base
        given = {s.dimension.value: s for s in answer.subclaims}
        subclaims = {}
        for dim, sub in base.subclaims.items():
            said = given.get(dim)
            if said is None:
                subclaims[dim] = sub
                continue
            queries = tuple(q.strip() for q in said.queries if q.strip())[:3] or sub.queries
            subclaims[dim] = sub.model_copy(
                update={
                    "statement": said.statement.strip(),
                    "claim_type": said.claim_type.strip()[:40],
                    "asserted": said.asserted,
                    "queries": queries,
                }
            )
        return base.model_copy(update={"subclaims": subclaims})

    async def _plan_answer(self, user: str) -> tuple[PlanAnswer | None, str | None]:
        return await self._ask(
            role="plan",
            prompt="plan",
            answer=PlanAnswer,
            user=user,
            invocation=self._invocation(),
        )

    async def plan(self, request: PlanInput) -> ResearchPlan:
        sub = request.subclaim
        user = plan_user(
            sub.dimension.value, request.case.claim, sub.id, sub.statement, request.memory.records
        )
        early = current_early.get()
        started = early.take(("plan", user)) if early is not None else None
        answer, problem = await (started if started is not None else self._plan_answer(user))
        if answer is None:
            self._warn_fallback(f"plan {sub.id}", problem)
            self._note(self._fallback_note(sub.id, "plan", str(problem), Stage.RETRIEVE))
            return await self.fallback.plan(request)
        known = set(request.memory.records)

        def clean(items: list[str]) -> tuple[str, ...]:
            return tuple(dict.fromkeys(i.strip() for i in items if i.strip()))[:8]

        return ResearchPlan(
            subclaim=sub.id,
            questions=clean(answer.questions),
            queries=clean(answer.queries) or sub.queries,
            source_types=clean(answer.source_types),
            checks=clean(answer.checks),
            memory_used=tuple(m for m in clean(answer.memory_used) if m in known),
        )

    async def argue(self, request: ArgueInput) -> ArgueOutput:
        """Proponent and opponent as two concurrent calls (``batch_argue``: one call). A side
        whose answer is unusable is argued by the offline rules instead. No call when no
        evidence fits the subclaim: an argument must cite evidence to be admissible (Eq. 6),
        so there is nothing to argue about (the argue stage records ``no-evidence``)."""
        sub = request.subclaim
        shown, beyond = select_for_dimension(
            request.evidence, sub.dimension, self.config.evidence_per_role
        )
        if not shown:
            return ArgueOutput(drafts=(), uncertainty=())
        common: dict[str, Any] = {
            "dimension": sub.dimension.value,
            "subclaim_id": sub.id,
            "statement": sub.statement,
            "claim": request.case.claim,
            "max_arguments": self.config.max_arguments,
        }

        def argue_prompt(side: str) -> EvidencePrompt:
            return self._evidence_prompt(
                lambda items: render("argue", side=side, evidence=items, **common),
                shown,
                subject=sub.id,
                query=f"{sub.statement} {request.case.claim}",
                beyond_k=beyond,
            )

        invocation = self._invocation()
        ids = [e.id for e in request.evidence]
        drafts: list[ArgumentDraft] = []
        notes: list[UncertaintyItem] = []
        failed: list[Stance] = []
        if self.config.batch_argue:
            both, problem = await self._ask(
                role="debaters",
                prompt="argue",
                answer=BatchedArgueAnswer,
                user=argue_prompt("both"),
                invocation=invocation,
                config_role="argue",
            )
            if both is None:
                failed = [Stance.SUPPORT, Stance.ATTACK]
                notes.append(self._fallback_note(sub.id, "argue", str(problem), Stage.ARGUE))
            else:
                for stance in (Stance.SUPPORT, Stance.ATTACK):
                    chosen = [a for a in both.arguments if a.stance == stance.value]
                    drafts += self._drafts(stance, chosen, ids, request.memory.records)
        else:
            sides = (("proponent", Stance.SUPPORT), ("opponent", Stance.ATTACK))
            answers = await asyncio.gather(
                *(
                    self._ask(
                        role=role,
                        prompt="argue",
                        answer=ArgueAnswer,
                        user=argue_prompt(stance.value),
                        invocation=invocation,
                        task=role,
                        config_role="argue",
                    )
                    for role, stance in sides
                )
            )
            for (role, stance), (answer, problem) in zip(sides, answers, strict=True):
                if answer is None:
                    failed.append(stance)
                    notes.append(self._fallback_note(sub.id, role, str(problem), Stage.ARGUE))
                else:
                    drafts += self._drafts(stance, answer.arguments, ids, request.memory.records)
        if failed:
            offline = await self.fallback.argue(request)
            drafts += [d for d in offline.drafts if d.stance in failed]
            notes += list(offline.uncertainty)
        return ArgueOutput(drafts=tuple(drafts), uncertainty=tuple(notes))

    def _drafts(
        self,
        stance: Stance,
        answers: Sequence[ArgumentAnswer],
        ids: Sequence[str],
        memory: Sequence[str],
    ) -> list[ArgumentDraft]:
        out = []
        for ans in answers[: self.config.max_arguments]:
            text = " ".join(ans.text.split())
            if not text:
                continue
            cited = tuple(dict.fromkeys(repair_evidence_id(i, ids) for i in ans.evidence))
            out.append(
                ArgumentDraft(
                    stance=stance,
                    text=text,
                    evidence=cited,
                    key_facts=tuple(k.strip() for k in ans.key_facts if k.strip())[:6],
                    memory=tuple(m for m in memory if m in text),
                )
            )
        return out

    async def verify(self, request: VerifyInput) -> VerifyOutput:
        """Batched per subclaim; fail closed on an unusable answer, the offline verifier when
        the server is unreachable. A draft citing an id outside the given evidence is
        unverified without asking; a draft the model gives no verdict for is unverified with
        ``unverified-argument``; an unusable answer makes every draft unverified with
        ``model-fallback``."""
        return await self._verify(request, role="verify")

    @property
    def stronger_verifier(self) -> str | None:
        """``llm.escalate_model``: the stronger verifier of A-QBAF MV2026 §2.6.3 (the
        ``escalate:k`` stage calls it for subclaims whose score lies in the band)."""
        return self.config.escalate_model

    async def escalate_verify(self, request: VerifyInput) -> VerifyOutput:
        """One final judgment by the stronger verifier (role ``escalate``), fail closed like
        ``verify``."""
        return await self._verify(request, role="escalate")

    async def _verify(self, request: VerifyInput, *, role: str) -> VerifyOutput:
        ids = {e.id for e in request.evidence}
        results: list[Verification | None] = []
        ask: list[int] = []
        for n, draft in enumerate(request.drafts):
            if not draft.evidence or any(i not in ids for i in draft.evidence):
                results.append(
                    Verification(
                        verified=False,
                        reason="cites evidence that is not in this case",
                        uncertainty=(UncertaintyCode.UNRESOLVED_EVIDENCE,),
                    )
                )
            else:
                results.append(None)
                ask.append(n)
        if ask:
            verdicts = await self._verify_batch(request, ask, role=role)
            if verdicts is None:  # no server: the offline verifier's answer, as it gives it
                return await self.fallback.verify(request)
            for n in ask:
                results[n] = verdicts[n]
        return VerifyOutput(results=tuple(r for r in results if r is not None))

    async def _verify_batch(
        self, request: VerifyInput, indices: list[int], *, role: str
    ) -> dict[int, Verification] | None:
        """The model's verdicts; None when the server gave no answer at all. An answer that
        is unusable fails closed (never "verified" by default)."""
        sub = request.subclaim
        drafts = [request.drafts[n] for n in indices]
        arguments = [
            {
                "id": str(position),
                "text": f"stance={d.stance.value} cites={','.join(d.evidence)}: {d.text}",
            }
            for position, d in enumerate(drafts)
        ]
        cited = {i for d in drafts for i in d.evidence}
        user = self._evidence_prompt(
            lambda items: render(
                "verify",
                dimension=sub.dimension.value,
                subclaim_id=sub.id,
                statement=sub.statement,
                arguments=arguments,
                evidence=items,
            ),
            [e for e in request.evidence if e.id in cited],
            subject=sub.id,
            query=" ".join(d.text for d in drafts),
            pinned=frozenset(cited),
        )
        answer, problem = await self._ask(
            role=role,
            prompt="verify",
            answer=VerifyAnswer,
            user=user,
            invocation=self._invocation(),
            config_role=role,
        )
        if isinstance(problem, ServerUnreachable):
            self._warn_fallback(role, problem)
            self._note(self._fallback_note(sub.id, role, str(problem), Stage.ARGUE))
            return None
        if answer is None:
            return {
                n: Verification(
                    verified=False,
                    reason=f"verifier answer unusable ({problem})"[:300],
                    uncertainty=(
                        UncertaintyCode.UNVERIFIED_ARGUMENT,
                        UncertaintyCode.MODEL_FALLBACK,
                    ),
                )
                for n in indices
            }
        by_position: dict[int, Verification] = {}
        for verdict in answer.results:
            if verdict.index < len(indices) and verdict.index not in by_position:
                by_position[verdict.index] = Verification(
                    verified=verdict.verified,
                    reason=(verdict.reason.strip() or "no reason given")[:300],
                    uncertainty=() if verdict.verified else (UncertaintyCode.UNVERIFIED_ARGUMENT,),
                )
        out: dict[int, Verification] = {}
        for position, n in enumerate(indices):
            out[n] = by_position.get(
                position,
                Verification(
                    verified=False,
                    reason="the verifier returned no verdict for this argument",
                    uncertainty=(UncertaintyCode.UNVERIFIED_ARGUMENT,),
                ),
            )
        return out

    async def judge_clash(self, request: ClashInput) -> ClashJudgement:
        sub = request.subclaim
        cited = {*request.support.evidence, *request.attack.evidence}
        user = self._evidence_prompt(
            lambda items: render(
                "judge_clash",
                dimension=sub.dimension.value,
                subclaim_id=sub.id,
                statement=sub.statement,
                support=request.support,
                attack=request.attack,
                evidence=items,
            ),
            [e for e in request.evidence if e.id in cited],
            subject=sub.id,
            query=f"{request.support.text} {request.attack.text}",
            pinned=frozenset(cited),
        )
        answer, problem = await self._ask(
            role="judge_clash",
            prompt="judge_clash",
            answer=JudgeAnswer,
            user=user,
            invocation=self._invocation(),
        )
        if answer is None:
            # the offline judge's answer exactly; the run's model-fallback note says why
            self._note(self._fallback_note(sub.id, "judge_clash", str(problem), Stage.QBAF))
            return await self.fallback.judge_clash(request)
        return ClashJudgement(
            support_win_rate=answer.support_win_rate,
            reason=(answer.reason.strip() or "no reason given")[:300],
        )

    async def describe(self, request: DescribeInput) -> Description:
        """The protocol's describe role: the offline structured observation (OCR, EXIF,
        colours), plus what the model sees in the image when it is a VLM (``llm.vision``).
        A failed VLM call leaves the offline observation and says why."""
        if not self.config.vision or not request.images:
            return await self.fallback.describe(request)
        image = request.asset.model_copy(update={"path": request.images[0]})
        # the offline observation (CPU, in a thread) never delays the model call beside it
        base, seen = await asyncio.gather(
            asyncio.to_thread(_offline_describe, self.fallback, request),
            self.describe_image(ImageDescribeInput(asset=image)),
        )
        observations = dict(base.observations)
        if not seen.description:
            observations["vlm_unavailable"] = "; ".join(u.detail for u in seen.uncertainty)
            return base.model_copy(update={"observations": observations})
        observations["vlm"] = {
            "description": seen.description,
            "visible_text": list(seen.visible_text),
            "objects": list(seen.objects),
        }
        return base.model_copy(
            update={
                "text": f"{base.text} Model-described: {seen.description}",
                "observations": observations,
            }
        )

    async def describe_image(self, request: ImageDescribeInput) -> ImageDescription:
        """VLM role: the image as a data URL next to the (delimited) claim."""
        asset = request.asset
        try:
            data = Path(asset.path).read_bytes()
        except OSError as exc:
            return ImageDescription(
                asset_id=asset.id,
                description="",
                uncertainty=(
                    UncertaintyItem(
                        code=UncertaintyCode.MEDIA_UNREADABLE,
                        subject=asset.id,
                        detail=f"{asset.path}: {exc}",
                        stages=(Stage.RETRIEVE,),
                    ),
                ),
            )
        mime = mimetypes.guess_type(asset.path)[0] or "image/jpeg"
        url = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
        content: list[dict[str, Any]] = [
            {"type": "text", "text": render("describe", claim=request.claim or "")},
            {"type": "image_url", "image_url": {"url": url}},
        ]
        answer, problem = await self._ask(
            role="describe",
            prompt="describe",
            answer=DescribeAnswer,
            user=content,
            invocation=self._invocation(),
        )
        if answer is None:
            return ImageDescription(
                asset_id=asset.id,
                description="",
                uncertainty=(
                    self._fallback_note(asset.id, "describe", str(problem), Stage.RETRIEVE),
                ),
            )
        return ImageDescription(
            asset_id=asset.id,
            description=" ".join(answer.description.split()),
            visible_text=tuple(t.strip() for t in answer.visible_text if t.strip()),
            objects=tuple(o.strip() for o in answer.objects if o.strip()),
        )

    async def reflect(self, request: ReflectInput) -> ReflectOutput:
        """Memory candidates from a finished run and its gold label; a lesson must be grounded
        in ids of this run (unknown ids are dropped, an ungrounded lesson is discarded)."""
        known = {a.id for s in request.subclaims for a in s.arguments}
        known |= {e.id for e in request.evidence}
        lines = []
        for s in request.subclaims:
            lines.append(
                f"{s.id} [{s.dimension.value}] {s.statement} -> {s.decision} ({s.score:.2f})"
            )
            for a in s.arguments:
                lines.append(
                    f"  {a.id} {a.stance.value} w={a.strength:.2f} "
                    f"{'verified' if a.verified else 'unverified'} cites "
                    f"{','.join(a.evidence)}: {a.text}"
                )
        for ev in request.evidence:
            lines.append(f"{ev.id} ({ev.source_type.value}, {ev.source}): {ev.content[:300]}")
        user = render(
            "reflect",
            max_lessons=request.max_lessons,
            dimensions=[d.value for d in Dimension],
            gold=request.gold,
            predicted=request.predicted,
            case_id=request.case_id,
            summary=_whole_lines(lines, self.config.evidence_chars * 8),
        )
        answer, problem = await self._ask(
            role="reflect",
            prompt="reflect",
            answer=ReflectAnswer,
            user=user,
            invocation=self._invocation(),
        )
        if answer is None:
            return ReflectOutput(
                candidates=(),
                uncertainty=(
                    self._fallback_note(request.case_id, "reflect", str(problem), Stage.AGGREGATE),
                ),
            )
        candidates = []
        for lesson in answer.lessons[: request.max_lessons]:
            cited = tuple(dict.fromkeys(g.strip() for g in lesson.grounding if g.strip()))
            grounding = tuple(g for g in cited if g in known)
            if grounding and lesson.text.strip():
                candidates.append(
                    LessonCandidate(
                        text=" ".join(lesson.text.split()),
                        dimension=lesson.dimension,
                        kind=lesson.kind,
                        grounding=grounding,
                        unresolved=tuple(g for g in cited if g not in known),
                    )
                )
        return ReflectOutput(candidates=tuple(candidates))

    async def aclose(self) -> None:
        await self.client.aclose()


def _whole_lines(lines: Sequence[str], chars: int) -> str:
    """The first lines that fit in ``chars`` characters, never a line cut in the middle."""
    kept: list[str] = []
    used = 0
    for line in lines:
        if used + len(line) + 1 > chars:
            break
        kept.append(line)
        used += len(line) + 1
    return "\n".join(kept)


def repair_evidence_id(raw: str, ids: Sequence[str]) -> str:
    """Map a sloppy citation onto a current-case id when exactly one matches after normalising
    case, quotes, brackets, whitespace and a missing ``ev:`` prefix; otherwise return it as is
    (the argue stage then drops it and the argument may fail admissibility)."""
    if raw in ids:
        return raw
    cleaned = _ID_JUNK.sub("", raw).lower()
    if not cleaned:
        return raw
    wanted = cleaned if cleaned.startswith("ev:") else f"ev:{cleaned}"
    matches = [i for i in ids if i.lower() == wanted]
    return matches[0] if len(matches) == 1 else raw
