"""``escalate:k`` (A-QBAF MV2026 §2.6.3) without HTTP: the offline backend passes every subclaim
through; a backend with a stronger verifier escalates exactly the subclaims whose score lies in
the configured band."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pydantic import ValidationError

from semv._api import load_cases
from semv.agents import Verification, VerifyInput, VerifyOutput, stronger_verifier
from semv.agents.offline import OfflineAgents
from semv.config import EscalationConfig, Settings
from semv.model import Arguments, Escalated, SolvedQbaf, UncertaintyCode
from semv.pipeline import RunOutcome, run_case
from semv.stages.escalate import in_band
from semv.store import Store

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "lyon-flood"


class Oracle(OfflineAgents):
    """The offline backend plus a 'stronger verifier' that verifies every draft citing evidence."""

    stronger_verifier = "oracle"

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.asked: list[str] = []

    async def escalate_verify(self, request: VerifyInput) -> VerifyOutput:
        self.asked.append(request.subclaim.id)
        return VerifyOutput(
            results=tuple(
                Verification(verified=bool(d.evidence), reason="oracle") for d in request.drafts
            )
        )


def _run(data_dir: Path, agents: OfflineAgents, settings: Settings) -> RunOutcome:
    contract, cases = load_cases(EXAMPLE, text_only=True)
    store = Store(data_dir)
    try:
        return asyncio.run(
            run_case(
                cases[0].case, store=store, settings=settings, agents=agents, contract=contract
            )
        )
    finally:
        store.close()


def _nodes(outcome: RunOutcome) -> dict[str, Escalated]:
    return {
        k.partition(":")[2]: n.value
        for k, n in outcome.nodes.items()
        if k.startswith("escalate:") and isinstance(n.value, Escalated)
    }


def test_band_is_the_papers_and_must_be_ordered() -> None:
    cfg = EscalationConfig()
    assert (cfg.low, cfg.high) == (0.45, 0.55)
    assert in_band(0.45, cfg) and in_band(0.55, cfg) and in_band(0.5, cfg)
    assert not in_band(0.449, cfg) and not in_band(0.551, cfg)
    with pytest.raises(ValidationError):
        EscalationConfig(low=0.6, high=0.5)


def test_offline_backend_passes_every_subclaim_through(data_dir: Path) -> None:
    settings = Settings()
    agents = OfflineAgents(settings)
    assert stronger_verifier(agents) is None
    outcome = _run(data_dir, agents, settings)
    nodes = _nodes(outcome)
    assert len(nodes) == 6
    for dim, node in nodes.items():
        assert node.escalation is None
        assert node.solved == outcome.nodes[f"qbaf:{dim}"].value
        assert node.arguments == outcome.nodes[f"argue:{dim}"].value


def test_only_subclaims_in_the_band_escalate(data_dir: Path) -> None:
    # A band wide enough to hold the example's contested subclaims: the fact-check of this
    # image outranks the news report of the event, so none of them ends at 0.5 any more.
    band = EscalationConfig(low=0.30, high=0.55)
    settings = Settings(escalation=band)
    oracle = Oracle(settings)
    outcome = _run(data_dir / "a", oracle, settings)
    nodes = _nodes(outcome)
    scores: dict[str, float] = {}
    for dim in nodes:
        solved = outcome.nodes[f"qbaf:{dim}"].value
        assert isinstance(solved, SolvedQbaf)
        scores[dim] = solved.decision.score
    in_band_dims = {d for d, s in scores.items() if band.low <= s <= band.high}
    # a subclaim without arguments has nothing for the stronger verifier to judge
    uncertain = {d for d in in_band_dims if nodes[d].arguments.arguments}
    assert uncertain and uncertain != set(nodes)  # the example has both kinds
    assert {d for d, n in nodes.items() if n.escalation is not None} == uncertain
    assert len(oracle.asked) == len(uncertain)  # one final judgment per uncertain subclaim
    for dim in uncertain:
        node = nodes[dim]
        assert node.escalation is not None and node.escalation.verifier == "oracle"
        assert node.escalation.score_before == scores[dim]
        assert node.escalation.score_after == node.solved.decision.score
        assert UncertaintyCode.ESCALATED in node.solved.decision.uncertainty
        original = outcome.nodes[f"argue:{dim}"].value
        assert isinstance(original, Arguments)
        flipped = {a.id for a in original.arguments if not a.verified and a.evidence}
        assert set(node.escalation.changed) == flipped
    # a band that excludes every score: the same backend escalates nothing
    narrow = Settings(escalation=EscalationConfig(low=0.98, high=0.99))
    quiet = Oracle(narrow)
    outcome = _run(data_dir / "b", quiet, narrow)
    assert quiet.asked == []
    assert all(n.escalation is None for n in _nodes(outcome).values())
