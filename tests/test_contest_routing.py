"""Typed routing (Eq. 22), the batch restart stage (Eq. 23), explicit targets, widening."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from semv.contest import (
    BaseView,
    UnknownTarget,
    degradation_bound,
    locality,
    plan_batch,
    route_action,
)
from semv.errors import ContestError
from semv.model import (
    Accept,
    Add,
    Argument,
    Edit,
    Evidence,
    Modality,
    Origin,
    ProducerKind,
    Provenance,
    Reject,
    ReviewMeta,
    SourceType,
    Stage,
    Stance,
)

NEWS = Evidence(
    id="ev:sup:news",
    source="Example News",
    source_type=SourceType.NEWS,
    modality=Modality.TEXT,
    content="The Seine burst its banks in Paris on 14 March 2024.",
    reliability=0.7,
    url="https://news.example.org/a",
    published="2024-03-14",
    provenance=Provenance(producer=ProducerKind.USER, agent="case"),
)
EXIF = Evidence(
    id="ev:exif:asset:1",
    source="exiftool",
    source_type=SourceType.METADATA,
    modality=Modality.METADATA,
    content="DateTimeOriginal 2019-06-01",
    reliability=0.9,
    provenance=Provenance(producer=ProducerKind.TOOL, agent="exiftool"),
)
WHEN_ATT = Argument(
    id="arg:when:att:1",
    subclaim="claim:when",
    stance=Stance.ATTACK,
    text="EXIF capture time is five years before the claimed date.",
    evidence=(EXIF.id,),
    origin=Origin(kind="agent", name="offline/argue"),
)
WHERE_SUP = Argument(
    id="arg:where:sup:1",
    subclaim="claim:where",
    stance=Stance.SUPPORT,
    text="The news report places it in Paris.",
    evidence=(NEWS.id,),
    origin=Origin(kind="agent", name="offline/argue"),
)
VIEW = BaseView(
    subclaims={f"claim:{k}": k for k in ("what", "where", "when", "who", "why", "authenticity")},
    arguments={WHEN_ATT.id: WHEN_ATT, WHERE_SUP.id: WHERE_SUP},
    pools={
        "when": {NEWS.id: NEWS, EXIF.id: EXIF},
        "where": {NEWS.id: NEWS},
        "what": {},
    },
)
REASON = "reviewer says so"


def test_accept_routes_to_q() -> None:
    routed = route_action(Accept(target=WHEN_ATT.id, reason=REASON), VIEW)
    assert (routed.route, routed.subclaims) == (Stage.QBAF, ("when",))


def test_introducing_evidence_routes_to_r() -> None:
    new = NEWS.model_copy(update={"id": "ev:human:witness"})
    routed = route_action(
        Add(
            target="claim:when",
            reason=REASON,
            evidence_added=(new,),
            text="A witness",
            stance=Stance.SUPPORT,
        ),
        VIEW,
    )
    assert routed.route is Stage.RETRIEVE and routed.subclaims == ("when",)


def test_rejecting_an_evidence_item_challenges_its_source_and_routes_to_r() -> None:
    routed = route_action(Reject(target=NEWS.id, reason=REASON), VIEW)
    assert routed.route is Stage.RETRIEVE
    assert set(routed.subclaims) == {"when", "where"}  # every subclaim whose pool holds it


def test_replacing_the_source_of_evidence_routes_to_r() -> None:
    moved = NEWS.model_copy(
        update={"url": "https://other.example.org/b", "published": "2019-06-02"}
    )
    routed = route_action(Edit(target=NEWS.id, reason=REASON, evidence_edited=(moved,)), VIEW)
    assert routed.route is Stage.RETRIEVE


def test_challenging_the_content_of_evidence_routes_to_v() -> None:
    misread = NEWS.model_copy(
        update={"content": "The Seine burst its banks in Paris on 14 March 2019."}
    )
    by_item = route_action(Edit(target=NEWS.id, reason=REASON, evidence_edited=(misread,)), VIEW)
    by_text = route_action(Edit(target=NEWS.id, reason=REASON, text=misread.content), VIEW)
    assert by_item.route is Stage.VALIDATE and by_text.route is Stage.VALIDATE


@pytest.mark.parametrize(
    "action",
    [
        Reject(target=WHEN_ATT.id, reason=REASON),
        Edit(target=WHEN_ATT.id, reason=REASON, stance=Stance.SUPPORT),
        Add(target="claim:when", reason=REASON, text="It fits.", stance=Stance.SUPPORT),
    ],
)
def test_other_edits_additions_and_rejections_route_to_a(action: Reject | Edit | Add) -> None:
    assert route_action(action, VIEW).route is Stage.ARGUE


@pytest.mark.parametrize(
    "reason",
    ["the source evidence is fake, retrieve again", "invalid evidence content", "accept"],
)
def test_the_reason_text_never_changes_the_route(reason: str) -> None:
    assert route_action(Reject(target=WHEN_ATT.id, reason=reason), VIEW).route is Stage.ARGUE


def test_a_batch_restarts_at_the_earliest_route() -> None:
    misread = NEWS.model_copy(update={"content": "changed"})
    batch = [
        Accept(target=WHERE_SUP.id, reason=REASON),
        Reject(target=WHEN_ATT.id, reason=REASON),
        Edit(target=NEWS.id, reason=REASON, evidence_edited=(misread,)),
    ]
    plan = plan_batch(batch, VIEW)
    assert plan.restart is Stage.VALIDATE
    assert [r.route for r in plan.actions] == [Stage.QBAF, Stage.ARGUE, Stage.VALIDATE]
    assert set(plan.subclaims) == {"when", "where"}
    assert plan_batch(batch[:2], VIEW).restart is Stage.ARGUE


def test_a_valid_explicit_target_overrides_the_default() -> None:
    early = Reject(target=WHEN_ATT.id, reason=REASON, meta=ReviewMeta(target_stage=Stage.RETRIEVE))
    routed = route_action(early, VIEW)
    assert (routed.default, routed.route) == (Stage.ARGUE, Stage.RETRIEVE)


def test_an_explicit_target_after_the_payload_stage_is_ignored_and_noted() -> None:
    late = Reject(target=WHEN_ATT.id, reason=REASON, meta=ReviewMeta(target_stage=Stage.AGGREGATE))
    routed = route_action(late, VIEW)
    assert routed.route is Stage.ARGUE
    assert any("ignored" in n for n in routed.notes)


def test_an_id_that_resolves_to_nothing_is_refused_with_the_valid_ids() -> None:
    with pytest.raises(UnknownTarget) as caught:
        plan_batch([Reject(target="arg:when:att:9", reason=REASON)], VIEW)
    assert caught.value.exit_code == 2
    assert caught.value.suggestions[0] == WHEN_ATT.id
    message = str(caught.value)
    assert "Did you mean arg:when:att:1" in message
    assert all(i in message for i in (*VIEW.subclaims, *VIEW.arguments))


def test_an_id_in_the_run_that_belongs_to_no_subclaim_widens_the_scope_and_says_so() -> None:
    view = BaseView(
        subclaims=VIEW.subclaims,
        arguments=VIEW.arguments,
        pools=VIEW.pools,
        unlocalised=frozenset({"ev:orphan"}),
    )
    plan = plan_batch([Reject(target="ev:orphan", reason=REASON)], view)
    assert set(plan.subclaims) == set(VIEW.subclaims.values())
    assert plan.widened and "ev:orphan" in plan.widened[0]
    assert "cannot be localised" in plan.widened[0]


def test_restarting_at_claims_widens_to_every_subclaim() -> None:
    action = Reject(target=WHEN_ATT.id, reason=REASON, meta=ReviewMeta(target_stage=Stage.CLAIMS))
    plan = plan_batch([action], VIEW)
    assert plan.restart is Stage.CLAIMS
    assert len(plan.subclaims) == 6 and plan.widened


def test_malformed_actions_are_refused() -> None:
    with pytest.raises(ContestError, match="changes nothing"):
        route_action(Edit(target=WHEN_ATT.id, reason=REASON), VIEW)
    with pytest.raises(ContestError, match="not in the run"):
        route_action(
            Edit(
                target=WHEN_ATT.id,
                reason=REASON,
                evidence_edited=(NEWS.model_copy(update={"id": "ev:x:y"}),),
            ),
            VIEW,
        )


@given(
    st.sets(st.integers(0, 30)),
    st.sets(st.integers(0, 30)),
    st.sets(st.integers(0, 30)),
)
def test_locality_degradation_bound_holds(
    computed: set[int], true: set[int], changed: set[int]
) -> None:
    """Prop. 4.2: 1 − Loc(H) ≤ (δ_H + σ_H) / |Z \\ Z*| for any scope, closure and changes."""
    keys = [f"n{i}" for i in range(31)]
    z_star = frozenset(f"n{i}" for i in computed)
    z_true = frozenset(f"n{i}" for i in true)
    moved = [f"n{i}" for i in changed]
    before = {k: ("f", "a") for k in keys}
    after = {k: ("f", "b" if k in moved else "a") for k in keys}
    loc = locality(before, after, z_star, ())
    untracked, spurious, bound = degradation_bound(moved, z_star, z_true, keys)
    assert untracked == len(z_true - z_star)
    assert spurious == len(set(moved) - z_true - z_star)
    assert 1 - loc.value <= bound + 1e-12
    if z_true - z_star <= set(moved):  # tight when every untracked dependent changes
        assert 1 - loc.value == pytest.approx(bound)
