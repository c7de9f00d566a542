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

from semv.agents._protocol import (
    ArgumentDraft,
    ClashInput,
    ClashJudgement,
    Verification,
    VerifyInput,
    VerifyOutput,
)
from semv.config import OfflineAgentConfig
from semv.dimensions import ClaimView, is_metadata, key_fact_found, rederive
from semv.model import Evidence, UncertaintyCode
from semv.nlp.text import lexical_overlap

__all__ = ["judge", "key_fact_found", "verify_drafts"]


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
    contradiction = rederive(view, draft.stance, cited, cfg)
    if contradiction is not None:
        return _fail(UncertaintyCode.UNVERIFIED_ARGUMENT, contradiction)
    facts = ", ".join(repr(k) for k in draft.key_facts) or "its content"
    return Verification(
        verified=True, reason=f"cited evidence resolves and states {facts}", uncertainty=()
    )


def verify_drafts(request: VerifyInput, cfg: OfflineAgentConfig) -> VerifyOutput:
    by_id = {ev.id: ev for ev in request.evidence}
    view = ClaimView(
        subclaim=request.subclaim,
        claim_text=request.subclaim.statement,
        evidence=request.evidence,
    )
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
