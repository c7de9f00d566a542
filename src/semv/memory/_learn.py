"""What a learning run does to the bank around each case (SEMV §5.2), without running cases
itself (the runs are ``semv.learning``, above the pipeline): the fixed-seed split, the active
memory (now or as of a snapshot), reflected drafts as gate candidates, usage and contest logs,
and Table 7's rates.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable, Sequence

from semv.adapters import LoadedCase
from semv.config import MemoryConfig
from semv.errors import InputError
from semv.memory._gate import REJECTED, UNDER_REVIEW, VERIFIED
from semv.memory._model import Candidate, UsageKind
from semv.memory._reflect import CandidateDraft
from semv.memory._retrieve import ActiveMemory
from semv.memory._store import LONG_TERM, MemoryStore, snapshot_hash
from semv.memory._trace import CaseTrace
from semv.model import Argument
from semv.store import Store, sha256_text

logger = logging.getLogger(__name__)

__all__ = [
    "active_memory",
    "log_contested",
    "log_usage",
    "split_cases",
    "table7",
    "to_candidate",
]


def split_cases(
    cases: Sequence[LoadedCase], *, seed: int, learn_fraction: float
) -> tuple[list[LoadedCase], list[LoadedCase]]:
    """A fixed-seed split into a learning part and an evaluation part, in the input order.

    Cases are ranked by sha256(seed, case id), never by their (sealed) labels; the first
    ``learn_fraction`` of that ranking is the learning part."""
    ranked = sorted(
        range(len(cases)),
        key=lambda i: hashlib.sha256(f"{seed}:{cases[i].case.id}".encode()).hexdigest(),
    )
    n_learn = round(len(cases) * learn_fraction)
    learn_idx = set(ranked[:n_learn])
    learn_part = [c for i, c in enumerate(cases) if i in learn_idx]
    eval_part = [c for i, c in enumerate(cases) if i not in learn_idx]
    return learn_part, eval_part


def active_memory(ms: MemoryStore, config: MemoryConfig) -> ActiveMemory:
    """The graph source for memory-on runs: active records, identified by the M^L hash."""
    records = ms.records(*LONG_TERM)
    state = ms.state()
    digest = ms.long_term_hash()
    return ActiveMemory.of(ms.bank, digest, records, config, frozen=state.frozen is not None)


def memory_as_of(
    store: Store, bank: str, digest: str, config: MemoryConfig, *, frozen: bool
) -> ActiveMemory:
    """The long-term memory a past run recalled from (bank ``bank``, M^L hash ``digest``):
    the bank's current long-term memory if its hash is still ``digest``, else the stored
    snapshot with that hash. ``InputError`` when neither exists (the memory has moved on and
    was never frozen at that state)."""
    ms = MemoryStore(store, bank)
    records = ms.records(*LONG_TERM)
    if snapshot_hash(records) != digest:
        try:
            _, records = ms.snapshot_records(digest)
        except InputError as exc:
            raise InputError(
                f"memory bank {bank!r} at {digest[:12]} is neither the current long-term "
                "memory nor a stored snapshot (freeze the memory before it changes to keep "
                "such runs contestable)"
            ) from exc
    return ActiveMemory.of(bank, digest, records, config, frozen=frozen)


def source_fingerprint(trace: CaseTrace, draft: CandidateDraft) -> str:
    """The source an experience came from: the content of its grounding evidence."""
    pool = trace.evidence()
    parts = sorted(pool[e].content for e in draft.evidence if e in pool)
    if not parts:
        parts = [f"case:{trace.case.id}"]
    return sha256_text("\x1f".join(parts))[:32]


def to_candidate(
    ms: MemoryStore,
    trace: CaseTrace,
    draft: CandidateDraft,
    *,
    task: str,
    supervision: str,
    reflector: str,
) -> Candidate:
    return Candidate(
        id=ms.new_id("cand"),
        type=draft.type,
        diagnosis=draft.diagnosis,
        lesson=draft.lesson,
        task=task,
        dimension=draft.dimension,
        trigger=draft.trigger,
        pattern=draft.pattern,
        action=draft.action,
        params=draft.params,
        queries=draft.queries,
        source_types=draft.source_types,
        checks=draft.checks,
        polarity=draft.polarity,
        evidence=draft.evidence,
        arguments=draft.arguments,
        source_case=trace.case.id,
        source_run=trace.run_id,
        source_fingerprint=source_fingerprint(trace, draft),
        confidence=draft.confidence,
        supervision=supervision,
        reflector=reflector,
    )


def log_usage(ms: MemoryStore, trace: CaseTrace, correct: bool | None) -> dict[str, int]:
    """Usage events of one run: retrieved, cited in planning, cited in argument construction,
    used successfully (cited by a verified, admissible argument of a correct decision)."""
    counts: dict[str, int] = {}

    def log(record: str, kind: UsageKind) -> None:
        ms.record_usage(trace.run_id, record, kind)
        counts[kind.value] = counts.get(kind.value, 0) + 1

    for dim, view in trace.recalled.items():
        for rec in view.records:
            log(rec, UsageKind.RETRIEVED)
        for rec in trace.plans[dim].memory_used:
            log(rec, UsageKind.CITED_PLANNING)
        for arg in trace.arguments[dim].arguments:
            for rec in arg.memory:
                log(rec, UsageKind.CITED_ARGUMENT)
                if correct and arg.verified and arg.admissible:
                    log(rec, UsageKind.USED_SUCCESSFULLY)
    return counts


def log_contested(ms: MemoryStore, run_id: str, arguments: Iterable[Argument]) -> int:
    """Usage event ``contested`` for every memory id cited by a contested argument (for the
    contestation module to call when a reviewer rejects or edits such an argument)."""
    n = 0
    for arg in arguments:
        for rec in arg.memory:
            ms.record_usage(run_id, rec, UsageKind.CONTESTED)
            n += 1
    return n


def table7(statuses: dict[str, int]) -> dict[str, float | int]:
    """Table 7: grounding pass over all candidates; promotion, merge, conflict retention and
    rejection conditional on grounding pass (pending = still in short-term memory)."""
    total = sum(statuses.values())
    gate_failed = statuses.get(REJECTED, 0) + statuses.get(UNDER_REVIEW, 0)
    grounded = total - gate_failed
    pending = statuses.get(VERIFIED, 0)
    rejected = statuses.get("dropped", 0) + statuses.get("archived", 0)

    def rate(n: int, d: int) -> float:
        return n / d if d else 0.0

    return {
        "candidates": total,
        "grounding_pass": rate(grounded, total),
        "promotion": rate(statuses.get("promoted", 0), grounded),
        "merge": rate(statuses.get("merged", 0), grounded),
        "conflict_retention": rate(statuses.get("conflict", 0), grounded),
        "rejection": rate(rejected, grounded),
        "pending": rate(pending, grounded),
        "under_review": statuses.get(UNDER_REVIEW, 0),
        "gate_rejected": statuses.get(REJECTED, 0),
    }
