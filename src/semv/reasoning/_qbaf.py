"""A general weighted quantitative bipolar argumentation framework (QBAF) and its solver.

SEMV's claim graphs (Eq. 15) are stars, for which Eq. 17 is the closed form; this class
solves arbitrary graphs (for example after a reviewer adds argument-to-argument edges) under
three gradual semantics:

* ``quadratic-energy`` — Potyka, "Continuous Dynamical Systems for Weighted Bipolar
  Argumentation", KR 2018 (the semantics of Eq. 17 and of A-QBAF MV2026 §2.6.1);
* ``df-quad`` — Rago, Toni, Aurisicchio & Baroni, "Discontinuity-Free Decision Support with
  Quantitative Argumentation Debates", KR 2016;
* ``euler`` — Amgoud & Ben-Naim, "Evaluation of arguments in weighted bipolar graphs",
  IJAR 99 (2018).

An edge weight multiplies the strength of its source before aggregation.

Acyclic graphs are solved exactly by one forward pass in topological order. Cyclic graphs are
solved as in Potyka (KR 2018): the continuous dynamical system ``ds/dt = T(s) − s`` (``T`` the
semantics' update applied to every argument) is integrated with the classic fourth-order
Runge-Kutta method from ``s(0) = β`` until ``max |ds/dt| < tol``; its limit is a fixed point of
``T``. The same integration can be forced on an acyclic graph (``method="dynamic"``), where it
converges to the forward-pass result.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from graphlib import CycleError, TopologicalSorter
from types import MappingProxyType
from typing import Literal

from semv.reasoning._semantics import SEMANTICS, UPDATES, Semantics, UpdateFn

__all__ = ["NonConvergence", "Qbaf", "SolveMethod"]

SolveMethod = Literal["auto", "forward", "dynamic"]
"""``auto``: forward pass when acyclic, RK4 otherwise; ``forward``: acyclic only;
``dynamic``: always RK4."""

_METHODS: tuple[SolveMethod, ...] = ("auto", "forward", "dynamic")


class NonConvergence(ValueError):
    """The RK4 integration of a cyclic QBAF did not reach ``max |ds/dt| < tol``.

    Attributes:
        semantics: the semantics being solved.
        residual: ``max |ds/dt|`` at the last state.
        steps: the number of RK4 steps taken.
        tol: the requested tolerance.
    """

    def __init__(self, semantics: str, residual: float, steps: int, tol: float) -> None:
        super().__init__(
            f"{semantics} semantics did not converge: after {steps} RK4 steps the residual "
            f"max |ds/dt| = {residual:.3e} is not below tol = {tol:.3e}"
        )
        self.semantics = semantics
        self.residual = residual
        self.steps = steps
        self.tol = tol


@dataclass(frozen=True)
class _Edge:
    support: bool
    weight: float


class Qbaf:
    """A weighted QBAF ⟨A, R⁺, R⁻, β, w⟩: arguments with base scores in [0, 1], support and
    attack edges with non-negative weights.

    >>> q = Qbaf()
    >>> q.add_argument("claim", 0.5)
    >>> q.add_argument("a", 1.0)
    >>> q.support("a", "claim")
    >>> round(q.solve()["claim"], 4)
    0.75
    """

    def __init__(self) -> None:
        self._base: dict[str, float] = {}
        self._edges: dict[tuple[str, str], _Edge] = {}

    # ---- construction ------------------------------------------------------------------

    def add_argument(self, name: str, base: float) -> None:
        """Add an argument with base score β(name) ∈ [0, 1].

        Raises:
            ValueError: ``name`` is empty or already present, or ``base`` is outside [0, 1].
        """
        if not isinstance(name, str) or not name:
            raise ValueError(f"argument name must be a non-empty string, got {name!r}")
        if name in self._base:
            raise ValueError(f"duplicate argument {name!r}")
        if not isinstance(base, int | float) or not math.isfinite(base) or not 0 <= base <= 1:
            raise ValueError(f"base score of {name!r} must lie in [0, 1], got {base!r}")
        self._base[name] = float(base)

    def support(self, src: str, dst: str, weight: float = 1.0) -> None:
        """Add a support edge ``src → dst``; ``weight`` multiplies the strength of ``src``.

        Raises:
            ValueError: an endpoint is unknown, the pair already has an edge, or ``weight``
                is negative or not finite.
        """
        self._add_edge(src, dst, weight, support=True)

    def attack(self, src: str, dst: str, weight: float = 1.0) -> None:
        """Add an attack edge ``src → dst``; ``weight`` multiplies the strength of ``src``.

        Raises:
            ValueError: an endpoint is unknown, the pair already has an edge, or ``weight``
                is negative or not finite.
        """
        self._add_edge(src, dst, weight, support=False)

    def _add_edge(self, src: str, dst: str, weight: float, *, support: bool) -> None:
        kind = "support" if support else "attack"
        for role, name in (("source", src), ("target", dst)):
            if name not in self._base:
                raise ValueError(f"{kind} edge {src!r} → {dst!r}: unknown {role} argument {name!r}")
        if (src, dst) in self._edges:
            raise ValueError(f"{kind} edge {src!r} → {dst!r}: the pair already has an edge")
        if not isinstance(weight, int | float) or not math.isfinite(weight) or weight < 0:
            raise ValueError(
                f"{kind} edge {src!r} → {dst!r}: weight must be finite and non-negative, "
                f"got {weight!r}"
            )
        self._edges[(src, dst)] = _Edge(support=support, weight=float(weight))

    # ---- inspection --------------------------------------------------------------------

    @property
    def arguments(self) -> Mapping[str, float]:
        """Argument name → base score (read-only, insertion order)."""
        return MappingProxyType(self._base)

    def is_acyclic(self) -> bool:
        """Whether the support ∪ attack relation has no cycle (self-loops count as cycles)."""
        try:
            tuple(self._sorter().static_order())
        except CycleError:
            return False
        return True

    # ---- solving -----------------------------------------------------------------------

    def solve(
        self,
        semantics: Semantics | str = "quadratic-energy",
        *,
        method: SolveMethod = "auto",
        dt: float = 0.1,
        tol: float = 1e-10,
        max_steps: int = 100_000,
    ) -> dict[str, float]:
        """The final strength σ(a) of every argument under ``semantics``.

        Args:
            semantics: ``quadratic-energy`` (default), ``df-quad`` or ``euler``.
            method: ``auto`` (forward pass when acyclic, RK4 otherwise), ``forward`` (acyclic
                graphs only) or ``dynamic`` (RK4 on ``ds/dt = T(s) − s`` from ``s(0) = β``).
            dt: RK4 step size.
            tol: convergence criterion ``max |ds/dt| < tol`` of the RK4 integration.
            max_steps: RK4 step budget.

        Returns:
            Argument name → strength, in insertion order.

        Raises:
            ValueError: unknown semantics or method; ``forward`` on a cyclic graph; invalid
                ``dt``, ``tol`` or ``max_steps``; ``df-quad`` with an edge weight above 1
                (its product aggregation needs weighted strengths in [0, 1]).
            NonConvergence: the RK4 integration did not converge within ``max_steps``.
        """
        update = _update_for(semantics)
        if method not in _METHODS:
            raise ValueError(f"unknown solve method {method!r}; valid: {', '.join(_METHODS)}")
        if semantics == "df-quad":
            heavy = [pair for pair, edge in self._edges.items() if edge.weight > 1]
            if heavy:
                src, dst = heavy[0]
                raise ValueError(
                    f"df-quad needs edge weights in [0, 1]; edge {src!r} → {dst!r} has weight "
                    f"{self._edges[heavy[0]].weight!r}"
                )
        if method != "dynamic":
            try:
                order = tuple(self._sorter().static_order())
            except CycleError as exc:
                if method == "forward":
                    raise ValueError(
                        f"the graph has a cycle through {exc.args[1]!r}; "
                        "use method='auto' or 'dynamic'"
                    ) from exc
            else:
                return self._forward(order, update)
        if not (math.isfinite(dt) and dt > 0):
            raise ValueError(f"dt must be a positive number, got {dt!r}")
        if not (math.isfinite(tol) and tol > 0):
            raise ValueError(f"tol must be a positive number, got {tol!r}")
        if isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 0:
            raise ValueError(f"max_steps must be a non-negative integer, got {max_steps!r}")
        return self._dynamic(str(semantics), update, dt=dt, tol=tol, max_steps=max_steps)

    def _sorter(self) -> TopologicalSorter[str]:
        sorter: TopologicalSorter[str] = TopologicalSorter()
        for name in self._base:
            sorter.add(name)
        for src, dst in self._edges:
            sorter.add(dst, src)
        return sorter

    def _incoming(self) -> dict[str, tuple[list[tuple[str, float]], list[tuple[str, float]]]]:
        incoming: dict[str, tuple[list[tuple[str, float]], list[tuple[str, float]]]] = {
            name: ([], []) for name in self._base
        }
        for (src, dst), edge in self._edges.items():
            supporters, attackers = incoming[dst]
            (supporters if edge.support else attackers).append((src, edge.weight))
        return incoming

    def _forward(self, order: Sequence[str], update: UpdateFn) -> dict[str, float]:
        incoming = self._incoming()
        strength: dict[str, float] = {}
        for name in order:
            supporters, attackers = incoming[name]
            strength[name] = _clip01(
                update(
                    self._base[name],
                    [w * strength[src] for src, w in supporters],
                    [w * strength[src] for src, w in attackers],
                )
            )
        return {name: strength[name] for name in self._base}

    def _dynamic(
        self, semantics: str, update: UpdateFn, *, dt: float, tol: float, max_steps: int
    ) -> dict[str, float]:
        names = list(self._base)
        index = {name: i for i, name in enumerate(names)}
        bases = [self._base[name] for name in names]
        incoming = self._incoming()
        sup = [[(index[src], w) for src, w in incoming[name][0]] for name in names]
        att = [[(index[src], w) for src, w in incoming[name][1]] for name in names]

        def derivative(state: Sequence[float]) -> list[float]:
            return [
                update(
                    bases[i],
                    [w * state[j] for j, w in sup[i]],
                    [w * state[j] for j, w in att[i]],
                )
                - state[i]
                for i in range(len(state))
            ]

        state = list(bases)
        half = dt / 2
        step = 0
        while True:
            k1 = derivative(state)
            residual = max((abs(k) for k in k1), default=0.0)
            if residual < tol:
                break
            if step >= max_steps:
                raise NonConvergence(semantics, residual, step, tol)
            k2 = derivative([s + half * k for s, k in zip(state, k1, strict=True)])
            k3 = derivative([s + half * k for s, k in zip(state, k2, strict=True)])
            k4 = derivative([s + dt * k for s, k in zip(state, k3, strict=True)])
            state = [
                s + dt / 6 * (a + 2 * b + 2 * c + d)
                for s, a, b, c, d in zip(state, k1, k2, k3, k4, strict=True)
            ]
            step += 1
        return {name: _clip01(state[i]) for i, name in enumerate(names)}


def _update_for(semantics: str) -> UpdateFn:
    for name in SEMANTICS:
        if semantics == name:
            return UPDATES[name]
    raise ValueError(f"unknown semantics {semantics!r}; valid: {', '.join(SEMANTICS)}")


def _clip01(value: float) -> float:
    return min(max(value, 0.0), 1.0)
