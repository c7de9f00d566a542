"""Content credentials (C2PA) of one asset, read with ``c2pa-python`` (``media:<asset>``).

``read_credentials`` yields ``ev:c2pa:<asset>`` when the file carries a C2PA manifest: its
validation state (``Valid``/``Trusted``/``Invalid``), the signer (issuer and common name from the
claim signature), the claim generator, and the claimed actions (``c2pa.created``,
``c2pa.edited``, ...) with their digital source types (IPTC ``trainedAlgorithmicMedia`` and
friends mean AI generation). Failure codes such as ``assertion.dataHash.mismatch`` mean the
bytes were changed after signing: the authenticity rule turns that into a strong attack.

A file without a manifest yields nothing (most media carry none); a missing ``c2pa`` package or
an unreadable manifest yields an uncertainty item, never evidence.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from semv._code import dist_version
from semv.model import (
    Asset,
    ContentCredentials,
    Evidence,
    MediaEvidence,
    MediaLocation,
    Modality,
    ProducerKind,
    Provenance,
    SourceType,
    Stage,
    UncertaintyCode,
    UncertaintyItem,
)

__all__ = ["C2PA_RELIABILITY", "c2pa_version", "read_credentials"]

C2PA_RELIABILITY: Final = 0.95
"""r_e of a C2PA validation result: cryptographic, but only as good as the signer."""

AI_SOURCE_TYPES: Final = (
    "trainedAlgorithmicMedia",
    "compositeWithTrainedAlgorithmicMedia",
    "algorithmicMedia",
    "compositeSynthetic",
)
"""IPTC digital source types that mean generated (or partly generated) by an algorithm/AI."""
HASH_FAILURES: Final = ("dataHash.mismatch", "bmffHash.mismatch", "boxesHash.mismatch")
_EDIT_ACTIONS: Final = frozenset(
    {
        "c2pa.edited",
        "c2pa.color_adjustments",
        "c2pa.cropped",
        "c2pa.filtered",
        "c2pa.resized",
        "c2pa.drawing",
        "c2pa.placed",
        "c2pa.removed",
        "c2pa.converted",
        "c2pa.transcoded",
    }
)
_STAGES: Final = (Stage.RETRIEVE,)


def c2pa_version() -> str:
    """``c2pa-python <version>``, or ``c2pa missing`` (for fingerprints and provenance)."""
    installed = dist_version("c2pa-python")
    return "c2pa missing" if installed is None else f"c2pa-python {installed}"


def read_credentials(asset: Asset) -> MediaEvidence:
    """The C2PA manifest of ``asset`` as evidence, or nothing when it has none."""
    if not asset.loaded:
        return MediaEvidence(asset_id=asset.id, evidence=())
    try:
        import c2pa
    except ImportError as exc:
        return _uncertain(asset, UncertaintyCode.TOOL_MISSING, f"c2pa-python unavailable: {exc}")
    path = Path(asset.path)
    try:
        reader = c2pa.Reader(str(path))
    except c2pa.C2paError as exc:
        text = str(exc)
        if "ManifestNotFound" in type(exc).__name__ or "ManifestNotFound" in text:
            return MediaEvidence(asset_id=asset.id, evidence=())
        if "NotSupported" in type(exc).__name__ or "type is unsupported" in text:
            return MediaEvidence(asset_id=asset.id, evidence=())
        return _uncertain(
            asset, UncertaintyCode.MEDIA_UNREADABLE, f"c2pa: {path.name}: {text[:300]}"
        )
    except (OSError, ValueError) as exc:
        return _uncertain(asset, UncertaintyCode.MEDIA_UNREADABLE, f"c2pa: {path.name}: {exc}")
    with reader:
        state = reader.get_validation_state() or "Unknown"
        results = reader.get_validation_results() or {}
        manifest = reader.get_active_manifest() or {}
    return MediaEvidence(asset_id=asset.id, evidence=(_evidence(asset, state, results, manifest),))


def _codes(results: dict[str, Any], kind: str) -> list[str]:
    codes: list[str] = []
    for section in results.values():
        if isinstance(section, dict):
            for entry in section.get(kind, []) or []:
                code = entry.get("code") if isinstance(entry, dict) else None
                if isinstance(code, str) and code not in codes:
                    codes.append(code)
    return codes


def _actions(manifest: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for assertion in manifest.get("assertions", []) or []:
        label = str(assertion.get("label", ""))
        if label.startswith("c2pa.actions"):
            out.extend(a for a in (assertion.get("data") or {}).get("actions", []) or [])
    return out


def _evidence(
    asset: Asset, state: str, results: dict[str, Any], manifest: dict[str, Any]
) -> Evidence:
    failures = _codes(results, "failure")
    signature = manifest.get("signature_info") or {}
    issuer = str(signature.get("issuer") or "unknown issuer")
    signer = str(signature.get("common_name") or issuer)
    generators = manifest.get("claim_generator_info") or []
    generator = ", ".join(
        f"{g.get('name', '?')} {g.get('version', '')}".strip()
        for g in generators
        if isinstance(g, dict)
    ) or str(manifest.get("claim_generator") or "unknown")
    actions = _actions(manifest)
    names = [str(a.get("action", "?")) for a in actions]
    sources = [str(a.get("digitalSourceType", "")) for a in actions if a.get("digitalSourceType")]
    ai = any(s.rsplit("/", 1)[-1] in AI_SOURCE_TYPES for s in sources)
    edited = any(n in _EDIT_ACTIONS for n in names)
    hash_mismatch = any(code.endswith(HASH_FAILURES) for code in failures)
    parts = [f"C2PA manifest, validation state {state}", f"signed by {signer} ({issuer})"]
    parts.append(f"claim generator {generator}")
    if names:
        parts.append("actions: " + ", ".join(names))
    if ai:
        parts.append("digital source type: " + ", ".join(s.rsplit("/", 1)[-1] for s in sources))
    if failures:
        parts.append("validation failures: " + ", ".join(failures))
    data = ContentCredentials(
        validation_state=state,
        signer=signer,
        issuer=issuer,
        claim_generator=generator,
        actions=", ".join(names),
        ai_generated=ai,
        edited=edited,
        hash_mismatch=hash_mismatch,
        trusted=state == "Trusted",
        failures=", ".join(failures),
    )
    return Evidence(
        id=f"ev:c2pa:{asset.id}",
        source="C2PA content credentials",
        source_type=SourceType.METADATA,
        modality=Modality.METADATA,
        content="; ".join(parts) + ".",
        observation=data,
        reliability=C2PA_RELIABILITY,
        location=MediaLocation(asset_id=asset.id),
        provenance=Provenance(
            producer=ProducerKind.TOOL,
            agent="c2pa-python",
            tool_version=c2pa_version(),
            method="c2pa.Reader: active manifest, validation state and results",
            derived_from=(asset.id,),
        ),
    )


def _uncertain(asset: Asset, code: UncertaintyCode, detail: str) -> MediaEvidence:
    item = UncertaintyItem(code=code, subject=asset.id, detail=detail, stages=_STAGES)
    return MediaEvidence(asset_id=asset.id, evidence=(), uncertainty=(item,))
