"""MMD-Agent's stages on a model: one structured prompt per stage (``prompts/*.j2``), the post
and every evidence text fenced as untrusted data, the earlier stages' answers passed on (the
original's sequential flow). An unusable answer leaves the offline stage in place with a
``model-fallback`` uncertainty item."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from semv.agents.llm import render_from
from semv.model import Case, Evidence
from semv.procedures._ask import StructuredAsker, fallback_note
from semv.procedures.mmd_agent._assess import StageOutcome
from semv.procedures.mmd_agent._rule import STAGE_CODES, MmdStage, Signal

__all__ = ["StageAnswer", "ask_stage"]

_PACKAGE = "semv.procedures.mmd_agent"
_TEMPLATES = {
    MmdStage.TEXT: "text_veracity",
    MmdStage.IMAGE: "image_veracity",
    MmdStage.CROSS: "cross_modal",
}
_DUTY = "You are one stage of MMD-Agent: judge one aspect of a multimodal post from evidence."


class StageAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    signal: Literal["STRONG_SUPPORT", "WEAK_SUPPORT", "MIXED", "WEAK_REFUTE", "STRONG_REFUTE"]
    distortions: list[Literal["T1", "T2", "T3", "V1", "V2", "C1", "C2", "C3"]] = Field(
        default_factory=list
    )
    rationale: str = Field(min_length=1)


def summary(outcomes: Sequence[StageOutcome]) -> str:
    """What the earlier stages concluded, as the next stage's prompt shows it."""
    return (
        " ".join(
            f"{o.stage.value}: {o.signal.value}"
            f"{' ' + ','.join(o.codes) if o.codes else ''} ({o.rationale[:300]})"
            for o in outcomes
        )
        or "(nothing yet)"
    )


async def ask_stage(
    model: StructuredAsker,
    offline: StageOutcome,
    case: Case,
    evidence: Sequence[Evidence],
    earlier: Sequence[StageOutcome] = (),
) -> StageOutcome:
    """The stage's answer from the model over the evidence the offline stage examined."""
    stage = offline.stage
    if offline.signal is Signal.UNKNOWN:  # nothing to show the model (no image, no evidence)
        return offline
    by_id = {e.id: e for e in evidence}
    shown = [by_id[i] for i in offline.examined if i in by_id]
    user, version = render_from(
        _PACKAGE,
        _TEMPLATES[stage],
        claim=case.claim,
        language=case.context.language or "unknown",
        evidence=model.evidence_block(shown),
        previous=summary(earlier),
    )
    answer, problem = await model.ask(
        role=f"mmd-{stage.value}", duty=_DUTY, user=user, version=version, answer=StageAnswer
    )
    if answer is None:
        note = fallback_note(case.id, f"mmd-{stage.value}", str(problem))
        return offline.model_copy(
            update={"backend": "offline (model fallback)", "uncertainty": (note,)}
        )
    allowed = STAGE_CODES[stage]
    return offline.model_copy(
        update={
            "signal": Signal(answer.signal),
            "codes": tuple(sorted({c for c in answer.distortions if c in allowed})),
            "rationale": " ".join(answer.rationale.split()),
            "backend": "llm",
        }
    )
