"""Typed routing of review actions (Eq. 22) and the batch restart stage u* (Eq. 23).

The route follows from what an action does to the state, never from words in its reason:

* ``accept`` → Q;
* introducing (``add`` with E^+), replacing (an E^Δ item whose source, URL, date, type,
  reliability or provenance differs) or challenging (``reject`` of an evidence item) source
  evidence → R;
* challenging the content of existing evidence (an E^Δ item, or an ``edit`` of an evidence
  item's text, that changes only what it says: content, structured data, media location) → V;
* rejecting an argument-to-argument relation (A-QBAF MV2026 §2.5; relations are built with
  the arguments in ``argue:k``) → A;
* any other edit, addition or rejection → A.

A valid explicit target (``meta.target_stage``) overrides the default. It is valid when it is
a restart stage (C, R, V, A or Q) no later than the default: restarting earlier is always safe
(the action's payload still enters its own node), restarting later would skip the node the
payload must enter. A batch restarts at the earliest route (Eq. 23). The affected subclaims
C_H come from the ids: an argument's or a relation's subclaim, a subclaim, or every subclaim
whose evidence pool holds an evidence item. An id that resolves to nothing in the run is an
input error (``UnknownTarget``: the valid ids are listed, with the closest ones as "did you
mean"). An id
that exists in the run but cannot be localised to a subclaim (``BaseView.unlocalised``), or a
restart at C (shared by every subclaim), widens the scope to all subclaims and the plan says why.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

from pydantic import Field

from semv.errors import ContestError
from semv.model import (
    Accept,
    Add,
    Argument,
    Dimension,
    Edit,
    Evidence,
    Frozen,
    Reject,
    Relation,
    Stage,
)

__all__ = [
    "ORDER",
    "RESTART_STAGES",
    "BaseView",
    "RevisionPlan",
    "Routed",
    "UnknownTarget",
    "content_changed",
    "earliest",
    "evidence_edits",
    "plan_batch",
    "route_action",
    "source_changed",
]

ORDER: Final = (
    Stage.CLAIMS,
    Stage.RETRIEVE,
    Stage.VALIDATE,
    Stage.ARGUE,
    Stage.QBAF,
    Stage.AGGREGATE,
    Stage.RENDER,
)
"""C ≺ R ≺ V ≺ A ≺ Q ≺ F ≺ O (§4.5)."""

RESTART_STAGES: Final = frozenset(ORDER[:5])
"""Stages a revision may restart from; F and O are always recomputed after Q."""

_SOURCE_FIELDS: Final = (
    "source",
    "source_type",
    "url",
    "title",
    "published",
    "reliability",
    "modality",
)
_CONTENT_FIELDS: Final = ("content", "observation", "location")

TargetKind = Literal["argument", "relation", "evidence", "subclaim", "unknown"]
Action = Accept | Reject | Edit | Add


def earliest(stages: Sequence[Stage]) -> Stage:
    """min_≺ of Eq. 23."""
    return min(stages, key=ORDER.index)


def source_changed(before: Evidence, after: Evidence) -> bool:
    """The edit replaces the source: who published it, where, when, how reliable."""
    if any(getattr(before, f) != getattr(after, f) for f in _SOURCE_FIELDS):
        return True
    b, a = before.provenance, after.provenance
    return (b.url if b else None) != (a.url if a else None)


def content_changed(before: Evidence, after: Evidence) -> bool:
    """The edit changes what the item says."""
    return any(getattr(before, f) != getattr(after, f) for f in _CONTENT_FIELDS)


@dataclass(frozen=True)
class BaseView:
    """What routing needs from the run being revised: its subclaims, arguments, evidence."""

    subclaims: Mapping[str, str]
    """Subclaim id → dimension."""
    arguments: Mapping[str, Argument]
    pools: Mapping[str, Mapping[str, Evidence]] = field(default_factory=dict)
    """Dimension → evidence id → item, as retrieved for that subclaim (``retrieve:k``)."""
    unlocalised: frozenset[str] = frozenset()
    """Ids that exist in the run but belong to no subclaim (contesting one widens the scope)."""
    relations: Mapping[str, Relation] = field(default_factory=dict)
    """Relation id → argument-to-argument relation (``argue:k``)."""

    def holders(self, evidence_id: str) -> tuple[str, ...]:
        return tuple(k for k, pool in self.pools.items() if evidence_id in pool)

    def evidence(self, evidence_id: str) -> Evidence | None:
        for pool in self.pools.values():
            if evidence_id in pool:
                return pool[evidence_id]
        return None

    @property
    def dimensions(self) -> tuple[str, ...]:
        return tuple(self.subclaims.values())

    def kind(self, target: str) -> TargetKind:
        if target in self.arguments:
            return "argument"
        if target in self.relations:
            return "relation"
        if target in self.subclaims:
            return "subclaim"
        if self.holders(target):
            return "evidence"
        return "unknown"

    def known_ids(self) -> list[str]:
        """Every id an action may target: subclaims, arguments, relations, evidence items."""
        evidence = sorted({e for pool in self.pools.values() for e in pool} | self.unlocalised)
        return [*self.subclaims, *sorted(self.arguments), *sorted(self.relations), *evidence]


class UnknownTarget(ContestError):
    """A review action names an id that resolves to nothing in the run (exit 2)."""

    def __init__(self, label: str, target: str, view: BaseView) -> None:
        known = view.known_ids()
        close = difflib.get_close_matches(target, known, n=3, cutoff=0.6)
        hint = f" Did you mean {' or '.join(close)}?" if close else ""
        evidence = [
            i
            for i in known
            if i not in view.subclaims and i not in view.arguments and i not in view.relations
        ]
        shown = ", ".join(evidence[:20]) + (
            f", ... ({len(evidence) - 20} more)" if len(evidence) > 20 else ""
        )
        super().__init__(
            f"{label}: {target} is not a subclaim, argument, relation or evidence id of the "
            f"run.{hint}\n"
            f"  subclaims: {', '.join(view.subclaims) or '(none)'}\n"
            f"  arguments: {', '.join(sorted(view.arguments)) or '(none)'}\n"
            f"  relations: {', '.join(sorted(view.relations)) or '(none)'}\n"
            f"  evidence: {shown or '(none)'}"
        )
        self.target = target
        self.suggestions = tuple(close)


class Routed(Frozen):
    """One action's routing decision."""

    index: int = Field(description="Position of the action in the batch.")
    op: str
    target: str
    target_kind: str
    default: Stage = Field(description="route(h) of Eq. 22.")
    route: Stage = Field(description="The stage used: the default or a valid explicit target.")
    rule: str = Field(description="Which case of Eq. 22 decided the default.")
    subclaims: tuple[str, ...] = Field(description="Dimensions the action affects (C_h).")
    widened: bool = Field(False, description="The ids did not establish a safe scope.")
    notes: tuple[str, ...] = ()


class RevisionPlan(Frozen):
    """u* and C_H of Eq. 23, with every action's routing decision."""

    restart: Stage
    subclaims: tuple[str, ...]
    actions: tuple[Routed, ...]
    widened: tuple[str, ...] = Field((), description="Why the scope was widened, if it was.")


def evidence_edits(h: Edit, view: BaseView) -> list[Evidence]:
    """E^Δ_h, plus the target item with revised text when an evidence item is edited."""
    edits = list(h.evidence_edited)
    if h.text is not None and view.kind(h.target) == "evidence":
        original = view.evidence(h.target)
        if original is not None and all(e.id != h.target for e in edits):
            edits.append(original.model_copy(update={"content": h.text}))
    return edits


def _label(h: Action, index: int) -> str:
    return f"action {index} ({h.op} {h.target})"


def route_action(h: Action, view: BaseView, index: int = 0) -> Routed:
    """Eq. 22 for one action, with its explicit override and affected subclaims."""
    kind = view.kind(h.target)
    notes: list[str] = []
    components: list[tuple[Stage, str]] = []
    dims: list[str] = []
    if kind == "argument":
        dims.append(view.subclaims.get(view.arguments[h.target].subclaim, ""))
    elif kind == "relation":
        dims.append(view.subclaims.get(view.relations[h.target].subclaim, ""))
        if not isinstance(h, Reject):
            raise ContestError(
                f"{_label(h, index)}: an argument-to-argument relation can only be rejected "
                "(reject it, or act on one of its arguments)"
            )
    elif kind == "subclaim":
        dims.append(view.subclaims[h.target])
    elif kind == "evidence":
        dims.extend(view.holders(h.target))

    if isinstance(h, Accept):
        components.append((Stage.QBAF, "accept"))
    elif isinstance(h, Add):
        if h.evidence_added:
            components.append((Stage.RETRIEVE, "introduces source evidence (E+)"))
            if kind == "evidence":
                raise ContestError(
                    f"{_label(h, index)}: new evidence must be added to a subclaim or an "
                    "argument, not to another evidence item"
                )
        if h.text is not None:
            components.append((Stage.ARGUE, "adds an argument"))
        if not components:
            raise ContestError(f"{_label(h, index)}: an add needs text or evidence_added")
        for ev_id in h.cites:
            dims.extend(_cited(ev_id, view, notes))
    elif isinstance(h, Reject):
        if kind == "evidence":
            components.append((Stage.RETRIEVE, "challenges source evidence (rejects an item)"))
        elif kind == "relation":
            components.append((Stage.ARGUE, "rejects an argument-to-argument relation"))
        else:
            components.append((Stage.ARGUE, "rejects an argument"))
    else:
        for item in evidence_edits(h, view):
            original = view.evidence(item.id)
            if original is None:
                raise ContestError(
                    f"{_label(h, index)}: edited evidence {item.id} is not in the run "
                    "(use add with evidence_added for new evidence)"
                )
            dims.extend(view.holders(item.id))
            if source_changed(original, item):
                components.append((Stage.RETRIEVE, f"replaces source evidence {item.id}"))
            elif content_changed(original, item):
                components.append((Stage.VALIDATE, f"challenges the content of {item.id}"))
            else:
                notes.append(f"edited evidence {item.id} is identical to the original")
        argument_edit = h.text is not None and kind != "evidence"
        if argument_edit or h.stance is not None or h.cites:
            components.append((Stage.ARGUE, "edits an argument"))
        for ev_id in h.cites:
            dims.extend(_cited(ev_id, view, notes))
        if not components:
            raise ContestError(f"{_label(h, index)}: the edit changes nothing")

    if kind == "unknown" and h.target not in view.unlocalised:
        raise UnknownTarget(_label(h, index), h.target, view)
    widened = kind == "unknown" or (kind == "argument" and not any(dims))
    if widened:
        notes.append(
            f"{h.target} exists in the run but belongs to no subclaim: "
            "scope widened to every subclaim"
        )
        dims = list(view.dimensions)
    stage, rule = min(components, key=lambda c: ORDER.index(c[0]))
    route = stage
    explicit = h.meta.target_stage
    if explicit is not None:
        if explicit in RESTART_STAGES and ORDER.index(explicit) <= ORDER.index(stage):
            route = explicit
            notes.append(f"explicit target {explicit.value} overrides {stage.value}")
        else:
            notes.append(
                f"explicit target {explicit.value} ignored: this action's payload enters "
                f"stage {stage.value}, and a revision restarts no later than that"
            )
    return Routed(
        index=index,
        op=h.op,
        target=h.target,
        target_kind=kind,
        default=stage,
        route=route,
        rule=rule,
        subclaims=tuple(dict.fromkeys(d for d in dims if d)),
        widened=widened,
        notes=tuple(notes),
    )


def _cited(ev_id: str, view: BaseView, notes: list[str]) -> tuple[str, ...]:
    if view.holders(ev_id):
        return ()
    notes.append(f"cited evidence {ev_id} is not in the run; the argument will not resolve it")
    return ()


def plan_batch(actions: Sequence[Action], view: BaseView) -> RevisionPlan:
    """Route every action; u* = the earliest route (Eq. 23); C_H = the union of scopes."""
    if not actions:
        raise ContestError("a review batch needs at least one action")
    routed = tuple(route_action(h, view, i) for i, h in enumerate(actions))
    restart = earliest([r.route for r in routed])
    dims = [d for r in routed for d in r.subclaims]
    widened = [
        f"action {r.index}: {r.target} exists in the run but cannot be localised to a subclaim; "
        "scope widened to every subclaim"
        for r in routed
        if r.widened
    ]
    if restart is Stage.CLAIMS:
        widened.append("restart at C: the claims node is shared by every subclaim")
        dims = list(view.dimensions)
    if not dims:
        widened.append("the actions name no subclaim: scope widened to every subclaim")
        dims = list(view.dimensions)
    order = [d.value for d in Dimension]
    scope = sorted(set(dims), key=lambda d: order.index(d) if d in order else len(order))
    return RevisionPlan(
        restart=restart, subclaims=tuple(scope), actions=routed, widened=tuple(widened)
    )
