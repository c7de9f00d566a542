"""Argument-to-argument relations end to end (A-QBAF MV2026 §2.5): one small case folder per
relation kind run through the whole stage graph, the relation in the solved QBAF, the report
and the web graph, and a reviewer's rejection of a relation recomputing only its subclaim."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from semv._api import load_cases
from semv.agents.offline import OfflineAgents
from semv.cli import app
from semv.config import RelationsConfig, Settings
from semv.contest import contest, load_state
from semv.errors import ContestError
from semv.model import Accept, Arguments, Escalated, Reject, RelationKind, Result, Stance
from semv.pipeline import run_case
from semv.store import Store
from semv.web._svg import graph_svg
from semv.web._views import argument_graphs
from tests.conftest import ROOT
from tests.paper_reasoning import claim_score
from tests.scripted_agents import ScriptedAgents

PHOTO = ROOT / "examples" / "lyon-flood" / "photo.jpg"
"""A camera JPEG whose EXIF says 2019-06-01 14:32 at GPS 45.7629 N 4.8311 E (Lyon)."""
ON = Settings()
OFF = Settings(relations=RelationsConfig(enabled=False))
CLAIM = "Flooding in Paris on 14 March 2024: the Seine has burst its banks near the Île de la Cité."


def news(
    ev_id: str, publisher: str, host: str, text: str, source_type: str = "news"
) -> dict[str, object]:
    return {
        "id": ev_id,
        "url": f"https://{host}/2024/03/14/{ev_id}",
        "title": f"{publisher}: the Seine floods Paris",
        "publisher": publisher,
        "published": "2024-03-14",
        "source_type": source_type,
        "reliability": 0.75,
        "text": text,
    }


def write_case(folder: Path, case_id: str, evidence: list[dict[str, object]], photo: bool) -> Path:
    folder.mkdir(parents=True)
    case: dict[str, object] = {
        "id": case_id,
        "claim": CLAIM,
        "context": {"date": "2024-03-14", "location": "Paris, France", "language": "en"},
        "evidence": evidence,
    }
    if photo:
        shutil.copy(PHOTO, folder / "photo.jpg")
        case["media"] = [{"path": "photo.jpg", "role": "primary"}]
    (folder / "case.yaml").write_text(yaml.safe_dump(case, allow_unicode=True), encoding="utf-8")
    return folder


def verify(folder: Path, root: Path, settings: Settings, agents: object = None) -> Result:
    store = Store(root / "store")
    contract, cases = load_cases(folder)
    out = asyncio.run(
        run_case(
            cases[0].case,
            store=store,
            settings=settings,
            agents=agents or OfflineAgents(settings),  # type: ignore[arg-type]
            contract=contract,
            reports_dir=root / "reports",
        )
    )
    store.close()
    return out.result


def final(root: Path, run: str, dim: str) -> Escalated:
    store = Store(root / "store")
    try:
        return Escalated.model_validate_json(store.node_value_json(run, f"escalate:{dim}"))
    finally:
        store.close()


def report(root: Path, run: str) -> str:
    return (root / "reports" / run / "report.md").read_text(encoding="utf-8")


def svg(root: Path, run: str, dim: str) -> str:
    store = Store(root / "store")
    try:
        graph = next(g for g in argument_graphs(store, run) if g.dimension == dim)
        return str(graph_svg(graph))
    finally:
        store.close()


# ---- (b) metadata contradiction: EXIF against a reported date and place ---------------------

REPORT_TEXT = (
    "Days of heavy rain pushed the Seine above its banks in Paris on 14 March 2024; "
    "riverside roads near the Île de la Cité were closed."
)


@pytest.fixture(scope="module")
def metadata_case(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    base = tmp_path_factory.mktemp("relations-meta")
    folder = write_case(
        base / "case",
        "paris-flood-exif",
        # a fact-check (it refers to this media): a report of the event only would be
        # outranked by the contradicting EXIF and enter with weight 0, relation or not
        [news("news-one", "Example News", "news.example.org", REPORT_TEXT, "fact-check")],
        photo=True,
    )
    on = verify(folder, base / "on", ON)
    off = verify(folder, base / "off", OFF)
    # the JSON result lists a subclaim's relations; a star subclaim has no such key
    when = next(s for s in on.model_dump(mode="json")["subclaims"] if s["dimension"] == "when")
    assert [r["id"] for r in when["relations"]] == ["rel:when:meta:1"]
    assert all("relations" not in s for s in off.model_dump(mode="json")["subclaims"])
    return base, on.run_id, off.run_id


def test_exif_attacks_the_argument_reporting_a_contradicted_date_and_place(
    metadata_case: tuple[Path, str, str],
) -> None:
    base, on, off = metadata_case
    for dim in ("when", "where"):
        with_rel, star = final(base / "on", on, dim), final(base / "off", off, dim)
        (relation,) = with_rel.arguments.relations
        assert relation.kind is RelationKind.METADATA_CONTRADICTION
        assert relation.id == f"rel:{dim}:meta:1"
        by_id = {a.id: a for a in with_rel.arguments.arguments}
        assert relation.evidence == ("ev:exif:asset:1",)
        assert by_id[relation.src].evidence == ("ev:exif:asset:1",)
        target = by_id[relation.dst]
        assert target.stance is Stance.SUPPORT and target.evidence == ("ev:sup:news-one",)
        q = with_rel.solved.qbaf
        # the attacked argument loses strength, the metadata argument keeps its own
        assert q.strengths[target.id] < q.arguments[target.id]
        assert q.strengths[relation.src] == q.arguments[relation.src]
        # the claim moves against the contradicted report, relative to the star
        assert not star.arguments.relations
        assert q.arguments == star.solved.qbaf.arguments
        assert q.score < star.solved.qbaf.score
        assert any(e.relation == relation.id for e in q.edges)
        # the star's score is Eq. 17 of its weights; the related graph's is Eq. 17 of σ
        sq = star.solved.qbaf
        sups = [w for k, w in sq.arguments.items() if by_id[k].stance is Stance.SUPPORT]
        atts = [w for k, w in sq.arguments.items() if by_id[k].stance is Stance.ATTACK]
        assert sq.score == claim_score(sups, atts)
        assert q.score == claim_score([q.support_total], [q.attack_total])
    # the relations settings enter argue:k's fingerprint; a subclaim without relations keeps
    # its output, so its qbaf:k is the same node in both runs (early cut-off)
    nodes = {}
    for name, run in (("on", on), ("off", off)):
        store = Store(base / name / "store")
        nodes[name] = {n.key: n for n in store.run_nodes(run)}
        store.close()
    for dim in ("when", "what"):
        assert nodes["on"][f"argue:{dim}"].fingerprint != nodes["off"][f"argue:{dim}"].fingerprint
    assert nodes["on"]["argue:what"].output_hash == nodes["off"]["argue:what"].output_hash
    assert nodes["on"]["qbaf:what"].fingerprint == nodes["off"]["qbaf:what"].fingerprint
    assert nodes["on"]["argue:when"].output_hash != nodes["off"]["argue:when"].output_hash
    text = report(base / "on", on)
    assert "Relations between arguments" in text and "`rel:when:meta:1`" in text
    assert "contradicts the reported 2024-03-14" in text
    assert "Relations between arguments" not in report(base / "off", off)
    drawn = svg(base / "on", on, "when")
    assert 'data-relation="rel:when:meta:1"' in drawn and "marker-end" in drawn


def test_rejecting_a_relation_recomputes_only_its_subclaim(
    metadata_case: tuple[Path, str, str],
) -> None:
    base, on, off = metadata_case
    root = base / "on"
    rev = contest(
        on,
        [Reject(target="rel:when:meta:1", reason="the camera clock was never set")],
        data_dir=root / "store",
        settings=ON,
        reports_dir=root / "reports",
    )
    assert rev.plan.restart.value == "A" and rev.plan.subclaims == ("when",)
    assert rev.plan.actions[0].target_kind == "relation"
    assert set(rev.locality.executed) == {
        "argue:when",
        "qbaf:when",
        "escalate:when",
        "aggregate",
        "render",
    }
    assert rev.locality.value == 1.0 and rev.locality.changed_outside == ()
    store = Store(root / "store")
    parent = {n.key: n for n in store.run_nodes(on)}
    child = {n.key: n for n in store.run_nodes(rev.run_id)}
    for key, node in parent.items():
        if key.endswith((":where", ":what", ":who", ":why", ":authenticity")):
            assert child[key].output_hash == node.output_hash and child[key].reused, key
    after = load_state(store, rev.run_id).value("argue:when", Arguments)
    store.close()
    assert after.relations == ()
    assert [a.id for a in after.arguments] == [
        a.id for a in final(root, on, "when").arguments.arguments
    ]
    # without the relation the when graph is the star again: the score of the run without
    # relations
    revised = final(root, rev.run_id, "when").solved.qbaf
    assert revised.score == final(base / "off", off, "when").solved.qbaf.score
    assert "rel:where:meta:1" in {
        r.id for r in final(root, rev.run_id, "where").arguments.relations
    }
    # a relation can only be rejected
    with pytest.raises(ContestError, match="can only be rejected"):
        contest(
            on,
            [Accept(target="rel:where:meta:1", reason="looks right")],
            data_dir=root / "store",
            settings=ON,
            reports_dir=root / "reports",
        )


def test_accepting_an_argument_repropagates_with_its_relations(
    metadata_case: tuple[Path, str, str],
) -> None:
    base, on, _ = metadata_case
    root = base / "on"
    before = final(root, on, "when")
    (relation,) = before.arguments.relations
    rev = contest(
        on,
        [Accept(target=relation.dst, reason="the report is right")],
        data_dir=root / "store",
        settings=ON,
        reports_dir=root / "reports",
    )
    assert rev.plan.restart.value == "Q"
    q = final(root, rev.run_id, "when").solved.qbaf
    assert q.accepted == (relation.dst,)
    # the accepted argument gets its Eq. 14 strength back as τ, and the metadata attack
    # still acts on it: σ < τ, and ψ is Eq. 17 over the propagated totals
    assert q.arguments[relation.dst] > before.solved.qbaf.arguments[relation.dst]
    assert q.strengths[relation.dst] < q.arguments[relation.dst]
    assert any(e.relation == relation.id for e in q.edges)
    assert q.score == claim_score([q.support_total], [q.attack_total])


def test_the_cli_rejects_a_relation_and_suggests_relation_ids(
    metadata_case: tuple[Path, str, str],
) -> None:
    base, on, _ = metadata_case
    data = str(base / "on" / "store")
    runner = CliRunner()
    args = ["contest", on, "--reason", "clock", "--json", "--data-dir", data]
    result = runner.invoke(app, [*args, "--reject", "rel:where:meta:1"])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["plan"]["subclaims"] == ["where"]
    result = runner.invoke(app, [*args, "--reject", "rel:where:meta:9"])
    assert result.exit_code == 2
    assert "rel:where:meta:1" in result.stderr and "relations:" in result.stderr


# ---- (c) corroboration: two independent trusted reports of the same date --------------------


def test_independent_reports_of_the_same_date_support_each_other(tmp_path: Path) -> None:
    folder = write_case(
        tmp_path / "case",
        "paris-flood-two-reports",
        # fact-checks (they refer to this media): reports of the event only would stay within
        # the weak bands whatever their corroboration, so the scores could not differ
        [
            news("news-one", "Example News", "news.example.org", REPORT_TEXT, "fact-check"),
            news(
                "news-two",
                "Other Daily",
                "daily.example.net",
                "On 14 March 2024 the Seine overflowed in Paris after heavy rain, and the "
                "quays around the Île de la Cité went under water.",
                "fact-check",
            ),
        ],
        photo=False,
    )
    on = verify(folder, tmp_path / "on", ON).run_id
    off = verify(folder, tmp_path / "off", OFF).run_id
    with_rel, star = final(tmp_path / "on", on, "when"), final(tmp_path / "off", off, "when")
    conf = [r for r in with_rel.arguments.relations if r.kind is RelationKind.CORROBORATION]
    assert [r.id for r in conf] == ["rel:when:conf:1"]
    (relation,) = conf
    by_id = {a.id: a for a in with_rel.arguments.arguments}
    src, dst = by_id[relation.src], by_id[relation.dst]
    assert src.stance is dst.stance is Stance.SUPPORT
    assert {src.evidence, dst.evidence} == {("ev:sup:news-one",), ("ev:sup:news-two",)}
    assert "2024-03-14" in relation.fact
    q, sq = with_rel.solved.qbaf, star.solved.qbaf
    assert q.arguments == sq.arguments
    assert q.strengths[src.id] > q.arguments[src.id] and q.strengths[dst.id] > q.arguments[dst.id]
    assert q.score > sq.score
    assert {(e.src, e.dst) for e in q.edges if e.relation == relation.id} == {
        (src.id, dst.id),
        (dst.id, src.id),
    }
    assert "`rel:when:conf:1` (corroboration)" in report(tmp_path / "on", on)
    drawn = svg(tmp_path / "on", on, "when")
    assert 'data-relation="rel:when:conf:1"' in drawn and "marker-start" in drawn


# ---- (a) cue conflict: one visual cue read two ways ----------------------------------------


def test_opposite_readings_of_one_forensic_map_attack_each_other(tmp_path: Path) -> None:
    # the offline backend never reads one cue both ways, so a scripted backend argues here;
    # everything else (media extraction, ranking, relations, QBAF, report) is the real graph
    folder = write_case(tmp_path / "case", "paris-flood-cue", [], photo=True)
    cue = "ev:forensic:combined:asset:1"
    script = {
        "authenticity": [
            (Stance.SUPPORT, cue, "Combined forensic map"),
            (Stance.ATTACK, cue, "Combined forensic map"),
        ]
    }
    on = verify(folder, tmp_path / "on", ON, ScriptedAgents(script)).run_id
    off = verify(folder, tmp_path / "off", OFF, ScriptedAgents(script)).run_id
    with_rel = final(tmp_path / "on", on, "authenticity")
    star = final(tmp_path / "off", off, "authenticity")
    (relation,) = with_rel.arguments.relations
    assert relation.kind is RelationKind.CUE_CONFLICT and relation.evidence == (cue,)
    assert (relation.src, relation.dst) == ("arg:authenticity:sup:1", "arg:authenticity:att:1")
    q, sq = with_rel.solved.qbaf, star.solved.qbaf
    assert q.arguments == sq.arguments
    for arg_id in (relation.src, relation.dst):
        assert q.strengths[arg_id] < q.arguments[arg_id]
    # equal intrinsic strengths: the mutual attack cancels, the claim stays where the star is
    assert q.arguments[relation.src] == q.arguments[relation.dst]
    assert q.score == pytest.approx(sq.score, abs=1e-9)
    assert "`rel:authenticity:cue:1` (cue-conflict)" in report(tmp_path / "on", on)
