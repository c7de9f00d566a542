"""Runtime checks in semv are explicit exceptions: ``python -O`` strips ``assert`` statements,
so a check written as one would silently stop checking in an optimised deployment."""

from __future__ import annotations

import ast

import pytest

from tests.conftest import ROOT


def test_no_assert_statement_in_the_package() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in sorted((ROOT / "src" / "semv").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        if isinstance(node, ast.Assert)
    ]
    assert not found, f"use an explicit exception instead of assert: {found}"


def test_a_procedure_entry_naming_another_procedure_is_refused() -> None:
    """One of the converted checks, exercised: a registry entry whose target is not the
    procedure it names raises a TypeError (under ``-O`` too), not an AssertionError."""
    from semv.procedures import _Registered

    wrong = _Registered("t2-agent", "semv.procedures.remmd:REMMD")
    with pytest.raises(TypeError, match="is not the procedure 't2-agent'"):
        wrong.load()
