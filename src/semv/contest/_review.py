"""The review state a revision carries: Apply(s, H) of Eq. 23, per subclaim and per stage.

A revision run inherits its parent's review state and adds its batch, so reviewed arguments
and evidence are retained (and, when recomputation starts at A or earlier, revalidated and
rescored) in every later revision. Each part of the state enters exactly one node of one
subclaim's chain as a parameter (``retrieve:k`` R, ``validate:k`` V, ``argue:k`` A, ``qbaf:k``
Q), so the fingerprints of every other node are untouched.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import Field

from semv.contest._routing import Action, BaseView, RevisionPlan, evidence_edits, source_changed
from semv.errors import ContestError
from semv.model import (
    Accept,
    Add,
    Argument,
    Edit,
    Evidence,
    Frozen,
    ProducerKind,
    Provenance,
    Reject,
    Relation,
    RelationKind,
    Stage,
    Stance,
)

__all__ = [
    "HUMAN_NUMBER_BASE",
    "ArgumentRef",
    "HumanArgument",
    "RelationRef",
    "ReviewLogEntry",
    "ReviewState",
    "SubclaimReview",
    "apply_batch",
    "human_evidence",
]

HUMAN_NUMBER_BASE = 1000
"""Human arguments are numbered from here (``arg:when:sup:1001``), so their ids stay stable
however many arguments the agents produce."""


class ArgumentRef(Frozen):
    """An argument as the reviewer saw it. Matching is by content (stance, text, evidence),
    not by id: agent argument ids are positional and may name a different argument after
    recomputation."""

    id: str
    stance: Stance
    text: str
    evidence: tuple[str, ...]

    @classmethod
    def of(cls, argument: Argument) -> ArgumentRef:
        return cls(
            id=argument.id, stance=argument.stance, text=argument.text, evidence=argument.evidence
        )

    def matches(self, argument: Argument) -> bool:
        return (argument.stance, argument.text, argument.evidence) == (
            self.stance,
            self.text,
            self.evidence,
        )


class RelationRef(Frozen):
    """An argument-to-argument relation as the reviewer saw it, matched like ``ArgumentRef``
    by content: its kind and its two arguments (ids are positional)."""

    id: str
    kind: RelationKind
    src: ArgumentRef
    dst: ArgumentRef

    @classmethod
    def of(cls, relation: Relation, arguments: Mapping[str, Argument]) -> RelationRef:
        return cls(
            id=relation.id,
            kind=relation.kind,
            src=ArgumentRef.of(arguments[relation.src]),
            dst=ArgumentRef.of(arguments[relation.dst]),
        )

    def matches(self, relation: Relation, arguments: Mapping[str, Argument]) -> bool:
        src, dst = arguments.get(relation.src), arguments.get(relation.dst)
        if relation.kind is not self.kind or src is None or dst is None:
            return False
        if self.src.matches(src) and self.dst.matches(dst):
            return True
        return relation.mutual and self.src.matches(dst) and self.dst.matches(src)


class HumanArgument(Frozen):
    """An argument written by a reviewer (an ``add``, or the linked replacement of an edit)."""

    number: int = Field(gt=HUMAN_NUMBER_BASE)
    stance: Stance
    text: str = Field(min_length=1)
    cites: tuple[str, ...]
    replaces: ArgumentRef | None = None
    reviewer: str
    reason: str


class SubclaimReview(Frozen):
    """Everything reviewers changed for one subclaim, by the stage it enters."""

    added: tuple[Evidence, ...] = Field((), description="R: E^+ (human provenance).")
    replaced: tuple[Evidence, ...] = Field((), description="R: E^Δ items with a new source.")
    removed: tuple[str, ...] = Field((), description="R: rejected evidence ids.")
    edited: tuple[Evidence, ...] = Field((), description="V: E^Δ items with new content.")
    rejected: tuple[ArgumentRef, ...] = Field((), description="A: rejected or edited arguments.")
    humans: tuple[HumanArgument, ...] = Field((), description="A: reviewer arguments.")
    accepted: tuple[ArgumentRef, ...] = Field((), description="Q: accepted arguments.")
    rejected_relations: tuple[RelationRef, ...] = Field(
        (), description="A: rejected argument-to-argument relations."
    )

    def payload(self, stage: Stage) -> dict[str, Any] | None:
        """The parameter of this subclaim's ``stage`` node; None when there is nothing."""
        part: dict[str, Any]
        if stage is Stage.RETRIEVE:
            part = {"added": self.added, "replaced": self.replaced, "removed": self.removed}
        elif stage is Stage.VALIDATE:
            pinned = tuple(e.id for e in (*self.added, *self.replaced, *self.edited))
            part = {"edited": self.edited, "pinned": pinned}
        elif stage is Stage.ARGUE:
            part = {"rejected": self.rejected, "humans": self.humans}
            if self.rejected_relations:  # absent otherwise: earlier payloads stay as they were
                part["rejected_relations"] = self.rejected_relations
        elif stage is Stage.QBAF:
            part = {"accepted": self.accepted}
        else:
            return None
        if not any(part.values()):
            return None
        return {
            k: [v.model_dump(mode="json") if isinstance(v, Frozen) else v for v in vals]
            for k, vals in part.items()
        }


class ReviewLogEntry(Frozen):
    """One applied review action, for the report's contestation log."""

    op: str
    target: str
    reason: str
    reviewer: str
    route: Stage


class ReviewState(Frozen):
    """The accumulated review state of a run: dimension → its subclaim's review, and the log
    of every action applied along the revision chain."""

    subclaims: dict[str, SubclaimReview] = Field(default_factory=dict)
    log: tuple[ReviewLogEntry, ...] = ()

    def of(self, dimension: str) -> SubclaimReview:
        return self.subclaims.get(dimension, SubclaimReview())


def human_evidence(item: Evidence, h: Edit | Add, original: Evidence | None = None) -> Evidence:
    """The item with human provenance ρ: who supplied or edited it, from what, and why."""
    given = item.provenance
    return item.model_copy(
        update={
            "provenance": Provenance(
                producer=ProducerKind.HUMAN_REVIEWER,
                agent=h.meta.reviewer,
                method=f"{h.op} by reviewer: {h.reason}",
                derived_from=(original.id,) if original is not None else (),
                url=item.url or (given.url if given else None),
                retrieved_at=h.meta.at,
            )
        }
    )


class _Draft:
    """Mutable working copy of a ``ReviewState`` while a batch is applied."""

    def __init__(self, state: ReviewState) -> None:
        self.parts: dict[str, dict[str, list[Any]]] = {
            k: {name: list(getattr(v, name)) for name in SubclaimReview.model_fields}
            for k, v in state.subclaims.items()
        }

    def add(self, dim: str, name: str, value: Any) -> None:
        part = self.parts.setdefault(dim, {n: [] for n in SubclaimReview.model_fields})
        bucket = part[name]
        if isinstance(value, Evidence):
            bucket[:] = [v for v in bucket if v.id != value.id]
        if value not in bucket:
            bucket.append(value)

    def next_number(self, dim: str) -> int:
        humans = self.parts.get(dim, {}).get("humans", [])
        return HUMAN_NUMBER_BASE + 1 + len(humans)

    def freeze(self) -> ReviewState:
        return ReviewState(
            subclaims={
                k: SubclaimReview(**{n: tuple(v) for n, v in part.items()})
                for k, part in self.parts.items()
            }
        )


def apply_batch(
    state: ReviewState, actions: Sequence[Action], view: BaseView, plan: RevisionPlan
) -> ReviewState:
    """Apply(s, H): the parent's review state with the batch's actions added (Eq. 23)."""
    draft = _Draft(state)
    log = list(state.log)
    for h, routed in zip(actions, plan.actions, strict=True):
        _apply_one(draft, h, routed.subclaims, view, routed.index)
        log.append(
            ReviewLogEntry(
                op=h.op,
                target=h.target,
                reason=h.reason,
                reviewer=h.meta.reviewer,
                route=routed.route,
            )
        )
    return draft.freeze().model_copy(update={"log": tuple(log)})


def _subclaim_arguments(view: BaseView, dim: str) -> list[Argument]:
    return [a for a in view.arguments.values() if view.subclaims.get(a.subclaim) == dim]


def _home(h: Action, view: BaseView, index: int) -> str:
    """The one subclaim an argument-level action belongs to."""
    kind = view.kind(h.target)
    if kind == "argument":
        return view.subclaims[view.arguments[h.target].subclaim]
    if kind == "subclaim":
        return view.subclaims[h.target]
    raise ContestError(
        f"action {index} ({h.op} {h.target}): this action needs an argument or a subclaim "
        "as its target"
    )


def _apply_one(draft: _Draft, h: Action, dims: tuple[str, ...], view: BaseView, index: int) -> None:
    kind = view.kind(h.target)
    if isinstance(h, Accept):
        if kind == "argument":
            draft.add(_home(h, view, index), "accepted", ArgumentRef.of(view.arguments[h.target]))
        elif kind == "subclaim":
            dim = view.subclaims[h.target]
            for arg in _subclaim_arguments(view, dim):
                draft.add(dim, "accepted", ArgumentRef.of(arg))
        return
    if isinstance(h, Reject):
        if kind == "evidence":
            for dim in dims:
                draft.add(dim, "removed", h.target)
        elif kind == "relation":
            relation = view.relations[h.target]
            draft.add(
                view.subclaims[relation.subclaim],
                "rejected_relations",
                RelationRef.of(relation, view.arguments),
            )
        elif kind == "argument":
            draft.add(_home(h, view, index), "rejected", ArgumentRef.of(view.arguments[h.target]))
        elif kind == "subclaim":
            dim = view.subclaims[h.target]
            for arg in _subclaim_arguments(view, dim):
                draft.add(dim, "rejected", ArgumentRef.of(arg))
        return
    if isinstance(h, Edit):
        for item in evidence_edits(h, view):
            original = view.evidence(item.id)
            if original is None:  # routing already refused this
                continue
            edited = human_evidence(item, h, original)
            bucket = "replaced" if source_changed(original, item) else "edited"
            for dim in view.holders(item.id):
                draft.add(dim, bucket, edited)
        if kind == "argument" and (h.text is not None or h.stance is not None or h.cites):
            original_arg = view.arguments[h.target]
            dim = _home(h, view, index)
            ref = ArgumentRef.of(original_arg)
            draft.add(dim, "rejected", ref)
            draft.add(
                dim,
                "humans",
                HumanArgument(
                    number=draft.next_number(dim),
                    stance=h.stance or original_arg.stance,
                    text=h.text or original_arg.text,
                    cites=h.cites or original_arg.evidence,
                    replaces=ref,
                    reviewer=h.meta.reviewer,
                    reason=h.reason,
                ),
            )
        elif kind == "subclaim" and h.text is not None:
            _human(draft, h, view.subclaims[h.target], h.cites, index)
        return
    # Add
    dim = _home(h, view, index)
    added = [human_evidence(item, h) for item in h.evidence_added]
    for item in added:
        if view.evidence(item.id) is not None:
            raise ContestError(
                f"action {index} (add {h.target}): evidence id {item.id} already exists in "
                "the run; edit it instead"
            )
        draft.add(dim, "added", item)
    if h.text is not None:
        _human(draft, h, dim, (*(e.id for e in added), *h.cites), index)


def _human(draft: _Draft, h: Edit | Add, dim: str, cites: tuple[str, ...], index: int) -> None:
    if h.stance is None or h.text is None:
        raise ContestError(
            f"action {index} ({h.op} {h.target}): a new argument needs both text and stance"
        )
    draft.add(
        dim,
        "humans",
        HumanArgument(
            number=draft.next_number(dim),
            stance=h.stance,
            text=h.text,
            cites=tuple(dict.fromkeys(cites)),
            reviewer=h.meta.reviewer,
            reason=h.reason,
        ),
    )
