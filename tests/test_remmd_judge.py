"""The ReMMD judge (ReMMD §3): σ_j from comparisons, L1 from the pattern over central claims
and cross-modal bindings (not a vote), and L2 assigned after L1 (visual provenance is not a
shortcut to falsehood)."""

from __future__ import annotations

from typing import Any

import pytest

from semv.config import Settings
from semv.model import ContentCredentials, Evidence, MediaLocation, Modality, SourceType
from semv.procedures.remmd._models import (
    AtomicPoint,
    PointFacts,
    PointFinding,
    PointRole,
    PointStatus,
    PointType,
    Quantity,
    Veracity,
)
from semv.procedures.remmd.judge import compare_point, diagnose, judge_point, veracity
from semv.procedures.remmd.points import extract_points

CFG = Settings().remmd
S, C, U = PointStatus.SUPPORTED, PointStatus.CONTRADICTED, PointStatus.UNVERIFIED


def _point(
    n: int,
    role: PointRole,
    *,
    central: bool,
    kind: PointType = PointType.SENTENCE,
    text: str = "",
    **facts: Any,
) -> AtomicPoint:
    return AtomicPoint(
        id=f"a{n}",
        text=text or f"point {n}",
        query=text or f"point {n}",
        type=kind,
        role=role,
        central=central,
        centrality=1.0,
        facts=PointFacts(**facts),
        sentence_index=n,
    )


def _states(*pairs: tuple[AtomicPoint, PointStatus], kind: str = "") -> dict[str, PointFinding]:
    return {
        p.id: PointFinding(
            point=p.id, status=s, evidence_id="ev:x" if s is not U else None, kind=kind
        )
        for p, s in pairs
    }


NARRATIVE = _point(1, PointRole.EVENT, central=True, kind=PointType.NARRATIVE)
ATTRIBUTION = _point(2, PointRole.ATTRIBUTION, central=True)
CENTRAL_EVENT = _point(3, PointRole.EVENT, central=True)
NUMBER = _point(4, PointRole.NUMBER, central=False)
DETAILS = [_point(10 + i, PointRole.ENTITY, central=False) for i in range(8)]


def test_all_central_claims_supported_is_true() -> None:
    points = [NARRATIVE, ATTRIBUTION, CENTRAL_EVENT, NUMBER]
    v = veracity(points, _states(*((p, S) for p in points)), CFG)
    assert (v.level1_verdict, v.rule) == ("True", "central-supported")


def test_a_contradicted_peripheral_number_moves_true_to_mostly_true() -> None:
    points = [NARRATIVE, ATTRIBUTION, CENTRAL_EVENT, NUMBER]
    states = _states((NARRATIVE, S), (ATTRIBUTION, S), (CENTRAL_EVENT, S), (NUMBER, C))
    v = veracity(points, states, CFG)
    assert (v.level1_verdict, v.rule) == ("Mostly True", "peripheral-errors")
    assert v.decisive == ("a4",)


def test_a_contradicted_event_attribution_decides_despite_many_true_details() -> None:
    """Not a vote: nine supported points against one contradicted central attribution."""
    points = [NARRATIVE, ATTRIBUTION, *DETAILS]
    states = _states((NARRATIVE, S), (ATTRIBUTION, C), *((d, S) for d in DETAILS))
    v = veracity(points, states, CFG)
    assert v.level1_verdict == "Mostly False"
    assert v.decisive == ("a2",)
    # the same count of contradictions on peripheral details would not decide it
    flipped = _states(
        (NARRATIVE, S), (ATTRIBUTION, S), (DETAILS[0], C), *((d, S) for d in DETAILS[1:])
    )
    assert veracity(points, flipped, CFG).level1_verdict == "Mostly True"


def test_a_contradicted_core_narrative_is_false() -> None:
    points = [NARRATIVE, ATTRIBUTION, *DETAILS]
    states = _states((NARRATIVE, C), (ATTRIBUTION, S), *((d, S) for d in DETAILS))
    assert veracity(points, states, CFG).level1_verdict == "False"
    nothing_holds = _states((NARRATIVE, U), (ATTRIBUTION, C), *((d, S) for d in DETAILS))
    assert veracity(points, nothing_holds, CFG).level1_verdict == "False"


def test_a_contradicted_binding_is_decisive() -> None:
    binding = _point(5, PointRole.EVENT, central=True, kind=PointType.BINDING)
    points = [NARRATIVE, binding]
    v = veracity(points, _states((NARRATIVE, S), (binding, C)), CFG)
    assert (v.level1_verdict, v.decisive) == ("Mostly False", ("a5",))


def test_many_peripheral_errors_make_a_mixture() -> None:
    points = [NARRATIVE, *DETAILS]
    few = _states((NARRATIVE, S), *((d, C if i < 2 else S) for i, d in enumerate(DETAILS)))
    many = _states((NARRATIVE, S), *((d, C if i < 3 else S) for i, d in enumerate(DETAILS)))
    assert veracity(points, few, CFG).level1_verdict == "Mostly True"
    assert CFG.peripheral_mixture == 3
    assert veracity(points, many, CFG).level1_verdict == "Mixture"


def test_contradicted_central_details_by_share() -> None:
    central_number = _point(6, PointRole.NUMBER, central=True)
    central_date = _point(7, PointRole.DATE, central=True)
    points = [NARRATIVE, ATTRIBUTION, CENTRAL_EVENT, central_number, central_date]
    one = _states(
        (NARRATIVE, S), (ATTRIBUTION, S), (CENTRAL_EVENT, S), (central_number, C), (central_date, S)
    )
    two = _states(
        (NARRATIVE, S), (ATTRIBUTION, S), (CENTRAL_EVENT, S), (central_number, C), (central_date, C)
    )
    assert veracity(points, one, CFG).level1_verdict == "Mostly True"  # 1/5 < 0.34
    assert veracity(points, two, CFG).level1_verdict == "Mixture"  # 2/5 >= 0.34


def test_no_evidence_at_all_is_not_a_verdict_of_truth() -> None:
    points = [NARRATIVE, ATTRIBUTION]
    v = veracity(points, _states((NARRATIVE, U), (ATTRIBUTION, U)), CFG)
    assert (v.level1_verdict, v.rule) == ("Mixture", "insufficient-evidence")
    assert v.confidence < 0.5


# ---- σ_j comparisons ----------------------------------------------------------------------


def _ev(
    eid: str, text: str, kind: SourceType = SourceType.NEWS, reliability: float = 0.7
) -> Evidence:
    return Evidence(
        id=f"ev:{eid}",
        source="test",
        source_type=kind,
        modality=Modality.TEXT,
        content=text,
        reliability=reliability,
    )


def _sentence_point(text: str) -> AtomicPoint:
    points = extract_points(text, [], CFG, language="en", use_embeddings=False)
    return points.points[0]


def test_a_date_of_the_same_event_contradicts() -> None:
    point = _sentence_point("The Pont Wilson in Lyon collapsed on 3 May 2024, the prefecture said.")
    late = _ev("a", "The Pont Wilson in Lyon collapsed on 9 June 2021 after a flood.")
    same = _ev("b", "The Pont Wilson in Lyon collapsed on 3 May 2024 after heavy rain.")
    found = compare_point(point, late, 0.85, CFG)
    assert found is not None and (found.status, found.kind) == (C, "date")
    found = compare_point(point, same, 0.85, CFG)
    assert found is not None and found.status is S
    unrelated = _ev("c", "Bitcoin fell on 9 June 2021.")
    assert compare_point(point, unrelated, 0.70, CFG) is None  # another matter: silent


def test_a_quantity_in_the_same_unit_contradicts() -> None:
    point = _sentence_point("Floods in Porto Alegre forced 80,000 residents from their homes.")
    assert point.facts.numbers[0] == Quantity(
        text="80,000 residents", value=80000.0, unit="resident"
    )
    wrong = _ev("a", "In Porto Alegre about 8,000 residents left their homes during the floods.")
    right = _ev("b", "About 80 000 residents of Porto Alegre left their homes in the floods.")
    found = compare_point(point, wrong, 0.85, CFG)
    assert found is not None and (found.status, found.kind) == (C, "number")
    found = compare_point(point, right, 0.85, CFG)
    assert found is not None and found.status is S


def test_a_refutation_about_a_photo_applies_to_the_binding_not_the_text() -> None:
    text = "Flooding in Paris on 14 March 2024: the Seine burst its banks."
    sentence = _sentence_point(text)
    binding = sentence.model_copy(
        update={
            "id": "a2",
            "type": PointType.BINDING,
            "text": f"image_1 is used to support: {text}",
        }
    )
    check = _ev(
        "fc",
        "No, this photo does not show Paris flooding in March 2024: it was taken in Lyon in 2019.",
        SourceType.FACT_CHECK,
        0.8,
    )
    against_binding = compare_point(binding, check, 0.86, CFG)
    assert against_binding is not None and (against_binding.status, against_binding.kind) == (
        C,
        "refutation",
    )
    assert compare_point(sentence, check, 0.86, CFG) is None  # neither support nor refutation


def test_the_more_reliable_record_decides_a_conflict() -> None:
    point = _sentence_point("The Pont Wilson in Lyon collapsed on 3 May 2024, the prefecture said.")
    weak = _ev("a", "The Pont Wilson in Lyon collapsed on 9 June 2021.", SourceType.SOCIAL, 0.3)
    strong = _ev("b", "The Pont Wilson in Lyon collapsed on 3 May 2024.", SourceType.OFFICIAL, 0.9)
    assert judge_point(point, [(weak, 0.85), (strong, 0.85)], CFG).status is S
    assert judge_point(point, [(weak, 0.85)], CFG).status is C
    assert judge_point(point, [], CFG).status is U


# ---- L2 after L1 --------------------------------------------------------------------------


def _c2pa(ai: bool = False, edited: bool = False) -> Evidence:
    return Evidence(
        id="ev:c2pa:asset:1",
        source="C2PA content credentials",
        source_type=SourceType.METADATA,
        modality=Modality.METADATA,
        content="C2PA manifest",
        observation=ContentCredentials(
            validation_state="Valid",
            signer="test signer",
            issuer="test CA",
            claim_generator="test",
            actions="c2pa.created",
            ai_generated=ai,
            edited=edited,
            hash_mismatch=False,
            trusted=False,
            failures="",
        ),
        reliability=0.95,
        location=MediaLocation(asset_id="asset:1"),
    )


def test_visual_provenance_does_not_move_l1_and_is_no_label_under_true() -> None:
    points = [NARRATIVE, ATTRIBUTION]
    states = _states((NARRATIVE, S), (ATTRIBUTION, S))
    level1 = veracity(points, states, CFG)
    assert level1.level1_verdict == "True"
    diagnosis = diagnose(points, states, level1, [_c2pa(ai=True, edited=True)])
    assert diagnosis.level2_taxonomy == ()
    assert diagnosis.soft_signals == ("V1:ev:c2pa:asset:1", "V2:ev:c2pa:asset:1")


def test_visual_labels_join_a_non_true_verdict() -> None:
    points = [NARRATIVE, ATTRIBUTION, NUMBER]
    states = _states((NARRATIVE, S), (ATTRIBUTION, S), (NUMBER, C), kind="number")
    level1 = veracity(points, states, CFG)
    assert level1.level1_verdict == "Mostly True"  # the AI image did not make it worse
    diagnosis = diagnose(points, states, level1, [_c2pa(ai=True)])
    assert diagnosis.level2_taxonomy == ("T2 Distortion", "V1 Synthetic Visual Content")
    assert diagnosis.grounds["V1"] == ("ev:c2pa:asset:1",)


@pytest.mark.parametrize(
    ("kind", "role", "expected"),
    [
        ("refutation", PointRole.ATTRIBUTION, "T1 Fabrication"),
        ("actor", PointRole.ATTRIBUTION, "T1 Fabrication"),
        ("date", PointRole.EVENT, "T3 Misleading Context"),
        ("number", PointRole.NUMBER, "T2 Distortion"),
    ],
)
def test_textual_labels_follow_what_was_contradicted(
    kind: str, role: PointRole, expected: str
) -> None:
    point = _point(2, role, central=True)
    points = [NARRATIVE, point]
    states = _states((NARRATIVE, S), (point, C), kind=kind)
    level1 = veracity(points, states, CFG)
    assert expected in diagnose(points, states, level1, []).level2_taxonomy


def test_a_contradicted_binding_is_contextual_inconsistency() -> None:
    binding = _point(5, PointRole.EVENT, central=True, kind=PointType.BINDING)
    points = [NARRATIVE, binding]
    states = _states((NARRATIVE, S), (binding, C), kind="capture-date")
    level1 = veracity(points, states, CFG)
    assert diagnose(points, states, level1, []).level2_taxonomy == (
        "T3 Misleading Context",
        "C2 Contextual Inconsistency",
    )


def test_l2_reads_the_decided_l1() -> None:
    """The same point states under a False verdict whose core fell add T1."""
    points = [NARRATIVE, ATTRIBUTION]
    states = _states((NARRATIVE, C), (ATTRIBUTION, S), kind="date")
    false = Veracity(level1_verdict="False", rule="decisive-core", confidence=0.9)
    assert "T1 Fabrication" in diagnose(points, states, false, []).level2_taxonomy
    mostly_false = Veracity(level1_verdict="Mostly False", rule="x", confidence=0.9)
    assert "T1 Fabrication" not in diagnose(points, states, mostly_false, []).level2_taxonomy
