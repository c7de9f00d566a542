"""The public surface of ``semv.reasoning`` and its "no magic numbers" rule."""

from __future__ import annotations

import ast
from pathlib import Path

import semv.reasoning as reasoning

PACKAGE = Path(reasoning.__file__).parent

REQUIRED = {
    "argument_strength",
    "strength_from_features",
    "influence",
    "claim_score",
    "band",
    "delta_for_score",
    "Qbaf",
    "NonConvergence",
    "resolve_clash",
    "ClashOutcome",
    "judge_adjustment",
    "aggregate",
    "AggregateOutcome",
    "confidence",
    "ooc_probability",
    "LabelContract",
    "InternalContract",
    "DecisionParams",
    "StrengthParams",
    "COSMOS",
    "contract",
}


def test_public_api() -> None:
    assert set(reasoning.__all__) >= REQUIRED
    for name in reasoning.__all__:
        assert hasattr(reasoning, name), name
    modules = {p.name for p in PACKAGE.glob("*.py")}
    assert {"_strength.py", "_semantics.py", "_qbaf.py", "_clash.py", "_aggregate.py"} <= modules


def test_no_paper_constants_in_code() -> None:
    # Every constant of the paper lives in semv.config. The code may only use the structural
    # numbers 0, 1, 2 (and RK4's 6, rule numbers ≤ 7), the midpoint ½ of Eq. 19 under a name,
    # and the documented solver defaults dt = 0.1, tol = 1e-10, max_steps = 100_000.
    solver_defaults = {0.1, 1e-10, 100_000}
    for path in sorted(PACKAGE.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Constant) or isinstance(node.value, bool):
                continue
            value = node.value
            if not isinstance(value, int | float):
                continue
            where = f"{path.name}:{node.lineno}: {value!r}"
            if value in solver_defaults:
                assert path.name == "_qbaf.py", where
            elif value == 0.5:
                assert path.name == "_aggregate.py", where
            elif isinstance(value, float):
                assert value in {0.0, 1.0, 2.0}, where
            else:
                assert 0 <= value <= 7, where
