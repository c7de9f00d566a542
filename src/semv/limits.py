"""Size limits on a case's text (``Settings.limits``), applied before a run exists.

A claim of five million characters made spaCy fail deep inside a run (exit 1, a ``failed``
run left behind), and one of a million characters ran for more than ten minutes. The limits
are operational, not from the papers: beyond one the case is refused with an ``InputError``
(exit 2, no run created) or, with ``limits.oversize = "truncate"``, cut to the limit with an
``input-truncated`` uncertainty item in the result.
"""

from __future__ import annotations

from semv.config import LimitsConfig
from semv.errors import InputError
from semv.model import Case, Stage, UncertaintyCode, UncertaintyItem

__all__ = ["enforce_limits"]

_STAGES = (Stage.CLAIMS, Stage.ARGUE, Stage.AGGREGATE)


def enforce_limits(case: Case, limits: LimitsConfig) -> tuple[Case, tuple[UncertaintyItem, ...]]:
    """``case`` within ``limits`` and the uncertainty items of what was truncated;
    ``InputError`` naming the case and the limit when ``oversize`` is ``refuse``."""
    where = case.source_path or f"case {case.id!r}"
    cut: list[UncertaintyItem] = []

    def check(text: str, limit: int, what: str, key: str) -> str:
        if len(text) <= limit:
            return text
        if limits.oversize == "refuse":
            raise InputError(
                f"{where}: {what} has {len(text)} characters, more than "
                f"limits.{key} = {limit} (refused; limits.oversize = 'truncate' cuts it)"
            )
        cut.append(
            UncertaintyItem(
                code=UncertaintyCode.INPUT_TRUNCATED,
                subject=what,
                detail=f"{what} cut from {len(text)} to {limit} characters (limits.{key})",
                stages=_STAGES,
            )
        )
        return text[:limit]

    if len(case.evidence) > limits.max_evidence_items:
        if limits.oversize == "refuse":
            raise InputError(
                f"{where}: {len(case.evidence)} evidence items, more than "
                f"limits.max_evidence_items = {limits.max_evidence_items} (refused)"
            )
        cut.append(
            UncertaintyItem(
                code=UncertaintyCode.INPUT_TRUNCATED,
                subject="evidence",
                detail=f"only the first {limits.max_evidence_items} of "
                f"{len(case.evidence)} evidence items were kept (limits.max_evidence_items)",
                stages=_STAGES,
            )
        )
    claim = check(case.claim, limits.max_claim_chars, "claim", "max_claim_chars")
    evidence = tuple(
        item.model_copy(
            update={
                "text": check(
                    item.text, limits.max_evidence_chars, f"evidence[{i}]", "max_evidence_chars"
                )
            }
        )
        for i, item in enumerate(case.evidence[: limits.max_evidence_items])
    )
    ctx = case.context
    context = ctx.model_copy(
        update={
            name: check(value, limits.max_context_chars, f"context.{name}", "max_context_chars")
            for name in ("date", "location", "source_url", "language")
            if (value := getattr(ctx, name)) is not None
        }
    )
    if not cut:
        return case, ()
    return case.model_copy(update={"claim": claim, "evidence": evidence, "context": context}), (
        tuple(cut)
    )
