"""Whole-graph runs on a scripted agent backend: verdict, reuse, contract, failures."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import yaml

from semv.config import Settings
from semv.errors import StageError
from semv.model import (
    Band,
    Case,
    Context,
    InternalLabel,
    RunStatus,
    SourceType,
    Stance,
    SuppliedEvidence,
    TraceKind,
)
from semv.pipeline import RunOutcome, run_case
from semv.store import Store
from tests.scripted_agents import ScriptedAgents

CASE = Case(
    id="t1",
    claim="Flooding in Paris on 14 March 2024",
    context=Context(date="2024-03-14", location="Paris"),
    evidence=(
        SuppliedEvidence(
            id="fc",
            text="The photo shows a flood in Lyon in June 2019, not Paris.",
            source_type=SourceType.FACT_CHECK,
            url="https://factcheck.example.org/lyon",
        ),
    ),
)
SCRIPT = {
    "what": [(Stance.SUPPORT, "ev:sup:fc", "flood")],
    "where": [(Stance.ATTACK, "ev:sup:fc", "Lyon")],
}


def verify(store: Store, agents: ScriptedAgents, case: Case = CASE) -> RunOutcome:
    return asyncio.run(
        run_case(case, store=store, settings=Settings(), agents=agents, contract="internal")
    )


def test_false_context_from_supported_content_and_refuted_place(data_dir: Path) -> None:
    store = Store(data_dir)
    outcome = verify(store, ScriptedAgents(SCRIPT))
    decisions = {d.dimension.value: d for d in outcome.verdict.decisions}
    assert decisions["what"].band in (Band.WEAKLY_SUPPORTED, Band.SUPPORTED)
    assert decisions["where"].band in (Band.WEAKLY_REFUTED, Band.REFUTED)
    assert decisions["when"].band is Band.UNCERTAIN  # no argument at all: ψ = β = 0.5
    assert decisions["when"].score == 0.5
    assert outcome.verdict.internal_label is InternalLabel.FALSE_CONTEXT
    assert outcome.result.label == "false-context"
    where = next(s for s in outcome.result.subclaims if s.dimension == "where")
    assert [a.id for a in where.arguments] == ["arg:where:att:1"]
    assert where.arguments[0].verified and where.arguments[0].evidence == ("ev:sup:fc",)


def test_unverifiable_argument_is_discounted_not_dropped(data_dir: Path) -> None:
    script = {"where": [(Stance.ATTACK, "ev:sup:fc", "Marseille")]}  # not in the evidence
    outcome = verify(Store(data_dir), ScriptedAgents(script))
    where = next(s for s in outcome.result.subclaims if s.dimension == "where")
    (arg,) = where.arguments
    assert not arg.verified
    verified = verify(Store(data_dir.with_name("other")), ScriptedAgents(SCRIPT))
    att = next(s for s in verified.result.subclaims if s.dimension == "where").arguments[0]
    assert arg.strength == pytest.approx(0.25 * att.strength)  # η_v = 0.25 (Eq. 14)


def test_unknown_evidence_ids_make_an_argument_inadmissible(data_dir: Path) -> None:
    script = {"where": [(Stance.ATTACK, "ev:web:nowhere", "Lyon")]}
    outcome = verify(Store(data_dir), ScriptedAgents(script))
    args = outcome.nodes["argue:where"].value.arguments  # type: ignore[attr-defined]
    (arg,) = args
    assert arg.evidence == () and not arg.admissible and not arg.verified
    assert "unresolved-evidence-id" in [c.value for c in arg.uncertainty]


def test_identical_second_run_executes_zero_stages(data_dir: Path) -> None:
    store = Store(data_dir)
    agents = ScriptedAgents(SCRIPT)
    first = verify(store, agents)
    calls = sum(agents.calls.values())
    second = verify(store, agents)
    assert first.executed == len(first.nodes) and first.reused == 0
    assert second.executed == 0 and second.reused == len(second.nodes)
    assert sum(agents.calls.values()) == calls  # no agent was called again
    assert second.result.run_id != first.result.run_id  # a new run, never an overwrite
    assert second.result.label == first.result.label


def test_a_change_to_one_subclaim_leaves_the_other_chains_reused(data_dir: Path) -> None:
    store = Store(data_dir)
    first = verify(store, ScriptedAgents(SCRIPT))
    moved = CASE.model_copy(update={"context": Context(date="2024-03-14", location="Nice")})
    second = verify(store, ScriptedAgents(SCRIPT), moved)
    reused = {k for k, n in second.nodes.items() if n.reused}
    # the scripted decomposer states `where` from the context location: only that subclaim
    # changes, so every other chain's QBAF is reused (early cut-off stops the recomputation
    # at the nodes that also read the whole case, whose outputs come out identical)
    for dim in ("what", "when", "who", "why", "authenticity"):
        assert f"qbaf:{dim}" in reused
        assert second.nodes[f"argue:{dim}"].output_hash == first.nodes[f"argue:{dim}"].output_hash
    assert "qbaf:where" not in reused and "claims" not in reused
    assert second.result.label == first.result.label


def test_result_is_exactly_the_json_contract(data_dir: Path) -> None:
    outcome = verify(Store(data_dir), ScriptedAgents(SCRIPT))
    payload = json.loads(outcome.result.model_dump_json())
    assert set(payload) == {
        "run_id",
        "case_id",
        "label",
        "probabilities",
        "confidence",
        "subclaims",
        "evidence",
        "uncertainty",
        "report_paths",
        "trace_head",
    }
    assert set(payload["subclaims"][0]) == {
        "id",
        "dimension",
        "statement",
        "score",
        "decision",
        "arguments",
    }
    assert sum(payload["probabilities"].values()) == pytest.approx(1.0)
    for path in payload["report_paths"].values():
        assert Path(path).is_file()


def test_cosmos_result_carries_the_calibrated_probability_beside_eq_20(
    data_dir: Path,
) -> None:
    from semv.calibration import calibrated_ooc, calibration_id

    outcome = asyncio.run(
        run_case(
            CASE,
            store=Store(data_dir),
            settings=Settings(),
            agents=ScriptedAgents(SCRIPT),
            contract="cosmos",
        )
    )
    payload = json.loads(outcome.result.model_dump_json())
    cal = payload["calibrated_probability"]  # additive key: only for a calibrated contract
    assert cal["label"] == "OOC" and cal["calibration"] == calibration_id("cosmos")
    assert cal["calibration"].startswith("cosmos@") and len(cal["calibration"]) == 19
    # the calibration's own formula on the verdict's decision and ψ̄; the label is untouched
    verdict = outcome.verdict
    expected = calibrated_ooc(
        verdict.internal_label is InternalLabel.FALSE_CONTEXT, verdict.mean_score
    )
    assert cal["probability"] == pytest.approx(expected)
    assert payload["label"] == (
        "OOC" if verdict.internal_label is InternalLabel.FALSE_CONTEXT else "NOOC"
    )
    # Eq. 20 stays what `probabilities` reports; the report shows both
    markdown = Path(payload["report_paths"]["markdown"]).read_text()
    shown = f"(Eq. 20); calibrated {cal['probability']:.3f} ({cal['calibration']})"
    assert shown in markdown
    html = Path(payload["report_paths"]["html"]).read_text()
    assert f"<code>{cal['calibration']}</code>" in html


def test_committed_run_has_a_verifiable_trace(data_dir: Path) -> None:
    store = Store(data_dir)
    outcome = verify(store, ScriptedAgents(SCRIPT))
    run = store.get_run(outcome.result.run_id)
    assert run.status is RunStatus.COMMITTED
    check = store.verify_trace(run.run_id)
    assert check.ok and check.head == outcome.result.trace_head == run.trace_head
    kinds = [e.kind for e in store.trace(run.run_id)]
    assert kinds[0] is TraceKind.RUN_STARTED and kinds[-1] is TraceKind.RUN_COMMITTED
    assert kinds.count(TraceKind.NODE_EXECUTED) == len(outcome.nodes)


class FailingAgents(ScriptedAgents):
    async def argue(self, request):  # type: ignore[no-untyped-def]
        raise RuntimeError("model server went away")


def test_failing_stage_marks_the_run_failed(data_dir: Path) -> None:
    store = Store(data_dir)
    with pytest.raises(StageError, match="model server went away"):
        verify(store, FailingAgents(SCRIPT))
    (run,) = store.list_runs()
    assert run.status is RunStatus.FAILED and "model server went away" in (run.error or "")
    kinds = [e.kind for e in store.trace(run.run_id)]
    assert TraceKind.NODE_FAILED in kinds and kinds[-1] is TraceKind.RUN_FAILED
    assert store.verify_trace(run.run_id).ok


def test_python_api_verifies_a_case_folder(data_dir: Path) -> None:
    import semv
    from tests.conftest import ROOT

    folder = ROOT / "examples" / "lyon-flood"
    result = semv.verify(folder, data_dir=data_dir)
    assert result.case_id == "lyon-flood"
    # The example's own annotation (gold.yaml, written with the case): the photo's EXIF puts it
    # in Lyon in June 2019, so the claimed place and date are refuted and the label is
    # false-context.
    gold = yaml.safe_load((folder / "gold.yaml").read_text(encoding="utf-8"))
    assert result.label == gold["label"] == InternalLabel.FALSE_CONTEXT.value
    by_dimension = {s.dimension: s for s in result.subclaims}
    for dimension in ("when", "where"):
        sub = by_dimension[dimension]
        assert sub.score < 0.5, (dimension, sub.score)
        exif_attacks = [
            a
            for a in sub.arguments
            if a.stance is Stance.ATTACK and "ev:exif:asset:1" in a.evidence
        ]
        assert exif_attacks, f"{dimension}: no attack from the photo's EXIF"
    assert Store(data_dir).get_run(result.run_id).status is RunStatus.COMMITTED
    report = json.loads(Path(result.report_paths["json"]).read_text(encoding="utf-8"))
    assert report["final_status"]["label"] == result.label
    assert report["final_status"]["rule"].startswith("Rule 2")


class JudgingAgents(ScriptedAgents):
    def __init__(self, script: dict[str, list[tuple[Stance, str, str]]], win: float) -> None:
        super().__init__(script)
        self.win = win

    @property
    def identity(self) -> str:
        return f"judging/{self.win}"

    async def judge_clash(self, request):  # type: ignore[no-untyped-def]
        from semv.agents import ClashJudgement

        self.calls["judge_clash"] += 1
        return ClashJudgement(support_win_rate=self.win, reason=f"scripted {self.win}")


def test_a_clash_is_flagged_reduced_and_judged(data_dir: Path) -> None:
    two = CASE.model_copy(
        update={
            "evidence": (
                *CASE.evidence,
                # a caption of the same image: a report of the event only would be outranked
                # by the fact-check about this image, without a clash
                SuppliedEvidence(
                    id="news",
                    text="A flood in Paris this week.",
                    source_type=SourceType.PRIOR_CAPTION,
                ),
            )
        }
    )
    script = {
        "where": [
            (Stance.SUPPORT, "ev:sup:news", "Paris"),
            (Stance.ATTACK, "ev:sup:fc", "Lyon"),
        ]
    }
    scores = {}
    for win in (0.0, 1.0):
        agents = JudgingAgents(script, win)
        outcome = verify(Store(data_dir / str(win)), agents, two)
        solved = outcome.nodes["qbaf:where"].value
        qbaf = solved.qbaf  # type: ignore[attr-defined]
        args = {a.id: a for a in outcome.nodes["argue:where"].value.arguments}  # type: ignore[attr-defined]
        assert agents.calls["judge_clash"] == 1
        assert qbaf.clash is not None and qbaf.clash.judge_win_rate == win
        assert all(0 <= w <= args[k].strength for k, w in qbaf.arguments.items())
        assert "major-factual-conflict" in [c.value for c in solved.decision.uncertainty]  # type: ignore[attr-defined]
        scores[win] = qbaf.score
    # the judge moves the pair by β(2w − 1): a winning support lifts ψ, a losing one lowers it
    assert scores[1.0] > 0.5 > scores[0.0]


def test_a_report_of_the_event_does_not_cancel_a_fact_check_of_this_image(
    data_dir: Path,
) -> None:
    """The same pair with the support citing a news report (directness ``event``): the
    fact-check about this image outranks it, so it enters the QBAF with weight 0, no clash is
    flagged and the attack alone decides."""
    two = CASE.model_copy(
        update={
            "evidence": (
                *CASE.evidence,
                SuppliedEvidence(
                    id="news", text="A flood in Paris this week.", source_type=SourceType.NEWS
                ),
            )
        }
    )
    script = {
        "where": [
            (Stance.SUPPORT, "ev:sup:news", "Paris"),
            (Stance.ATTACK, "ev:sup:fc", "Lyon"),
        ]
    }
    agents = JudgingAgents(script, 1.0)
    outcome = verify(Store(data_dir), agents, two)
    qbaf = outcome.nodes["qbaf:where"].value.qbaf  # type: ignore[attr-defined]
    args = {a.id: a for a in outcome.nodes["argue:where"].value.arguments}  # type: ignore[attr-defined]
    support = next(a for a in args.values() if a.stance is Stance.SUPPORT)
    attack = next(a for a in args.values() if a.stance is Stance.ATTACK)
    assert (support.directness.value, attack.directness.value) == ("event", "media-reference")
    assert qbaf.outranked == (support.id,)
    assert qbaf.arguments[support.id] == 0.0 and support.strength > 0.0
    assert agents.calls["judge_clash"] == 0 and qbaf.clash is None
    assert qbaf.score < 0.45


def test_a_graded_run_reveals_gold_only_once_committed(data_dir: Path) -> None:
    from semv.adapters import LoadedCase, SealedGold
    from semv.errors import GoldAccessError
    from semv.pipeline import GradedRun, run_graded

    store = Store(data_dir)
    loaded = LoadedCase(case=CASE, gold=SealedGold("false-context"))
    graded = asyncio.run(
        run_graded(
            loaded,
            store=store,
            settings=Settings(),
            agents=ScriptedAgents(SCRIPT),
            contract="internal",
        )
    )
    assert graded.status is RunStatus.COMMITTED
    assert graded.status is store.get_run(graded.outcome.result.run_id).status
    assert graded.gold_label() == "false-context"
    failed = GradedRun(graded.outcome, RunStatus.FAILED, loaded.gold)
    with pytest.raises(GoldAccessError):
        failed.gold_label()
    assert GradedRun(graded.outcome, RunStatus.COMMITTED, None).gold_label() is None
