"""semv run on ReMMDBench, VERITE and MMFakeBench inputs, the label mappings, and splits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from semv.adapters import REMMD_L1
from semv.cli import app
from semv.errors import InputError
from semv.eval import INTERNAL_TO_MMFAKEBENCH, INTERNAL_TO_REMMD, dataset_path, get_task
from semv.eval._tasks import remmd_l2_from_result
from semv.model import Result, ResultArgument, ResultSubclaim, Stance
from tests.conftest import shared_data
from tests.test_adapters_datasets import _mmfakebench

runner = CliRunner()


def semv(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def _result(label: str, decisions: dict[str, str]) -> Result:
    return Result(
        run_id="r1",
        case_id="c1",
        label=label,
        probabilities={label: 1.0},
        confidence=0.55,
        subclaims=tuple(
            ResultSubclaim(
                id=f"claim:{dim}",
                dimension=dim,
                statement=f"{dim} statement, 3 May 2021",
                score=0.2,
                decision=decision,
                arguments=(
                    ResultArgument(
                        id=f"arg:{dim}:att:1",
                        stance=Stance.ATTACK,
                        text="captured 2019-06-01",
                        evidence=("ev:1",),
                        strength=0.6,
                        verified=True,
                    ),
                ),
            )
            for dim, decision in decisions.items()
        ),
        evidence=(),
        uncertainty=(),
        report_paths={},
        trace_head="h",
    )


def test_remmd_mapping_of_semv_output() -> None:
    assert set(INTERNAL_TO_REMMD.values()) == set(REMMD_L1)  # every L1 label is reachable
    result = _result(
        "false-context",
        {
            "when": "refuted",
            "who": "weakly-refuted",
            "what": "supported",
            "authenticity": "uncertain",
        },
    )
    assert remmd_l2_from_result(result) == [
        "T3 Misleading Context",
        "C1 Semantic Inconsistency",
        "C2 Contextual Inconsistency",
    ]
    prediction = get_task("remmd").predict(result)
    assert prediction["l1"] == "Mostly False"
    manipulated = get_task("remmd").predict(
        _result("manipulated-or-synthetic", {"authenticity": "refuted"})
    )
    assert (manipulated["l1"], manipulated["l2"]) == ("False", ["V2 Visual Editing"])
    assert get_task("remmd").predict(_result("insufficient-evidence", {}))["l1"] is None
    # uncertain with subclaims (evidence, no decisive rule): the band of ψ̄ (0.2: refuted)
    assert get_task("remmd").predict(_result("uncertain", {"what": "refuted"}))["l1"] == "False"


def test_cosmos_reports_a_calibrated_probability_beside_eq_20() -> None:
    from semv.config import EvalConfig

    task = get_task("cosmos")
    ooc = _result("OOC", {}).model_copy(update={"probabilities": {"OOC": 0.4, "NOOC": 0.6}})
    prediction = task.predict(ooc)
    assert prediction["p_positive"] == 0.4  # Eq. 20, unchanged
    assert 0.0 < prediction["p_calibrated"] < 1.0
    records = [
        {
            "status": "committed",
            "index": i,
            "case_id": f"c{i}",
            "gold": {"label": g},
            "prediction": task.predict(ooc),
        }
        for i, g in enumerate(("OOC", "NOOC", "OOC"))
    ]
    metrics = task.score(records, EvalConfig())
    assert 0.0 <= metrics["ece_calibrated"] <= 1.0 and "brier_calibrated" in metrics
    assert len(metrics["reliability_calibrated"]["confidence"]) == 3


def test_mmfakebench_mapping_and_binary_probability() -> None:
    task = get_task("mmfakebench")
    result = _result("false-context", {})
    result = result.model_copy(
        update={
            "probabilities": {
                "false-context": 0.5,
                "manipulated-or-synthetic": 0.2,
                "verified": 0.3,
            }
        }
    )
    prediction = task.predict(result)
    assert prediction["label"] == "mismatch" and prediction["binary"] == "fake"
    assert prediction["p_positive"] == pytest.approx(0.7)
    assert INTERNAL_TO_MMFAKEBENCH["verified"] == "original"
    abstained = task.predict(_result("insufficient-evidence", {}))
    assert abstained["label"] is None and abstained["binary"] == "real"


def test_semv_on_remmd_showcase_maps_to_l1(tmp_path: Path) -> None:
    data = shared_data("remmd-showcase")
    out = tmp_path / "out"
    code, stdout, err = semv(
        "eval",
        "remmd",
        str(data),
        "--limit",
        "2",
        "--out",
        str(out),
        "--json",
        "--data-dir",
        str(tmp_path / "s"),
    )
    assert code == 0, err
    metrics = json.loads(stdout)
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [r["case_id"] for r in records] == ["304", "010"]  # the export's first two
    for r in records:
        if r["label"] == "insufficient-evidence":  # no usable evidence: the one abstention
            assert r["prediction"]["l1"] is None
        elif r["label"] == "uncertain":  # evidence without a decisive rule: ψ̄'s band
            assert r["prediction"]["l1"] in REMMD_L1
        else:
            assert r["prediction"]["l1"] == INTERNAL_TO_REMMD.get(r["label"])
        assert r["gold"]["l1"] in REMMD_L1
    assert metrics["n"] == 2 and len(metrics["level1"]["confusion_matrix"]) == 5
    assert "ReMMD Table 4 layout" in (out / "summary.md").read_text()


def test_semv_on_verite_rows_without_images(tmp_path: Path) -> None:
    data = shared_data("verite", "VERITE.csv")
    out = tmp_path / "out"
    code, stdout, err = semv(
        "eval",
        "verite",
        str(data),
        "--limit",
        "3",
        "--out",
        str(out),
        "--json",
        "--data-dir",
        str(tmp_path / "s"),
    )
    assert code == 0, err
    metrics = json.loads(stdout)
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert all("media-not-loaded" in r["uncertainty"] for r in records)
    # rows 0 and 1 share the image true_0.jpg: one bootstrap cluster
    assert records[0]["cluster"] == records[1]["cluster"] != records[2]["cluster"]
    assert metrics["by_gold"] == {"true": 1, "miscaptioned": 1, "out-of-context": 1}
    assert "baseline" not in metrics  # the COSMOS baseline is not a VERITE result


def test_semv_on_mmfakebench(tmp_path: Path) -> None:
    file = _mmfakebench(tmp_path / "mmfb")
    code, stdout, err = semv(
        "eval",
        "mmfakebench",
        str(tmp_path / "mmfb"),
        "--split",
        "val",
        "--json",
        "--out",
        str(tmp_path / "out"),
        "--data-dir",
        str(tmp_path / "s"),
    )
    assert code == 0, err
    metrics = json.loads(stdout)
    assert metrics["n"] == 2 and metrics["confusion"]["tp"] + metrics["confusion"]["fn"] == 1
    assert set(metrics["four_class"]["per_class"]) == {
        "original",
        "textual_veracity_distortion",
        "visual_veracity_distortion",
        "mismatch",
    }
    assert json.loads((tmp_path / "out" / "config.json").read_text())["split"] == "val"
    assert file.name == "MMFakeBench_val.json"


def test_split_resolution(tmp_path: Path) -> None:
    (tmp_path / "val_data.json").write_text("{}\n")
    (tmp_path / "test.csv").write_text("x\n")
    assert dataset_path("cosmos", tmp_path, "val") == tmp_path / "val_data.json"
    assert dataset_path("verite", tmp_path, "test") == tmp_path / "test.csv"
    assert dataset_path("verite", tmp_path, None) == tmp_path
    with pytest.raises(InputError, match="split 'train'"):
        dataset_path("remmd", tmp_path, "train")
    with pytest.raises(InputError, match=r"train_data\.json"):
        dataset_path("cosmos", tmp_path, "train")


def test_memory_snapshot_hash_of_a_folder(tmp_path: Path) -> None:
    from semv.eval import memory_snapshot_hash

    snap = tmp_path / "snap"
    (snap / "records").mkdir(parents=True)
    (snap / "records" / "a.json").write_text('{"a": 1}')
    (snap / "index.json").write_text("[]")
    first = memory_snapshot_hash(snap)
    assert len(first) == 64 and memory_snapshot_hash(None) == "none"
    (snap / "records" / "a.json").write_text('{"a": 2}')
    assert memory_snapshot_hash(snap) != first  # content matters
    (snap / "records" / "a.json").write_text('{"a": 1}')
    assert memory_snapshot_hash(snap) == first
    (snap / "records" / "a.json").rename(snap / "records" / "b.json")
    assert memory_snapshot_hash(snap) != first  # and so do the names
    with pytest.raises(InputError, match="memory snapshot not found"):
        memory_snapshot_hash(tmp_path / "missing")


def test_the_shipped_calibration_declares_its_training_set() -> None:
    from semv.calibration import calibration

    params = calibration()["cosmos"]
    assert params["inputs"] == ["decision_is_ooc", "mean_score"] and len(params["coef"]) == 2
    assert "make fit" in params["command"] and len(params["training_sha256"]) == 64
