"""Invariants of Def. 3.2, checked when a node is committed (Eq. 9: a violating update is
rejected, never committed, and the rejection is traced).

- I_id: case-local ids are unique within a node's output.
- I_prov: every normalized evidence item carries provenance.
- I_arg: each argument's admissibility flag equals Adm_t(a) of Eq. 6 against the evidence the
  node was given, and its strength equals Eq. 14 with the grounding-aware discount η_v, times
  the factor of each recalled strength lesson it cites in M(a).
- I_qbaf: every QBAF edge has existing endpoints; argument weights come from the arguments.
- I_out: the final label belongs to the active label contract.
- I_trace (append-only, hash-chained) is enforced by ``Store.append_event``; I_gold by the
  model (a ``Case`` has no gold field) and ``SealedGold``; I_freeze joins with memory.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from pydantic import BaseModel

from semv.config import ConfidenceConfig, StrengthConfig
from semv.graph._spec import NodeSpec, project
from semv.model import (
    Arguments,
    Bundle,
    Evidence,
    MediaEvidence,
    MemoryGuidance,
    MemoryView,
    RankedEvidence,
    Retrieved,
    SolvedQbaf,
    Stance,
    Verdict,
)
from semv.reasoning import contract, memory_factor, remembered_strength, strength_from_features

Violation = tuple[str, str]

__all__ = ["Violation", "admissible", "check_node"]

_TOL = 1e-9


def admissible(cited: Iterable[str], verified: bool, evidence: Mapping[str, Evidence]) -> bool:
    """Adm_t(a) of Eq. 6: cites ≥ 1 item, all resolve, all have provenance, v_a = 1."""
    ids = tuple(cited)
    return (
        bool(ids)
        and all(i in evidence for i in ids)
        and all(evidence[i].provenance is not None for i in ids)
        and verified
    )


def check_node(
    spec: NodeSpec,
    value: BaseModel,
    committed: Mapping[str, BaseModel],
    *,
    strength: StrengthConfig | None = None,
) -> list[Violation]:
    """All violations of the node's output, given the committed values it was computed from.

    ``strength`` is the run's Eq. 14 configuration (default: the paper's weights)."""
    if isinstance(value, Bundle):
        return _evidence_checks(value.supplied)
    if isinstance(value, MediaEvidence | Retrieved | RankedEvidence):
        return _evidence_checks(value.evidence)
    if isinstance(value, Arguments):
        return _argument_checks(
            value,
            _input_evidence(spec, committed),
            strength or StrengthConfig(),
            _input_guidance(spec, committed),
        )
    if isinstance(value, SolvedQbaf):
        return _qbaf_checks(value, _input_arguments(spec, committed))
    if isinstance(value, Verdict):
        return _output_checks(value, str(spec.params.get("contract", "internal")))
    return []


def _evidence_checks(items: Iterable[Evidence]) -> list[Violation]:
    out: list[Violation] = []
    seen: set[str] = set()
    for item in items:
        if item.id in seen:
            out.append(("I_id", f"duplicate evidence id {item.id}"))
        seen.add(item.id)
        if item.provenance is None:
            out.append(("I_prov", f"evidence {item.id} has no provenance"))
    return out


def _inputs(spec: NodeSpec, committed: Mapping[str, BaseModel]) -> list[object]:
    vals: list[object] = []
    for inp in spec.inputs:
        for key in inp.keys:
            if key in committed:
                vals.append(project(committed[key], inp.path))
    return vals


def _input_evidence(spec: NodeSpec, committed: Mapping[str, BaseModel]) -> dict[str, Evidence]:
    pool: dict[str, Evidence] = {}
    for val in _inputs(spec, committed):
        if isinstance(val, RankedEvidence):
            pool.update({e.id: e for e in val.evidence})
    return pool


def _input_guidance(
    spec: NodeSpec, committed: Mapping[str, BaseModel]
) -> tuple[MemoryGuidance, ...]:
    """The recalled memory the node was given (its strength lessons may scale w_a)."""
    for val in _inputs(spec, committed):
        if isinstance(val, MemoryView):
            return val.guidance
    return ()


def _input_arguments(spec: NodeSpec, committed: Mapping[str, BaseModel]) -> Arguments | None:
    for val in _inputs(spec, committed):
        if isinstance(val, Arguments):
            return val
    return None


def _argument_checks(
    value: Arguments,
    evidence: Mapping[str, Evidence],
    strength: StrengthConfig,
    guidance: tuple[MemoryGuidance, ...] = (),
) -> list[Violation]:
    out: list[Violation] = []
    seen: set[str] = set()
    for arg in value.arguments:
        if arg.id in seen:
            out.append(("I_id", f"duplicate argument id {arg.id}"))
        seen.add(arg.id)
        if arg.subclaim != value.subclaim:
            out.append(("I_arg", f"{arg.id} belongs to {arg.subclaim}, not {value.subclaim}"))
        expected = admissible(arg.evidence, arg.verified, evidence)
        if arg.admissible != expected:
            out.append(
                ("I_arg", f"{arg.id} marked admissible={arg.admissible} but Adm(a)={expected}")
            )
        if arg.features is None:
            out.append(("I_arg", f"{arg.id} has no strength features"))
            continue
        want = remembered_strength(
            strength_from_features(
                arg.features,
                verified=arg.verified,
                has_uncertainty=bool(arg.uncertainty),
                config=strength,
            ),
            memory_factor(arg.memory, guidance),
        )
        if not math.isclose(arg.strength, want, abs_tol=_TOL):
            out.append(("I_arg", f"{arg.id} strength {arg.strength} != Eq. 14 value {want}"))
    return out


def _qbaf_checks(value: SolvedQbaf, args: Arguments | None) -> list[Violation]:
    out: list[Violation] = []
    q = value.qbaf
    nodes = set(q.arguments) | {q.subclaim}
    for edge in q.edges:
        if edge.src not in nodes or edge.dst not in nodes:
            out.append(("I_qbaf", f"edge {edge.src}->{edge.dst} has a missing endpoint"))
        if edge.kind not in (Stance.SUPPORT, Stance.ATTACK):
            out.append(("I_qbaf", f"edge {edge.src}->{edge.dst} is neither support nor attack"))
    if args is not None:
        by_id = {a.id: a for a in args.arguments}
        for arg_id, weight in q.arguments.items():
            source = by_id.get(arg_id)
            if source is None:
                out.append(("I_qbaf", f"QBAF node {arg_id} is not an argument of {args.subclaim}"))
            elif weight > source.strength + _TOL:
                out.append(("I_qbaf", f"{arg_id} weight {weight} exceeds its strength"))
    if not 0.0 <= q.score <= 1.0:
        out.append(("I_qbaf", f"score {q.score} outside [0, 1]"))
    return out


def _output_checks(value: Verdict, contract_name: str) -> list[Violation]:
    active = contract(contract_name, config=ConfidenceConfig())  # its labels only
    out: list[Violation] = []
    if value.label not in active.labels:
        out.append(
            ("I_out", f"label {value.label!r} not in contract {active.name} {active.labels}")
        )
    unknown = set(value.probabilities) - set(active.labels)
    if unknown:
        out.append(("I_out", f"probabilities name labels outside the contract: {sorted(unknown)}"))
    total = sum(value.probabilities.values())
    if not math.isclose(total, 1.0, abs_tol=1e-6):
        out.append(("I_out", f"probabilities sum to {total}, not 1"))
    return out
