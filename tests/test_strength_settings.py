"""The Eq. 14 weights in Settings reach the argue stage and the I_arg invariant check.

Found by ``semv eval ... --sweep``: every strength ablation gave identical outputs because the
stage computed strengths with the default weights.
"""

from __future__ import annotations

from pathlib import Path

from semv import verify
from semv.config import Settings
from tests.conftest import ROOT

EXAMPLE = ROOT / "examples" / "lyon-flood"


def test_strength_weights_from_settings_are_used(tmp_path: Path) -> None:
    default = verify(EXAMPLE, data_dir=tmp_path / "a")
    settings = Settings()
    no_relevance = settings.model_copy(
        update={"strength": settings.strength.model_copy(update={"w_relevance": 0.0})}
    )
    ablated = verify(EXAMPLE, data_dir=tmp_path / "b", settings=no_relevance)

    def strengths(result: object) -> dict[str, float]:
        return {
            a.id: a.strength
            for s in result.subclaims  # type: ignore[attr-defined]
            for a in s.arguments
        }

    before, after = strengths(default), strengths(ablated)
    assert before and before.keys() == after.keys()
    # removing a non-negative term lowers every argument's strength that had relevance > 0
    assert all(after[k] <= before[k] + 1e-12 for k in before)
    assert any(after[k] < before[k] - 1e-6 for k in before)
