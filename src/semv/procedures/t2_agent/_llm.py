"""T²-Agent on a model: the trajectory (ST) and confidence (SC) scorers and the taxonomy
classifier as structured prompts (``prompts/*.j2``), post and observations fenced as untrusted
data. The tools stay the offline ones (they read the post's real signals); an unusable answer
takes the offline score (or the released fallback L2 rule) and is counted."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from semv.agents.llm._prompts import render_from
from semv.config import BaselinesConfig
from semv.model import Case
from semv.procedures._ask import StructuredAsker
from semv.procedures.t2_agent._mcts import Candidate, Observation, Step
from semv.procedures.t2_agent._tools import OfflineToolbox

__all__ = ["ModelScorer", "TaxonomyAnswer", "ask_taxonomy"]

_PACKAGE = "semv.procedures.t2_agent"
_DUTY = "You are the evaluator inside T2-Agent, a tree-search misinformation verifier."
_OBSERVATION_CHARS = 1200


class _Answer(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TrajectoryAnswer(_Answer):
    correctness_score: int = Field(ge=1, le=10)


class ConfidenceAnswer(_Answer):
    reliability_score: int = Field(ge=1, le=10)


class TaxonomyAnswer(_Answer):
    labels: list[
        Literal[
            "T1 Fabrication",
            "T2 Distortion",
            "T3 Misleading Context",
            "V1 Synthetic Visual Content",
            "V2 Visual Editing",
            "C1 Semantic Inconsistency",
            "C2 Contextual Inconsistency",
            "C3 Pragmatic Inconsistency",
        ]
    ]
    rationale: str = Field(min_length=1)


def _steps(trajectory: Sequence[Step]) -> list[dict[str, str]]:
    return [
        {"action": s.action, "observation": s.observation.text[:_OBSERVATION_CHARS]}
        for s in trajectory
    ]


class ModelScorer:
    """The offline toolbox with the model as its scorer (``Environment``)."""

    def __init__(self, tools: OfflineToolbox, model: StructuredAsker, case: Case) -> None:
        self.tools = tools
        self.model = model
        self.case = case
        self.cfg: BaselinesConfig = tools.cfg
        self.fallbacks: list[str] = []

    def subtasks(self) -> Mapping[str, float]:
        return self.tools.subtasks()

    def candidates(self, subtask: str, trajectory: Sequence[Step]) -> list[Candidate]:
        return self.tools.candidates(subtask, trajectory)

    async def execute(self, subtask: str, candidate: Candidate) -> Observation:
        return await self.tools.execute(subtask, candidate)

    async def score_trajectory(self, subtask: str, trajectory: Sequence[Step]) -> float:
        user, version = render_from(
            _PACKAGE,
            "score_trajectory",
            subtask=subtask,
            claim=self.case.claim,
            steps=_steps(trajectory),
        )
        answer, problem = await self.model.ask(
            role="t2-score-trajectory",
            duty=_DUTY,
            user=user,
            version=version,
            answer=TrajectoryAnswer,
        )
        if answer is None:
            self.fallbacks.append(f"t2-score-trajectory: {problem}")
            return self.tools.st(trajectory)
        return min(1.0, answer.correctness_score / self.cfg.t2_score_scale)

    async def score_confidence(
        self, subtask: str, trajectory: Sequence[Step], answer: str
    ) -> float:
        user, version = render_from(
            _PACKAGE,
            "score_confidence",
            subtask=subtask,
            answer=answer,
            claim=self.case.claim,
            steps=_steps(trajectory),
        )
        reply, problem = await self.model.ask(
            role="t2-score-confidence",
            duty=_DUTY,
            user=user,
            version=version,
            answer=ConfidenceAnswer,
        )
        if reply is None:
            self.fallbacks.append(f"t2-score-confidence: {problem}")
            return self.tools.sc(subtask, trajectory, answer)
        return min(1.0, reply.reliability_score / self.cfg.t2_score_scale)


async def ask_taxonomy(
    model: StructuredAsker,
    case: Case,
    verdict: str,
    real: float,
    fakes: Mapping[str, float],
    subtasks: Sequence[tuple[str, str, float, Sequence[str]]],
) -> tuple[TaxonomyAnswer | None, str | None]:
    """The released code's taxonomy step: L2 labels conditioned on the verdict and the
    subtasks' best answers and last observations."""
    user, version = render_from(
        _PACKAGE,
        "taxonomy",
        verdict=verdict,
        p_real=real,
        fakes=sorted(fakes.items()),
        claim=case.claim,
        subtasks=[(n, a, c, [o[:_OBSERVATION_CHARS] for o in obs]) for n, a, c, obs in subtasks],
    )
    return await model.ask(
        role="t2-taxonomy",
        duty="You are a strict multi-label distortion-taxonomy classifier.",
        user=user,
        version=version,
        answer=TaxonomyAnswer,
    )
