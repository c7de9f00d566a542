"""``why``: the context the media is shared in (claim type "context"; the caption claim).

- **Statement**: "The media is shared to document <the claim>" (always asserted); its facts are
  every fact of the case (its scope is the source).
- **Plan**: has a fact-check or an earlier caption given the media another context or origin;
  do independent reports restate the claimed event with the same entities.
- **Offline rule**: a refutation, other-origin or fiction marker (``nlp/data``, with
  provenance) attacks; for a caption of the same media the caption-context model
  (``_context.py``: general signals — calibrated similarity, shared and unmatched entities,
  places, years, numbers, reported speech — combined by a logistic regression fitted on a
  declared training set, ``make fit``) attacks when p(another context) reaches its threshold
  (of several such captions only the closest to the claim argues: ``_closest_caption``);
  a text that shares named entities with the claim supports, unless the claim–evidence
  stance model (``_stance.py``, ``semv.nlp.stance``, fitted on AVeriTeC dev) finds that it
  refutes the claim (a debunking fact-check): then it attacks; text read in the media (OCR,
  speech) also shares a name that one side's extractor missed but the other side's text
  states (``echoed_names``: folded whole-word match); a text that is not a caption of the
  media and ties it to other entities attacks, unless such a name is stated by both (an
  extraction miss is no contradiction). A recalled ``context-threshold`` memory
  record turns on the similarity check (``context_attack``, off by default).
- **Signals**: a reverse-search match's caption is read as a text about the media.
- **Memory**: a recalled ``context-threshold`` record raises ``context_attack`` for this rule;
  the argument such a check yields cites the caption (current-case evidence) and lists the
  memory ids that suggested the check in M(a) (with no evidence it would be inadmissible,
  Def. 3.1).
- **Report**: the "Why" section; MV2026 field ``motivation``.
"""

from __future__ import annotations

from dataclasses import dataclass

from semv.config import OfflineAgentConfig
from semv.dimensions._common import (
    MAX_KEY_FACTS,
    ClaimView,
    Finding,
    capitalized,
    describes_same_media,
    echoed_names,
    entities,
    is_media_text,
    is_metadata,
    is_observation,
    places_related,
    shared_entities,
    snippet,
    source_phrase,
)
from semv.dimensions._context import (
    ContextModel,
    ContextSignals,
    context_probability,
    context_signals,
)
from semv.dimensions._spec import CaseFacts, DimensionSpec, PlanSeed, ReportSection, Statement
from semv.dimensions._stance import refutation
from semv.model import (
    Dimension,
    Distortion,
    Evidence,
    MemoryView,
    Scope,
    SourceType,
    Stance,
    Subclaim,
)
from semv.nlp.entities import extract
from semv.nlp.markers import recontext_marker
from semv.nlp.similarity import similarity
from semv.nlp.text import find_phrase

__all__ = ["WHY", "why_rule"]

_MARKERS = {
    "refutation": "disputes the claimed context",
    "origin": "gives the media another origin",
    "fiction": "describes the media as staged, artificial or fictional",
}


def statement(case: CaseFacts) -> Statement:
    return Statement(
        text=f"The media is shared to document {case.summary}", asserted=True, facts=case.facts
    )


def plan(subclaim: Subclaim, cfg: OfflineAgentConfig) -> PlanSeed:
    return PlanSeed(
        questions=(
            "Has a fact-check or earlier caption given the media a different context or origin?",
            "Do independent reports restate the claimed event with the same entities?",
        ),
        checks=(
            "text: refutation / recontextualization markers",
            "caption of the same media: caption-context model (general signals, fitted)",
            "text: shared named entities (stance model: a refuting text attacks)",
        ),
        queries=(f"{' '.join(subclaim.facts.keywords[:4])} fact check".strip(),),
    )


def why_rule(view: ClaimView, ev: Evidence, cfg: OfflineAgentConfig) -> list[Finding]:
    if is_metadata(ev) or is_observation(ev) or not ev.content.strip():
        return []
    src = capitalized(source_phrase(ev))
    marker = recontext_marker(ev.content)
    if marker is not None:
        label, phrase = marker
        text = f"{src} ({ev.id}) {_MARKERS[label]} (“{phrase}”): “{snippet(ev.content)}”."
        return [Finding(Stance.ATTACK, text, (ev.id,), (phrase,))]
    sim = similarity(view.claim_text, ev.content, cfg)
    observed = extract(ev.content, view.language)
    shared = shared_entities(view, observed, cfg.place_tolerance_km)
    # A name one side's extractor missed but whose text states it (a sign reads a village's
    # name, the caption says "the <village> signpost" and its parse has no such entity):
    # never read as naming none of the claim's entities.
    echoed = echoed_names(view, ev.content, observed)
    stated = bool(echoed)
    if is_media_text(ev):
        # Text read in the case's own media (a sign, a banner, speech) that states a name the
        # claim states ties the media to the claimed context as an extracted entity does.
        shared = tuple(dict.fromkeys((*shared, *echoed)))
        # A line read in the media (one text region) that the claim states whole, named by
        # neither parse, agrees as well: no support from it, but no contradiction either.
        stated = stated or any(
            find_phrase(line, view.claim_text) is not None for line in ev.content.splitlines()
        )
    same_media = describes_same_media(ev)
    if same_media:
        reading = _caption_reading(view, ev, cfg)
        signals, p, model = reading.signals, reading.p, reading.model
        captions = _captions_of_the_media(view)
        closest = _closest_caption(view, captions, cfg)
        if closest is not None and closest.id != ev.id:
            # The captions of the media are read as one body: the closest one to the claim
            # speaks for them (below).
            return []
        if p >= model.threshold:
            others = f"; it names {', '.join(signals.text_only[:3])}" if signals.text_only else ""
            asked = (
                f", local judge P(different) {reading.judged:.2f}"
                if reading.judged is not None
                else ""
            )
            which = (
                f"the closest to the claim of {len(captions)} captions of the same media, "
                if len(captions) > 1
                else "a caption of the same media that "
            )
            text = (
                f"{src} ({ev.id}) is {which}describes another "
                f"context: p = {p:.2f} ≥ {model.threshold:.2f} from similarity "
                f"{signals.similarity:.2f}, {len(signals.shared)} shared name(s){others}{asked} "
                f"(caption-context model, {model.provenance.get('training_set', 'fitted')}): "
                f"“{snippet(ev.content)}”."
            )
            return [Finding(Stance.ATTACK, text, (ev.id,), tuple(signals.text_only[:3]))]
    if not shared and same_media and sim.value < cfg.context_attack:
        # Two captions of the same media that share no named entity and describe different
        # events: the claimed context is not the one the media was published with.
        text = (
            f"{src} ({ev.id}) is a caption of the same media that describes a different "
            f"event (similarity {sim.value:.2f} < {cfg.context_attack:.2f}) and names none "
            f"of the claim's people or places: “{snippet(ev.content)}”."
        )
        return [Finding(Stance.ATTACK, text, (ev.id,), ())]
    if shared:
        # A caption of the same media is judged by the caption-context model above; the stance
        # model reads documents that argue about the claim (fact-checks, reports).
        refuted = None if same_media else refutation(view, ev, cfg)
        if refuted is not None:
            # It names the claimed event to debunk it (a fact-check): an attack, not a support.
            text = (
                f"{src} ({ev.id}) names the claimed event ({', '.join(shared)}) but refutes "
                f"the claim (stance model: {refuted.describe()}): “{snippet(ev.content)}”."
            )
            facts = (refuted.features.marker,) if refuted.features.marker else shared
            return [Finding(Stance.ATTACK, text, (ev.id,), tuple(facts[:MAX_KEY_FACTS]))]
        text = (
            f"{src} ({ev.id}) names {', '.join(shared)}, as the claim does "
            f"(similarity {sim.value:.2f})."
            if is_media_text(ev)
            else f"{src} ({ev.id}) restates the claimed event with the same entities "
            f"({', '.join(shared)}; similarity {sim.value:.2f})."
        )
        return [Finding(Stance.SUPPORT, text, (ev.id,), shared[:MAX_KEY_FACTS])]
    claim_entities = entities(view.claim)
    ev_entities = entities(observed)
    if (
        claim_entities
        and ev_entities
        and not shared
        and not stated
        and not same_media
        and not places_related(view, observed, cfg.place_tolerance_km)
    ):
        text = (
            f"{src} ({ev.id}) ties the media to other people, places or events "
            f"({', '.join(ev_entities[:4])}) and names none of the claim's "
            f"({', '.join(claim_entities[:4])}); similarity {sim.value:.2f}."
        )
        return [Finding(Stance.ATTACK, text, (ev.id,), tuple(ev_entities[:3]))]
    return []


@dataclass(frozen=True)
class _CaptionReading:
    """The caption-context model's reading of one caption of the same media."""

    signals: ContextSignals
    p: float
    model: ContextModel
    judged: float | None


def _caption_reading(view: ClaimView, ev: Evidence, cfg: OfflineAgentConfig) -> _CaptionReading:
    """p(another context) of a caption of the same media, computed once per view."""
    key = f"why:caption-context:{ev.id}:{cfg.context_model}:{cfg.judge}:{cfg.judge_model}"
    cached = view._cache.get(key)
    if isinstance(cached, _CaptionReading):
        return cached
    signals = context_signals(view, ev.content, cfg)
    p, model, judged = context_probability(view, ev.content, signals, cfg)
    reading = _CaptionReading(signals, p, model, judged)
    view._cache[key] = reading
    return reading


def _captions_of_the_media(view: ClaimView) -> list[Evidence]:
    """The items ranked for the subclaim that the caption-context model reads: captions of the
    same media with content and no recontextualization marker (a marker attacks on its own)."""
    return [
        e
        for e in view.evidence
        if describes_same_media(e) and e.content.strip() and recontext_marker(e.content) is None
    ]


def _closest_caption(
    view: ClaimView, captions: list[Evidence], cfg: OfflineAgentConfig
) -> Evidence | None:
    """The caption of the same media closest to the claimed context (lowest p; ties by id).

    A deviation from reading every caption as its own argument (docs/architecture.md,
    "Directness"): the model was fitted on one caption per claim, and the captions a reverse
    search returns are not independent tests of the claim; one caption that
    describes the claimed context is enough to show that the media has been published with
    it, and N unrelated ones must not add up to N attacks.
    """
    if len(captions) < 2:
        return None
    return min(captions, key=lambda e: (_caption_reading(view, e, cfg).p, e.id))


CONTEXT_THRESHOLD = "context-threshold"
"""The memory action that raises ``context_attack`` (``semv.memory``'s ``Action``)."""


def guided(
    cfg: OfflineAgentConfig, memory: MemoryView
) -> tuple[OfflineAgentConfig | None, tuple[str, ...]]:
    """The highest recalled ``context-threshold`` above the configured one, and the records
    that ask for it; None when no recalled record raises it."""
    best = cfg.context_attack
    ids: list[str] = []
    for g in memory.guidance:
        if g.action != CONTEXT_THRESHOLD or g.dimension != Dimension.WHY.value:
            continue
        threshold = g.params.get("threshold")
        if threshold is None or threshold <= cfg.context_attack:
            continue
        ids.append(g.id)
        best = max(best, threshold)
    if not ids:
        return None, ()
    return cfg.model_copy(update={"context_attack": best}), tuple(ids)


WHY = DimensionSpec(
    dimension=Dimension.WHY,
    claim_type="context",
    scope=Scope.SOURCE,
    statement=statement,
    plan=plan,
    sources=(SourceType.FACT_CHECK, SourceType.PRIOR_CAPTION, SourceType.NEWS),
    fits=frozenset({SourceType.FACT_CHECK, SourceType.PRIOR_CAPTION, SourceType.NEWS}),
    rule=why_rule,
    reads_match_caption=True,
    guided=guided,
    section=ReportSection(key="why", title="Why", order=4),
    remmd_l2=Distortion.C2,
    mv_field="motivation",
    mv_headings=("why", "motivation", "intent", "narrative", "purpose"),
)
