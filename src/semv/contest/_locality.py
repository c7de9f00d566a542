"""Recomputation sets of the three policies, the scope Z*, locality (Def. 4.1, Eq. 24) and
the before/after decision delta of a revision."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from pydantic import Field

from semv.contest._batch import Policy
from semv.contest._routing import ORDER, RevisionPlan
from semv.model import Frozen, Stage, Verdict

__all__ = [
    "DecisionDelta",
    "Locality",
    "SubclaimDelta",
    "decision_delta",
    "degradation_bound",
    "forced_nodes",
    "locality",
    "node_stage",
    "scope_nodes",
]

_NODE_STAGE: Final = {
    "claims": Stage.CLAIMS,
    "recall": Stage.CLAIMS,
    "plan": Stage.CLAIMS,
    "retrieve": Stage.RETRIEVE,
    "validate": Stage.VALIDATE,
    "argue": Stage.ARGUE,
    "qbaf": Stage.QBAF,
    "escalate": Stage.QBAF,
    "aggregate": Stage.AGGREGATE,
    "render": Stage.RENDER,
}
"""The stage symbol of each node; recall and plan follow claims and restart with it."""


def node_stage(key: str) -> Stage | None:
    """The stage symbol of node ``key`` (None for ``bundle`` and ``media:*``, before C)."""
    return _NODE_STAGE.get(key.partition(":")[0])


def _after(key: str, start: Stage) -> bool:
    stage = node_stage(key)
    return stage is not None and ORDER.index(stage) >= ORDER.index(start)


def scope_nodes(keys: Iterable[str], plan: RevisionPlan) -> frozenset[str]:
    """Z*: the downstream closure of u* for C_H (Eq. 23), then aggregation and output."""
    dims = set(plan.subclaims)
    out: set[str] = set()
    for key in keys:
        stage = node_stage(key)
        if stage is None or not _after(key, plan.restart):
            continue
        part = key.partition(":")[2]
        if stage in (Stage.AGGREGATE, Stage.RENDER) or not part or part in dims:
            out.add(key)
    return frozenset(out)


def forced_nodes(keys: Iterable[str], policy: Policy, plan: RevisionPlan) -> frozenset[str]:
    """The nodes a policy recomputes unconditionally.

    U: every node from claims on. C: every node of every subclaim from u* on. C+S: the
    restart nodes u*(k) of the affected subclaims only; the rest of Z* recomputes when an
    input changed (early cut-off). Aggregation and output are recomputed under all three.
    """
    keys = list(keys)
    if policy is Policy.GLOBAL:
        return frozenset(k for k in keys if node_stage(k) is not None)
    fixed = {k for k in keys if node_stage(k) in (Stage.AGGREGATE, Stage.RENDER)}
    if policy is Policy.CAUSAL:
        return frozenset(fixed | {k for k in keys if _after(k, plan.restart)})
    dims = set(plan.subclaims)
    restart = {
        k
        for k in keys
        if node_stage(k) is plan.restart
        and (k.partition(":")[2] in dims or not k.partition(":")[2])
    }
    return frozenset(fixed | restart)


class Locality(Frozen):
    """Loc(H) of Eq. 24 and the stage transitions executed, against a global rerun."""

    value: float = Field(ge=0.0, le=1.0, description="Loc(H), Eq. 24.")
    scope: tuple[str, ...] = Field(description="Z*: the nodes inside the scope.")
    outside: int = Field(description="|Z \\ Z*|.")
    changed_outside: tuple[str, ...] = Field(description="Nodes outside Z* that changed.")
    changed_inside: tuple[str, ...] = Field(description="Nodes inside Z* that changed.")
    executed: tuple[str, ...] = Field(description="Nodes this revision executed.")
    global_transitions: int = Field(description="Nodes a global rerun executes.")

    @property
    def avoided(self) -> float:
        """Fraction of a global rerun's stage transitions this revision did not execute."""
        if self.global_transitions == 0:
            return 0.0
        return max(0.0, 1.0 - len(self.executed) / self.global_transitions)


def locality(
    before: Mapping[str, tuple[str, str]],
    after: Mapping[str, tuple[str, str]],
    scope: frozenset[str],
    executed: Iterable[str],
) -> Locality:
    """Eq. 24 over the graph's nodes: z(s) is a node's (fingerprint, output hash)."""
    keys = sorted(after)
    ran = set(executed)
    changed = [k for k in keys if before.get(k) != after[k]]
    outside = [k for k in keys if k not in scope]
    changed_out = tuple(k for k in changed if k not in scope)
    value = 1.0 if not outside else 1.0 - len(changed_out) / len(outside)
    return Locality(
        value=value,
        scope=tuple(sorted(scope)),
        outside=len(outside),
        changed_outside=changed_out,
        changed_inside=tuple(k for k in changed if k in scope),
        executed=tuple(sorted(ran)),
        # a global rerun executes every node from claims on, and the nodes before claims
        # (bundle, media) that this revision had to execute too: executed <= global always
        global_transitions=sum(node_stage(k) is not None or k in ran for k in keys),
    )


def degradation_bound(
    changed: Iterable[str], computed: frozenset[str], true: frozenset[str], keys: Iterable[str]
) -> tuple[int, int, float]:
    r"""Prop. 4.2 (Eq. 25): δ_H = |Z^true \ Z*| untracked dependencies, σ_H = changed objects
    outside Z^true ∪ Z*, and the bound (δ_H + σ_H) / |Z \ Z*| on 1 − Loc(H)."""
    outside = [k for k in keys if k not in computed]
    untracked = len(true - computed)
    spurious = sum(1 for k in changed if k not in true and k not in computed)
    bound = (untracked + spurious) / len(outside) if outside else 0.0
    return untracked, spurious, bound


class SubclaimDelta(Frozen):
    dimension: str
    score_before: float
    score_after: float
    band_before: str
    band_after: str


class DecisionDelta(Frozen):
    """The first-pass F^(0) against the revised F^(H): label, confidence, scores, bands."""

    label_before: str
    label_after: str
    confidence_before: float
    confidence_after: float
    subclaims: tuple[SubclaimDelta, ...]

    @property
    def label_changed(self) -> bool:
        return self.label_before != self.label_after


def decision_delta(before: Verdict, after: Verdict) -> DecisionDelta:
    old = {d.dimension.value: d for d in before.decisions}
    return DecisionDelta(
        label_before=before.label,
        label_after=after.label,
        confidence_before=before.confidence,
        confidence_after=after.confidence,
        subclaims=tuple(
            SubclaimDelta(
                dimension=d.dimension.value,
                score_before=old[d.dimension.value].score if d.dimension.value in old else 0.5,
                score_after=d.score,
                band_before=(
                    old[d.dimension.value].band.value if d.dimension.value in old else "n/a"
                ),
                band_after=d.band.value,
            )
            for d in after.decisions
        ),
    )
