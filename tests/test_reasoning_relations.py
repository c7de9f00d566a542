"""Sparse argument-to-argument relations (A-QBAF MV2026 §2.5): their semantics on hand-made
graphs, with every expected value computed here from the equations, and their deterministic
construction from typed observations."""

from __future__ import annotations

import math
import random

import pytest

from semv.config import OfflineAgentConfig, RelationsConfig
from semv.model import (
    Argument,
    DateFact,
    DatePrecision,
    Evidence,
    Exif,
    Facts,
    ForensicMap,
    Modality,
    Origin,
    PlaceFact,
    Relation,
    RelationKind,
    RetrievedDocument,
    SourceType,
    Stance,
)
from semv.reasoning import build_relations, influence, propagate
from tests.paper_reasoning import capture_checks, claim_score

CLAIM = "claim:when"
BETA = 0.5


def h(x: float) -> float:
    """g = h of Eq. 17 written out: max(x, 0)² / (1 + max(x, 0)²)."""
    p = max(x, 0.0)
    return p * p / (1 + p * p)


def score(base: float, energy: float) -> float:
    """Eq. 17 / A-QBAF §2.6.1 written out."""
    return min(max(base + (1 - base) * h(energy) - base * h(-energy), 0.0), 1.0)


def rel(kind: RelationKind, src: str, dst: str, n: int = 1) -> Relation:
    return Relation(
        id=f"rel:when:{kind.code}:{n}",
        subclaim=CLAIM,
        kind=kind,
        src=src,
        dst=dst,
        evidence=("ev:x",),
        fact="hand-made",
    )


# ---- semantics -------------------------------------------------------------------------------


def test_h_is_the_influence_of_eq_17() -> None:
    for x in (-3.0, -0.2, 0.0, 0.3, 0.816, 2.0, 5.0):
        assert influence(x) == pytest.approx(h(x), abs=1e-15)


def test_the_star_is_exactly_eq_17() -> None:
    rng = random.Random(7)
    for _ in range(200):
        n = rng.randint(0, 6)
        weights = {f"arg:when:{'sup' if i % 2 else 'att'}:{i}": rng.random() for i in range(n)}
        stances = {k: Stance.SUPPORT if ":sup:" in k else Stance.ATTACK for k in weights}
        got = propagate(CLAIM, BETA, weights, stances, ())
        sups = [w for k, w in weights.items() if stances[k] is Stance.SUPPORT]
        atts = [w for k, w in weights.items() if stances[k] is Stance.ATTACK]
        assert got.score == claim_score(sups, atts, base=BETA)  # exactly, not approximately
        assert got.strengths == weights
        assert got.support_total == math.fsum(sups) and got.attack_total == math.fsum(atts)
        assert all(e.relation is None and e.dst == CLAIM for e in got.edges)


def test_a_metadata_attack_lowers_its_target_and_the_claim() -> None:
    # the metadata argument m attacks the claim (τ 0.6); t supports it (τ 0.5) but reports
    # a date the metadata contradicts: m → t is an attack
    weights = {"arg:when:att:1": 0.6, "arg:when:sup:1": 0.5}
    stances = {"arg:when:att:1": Stance.ATTACK, "arg:when:sup:1": Stance.SUPPORT}
    edge = rel(RelationKind.METADATA_CONTRADICTION, "arg:when:att:1", "arg:when:sup:1")
    got = propagate(CLAIM, BETA, weights, stances, (edge,))
    sigma_m = 0.6  # no incoming edge: σ = τ
    sigma_t = 0.5 - 0.5 * h(sigma_m)  # E(t) = −σ(m): τ − τ·h(σ(m))
    assert got.strengths["arg:when:att:1"] == pytest.approx(sigma_m, abs=1e-15)
    assert got.strengths["arg:when:sup:1"] == pytest.approx(sigma_t, abs=1e-15)
    assert got.score == pytest.approx(score(BETA, sigma_t - sigma_m), abs=1e-15)
    star = propagate(CLAIM, BETA, weights, stances, ())
    assert got.strengths["arg:when:sup:1"] < 0.5 and got.score < star.score
    kinds = [(e.src, e.dst, e.relation) for e in got.edges if e.relation]
    assert kinds == [("arg:when:att:1", "arg:when:sup:1", edge.id)]


def test_a_cue_conflict_weakens_both_readings() -> None:
    # a support (τ 0.6) and an attack (τ 0.4) read the same forensic map in opposite ways:
    # mutual attack, σ(s) = τs − τs·h(σ(a)), σ(a) = τa − τa·h(σ(s))
    ts, ta = 0.6, 0.4
    s, a = ts, ta
    for _ in range(200):
        s, a = ts - ts * h(a), ta - ta * h(s)
    assert abs(s - (ts - ts * h(a))) < 1e-14 and abs(a - (ta - ta * h(s))) < 1e-14
    weights = {"arg:what:sup:1": ts, "arg:what:att:1": ta}
    stances = {"arg:what:sup:1": Stance.SUPPORT, "arg:what:att:1": Stance.ATTACK}
    edge = rel(RelationKind.CUE_CONFLICT, "arg:what:sup:1", "arg:what:att:1")
    got = propagate("claim:what", BETA, weights, stances, (edge,))
    assert got.strengths["arg:what:sup:1"] == pytest.approx(s, abs=1e-8)
    assert got.strengths["arg:what:att:1"] == pytest.approx(a, abs=1e-8)
    assert s < ts and a < ta  # both readings lose strength
    assert got.score == pytest.approx(score(BETA, s - a), abs=1e-8)
    both = {(e.src, e.dst) for e in got.edges if e.relation == edge.id}
    assert both == {("arg:what:sup:1", "arg:what:att:1"), ("arg:what:att:1", "arg:what:sup:1")}
    # the equal-strength case stays neutral: the conflict cancels symmetrically
    even = propagate(
        "claim:what", BETA, {"arg:what:sup:1": 0.5, "arg:what:att:1": 0.5}, stances, (edge,)
    )
    assert even.score == pytest.approx(BETA, abs=1e-12)


def test_a_corroboration_strengthens_both_sources_and_the_claim() -> None:
    # two independent trusted sources both support (τ 0.5 and 0.4): mutual support,
    # σ1 = τ1 + (1 − τ1)·h(σ2), σ2 = τ2 + (1 − τ2)·h(σ1)
    t1, t2 = 0.5, 0.4
    s1, s2 = t1, t2
    for _ in range(200):
        s1, s2 = t1 + (1 - t1) * h(s2), t2 + (1 - t2) * h(s1)
    weights = {"arg:when:sup:1": t1, "arg:when:sup:2": t2}
    stances = dict.fromkeys(weights, Stance.SUPPORT)
    edge = rel(RelationKind.CORROBORATION, "arg:when:sup:1", "arg:when:sup:2")
    got = propagate(CLAIM, BETA, weights, stances, (edge,))
    assert got.strengths["arg:when:sup:1"] == pytest.approx(s1, abs=1e-8)
    assert got.strengths["arg:when:sup:2"] == pytest.approx(s2, abs=1e-8)
    assert s1 > t1 and s2 > t2
    assert got.support_total == pytest.approx(s1 + s2, abs=1e-8)
    assert got.score == pytest.approx(score(BETA, s1 + s2), abs=1e-8)
    assert got.score > propagate(CLAIM, BETA, weights, stances, ()).score


def test_a_relation_to_an_argument_outside_the_qbaf_is_left_out() -> None:
    weights = {"arg:when:sup:1": 0.5}
    stances = {"arg:when:sup:1": Stance.SUPPORT}
    edge = rel(RelationKind.METADATA_CONTRADICTION, "arg:when:att:9", "arg:when:sup:1")
    got = propagate(CLAIM, BETA, weights, stances, (edge,))
    assert got.score == claim_score([0.5], [], base=BETA)
    assert not any(e.relation for e in got.edges)


# ---- construction from typed observations ------------------------------------------------------

OFFLINE = OfflineAgentConfig()
CAPTURE = capture_checks(OFFLINE)
RELATIONS = RelationsConfig()


def arg(
    dim: str, stance: Stance, n: int, evidence: tuple[str, ...], facts: Facts | None = None
) -> Argument:
    return Argument(
        id=f"arg:{dim}:{stance.value}:{n}",
        subclaim=f"claim:{dim}",
        stance=stance,
        text=f"{stance.value} {n}",
        evidence=evidence,
        origin=Origin(kind="agent", name="test"),
        strength=0.5,
        facts=facts or Facts(),
    )


def news(ev_id: str, source: str, url: str, reliability: float = 0.75) -> Evidence:
    return Evidence(
        id=ev_id,
        source=source,
        source_type=SourceType.NEWS,
        modality=Modality.TEXT,
        content="a report",
        observation=RetrievedDocument(prior="news"),
        reliability=reliability,
        url=url,
    )


EXIF = Evidence(
    id="ev:exif:asset:1",
    source="exiftool",
    source_type=SourceType.METADATA,
    modality=Modality.METADATA,
    content="Metadata",
    observation=Exif(capture_time="2019-06-01T14:32:10+02:00", latitude=45.7629, longitude=4.8311),
    reliability=0.9,
)
FORENSIC = Evidence(
    id="ev:forensic:combined:asset:1",
    source="semv.forensics",
    source_type=SourceType.FORENSIC,
    modality=Modality.IMAGE,
    content="Combined forensic map: region score 0.77",
    observation=ForensicMap(
        map="combined", region_score=0.77, threshold=0.5, exceeds=True, region="0,0,8,8"
    ),
    reliability=0.6,
)


def day(iso: str) -> Facts:
    return Facts(dates=(DateFact(text=iso, iso=iso, precision=DatePrecision.DAY),))


def place(text: str, label: str, lat: float, lon: float, country: str) -> Facts:
    return Facts(
        places=(PlaceFact(text=text, label=label, latitude=lat, longitude=lon, country=country),)
    )


def build(args: list[Argument], evidence: list[Evidence]) -> tuple[Relation, ...]:
    subclaim = args[0].subclaim
    return build_relations(
        subclaim, args, evidence, config=RELATIONS, capture=capture_checks(OFFLINE)
    )


def test_opposite_readings_of_one_visual_cue_attack_each_other() -> None:
    sup = arg("authenticity", Stance.SUPPORT, 1, (FORENSIC.id,))
    att = arg("authenticity", Stance.ATTACK, 1, (FORENSIC.id,))
    (found,) = build([sup, att], [FORENSIC])
    assert found.kind is RelationKind.CUE_CONFLICT and found.mutual
    assert (found.id, found.src, found.dst) == ("rel:authenticity:cue:1", sup.id, att.id)
    assert found.evidence == (FORENSIC.id,)
    # the same stance is no conflict; a shared text source is no visual cue
    assert build([sup, arg("authenticity", Stance.SUPPORT, 2, (FORENSIC.id,))], [FORENSIC]) == ()
    text = news("ev:sup:a", "A", "https://a.example.org/x")
    pair = [
        arg("authenticity", Stance.SUPPORT, 1, (text.id,)),
        arg("authenticity", Stance.ATTACK, 1, (text.id,)),
    ]
    assert build(pair, [text]) == ()


def test_metadata_attacks_a_contradicted_date_only() -> None:
    meta = arg("when", Stance.ATTACK, 1, (EXIF.id,), day("2019-06-01"))
    report = news("ev:sup:a", "A", "https://a.example.org/x")
    wrong = arg("when", Stance.SUPPORT, 1, (report.id,), day("2024-03-14"))
    (found,) = build([meta, wrong], [EXIF, report])
    assert found.kind is RelationKind.METADATA_CONTRADICTION and not found.mutual
    assert (found.src, found.dst, found.evidence) == (meta.id, wrong.id, (EXIF.id,))
    assert "2019-06-01" in found.fact and "2024-03-14" in found.fact
    # a reported date within offline.time_tolerance_days (2) of the capture agrees
    close = arg("when", Stance.ATTACK, 2, (report.id,), day("2019-06-02"))
    assert build([meta, close], [EXIF, report]) == ()
    # an argument reporting no date is not contradicted
    assert build([meta, arg("when", Stance.SUPPORT, 1, (report.id,))], [EXIF, report]) == ()


def test_metadata_attacks_a_contradicted_place_only() -> None:
    meta = arg("where", Stance.ATTACK, 1, (EXIF.id,))
    report = news("ev:sup:a", "A", "https://a.example.org/x")
    paris = arg(
        "where",
        Stance.SUPPORT,
        1,
        (report.id,),
        place("Paris", "Paris, France", 48.85341, 2.3488, "FR"),
    )
    (found,) = build([meta, paris], [EXIF, report])
    assert found.kind is RelationKind.METADATA_CONTRADICTION and found.dst == paris.id
    assert "Paris, France" in found.fact
    lyon = arg(
        "where", Stance.SUPPORT, 1, (report.id,), place("Lyon", "Lyon, France", 45.75, 4.85, "FR")
    )
    assert build([meta, lyon], [EXIF, report]) == ()
    # the GPS point lies in France, so a report naming France is not contradicted
    france = arg("where", Stance.SUPPORT, 1, (report.id,), place("France", "France", 46, 2, "FR"))
    assert build([meta, france], [EXIF, report]) == ()


def test_independent_trusted_sources_confirming_a_fact_support_each_other() -> None:
    a = news("ev:sup:a", "Example News", "https://news.example.org/a")
    b = news("ev:sup:b", "Other Daily", "https://daily.example.net/b")
    one = arg("when", Stance.SUPPORT, 1, (a.id,), day("2024-03-14"))
    two = arg("when", Stance.SUPPORT, 2, (b.id,), day("2024-03-14"))
    (found,) = build([one, two], [a, b])
    assert found.kind is RelationKind.CORROBORATION and found.mutual
    assert (found.id, found.src, found.dst) == ("rel:when:conf:1", one.id, two.id)
    # not independent: the same publisher, or the same web host
    same = news("ev:sup:c", "Example News", "https://elsewhere.example.com/c")
    host = news("ev:sup:d", "Someone", "https://www.news.example.org/d")
    for item in (same, host):
        other = arg("when", Stance.SUPPORT, 2, (item.id,), day("2024-03-14"))
        assert build([one, other], [a, item]) == ()
    # not trusted: below relations.trusted_reliability
    weak = news("ev:sup:e", "Blog", "https://blog.example.com/e", reliability=0.5)
    assert (
        build([one, arg("when", Stance.SUPPORT, 2, (weak.id,), day("2024-03-14"))], [a, weak]) == ()
    )
    # not the same fact, or not the same stance
    assert build([one, arg("when", Stance.SUPPORT, 2, (b.id,), day("2024-03-15"))], [a, b]) == ()
    assert build([one, arg("when", Stance.ATTACK, 2, (b.id,), day("2024-03-14"))], [a, b]) == ()


def test_relations_are_deterministic_numbered_and_can_be_disabled() -> None:
    a = news("ev:sup:a", "Example News", "https://news.example.org/a")
    b = news("ev:sup:b", "Other Daily", "https://daily.example.net/b")
    args = [
        arg("when", Stance.ATTACK, 1, (EXIF.id,), day("2019-06-01")),
        arg("when", Stance.SUPPORT, 1, (a.id,), day("2024-03-14")),
        arg("when", Stance.SUPPORT, 2, (b.id,), day("2024-03-14")),
    ]
    first = build(args, [EXIF, a, b])
    assert [r.id for r in first] == ["rel:when:meta:1", "rel:when:meta:2", "rel:when:conf:1"]
    assert build(args, [EXIF, a, b]) == first
    off = RelationsConfig(enabled=False)
    assert build_relations(CLAIM, args, [EXIF, a, b], config=off, capture=CAPTURE) == ()
