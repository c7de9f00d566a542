"""`semv eval remmd`: the published-runs loader, native 5-way scoring, the cost table."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from semv import _api
from semv.adapters import get_adapter
from semv.config import Settings
from semv.errors import GoldAccessError, InputError
from semv.eval import get_task, read_predictions
from semv.eval._cost import case_cost, cost_summary, cost_table, retrieval_counts
from semv.graph import NodeOutcome
from semv.model import (
    Evidence,
    Modality,
    QueryRecord,
    RankedEvidence,
    Retrieved,
    RunStatus,
    SourceType,
)
from semv.stages.bundle import normalize_supplied
from semv.store import Store
from tests.conftest import shared_data

RUNS = ("remmd-agent-runs", "qwen3.5-9b")


def _result_json(
    sample_id: str,
    *,
    verdict: str = "Mostly False",
    l2: list[str] | None = None,
    sentences: list[str] | None = None,
    evidence: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    return {
        "sample_id": sample_id,
        "status": "ok",
        "language_code": "fr",
        "image_names": ["01_img_1.jpg"],
        "gold": {
            "verdict": verdict,
            "distortion_taxonomy": ["T2 Distortion", "C1 Semantic Inconsistency"]
            if l2 is None
            else l2,
            "rationale": "La date est fausse.",
        },
        "atomic_points": {
            "sentence_level": [
                {"sentence_index": n, "sentence_text": text, "atoms": []}
                for n, text in enumerate(
                    sentences
                    if sentences is not None
                    else ["Paris, le 3 mars.", "Le maire a annoncé un plan."],
                    start=1,
                )
            ]
        },
        "retrieved_evidence": evidence
        if evidence is not None
        else [
            {
                "evidence_id": "src_9_1",
                "evidence_type": "fact_brief",
                "score": 0.9,
                "matched_atomic_idx": 0,
                "text": "Paris, 04.03.2026: Le maire a présenté son plan.",
            },
            {
                "evidence_id": "news_9_2",
                "evidence_type": "news_snippet",
                "score": 0.7,
                "matched_atomic_idx": 1,
                "text": "Le plan du maire, annoncé le 4 mars 2026, vise les transports.",
            },
        ],
        "judge": {
            "level1_verdict": "Mixture",
            "level2_taxonomy": ["T2"],
            "core_claim": "Le maire annonce un plan.",
            "key_subclaims": ["Le plan a été annoncé le 3 mars."],
        },
        "timings": {"total_s": 12.5},
        "atomic_usage": {"prompt_tokens": 100, "completion_tokens": 20},
        "judge_usage": {"prompt_tokens": 50, "completion_tokens": 5},
        "atom_queries": ["q1", "q2", "q3"],
    }


def _write_runs(root: Path, *results: dict[str, Any]) -> Path:
    for data in results:
        folder = root / "samples" / str(data["sample_id"])
        folder.mkdir(parents=True)
        (folder / "result.json").write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    return root


def _load(path: Path, **kwargs: Any) -> list[Any]:
    return list(get_adapter("remmd").load(path, text_only=True, **kwargs))


# ---- the loader ---------------------------------------------------------------------------


def test_retrieved_evidence_becomes_supplied_evidence_with_provenance(tmp_path: Path) -> None:
    runs = _write_runs(tmp_path / "runs", _result_json("009"))
    [loaded] = _load(runs)
    case = loaded.case
    assert case.id == "009"
    assert case.claim == "Paris, le 3 mars. Le maire a annoncé un plan."
    assert case.context.language == "fr"
    assert [a.loaded for a in case.media] == [False]  # text-only: image named, not read
    brief, news = case.evidence
    assert (brief.id, brief.publisher, brief.title) == (
        "src_9_1",
        "ReMMD-Agent retrieval: fact_brief",
        "fact_brief src_9_1",
    )
    assert brief.published == "2026-03-04"  # the dateline
    assert brief.source_type is SourceType.SUPPLIED
    assert news.source_type is SourceType.NEWS
    assert news.published is None  # a date inside the text is the event's, not a dateline
    # normalized by the bundle stage: the source descriptor and the case file are provenance
    normalized = normalize_supplied(case, brief, 1, Settings().sources)
    assert normalized.id == "ev:sup:src_9_1"
    assert normalized.source == "ReMMD-Agent retrieval: fact_brief"
    assert normalized.published == "2026-03-04"
    assert normalized.provenance is not None
    assert normalized.provenance.agent.endswith("samples/009/result.json")


def test_gold_is_sealed_until_the_run_is_committed(tmp_path: Path) -> None:
    runs = _write_runs(tmp_path / "runs", _result_json("009", l2=["t2", "C1"]))
    [loaded] = _load(runs)
    assert "Mostly False" not in repr(loaded.gold)
    assert "Mostly False" not in loaded.case.model_dump_json()  # nothing of gold in the case
    assert "Mixture" not in loaded.case.model_dump_json()  # nor the agent's own verdict
    with pytest.raises(GoldAccessError, match=r"result\.json"):
        loaded.gold.reveal(RunStatus.RUNNING)
    assert loaded.gold.reveal(RunStatus.COMMITTED) == "Mostly False"
    assert loaded.gold.reveal_details(RunStatus.COMMITTED) == {
        "l2": ["T2 Distortion", "C1 Semantic Inconsistency"]
    }


def test_claim_falls_back_to_the_agents_restatement(tmp_path: Path) -> None:
    runs = _write_runs(tmp_path / "runs", _result_json("009", sentences=[]))
    [loaded] = _load(runs)
    assert loaded.case.claim == "Le maire annonce un plan. Le plan a été annoncé le 3 mars."


@pytest.mark.parametrize(
    ("break_it", "message"),
    [
        (lambda f: f.write_text("{not json", "utf-8"), r"result\.json: invalid JSON at line 1"),
        (lambda f: f.write_text("[1, 2]", "utf-8"), r"result\.json: expected a JSON object"),
        (
            lambda f: _rewrite(f, retrieved_evidence={"a": 1}),
            r"result\.json: retrieved_evidence must be a list",
        ),
        (
            lambda f: _rewrite(f, retrieved_evidence=[{"evidence_id": "x", "text": "t"}]),
            r"result\.json: retrieved_evidence\[0\]: evidence_type must be",
        ),
        (
            lambda f: _rewrite(f, gold={"verdict": "Half True", "distortion_taxonomy": []}),
            r"result\.json: gold.verdict 'Half True' is not an L1 label",
        ),
        (
            lambda f: _rewrite(f, gold={"verdict": "True", "distortion_taxonomy": ["X9"]}),
            r"result\.json: gold.distortion_taxonomy: unknown L2 label 'X9'",
        ),
        (
            lambda f: _rewrite(f, atomic_points={"sentence_level": []}, judge={"core_claim": ""}),
            r"result\.json: no text for the claim",
        ),
    ],
)
def test_malformed_result_file_is_named_in_the_error(
    tmp_path: Path, break_it: Any, message: str
) -> None:
    runs = _write_runs(tmp_path / "runs", _result_json("001"), _result_json("002"))
    bad = runs / "samples" / "002" / "result.json"
    break_it(bad)
    with pytest.raises(InputError, match=message) as info:
        _load(runs)
    assert str(bad) in str(info.value)


def _rewrite(file: Path, **changes: Any) -> None:
    data = json.loads(file.read_text("utf-8"))
    data.update(changes)
    file.write_text(json.dumps(data), "utf-8")


def test_published_runs_need_text_only(tmp_path: Path) -> None:
    runs = _write_runs(tmp_path / "runs", _result_json("001"))
    with pytest.raises(InputError, match=r"hold no image files.*--text-only"):
        list(get_adapter("remmd").load(runs))


def test_the_500_published_runs_load_with_their_evidence() -> None:
    path = shared_data(*RUNS)
    cases = _load(path)
    assert len(cases) == 500
    first = json.loads((path / "samples" / "001" / "result.json").read_text("utf-8"))
    case = cases[0].case
    assert [e.id for e in case.evidence] == [e["evidence_id"] for e in first["retrieved_evidence"]]
    assert case.claim.startswith(first["atomic_points"]["sentence_level"][0]["sentence_text"])
    assert len(case.media) == len(first["image_names"])
    assert sum(len(c.case.evidence) for c in cases) == 7592
    assert cases[0].gold.reveal(RunStatus.COMMITTED) == first["gold"]["verdict"]
    assert _load(path, limit=3)[-1].case.id == "003"


# ---- scoring ------------------------------------------------------------------------------


def _record(i: int, pred: tuple[str | None, list[str]], gold: tuple[str, list[str]]) -> Any:
    return {
        "index": i,
        "case_id": str(i),
        "status": "committed",
        "prediction": {"l1": pred[0], "l2": pred[1], "native": pred[0] is not None},
        "gold": {"l1": gold[0], "l2": gold[1]},
    }


def test_native_five_way_results_are_scored_on_their_own_labels() -> None:
    records = [
        _record(0, ("Mixture", ["T3 Misleading Context"]), ("Mixture", ["T3 Misleading Context"])),
        _record(1, ("False", ["T1 Fabrication"]), ("Mostly False", ["T1 Fabrication"])),
        _record(2, ("True", []), ("True", [])),
        _record(3, (None, []), ("False", ["V1 Synthetic Visual Content"])),
    ]
    m = get_task("remmd").score(records, Settings().eval)
    assert m["native"] == 3
    assert m["abstained"] == 1
    assert m["level1"]["accuracy"] == pytest.approx(2 / 4)
    # L1 per class over the 5 labels: True 1/1, Mixture 1/1, Mostly False 0 (FN), False 0
    # (1 FP, 1 FN), Mostly True absent from both (F1 0 by the authors' convention).
    assert m["level1"]["macro_f1"] == pytest.approx((1 + 0 + 1 + 0 + 0) / 5)
    assert m["level2"]["subset_accuracy"] == pytest.approx(3 / 4)


def test_published_numbers_match_the_published_runs() -> None:
    path = shared_data(*RUNS)
    published = json.loads((path / "metrics" / "metrics.json").read_text("utf-8"))
    found = read_predictions(path, "remmd-results")
    m = get_task("remmd").score(found.records, Settings().eval)
    config = Settings().remmd_eval
    assert m["level1"]["accuracy"] == pytest.approx(config.published_l1_accuracy, abs=5e-5)
    assert m["level1"]["macro_f1"] == pytest.approx(config.published_l1_macro_f1, abs=5e-5)
    assert m["level2"]["macro_f1"] == pytest.approx(config.published_l2_macro_f1, abs=5e-5)
    assert m["level2"]["subset_accuracy"] == pytest.approx(
        config.published_l2_exact_match, abs=5e-5
    )
    assert json.dumps(published)  # the authors' file is there and parses
    text = (path / "metrics" / "summary.txt").read_text("utf-8")
    for value in ("37.20%", "37.18%", "46.97%", "10.00%"):
        assert value in text


# ---- cost accounting ----------------------------------------------------------------------


def _ev(i: str) -> Evidence:
    return Evidence(
        id=f"ev:{i}",
        source="s",
        source_type=SourceType.NEWS,
        modality=Modality.TEXT,
        content=i,
        reliability=0.5,
    )


def _node(key: str, value: Any) -> NodeOutcome:
    return NodeOutcome(key, "stage", "f", "h", value, False, 0.1)


def test_semv_retrievals_and_evidence_serving_two_subclaims() -> None:
    query = QueryRecord(id="src:who:1", source="corpus", query="q", mode="offline")
    nodes = {
        "retrieve:who": _node(
            "retrieve:who", Retrieved(subclaim="who", evidence=(), queries=(query,))
        ),
        "retrieve:when": _node("retrieve:when", Retrieved(subclaim="when", evidence=())),
        "validate:who": _node(
            "validate:who",
            RankedEvidence(subclaim="who", evidence=(_ev("a"), _ev("b")), scores={}),
        ),
        "validate:when": _node(
            "validate:when",
            RankedEvidence(subclaim="when", evidence=(_ev("a"), _ev("c")), scores={}),
        ),
    }
    # two look-ups plus one external query; ev:a serves two subclaims
    assert retrieval_counts(nodes) == (3, 1)


def test_a_procedure_declares_its_bank_counts() -> None:
    from pydantic import BaseModel

    class Bank(BaseModel):
        retrievals: int
        retrievals_reused: int

    nodes = {
        "bank": _node("bank", Bank(retrievals=7, retrievals_reused=2)),
        "validate:who": _node(
            "validate:who", RankedEvidence(subclaim="who", evidence=(_ev("a"),), scores={})
        ),
    }
    assert retrieval_counts(nodes) == (7, 2)  # declared counts win over the generic count


def test_cost_summary_and_table() -> None:
    records = [
        {
            "case_id": "1",
            "cost": {
                "calls": 4,
                "prompt_tokens": 100,
                "completion_tokens": 20,
                "wall_s": 2.0,
                "retrievals": 6,
                "retrievals_reused": 1,
            },
        },
        {
            "case_id": "2",
            "cost": {
                "calls": 2,
                "prompt_tokens": 50,
                "completion_tokens": 10,
                "wall_s": 4.0,
                "retrievals": 4,
                "retrievals_reused": 3,
            },
        },
        {"case_id": "3", "status": "failed"},  # no cost: not counted
    ]
    s = cost_summary(records)
    assert s["cases"] == 2
    assert s["calls"] == 3.0
    assert s["tokens"] == 90.0
    assert s["wall_s"] == 3.0
    assert (s["retrievals_total"], s["retrievals_reused_total"]) == (10, 4)
    published = cost_summary(read_like_published())
    assert published["calls"] is None and published["tokens"] == 175.0
    table = cost_table({"semv": s, "ReMMD-Agent (published)": published}, backend="offline")
    rows = [line for line in table.splitlines() if line.startswith("| ")]
    # prompt and completion tokens apart; no configured price: –
    assert rows[1] == "| semv | 2 | 3.0 | 90 | 75 | 15 | – | 3.00 | 5.0 | 2.0 | 10 | 4 |"
    assert (
        rows[2]
        == "| ReMMD-Agent (published) | 1 | – | 175 | 150 | 25 | – | 12.50 | 3.0 | – | 3 | – |"
    )


def read_like_published() -> list[dict[str, Any]]:
    from semv.eval._predictions import _published_cost

    return [{"case_id": "9", "cost": _published_cost(_result_json("9"))}]


def test_case_cost_without_a_ledger_is_zero_calls_and_the_clock() -> None:
    from tests.test_eval_datasets import _result

    cost = case_cost(_result("verified", {}), {}, 1.23456)
    assert cost == {
        "calls": 0,
        "cached": 0,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "wall_s": 1.235,
        "retrievals": 0,
        "retrievals_reused": 0,
    }


# ---- `semv eval remmd --procedure ...` ----------------------------------------------------


def test_sample_evenly_spreads_over_the_dataset() -> None:
    from semv.eval._harness import sample_evenly

    assert sample_evenly(list(range(10)), 4) == [0, 2, 5, 7]  # type: ignore[arg-type]
    assert sample_evenly(list(range(3)), 5) == [0, 1, 2]  # type: ignore[arg-type]
    with pytest.raises(InputError, match="--sample must be positive"):
        sample_evenly([], 0)


def _two_sample_runs(root: Path) -> Path:
    contradicted = _result_json(
        "001",
        verdict="Mostly False",
        l2=["T3"],
        sentences=["Le maire annonce un plan."],
        evidence=[
            {
                "evidence_id": "fc_1_1",
                "evidence_type": "fact_check",
                "score": 0.9,
                "matched_atomic_idx": 0,
                "text": "Le maire n'a rien dit: not plan, not maire.",
            }
        ],
    )
    mixture = _result_json("002", verdict="Mixture", l2=[], sentences=["Il pleut à Lyon."])
    return _write_runs(root, contradicted, mixture)


def test_eval_remmd_runs_every_procedure_and_writes_the_comparison(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import semv.procedures as procedures
    from tests.test_eval_datasets import semv
    from tests.test_procedures import TOY

    monkeypatch.setattr(procedures, "_ALL", (procedures.SEMV, TOY))
    runs = _two_sample_runs(tmp_path / "runs")
    out = tmp_path / "out"
    args = ["eval", "remmd", str(runs), "--text-only", "--procedures", "all", "--out", str(out)]
    code, stdout, stderr = semv(*args, "--data-dir", str(tmp_path / "store"))
    assert code == 0, stderr
    for name in ("semv", "toy"):
        config = json.loads((out / name / "config.json").read_text("utf-8"))
        assert config["procedure"] == name
        assert (out / name / "store").is_dir()  # each procedure its own store
        lines = [json.loads(x) for x in (out / name / "results.jsonl").read_text().splitlines()]
        assert [r["procedure"] for r in lines] == [name, name]
        assert all(r["cost"]["calls"] == 0 for r in lines)  # offline: no model calls
    toy = [json.loads(x) for x in (out / "toy" / "results.jsonl").read_text().splitlines()]
    # the toy's own 5-way labels are scored, not its internal label mapped
    assert [(r["prediction"]["l1"], r["prediction"]["native"]) for r in toy] == [
        ("Mostly False", True),
        ("Mixture", True),
    ]
    comparison = json.loads((out / "comparison.json").read_text("utf-8"))
    assert comparison["comparison"]["toy"]["l1_accuracy"] == 1.0
    assert comparison["comparison"]["toy"]["l2_exact_match"] == 1.0
    assert comparison["comparison"]["toy"]["native"] == 2
    assert comparison["comparison"]["semv"]["native"] == 0
    # the authors' own predictions (Mixture for both) scored on the same two cases
    published = comparison["comparison"]["ReMMD-Agent (published, these 2 cases)"]
    assert (published["n"], published["l1_accuracy"]) == (2, 0.5)
    table = (out / "comparison.md").read_text("utf-8")
    assert "| toy | 2/2 | 100.00 |" in table
    assert "| ReMMD-Agent (Qwen3.5-9B, published) | 500/500 | 37.20 | 37.18 | 46.97 | 10.00 |" in (
        table
    )
    cost = (out / "cost.md").read_text("utf-8")
    assert "| semv | 2 | 0.0 | 0 |" in cost and "| toy | 2 | 0.0 | 0 |" in cost
    # the published runs' own cost row (tokens 100+20+50+5 per sample, 12.5 s, 3 queries)
    published = (
        "| ReMMD-Agent (published run files) | 2 | – | 175 | 150 | 25 | – | 12.50 | 3.0 | – | "
        "6 | – |"
    )
    assert published in cost
    assert "## Cost per procedure" in stdout
    # resumable: a second call with --resume runs nothing new and scores the same
    code, _, stderr = semv(*args, "--resume", "--data-dir", str(tmp_path / "store"))
    assert code == 0, stderr
    again = json.loads((out / "comparison.json").read_text("utf-8"))
    assert again["comparison"] == comparison["comparison"]
    assert len((out / "toy" / "results.jsonl").read_text().splitlines()) == 2


def test_an_unknown_procedure_fails_before_anything_runs(tmp_path: Path) -> None:
    from tests.test_eval_datasets import semv

    runs = _two_sample_runs(tmp_path / "runs")
    out = tmp_path / "out"
    code, _, stderr = semv(
        "eval", "remmd", str(runs), "--text-only", "--procedure", "semv,nope", "--out", str(out)
    )
    assert code == 2
    assert "unknown procedure 'nope'; valid procedures: semv" in stderr
    assert not out.exists()


def test_seeds_run_the_one_named_procedure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import semv.procedures as procedures
    from tests.test_eval_datasets import semv
    from tests.test_procedures import TOY

    monkeypatch.setattr(procedures, "_ALL", (procedures.SEMV, TOY))
    runs = _two_sample_runs(tmp_path / "runs")
    out = tmp_path / "out"
    common = ("eval", "remmd", str(runs), "--text-only", "--seeds", "2", "--out")
    code, _, stderr = semv(*common, str(out / "a"), "--procedures", "all")
    assert code == 2
    assert "--seeds and --sweep take one --procedure" in stderr
    code, _, stderr = semv(*common, str(out / "b"), "--procedure", "toy")
    assert code == 0, stderr
    for k in (1, 2):
        config = json.loads((out / "b" / f"seed-{k}" / "config.json").read_text("utf-8"))
        assert config["procedure"] == "toy"
    assert (out / "b" / "stability.md").is_file()


def test_the_remmd_bank_is_counted_like_the_semv_graph(tmp_path: Path) -> None:
    """A ReMMD run's cost row: one R_j look-up per point plus the queries sent, and the bank
    records that serve two or more points (the same definitions as the semv graph's row)."""
    from semv.procedures.remmd._models import EvidenceBank

    runs = shared_data("remmd-agent-runs", "qwen3.5-9b")
    loaded = next(iter(get_adapter("remmd").load(runs, text_only=True, limit=1)))
    result = _api.verify(loaded.case, data_dir=tmp_path, procedure="remmd")
    store = Store(tmp_path)
    try:
        bank = EvidenceBank.model_validate_json(store.node_value_json(result.run_id, "bank"))
    finally:
        store.close()
    served = Counter(m.evidence_id for ms in bank.matches.values() for m in ms)
    shared = sum(1 for n in served.values() if n > 1)
    assert shared > 0, "this sample's evidence serves several of its points"
    assert retrieval_counts({"bank": _node("bank", bank)}) == (
        bank.retrievals + len(bank.matches),
        shared,
    )


def test_remmd_l1_of_semv_results_abstains_only_without_evidence() -> None:
    from semv.eval._tasks import remmd_l1
    from semv.model import InternalLabel, Result, ResultSubclaim, VeracityLabel

    def result(label: InternalLabel, *scores: float) -> Result:
        return Result(
            run_id="r",
            case_id="c",
            label=label.value,
            probabilities={},
            confidence=0.0,
            subclaims=tuple(
                ResultSubclaim(
                    id=f"claim:{i}",
                    dimension="what",
                    statement="s",
                    score=s,
                    decision="x",
                    arguments=(),
                )
                for i, s in enumerate(scores)
            ),
            evidence=(),
            uncertainty=(),
            report_paths={},
            trace_head="h",
        )

    assert remmd_l1(result(InternalLabel.INSUFFICIENT_EVIDENCE, 0.5, 0.5)) is None
    assert remmd_l1(result(InternalLabel.VERIFIED, 0.9)) is VeracityLabel.TRUE
    assert remmd_l1(result(InternalLabel.UNCERTAIN, 0.5, 0.5)) is VeracityLabel.MIXTURE
    assert remmd_l1(result(InternalLabel.UNCERTAIN, 0.1, 0.1)) is VeracityLabel.FALSE
    assert remmd_l1(result(InternalLabel.UNCERTAIN, 0.95, 0.9)) is VeracityLabel.TRUE
