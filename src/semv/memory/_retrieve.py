"""Retrieval of active long-term records for one subclaim (``recall:k``, SEMV §4.3/§4.6).

score(m) = w_sem·sim + w_scope·scope + w_pattern·pattern + w_conf·c(m) + w_support·support
           + w_use·use                                       (weights: ``Settings.memory``)

Only active records of the same task and claim scope are candidates; a record must pass the
semantic gate and the final-score gate; equivalent records (same canonical key) are
deduplicated; the top K_m = 5 are returned. The result is guidance, never evidence.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from pydantic import PrivateAttr

from semv.config import MemoryConfig
from semv.memory._cues import EVIDENCE_KEYS, matches
from semv.memory._model import Record, Status
from semv.model import Evidence, Frozen, MemoryGuidance, Modality, SourceType, Subclaim
from semv.nlp.text import content_words
from semv.reasoning import ADJUST_STRENGTH

__all__ = ["ActiveMemory", "MemoryIndex", "Scored", "evidence_pattern"]


def evidence_pattern(evidence: Iterable[Evidence]) -> set[str]:
    """The coarse evidence pattern of a case that record triggers are matched against."""
    out: set[str] = set()
    for ev in evidence:
        if ev.modality is Modality.METADATA or ev.source_type is SourceType.METADATA:
            out.add("evidence=metadata")
        elif ev.source_type is SourceType.PRIOR_CAPTION or ev.location is not None:
            out.add("evidence=same-media-caption")
        else:
            out.add(f"evidence={ev.source_type.value}")
    return out


@dataclass(frozen=True)
class Scored:
    record: Record
    score: float
    semantic: float
    pattern: float


@dataclass
class _Entry:
    record: Record
    words: frozenset[str]
    triggers: frozenset[str]
    static: float
    """The query-independent part of the score: w_conf·c(m) + w_support·support + w_use·use."""

    @property
    def typed(self) -> bool:
        """A strength lesson: its condition is stated on typed observations, not in words."""
        return self.record.action == ADJUST_STRENGTH


@dataclass
class MemoryIndex:
    """Active records grouped by (task, dimension), with their content words precomputed."""

    config: MemoryConfig
    groups: dict[tuple[str, str], list[_Entry]] = field(default_factory=dict)

    @classmethod
    def build(cls, records: Iterable[Record], config: MemoryConfig) -> MemoryIndex:
        index = cls(config)
        for r in records:
            if r.status is not Status.ACTIVE:
                continue
            text = " ".join((r.lesson, *r.checks, *r.queries))
            support = min(1.0, len(r.cases) / config.support_saturation)
            use = r.uses_successful / r.uses_retrieved if r.uses_retrieved else 0.0
            entry = _Entry(
                r,
                frozenset(content_words(text)),
                frozenset(f"{k}={v}" for k, v in r.trigger.items() if k == "evidence"),
                config.w_confidence * r.confidence
                + config.w_support * support
                + config.w_use * use,
            )
            index.groups.setdefault((r.task, r.dimension), []).append(entry)
        return index

    def __len__(self) -> int:
        return sum(len(g) for g in self.groups.values())

    @property
    def has_typed(self) -> bool:
        """Whether any record is a strength lesson (recall then observes the evidence)."""
        return any(e.typed for g in self.groups.values() for e in g)

    def search(
        self,
        *,
        task: str,
        subclaim: Subclaim,
        claim: str,
        pattern: set[str],
        observed: Sequence[Mapping[str, str]] = (),
    ) -> list[Scored]:
        """The top K_m records for ``subclaim``. A strength lesson is a candidate only when
        its evidence condition holds on one of the ``observed`` evidence cues
        (``semv.memory._cues``); its semantic and pattern agreement are then 1 (it is stated
        in the case's own typed observations, not in words)."""
        cfg = self.config
        query = frozenset(
            content_words(" ".join((claim, subclaim.statement, *subclaim.facts.keywords)))
            | content_words(subclaim.claim_type)
        )
        scored: list[Scored] = []
        for (g_task, g_dim), entries in self.groups.items():
            if g_dim != subclaim.dimension.value:
                continue  # a check for another subclaim cannot apply here
            scope = 1.0 if g_task == task else 0.5
            for e in entries:
                if e.typed:
                    evidence_part = {
                        k: v for k, v in e.record.trigger.items() if k in EVIDENCE_KEYS
                    }
                    if not any(matches(evidence_part, cue) for cue in observed):
                        continue
                    sem = pat = 1.0
                else:
                    sem = _overlap(query, e.words)
                    if sem < cfg.semantic_gate:
                        continue
                    pat = len(e.triggers & pattern) / len(e.triggers) if e.triggers else 1.0
                score = cfg.w_semantic * sem + cfg.w_scope * scope + cfg.w_pattern * pat + e.static
                if score >= cfg.score_gate:
                    scored.append(Scored(e.record, score, sem, pat))
        scored.sort(key=lambda s: (-s.score, s.record.id))
        out: list[Scored] = []
        keys: set[str] = set()
        for s in scored:
            if s.record.key in keys:
                continue  # equivalent records: keep the best-scored one
            keys.add(s.record.key)
            out.append(s)
            if len(out) == cfg.k_m:
                break
        return out


def _overlap(query: frozenset[str], words: frozenset[str]) -> float:
    """Share of the record's content words that the query names (record-side coverage)."""
    if not words:
        return 0.0
    return len(query & words) / len(words)


class ActiveMemory(Frozen):
    """The graph source ``memory``: identifies the active long-term memory by its hash.

    Only ``bank``, ``hash`` and ``frozen`` are hashed into the ``recall:k`` fingerprints, so a
    cached plan or argument is reused exactly when the memory it saw is unchanged; the records
    travel in a private attribute (the index is rebuilt from them, never serialized)."""

    bank: str
    hash: str
    frozen: bool
    _index: MemoryIndex | None = PrivateAttr(None)

    @classmethod
    def of(
        cls,
        bank: str,
        digest: str,
        records: Sequence[Record],
        config: MemoryConfig,
        *,
        frozen: bool,
    ) -> ActiveMemory:
        mem = cls(bank=bank, hash=digest, frozen=frozen)
        mem._index = MemoryIndex.build(records, config)
        return mem

    @property
    def index(self) -> MemoryIndex | None:
        return self._index


def guidance(scored: Scored) -> MemoryGuidance:
    r = scored.record
    return MemoryGuidance(
        id=r.id,
        type=r.type.value,
        dimension=r.dimension,
        lesson=r.lesson,
        action=r.action,
        params=dict(r.params),
        queries=r.queries,
        source_types=r.source_types,
        checks=r.checks,
        trigger=dict(r.trigger) if r.action == ADJUST_STRENGTH else {},
        score=round(scored.score, 6),
    )
