"""Candidates for memory tests: a well-formed context-threshold lesson with variations."""

from __future__ import annotations

from typing import Any

from semv.memory import Action, Candidate, Diagnosis, MemoryType

LESSON = (
    "A caption of the same media that names none of the claim's people, places or events, "
    "with claim similarity below 0.40, describes a different event than the claimed context: "
    "check it as a context attack."
)
TRIGGER = {
    "evidence": "same-media-caption",
    "shared_entities": "none",
    "similarity_below": "0.40",
}


def candidate(n: int, **over: Any) -> Candidate:
    body: dict[str, Any] = {
        "id": f"cand:t{n:04d}",
        "type": MemoryType.FAILURE,
        "diagnosis": Diagnosis.LABEL_MISMATCH,
        "lesson": LESSON,
        "task": "cosmos",
        "dimension": "why",
        "trigger": dict(TRIGGER),
        "pattern": {"similarity": 0.35},
        "action": Action.CONTEXT_THRESHOLD.value,
        "params": {"threshold": 0.4},
        "checks": ("same-media caption without shared entities and similarity < 0.40",),
        "source_types": ("prior-caption",),
        "polarity": 1,
        "evidence": ("ev:sup:caption2",),
        "arguments": (),
        "source_case": f"learn:{n}",
        "source_run": f"run{n}",
        "source_fingerprint": f"fp{n}",
        "confidence": 0.8,
        "supervision": "gold",
        "reflector": "test",
    }
    body.update(over)
    return Candidate(**body)
