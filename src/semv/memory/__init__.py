"""Module F: verification-gated self-evolving memory (SEMV §2.3, §4.6, §5.2, §6.3).

Records (episodic observations, failure lessons, semantic rules) live in the semv store next
to runs and the trace. Reflection runs only after a report is committed, in a learning run;
the gate (Eq. 26) admits candidates to short-term memory; consolidation (Eq. 27-28) promotes,
merges and retains conflicts; the lifecycle (Eq. 29) reviews, deprecates and reactivates;
``recall:k`` retrieves active records as guidance, never as evidence (Def. 3.1); frozen
snapshots make evaluation state invariant (Remark 4.3).
"""

from typing import TYPE_CHECKING

from semv.memory._consolidate import ConsolidationCounts, Policy, consolidate, thresholds
from semv.memory._gate import GateResult, SafetyUnavailable, safe, verify_candidate
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
from semv.memory._retrieve import ActiveMemory, MemoryIndex, evidence_pattern, guidance
from semv.memory._store import LONG_TERM, MemoryFrozen, MemoryStore, snapshot_hash
from semv.memory._trace import CaseTrace, load_trace

if TYPE_CHECKING:
    from semv.memory._learn import (
        LearnReport,
        active_memory,
        learn,
        log_contested,
        log_usage,
        memory_as_of,
        split_cases,
        table7,
        to_candidate,
    )
    from semv.memory._reflect_llm import LlmReflector
    from semv.memory._transfer import AblationRow, TransferReport, ablations, transfer

# The learning and transfer runs sit above the pipeline (which runs the ``recall:k`` stage
# that imports this package), so they are imported on first use.
_LAZY = {
    "LearnReport": "semv.memory._learn",
    "active_memory": "semv.memory._learn",
    "learn": "semv.memory._learn",
    "log_contested": "semv.memory._learn",
    "log_usage": "semv.memory._learn",
    "memory_as_of": "semv.memory._learn",
    "split_cases": "semv.memory._learn",
    "table7": "semv.memory._learn",
    "to_candidate": "semv.memory._learn",
    "AblationRow": "semv.memory._transfer",
    "TransferReport": "semv.memory._transfer",
    "ablations": "semv.memory._transfer",
    "transfer": "semv.memory._transfer",
    "LlmReflector": "semv.memory._reflect_llm",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'semv.memory' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


__all__ = [
    "LONG_TERM",
    "AblationRow",
    "Action",
    "ActiveMemory",
    "Candidate",
    "CandidateDraft",
    "CaseTrace",
    "ConsolidationCounts",
    "Diagnosis",
    "GateResult",
    "LearnReport",
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
    "TransferReport",
    "UsageKind",
    "ablations",
    "active_memory",
    "conflict_ratio",
    "consolidate",
    "consolidated_confidence",
    "context_signal",
    "evidence_pattern",
    "guidance",
    "independent_subset",
    "learn",
    "load_trace",
    "log_contested",
    "log_usage",
    "memory_as_of",
    "next_status",
    "promote",
    "safe",
    "snapshot_hash",
    "split_cases",
    "table7",
    "thresholds",
    "to_candidate",
    "transfer",
    "update_beta",
    "verify_candidate",
]
