"""Model-call accounting: node model time from invocations and tasks, and the critical path."""

from __future__ import annotations

import pytest

from semv.eval._runner import cost_columns
from semv.usage import CallRecord, Ledger, critical_path


def call(node: str, inv: int, task: str, seconds: float, **kw: object) -> CallRecord:
    return CallRecord("r", node, inv, task, 0.0, seconds, **kw)  # type: ignore[arg-type]


def test_node_model_time_sums_invocations_and_takes_the_slowest_task() -> None:
    ledger = Ledger()
    # argue: proponent (attempt 0.2 + repair 0.3) ∥ opponent 0.4, then verify 0.2
    ledger.add(call("argue:when", 0, "proponent", 0.2))
    ledger.add(call("argue:when", 0, "proponent", 0.3))
    ledger.add(call("argue:when", 0, "opponent", 0.4))
    ledger.add(call("argue:when", 1, "verify", 0.2))
    ledger.add(call("plan:when", 2, "plan", 0.1, cached=True))
    assert ledger.node_model_time() == pytest.approx({"argue:when": 0.7, "plan:when": 0.1})
    roles = ledger.roles()
    assert roles["r"].calls == 4 and roles["r"].cached == 1


def test_critical_path_is_the_longest_weighted_chain() -> None:
    deps = {"a": (), "b": ("a",), "c": ("a",), "d": ("b", "c", "source")}
    weights = {"a": 1.0, "b": 5.0, "c": 2.0, "d": 1.0}
    assert critical_path(deps, weights) == pytest.approx(7.0)
    assert critical_path({}, {}) == 0.0
    with pytest.raises(ValueError, match="cycle"):
        critical_path({"x": ("y",), "y": ("x",)}, {})


def test_usage_subtracts_model_span_from_node_cost() -> None:
    ledger = Ledger()
    ledger.add(CallRecord("plan", "p", 0, "plan", start=10.0, seconds=0.5))
    usage = ledger.usage(
        backend="llm/1", wall_s=2.0, dependencies={"p": (), "q": ("p",)},
        node_seconds={"p": 0.7, "q": 0.3},
    )  # fmt: skip
    assert usage.critical_path_s == pytest.approx(0.5)  # only nodes run under bind_node count
    ledger.node_seconds.update({"p": 0.6, "q": 0.3})
    usage = ledger.usage(
        backend="llm/1", wall_s=2.0, dependencies={"p": (), "q": ("p",)},
        node_seconds={"p": 0.7, "q": 0.3},
    )  # fmt: skip
    # p: 0.5 on the model + 0.2 of its own; q: 0.3
    assert usage.critical_path_s == pytest.approx(1.0)
    assert usage.model_critical_path_s == pytest.approx(0.5)
    assert usage.calls == 1


def test_cost_columns_are_means_per_case() -> None:
    ledger = Ledger()
    ledger.add(CallRecord("plan", "p", 0, "plan", 0.0, 0.5, prompt_tokens=10, completion_tokens=5))
    one = ledger.usage(backend="llm/1", wall_s=1.0, dependencies={"p": ()})
    two = ledger.usage(backend="llm/1", wall_s=3.0, dependencies={"p": ()})
    cost = cost_columns([one, two])
    assert cost["wall_s"] == pytest.approx(2.0)
    assert cost["tokens"] == pytest.approx(15.0) and cost["calls"] == pytest.approx(1.0)
