"""The trace's hash chain, pure: each event's hash covers its body and its predecessor's hash,
from a per-run genesis; a committed run's stored outcome must match its ``run.committed``
event."""

from __future__ import annotations

import json
import math
from typing import Any

from semv.model import TraceEvent, TraceKind
from semv.store._hashing import canonical_json, sha256_text
from semv.store._records import RunRecord

__all__ = [
    "chain_event",
    "commit_problem",
    "event_hash",
    "genesis_hash",
    "result_hash",
    "trace_event",
]


def genesis_hash(run_id: str) -> str:
    """prev_hash of a run's first trace event."""
    return sha256_text(f"semv-trace-genesis:{run_id}")


def event_hash(body: dict[str, Any]) -> str:
    """hash = sha256(canonical JSON of every field but ``hash``, including ``prev_hash``)."""
    return sha256_text(canonical_json(body))


def result_hash(result: dict[str, Any]) -> str:
    """sha256 of a committed result's canonical JSON without its ``trace_head`` (the head is
    the hash of the ``run.committed`` event that carries this digest, so it cannot be part
    of it). Binds the stored result into the trace chain."""
    return sha256_text(canonical_json({k: v for k, v in result.items() if k != "trace_head"}))


_json_str = json.JSONEncoder(ensure_ascii=False).encode
"""A string's JSON, as ``canonical_json`` writes it."""


def chain_event(
    run_id: str,
    seq: int,
    kind: TraceKind,
    node: str | None,
    payload: dict[str, Any],
    at: str,
    prev: str,
) -> tuple[TraceEvent, dict[str, Any]]:
    """The event ``seq`` after ``prev`` and its trace row. Its hash is ``event_hash`` of the
    body: the body's canonical JSON is written here from the payload's (sorted keys, no
    spaces; the other fields are strings, an int and maybe null), so the payload is
    serialised once, for the hash and the row alike."""
    if all(type(k) is str and type(v) is str for k, v in payload.items()):
        # a node event's payload (stage, fingerprint, output): plain strings, so json.dumps
        # alone writes canonical_json's text without pydantic's walk first
        payload_json = json.dumps(
            payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False
        )
    else:
        payload_json = canonical_json(payload)
    text = (
        f'{{"at":{_json_str(at)},"kind":{_json_str(kind.value)},'
        f'"node":{"null" if node is None else _json_str(node)},"payload":{payload_json},'
        f'"prev_hash":{_json_str(prev)},"run_id":{_json_str(run_id)},"seq":{int(seq)}}}'
    )
    digest = sha256_text(text)
    event = TraceEvent(
        run_id=run_id, seq=seq, kind=kind, node=node, payload=payload, at=at, prev_hash=prev,
        hash=digest,
    )  # fmt: skip
    row = {
        "run_id": run_id,
        "seq": seq,
        "kind": kind.value,
        "node": node,
        "payload": payload_json,
        "at": at,
        "prev_hash": prev,
        "hash": digest,
    }
    return event, row


def trace_event(r: Any) -> TraceEvent:
    """A stored trace row as an event; ``ValueError`` when the row is malformed (payload not a
    JSON object, unknown kind, ...)."""
    try:
        payload = json.loads(r.payload)
    except (json.JSONDecodeError, TypeError, RecursionError) as exc:
        raise ValueError("payload is not JSON") from exc
    if not isinstance(payload, dict):
        raise ValueError("payload is not a JSON object")
    try:
        kind = TraceKind(r.kind)
    except ValueError as exc:
        raise ValueError(f"unknown kind {r.kind!r}") from exc
    try:
        return TraceEvent(
            run_id=r.run_id,
            seq=r.seq,
            kind=kind,
            node=r.node,
            payload=payload,
            at=r.at,
            prev_hash=r.prev_hash,
            hash=r.hash,
        )
    except ValueError as exc:  # pydantic's ValidationError is a ValueError
        raise ValueError(str(exc).splitlines()[0]) from exc


def commit_problem(run: RunRecord, events: list[TraceEvent]) -> str | None:
    """Why a committed run's stored outcome disagrees with its chain, or None."""
    if run.trace_head is None:
        return "committed run has no trace head"
    commits = [e for e in events if e.kind is TraceKind.RUN_COMMITTED]
    if len(commits) != 1:
        return f"committed run has {len(commits)} run.committed events (expected 1)"
    commit = commits[0]
    if commit.hash != run.trace_head:
        return "run.committed is not the head recorded at commit"
    recorded = commit.payload
    if recorded.get("label") != run.label:
        return f"stored label {run.label!r} differs from run.committed ({recorded.get('label')!r})"
    if "confidence" in recorded and not _same(recorded["confidence"], run.confidence):
        return "stored confidence differs from run.committed"
    if run.result_json is None:
        return "committed run lost its stored result" if "result_sha256" in recorded else None
    try:
        result = json.loads(run.result_json)
    except (json.JSONDecodeError, RecursionError):
        return "stored result is not JSON"
    if not isinstance(result, dict):
        return "stored result is not a JSON object"
    if result.get("trace_head") != run.trace_head:
        return "stored result names a different trace head"
    digest = recorded.get("result_sha256")
    if digest is not None and result_hash(result) != digest:
        return "stored result differs from the result hashed into run.committed"
    if digest is None and result.get("label") not in (None, run.label):
        return "stored result's label differs from run.committed"
    return None


def _same(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is b
    return isinstance(a, int | float) and math.isclose(float(a), float(b), abs_tol=1e-12)
