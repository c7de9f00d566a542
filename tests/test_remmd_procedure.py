"""The ReMMD procedure end to end on the shared machinery: the example case, the CLI, bank
reuse across points (counted), a reviewer's rejection re-running only the judge side, and the
LLM variant of each step (scripted server) with its fallbacks."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from semv._api import load_cases
from semv.agents.llm import LlmAgents
from semv.agents.offline import OfflineAgents
from semv.cli import app
from semv.config import BackendConfig, LlmConfig, Settings
from semv.graph import Executor
from semv.model import Case, Evidence, Modality, SourceType, TraceKind, UncertaintyCode
from semv.perception.paths import resolve_data_paths
from semv.pipeline import run_case
from semv.procedures import get_procedure, procedure_names
from semv.procedures.remmd._models import AtomicPoints, EvidenceBank
from semv.procedures.remmd.bank import build_bank
from semv.procedures.remmd.points import extract_points
from semv.store import Store
from tests.llm_server import Reply, ScriptedServer, role_of, user_text

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "lyon-flood"
CFG = Settings().remmd


def test_remmd_is_registered() -> None:
    assert "remmd" in procedure_names()
    assert get_procedure("remmd").verdict_node == "verdict"


def _run(data_dir: Path, case: Case, contract: str, **kw: Any) -> Any:
    settings = kw.pop("settings", Settings())
    store = Store(data_dir)
    return asyncio.run(
        run_case(
            case,
            store=store,
            settings=settings,
            agents=kw.pop("agents", OfflineAgents(settings)),
            contract=contract,
            procedure="remmd",
            **kw,
        )
    ), store


def test_the_example_case_binding_is_contradicted_by_the_photos_own_capture_time(
    data_dir: Path,
) -> None:
    contract, cases = load_cases(EXAMPLE)
    outcome, store = _run(data_dir, cases[0].case, contract)
    result = outcome.result
    assert result.procedure == "remmd"
    assert result.veracity == "Mostly False"
    assert result.label == "false-context"  # the example's internal contract
    assert result.distortions == ("T3 Misleading Context", "C2 Contextual Inconsistency")
    states = {s.dimension: s.decision for s in result.subclaims}
    assert states["narrative_level"] == "supported"
    assert states["cross_modal_binding"] == "contradicted"
    assert result.rationale is not None and "2019-06-01" in result.rationale
    markdown = Path(result.report_paths["markdown"]).read_text(encoding="utf-8")
    assert "**L1 veracity:** Mostly False" in markdown and "cross\\_modal\\_binding" in markdown
    bank = outcome.nodes["bank"].value
    assert isinstance(bank, EvidenceBank)
    # the bank is auditable: its stored value is the one the trace's node event names
    event = next(
        e
        for e in store.trace(result.run_id)
        if e.kind is TraceKind.NODE_EXECUTED and e.payload.get("stage") == "remmd-bank"
    )
    assert event.payload["output"] == outcome.nodes["bank"].output_hash


def test_the_cli_verifies_with_the_remmd_procedure(tmp_path: Path) -> None:
    out = CliRunner().invoke(
        app,
        ["verify", str(EXAMPLE), "--procedure", "remmd", "--data-dir", str(tmp_path / "d")],
    )
    assert out.exit_code == 0, out.output
    assert "L1 Mostly False" in out.output
    reports = list((tmp_path / "d" / "reports").glob("*/report.json"))
    assert len(reports) == 1
    report = json.loads(reports[0].read_text(encoding="utf-8"))
    assert report["format"] == "semv-labelled-report/1"


class _Source:
    """An evidence source over a fixed list (the EvidenceSource protocol), counting calls."""

    name = "fixed"
    mode = "offline"

    def __init__(self, items: list[Evidence]) -> None:
        self.items = items
        self.queries: list[str] = []

    def identity(self) -> str:
        return "fixed"

    def search(self, query: str, *, before: str | None = None, k: int = 5) -> list[Evidence]:
        self.queries.append(query)
        words = {w.lower() for w in re.findall(r"\w+", query)}
        return [
            e for e in self.items if words & {w.lower() for w in re.findall(r"\w+", e.content)}
        ][:k]


REPORT = Evidence(
    id="ev:doc:porto",
    source="Example News",
    source_type=SourceType.NEWS,
    modality=Modality.TEXT,
    content="Floods in Porto Alegre on 3 May 2024: the Guaíba river peaked at 5.3 metres and "
    "the mayor Sebastião Melo opened 12 shelters for residents.",
    reliability=0.7,
)


def test_one_retrieval_serves_two_points_and_is_counted() -> None:
    post = (
        "Floods hit Porto Alegre on 3 May 2024. "
        "The Guaíba river peaked at 5.3 metres. "
        "Mayor Sebastião Melo opened 12 shelters for residents."
    )
    points = extract_points(post, [], CFG, language="en", use_embeddings=False)
    source = _Source([REPORT])
    bank = asyncio.run(build_bank(points, (), [], CFG, sources=[source], use_embeddings=False))
    record = next(r for r in bank.records if r.evidence_id == REPORT.id)
    linked = {link.point for link in record.links}
    assert len(linked) >= 2  # one record in the R_j of several points
    fetchers = {p for c in bank.calls if REPORT.id in c.hits for p in c.points}
    assert linked - fetchers or len(fetchers) >= 1
    assert bank.records_reused >= 1
    assert bank.retrievals_reused >= 1
    assert bank.retrievals == len(source.queries)  # every call counted once
    # identical queries of two points are sent once
    twin = AtomicPoints(
        language="en",
        post_summary=points.post_summary,
        points=(points.points[0], points.points[0].model_copy(update={"id": "a9"})),
        candidates=2,
        merged=0,
        dropped=0,
    )
    again = _Source([REPORT])
    shared = asyncio.run(build_bank(twin, (), [], CFG, sources=[again], use_embeddings=False))
    assert shared.queries_shared == 1 and len(again.queries) == shared.retrievals == 1
    assert shared.calls[0].points == ("a1", "a9")


def test_a_rejected_record_reruns_only_the_judge_side(data_dir: Path) -> None:
    contract, cases = load_cases(EXAMPLE)
    case = cases[0].case
    settings = Settings()
    store = Store(data_dir)
    procedure = get_procedure("remmd")
    first = asyncio.run(
        run_case(
            case,
            store=store,
            settings=settings,
            agents=OfflineAgents(settings),
            contract=contract,
            procedure="remmd",
        )
    )
    assert first.result.veracity == "Mostly False"
    # the reviewer rejects the EXIF record and the fact-check for the binding point
    specs = procedure.graph(
        case, contract=contract, rejected={"a2": ["ev:exif:asset:1", "ev:sup:factcheck-lyon-2019"]}
    )
    run_id = store.create_run(
        case_id=case.id, adapter=case.adapter, settings_hash="x", agents="offline"
    )
    resolved = resolve_data_paths(settings, store.data_dir)  # as run_case resolves them
    executor = Executor(store, resolved, OfflineAgents(resolved), run_id=run_id)
    nodes = asyncio.run(executor.run(specs, {"case": case}))
    reused = {k for k, n in nodes.items() if n.reused}
    rerun = {k for k, n in nodes.items() if not n.reused}
    assert {"bundle", "points", "bank", "media:asset:1", "describe:asset:1"} <= reused
    assert rerun == {"judge", "veracity", "diagnosis", "findings", "verdict", "render"}
    verdict = nodes["verdict"].value
    assert verdict.veracity == "True"  # without the two records the binding is unverified


# ---- the LLM variant ------------------------------------------------------------------


def _llm_settings(url: str) -> Settings:
    return Settings().model_copy(
        update={
            "agents": BackendConfig(backend="llm"),
            "llm": LlmConfig(url=url, model="scripted", retries=0, timeout_s=5.0, backoff_s=0.01),
        }
    )


_POINT = re.compile(r'<untrusted kind="point" id="(a\d+)">')
_EVIDENCE = re.compile(r'<untrusted kind="evidence" id="([^"]+)">')


def _remmd_script(role: str, body: dict[str, Any], _n: int) -> Reply:
    text = user_text(body)
    if role == "remmd_points":
        return Reply(
            json.dumps(
                {
                    "post_summary": "Flooding in Paris.",
                    "points": [
                        {
                            "text": "The Seine burst its banks in Paris on 14 March 2024.",
                            "type": "narrative_level",
                            "role": "event",
                            "central": True,
                            "query": "Seine Paris flood March 2024",
                            "bridge_query": None,
                        },
                        {
                            "text": "The photo shows the quays near the Île de la Cité.",
                            "type": "cross_modal_binding",
                            "role": "event",
                            "central": True,
                            "query": "Île de la Cité quays photo",
                            "bridge_query": None,
                        },
                    ],
                }
            )
        )
    if role == "remmd_judge":
        findings = []
        for block in text.split("Point ")[1:]:
            pid = _POINT.search(block)
            ids = _EVIDENCE.findall(block)
            if pid is None:
                continue
            cited = ids[0] if pid.group(1) == "a1" and ids else "ev:made-up"
            findings.append(
                {"point": pid.group(1), "status": "contradicted", "evidence_id": cited, "note": "x"}
            )
        return Reply(json.dumps({"findings": findings}))
    if role == "remmd_veracity":
        return Reply(json.dumps({"level1_verdict": "Mostly False", "reason": "binding"}))
    if role == "remmd_diagnosis":
        return Reply(json.dumps({"level2_taxonomy": ["C2", "Z9 Nonsense"], "reason": "r"}))
    if role == "remmd_rationale":
        return Reply("not json at all")  # unusable twice: the offline L3 is kept
    return Reply(json.dumps({}), status=500)


def test_each_step_asks_the_model_and_falls_back_per_step(data_dir: Path) -> None:
    contract, cases = load_cases(EXAMPLE, text_only=True)
    with ScriptedServer(_remmd_script) as server:
        settings = _llm_settings(server.url)
        store = Store(data_dir)
        agents = LlmAgents(settings, store=store)
        outcome = asyncio.run(
            run_case(
                cases[0].case,
                store=store,
                settings=settings,
                agents=agents,
                contract=contract,
                procedure="remmd",
            )
        )
        roles = [role_of(r) for r in server.requests]
        requests = list(server.requests)
    result = outcome.result
    for step in ("points", "judge", "veracity", "diagnosis", "rationale"):
        assert f"remmd_{step}" in roles
    assert roles.count("remmd_rationale") == 2  # one repair, then the fallback
    assert result.veracity == "Mostly False"
    assert result.distortions == ("C2 Contextual Inconsistency",)  # unknown labels dropped
    states = {s.id: s.decision for s in result.subclaims}
    assert states["a1"] == "contradicted"
    assert states["a2"] == "unverified"  # cited an id it was not shown: fails closed
    assert result.rationale is not None and result.rationale.startswith("Verdict: Mostly False.")
    assert UncertaintyCode.MODEL_FALLBACK.value in {u.code for u in result.uncertainty}
    assert result.usage is not None and result.usage.roles["remmd_points"].calls == 1
    # the post is quoted as data, never as instructions
    first = next(r for r in requests if role_of(r) == "remmd_points")
    assert '<untrusted kind="post"' in user_text(first)


def test_an_unreachable_model_leaves_the_offline_procedure(data_dir: Path) -> None:
    contract, cases = load_cases(EXAMPLE, text_only=True)
    settings = _llm_settings("http://127.0.0.1:9/v1")
    store = Store(data_dir)
    outcome = asyncio.run(
        run_case(
            cases[0].case,
            store=store,
            settings=settings,
            agents=LlmAgents(settings, store=store),
            contract=contract,
            procedure="remmd",
        )
    )
    result = outcome.result
    assert result.veracity in ("True", "Mostly True", "Mixture", "Mostly False", "False")
    assert UncertaintyCode.MODEL_FALLBACK.value in {u.code for u in result.uncertainty}


@pytest.mark.parametrize("sample", ["426", "140"])
def test_a_showcase_article_runs_end_to_end(data_dir: Path, sample: str) -> None:
    from tests.conftest import shared_data

    folder = shared_data("remmd-showcase")
    from semv.adapters import RemmdAdapter

    loaded = next(c for c in RemmdAdapter().load(folder) if c.case.id == sample)
    outcome, _store = _run(data_dir, loaded.case, "remmd")
    result = outcome.result
    assert result.label == result.veracity
    assert 1 <= len(result.subclaims) <= 12
    assert Path(result.report_paths["html"]).is_file()


def test_semv_revise_a_remmd_run_rejecting_records_and_a_point(data_dir: Path) -> None:
    """Module E on ReMMD: rejected records and a rejected point enter only the judge node."""
    from semv.contest import revise
    from semv.model import Reject

    contract, cases = load_cases(EXAMPLE)
    settings = Settings()
    outcome, store = _run(data_dir, cases[0].case, contract, settings=settings)
    parent = outcome.result
    actions = [
        Reject(target="ev:exif:asset:1", reason="the camera clock was never set"),
        Reject(target="ev:sup:factcheck-lyon-2019", reason="the fact-check names another photo"),
    ]
    revision = asyncio.run(
        revise(store, parent.run_id, actions, settings=settings, agents=OfflineAgents(settings))
    )
    child = revision.result
    assert child.procedure == "remmd"
    assert (parent.veracity, child.veracity) == ("Mostly False", "True")
    nodes = {n.key: n.reused for n in store.run_nodes(child.run_id)}
    assert nodes["points"] and nodes["bank"] and nodes["media:asset:1"]
    assert not nodes["judge"] and not nodes["verdict"]
    markdown = Path(child.report_paths["markdown"]).read_text(encoding="utf-8")
    assert "the camera clock was never set" in markdown  # the contestation log
    again = asyncio.run(
        revise(
            store,
            child.run_id,
            [Reject(target="a1", reason="the narrative point is not what the post claims")],
            settings=settings,
            agents=OfflineAgents(settings),
        )
    )
    states = {s.id: s.decision for s in again.result.subclaims}
    assert states == {"a1": "rejected", "a2": "unverified", "a3": "supported"}
    assert again.result.veracity == "Mixture"  # no central point left with evidence
