"""Persistence: runs, content-addressed node outputs, fingerprint cache, hash-chained trace."""

from semv.store._hashing import canonical_json, content_hash, sha256_file, sha256_text
from semv.store._schema import (
    memory_candidates,
    memory_records,
    memory_snapshots,
    memory_state,
    memory_trace,
    memory_usage,
)
from semv.store._service import JobTable, SessionTable
from semv.store._store import (
    NodeRecord,
    RevisionRecord,
    RunRecord,
    Store,
    TraceCheck,
    genesis_hash,
    new_run_id,
    result_hash,
    utc_now,
)
from semv.store._url import display_url

__all__ = [
    "JobTable",
    "NodeRecord",
    "RevisionRecord",
    "RunRecord",
    "SessionTable",
    "Store",
    "TraceCheck",
    "canonical_json",
    "content_hash",
    "display_url",
    "genesis_hash",
    "memory_candidates",
    "memory_records",
    "memory_snapshots",
    "memory_state",
    "memory_trace",
    "memory_usage",
    "new_run_id",
    "result_hash",
    "sha256_file",
    "sha256_text",
    "utc_now",
]
