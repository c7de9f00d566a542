"""The grounding verifier (v_a) and the clash judge of the offline backend.

v_a = True iff (1) the draft cites at least one id and every cited id is in the provided
evidence, (2) every key fact is found in the cited evidence — literally after folding, as a
date with the same ISO form, as a number (thousands separators, coordinates to 1e-3), or as a
subset of content words — or, without key facts, the text shares content words with the
evidence, and (3) for a cited metadata item, re-deriving the comparison from the item's data with
the same rule gives the draft's stance. Anything else is ``verified=False`` with
``UNRESOLVED_EVIDENCE`` (ids) or ``UNVERIFIED_ARGUMENT`` (grounding).
"""

from __future__ import annotations

import re

from semv.agents._protocol import (
    ArgumentDraft,
    ClashInput,
    ClashJudgement,
    Verification,
    VerifyInput,
    VerifyOutput,
)
from semv.agents.offline._rules import ClaimView, is_metadata, rule_for, signal_kind
from semv.config import OfflineAgentConfig
from semv.model import Dimension, Evidence, Stance, UncertaintyCode
from semv.nlp.dates import find_dates, from_iso
from semv.nlp.text import content_words, fold, lexical_overlap

__all__ = ["judge", "key_fact_found", "verify_drafts"]
"""Without key facts, an argument's text must share at least this much content with its evidence."""
COORD_TOLERANCE = 1e-3


def _fields(ev: Evidence) -> list[str]:
    out = [ev.content]
    out += [v for v in (ev.title, ev.published, ev.url) if v]
    out += [str(v) for v in ev.data.values() if v is not None and not isinstance(v, dict | list)]
    return out


def _number(text: str) -> float | None:
    cleaned = text.replace(",", "").replace("\u202f", "").strip()
    if re.fullmatch(r"[-+]?\d+(?:\.\d+)?", cleaned):
        return float(cleaned)
    return None


def key_fact_found(fact: str, ev: Evidence) -> bool:
    """Is ``fact`` stated by ``ev`` (content, title, published, url or data values)?"""
    fields = _fields(ev)
    needle = fold(fact).strip()
    if not needle:
        return False
    if any(needle in fold(f) for f in fields):
        return True
    as_date = from_iso(fact) if re.match(r"^(?:\d{4}|--\d{2})", fact.strip()) else None
    if as_date is None:
        found = find_dates(fact)
        as_date = found[0] if len(found) == 1 else None
    if as_date is not None:
        for f in fields:
            if any(d.iso == as_date.iso for d in find_dates(f)):
                return True
            if f.strip()[:10].startswith(as_date.iso) and as_date.year is not None:
                return True
    number = _number(fact)
    if number is not None:
        for value in ev.data.values():
            numeric = isinstance(value, int | float) and not isinstance(value, bool)
            if numeric and abs(float(value) - number) <= COORD_TOLERANCE:
                return True
        for f in fields:
            for token in re.findall(r"[-+]?\d[\d,]*(?:\.\d+)?", f):
                parsed = _number(token)
                if parsed is not None and abs(parsed - number) <= COORD_TOLERANCE:
                    return True
    words = content_words(fact)
    return bool(words) and words <= content_words(ev.content)


def _fail(code: UncertaintyCode, reason: str) -> Verification:
    return Verification(verified=False, reason=reason, uncertainty=(code,))


def _verify_one(
    draft: ArgumentDraft, by_id: dict[str, Evidence], view: ClaimView, cfg: OfflineAgentConfig
) -> Verification:
    if not draft.evidence:
        return _fail(UncertaintyCode.UNRESOLVED_EVIDENCE, "the argument cites no evidence")
    unknown = [i for i in draft.evidence if i not in by_id]
    if unknown:
        return _fail(
            UncertaintyCode.UNRESOLVED_EVIDENCE,
            f"cited evidence not in the case: {', '.join(unknown)}",
        )
    cited = [by_id[i] for i in draft.evidence]
    missing = [k for k in draft.key_facts if not any(key_fact_found(k, ev) for ev in cited)]
    if missing:
        return _fail(
            UncertaintyCode.UNVERIFIED_ARGUMENT,
            f"key facts not found in the cited evidence: {', '.join(repr(m) for m in missing)}",
        )
    if not draft.key_facts:
        overlap = max(lexical_overlap(draft.text, ev.content) for ev in cited)
        if overlap < cfg.grounding_min_overlap:
            return _fail(
                UncertaintyCode.UNVERIFIED_ARGUMENT,
                f"no key facts, and the text shares too little with its evidence ({overlap:.2f})",
            )
    if draft.stance in (Stance.SUPPORT, Stance.ATTACK):
        rule = rule_for(view.subclaim.dimension)
        for ev in cited:
            kind = signal_kind(ev)
            derived_signal = kind is not None and (
                kind != "reverse-search-match" or view.subclaim.dimension is Dimension.WHEN
            )
            if not (is_metadata(ev) or derived_signal):
                continue
            stances = {f.stance for f in rule(view, ev, cfg)}
            if draft.stance not in stances:
                derived = ", ".join(sorted(s.value for s in stances)) or "no finding"
                return _fail(
                    UncertaintyCode.UNVERIFIED_ARGUMENT,
                    f"re-deriving the comparison from {ev.id} gives {derived}, "
                    f"not {draft.stance.value}",
                )
    facts = ", ".join(repr(k) for k in draft.key_facts) or "its content"
    return Verification(
        verified=True, reason=f"cited evidence resolves and states {facts}", uncertainty=()
    )


def verify_drafts(request: VerifyInput, cfg: OfflineAgentConfig) -> VerifyOutput:
    by_id = {ev.id: ev for ev in request.evidence}
    view = ClaimView(subclaim=request.subclaim, claim_text=request.subclaim.statement)
    return VerifyOutput(results=tuple(_verify_one(d, by_id, view, cfg) for d in request.drafts))


def _score(draft: ArgumentDraft, by_id: dict[str, Evidence]) -> tuple[float, str]:
    cited = [by_id[i] for i in draft.evidence if i in by_id]
    if not cited:
        return 0.0, "no resolvable evidence"
    reliability = sum(ev.reliability for ev in cited) / len(cited)
    metadata = sum(1 for ev in cited if is_metadata(ev)) / len(cited)
    specific = min(len(draft.key_facts), 3) / 3
    score = 0.5 * reliability + 0.3 * metadata + 0.2 * specific
    return (
        score,
        f"reliability {reliability:.2f}, metadata {metadata:.0%}, {len(draft.key_facts)} key facts",
    )


def judge(request: ClashInput) -> ClashJudgement:
    """Prefer metadata and more reliable evidence, then more specific (key-fact) arguments."""
    by_id = {ev.id: ev for ev in request.evidence}
    s, s_why = _score(request.support, by_id)
    a, a_why = _score(request.attack, by_id)
    rate = 0.5 if s + a == 0 else s / (s + a)
    return ClashJudgement(
        support_win_rate=round(rate, 4),
        reason=f"support: {s:.2f} ({s_why}); attack: {a:.2f} ({a_why})",
    )
