"""The general weighted QBAF solver: quadratic-energy, DF-QuAD and Euler-based semantics.

Sources of expected values:

* DF-QuAD: the e-democracy example of Rago, Toni, Aurisicchio & Baroni (KR 2016), as encoded
  in N. Potyka's Uncertainpy (``examples/gradual/BAG/RagoEtAlEDemocracy.bag``) whose
  notebook ``examples/gradual/gradual_argumentation_examples.ipynb`` prints the forward
  propagation σ(A1) = 0.862, σ(A2) = 0.85, σ(P2) = 0.08 (also checked by hand below).
* Quadratic energy: the stock-market example of Potyka (KR 2018) as encoded in Uncertainpy
  (``examples/example.bag``); the same notebook prints the RK4 result (δ = 0.1, stopping when
  max |ds/dt| < 10⁻³): Buy 0.8208, Sell 0.3635, 1: 0.2049, 2: 0.8050, 3: 0.1658, 4 = 5 = 0.9.
* Small graphs (chain, diamond, 2-cycles, 3-cycle): hand formulas and closed forms written
  here, and a Jacobi fixed-point iteration written in this file, independent of the solver.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semv.reasoning import SEMANTICS, NonConvergence, Qbaf
from tests.paper_reasoning import claim_score

# ---- independent reference implementations ------------------------------------------------


def h(x: float) -> float:
    p = max(x, 0.0)
    return p * p / (1 + p * p)


def qe(beta: float, energy: float) -> float:
    """Potyka (KR 2018): β − β·h(−E) + (1 − β)·h(E)."""
    return beta - beta * h(-energy) + (1 - beta) * h(energy)


def dfquad(beta: float, sup: Sequence[float], att: Sequence[float]) -> float:
    """Rago et al. (KR 2016)."""
    v_s = 1 - math.prod(1 - v for v in sup)
    v_a = 1 - math.prod(1 - v for v in att)
    return beta - beta * (v_a - v_s) if v_a >= v_s else beta + (1 - beta) * (v_s - v_a)


def euler(beta: float, energy: float) -> float:
    """Amgoud & Ben-Naim (2018): 1 − (1 − β²)/(1 + β·e^E)."""
    return 1 - (1 - beta**2) / (1 + beta * math.exp(energy))


Graph = tuple[dict[str, float], list[tuple[str, str, str, float]]]  # bases, (kind, src, dst, w)


def build(graph: Graph) -> Qbaf:
    bases, edges = graph
    q = Qbaf()
    for name, base in bases.items():
        q.add_argument(name, base)
    for kind, src, dst, weight in edges:
        (q.support if kind == "sup" else q.attack)(src, dst, weight)
    return q


def jacobi(graph: Graph, semantics: str, iterations: int = 2000) -> dict[str, float]:
    """s ← T(s) from s = β, for graphs where T is a contraction."""
    bases, edges = graph
    s = dict(bases)
    for _ in range(iterations):
        new = {}
        for name, beta in bases.items():
            sup = [w * s[src] for kind, src, dst, w in edges if dst == name and kind == "sup"]
            att = [w * s[src] for kind, src, dst, w in edges if dst == name and kind == "att"]
            if semantics == "quadratic-energy":
                new[name] = qe(beta, sum(sup) - sum(att))
            elif semantics == "df-quad":
                new[name] = dfquad(beta, sup, att)
            else:
                new[name] = euler(beta, sum(sup) - sum(att))
        s = new
    return s


# ---- published examples ---------------------------------------------------------------------


def rago_e_democracy() -> Qbaf:
    q = Qbaf()
    for name, base in [
        ("A1", 0.5), ("A2", 0.5), ("P1", 0.7), ("P2", 0.5), ("P3", 0.9),
        ("C1", 0.2), ("C2", 0.2), ("C3", 0.6), ("C4", 0.5),
    ]:  # fmt: skip
        q.add_argument(name, base)
    q.attack("C1", "A2")
    q.attack("C2", "P2")
    q.attack("C3", "P2")
    q.attack("C4", "P2")
    q.support("P1", "A1")
    q.support("P2", "A1")
    q.support("P3", "A2")
    return q


def test_df_quad_rago_e_democracy() -> None:
    result = rago_e_democracy().solve("df-quad")
    # Published (Uncertainpy forward propagation of Rago et al.'s example):
    assert result["A1"] == pytest.approx(0.862, abs=1e-12)
    assert result["A2"] == pytest.approx(0.85, abs=1e-12)
    assert result["P2"] == pytest.approx(0.08, abs=1e-12)
    # By hand: P2: v_a = 1 − .8·.4·.5 = .84 → .5 − .5·.84 = .08;
    # A1: v_s = 1 − .3·.92 = .724 → .5 + .5·.724 = .862; A2: .5 + .5·(.9 − .2) = .85.
    for leaf, base in [("P1", 0.7), ("P3", 0.9), ("C1", 0.2), ("C2", 0.2), ("C3", 0.6)]:
        assert result[leaf] == base
    # Uncertainpy's RK4 run of the same graph (ε = 10⁻³) printed A1 0.86205, A2 0.84921,
    # P2 0.08094; the forced dynamic path must agree with those to their accuracy.
    dynamic = rago_e_democracy().solve("df-quad", method="dynamic")
    assert dynamic["A1"] == pytest.approx(0.86205, abs=5e-3)
    assert dynamic["A2"] == pytest.approx(0.84921, abs=5e-3)
    assert dynamic["P2"] == pytest.approx(0.08094, abs=5e-3)
    for name, value in result.items():
        assert dynamic[name] == pytest.approx(value, abs=1e-6)


STOCK: Graph = (
    {"Buy": 0.5, "Sell": 0.5, "1": 0.8, "2": 0.7, "3": 0.3, "4": 0.9, "5": 0.9},
    [
        ("att", "Buy", "Sell", 1.0),
        ("att", "Sell", "Buy", 1.0),
        ("sup", "1", "Sell", 1.0),
        ("sup", "2", "Buy", 1.0),
        ("att", "2", "1", 1.0),
        ("att", "3", "2", 1.0),
        ("att", "4", "3", 1.0),
        ("sup", "4", "2", 1.0),
        ("att", "5", "1", 1.0),
        ("sup", "5", "Buy", 1.0),
    ],
)


def test_quadratic_energy_potyka_stock_example() -> None:
    q = build(STOCK)
    assert not q.is_acyclic()
    result = q.solve("quadratic-energy")
    published = {
        "Buy": 0.8208178793031596,
        "Sell": 0.36345378093100583,
        "1": 0.20494963930535626,
        "2": 0.8050136080030856,
        "3": 0.165776045953347,
        "4": 0.9,
        "5": 0.9,
    }
    for name, value in published.items():  # published RK4 run stopped at max|ds/dt| < 1e-3
        assert result[name] == pytest.approx(value, abs=5e-3), name
    # The acyclic part by hand: σ3 = .3 − .3·h(.9); σ2 = .7 + .3·h(.9 − σ3);
    # σ1 = .8 − .8·h(σ2 + .9).
    s3 = 0.3 - 0.3 * h(0.9)
    s2 = 0.7 + 0.3 * h(0.9 - s3)
    s1 = 0.8 - 0.8 * h(s2 + 0.9)
    assert result["3"] == pytest.approx(s3, abs=1e-9)
    assert result["2"] == pytest.approx(s2, abs=1e-9)
    assert result["1"] == pytest.approx(s1, abs=1e-9)
    # ...and the Buy/Sell cycle is the fixed point found by an independent iteration.
    reference = jacobi(STOCK, "quadratic-energy")
    for name, value in reference.items():
        assert result[name] == pytest.approx(value, abs=1e-8), name
    assert result["Buy"] == pytest.approx(qe(0.5, s2 + 0.9 - result["Sell"]), abs=1e-9)
    assert result["Sell"] == pytest.approx(qe(0.5, s1 - result["Buy"]), abs=1e-9)


# ---- small hand-computed graphs ------------------------------------------------------------

CHAIN: Graph = (
    {"a": 0.8, "b": 0.5, "c": 0.6},
    [("sup", "a", "b", 1.0), ("att", "b", "c", 1.0)],
)
DIAMOND: Graph = (
    {"a": 0.9, "b": 0.4, "c": 0.7, "d": 0.5},
    [
        ("sup", "a", "b", 1.0),
        ("sup", "a", "c", 1.0),
        ("sup", "b", "d", 1.0),
        ("att", "c", "d", 1.0),
    ],
)


def test_chain_by_hand() -> None:
    q = build(CHAIN)
    # quadratic energy: σb = .5 + .5·h(.8) = .5 + .5·(.64/1.64); σc = .6 − .6·h(σb)
    r = q.solve("quadratic-energy")
    sb = 0.5 + 0.5 * 0.64 / 1.64
    assert r["a"] == 0.8
    assert r["b"] == pytest.approx(sb, abs=1e-12)  # 0.69512...
    assert r["c"] == pytest.approx(0.6 - 0.6 * sb**2 / (1 + sb**2), abs=1e-12)  # 0.40453...
    # DF-QuAD: σb = .5 + .5·.8 = .9; σc = .6 − .6·.9 = .06
    r = q.solve("df-quad")
    assert r["b"] == pytest.approx(0.9, abs=1e-12)
    assert r["c"] == pytest.approx(0.06, abs=1e-12)
    # Euler: σb = 1 − .75/(1 + .5·e^.8); σc = 1 − .64/(1 + .6·e^−σb)
    r = q.solve("euler")
    eb = 1 - 0.75 / (1 + 0.5 * math.exp(0.8))
    assert r["b"] == pytest.approx(eb, abs=1e-12)
    assert r["c"] == pytest.approx(1 - 0.64 / (1 + 0.6 * math.exp(-eb)), abs=1e-12)


def test_diamond_by_hand() -> None:
    q = build(DIAMOND)
    r = q.solve("quadratic-energy")
    sb, sc = 0.4 + 0.6 * h(0.9), 0.7 + 0.3 * h(0.9)
    assert r["b"] == pytest.approx(sb, abs=1e-12)
    assert r["c"] == pytest.approx(sc, abs=1e-12)
    assert r["d"] == pytest.approx(qe(0.5, sb - sc), abs=1e-12)
    # DF-QuAD: σb = .4 + .6·.9 = .94, σc = .7 + .3·.9 = .97; d: v_s = .94 < v_a = .97
    # → .5 − .5·.03 = .485
    r = q.solve("df-quad")
    assert r["b"] == pytest.approx(0.94, abs=1e-12)
    assert r["c"] == pytest.approx(0.97, abs=1e-12)
    assert r["d"] == pytest.approx(0.485, abs=1e-12)
    r = q.solve("euler")
    eb, ec = euler(0.4, 0.9), euler(0.7, 0.9)
    assert r["d"] == pytest.approx(euler(0.5, eb - ec), abs=1e-12)


def test_edge_weights_multiply_the_source_strength() -> None:
    q = Qbaf()
    q.add_argument("claim", 0.5)
    q.add_argument("a", 1.0)
    q.add_argument("b", 1.0)
    q.support("a", "claim", 0.5)
    # E = .5·1 → h = .25/1.25 = .2 → .5 + .5·.2 = .6
    assert q.solve()["claim"] == pytest.approx(0.6, abs=1e-12)
    # DF-QuAD: v_s = .5 → .5 + .5·.5 = .75
    assert q.solve("df-quad")["claim"] == pytest.approx(0.75, abs=1e-12)
    q.attack("b", "claim", 0.0)  # a zero-weight edge has no effect
    assert q.solve()["claim"] == pytest.approx(0.6, abs=1e-12)


def test_symmetric_two_cycle_of_attacks_closed_forms() -> None:
    q = Qbaf()
    q.add_argument("a", 0.5)
    q.add_argument("b", 0.5)
    q.attack("a", "b")
    q.attack("b", "a")
    assert not q.is_acyclic()
    # Quadratic energy: s = .5 − .5·s²/(1 + s²) ⇔ s³ + s − .5 = 0, by Cardano
    # s = ∛(1/4 + √(1/16 + 1/27)) + ∛(1/4 − √(1/16 + 1/27)) ≈ 0.42385.
    root = math.sqrt(1 / 16 + 1 / 27)
    cardano = math.cbrt(0.25 + root) + math.cbrt(0.25 - root)
    r = q.solve("quadratic-energy")
    assert r["a"] == pytest.approx(cardano, abs=1e-8)
    assert r["b"] == pytest.approx(cardano, abs=1e-8)
    # DF-QuAD: s = β − β·s ⇔ s = β/(1 + β) = 1/3.
    r = q.solve("df-quad")
    assert r["a"] == pytest.approx(1 / 3, abs=1e-8)
    assert r["b"] == pytest.approx(1 / 3, abs=1e-8)
    # Euler: s = 1 − .75/(1 + .5·e^−s); check the fixed-point equation itself.
    r = q.solve("euler")
    s = r["a"]
    assert s == pytest.approx(1 - 0.75 / (1 + 0.5 * math.exp(-s)), abs=1e-8)
    assert r["b"] == pytest.approx(s, abs=1e-8)


TWO_CYCLE: Graph = (
    {"a": 0.6, "b": 0.4, "c": 0.9},
    [("att", "a", "b", 1.0), ("att", "b", "a", 1.0), ("sup", "c", "a", 0.5)],
)
THREE_CYCLE: Graph = (
    {"a": 0.7, "b": 0.3, "c": 0.5},
    [("sup", "a", "b", 1.0), ("sup", "b", "c", 0.8), ("att", "c", "a", 1.0)],
)
THREE_ATTACK_CYCLE: Graph = (
    {"a": 0.5, "b": 0.5, "c": 0.5},
    [("att", "a", "b", 1.0), ("att", "b", "c", 1.0), ("att", "c", "a", 1.0)],
)


@pytest.mark.parametrize("semantics", SEMANTICS)
@pytest.mark.parametrize("graph", [TWO_CYCLE, THREE_CYCLE, THREE_ATTACK_CYCLE])
def test_cycles_match_independent_fixed_point_iteration(graph: Graph, semantics: str) -> None:
    q = build(graph)
    assert not q.is_acyclic()
    result = q.solve(semantics)
    reference = jacobi(graph, semantics)
    for name, value in reference.items():
        assert result[name] == pytest.approx(value, abs=1e-8), (semantics, name)


def test_three_attack_cycle_closed_form() -> None:
    # Each argument is attacked by exactly one argument of equal strength, so the symmetric
    # fixed point solves the same cubic s³ + s − .5 = 0 as the 2-cycle.
    root = math.sqrt(1 / 16 + 1 / 27)
    cardano = math.cbrt(0.25 + root) + math.cbrt(0.25 - root)
    result = build(THREE_ATTACK_CYCLE).solve()
    for value in result.values():
        assert value == pytest.approx(cardano, abs=1e-8)


# ---- star graphs: the general solver reproduces Eq. 17 ------------------------------------


@given(
    st.lists(st.floats(min_value=0.0, max_value=1.0), max_size=8),
    st.lists(st.floats(min_value=0.0, max_value=1.0), max_size=8),
)
def test_star_graph_equals_claim_score(supports: list[float], attacks: list[float]) -> None:
    q = Qbaf()
    q.add_argument("claim", 0.5)
    for i, w in enumerate(supports):
        q.add_argument(f"s{i}", w)
        q.support(f"s{i}", "claim")
    for i, w in enumerate(attacks):
        q.add_argument(f"a{i}", w)
        q.attack(f"a{i}", "claim")
    assert q.solve("quadratic-energy")["claim"] == pytest.approx(
        claim_score(supports, attacks), abs=1e-9
    )


# ---- forced RK4 agrees with the forward pass on acyclic graphs -----------------------------


@st.composite
def dags(draw: st.DrawFn) -> Graph:
    n = draw(st.integers(min_value=1, max_value=6))
    bases = {f"n{i}": draw(st.floats(min_value=0.0, max_value=1.0)) for i in range(n)}
    edges: list[tuple[str, str, str, float]] = []
    for j in range(n):
        for i in range(j):
            kind = draw(st.sampled_from(["none", "sup", "att"]))
            if kind != "none":
                edges.append((kind, f"n{i}", f"n{j}", draw(st.floats(0.0, 1.0))))
    return bases, edges


@settings(max_examples=60, deadline=None)
@given(dags(), st.sampled_from(SEMANTICS))
def test_dynamic_agrees_with_forward_pass(graph: Graph, semantics: str) -> None:
    q = build(graph)
    forward = q.solve(semantics, method="forward")
    dynamic = q.solve(semantics, method="dynamic")
    assert forward.keys() == dynamic.keys()
    for name in forward:
        assert dynamic[name] == pytest.approx(forward[name], abs=1e-6)
        assert 0.0 <= forward[name] <= 1.0


@settings(max_examples=60, deadline=None)
@given(dags(), st.sampled_from(SEMANTICS))
def test_forward_pass_matches_reference_iteration(graph: Graph, semantics: str) -> None:
    # On a DAG the Jacobi iteration reaches the exact values after depth-many sweeps.
    result = build(graph).solve(semantics)
    reference = jacobi(graph, semantics, iterations=len(graph[0]) + 1)
    for name, value in reference.items():
        assert result[name] == pytest.approx(value, abs=1e-12)


def test_leaves_keep_their_base_under_every_semantics() -> None:
    q = Qbaf()
    q.add_argument("x", 0.37)
    q.add_argument("zero", 0.0)
    for semantics in SEMANTICS:
        assert q.solve(semantics) == pytest.approx({"x": 0.37, "zero": 0.0})
    assert Qbaf().solve() == {}


# ---- errors --------------------------------------------------------------------------------


def test_construction_errors() -> None:
    q = Qbaf()
    q.add_argument("a", 0.5)
    with pytest.raises(ValueError, match="duplicate argument 'a'"):
        q.add_argument("a", 0.4)
    for bad in (-0.1, 1.01, math.nan):
        with pytest.raises(ValueError, match=r"\[0, 1\]"):
            q.add_argument("b", bad)
    with pytest.raises(ValueError, match="non-empty"):
        q.add_argument("", 0.5)
    with pytest.raises(ValueError, match="unknown target argument 'missing'"):
        q.support("a", "missing")
    with pytest.raises(ValueError, match="unknown source argument 'ghost'"):
        q.attack("ghost", "a")
    q.add_argument("b", 0.5)
    with pytest.raises(ValueError, match="non-negative"):
        q.attack("a", "b", -1.0)
    q.attack("a", "b")
    with pytest.raises(ValueError, match="already has an edge"):
        q.support("a", "b")
    assert dict(q.arguments) == {"a": 0.5, "b": 0.5}


def test_solve_errors() -> None:
    q = build(TWO_CYCLE)
    with pytest.raises(ValueError, match="unknown semantics 'h-categorizer'"):
        q.solve("h-categorizer")
    with pytest.raises(ValueError, match="cycle"):
        q.solve(method="forward")
    with pytest.raises(ValueError, match="unknown solve method"):
        q.solve(method="magic")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="dt"):
        q.solve(dt=0.0)
    heavy = Qbaf()
    heavy.add_argument("a", 0.5)
    heavy.add_argument("b", 0.5)
    heavy.support("a", "b", 2.0)
    assert heavy.solve()["b"] == pytest.approx(qe(0.5, 1.0))  # fine for energy semantics
    with pytest.raises(ValueError, match="df-quad needs edge weights in"):
        heavy.solve("df-quad")


def test_non_convergence_names_semantics_and_residual() -> None:
    q = build(TWO_CYCLE)
    with pytest.raises(NonConvergence) as info:
        q.solve("euler", max_steps=3)
    err = info.value
    assert isinstance(err, ValueError)
    assert err.semantics == "euler"
    assert err.steps == 3
    assert err.residual >= err.tol
    assert "euler" in str(err) and "residual" in str(err)


def test_self_attack_is_a_cycle() -> None:
    q = Qbaf()
    q.add_argument("a", 0.5)
    q.attack("a", "a")
    assert not q.is_acyclic()
    # DF-QuAD: s = .5 − .5·s ⇒ s = 1/3
    assert q.solve("df-quad")["a"] == pytest.approx(1 / 3, abs=1e-8)
