"""Typed observations read the schema-v1 ``Evidence.data`` mappings: stored runs made before the
union existed still load, revise and show.

The v1 mappings below are written out as the producers on main wrote them before version 2
(perception/forensics.py, credentials.py, metadata.py, retrieval/_web.py, stages/describe.py)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from semv.cli import app
from semv.contest import batch_schema
from semv.model import (
    OBSERVATION_ADAPTER,
    ContentCredentials,
    Evidence,
    EvidenceKind,
    Exif,
    ForensicMap,
    MediaDescription,
    RetrievedDocument,
    SuppliedItem,
    observation_from_data,
)
from tests.conftest import ROOT

EXAMPLE = ROOT / "examples" / "lyon-flood"
runner = CliRunner()

V1_COMBINED = {
    "kind": "forensic-combined",
    "map": "combined",
    "region_score": 0.6312,
    "threshold": 0.5,
    "exceeds": True,
    "region": "96,64,128,128",
    "ela_score": 0.41,
    "noise_score": 0.7,
    "ghost_score": 0.78,
    "editing_traces": "",
    "map_png": "3f2a.png",
}
V1_C2PA = {
    "kind": "c2pa",
    "validation_state": "Invalid",
    "signer": "semv test signer",
    "issuer": "semv test CA",
    "claim_generator": "semv-tests 1.0",
    "actions": "c2pa.created, c2pa.edited",
    "ai_generated": False,
    "edited": True,
    "hash_mismatch": True,
    "trusted": False,
    "failures": "assertion.dataHash.mismatch",
}
V1_EXIF = {  # EXIF carried no "kind" in version 1
    "capture_time": "2002-08-24T13:59:08",
    "timezone_known": False,
    "capture_time_tag": "EXIF:DateTimeOriginal",
    "make": "Canon",
    "model": "Canon EOS D60",
    "software": "Adobe Photoshop 7.0",
    "modify_gap_hours": 238.81,
    "gap_approximate": True,
}
V1_WEB = {"prior": "news", "search_rank": 3}
V1_DESCRIPTION = {
    "kind": "description",
    "backend": "offline",
    "media_kind": "image",
    "scene_type": "outdoor scene (sky or vegetation)",
    "dominant_colours": ["grey", "blue", "green"],
}


@pytest.mark.parametrize(
    ("data", "evidence_id", "expected"),
    [
        (V1_COMBINED, "ev:forensic:combined:asset:1", ForensicMap),
        (V1_C2PA, "ev:c2pa:asset:1", ContentCredentials),
        (V1_EXIF, "ev:exif:asset:1", Exif),
        (V1_WEB, "ev:web:0123abcd", RetrievedDocument),
        (V1_DESCRIPTION, "ev:describe:asset:1", MediaDescription),
        ({"note": "seen on the wall", "floor": 2}, "ev:human:1", SuppliedItem),
    ],
)
def test_a_v1_mapping_becomes_its_typed_observation_and_maps_back(
    data: dict[str, Any], evidence_id: str, expected: type
) -> None:
    typed = observation_from_data(data, evidence_id)
    assert typed is not None and isinstance(typed, expected)
    assert typed.as_data() == data


def test_a_v1_evidence_item_validates_and_serializes_as_version_2() -> None:
    v1 = {
        "id": "ev:forensic:combined:asset:1",
        "source": "semv forensics (Combined forensic)",
        "source_type": "forensic",
        "modality": "image",
        "content": "Combined forensic map: region score 0.63.",
        "data": V1_COMBINED,
        "reliability": 0.6,
    }
    item = Evidence.model_validate_json(json.dumps(v1))
    scored = item.observed(ForensicMap)
    assert scored is not None and scored.combined and scored.exceeds
    assert item.kind is EvidenceKind.FORENSIC_COMBINED
    assert item.observed(Exif) is None
    dumped = json.loads(item.model_dump_json())
    assert "data" not in dumped and dumped["observation"]["kind"] == "forensic-combined"
    assert Evidence.model_validate(dumped) == item
    assert Evidence.model_validate({**v1, "data": {}}).observation is None
    with pytest.raises(ValueError, match="not both"):
        Evidence.model_validate({**dumped, "data": V1_COMBINED})


def test_the_published_schema_keeps_v1_data_as_a_deprecated_input() -> None:
    evidence = batch_schema()["$defs"]["Evidence"]["properties"]
    assert evidence["data"]["deprecated"] is True
    assert "observation" in evidence


def _to_v1(node: Any) -> Any:
    """Rewrite every serialized evidence item of a node value into the schema-v1 form."""
    if isinstance(node, list):
        return [_to_v1(x) for x in node]
    if not isinstance(node, dict):
        return node
    out = {k: _to_v1(v) for k, v in node.items()}
    if "source_type" in out and "observation" in out:
        observation = out.pop("observation")
        out["data"] = (
            {}
            if observation is None
            else OBSERVATION_ADAPTER.validate_python(observation).as_data()
        )
    return out


def _downgrade(data_dir: Path) -> int:
    """Rewrite the store's node values as version 1 wrote them; returns how many items."""
    rewritten = 0
    with sqlite3.connect(data_dir / "semv.db") as db:
        for digest, content in db.execute("SELECT hash, content FROM blobs").fetchall():
            text = bytes(content).decode("utf-8")
            if '"observation"' not in text:
                continue
            value = _to_v1(json.loads(text))
            rewritten += text.count('"observation"')
            db.execute(
                "UPDATE blobs SET content = ? WHERE hash = ?",
                (json.dumps(value).encode("utf-8"), digest),
            )
    return rewritten


def _semv(*args: str) -> dict[str, Any]:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def test_a_run_stored_by_version_1_shows_and_revises_like_a_version_2_run(
    tmp_path: Path,
) -> None:
    current = tmp_path / "v2"
    first = _semv("verify", str(EXAMPLE), "--json", "--data-dir", str(current))
    legacy = tmp_path / "v1"
    shutil.copytree(current, legacy)
    assert _downgrade(legacy) > 0
    with sqlite3.connect(legacy / "semv.db") as db:
        stored = " ".join(bytes(c).decode() for (c,) in db.execute("SELECT content FROM blobs"))
    assert '"observation"' not in stored and '"capture_time"' in stored

    run = first["run_id"]
    assert _semv("show", run, "--json", "--data-dir", str(legacy)) == first
    review = str(ROOT / "examples" / "review-lyon-flood.json")
    revised = {
        name: _semv("contest", run, "--file", review, "--json", "--data-dir", str(where))
        for name, where in (("v1", legacy), ("v2", current))
    }
    # v1 node values hash differently from their v2 form, so the revision of the v1 run
    # recomputes more nodes (as for any run stored by older code): compare what it decides
    for key in ("plan", "policy"):
        assert revised["v1"][key] == revised["v2"][key]
    assert revised["v1"]["result"]["label"] == revised["v2"]["result"]["label"]
    decided = {
        name: {s["id"]: (s["score"], s["decision"]) for s in r["result"]["subclaims"]}
        for name, r in revised.items()
    }
    assert decided["v1"] == decided["v2"]
