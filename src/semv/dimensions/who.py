"""``who``: the people, organisations or groups shown (claim type "person").

- **Statement**: "The people shown include Emmanuel Macron" (named people and organisations),
  else "The people shown are Ukrainians" (groups, nationalities).
- **Plan**: do other sources identify each named person or organisation in the media.
- **Offline rule**: a text that names the same person (full name, or a surname of four or more
  letters) or organisation supports; one that identifies other people instead (people the
  claim's text does not name, whatever its parse found) attacks; else the
  groups it describes the people as (plural demonyms compare equal) agree or conflict.
- **Signals**: a reverse-search match's caption is read as a text about the media.
- **Report**: the "Who" section; MV2026 field ``people-and-organisations``.
"""

from __future__ import annotations

import re

from semv.config import OfflineAgentConfig
from semv.dimensions._common import (
    MAX_KEY_FACTS,
    ClaimView,
    Finding,
    asserted_text,
    capitalized,
    is_metadata,
    is_observation,
    join_words,
    source_phrase,
)
from semv.dimensions._spec import CaseFacts, DimensionSpec, PlanSeed, ReportSection, Statement
from semv.model import (
    ClaimFacts,
    Dimension,
    Distortion,
    Evidence,
    Modality,
    SourceType,
    Stance,
    Subclaim,
)
from semv.nlp.entities import TextFacts, extract, person_matches
from semv.nlp.text import find_phrase, fold, tokens

__all__ = ["WHO", "group_key", "who_rule"]


def statement(case: CaseFacts) -> Statement:
    full = case.facts
    names = list(full.people) + list(full.organizations)
    return Statement(
        text=f"The people shown include {join_words(names)}"
        if names
        else f"The people shown are {join_words(list(full.groups))}"
        if full.groups
        else "The people shown (not named in the claim)",
        asserted=bool(names or full.groups),
        facts=ClaimFacts(people=full.people, organizations=full.organizations, groups=full.groups),
    )


def plan(subclaim: Subclaim, cfg: OfflineAgentConfig) -> PlanSeed:
    f = subclaim.facts
    return PlanSeed(
        questions=tuple(
            f"Do other sources identify {name} in the media?"
            for name in (*f.people, *f.organizations) or ("the people shown",)
        ),
        checks=("text: people/organizations named by evidence (surname match)",),
    )


def _mentions_surname(name: str, text: str) -> str | None:
    words = tokens(name)
    if not words:
        return None
    surname = words[-1]
    if len(surname) < 4:
        return None
    match = re.search(r"\b" + re.escape(surname) + r"\b", fold(text))
    if match is None:
        return None
    return text[match.start() : match.end()] if len(fold(text)) == len(text) else surname


def group_key(name: str) -> str:
    """'Ukrainians' and 'Ukrainian' compare equal (plural demonyms)."""
    key = fold(name)
    return key[:-1] if key.endswith("s") and not key.endswith("ss") else key


def _group_finding(view: ClaimView, ev: Evidence, observed: TextFacts) -> list[Finding]:
    """Nationality/group agreement: the claim says the people are X, the evidence says Y."""
    if not view.groups or not observed.groups:
        return []
    claimed = {group_key(g): g for g in view.groups}
    seen = {group_key(g): g for g in observed.groups}
    shared = [seen[k] for k in seen if k in claimed]
    src = capitalized(source_phrase(ev))
    if shared:
        text = f"{src} ({ev.id}) also describes the people as {', '.join(shared)}."
        return [Finding(Stance.SUPPORT, text, (ev.id,), tuple(shared)[:MAX_KEY_FACTS])]
    others = list(seen.values())
    text = (
        f"The claim describes the people shown as {', '.join(view.groups)}, but "
        f"{source_phrase(ev)} ({ev.id}) describes them as {', '.join(others)}."
    )
    return [Finding(Stance.ATTACK, text, (ev.id,), tuple(others)[:MAX_KEY_FACTS])]


def who_rule(view: ClaimView, ev: Evidence, cfg: OfflineAgentConfig) -> list[Finding]:
    claimed = tuple(view.people) + tuple(view.organizations)
    if not (claimed or view.groups) or is_metadata(ev) or is_observation(ev):
        return []
    observed = extract(asserted_text(ev.content), view.language)
    names = tuple(observed.people) + tuple(observed.organizations)
    matched: list[tuple[str, str]] = []
    for c in claimed:
        hit = next((n for n in names if person_matches(c, n) or fold(c) == fold(n)), None)
        if hit is None and c in view.people:
            hit = _mentions_surname(c, ev.content)
        if hit is not None:
            matched.append((c, hit))
    src = capitalized(source_phrase(ev))
    if matched:
        shown = ", ".join(dict.fromkeys(h for _, h in matched))
        claimed_names = ", ".join(dict.fromkeys(c for c, _ in matched))
        text = f"{src} ({ev.id}) also names {shown}, as the claim does ({claimed_names})."
        return [
            Finding(
                Stance.SUPPORT,
                text,
                (ev.id,),
                tuple(dict.fromkeys(h for _, h in matched))[:MAX_KEY_FACTS],
            )
        ]
    # A person the claim's text names although its parse missed them is no one "instead"
    # (an extraction miss is no contradiction; ``semv.nlp.text.find_phrase``).
    others = [
        p
        for p in observed.people
        if not any(person_matches(p, o) for o in view.organizations)
        and find_phrase(p, view.claim_text) is None
    ]
    if view.people and others:
        text = (
            f"The claim names {', '.join(view.people)}, but {source_phrase(ev)} ({ev.id}) "
            f"identifies {', '.join(others)} instead."
        )
        return [Finding(Stance.ATTACK, text, (ev.id,), tuple(others)[:MAX_KEY_FACTS])]
    return _group_finding(view, ev, observed)


WHO = DimensionSpec(
    dimension=Dimension.WHO,
    claim_type="person",
    scope=None,
    statement=statement,
    plan=plan,
    sources=(SourceType.NEWS, SourceType.PRIOR_CAPTION, SourceType.OFFICIAL),
    fits=frozenset({Modality.TEXT, Modality.AUDIO}),
    rule=who_rule,
    reads_match_caption=True,
    section=ReportSection(key="who", title="Who", order=3),
    remmd_l2=Distortion.C1,
    mv_field="people-and-organisations",
    mv_headings=("who", "people", "actors", "entities", "organisations"),
)
