"""Module F: verification-gated self-evolving memory (SEMV §2.3, §4.6, §5.2, §6.3).

Records (episodic observations, failure lessons, semantic rules) live in the semv store next
to runs and the trace. Reflection runs only after a report is committed, in a learning run;
the gate (Eq. 26) admits candidates to short-term memory; consolidation (Eq. 27-28) promotes,
merges and retains conflicts; the lifecycle (Eq. 29) reviews, deprecates and reactivates;
``recall:k`` retrieves active records as guidance, never as evidence (Def. 3.1), and a recalled
strength lesson scales w_a of the arguments its typed condition holds on, cited in M(a); frozen
snapshots make evaluation state invariant (Remark 4.3).
"""

from semv.memory._apply import apply_strength_lessons, strength_lessons
from semv.memory._consolidate import ConsolidationCounts, Policy, consolidate, thresholds
from semv.memory._cues import (
    CUE_KEYS,
    EvidenceCue,
    argument_cue,
    evidence_cue,
    evidence_kind,
    matches,
)
from semv.memory._gate import (
    REJECTED,
    UNDER_REVIEW,
    VERIFIED,
    GateResult,
    SafetyUnavailable,
    safe,
    verify_candidate,
)
from semv.memory._learn import (
    active_memory,
    log_contested,
    log_usage,
    memory_as_of,
    split_cases,
    table7,
    to_candidate,
)
from semv.memory._math import (
    Observation,
    conflict_ratio,
    consolidated_confidence,
    independent_subset,
    next_status,
    promote,
    update_beta,
)
from semv.memory._model import (
    Action,
    Candidate,
    Diagnosis,
    MemoryType,
    Record,
    Status,
    UsageKind,
)
from semv.memory._reflect import (
    CandidateDraft,
    OfflineReflector,
    ReflectInput,
    Reflector,
    ReflectOutput,
    context_signal,
)
from semv.memory._reflect_llm import LlmReflector
from semv.memory._retrieve import ActiveMemory, MemoryIndex, evidence_pattern, guidance
from semv.memory._store import LONG_TERM, MemoryFrozen, MemoryStore, snapshot_hash
from semv.memory._trace import CaseTrace, load_trace

__all__ = [
    "CUE_KEYS",
    "LONG_TERM",
    "REJECTED",
    "UNDER_REVIEW",
    "VERIFIED",
    "Action",
    "ActiveMemory",
    "Candidate",
    "CandidateDraft",
    "CaseTrace",
    "ConsolidationCounts",
    "Diagnosis",
    "EvidenceCue",
    "GateResult",
    "LlmReflector",
    "MemoryFrozen",
    "MemoryIndex",
    "MemoryStore",
    "MemoryType",
    "Observation",
    "OfflineReflector",
    "Policy",
    "Record",
    "ReflectInput",
    "ReflectOutput",
    "Reflector",
    "SafetyUnavailable",
    "Status",
    "UsageKind",
    "active_memory",
    "apply_strength_lessons",
    "argument_cue",
    "conflict_ratio",
    "consolidate",
    "consolidated_confidence",
    "context_signal",
    "evidence_cue",
    "evidence_kind",
    "evidence_pattern",
    "guidance",
    "independent_subset",
    "load_trace",
    "log_contested",
    "log_usage",
    "matches",
    "memory_as_of",
    "next_status",
    "promote",
    "safe",
    "snapshot_hash",
    "split_cases",
    "strength_lessons",
    "table7",
    "thresholds",
    "to_candidate",
    "update_beta",
    "verify_candidate",
]
