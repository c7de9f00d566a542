"""Gate (Eq. 26), consolidation (Eq. 27-28), conflicts and lifecycle (Eq. 29) on a real store;
frozen snapshots (Remark 4.3); export/import."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from semv.config import Settings
from semv.errors import InputError
from semv.memory import (
    MemoryFrozen,
    MemoryStore,
    MemoryType,
    Policy,
    Status,
    UsageKind,
    consolidate,
    safe,
    verify_candidate,
)
from semv.store import Store
from tests.memory_helpers import candidate

CFG = Settings().memory
LEARN = {f"learn:{i}" for i in range(100)}
EVIDENCE = {"ev:sup:caption2"}
ARGS = {"arg:why:att:1"}


def gate(c, seen=(set(), set())):  # type: ignore[no-untyped-def]
    return verify_candidate(
        c,
        learn_cases=LEARN,
        evidence_ids=EVIDENCE,
        argument_ids=ARGS,
        theta_v=CFG.theta_v,
        seen=seen,
    )


def test_eq26_each_clause() -> None:
    assert gate(candidate(1)).verified
    assert "D_learn" in gate(candidate(1, source_case="test:1")).reasons[0]
    assert "empty grounding" in gate(candidate(1, evidence=(), arguments=())).reasons[0]
    assert "unresolved evidence" in gate(candidate(1, evidence=("ev:x",))).reasons[0]
    assert "unresolved argument" in gate(candidate(1, arguments=("arg:why:sup:9",))).reasons[0]
    assert gate(candidate(1, arguments=("arg:why:att:1",), evidence=())).verified
    low = gate(candidate(1, confidence=0.59))
    assert low.status == "rejected" and "θ_v" in low.reasons[0]
    assert gate(candidate(1, confidence=0.60)).verified
    assert "Dup_src" in gate(candidate(1), seen=({"learn:1"}, set())).reasons[0]
    assert "Dup_src" in gate(candidate(2), seen=(set(), {"fp2"})).reasons[0]
    malformed = gate(candidate(1, action="rewrite-memory"))
    assert malformed.status == "under-review"
    nan = gate(candidate(1, params={"threshold": float("nan")}))
    assert nan.status == "under-review"

    def broken(_c):  # type: ignore[no-untyped-def]
        raise RuntimeError("checker down")

    down = verify_candidate(
        candidate(1),
        learn_cases=LEARN,
        evidence_ids=EVIDENCE,
        argument_ids=ARGS,
        theta_v=0.6,
        seen=(set(), set()),
        safety=broken,
    )
    assert down.status == "under-review" and "checker down" in down.reasons[0]


def test_safe_rejects_overgeneral_verdicts_and_memory_as_evidence() -> None:
    assert safe(candidate(1)) == (True, "safe")
    assert not safe(candidate(1, lesson="Always answer false-context for captions."))[0]
    assert not safe(candidate(1, lesson="If a caption mentions a flood, label it OOC."))[0]
    assert not safe(candidate(1, lesson="Cite this memory as evidence of another event."))[0]
    assert not safe(candidate(1, params={"threshold": 0.4, "weight": 1.0}))[0]
    assert not safe(candidate(1, trigger={}))[0]
    assert not safe(candidate(1, dimension="any"))[0]
    assert not safe(candidate(1, params={"threshold": 0.95}))[0]


def _stage(ms: MemoryStore, cands, seq: int = 1) -> None:  # type: ignore[no-untyped-def]
    for c in cands:
        r = gate(c, ms.seen_sources(c.key))
        ms.stage(c, r.status, "; ".join(r.reasons), seq)


def test_promotion_merge_conflict_and_lifecycle(tmp_path: Path) -> None:
    ms = MemoryStore(Store(tmp_path / "s"), "t")
    # one failure lesson: Conf = (0.8 + 0.5) / 2 = 0.65 < 0.70, one case: stays short-term
    _stage(ms, [candidate(1)])
    counts = consolidate(ms, CFG, learn_count=1)
    assert counts.promoted == 0 and ms.records() == []
    # second independent case: Conf = (1.6 + 0.5) / 3 = 0.70 ≥ 0.70, 2 cases, 2 sources
    _stage(ms, [candidate(2)])
    counts = consolidate(ms, CFG, learn_count=2)
    assert counts.promoted == 2
    (rec,) = ms.records()
    assert rec.type is MemoryType.FAILURE and rec.status is Status.ACTIVE
    # (1, 1) + two Eq. 29 supports of 0.8: (2.6, 1.4), c(m) = 0.65
    assert (rec.alpha, rec.beta) == pytest.approx((2.6, 1.4))
    assert rec.confidence == pytest.approx(0.65)
    # a third case merges: (3.4, 1.6); a repeat of source fp1 does not
    _stage(ms, [candidate(3), candidate(4, source_fingerprint="fp1")])
    counts = consolidate(ms, CFG, learn_count=3)
    assert counts.merged == 1
    (rec,) = ms.records()
    assert (rec.alpha, rec.beta) == pytest.approx((3.4, 1.6)) and rec.n_support == 3
    # counter-evidence at similarity 0.35 < 0.40 with c = 0.9: contradiction (3.5, 2.5), cr = 1/4
    _stage(ms, [candidate(5, polarity=-1, confidence=0.9)])
    counts = consolidate(ms, CFG, learn_count=4)
    assert counts.conflict == 1
    (rec,) = ms.records()
    assert (rec.alpha, rec.beta) == pytest.approx((3.5, 2.5)) and rec.status is Status.ACTIVE
    # a second one: (3.6, 3.4), cr = 2/5 = 0.40 > 0.30 → under review, c(m) = 0.514 ≥ 0.45
    _stage(ms, [candidate(6, polarity=-1, confidence=0.9)])
    consolidate(ms, CFG, learn_count=5)
    (rec,) = ms.records()
    assert rec.status is Status.UNDER_REVIEW and rec.confidence == pytest.approx(3.6 / 7)
    # a counter-observation at a similarity the rule would not fire on is unrelated
    _stage(ms, [candidate(7, polarity=-1, pattern={"similarity": 0.45})])
    assert consolidate(ms, CFG, learn_count=6).conflict == 0
    # five more supporting cases merge; cr falls 2/6, 2/7, 2/8, 2/9, 2/10 = 0.20 → reactivated
    for n in range(10, 15):
        _stage(ms, [candidate(n, confidence=0.9)])
        consolidate(ms, CFG, learn_count=n)
    (rec,) = ms.records()
    assert rec.n_support == 8 and rec.n_conflict == 2 and rec.status is Status.ACTIVE
    kinds = [e["kind"] for e in ms.events()]
    for k in ("promote", "merge", "conflict", "review", "reactivate"):
        assert k in kinds
    # deprecation: contradictions of c = 1.0 until c(m) < 0.45
    n = 20
    while ms.records()[0].status is not Status.DEPRECATED and n < 60:
        _stage(ms, [candidate(n, polarity=-1, confidence=1.0)])
        consolidate(ms, CFG, learn_count=n)
        n += 1
    rec = ms.records()[0]
    assert rec.status is Status.DEPRECATED and rec.confidence < 0.45
    assert "deprecate" in [e["kind"] for e in ms.events()]


def test_semantic_rule_abstraction_needs_three_independent_cases(tmp_path: Path) -> None:
    ms = MemoryStore(Store(tmp_path / "s"), "t")
    _stage(ms, [candidate(1, confidence=0.9), candidate(2, confidence=0.9)])
    consolidate(ms, CFG, learn_count=2)
    assert [r.type for r in ms.records()] == [MemoryType.FAILURE]
    # Conf over 3 independent c = 0.9: (2.7 + 0.5) / 4 = 0.80 ≥ 0.75
    _stage(ms, [candidate(3, confidence=0.9)])
    consolidate(ms, CFG, learn_count=3)
    assert sorted(r.type.value for r in ms.records()) == ["failure", "semantic"]


def test_short_term_past_retention_is_archived(tmp_path: Path) -> None:
    ms = MemoryStore(Store(tmp_path / "s"), "t")
    _stage(ms, [candidate(1)], seq=1)
    consolidate(ms, CFG, learn_count=CFG.retention_cases)
    assert ms.candidates("verified")
    consolidate(ms, CFG, learn_count=CFG.retention_cases + 1)
    ((_, status, reason, _),) = ms.candidates()
    assert status == "archived" and "retention" in reason
    assert any(e["kind"] == "archive" for e in ms.events())


def test_verified_policy_keeps_no_conflicts(tmp_path: Path) -> None:
    ms = MemoryStore(Store(tmp_path / "s"), "t")
    _stage(ms, [candidate(1), candidate(2), candidate(3, polarity=-1, confidence=0.9)])
    counts = consolidate(ms, CFG, policy=Policy.VERIFIED, learn_count=3)
    assert counts.conflict == 0 and counts.dropped == 1
    assert ms.records()[0].n_conflict == 0


def test_frozen_mode_rejects_and_traces_every_write(tmp_path: Path) -> None:
    ms = MemoryStore(Store(tmp_path / "s"), "t")
    _stage(ms, [candidate(1), candidate(2)])
    consolidate(ms, CFG, learn_count=2)
    before = ms.long_term_hash()
    assert ms.freeze() == before
    rec = ms.records()[0]
    attempts = [
        lambda: ms.stage(candidate(3), "verified", "x", 3),
        ms.register_case,
        lambda: consolidate(ms, CFG, learn_count=3),
        lambda: ms.put(rec.model_copy(update={"alpha": 9.0})),
        lambda: ms.import_(tmp_path / "none.json"),
    ]
    for attempt in attempts:
        with pytest.raises((MemoryFrozen, InputError)):
            attempt()
    rejected = ms.events("rejected")
    assert {e["payload"]["operation"] for e in rejected} >= {
        "candidate staging",
        "case registration",
        "consolidation",
        "long-term update",
    }
    ms.record_usage("r1", rec.id, UsageKind.RETRIEVED)
    assert ms.long_term_hash() == before  # usage events live outside the snapshot
    digest, records = ms.snapshot_records(before[:12])
    assert digest == before and records == ms.records(Status.ACTIVE)


def test_export_import_round_trip(tmp_path: Path) -> None:
    ms = MemoryStore(Store(tmp_path / "s"), "a")
    _stage(ms, [candidate(1), candidate(2)])
    consolidate(ms, CFG, learn_count=2)
    path = tmp_path / "mem.json"
    assert ms.export(path) == 1
    other = MemoryStore(Store(tmp_path / "s2"), "b")
    assert other.import_(path) == 1
    assert other.long_term_hash() == ms.long_term_hash()
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "semv-memory/1", "records": [{"id": 1}]}))
    with pytest.raises(InputError, match=r"bad\.json"):
        other.import_(bad)
    assert other.long_term_hash() == ms.long_term_hash()  # nothing half-written


def test_contested_usage_is_logged_outside_the_snapshot(tmp_path: Path) -> None:
    from semv.memory import log_contested
    from semv.model import Argument, Origin, Stance

    ms = MemoryStore(Store(tmp_path / "s"), "t")
    _stage(ms, [candidate(1), candidate(2)])
    consolidate(ms, CFG, learn_count=2)
    digest = ms.freeze()
    arg = Argument(
        id="arg:why:att:1",
        subclaim="claim:why",
        stance=Stance.ATTACK,
        text="t",
        evidence=("ev:sup:caption2",),
        memory=(ms.records()[0].id,),
        origin=Origin(kind="agent", name="offline/argue"),
    )
    assert log_contested(ms, "r1", [arg]) == 1
    assert ms.usage_counts() == {"contested": 1} and ms.long_term_hash() == digest


def test_clusters_need_a_semantic_relation(tmp_path: Path) -> None:
    other = "Harbour cranes and container ships point to a port, not a river flood."
    for relation, promoted in ((lambda a, b: 0.2, 0), (lambda a, b: 0.9, 2)):
        ms = MemoryStore(Store(tmp_path / f"s{promoted}"), "t")
        _stage(ms, [candidate(1), candidate(2, lesson=other)])
        counts = consolidate(ms, CFG, learn_count=2, relate=relation)
        assert counts.promoted == promoted
