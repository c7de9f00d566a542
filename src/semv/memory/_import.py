"""Checking a memory export before any of its records is admitted (SEMV §4.6, Eq. 26-29).

An export is a file anyone can edit, so an imported record is admitted only as far as the
bank's own gate would admit it:

- **integrity**: every record's sha256 (written by ``export``) must match; with a key
  configured (``memory.export_key_env``) the file's HMAC-SHA256 signature over those hashes
  must verify, else the whole file is refused;
- **Safe(κ)** of Eq. 26 (``semv.memory._gate.safe``) on the record's lesson, trigger, action
  and parameters: an over-general, verdict-dictating or evidence-substituting lesson, or a
  context threshold above 0.6, is rejected;
- **Eq. 29 / Table 2 bounds**: (α, β) start at (1, 1) and every support or contradiction adds
  exactly 1 to α + β, so α, β ≥ 1 and α + β ≤ 2 + n⁺ + n⁻; an active record needs Table 2's
  θ^x distinct cases and θ^s distinct source fingerprints; counts are non-negative; the key
  is the one its fields give.

A record that fails is rejected (not imported, named in the report and the memory trace). A
record from an older export without a hash cannot be shown untampered: it arrives
``under-review`` (staged, never active) when it passes the other checks. The gate's
grounding conditions (E_κ ⊆ IDs(𝓔_i), x(κ) ∈ D_learn) refer to the exporting store's runs
and cannot be re-checked here; that is why integrity is required for an active import.
"""

from __future__ import annotations

import hashlib
import hmac
import math
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from semv.config import MemoryConfig, environment_variable
from semv.memory._consolidate import thresholds
from semv.memory._gate import SafetyUnavailable, safe
from semv.memory._model import Candidate, Diagnosis, Record, Status
from semv.store import canonical_json, content_hash

__all__ = ["ImportReport", "check_records", "export_fields", "export_key"]

_EPS = 1e-9


@dataclass
class ImportReport:
    """What an import admitted: records written, and the ids refused or staged, with why."""

    accepted: list[Record] = field(default_factory=list)
    quarantined: list[tuple[str, str]] = field(default_factory=list)
    rejected: list[tuple[str, str]] = field(default_factory=list)

    @property
    def imported(self) -> int:
        return len(self.accepted)

    def as_json(self) -> dict[str, Any]:
        return {
            "imported": self.imported,
            "quarantined": [{"id": i, "reason": r} for i, r in self.quarantined],
            "rejected": [{"id": i, "reason": r} for i, r in self.rejected],
        }


def export_key(config: MemoryConfig) -> bytes | None:
    """The signing key named by ``memory.export_key_env``, None when unset."""
    value = environment_variable(config.export_key_env) or ""
    return value.encode("utf-8") if value else None


def _signature(hashes: dict[str, str], key: bytes) -> str:
    return hmac.new(key, canonical_json(hashes).encode("utf-8"), hashlib.sha256).hexdigest()


def export_fields(records: list[dict[str, Any]], key: bytes | None) -> dict[str, Any]:
    """The integrity fields an export carries: per-record hashes, and a signature with a key."""
    hashes = {str(r["id"]): content_hash(r) for r in records}
    out: dict[str, Any] = {"hashes": hashes}
    if key is not None:
        out["signature"] = _signature(hashes, key)
    return out


def check_records(doc: dict[str, Any], config: MemoryConfig, where: str) -> ImportReport:
    """Check every record of an export document; ``ValueError`` when the file as a whole
    cannot be trusted (bad or missing signature while a key is configured)."""
    raw_records = doc.get("records", [])
    if not isinstance(raw_records, list):
        raise ValueError(f"{where}: 'records' is not a list")
    hashes = doc.get("hashes")
    if hashes is not None and not (
        isinstance(hashes, dict) and all(isinstance(v, str) for v in hashes.values())
    ):
        raise ValueError(f"{where}: 'hashes' is not a mapping of record ids to hashes")
    key = export_key(config)
    if key is not None:
        signature = doc.get("signature")
        if not isinstance(signature, str) or hashes is None:
            raise ValueError(f"{where}: unsigned export, but {config.export_key_env} is set")
        if not hmac.compare_digest(signature, _signature(hashes, key)):
            raise ValueError(f"{where}: the export's signature does not verify")
    report = ImportReport()
    for index, raw in enumerate(raw_records):
        rid = str(raw.get("id", f"#{index}")) if isinstance(raw, dict) else f"#{index}"
        try:
            record = Record.model_validate(raw)
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            where_in = ".".join(str(p) for p in first["loc"]) or "record"
            report.rejected.append((rid, f"invalid record: {where_in}: {first['msg']}"))
            continue
        problem = _problem(record, config)
        if problem is not None:
            report.rejected.append((record.id, problem))
            continue
        if hashes is None or record.id not in hashes:
            report.quarantined.append((record.id, "no export hash: staged under review"))
            report.accepted.append(record.model_copy(update={"status": Status.UNDER_REVIEW}))
            continue
        if content_hash(raw) != hashes[record.id]:
            report.rejected.append((record.id, "edited after export: its hash does not match"))
            continue
        report.accepted.append(record)
    return report


def _problem(record: Record, config: MemoryConfig) -> str | None:
    """Why ``record`` may not enter the bank, or None."""
    bounds = _bounds_problem(record, config)
    if bounds is not None:
        return bounds
    probe = Candidate(
        id=record.id,
        type=record.type,
        diagnosis=Diagnosis.SUCCESS,
        lesson=record.lesson or "-",
        task=record.task,
        dimension=record.dimension,
        trigger=dict(record.trigger),
        pattern=dict(record.pattern),
        action=record.action,
        params=dict(record.params),
        queries=record.queries,
        source_types=record.source_types,
        checks=record.checks,
        evidence=(),
        arguments=(),
        source_case="import",
        source_run="import",
        source_fingerprint="import",
        confidence=min(1.0, max(0.0, record.confidence)),
        supervision="none",
        reflector="import",
    )
    if probe.key != record.key:
        return f"key {record.key!r} does not match its fields ({probe.key!r})"
    try:
        ok, why = safe(probe)
    except SafetyUnavailable as exc:
        return f"safety check unavailable: {exc}"
    return None if ok else f"Safe(κ) = 0: {why}"


def _bounds_problem(record: Record, config: MemoryConfig) -> str | None:
    numbers = (record.alpha, record.beta, *record.pattern.values(), *record.params.values())
    if not all(math.isfinite(v) for v in numbers):
        return "a number is not finite"
    counts = (record.n_support, record.n_conflict, record.uses_retrieved, record.uses_successful)
    if min(counts) < 0:
        return "a count is negative"
    if record.uses_successful > record.uses_retrieved:
        return "more successful uses than retrievals"
    if record.alpha < 1.0 - _EPS or record.beta < 1.0 - _EPS:
        return f"(α, β) = ({record.alpha:g}, {record.beta:g}) below the (1, 1) prior (Eq. 29)"
    observed = record.n_support + record.n_conflict
    if record.alpha + record.beta > 2.0 + observed + _EPS:
        return (
            f"α + β = {record.alpha + record.beta:g} exceeds 2 + n⁺ + n⁻ = {2 + observed} "
            f"(c(m) = {record.confidence:.3f} without the observations to back it, Eq. 29)"
        )
    if record.status is Status.ACTIVE:
        _theta_c, theta_x, theta_s = thresholds(config, record.type)
        n_cases, n_sources = len(set(record.cases)), len(set(record.fingerprints))
        if n_cases < theta_x or n_sources < theta_s or record.n_support < theta_x:
            return (
                f"active {record.type.value} record with {n_cases} cases and {n_sources} "
                f"sources; Table 2 needs θ^x = {theta_x}, θ^s = {theta_s}"
            )
    return None
