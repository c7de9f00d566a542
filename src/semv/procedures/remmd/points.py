"""Atomic points A = {(c_j, q_j, v_j, τ_j)} (ReMMD §3, first stage), offline.

The post is split into sentences; each sentence carrying a checkable fact (a date, a quantity,
a name, an attribution) becomes a sentence-level candidate; the lead sentence is also the
narrative-level claim; each loaded image gives an image observation (its OCR and description)
and a cross-modal binding (the sentence it is used to support). Candidates are ordered
central-first, near-duplicates are merged into the earlier one, and at most
``remmd.max_points`` (twelve) are kept. Each point gets a query in the post's language and,
for a non-English post, an English bridge query built from its language-independent facts
(names, English place names, dates spelled in English, quantities).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from semv.config import RemmdConfig
from semv.model import EvidenceKind, MediaEvidence
from semv.nlp import places as _places
from semv.nlp.embeddings import embed
from semv.nlp.language import language_of
from semv.nlp.text import content_words, fold, lexical_overlap
from semv.procedures.remmd._models import (
    AtomicPoint,
    AtomicPoints,
    PointFacts,
    PointRole,
    PointType,
)
from semv.procedures.remmd._text import (
    IMAGE_WORDS,
    actor_of,
    attribution_marker,
    english_date,
    entities,
    quantities,
    sentence_dates,
    sentences,
)

__all__ = ["Candidate", "extract_points", "merge_and_cap", "point_facts", "post_candidates"]

_ROLE_WEIGHT = {
    PointRole.ATTRIBUTION: 1.0,
    PointRole.EVENT: 0.9,
    PointRole.DATE: 0.6,
    PointRole.NUMBER: 0.5,
    PointRole.ENTITY: 0.5,
    PointRole.DETAIL: 0.2,
    PointRole.VISUAL: 0.8,
}
_TYPE_BONUS = {PointType.NARRATIVE: 3.0, PointType.BINDING: 2.5}
_MIN_WORDS = 4
_QUERY_WORDS = 14


@dataclass(frozen=True)
class Candidate:
    """A point before ids, merging and the cap."""

    text: str
    type: PointType
    role: PointRole
    central: bool
    centrality: float
    order: int
    facts: PointFacts
    keywords: tuple[str, ...] = ()
    visual_cues: tuple[str, ...] = ()
    sentence_index: int | None = None
    image_index: int | None = None
    image_name: str | None = None
    merged_from: tuple[str, ...] = ()


def point_facts(text: str, language: str) -> tuple[PointFacts, tuple[str, ...]]:
    dates = sentence_dates(text, language)
    names = tuple(n for n in entities(text, first_word_too=True) if _name_ok(n, text))
    return (
        PointFacts(
            dates=tuple(dict.fromkeys(d.iso for d in dates)),
            numbers=quantities(text, dates),
            entities=names,
            actor=actor_of(text, names),
        ),
        tuple(d.text for d in dates),
    )


def _name_ok(name: str, text: str) -> bool:
    """A capitalized first word counts as a name only when it is a known place or more than
    one word ("Indiana got ..." yes, "Some areas ..." no)."""
    if not text.startswith(name) or " " in name or name.isupper():
        return True
    return _places.resolve(name, alternates=False) is not None


def _role(text: str, facts: PointFacts) -> PointRole:
    if facts.actor is not None or attribution_marker(text) is not None:
        return PointRole.ATTRIBUTION
    if facts.dates and facts.entities:
        return PointRole.EVENT
    if facts.numbers:
        return PointRole.NUMBER
    if facts.dates:
        return PointRole.DATE
    if facts.entities:
        return PointRole.ENTITY
    return PointRole.DETAIL


def _checkable(text: str, facts: PointFacts) -> bool:
    has_fact = bool(facts.dates or facts.numbers or facts.entities or facts.actor)
    return has_fact and len(text.split()) + len(text) // 12 >= _MIN_WORDS


def post_candidates(text: str, language: str, cfg: RemmdConfig) -> tuple[list[Candidate], str]:
    """Sentence-level candidates and the narrative-level claim of a post, with centrality."""
    sents = sentences(text)
    analysed = []
    for index, sent in enumerate(sents, start=1):
        facts, _ = point_facts(sent, language)
        if _checkable(sent, facts):
            analysed.append((index, sent, facts))
    if not analysed:  # no checkable sentence: the lead claim is still the post's narrative
        lead = sents[0] if sents else text.strip()
        facts, _ = point_facts(lead, language)
        role = _role(lead, facts)
        return [
            Candidate(
                text=lead,
                type=PointType.NARRATIVE,
                role=role,
                central=True,
                centrality=_TYPE_BONUS[PointType.NARRATIVE] + _ROLE_WEIGHT[role],
                order=0,
                facts=facts,
                sentence_index=1,
            )
        ], lead
    mentions: Counter[str] = Counter()
    for _, _, facts in analysed:
        mentions.update({fold(e) for e in facts.entities})
    recurring = {e for e, n in mentions.items() if n >= 2}
    out: list[Candidate] = []
    lead_index, lead_text, lead_facts = analysed[0]
    out.append(
        Candidate(
            text=lead_text,
            type=PointType.NARRATIVE,
            role=_role(lead_text, lead_facts),
            central=True,
            centrality=_TYPE_BONUS[PointType.NARRATIVE]
            + _ROLE_WEIGHT[_role(lead_text, lead_facts)],
            order=0,
            facts=lead_facts,
            sentence_index=lead_index,
        )
    )
    for rank, (index, sent, facts) in enumerate(analysed):
        role = _role(sent, facts)
        names = {fold(e) for e in facts.entities}
        salience = len(names & recurring) / len(names) if names else 0.0
        in_lead = rank < cfg.lead_sentences
        central = in_lead or (role in (PointRole.ATTRIBUTION, PointRole.EVENT) and salience > 0)
        out.append(
            Candidate(
                text=sent,
                type=PointType.SENTENCE,
                role=role,
                central=central,
                centrality=_ROLE_WEIGHT[role] + salience + (1.0 if in_lead else 0.0),
                order=index,
                facts=facts,
                sentence_index=index,
            )
        )
    return out, lead_text


def _image_text(media: MediaEvidence) -> tuple[str, tuple[str, ...], str]:
    """(description, OCR lines, scene words) of one asset's media evidence."""
    description = ""
    ocr: list[str] = []
    for ev in media.evidence:
        if ev.kind is EvidenceKind.DESCRIPTION:
            description = ev.content
        elif ev.kind is EvidenceKind.OCR and ev.content.strip():
            ocr.append(ev.content.strip())
    return description, tuple(ocr), ""


def image_candidates(
    media: Sequence[MediaEvidence],
    sentence_candidates: Sequence[Candidate],
    language: str,
) -> list[Candidate]:
    """An image observation and a cross-modal binding per asset with media evidence."""
    out: list[Candidate] = []
    sents = [c for c in sentence_candidates if c.type is PointType.SENTENCE]
    lead = next((c for c in sentence_candidates if c.type is PointType.NARRATIVE), None)
    for number, item in enumerate(media, start=1):
        description, ocr, _ = _image_text(item)
        observed = " ".join([*ocr, description]).strip()
        if not observed:
            continue
        cues = tuple(dict.fromkeys([*ocr, *entities(" ".join(ocr), first_word_too=True)]))[:8]
        facts, _ = point_facts(" ".join(ocr), language)
        out.append(
            Candidate(
                text=f"image_{number} shows: {observed[:300]}",
                type=PointType.IMAGE,
                role=PointRole.VISUAL,
                central=False,
                centrality=_ROLE_WEIGHT[PointRole.VISUAL],
                order=1000 + number,
                facts=facts,
                visual_cues=cues,
                image_index=number,
                image_name=item.asset_id,
            )
        )
        bound = _bound_sentence(sents, ocr, number) or lead
        if bound is None:
            continue
        out.append(
            Candidate(
                text=f"image_{number} is used to support: {bound.text}",
                type=PointType.BINDING,
                role=bound.role,
                central=True,
                centrality=_TYPE_BONUS[PointType.BINDING] + _ROLE_WEIGHT[bound.role],
                order=500 + number,
                facts=bound.facts,
                visual_cues=cues,
                sentence_index=bound.sentence_index,
                image_index=number,
                image_name=item.asset_id,
            )
        )
    return out


def _bound_sentence(
    sents: Sequence[Candidate], ocr: tuple[str, ...], number: int
) -> Candidate | None:
    """The sentence that refers to the image: one naming it ("photo", "image 2"), else the
    one sharing most words with its text, else None (the lead is used)."""
    for c in sents:
        if re.search(rf"\b(?:image|photo|picture|bild|ảnh)\s*{number}\b", c.text, re.I):
            return c
    text = " ".join(ocr)
    if text:
        best = max(sents, key=lambda c: lexical_overlap(c.text, text), default=None)
        if best is not None and lexical_overlap(best.text, text) > 0:
            return best
    return next((c for c in sents if IMAGE_WORDS.search(c.text)), None)


def _similar(a: Candidate, b: Candidate, cfg: RemmdConfig, use_embeddings: bool) -> bool:
    if (a.type is PointType.IMAGE) != (b.type is PointType.IMAGE):
        return False
    if a.image_index != b.image_index and PointType.IMAGE in (a.type, b.type):
        return False
    if PointType.BINDING in (a.type, b.type):
        return False  # a binding is about the image's use, never a duplicate of its sentence
    ta, tb = _core(a), _core(b)
    if ta == tb or lexical_overlap(ta, tb) >= cfg.dedup_overlap:
        return True
    if use_embeddings:
        va, vb = embed(ta), embed(tb)
        if va is not None and vb is not None:
            return float(np.dot(va, vb)) >= cfg.dedup_cosine
    return False


def _core(c: Candidate) -> str:
    if c.type is PointType.BINDING:
        return c.text.split(": ", 1)[-1]
    return c.text


def merge_and_cap(
    candidates: Sequence[Candidate], cfg: RemmdConfig, *, use_embeddings: bool = True
) -> tuple[list[Candidate], int, int]:
    """Central-first order; near-duplicates merged into the earlier (more central) point;
    at most ``cfg.max_points`` kept. Returns (kept, merged count, dropped count)."""
    ranked = sorted(candidates, key=lambda c: (not c.central, -c.centrality, c.order))
    kept: list[Candidate] = []
    merged = 0
    for cand in ranked:
        twin = next((i for i, k in enumerate(kept) if _similar(k, cand, cfg, use_embeddings)), None)
        if twin is None:
            kept.append(cand)
            continue
        merged += 1
        host = kept[twin]
        kept[twin] = replace(
            host,
            merged_from=(*host.merged_from, cand.text),
            facts=_union(host.facts, cand.facts),
            visual_cues=tuple(dict.fromkeys((*host.visual_cues, *cand.visual_cues))),
        )
    dropped = max(0, len(kept) - cfg.max_points)
    return kept[: cfg.max_points], merged, dropped


def _union(a: PointFacts, b: PointFacts) -> PointFacts:
    return PointFacts(
        dates=tuple(dict.fromkeys((*a.dates, *b.dates))),
        numbers=tuple(dict.fromkeys((*a.numbers, *b.numbers))),
        entities=tuple(dict.fromkeys((*a.entities, *b.entities))),
        actor=a.actor or b.actor,
    )


def query_for(c: Candidate, language: str) -> str:
    """q_j in the post's language: names, dates and quantities as written, then content
    words, at most ``_QUERY_WORDS`` words."""
    text = _core(c)
    parts = [*c.facts.entities]
    parts += [d.text for d in sentence_dates(text, language)]
    parts += [q.text for q in c.facts.numbers]
    words = [w for w in re.findall(r"[^\W_]+", text) if fold(w) in content_words(w)]
    parts += words
    seen: set[str] = set()
    out: list[str] = []
    for part in parts:
        for word in part.split():
            key = fold(word)
            if key not in seen:
                seen.add(key)
                out.append(word)
    return " ".join(out[:_QUERY_WORDS]) or text[:120]


def bridge_for(c: Candidate, language: str) -> str | None:
    """The English bridge query of a non-English post: names (English labels for known
    places), dates spelled in English, quantities as numbers with their unit."""
    if language == "en":
        return None
    text = _core(c)
    parts: list[str] = []
    for name in c.facts.entities:
        place = _places.resolve(name)
        parts.append(place.name if place is not None else name)
    parts += [english_date(d) for d in sentence_dates(text, language)]
    parts += [f"{q.value:g}" for q in c.facts.numbers]
    parts = list(dict.fromkeys(p for p in parts if p))
    return " ".join(parts) if parts else None


def extract_points(
    text: str,
    media: Sequence[MediaEvidence],
    cfg: RemmdConfig,
    *,
    language: str | None = None,
    use_embeddings: bool = True,
) -> AtomicPoints:
    """A for one post (offline): candidates, merge, cap, ids, queries."""
    lang = language_of(text, language)
    sent_cands, summary = post_candidates(text, lang, cfg)
    cands = [*sent_cands, *image_candidates(media, sent_cands, lang)]
    kept, merged, dropped = merge_and_cap(cands, cfg, use_embeddings=use_embeddings)
    points = []
    for n, c in enumerate(kept, start=1):
        points.append(
            AtomicPoint(
                id=f"a{n}",
                text=c.text,
                query=query_for(c, lang),
                bridge_query=bridge_for(c, lang),
                visual_cues=c.visual_cues,
                type=c.type,
                role=c.role,
                central=c.central,
                centrality=round(c.centrality, 4),
                sentence_index=c.sentence_index,
                image_index=c.image_index,
                image_name=c.image_name,
                facts=c.facts,
                merged_from=c.merged_from,
            )
        )
    queries: list[str] = []
    for p in points:
        queries += [p.query, *([p.bridge_query] if p.bridge_query else [])]
    return AtomicPoints(
        language=lang,
        post_summary=summary,
        points=tuple(points),
        candidates=len(cands),
        merged=merged,
        dropped=dropped,
        retrieval_queries=tuple(dict.fromkeys(queries)),
    )
