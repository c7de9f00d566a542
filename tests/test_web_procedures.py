"""A run of another procedure (ReMMD) in the reviewer UI: its page shows the L1 / L2 / L3
labels, and a rejection posted through the API becomes a revision with the same procedure."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from semv._api import verify
from semv.web import create_app
from tests.conftest import ROOT
from tests.web_helpers import LOCAL

EXAMPLE = ROOT / "examples" / "lyon-flood"


def test_a_remmd_run_is_shown_with_its_labels_and_can_be_contested(data_dir: Path) -> None:
    result = verify(EXAMPLE, data_dir=data_dir, procedure="remmd", text_only=True)
    assert result.veracity is not None
    with TestClient(create_app(data_dir), base_url=LOCAL) as client:
        page = client.get(f"/runs/{result.run_id}").text
        assert f'<span id="veracity">{result.veracity}</span>' in page
        assert all(d in page for d in result.distortions)
        supplied = next(e.id for e in result.evidence if e.id.startswith("ev:sup:"))
        response = client.post(
            f"/api/runs/{result.run_id}/contest",
            json={"actions": [{"op": "reject", "target": supplied, "reason": "another day"}]},
            headers={"X-Reviewer": "any"},
        )
        assert response.status_code == 201, response.text
        revision = response.json()
        revised = client.get(f"/api/runs/{revision['run_id']}").json()
    assert revised["procedure"] == "remmd"
    assert revised["veracity"] in ("True", "Mostly True", "Mixture", "Mostly False", "False")
    removed = {e for sub in revision["review"]["subclaims"].values() for e in sub["removed"]}
    assert removed == {supplied}
    assert revision["parent_run_id"] == result.run_id
