"""``--stochastic``: a seeded perturbation of an agent backend's outputs for the CTR replay.

A real LLM backbone answers the same request differently from one call to the next; the
deterministic offline backend never does, so with it a global rerun reproduces every
unaffected node and U, C and C+S differ in compute only. This wrapper makes repeated calls
differ: with probability ``rate`` an argue call loses one draft and a clash judgement's win
rate moves. Draws are seeded by (seed, role, request content, how often that exact request
was seen), so a whole benchmark run is reproducible while each re-execution samples anew.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter

from semv.agents import (
    Agents,
    ArgueInput,
    ArgueOutput,
    ClashInput,
    ClashJudgement,
    DecomposeInput,
    DescribeInput,
    Description,
    PlanInput,
    VerifyInput,
    VerifyOutput,
)
from semv.model import Claims, ResearchPlan
from semv.store import content_hash

__all__ = ["StochasticAgents"]


class StochasticAgents:
    """``inner`` with seeded perturbations of its argue and judge outputs."""

    def __init__(self, inner: Agents, *, rate: float, seed: int) -> None:
        self.inner = inner
        self.rate = rate
        self.seed = seed
        self.name = f"{inner.name}+stochastic"
        self.version = inner.version
        self._seen: Counter[str] = Counter()

    @property
    def identity(self) -> str:
        return f"{self.inner.identity}/stochastic:{self.rate}:{self.seed}"

    def _rng(self, role: str, request: object) -> random.Random:
        key = f"{role}:{content_hash(request)}"
        self._seen[key] += 1
        digest = hashlib.sha256(f"{self.seed}:{key}:{self._seen[key]}".encode()).digest()
        return random.Random(int.from_bytes(digest[:8], "big"))

    async def decompose(self, request: DecomposeInput) -> Claims:
        return await self.inner.decompose(request)

    async def plan(self, request: PlanInput) -> ResearchPlan:
        return await self.inner.plan(request)

    async def argue(self, request: ArgueInput) -> ArgueOutput:
        out = await self.inner.argue(request)
        rng = self._rng("argue", request)
        if out.drafts and rng.random() < self.rate:
            drop = rng.randrange(len(out.drafts))
            drafts = tuple(d for i, d in enumerate(out.drafts) if i != drop)
            return out.model_copy(update={"drafts": drafts})
        return out

    async def verify(self, request: VerifyInput) -> VerifyOutput:
        return await self.inner.verify(request)

    async def describe(self, request: DescribeInput) -> Description:
        return await self.inner.describe(request)

    async def judge_clash(self, request: ClashInput) -> ClashJudgement:
        out = await self.inner.judge_clash(request)
        rng = self._rng("judge", request)
        if rng.random() < self.rate:
            rate = min(1.0, max(0.0, out.support_win_rate + rng.uniform(-0.3, 0.3)))
            return out.model_copy(update={"support_win_rate": rate})
        return out
