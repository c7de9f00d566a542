"""Replaying CTR episodes under U, C and C+S and scoring each (Eq. 37-42 per episode)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from semv.adapters import LoadedCase
from semv.agents import Agents
from semv.config import Settings
from semv.contest._batch import Policy
from semv.contest._locality import degradation_bound, scope_nodes
from semv.contest._review import ArgumentRef
from semv.contest._revise import TRACE_ELEMENTS, revise, trace_elements
from semv.contest._routing import RevisionPlan
from semv.contest._state import RunState, load_state
from semv.contest.ctr._episodes import FAMILIES, Corruption, Episode, control, corrupt, episode_for
from semv.graph import Executor
from semv.model import (
    Accept,
    Arguments,
    Edit,
    RankedEvidence,
    Reject,
    RenderedReport,
    Retrieved,
    SolvedQbaf,
    TraceKind,
    Verdict,
)
from semv.pipeline import build_result, commit_run, run_case, started_fields
from semv.stages import CASE_SOURCE, build_graph
from semv.store import Store, canonical_json, sha256_text

__all__ = ["POLICIES", "TRACE_ELEMENTS", "EpisodeOutcome", "inject", "run_ctr"]

POLICIES = (Policy.GLOBAL, Policy.CAUSAL, Policy.SCOPED)


@dataclass(frozen=True)
class EpisodeOutcome:
    """One episode replayed under one policy: the per-episode terms of Eq. 37-42."""

    case_id: str
    episode: int
    family: str | None
    policy: str
    corrupted: bool
    applied: bool
    revised: bool
    preserved: int
    outside: int
    trace_present: int
    y: str
    y0: str
    yh: str
    fields: int
    recovered: int
    seconds: float
    executed: int
    cost: float
    route: str
    gold_route: str
    locality: float = 1.0
    """Loc(H) of Eq. 24 against the scope the router computed."""
    untracked: int = 0
    """δ_H of Prop. 4.2: gold-closure nodes outside the computed scope."""
    spurious: int = 0
    """σ_H of Prop. 4.2: changed nodes outside both the gold closure and the computed scope."""
    bound: float = 0.0
    """(δ_H + σ_H) / |Z \\ Z*|, Eq. 25's bound on 1 − Loc(H)."""


async def inject(
    store: Store,
    clean: RunState,
    corruption: Corruption,
    *,
    settings: Settings,
    agents: Agents,
    reports_dir: Path,
) -> str:
    """A run whose state is ``clean`` with ``corruption.nodes`` replaced and everything
    downstream recomputed (a CTR initial state s^(0); its trace names the injection)."""
    case = clean.case
    reuse = clean.reuse_map()
    for key, value in corruption.nodes.items():
        text = canonical_json(value)
        digest = sha256_text(text)
        store.put_blob(digest, text.encode("utf-8"))
        reuse[key] = (clean.nodes[key].fingerprint, digest)
    run_id = store.create_run(
        case_id=case.id,
        adapter=case.adapter,
        settings_hash=sha256_text(settings.model_dump_json()),
        agents=agents.identity,
        parent_run_id=clean.run_id,
    )
    store.append_event(
        run_id,
        TraceKind.RUN_STARTED,
        payload=started_fields(case, clean.contract, agents),
    )
    store.append_event(
        run_id,
        TraceKind.CTR_INJECTED,
        payload={
            "family": corruption.family,
            "nodes": sorted(corruption.nodes),
            "detail": corruption.detail,
            "clean_run_id": clean.run_id,
        },
    )
    executor = Executor(store, settings, agents, run_id=run_id, reuse=reuse, cache=False)
    nodes = await executor.run(build_graph(case, contract=clean.contract), {CASE_SOURCE: case})
    report = nodes["render"].value
    verdict = nodes["aggregate"].value
    if not isinstance(report, RenderedReport) or not isinstance(verdict, Verdict):
        raise TypeError(
            f"render/aggregate nodes hold {type(report).__name__}/{type(verdict).__name__}"
        )
    commit_run(
        store,
        run_id,
        report=report,
        verdict=verdict,
        nodes=nodes,
        settings=settings,
        reports_dir=reports_dir,
        result=build_result,
    )
    return run_id


def _report_fields(state: RunState) -> dict[str, Any]:
    """Report fields compared by Report Recovery (Eq. 42); scores at two decimals stand for
    'adjudicated semantic equivalence'."""
    report = json.loads(state.value("render", RenderedReport).json_report)
    fields: dict[str, Any] = {
        "label": report["final_status"]["label"],
        "internal_label": report["final_status"]["internal_label"],
    }
    for key in report.get("section_order", []):
        section = report.get(key)
        if isinstance(section, dict) and "band" in section:
            fields[f"{key}.band"] = section["band"]
            score = section.get("score")
            fields[f"{key}.score"] = round(score, 2) if isinstance(score, float) else score
    return fields


def _semantic(state: RunState, key: str) -> Any:
    """A node's value up to what an adjudicator compares (ids and provenance aside)."""
    name = key.partition(":")[0]
    if name == "retrieve":
        return sorted(e.id for e in state.value(key, Retrieved).evidence)
    if name == "validate":
        return [(e.id, e.content) for e in state.value(key, RankedEvidence).evidence]
    if name == "argue":
        return sorted(
            (a.stance.value, a.text, a.evidence, round(a.strength, 3))
            for a in state.value(key, Arguments).arguments
            if a.origin.kind == "agent"
        )
    if name == "qbaf":
        d = state.value(key, SolvedQbaf).decision
        return (d.band.value, round(d.score, 3))
    if name == "aggregate":
        v = state.verdict
        return (v.label, v.internal_label.value)
    if name == "render":
        return _report_fields(state)
    return state.nodes[key].output_hash


def _applied(episode: Episode, base: RunState, after: RunState) -> bool:
    """Apply (Eq. 37): the requested mutation μ* is committed to its target object z*."""
    h = episode.correction[0]
    dims = episode.gold_subclaims
    if isinstance(h, Reject) and h.target.startswith("ev:"):
        return all(
            h.target not in {e.id for e in after.value(f"retrieve:{k}", Retrieved).evidence}
            and {e.id for e in after.value(f"retrieve:{k}", Retrieved).evidence}
            == {e.id for e in base.value(f"retrieve:{k}", Retrieved).evidence} - {h.target}
            for k in dims
        )
    if isinstance(h, Reject):
        ref = ArgumentRef.of(base.view().arguments[h.target])
        return not any(
            ref.matches(a) for k in dims for a in after.value(f"argue:{k}", Arguments).arguments
        )
    if isinstance(h, Edit):
        wanted = {e.id: e.content for e in h.evidence_edited}
        ranked = after.value(episode.target_node, RankedEvidence).evidence
        got = {e.id: e.content for e in ranked if e.id in wanted}
        return got == wanted
    if isinstance(h, Accept):
        solved = after.value(f"qbaf:{dims[0]}", SolvedQbaf)
        args = {a.id: a for a in after.value(f"argue:{dims[0]}", Arguments).arguments}
        known = base.view().arguments
        if h.target not in known:  # a subclaim: all of its arguments are accepted
            return set(solved.qbaf.accepted) == set(args)
        ref = ArgumentRef.of(known[h.target])
        return any(ref.matches(args[i]) for i in solved.qbaf.accepted if i in args)
    return False


def _cost(store: Store, run_id: str) -> tuple[int, float]:
    nodes = [n for n in store.run_nodes(run_id) if not n.reused]
    return len(nodes), sum(n.seconds for n in nodes)


async def _replay(
    store: Store,
    episode: Episode,
    base_run: str,
    clean: RunState,
    *,
    settings: Settings,
    agents: Agents,
    reports_dir: Path,
) -> list[EpisodeOutcome]:
    base = load_state(store, base_run)
    keys = sorted(base.nodes)
    gold_plan = RevisionPlan(
        restart=episode.gold_stage, subclaims=episode.gold_subclaims, actions=()
    )
    gold_scope = scope_nodes(keys, gold_plan)
    clean_fields = _report_fields(clean)
    base_fields = _report_fields(base)
    corrupted_fields = [f for f in clean_fields if base_fields.get(f) != clean_fields[f]]
    out: list[EpisodeOutcome] = []
    for policy in POLICIES:
        rev = await revise(
            store,
            base_run,
            episode.correction,
            settings=settings,
            agents=agents,
            policy=policy,
            reports_dir=reports_dir,
        )
        after = load_state(store, rev.run_id)
        outside = [k for k in keys if k not in gold_scope]
        preserved = sum(
            (base.nodes[k].fingerprint, base.nodes[k].output_hash)
            == (after.nodes[k].fingerprint, after.nodes[k].output_hash)
            for k in outside
            if k in after.nodes
        )
        revised = all(_semantic(after, k) == _semantic(clean, k) for k in gold_scope)
        after_fields = _report_fields(after)
        executed, cost = _cost(store, rev.run_id)
        computed = frozenset(rev.locality.scope)
        changed = [
            k
            for k in keys
            if k in after.nodes
            and (base.nodes[k].fingerprint, base.nodes[k].output_hash)
            != (after.nodes[k].fingerprint, after.nodes[k].output_hash)
        ]
        untracked, spurious, bound = degradation_bound(changed, computed, gold_scope, keys)
        out.append(
            EpisodeOutcome(
                case_id=episode.case_id,
                episode=episode.index,
                family=episode.family,
                policy=policy.value,
                corrupted=episode.corruption is not None,
                applied=_applied(episode, base, after),
                revised=revised,
                preserved=preserved,
                outside=len(outside),
                trace_present=sum(trace_elements(store, rev.run_id).values()),
                y=clean.verdict.label,
                y0=base.verdict.label,
                yh=after.verdict.label,
                fields=len(corrupted_fields),
                recovered=sum(after_fields.get(f) == clean_fields[f] for f in corrupted_fields),
                seconds=rev.seconds,
                executed=executed,
                cost=cost,
                route=rev.plan.restart.value,
                gold_route=episode.gold_stage.value,
                locality=rev.locality.value,
                untracked=untracked,
                spurious=spurious,
                bound=bound,
            )
        )
    return out


async def run_ctr(
    cases: Sequence[LoadedCase],
    *,
    store: Store,
    settings: Settings,
    agents: Agents,
    contract: str,
    reports_dir: Path,
    on_episode: Callable[[EpisodeOutcome], None] | None = None,
) -> list[EpisodeOutcome]:
    """Verify each source case, build its 5 episodes (4 corrupted, rotated over the five
    families, + 1 control) and replay each under U, C and C+S."""
    outcomes: list[EpisodeOutcome] = []
    for n, loaded in enumerate(cases):
        first = await run_case(
            loaded.case,
            store=store,
            settings=settings,
            agents=agents,
            contract=contract,
            reports_dir=reports_dir,
        )
        clean = load_state(store, first.result.run_id)
        skipped = FAMILIES[n % len(FAMILIES)]
        families = [f for f in FAMILIES if f != skipped] + [skipped]
        episodes: list[tuple[Episode, str]] = [(control(clean, 0), clean.run_id)]
        for family in families:
            if len(episodes) == 5:
                break
            corruption = corrupt(clean, family)
            if corruption is None:
                continue
            base = await inject(
                store,
                clean,
                corruption,
                settings=settings,
                agents=agents,
                reports_dir=reports_dir,
            )
            episodes.append((episode_for(clean, len(episodes), corruption), base))
        for episode, base_run in episodes:
            for outcome in await _replay(
                store,
                episode,
                base_run,
                clean,
                settings=settings,
                agents=agents,
                reports_dir=reports_dir,
            ):
                outcomes.append(outcome)
                if on_episode is not None:
                    on_episode(outcome)
    return outcomes
