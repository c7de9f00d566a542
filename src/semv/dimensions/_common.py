"""What every dimension's rule shares: the claim as resolved once (``ClaimView``), a rule's
``Finding``, the kinds of evidence item (metadata, media observation, media text, signal), and
the phrasing helpers that keep the rules' texts alike.

Each rule compares what the subclaim asserts with what one evidence item says and returns at
most one ``Finding`` (a support or an attack) per item: its text states the actual values
compared, ``key_facts`` are the literal tokens of the evidence it rests on (checked by the
grounding verifier). Rules are pure functions of (subclaim facts, claim text, evidence item,
config), so the verifier can re-derive a metadata comparison from the evidence.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from functools import cached_property

from semv.model import (
    Directness,
    Evidence,
    EvidenceKind,
    Exif,
    Modality,
    ProducerKind,
    SourceType,
    Stance,
    Subclaim,
    UncertaintyCode,
)
from semv.nlp import places as _places
from semv.nlp.dates import DateMention, from_iso
from semv.nlp.entities import (
    PlaceMention,
    TextFacts,
    extract,
    names_overlap,
    person_matches,
    place_key,
)
from semv.nlp.markers import editor_in
from semv.nlp.places import Place
from semv.nlp.quotes import asserted as asserted_text
from semv.nlp.quotes import quotes_claim
from semv.nlp.text import find_phrase
from semv.reasoning import join_words

__all__ = [
    "C2PA",
    "FORENSIC_KINDS",
    "MAX_KEY_FACTS",
    "REVERSE_MATCH",
    "SNIPPET_CHARS",
    "ClaimView",
    "Finding",
    "asserted_text",
    "capitalized",
    "capture",
    "days",
    "describes_same_media",
    "directness",
    "echoed_names",
    "entities",
    "is_media_text",
    "is_metadata",
    "is_observation",
    "is_retrieved",
    "join_words",
    "media_kind",
    "metadata_doubt",
    "names_overlap",
    "places_related",
    "refers_to_case",
    "shared_entities",
    "signal_kind",
    "snippet",
    "source_phrase",
]

MAX_KEY_FACTS = 5
SNIPPET_CHARS = 160


@dataclass(frozen=True)
class Finding:
    """One rule outcome: a support or an attack, citing the items it rests on."""

    stance: Stance
    text: str
    evidence: tuple[str, ...]
    key_facts: tuple[str, ...] = ()
    uncertainty: tuple[UncertaintyCode, ...] = ()


@dataclass
class ClaimView:
    """What a subclaim asserts, resolved once per argue/verify call."""

    subclaim: Subclaim
    claim_text: str
    language: str | None = None
    evidence: tuple[Evidence, ...] = ()
    """The other items ranked for the subclaim (a rule may compare an item with them: a capture
    time after the media was already published)."""
    _cache: dict[str, object] = field(default_factory=dict)

    @cached_property
    def claim(self) -> TextFacts:
        return extract(self.claim_text, self.language)

    @cached_property
    def dates(self) -> list[DateMention]:
        out = []
        for iso in self.subclaim.facts.dates:
            parsed = from_iso(iso)
            if parsed is not None:
                out.append(parsed)
        return out

    @cached_property
    def place_mentions(self) -> list[PlaceMention]:
        names = list(self.subclaim.facts.places)
        resolved = _places.resolve_all(names)
        return [
            PlaceMention(n, p, _places.rivals(n) if p is None else ())
            for n, p in zip(names, resolved, strict=True)
        ]

    @cached_property
    def places(self) -> list[Place]:
        return _places.specific([m.place for m in self.place_mentions if m.place is not None])

    @cached_property
    def place_keys(self) -> set[str]:
        return {place_key(m.text) for m in self.place_mentions} | {
            place_key(m.name) for m in self.place_mentions
        }

    @cached_property
    def people(self) -> tuple[str, ...]:
        return self.subclaim.facts.people

    @cached_property
    def organizations(self) -> tuple[str, ...]:
        return self.subclaim.facts.organizations

    @cached_property
    def groups(self) -> tuple[str, ...]:
        return self.subclaim.facts.groups


# ---- kinds of evidence item -----------------------------------------------------------------


def is_metadata(ev: Evidence) -> bool:
    return ev.modality is Modality.METADATA or ev.source_type is SourceType.METADATA


_OBSERVATION_KINDS = frozenset(
    {
        EvidenceKind.FILE,
        EvidenceKind.CONTAINER,
        EvidenceKind.KEYFRAMES,
        EvidenceKind.VISUAL,
        EvidenceKind.DESCRIPTION,
    }
)
"""Media evidence that records measurements (hashes, streams, frames, colours), not text
anyone wrote or said: the text rules do not read it."""

_MEDIA_TEXT = {
    EvidenceKind.OCR: "the text read in the media (OCR)",
    EvidenceKind.TRANSCRIPT: "the speech in the media (ASR)",
}
"""Text found in the case's own media: compared for dates, places, names and numbers, but it
neither describes the scene nor is a caption of it."""

FORENSIC_KINDS = frozenset(
    {
        EvidenceKind.FORENSIC_MAP,
        EvidenceKind.FORENSIC_COMBINED,
        EvidenceKind.JPEG_STRUCTURE,
        EvidenceKind.BORDER_CUES,
    }
)
REVERSE_MATCH = EvidenceKind.REVERSE_SEARCH_MATCH
C2PA = EvidenceKind.C2PA
_SIGNAL_KINDS = FORENSIC_KINDS | {REVERSE_MATCH, C2PA}


def media_kind(ev: Evidence) -> EvidenceKind | None:
    """The kind of the item's observation (``ocr``, ``transcript``, ``keyframes``...)."""
    return ev.kind


def is_observation(ev: Evidence) -> bool:
    """A measurement, not a text: skipped by the text rules."""
    return ev.kind in _OBSERVATION_KINDS


def is_media_text(ev: Evidence) -> bool:
    """OCR or speech transcript of the case's media."""
    return ev.kind in _MEDIA_TEXT


def signal_kind(ev: Evidence) -> EvidenceKind | None:
    """The kind of an item from the forensic, C2PA or reverse-search extractors, else None."""
    return ev.kind if ev.kind in _SIGNAL_KINDS else None


def describes_same_media(ev: Evidence) -> bool:
    """A text that describes the case's own media: a prior caption, or any text evidence tied
    to one of the case's assets (``location.asset_id``)."""
    if is_metadata(ev) or is_observation(ev) or is_media_text(ev):
        return False
    return ev.source_type is SourceType.PRIOR_CAPTION or ev.location is not None


def directness(ev: Evidence, claim_text: str) -> Directness:
    """What ``ev`` bears on (docs/architecture.md, "Directness"):

    - ``media``: measured from the case's own media: its metadata (EXIF GPS, capture time,
      camera), file and container observations, content credentials, forensic traces, the
      text read in it (OCR) or spoken in it (ASR);
    - ``media-reference``: an item that refers to this media: a reverse-image match, a caption
      or any text tied to one of the case's assets (a prior caption, a web caption of the same
      image), a fact-check, or a text that quotes the claim;
    - ``event``: anything else, i.e. a report of the event only.
    """
    if (
        is_metadata(ev)
        or is_observation(ev)
        or is_media_text(ev)
        or ev.kind in FORENSIC_KINDS
        or ev.kind is C2PA
        or ev.source_type is SourceType.FORENSIC
    ):
        return Directness.MEDIA
    if (
        ev.kind is REVERSE_MATCH
        or describes_same_media(ev)
        or ev.source_type is SourceType.FACT_CHECK
        or quotes_claim(claim_text, ev.content)
    ):
        return Directness.MEDIA_REFERENCE
    return Directness.EVENT


def capture(ev: Evidence) -> tuple[DateMention, dt.datetime | None] | None:
    """The EXIF capture date of a metadata item (day precision) and its timestamp."""
    exif = ev.observed(Exif)
    if exif is None or not exif.capture_time:
        return None
    text = exif.capture_time.strip()
    stamp: dt.datetime | None = None
    try:
        stamp = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        stamp = None
    mention = from_iso(text[:10])
    if mention is None or mention.day is None:
        return None
    return mention, stamp


def metadata_doubt(ev: Evidence, *, time: bool) -> str | None:
    """Why the metadata item ``ev`` may not describe the capture, as a clause for an argument's
    text; None when nothing casts doubt on it. ``time``: the doubt is about its capture time
    (a modification date stands in for it), else about its GPS position.

    The honest exceptions of a direct provenance argument (docs/architecture.md,
    "Directness"): the tags were written by an image editor, the file names no camera (a
    screenshot or a re-save keeps no camera tags, and its times are when the file was written),
    or the only time in the file is its modification date."""
    exif = ev.observed(Exif)
    if exif is None:
        return None
    software = (exif.software or "").strip()
    editor = editor_in(software) if software else None
    if editor is not None:
        return f"the file was written by {editor} ({software!r}), which can rewrite these tags"
    if not (exif.make or "").strip() and not (exif.model or "").strip():
        return (
            "the file names no camera: a screenshot or a re-save, whose tags tell when and "
            "where the file was written rather than the scene captured"
        )
    tag = exif.capture_time_tag or ""
    if time and tag.endswith("ModifyDate"):
        return (
            f"the only time in the file is its modification date ({tag}), written when it was "
            "last saved"
        )
    return None


# ---- phrasing ---------------------------------------------------------------------------------


def capitalized(text: str) -> str:
    """``text`` with its first letter upper-cased (``str.capitalize`` would lower "OCR")."""
    return text[:1].upper() + text[1:]


def source_phrase(ev: Evidence) -> str:
    """How a rule's text names the item: "the fact-check", "the speech in the media (ASR)"."""
    if ev.kind is not None and ev.kind in _MEDIA_TEXT:
        return _MEDIA_TEXT[ev.kind]
    return {
        SourceType.PRIOR_CAPTION: "the prior caption",
        SourceType.FACT_CHECK: "the fact-check",
        SourceType.NEWS: "the news report",
        SourceType.SUPPLIED: "the supplied evidence",
    }.get(ev.source_type, "the evidence")


def snippet(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 1].rstrip() + "…"


def days(n: int) -> str:
    return f"{n:,} day" + ("" if n == 1 else "s")


# ---- shared named entities (why, and the memory reflection) ---------------------------------


def shared_entities(view: ClaimView, observed: TextFacts, tol: float) -> tuple[str, ...]:
    """The places, people, organisations and events ``observed`` shares with the claim."""
    shared: list[str] = []
    for m in observed.places:
        if place_key(m.text) in view.place_keys or (
            m.place is not None
            and any(
                _places.relation(c, m.place, tol) in (_places.Relation.SAME, _places.Relation.NEAR)
                for c in view.places
            )
        ):
            shared.append(m.text)
    claim_names = (
        tuple(view.claim.people) + tuple(view.claim.organizations) + tuple(view.claim.events)
    )
    claim_names += tuple(m.text for m in view.claim.places if m.place is None)
    observed_names = (
        tuple(observed.people)
        + tuple(observed.organizations)
        + tuple(observed.events)
        + tuple(m.text for m in observed.places if m.place is None)
    )
    for n in observed_names:
        if any(person_matches(c, n) or names_overlap(c, n) for c in claim_names):
            shared.append(n)
    return tuple(dict.fromkeys(shared))


def entities(facts: TextFacts) -> list[str]:
    """Places, people, organisations, events and other proper names of ``facts``, in that
    order, once each."""
    names = [m.text for m in facts.places] + list(facts.people) + list(facts.organizations)
    names += [*facts.events, *facts.names]
    return list(dict.fromkeys(names))


def echoed_names(view: ClaimView, ev_text: str, observed: TextFacts) -> tuple[str, ...]:
    """Names that one side extracted and the other side's text states: a name extracted from
    ``ev_text`` (``observed``) that occurs in the claim's text, or a name extracted from the
    claim that occurs in ``ev_text``; each as ``ev_text`` writes it (a key fact it can cite).

    Occurrence is a whole-word match of the folded tokens (:func:`semv.nlp.text.find_phrase`),
    so a name the entity extractor missed on one side still counts as named there: "the
    Oberwiesenbach signpost" names Oberwiesenbach whether or not the parser tagged it. An extraction
    miss is an absence of evidence and must not read as two texts naming different things.
    """
    out: list[str] = []
    for name in entities(observed):
        # The parser may join text across a line break of text read in the media (OCR
        # "OBERWIESENBACH\nNotruf 112" → one name): each line of it is a name as well.
        written = find_phrase(name, ev_text) or name
        for piece in dict.fromkeys((name, *(p.strip() for p in written.splitlines()))):
            if piece and find_phrase(piece, view.claim_text) is not None:
                out.append(piece)
    for name in entities(view.claim):
        span = find_phrase(name, ev_text)
        if span is not None:
            out.append(span)
    return tuple(dict.fromkeys(out))


def places_related(view: ClaimView, observed: TextFacts, tol: float) -> bool:
    """Any claimed place equal to, near, containing or inside a place the evidence names."""
    claimed = [m.place for m in view.claim.places if m.place is not None]
    for c in claimed:
        for m in observed.places:
            if m.place is not None and _places.relation(c, m.place, tol).agrees:
                return True
    return False


# ---- does a retrieved item refer to this case? (when/where attacks) -------------


def is_retrieved(ev: Evidence) -> bool:
    """Found by an evidence source (corpus, web, web reverse-image engine), not supplied with
    the case or measured from its media."""
    return ev.provenance is not None and ev.provenance.producer is ProducerKind.RETRIEVAL


def refers_to_case(view: ClaimView, ev: Evidence, tol: float) -> bool:
    """Whether ``ev`` is about this media or this event, as a when/where attack needs: the
    case's own evidence is; a retrieved item only when it is a reverse-image match, describes
    the case's media, quotes the claim or shares named entities with it. A retrieved text that
    merely names some other date or place is about something else."""
    if not is_retrieved(ev):
        return True
    if ev.kind is REVERSE_MATCH or describes_same_media(ev):
        return True
    if quotes_claim(view.claim_text, ev.content):
        return True
    return bool(shared_entities(view, extract(ev.content, view.language), tol))
