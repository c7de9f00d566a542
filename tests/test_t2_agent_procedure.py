"""T²-Agent as a procedure: tool selection, its offline tools on the example's real signals,
the end-to-end run (CLI, reports), determinism under a seed, and its model scorers."""

from __future__ import annotations

import asyncio
import json
import math
import re
from pathlib import Path
from typing import Any

from semv._api import load_cases
from semv.agents.llm import LlmAgents
from semv.agents.offline import OfflineAgents
from semv.config import BaselinesConfig, Settings
from semv.model import REMMD_L1, UncertaintyCode
from semv.pipeline import RunOutcome, run_case
from semv.procedures import Findings, procedure_names
from semv.procedures.t2_agent import case_seed, p_real, verdict_bin
from semv.procedures.t2_agent._stages import SearchOutcome, T2Labels
from semv.procedures.t2_agent._tools import select_tools
from semv.store import Store
from tests.baseline_helpers import EXAMPLE, llm_settings, role_name, verify_example
from tests.llm_server import Reply, ScriptedServer, competent, user_text

SETTINGS = Settings()


def test_tool_subset_selection() -> None:
    cfg = SETTINGS.baselines
    assert select_tools(cfg, web=False, context=False, integrity=False) == (
        "wikipedia",
        "image_understanding",
    )
    assert select_tools(cfg, web=True, context=True, integrity=True) == (
        "wikipedia",
        "image_understanding",
        "web_search",
        "entity",
        "counterfactual",
    )
    assert "entity" not in select_tools(cfg, web=True, context=False, integrity=True)


def _run(
    data_dir: Path,
    *,
    settings: Settings = SETTINGS,
    text_only: bool = False,
    agents: Any = None,
    contract: str = "remmd",
) -> RunOutcome:
    _, cases = load_cases(EXAMPLE, text_only=text_only)
    store = Store(data_dir)
    try:
        return asyncio.run(
            run_case(
                cases[0].case,
                store=store,
                settings=settings,
                agents=agents or OfflineAgents(settings),
                contract=contract,
                procedure="t2-agent",
            )
        )
    finally:
        store.close()


def _search(outcome: RunOutcome) -> SearchOutcome:
    value = outcome.nodes["t2:search"].value
    assert isinstance(value, SearchOutcome)
    return value


def test_registered() -> None:
    assert "t2-agent" in procedure_names()


def test_verify_example_with_the_t2_agent_procedure_writes_a_report(tmp_path: Path) -> None:
    report, markdown = verify_example("t2-agent", tmp_path / "d")
    assert [f["id"] for f in report["findings"]] == ["t2:text", "t2:image", "t2:match"]
    assert "(t2-agent)" in markdown


def test_the_example_search_reads_its_signals_and_the_labels_follow_p_real(
    data_dir: Path,
) -> None:
    outcome = _run(data_dir)
    search = _search(outcome)
    cfg = SETTINGS.baselines
    by = {s.name: s for s in search.subtasks}
    assert set(by) == {"text", "image", "match"}
    assert search.tools == ("wikipedia", "image_understanding", "entity", "counterfactual")
    # the photo's EXIF places it in Lyon in 2019: the match subtask answers MISMATCH from it
    match = by["match"]
    assert match.best_answer == "MISMATCH" and match.p_fake > 0.5
    assert any("ev:exif:asset:1" in r.evidence for r in match.trajectory)
    # p_real is the geometric mean of (1 - p_fake); L1 its bin; L2 the fallback rule
    expected = math.prod(1 - s.p_fake for s in search.subtasks) ** (1 / 3)
    assert abs(search.p_real - expected) < 1e-12
    result = outcome.result
    assert result.veracity == verdict_bin(search.p_real, cfg) and result.label in REMMD_L1
    assert "C1 Semantic Inconsistency" in result.distortions  # p_fake(match) >= 0.5
    labels = outcome.nodes["t2:labels"].value
    assert isinstance(labels, T2Labels) and labels.source == "fallback rule"
    assert search.simulations <= cfg.t2_simulations
    assert sum(s.visits for s in search.subtasks) == search.simulations
    findings = outcome.nodes["findings"].value
    assert isinstance(findings, Findings)
    assert [f.score for f in findings.items] == [s.p_fake for s in search.subtasks]


def test_the_search_is_deterministic_under_a_seed(tmp_path: Path) -> None:
    first = _search(_run(tmp_path / "a"))
    again = _search(_run(tmp_path / "b"))
    assert first == again
    assert first.seed == case_seed(SETTINGS.baselines.t2_seed, "lyon-flood")
    reseeded = SETTINGS.model_copy(update={"baselines": BaselinesConfig(t2_seed=5)})
    other = _search(_run(tmp_path / "c", settings=reseeded))
    assert other.seed != first.seed
    assert [s.name for s in other.subtasks] == [s.name for s in first.subtasks]


def test_a_text_only_post_searches_the_text_subtask_only(data_dir: Path) -> None:
    outcome = _run(data_dir, text_only=True, contract="internal")
    search = _search(outcome)
    assert [s.name for s in search.subtasks] == ["text"]
    assert "entity" not in search.tools and "counterfactual" not in search.tools
    text = search.subtasks[0]
    assert text.best_answer in ("TEXT_SUPPORT", "TEXT_REFUTE")
    assert all(r.action.split("[")[0] in ("Wikipedia", "Finish") for r in text.trajectory)
    assert search.p_real == p_real([text.p_fake])


# ---- the model variant -----------------------------------------------------------------------


def _script(broken_taxonomy: bool = False) -> Any:
    def script(role: str, body: dict[str, Any], _n: int) -> Reply:
        name = role_name(body, role)
        text = user_text(body)
        if name == "t2-score-trajectory":
            return Reply(json.dumps({"correctness_score": 7}))
        if name == "t2-score-confidence":
            # refuting answers are judged reliable, supporting ones not
            refute = re.search(r'answer "(TEXT_REFUTE|IMAGE_REFUTE|MISMATCH)"', text)
            return Reply(json.dumps({"reliability_score": 9 if refute else 3}))
        if name == "t2-taxonomy":
            if broken_taxonomy:
                return Reply(json.dumps({"labels": ["X9 Nonsense"], "rationale": "?"}))
            assert "Five-way verdict" in text and '<untrusted kind="post"' in text
            return Reply(
                json.dumps({"labels": ["C2 Contextual Inconsistency"], "rationale": "Lyon 2019."})
            )
        return Reply(json.dumps(competent(role, body)))

    return script


def test_the_model_scores_trajectories_and_classifies_the_taxonomy(data_dir: Path) -> None:
    with ScriptedServer(_script()) as server:
        settings = llm_settings(server.url)
        outcome = _run(data_dir, settings=settings, agents=LlmAgents(settings))
        names = {role_name(b, "?") for b in server.requests}
    assert {"t2-score-trajectory", "t2-score-confidence", "t2-taxonomy"} <= names
    search = _search(outcome)
    assert search.backend == "llm"
    for s in search.subtasks:  # every best confidence is a model score / t2_score_scale
        assert s.best_sc in (0.3, 0.9)
    assert outcome.result.distortions == ("C2 Contextual Inconsistency",)
    labels = outcome.nodes["t2:labels"].value
    assert isinstance(labels, T2Labels) and labels.source == "model"


def test_an_unusable_taxonomy_answer_takes_the_fallback_rule(data_dir: Path) -> None:
    with ScriptedServer(_script(broken_taxonomy=True)) as server:
        settings = llm_settings(server.url)
        outcome = _run(data_dir, settings=settings, agents=LlmAgents(settings))
    labels = outcome.nodes["t2:labels"].value
    assert isinstance(labels, T2Labels) and labels.source == "fallback rule"
    assert UncertaintyCode.MODEL_FALLBACK in {u.code for u in outcome.verdict.uncertainty}


def test_a_rejected_evidence_item_leaves_the_revised_search(data_dir: Path) -> None:
    from semv.contest import revise
    from semv.contest._state import load_state
    from semv.model import Reject

    _, cases = load_cases(EXAMPLE)
    store = Store(data_dir)
    first = asyncio.run(
        run_case(
            cases[0].case,
            store=store,
            settings=SETTINGS,
            agents=OfflineAgents(SETTINGS),
            contract="remmd",
            procedure="t2-agent",
        )
    )
    gone = "ev:exif:asset:1"  # the EXIF the match subtask rests on
    assert any(gone in r.evidence for s in _search(first).subtasks for r in s.trajectory)
    revision = asyncio.run(
        revise(
            store,
            first.result.run_id,
            [Reject(target=gone, reason="the camera clock and GPS are not trusted")],
            settings=SETTINGS,
            agents=OfflineAgents(SETTINGS),
        )
    )
    search = load_state(store, revision.run_id).value("t2:search", SearchOutcome)
    assert all(gone not in r.evidence for s in search.subtasks for r in s.trajectory)
