"""semv.fitting: the parameter-file writer keeps every shipped file's bytes, writes atomically,
and the COSMOS pass reads each verdict back as Eq. 20 wrote it."""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path

import pytest
from PIL import Image

from semv.adapters import COSMOS_CONTRACT, CosmosAdapter
from semv.agents.offline import OfflineAgents
from semv.config import Settings
from semv.eval import evaluate
from semv.fitting import (
    CosmosVerdict,
    cosmos_verdicts,
    dump_json,
    finish_fit,
    sha256_of,
    write_parameters,
)
from semv.store import Store

SRC = Path(__file__).resolve().parents[1] / "src" / "semv"
SHIPPED = {  # every fitted-parameter file semv ships, with the indent its fit script uses
    "dimensions/data/context_model.json": 2,
    "calibration/data/calibration.json": 2,
    "nlp/data/stance.json": 2,
    "retrieval/data/relevance.json": 2,
    "perception/data/forensic_model.json": 1,
}


@pytest.mark.parametrize(("name", "indent"), sorted(SHIPPED.items()))
def test_the_writer_reproduces_every_shipped_file_byte_for_byte(
    name: str, indent: int, tmp_path: Path
) -> None:
    shipped = (SRC / name).read_bytes()
    out = tmp_path / "fresh" / Path(name).name
    write_parameters(out, json.loads(shipped), indent=indent)
    assert out.read_bytes() == shipped
    assert out.stat().st_mode & 0o777 == 0o644  # package data: readable by everyone


def test_a_failing_write_leaves_the_old_file(tmp_path: Path) -> None:
    out = tmp_path / "model.json"
    write_parameters(out, {"coef": [0.5]})
    with pytest.raises(TypeError):
        write_parameters(out, {"coef": [object()]})
    assert out.read_text("utf-8") == '{\n  "coef": [\n    0.5\n  ]\n}\n'
    assert [p.name for p in tmp_path.iterdir()] == ["model.json"]


def test_finish_fit_prints_writes_metrics_and_honours_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    metrics = {"accuracy": 0.75}
    payload = {"version": "1", "metrics": metrics}
    out, metrics_out = tmp_path / "model.json", tmp_path / "metrics.json"
    finish_fit(payload, out, metrics=metrics, metrics_out=metrics_out, check=True)
    assert not out.exists()
    assert metrics_out.read_text("utf-8") == dump_json(metrics)
    assert json.loads(capsys.readouterr().out) == metrics
    finish_fit(payload, out, metrics=metrics)
    assert json.loads(out.read_text("utf-8")) == payload
    assert capsys.readouterr().err == f"wrote {out}\n"


def test_sha256_of(tmp_path: Path) -> None:
    path = tmp_path / "train.json"
    path.write_bytes(b"caption pairs\n")
    assert sha256_of(path) == hashlib.sha256(b"caption pairs\n").hexdigest()


def test_calibration_input() -> None:
    assert CosmosVerdict(True, 0.8).calibration_input() == (1.0, 0.8)
    assert CosmosVerdict(False, 0.3).calibration_input() == (0.0, 0.3)


def _cosmos_file(tmp_path: Path) -> Path:
    rows = [
        (
            "Firefighters battle a forest fire near Athens in August 2021.",
            "A wildfire burns on a hillside north of Athens, Greece, in August 2021.",
            0,
        ),
        (
            "Firefighters battle a forest fire near Athens in August 2021.",
            "Protesters march through Santiago, Chile, during a general strike.",
            1,
        ),
        (
            "Flood water covers a street in Dhaka after monsoon rains.",
            "Residents wade through a flooded street in Dhaka, Bangladesh.",
            0,
        ),
    ]
    (tmp_path / "images").mkdir()
    lines = []
    for n, (claim, other, label) in enumerate(rows):
        Image.new("RGB", (16, 16), (n * 60, 20, 20)).save(tmp_path / "images" / f"{n}.jpg")
        row = {
            "img_local_path": f"images/{n}.jpg",
            "caption1": claim,
            "caption2": other,
            "context_label": label,
        }
        lines.append(json.dumps(row))
    path = tmp_path / "pairs.json"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_cosmos_verdicts_read_each_verdict_back_as_eq20_wrote_it(tmp_path: Path) -> None:
    path = _cosmos_file(tmp_path)
    settings = Settings()
    verdicts = cosmos_verdicts(path, settings)
    store = Store(tmp_path / "store")
    try:
        outcomes = asyncio.run(
            evaluate(
                list(CosmosAdapter().load(path, text_only=True)),
                store=store,
                settings=settings,
                agents=OfflineAgents(settings),
                contract=COSMOS_CONTRACT,
            )
        )
    finally:
        store.close()
    assert len(verdicts) == len(outcomes) == 3
    for verdict, outcome in zip(verdicts, outcomes, strict=True):
        assert verdict.ooc == (outcome.predicted == "OOC")
        p_ooc = verdict.psi if verdict.ooc else 1.0 - verdict.psi  # Eq. 20
        assert p_ooc == pytest.approx(outcome.probabilities["OOC"], abs=1e-12)
        assert 0.0 <= verdict.psi <= 1.0
