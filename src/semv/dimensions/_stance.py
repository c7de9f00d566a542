"""The sign of a text argument: does a document that restates the claim refute it?

The ``why`` and ``what`` rules build a *support* when a text names the claimed event or
describes the claimed scene. A fact-check debunking the claim does both. Before such a support
is made, the claim–evidence stance model (``semv.nlp.stance``: general signals — similarity,
negation, contrast, fact-check rating words, entity/date/number agreement and conflict,
reported speech — combined by logistic models fitted on a declared AVeriTeC dev split) reads
the document (its title and content); when it judges that the document *refutes* the claim,
the rule makes an attack instead. Only the sign changes: the argument's strength stays Eq. 14
(reliability, relevance, confidence), and retrieved items reach the rules only through the
claim-relevance gate, as before.

Captions of the same media (prior captions, texts tied to one of the case's assets) are not
asked: a caption describes the media rather than arguing about the claim, and the ``why``
rule's caption-context model (fitted on caption pairs) judges it.

Decision: the rules call ``refutation`` only for a text they already found to be about the
claimed event (it shares named entities with the claim, or describes the claimed scene; a
retrieved item has passed the claim-relevance gate), so only the sign is asked of the model:
the text refutes when p(refutes) ≥ p(supports), i.e. p(refutes | takes a stance) ≥ 0.5, the
decision point of the class-balanced fitted model (not a tuned threshold). Its out-of-sample
recall of each sign on AVeriTeC dev is in ``semv/nlp/data/stance.json`` and
docs/evaluation.md ("Claim–evidence stance on AVeriTeC dev").
"""

from __future__ import annotations

from semv.config import OfflineAgentConfig
from semv.dimensions._common import ClaimView
from semv.model import Evidence
from semv.nlp.stance import Stance, StanceJudgment, judge_stance

__all__ = ["document_text", "refutation"]


def document_text(ev: Evidence) -> str:
    """What the stance model reads: the title (unless the content starts with it) and the
    content; a fact-check's headline usually states its verdict."""
    title = (ev.title or "").strip()
    if title and not ev.content.startswith(title):
        end = "" if title.endswith((".", "!", "?", ":")) else "."
        return f"{title}{end} {ev.content}"
    return ev.content


def refutation(view: ClaimView, ev: Evidence, cfg: OfflineAgentConfig) -> StanceJudgment | None:
    """The stance model's judgment when it finds that ``ev`` refutes the claim, else None
    (always None when ``cfg.stance`` is off)."""
    if not cfg.stance:
        return None
    key = f"stance:{ev.id}:{hash(ev.content)}:{hash(ev.title)}"
    cached = view._cache.get(key)
    if cached is None:
        cached = judge_stance(view.claim_text, document_text(ev), cfg, view.language)
        view._cache[key] = cached
    if not isinstance(cached, StanceJudgment):
        raise TypeError(f"stance cache entry {key!r} is {type(cached).__name__}")
    probs = cached.probabilities
    if cached.stance is Stance.REFUTES:  # includes a quoted claim rated false (any language)
        return cached
    return cached if probs[Stance.REFUTES] >= probs[Stance.SUPPORTS] else None
