"""A revision: apply a review batch to a committed run and re-evaluate its stage graph as a
NEW run linked to its parent (the first-pass run is never overwritten; §4.5).

s^(H) = T*_{Closure(H)}(Apply(s, H)) (Eq. 23): the review state enters the routed nodes, the
policy names the nodes recomputed unconditionally, and every other node is reused from the
parent when its fingerprint is unchanged (only the parent's values are reused, so a revision
preserves exactly the state it revises and executes exactly what its inputs changed).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from semv.agents import Agents
from semv.config import Settings
from semv.contest._backend import backend_kind
from semv.contest._batch import POLICY_SYMBOL, Policy, ReviewBatch
from semv.contest._locality import (
    DecisionDelta,
    Locality,
    decision_delta,
    forced_nodes,
    locality,
    scope_nodes,
)
from semv.contest._procedures import procedure_contest
from semv.contest._review import ReviewState, apply_batch
from semv.contest._routing import Action, RevisionPlan, plan_batch
from semv.contest._stages import reviewed_graph, reviewer_evidence
from semv.contest._state import RunState, load_state
from semv.errors import ContestError, SemvError
from semv.graph import Executor, NodeOutcome, source_inputs
from semv.model import (
    Arguments,
    Evidence,
    Frozen,
    RankedEvidence,
    RenderedReport,
    Result,
    TraceKind,
    Verdict,
    result_evidence,
)
from semv.perception.artifacts import use_artifacts
from semv.perception.paths import resolve_data_paths
from semv.pipeline import (
    artifacts_root,
    commit_run,
    record_failure,
    run_usage,
    started_fields,
)
from semv.procedures import DEFAULT_PROCEDURE
from semv.retrieval import Retrieval, reopen_retrieval
from semv.stages import CASE_SOURCE, MEMORY_SOURCE
from semv.store import Store, canonical_json, sha256_text, utc_now
from semv.usage import Ledger, bind_ledger

__all__ = ["TRACE_ELEMENTS", "Revision", "SiblingRevision", "revise", "trace_elements"]

ProgressFn = Callable[[str, bool], None]

TRACE_ELEMENTS = (
    "action",
    "target",
    "reason",
    "routing",
    "scope",
    "objects",
    "delta",
)
"""The seven trace elements 𝒦 of Eq. 39, as keys of the ``contest.revised`` event."""


class SiblingRevision(Frozen):
    run_id: str
    committed: bool


class Revision(Frozen):
    """The outcome of one contestation: the new run, its plan, locality and decision delta."""

    run_id: str
    parent_run_id: str
    policy: Policy
    plan: RevisionPlan
    review: ReviewState
    forced: tuple[str, ...]
    locality: Locality
    delta: DecisionDelta
    objects: dict[str, dict[str, list[str]]] = Field(
        description="Per subclaim in scope: argument and evidence ids before and after."
    )
    stale_base: bool = Field(description="The parent has other revisions (concurrent or older).")
    backend_changed: str | None = Field(
        None,
        description="'<parent backend> -> <revision backend>' when the revision was explicitly "
        "run with another backend or model (a global recomputation); None otherwise.",
    )
    siblings: tuple[SiblingRevision, ...] = ()
    sources_refreshed: bool = Field(
        False,
        description="The revision read the current indexes, corpora and caches "
        "(--refresh-sources) instead of the parent's.",
    )
    sources_changed: tuple[str, ...] = Field(
        (),
        description="Nodes whose sources (reverse-image index, evidence sources) changed since "
        "the parent's run: refreshed when sources_refreshed, else held at the parent's state.",
    )
    seconds: float
    result: Result

    @property
    def symbol(self) -> str:
        return POLICY_SYMBOL[self.policy]


def _actions(batch: ReviewBatch | Sequence[Action]) -> tuple[Action, ...]:
    return tuple(batch.actions) if isinstance(batch, ReviewBatch) else tuple(batch)


def _objects(
    parent: RunState, nodes: dict[str, Any], dims: Sequence[str]
) -> dict[str, dict[str, list[str]]]:
    out: dict[str, dict[str, list[str]]] = {}
    for k in dims:
        entry: dict[str, list[str]] = {}
        kinds: tuple[tuple[str, str, type[Arguments] | type[RankedEvidence]], ...] = (
            ("arguments", f"argue:{k}", Arguments),
            ("evidence", f"validate:{k}", RankedEvidence),
        )
        for name, key, kind in kinds:
            if key not in nodes or key not in parent.nodes:
                continue
            before = parent.value(key, kind)
            after = nodes[key].value
            ids_before = [
                x.id
                for x in (before.arguments if isinstance(before, Arguments) else before.evidence)
            ]
            ids_after = [
                x.id for x in (after.arguments if isinstance(after, Arguments) else after.evidence)
            ]
            entry[f"{name}_before"] = ids_before
            entry[f"{name}_after"] = ids_after
        out[k] = entry
    return out


def _ids(value: object) -> list[str]:
    if isinstance(value, Arguments):
        return [a.id for a in value.arguments]
    if isinstance(value, RankedEvidence):
        return [e.id for e in value.evidence]
    return []


async def revise(
    store: Store,
    run: str,
    batch: ReviewBatch | Sequence[Action],
    *,
    settings: Settings,
    agents: Agents,
    policy: Policy | None = None,
    reports_dir: Path | None = None,
    progress: ProgressFn | None = None,
    retrieval: Retrieval | None = None,
    memory: BaseModel | None = None,
    backend_explicit: bool = False,
    refresh_sources: bool = False,
) -> Revision:
    """Apply ``batch`` to committed run ``run`` and return the revision (a new run).

    The revision searches the sources the parent searched: ``retrieval`` when given, else the
    parent's recorded sources reopened with web answers replayed from the dated cache as of
    the parent's end (so an unchanged query gets the parent's answer). A memory-on parent
    needs the same ``memory`` (a ``semv.memory.ActiveMemory``) for its recall nodes to be
    reused. ``agents`` must be the parent's backend and model (``revision_settings`` reopens
    them) unless ``backend_explicit``: a silent change of backend is refused.

    Sources outside the graph (the reverse-image index, the corpus, the web cache) are held at
    the parent's state: a node whose only change is that state reuses the parent's value, so a
    revision changes what the review changed and nothing else. ``refresh_sources`` reads the
    current state instead; either way ``Revision.sources_changed`` names the nodes affected."""
    started = time.perf_counter()
    settings = resolve_data_paths(settings, store.data_dir)
    actions = _actions(batch)
    chosen = policy or (batch.policy if isinstance(batch, ReviewBatch) else None)
    chosen = chosen or Policy(settings.contest.policy)
    parent = load_state(store, run)
    was, now = backend_kind(parent.record.agents), backend_kind(agents.identity)
    if was != now and not backend_explicit:
        raise ContestError(
            f"run {parent.run_id} was made with the {was} backend; this revision would use "
            f"{now}. Reopen the parent's backend (the default of `semv contest`) or ask for "
            "the change explicitly (--backend/--llm-model: a global recomputation)"
        )
    named = batch.base_run if isinstance(batch, ReviewBatch) else None
    if named and not parent.run_id.startswith(named):
        raise ContestError(f"the batch names run {named}, but run {parent.run_id} was given")
    view = parent.view()
    plan = plan_batch(actions, view)
    review = apply_batch(parent.review, actions, view, plan)
    case = parent.case
    opened: Retrieval | None = None
    parent_started = _started_payload(store, parent.run_id)
    if memory is None and "memory" in parent_started:
        memory = _parent_memory(store, parent.run_id, parent_started, settings)
    recorded = parent_started.get("retrieval")
    if retrieval is None and isinstance(recorded, dict):
        as_of = (
            utc_now()
            if refresh_sources
            else (parent.record.finished_at or parent.record.created_at)
        )
        retrieval = opened = reopen_retrieval(settings, store.url, recorded, as_of)
    reject = procedure_contest(parent.procedure.name).rejections
    rejected = reject(review, set(view.subclaims)) if reject is not None else None
    specs = reviewed_graph(
        parent.procedure.graph(
            case,
            contract=parent.contract,
            memory=memory is not None,
            retrieval=retrieval,
            rejected=rejected,
        ),
        review,
    )
    keys = [s.key for s in specs]
    recorded_inputs = parent_started.get("inputs")
    parent_inputs: dict[str, Any] = recorded_inputs if isinstance(recorded_inputs, dict) else {}
    current_inputs = source_inputs(specs, settings)
    sources_changed = tuple(
        sorted(k for k, v in current_inputs.items() if k in parent_inputs and parent_inputs[k] != v)
    )
    forced = forced_nodes(keys, chosen, plan)
    scope = scope_nodes(keys, plan)
    settings_hash = sha256_text(settings.model_dump_json())
    run_id = store.create_run(
        case_id=case.id,
        adapter=case.adapter,
        settings_hash=settings_hash,
        agents=agents.identity,
        parent_run_id=parent.run_id,
    )
    batch_json = canonical_json([h.model_dump(mode="json") for h in actions])
    store.add_revision(
        run_id,
        parent_run_id=parent.run_id,
        policy=chosen.value,
        base_head=parent.record.trace_head,
        batch_json=batch_json,
        review_json=review.model_dump_json(),
    )
    store.append_event(
        run_id,
        TraceKind.RUN_STARTED,
        payload={
            **started_fields(case, parent.contract, agents),
            "settings_hash": settings_hash,
            "parent_run_id": parent.run_id,
            "parent_trace_head": parent.record.trace_head,
            "inputs": current_inputs if refresh_sources or not parent_inputs else parent_inputs,
            **(
                {"procedure": parent.procedure.name}
                if parent.procedure.name != DEFAULT_PROCEDURE
                else {}
            ),
        },
    )
    store.append_event(
        run_id,
        TraceKind.CONTEST_APPLIED,
        payload={
            "policy": chosen.value,
            "batch": [h.model_dump(mode="json") for h in actions],
            "plan": plan.model_dump(mode="json"),
            "forced": sorted(forced),
            "settings_changed": settings_hash != parent.record.settings_hash,
            "agents_changed": agents.identity != parent.record.agents,
            "backend": {"parent": str(was), "revision": str(now), "changed": was != now},
            "sources": {"refresh": refresh_sources, "changed": list(sources_changed)},
            **({"inputs": current_inputs} if refresh_sources else {}),
        },
    )
    try:
        executor = Executor(
            store,
            settings,
            agents,
            run_id=run_id,
            progress=progress,
            force=forced,
            reuse=parent.reuse_map(),
            cache=False,
            resources={"retrieval": retrieval} if retrieval is not None else None,
            pinned=None if refresh_sources else parent_inputs,
        )
        sources: dict[str, BaseModel] = {CASE_SOURCE: case}
        if memory is not None:
            sources[MEMORY_SOURCE] = memory
        ledger = Ledger()
        run_started = time.perf_counter()
        with bind_ledger(ledger), use_artifacts(artifacts_root(store, reports_dir)):
            nodes = await executor.run(specs, sources)
        usage = run_usage(ledger, agents, time.perf_counter() - run_started, specs, nodes)
        report = nodes[parent.procedure.render_node].value
        verdict = nodes[parent.procedure.verdict_node].value
        if not isinstance(report, RenderedReport) or not isinstance(verdict, Verdict):
            raise ContestError("the revised graph produced no report")
        after = {k: (n.fingerprint, n.output_hash) for k, n in nodes.items()}
        executed = [k for k, n in nodes.items() if not n.reused]
        loc = locality(parent.reuse_map(), after, scope, executed)
        delta = decision_delta(parent.verdict, verdict)
        objects = _objects(parent, dict(nodes), plan.subclaims)
        siblings = tuple(
            SiblingRevision(run_id=r.run_id, committed=r.committed_at is not None)
            for r in store.revisions_of(parent.run_id)
            if r.run_id != run_id
        )
        changed_nodes = {
            k: [parent.nodes[k].output_hash if k in parent.nodes else "", after[k][1]]
            for k in (*loc.changed_inside, *loc.changed_outside)
        }

        def revised() -> None:
            store.append_event(
                run_id,
                TraceKind.CONTEST_REVISED,
                payload={
                    "action": [h.op for h in actions],
                    "target": [h.target for h in actions],
                    "reason": [h.reason for h in actions],
                    "routing": {
                        "restart": plan.restart.value,
                        "policy": chosen.value,
                        "actions": [
                            {"default": r.default.value, "route": r.route.value, "rule": r.rule}
                            for r in plan.actions
                        ],
                    },
                    "scope": {
                        "subclaims": list(plan.subclaims),
                        "nodes": list(loc.scope),
                        "widened": list(plan.widened),
                    },
                    "objects": {"nodes": changed_nodes, "subclaims": objects},
                    "delta": delta.model_dump(mode="json"),
                    "locality": loc.value,
                    "executed": len(executed),
                    "global_transitions": loc.global_transitions,
                    "base": {
                        "parent_run_id": parent.run_id,
                        "stale": bool(siblings),
                        "other_revisions": [s.model_dump() for s in siblings],
                    },
                },
            )

        def build(
            run_id: str,
            nodes: dict[str, NodeOutcome],
            report_paths: dict[str, str],
            trace_head: str,
        ) -> Result:
            built = parent.procedure.result(run_id, nodes, report_paths, trace_head)
            return _with_reviewer_evidence(built, reviewer_evidence(review))

        # the revision's own model calls go into its report (reused nodes cost none)
        result = commit_run(
            store,
            run_id,
            report=report,
            verdict=verdict,
            nodes=nodes,
            settings=settings,
            reports_dir=reports_dir,
            result=build,
            usage=usage,
            ledger=ledger,
            before_commit=revised,
        )
    except BaseException as exc:
        record_failure(store, run_id, exc)
        raise
    finally:
        if opened is not None:
            opened.close()
    revision = Revision(
        run_id=run_id,
        parent_run_id=parent.run_id,
        policy=chosen,
        plan=plan,
        review=review,
        forced=tuple(sorted(forced)),
        locality=loc,
        delta=delta,
        objects=objects,
        stale_base=bool(siblings),
        siblings=siblings,
        backend_changed=f"{was} -> {now}" if was != now else None,
        sources_refreshed=refresh_sources,
        sources_changed=sources_changed,
        seconds=time.perf_counter() - started,
        result=result,
    )
    store.commit_revision(run_id, revision.model_dump_json(exclude={"result", "review"}))
    if memory is not None:
        _log_contested_memory(store, memory, parent, plan.subclaims)
    return revision


def _log_contested_memory(
    store: Store, memory: BaseModel, parent: RunState, subclaims: Sequence[str]
) -> int:
    """Usage events ``contested`` for the memory records the parent run used in the subclaims
    this revision reopened: each record cited (M(a)) by one of the parent's arguments there.

    Usage events are keyed by (bank, run, record, kind) and live outside the snapshot, so
    this is allowed on a frozen bank and leaves M^L and its hash unchanged; they are logged
    under the parent run, the run that used the records."""
    from semv.memory import ActiveMemory, MemoryStore, log_contested

    if not isinstance(memory, ActiveMemory):
        return 0
    dims = {s.removeprefix("claim:") for s in subclaims}
    contested = [
        arg
        for key in sorted(parent.nodes)
        if key.startswith("argue:") and key.removeprefix("argue:") in dims
        for arg in parent.value(key, Arguments).arguments
        if arg.memory
    ]
    if not contested:
        return 0
    return log_contested(MemoryStore(store, memory.bank), parent.run_id, contested)


def _with_reviewer_evidence(result: Result, items: Sequence[Evidence]) -> Result:
    """The result's evidence list with reviewer items added (or replacing what they edit)."""
    if not items:
        return result
    swap = {e.id: result_evidence(e) for e in items}
    evidence = [swap.pop(e.id, e) for e in result.evidence] + list(swap.values())
    return result.model_copy(update={"evidence": tuple(evidence)})


def trace_elements(store: Store, run_id: str) -> dict[str, bool]:
    """Which of the seven elements of Eq. 39 the revision's stored trace holds."""
    event = next((e for e in store.trace(run_id) if e.kind is TraceKind.CONTEST_REVISED), None)
    payload = event.payload if event is not None else {}
    return {k: bool(payload.get(k)) for k in TRACE_ELEMENTS}


def _parent_memory(
    store: Store, run_id: str, started: dict[str, Any], settings: Settings
) -> BaseModel:
    """The long-term memory the memory-on parent ``run_id`` recalled from, rebuilt from its
    bank: a revision must see the same memory, or every recall node would change."""
    from semv.memory import ActiveMemory, memory_as_of

    source = started.get("memory_source")
    if not isinstance(source, dict):
        raise ContestError(
            f"run {run_id} used long-term memory but its trace does not say which bank and "
            "state; pass the memory to revise()"
        )
    recorded = ActiveMemory.model_validate(source)
    try:
        return memory_as_of(
            store, recorded.bank, recorded.hash, settings.memory, frozen=recorded.frozen
        )
    except SemvError as exc:
        raise ContestError(f"run {run_id} cannot be revised with its memory: {exc}") from exc


def _started_payload(store: Store, run_id: str) -> dict[str, Any]:
    started = next((e for e in store.trace(run_id) if e.kind is TraceKind.RUN_STARTED), None)
    return dict(started.payload) if started is not None else {}
