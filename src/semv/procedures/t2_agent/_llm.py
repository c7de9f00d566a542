"""T²-Agent on a model: the trajectory (ST) and confidence (SC) scorers and the taxonomy
classifier as structured prompts (``prompts/*.j2``), post and observations fenced as untrusted
data. The tools stay the offline ones (they read the post's real signals); an unusable answer
takes the offline score (or the released fallback L2 rule) and is counted."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field, field_validator

from semv.agents.llm import render_from
from semv.config import BaselinesConfig
from semv.model import REMMD_L2, Case
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
    labels: list[str] = Field(json_schema_extra={"items": {"enum": list(REMMD_L2)}})
    rationale: str = Field(min_length=1)

    @field_validator("labels")
    @classmethod
    def _known(cls, labels: list[str]) -> list[str]:
        unknown = [label for label in labels if label not in REMMD_L2]
        if unknown:
            raise ValueError(f"unknown labels {unknown}; use exact names of {list(REMMD_L2)}")
        return labels


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

    async def _score(
        self,
        role: str,
        answer: type[TrajectoryAnswer] | type[ConfidenceAnswer],
        values: dict[str, object],
    ) -> float | None:
        """The model's 1..scale score scaled to [0, 1], or None (counted) when unusable."""
        user, version = render_from(_PACKAGE, role.removeprefix("t2-").replace("-", "_"), **values)
        reply, problem = await self.model.ask(
            role=role, duty=_DUTY, user=user, version=version, answer=answer
        )
        if reply is None:
            self.fallbacks.append(f"{role}: {problem}")
            return None
        raw = (
            reply.correctness_score
            if isinstance(reply, TrajectoryAnswer)
            else reply.reliability_score
        )
        return min(1.0, raw / self.cfg.t2_score_scale)

    async def score_trajectory(self, subtask: str, trajectory: Sequence[Step]) -> float:
        values: dict[str, object] = {
            "subtask": subtask,
            "claim": self.case.claim,
            "steps": _steps(trajectory),
        }
        score = await self._score("t2-score-trajectory", TrajectoryAnswer, values)
        return self.tools.st(trajectory) if score is None else score

    async def score_confidence(
        self, subtask: str, trajectory: Sequence[Step], answer: str
    ) -> float:
        values: dict[str, object] = {
            "subtask": subtask,
            "answer": answer,
            "claim": self.case.claim,
            "steps": _steps(trajectory),
        }
        score = await self._score("t2-score-confidence", ConfidenceAnswer, values)
        return self.tools.sc(subtask, trajectory, answer) if score is None else score


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
