"""Strength lessons: reflection names the kind of argument that was over- or under-trusted in
typed observations (never the case's words), the gate checks their condition and factor, and
recall moves w_a of the arguments the condition holds on, cited in M(a) (Def. 3.1)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from semv.config import Settings
from semv.graph._invariants import _argument_checks
from semv.learning._gold import contract_gold
from semv.learning._learn import learning_order
from semv.memory import (
    CUE_KEYS,
    Action,
    ActiveMemory,
    MemoryType,
    OfflineReflector,
    Record,
    ReflectInput,
    Status,
    evidence_cue,
    load_trace,
    matches,
    safe,
)
from semv.memory._cues import band, evidence_kind
from semv.memory._lessons import expected_stance
from semv.model import (
    Arguments,
    Evidence,
    MemoryGuidance,
    Modality,
    SourceType,
    Stance,
)
from semv.pipeline import RunOutcome, run_case
from semv.reasoning import ADJUST_STRENGTH, memory_factor, remembered_strength
from semv.store import Store
from tests.memory_helpers import candidate
from tests.scripted_agents import ScriptedAgents
from tests.test_pipeline import CASE, SCRIPT

SETTINGS = Settings()


def _run(store: Store, mem: ActiveMemory | None = None) -> RunOutcome:
    return asyncio.run(
        run_case(
            CASE,
            store=store,
            settings=SETTINGS,
            agents=ScriptedAgents(SCRIPT),
            contract="internal",
            memory=mem,
        )
    )


def _where_cue(outcome: RunOutcome) -> dict[str, str]:
    """The cue of the scripted where attack (built with the module under test: setup only)."""
    args = outcome.nodes["argue:where"].value
    assert isinstance(args, Arguments)
    ev = next(e for e in outcome.nodes["validate:where"].value.evidence if e.id == "ev:sup:fc")  # type: ignore[attr-defined]
    claims = outcome.nodes["claims"].value
    cue = evidence_cue(
        ev,
        claim=CASE.claim,
        subclaim=claims.subclaims["where"],  # type: ignore[attr-defined]
        language=CASE.context.language,
        settings=SETTINGS,
    ).as_dict()
    return {"stance": Stance.ATTACK.value, **cue}


def _strength_record(n: int, trigger: dict[str, str], factor: float) -> Record:
    return Record(
        id=f"mem:fail:{n:05d}",
        type=MemoryType.FAILURE,
        status=Status.ACTIVE,
        key=f"internal|where|adjust-strength|n={n}",
        lesson="On the where subclaim, an attack citing fact-check evidence was over-trusted.",
        task="internal",
        dimension="where",
        trigger=trigger,
        action=Action.ADJUST_STRENGTH.value,
        params={"factor": factor},
        alpha=2.6,
        beta=1.4,
        n_support=2,
        cases=("a", "b"),
        fingerprints=("fa", "fb"),
    )


def test_the_memory_action_and_the_reasoning_constant_agree() -> None:
    assert Action.ADJUST_STRENGTH.value == ADJUST_STRENGTH


def test_evidence_kinds_and_bands() -> None:
    def ev(**over: object) -> Evidence:
        body: dict[str, object] = {
            "id": "ev:x",
            "source": "s",
            "source_type": SourceType.NEWS,
            "modality": Modality.TEXT,
            "content": "A flood in Lyon.",
            "reliability": 0.7,
        }
        body.update(over)
        return Evidence(**body)  # type: ignore[arg-type]

    assert evidence_kind(ev()) == "news"
    assert evidence_kind(ev(source_type=SourceType.PRIOR_CAPTION)) == "same-media-caption"
    assert evidence_kind(ev(modality=Modality.METADATA)) == "metadata"
    assert [band(v, (0.2, 0.4)) for v in (0.0, 0.19, 0.2, 0.39, 0.4, 1.0)] == [
        "low",
        "low",
        "mid",
        "mid",
        "high",
        "high",
    ]
    cue = {"stance": "att", "evidence": "news", "similarity": "low"}
    assert matches({"stance": "att", "evidence": "news", "adjust": "down"}, cue)
    assert not matches({"stance": "sup", "evidence": "news"}, cue)
    assert not matches({"shared_names": "none"}, cue)  # a key the cue lacks never holds


def test_recalled_strength_lesson_scales_the_argument_it_holds_on_and_is_cited(
    data_dir: Path,
) -> None:
    store = Store(data_dir)
    off = _run(store)
    cue = _where_cue(off)
    base = next(a for a in off.nodes["argue:where"].value.arguments if a.id == "arg:where:att:1")  # type: ignore[attr-defined]
    trigger = {**cue, "adjust": "down"}
    other = {**cue, "stance": Stance.SUPPORT.value, "adjust": "down"}
    mem = ActiveMemory.of(
        "t",
        "h-strength",
        [_strength_record(1, trigger, 0.5), _strength_record(2, other, 0.5)],
        SETTINGS.memory,
        frozen=True,
    )
    on = _run(store, mem)
    assert store.get_run(on.result.run_id).status.value == "committed"  # I_arg held
    view = on.nodes["recall:where"].value
    assert "mem:fail:00001" in view.records  # type: ignore[attr-defined]
    moved = next(a for a in on.nodes["argue:where"].value.arguments if a.id == "arg:where:att:1")  # type: ignore[attr-defined]
    assert moved.memory == ("mem:fail:00001",)  # the support lesson did not hold on it
    assert moved.strength == pytest.approx(base.strength * 0.5)
    assert moved.evidence == base.evidence and moved.stance is base.stance
    assert "mem:fail:00001" in moved.text
    decisions_off = {d.dimension.value: d for d in off.verdict.decisions}
    decisions_on = {d.dimension.value: d for d in on.verdict.decisions}
    assert decisions_on["where"].score > decisions_off["where"].score  # a weaker attack


def test_a_lesson_whose_evidence_condition_is_absent_is_not_recalled(data_dir: Path) -> None:
    store = Store(data_dir)
    cue = _where_cue(_run(store))
    absent = {**cue, "evidence": "metadata", "adjust": "down"}
    mem = ActiveMemory.of(
        "t", "h-absent", [_strength_record(3, absent, 0.5)], SETTINGS.memory, frozen=True
    )
    on = _run(store, mem)
    assert on.nodes["recall:where"].value.records == ()  # type: ignore[attr-defined]
    moved = next(a for a in on.nodes["argue:where"].value.arguments if a.id == "arg:where:att:1")  # type: ignore[attr-defined]
    assert moved.memory == ()


def test_invariant_requires_the_cited_lesson_for_a_scaled_strength(data_dir: Path) -> None:
    store = Store(data_dir)
    off = _run(store)
    args = off.nodes["argue:where"].value
    assert isinstance(args, Arguments)
    ranked = off.nodes["validate:where"].value
    pool = {e.id: e for e in ranked.evidence}  # type: ignore[attr-defined]
    guide = MemoryGuidance(
        id="mem:fail:00009",
        type="failure",
        dimension="where",
        lesson="l",
        action=ADJUST_STRENGTH,
        params={"factor": 0.5},
        trigger={"stance": "att"},
    )
    arg = args.arguments[0]
    halved = arg.model_copy(update={"strength": arg.strength * 0.5})
    cited = halved.model_copy(update={"memory": ("mem:fail:00009",)})
    uncited = args.model_copy(update={"arguments": (halved,)})
    ok = args.model_copy(update={"arguments": (cited,)})
    cfg = SETTINGS.strength
    assert [v[0] for v in _argument_checks(uncited, pool, cfg, (guide,))] == ["I_arg"]
    assert _argument_checks(ok, pool, cfg, (guide,)) == []
    assert [v[0] for v in _argument_checks(ok, pool, cfg, ())] == ["I_arg"]


def test_memory_factor_counts_only_cited_strength_lessons() -> None:
    g = [
        MemoryGuidance(
            id="m1",
            type="failure",
            dimension="why",
            lesson="l",
            action=ADJUST_STRENGTH,
            params={"factor": 0.5},
        ),
        MemoryGuidance(
            id="m2",
            type="failure",
            dimension="why",
            lesson="l",
            action="context-threshold",
            params={"threshold": 0.4},
        ),
        MemoryGuidance(
            id="m3",
            type="failure",
            dimension="why",
            lesson="l",
            action=ADJUST_STRENGTH,
            params={"factor": 1.5},
        ),
    ]
    assert memory_factor(("m1", "m2"), g) == 0.5
    assert memory_factor(("m1", "m3"), g) == pytest.approx(0.75)
    assert memory_factor((), g) == 1.0
    assert remembered_strength(0.8, 1.5) == 1.0  # clipped to [0, 1]


def test_reflection_blames_the_misleading_argument_in_typed_terms(data_dir: Path) -> None:
    store = Store(data_dir)
    off = _run(store)
    assert off.result.label == "false-context"
    trace = load_trace(store, off.result.run_id)
    reflector = OfflineReflector(SETTINGS)
    wrong = asyncio.run(
        reflector.reflect(ReflectInput(trace=trace, task="internal", gold="verified"))
    )
    strength = [d for d in wrong.drafts if d.action == ADJUST_STRENGTH]
    blamed = [d for d in strength if d.polarity > 0]
    assert [(d.dimension, d.trigger["stance"], d.trigger["adjust"]) for d in blamed] == [
        ("where", "att", "down")
    ]
    assert blamed[0].type is MemoryType.FAILURE
    assert blamed[0].arguments == ("arg:where:att:1",) and blamed[0].evidence == ("ev:sup:fc",)
    assert blamed[0].params == {"factor": SETTINGS.memory.strength_down}
    assert set(CUE_KEYS) <= set(blamed[0].trigger)
    # never a phrase of the case: not its places, not its evidence's words
    for d in strength:
        text = " ".join((d.lesson, *d.checks, *d.trigger.values())).lower()
        for word in ("paris", "lyon", "flood", "june", "2019", "march"):
            assert word not in text
    # the same attack on a case whose context really is false contradicts that lesson
    right = asyncio.run(
        reflector.reflect(ReflectInput(trace=trace, task="internal", gold="false-context"))
    )
    mine = [d for d in right.drafts if d.action == ADJUST_STRENGTH and d.dimension == "where"]
    assert [(d.polarity, d.trigger["adjust"]) for d in mine] == [(-1, "down")]
    assert {k: v for k, v in mine[0].trigger.items() if k != "adjust"} == {
        k: v for k, v in blamed[0].trigger.items() if k != "adjust"
    }


def test_expected_stance_reads_the_context_contracts() -> None:
    assert expected_stance("OOC", "why") is Stance.ATTACK
    assert expected_stance("NOOC", "where") is Stance.SUPPORT
    assert expected_stance("false-context", "when") is Stance.ATTACK
    assert expected_stance("OOC", "what") is None  # the label says nothing about content
    assert expected_stance("manipulated-or-synthetic", "why") is None


@pytest.mark.parametrize(
    ("over", "reason"),
    [
        ({"params": {"factor": 0.1}}, "outside"),
        ({"params": {"factor": 3.0}}, "outside"),
        ({"params": {"factor": 1.0}}, "moves nothing"),
        ({"trigger": {"stance": "att", "evidence": "news", "adjust": "down"}}, "open"),
        ({"params": {"factor": 1.5}}, "disagrees"),
        ({"params": {"factor": 0.5, "strength": 1.0}}, "evidence"),
    ],
)
def test_gate_rejects_malformed_strength_lessons(over: dict[str, object], reason: str) -> None:
    ok, why = safe(_strength_candidate(**over))
    assert not ok and reason in why


def test_gate_accepts_a_fully_scoped_strength_lesson() -> None:
    assert safe(_strength_candidate()) == (True, "safe")


def _strength_candidate(n: int = 0, **over: object) -> object:
    body: dict[str, object] = {
        "lesson": "On the why subclaim, an attack citing same-media-caption evidence was "
        "over-trusted: scale its strength by 0.50.",
        "action": ADJUST_STRENGTH,
        "params": {"factor": 0.5},
        "trigger": {
            "stance": "att",
            "evidence": "same-media-caption",
            "similarity": "high",
            "shared_names": "none",
            "evidence_names": "none",
            "adjust": "down",
        },
        "checks": ("why: att on same-media-caption evidence, strength × 0.50",),
    }
    body.update(over)
    return candidate(n, **body)


def test_verite_gold_in_the_cosmos_contract() -> None:
    assert contract_gold("true", "cosmos") == "NOOC"
    assert contract_gold("miscaptioned", "cosmos") == "OOC"
    assert contract_gold("out-of-context", "cosmos") == "OOC"
    assert contract_gold("OOC", "cosmos") == "OOC"
    assert contract_gold("true", "internal") == "true"


def test_learning_order_is_recorded_with_its_source() -> None:
    from semv.adapters import LoadedCase
    from semv.model import Case

    cases = [LoadedCase(case=Case(id=f"c{i}", claim="x"), gold=None) for i in range(3)]
    one = learning_order(cases, {"dataset": "d", "adapter": "cosmos"})
    assert (one["dataset"], one["cases"], one["first"], one["last"]) == ("d", 3, "c0", "c2")
    assert learning_order(list(reversed(cases)))["order"] != one["order"]


def test_escalation_keeps_the_factor_memory_applied(data_dir: Path) -> None:
    from semv.agents import Verification
    from semv.stages.escalate import reverified
    from tests.paper_reasoning import strength_from_features

    off = _run(Store(data_dir))
    args = off.nodes["argue:where"].value
    assert isinstance(args, Arguments)
    ranked = off.nodes["validate:where"].value
    pool = {e.id: e for e in ranked.evidence}  # type: ignore[attr-defined]
    arg = args.arguments[0]
    assert arg.features is not None
    halved = arg.model_copy(update={"strength": arg.strength * 0.5, "memory": ("mem:fail:1",)})
    again = reverified(halved, Verification(verified=False, reason="r"), pool, SETTINGS.strength)
    fresh = strength_from_features(
        arg.features,
        verified=False,
        has_uncertainty=bool(again.uncertainty),
        config=SETTINGS.strength,
    )
    assert again.strength == pytest.approx(fresh * 0.5)
    plain = reverified(arg, Verification(verified=False, reason="r"), pool, SETTINGS.strength)
    assert plain.strength == pytest.approx(fresh)


def test_dup_src_is_per_direction(data_dir: Path) -> None:
    """A source that supports a lesson is not a duplicate of the same source contradicting
    it: the contradiction is counter-evidence (the two rows of one 5Pils image share their
    web captions, and may point a cue in opposite directions)."""
    from semv.memory import MemoryStore

    ms = MemoryStore(Store(data_dir), "dup")
    ms.stage(candidate(1, source_fingerprint="fp-shared"), "verified", "r", 1)
    key = candidate(1).key
    assert "fp-shared" in ms.seen_sources(key)[1]
    assert "fp-shared" in ms.seen_sources(key, 1)[1]
    assert ms.seen_sources(key, -1) == (set(), set())
