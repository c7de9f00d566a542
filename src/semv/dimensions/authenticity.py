"""``authenticity``: the media is an authentic, unedited capture (claim type "integrity").

- **Statement**: "The media is an authentic, unedited capture" (always asserted).
- **Plan**: does the EXIF Software tag name an image editor; does a content credential bind
  the pixels (or declare edits); does the calibrated manipulation probability reach its
  fitted threshold.
- **Offline rule**: an editor in the EXIF Software tag attacks. Camera make/model and
  consistent capture/modification times are *not* an argument either way: metadata is not
  bound to the pixels (editors, ``exiftool`` and a plain re-save with the old EXIF block carry
  it over a pasted object unchanged), so its presence is only the absence of an editing trace
  (SEMV §4.2 keeps empty tool outputs as uncertainty, not as evidence of manipulation; an
  absent trace is no evidence against it either). Support for an unedited capture comes only
  from a measurement bound to the content: a C2PA manifest that validates against the file.
- **Signals**: a C2PA manifest (mismatch, AI generation or declared edits attack; a valid one
  supports); pixel forensics attack *only* through the calibrated manipulation probability
  (``semv.perception.manipulation``, fitted on a declared public split) at or above its fitted
  threshold, and only when ``forensics.manipulation_attacks`` lets it (off by default: the model
  does not transfer to news photos yet) — a map anomaly, a cloned-region match, a
  double-compression trace or a gated probability stays a review item (``forensic-anomaly``
  uncertainty), never an argument, and a probability below the threshold is no support;
  Photoshop resources in the JPEG container (an editor's own trace, like the EXIF Software
  tag) attack.
- **Re-check**: metadata and signal items are re-derived by the verifier (so a backend's
  support citing camera EXIF re-derives to "no finding" and is not verified).
- **Missing**: without any metadata item the dimension cannot be assessed offline (a note).
- **Report**: the "Forensic analysis" section, listing every metadata and forensic item;
  MV2026 field ``forensic-analysis``.
"""

from __future__ import annotations

from semv.config import OfflineAgentConfig
from semv.dimensions._common import ClaimView, Finding, is_metadata, is_observation
from semv.dimensions._spec import (
    CaseFacts,
    DimensionSpec,
    PlanSeed,
    ReportSection,
    SectionEvidence,
    Statement,
)
from semv.model import (
    ClaimFacts,
    ContentCredentials,
    Dimension,
    Distortion,
    Evidence,
    EvidenceKind,
    Exif,
    ForensicMap,
    JpegStructure,
    Modality,
    SourceType,
    Stage,
    Stance,
    Subclaim,
    UncertaintyCode,
    UncertaintyItem,
)
from semv.nlp.markers import editor_in

__all__ = ["AUTHENTICITY", "authenticity_rule", "authenticity_signals"]


def statement(case: CaseFacts) -> Statement:
    return Statement(
        text="The media is an authentic, unedited capture", asserted=True, facts=ClaimFacts()
    )


def plan(subclaim: Subclaim, cfg: OfflineAgentConfig) -> PlanSeed:
    return PlanSeed(
        questions=(
            "Does the EXIF Software tag name an image editor?",
            "Does a content credential (C2PA) bind the pixels, or declare edits?",
            "Does the calibrated manipulation probability reach its fitted threshold?",
        ),
        checks=("exif:software", "c2pa:validation", "forensic:manipulation_probability"),
    )


def authenticity_rule(view: ClaimView, ev: Evidence, cfg: OfflineAgentConfig) -> list[Finding]:
    """An image editor named by the EXIF Software tag attacks; nothing else in EXIF argues.

    Camera make/model and consistent timestamps are not support: EXIF is not bound to the
    pixels, so a photo with a pasted object re-saved with its old EXIF block (what editors and
    ``exiftool`` do by default) carries the same tags as the untouched capture. Their presence
    is the absence of an editing trace, which the paper never counts as evidence."""
    exif = ev.observed(Exif)
    if not is_metadata(ev) or is_observation(ev) or exif is None:
        return []  # file hash and container streams restate no camera or editor claim
    software = (exif.software or "").strip()
    editor = editor_in(software) if software else None
    if editor is None:
        return []
    text = (
        f"EXIF Software tag {software!r} ({ev.id}) names an image editor: the file was "
        f"edited with {editor}."
    )
    return [Finding(Stance.ATTACK, text, (ev.id,), (software,))]


# ---- forensic, C2PA and JPEG-structure signals ---------------------------------------------


def authenticity_signals(view: ClaimView, ev: Evidence, cfg: OfflineAgentConfig) -> list[Finding]:
    """Forensic and C2PA items bear on authenticity only."""
    credentials = ev.observed(ContentCredentials)
    if credentials is not None:
        return _c2pa_finding(ev.id, credentials)
    forensic = ev.observed(ForensicMap)
    if forensic is not None and forensic.kind is EvidenceKind.FORENSIC_COMBINED:
        return _forensic_finding(ev.id, forensic)
    jpeg = ev.observed(JpegStructure)
    if jpeg is not None and "Photoshop" in (jpeg.editor_markers or ""):
        text = (
            f"The JPEG container ({ev.id}) carries Adobe Photoshop image resources: "
            f"the file was saved by an image editor."
        )
        return [Finding(Stance.ATTACK, text, (ev.id,), ("Adobe Photoshop",))]
    return []


def _forensic_finding(ev_id: str, forensic: ForensicMap) -> list[Finding]:
    """An attack when the calibrated manipulation probability reaches its fitted threshold.

    Raw map scores, editing traces and single signals do not argue: on public images with both
    classes their image-level AUROC is near chance (``docs/evaluation.md``), so below the
    threshold (or without a fitted model) the anomaly stays a review item. A probability below
    the threshold is not evidence of an unedited image either (no support)."""
    p, threshold = forensic.manipulation_probability, forensic.manipulation_threshold
    if p is None or threshold is None or not forensic.argues:
        return []
    where = f"; cloned region {forensic.copy_move}" if forensic.copy_move else ""
    text = (
        f"The forensic manipulation model ({ev_id}, v{forensic.manipulation_model}: maps, "
        f"double-JPEG quantization, copy-move and resampling traces) gives a calibrated "
        f"probability of manipulation of {p:.2f}, at or above its fitted threshold "
        f"{threshold:.2f}; most anomalous map region {forensic.region}{where}."
    )
    return [
        Finding(
            Stance.ATTACK,
            text,
            (ev_id,),
            (f"{p:.2f}",),
            (UncertaintyCode.FORENSIC_ANOMALY,),
        )
    ]


def _c2pa_finding(ev_id: str, c2pa: ContentCredentials) -> list[Finding]:
    state, signer = c2pa.validation_state, c2pa.signer
    if c2pa.hash_mismatch:
        text = (
            f"The C2PA manifest ({ev_id}, signed by {signer}) no longer matches the file: "
            f"validation state {state}, failures {c2pa.failures}. The content was altered "
            f"after it was signed."
        )
        return [Finding(Stance.ATTACK, text, (ev_id,), (state, "mismatch"))]
    if c2pa.ai_generated:
        text = (
            f"The C2PA manifest ({ev_id}, signed by {signer}) declares the media as generated "
            f"by an algorithm or AI (actions: {c2pa.actions})."
        )
        return [Finding(Stance.ATTACK, text, (ev_id,), ("trainedAlgorithmicMedia",))]
    if c2pa.edited:
        text = (
            f"The C2PA manifest ({ev_id}, signed by {signer}) declares edits to the content "
            f"(actions: {c2pa.actions})."
        )
        return [Finding(Stance.ATTACK, text, (ev_id,), (signer,))]
    if state in ("Valid", "Trusted"):
        trust = "a trusted" if state == "Trusted" else "an untrusted but intact"
        text = (
            f"The C2PA manifest ({ev_id}) validates ({state}) with {trust} signature by "
            f"{signer} and declares no edits or AI generation."
        )
        return [Finding(Stance.SUPPORT, text, (ev_id,), (state, signer))]
    return []


def missing(subclaim: Subclaim, evidence: tuple[Evidence, ...]) -> UncertaintyItem | None:
    """No metadata item at all: the offline rules cannot assess authenticity."""
    if any(is_metadata(ev) and not is_observation(ev) for ev in evidence):
        return None
    return UncertaintyItem(
        code=UncertaintyCode.NO_METADATA,
        subject=subclaim.id,
        detail="no metadata evidence: authenticity cannot be assessed offline",
        stages=(Stage.ARGUE,),
    )


AUTHENTICITY = DimensionSpec(
    dimension=Dimension.AUTHENTICITY,
    claim_type="integrity",
    scope=None,
    statement=statement,
    plan=plan,
    sources=(SourceType.METADATA, SourceType.FORENSIC, SourceType.FACT_CHECK),
    fits=frozenset({Modality.METADATA, SourceType.FORENSIC}),
    rule=authenticity_rule,
    signals=authenticity_signals,
    missing=missing,
    section=ReportSection(
        key="forensic_analysis",
        title="Forensic analysis",
        order=5,
        evidence=SectionEvidence.INTEGRITY,
        evidence_title="Metadata and forensic evidence",
    ),
    remmd_l2=Distortion.V2,
    mv_field="forensic-analysis",
    mv_headings=("forensic", "authenticity", "manipulation"),
)
