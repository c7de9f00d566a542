"""Directness in the claim-centred QBAF: evidence about the media outweighs reports of the
event (docs/architecture.md, "Directness"). Pure functions.

A subclaim about the media's context (``CONTEXT_DIMENSIONS``: where, when, who, why) states
where, when, by whom and why *this media* was made. A report that the event happened speaks to
the event; the media's own provenance (its metadata, credentials, the text burnt into it) and
the items that refer to this media (a reverse-image match, a caption or fact-check of this
image) speak to the media. Two rules follow, besides the η_d discount of Eq. 14:

1. **Precedence** (:func:`outranked`): an argument that reports only the event does not
   cancel a contrary argument about the media: when an argument of directness ``media`` or
   ``media-reference`` takes one side and carries no doubt about its metadata
   (``metadata-doubtful``), the event-only arguments on the other side enter the QBAF with
   weight 0. They stay in the graph and the report, marked as outranked.
2. **Cap** (:func:`event_only_cap`): when only event-only arguments carry weight, the score
   stays within the weak bands: reports of the event can make a context subclaim at most
   weakly supported (or weakly refuted), never decided.

On ``what`` (the event content) a report of the event is direct evidence, so neither rule
applies.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from semv.model import (
    CONTEXT_DIMENSIONS,
    Argument,
    Band,
    Dimension,
    Directness,
    Stance,
    UncertaintyCode,
)
from semv.reasoning._params import DecisionParams

__all__ = ["about_media", "event_only_cap", "media_grounds", "outranked"]

_SIDES = (Stance.SUPPORT, Stance.ATTACK)


def about_media(argument: Argument) -> bool:
    """An argument whose evidence bears on this media (``media`` or ``media-reference``) and
    whose metadata nothing casts doubt on."""
    return (
        argument.directness is not Directness.EVENT
        and UncertaintyCode.METADATA_DOUBTFUL not in argument.uncertainty
    )


def outranked(
    dimension: Dimension, arguments: Sequence[Argument], weights: Mapping[str, float]
) -> tuple[str, ...]:
    """The event-only arguments (in ``weights``, with a positive weight) that a contrary
    argument about the media outranks, in argument order; none outside ``CONTEXT_DIMENSIONS``."""
    if dimension not in CONTEXT_DIMENSIONS:
        return ()
    live = [a for a in arguments if a.stance in _SIDES and weights.get(a.id, 0.0) > 0.0]
    media_sides = {a.stance for a in live if about_media(a)}
    return tuple(
        a.id
        for a in live
        if a.directness is Directness.EVENT and any(side is not a.stance for side in media_sides)
    )


def event_only_cap(
    dimension: Dimension,
    score: float,
    arguments: Sequence[Argument],
    weights: Mapping[str, float],
    *,
    config: DecisionParams,
) -> float:
    """``score`` held within ``[config.refuted, config.supported]`` (the weak bands) when every
    argument carrying weight reports only the event, on a subclaim about the media's context;
    ``score`` unchanged otherwise."""
    if dimension not in CONTEXT_DIMENSIONS:
        return score
    live = [a for a in arguments if a.stance in _SIDES and weights.get(a.id, 0.0) > 0.0]
    if not live or any(a.directness is not Directness.EVENT for a in live):
        return score
    return min(max(score, config.refuted), config.supported)


def _clause(text: str, chars: int | None) -> str:
    """An argument's text as a clause inside one sentence (no sentence break, no final stop),
    cut to ``chars`` characters (not cut when None)."""
    text = " ".join(text.split()).rstrip(". ").replace(". ", "; ")
    if chars is None or len(text) <= chars:
        return text
    return text[: chars - 1].rstrip() + "…"


def media_grounds(
    arguments: Mapping[Dimension, Sequence[Argument]],
    bands: Mapping[Dimension, Band],
    missing: Mapping[Dimension, str] | None = None,
    *,
    clause_chars: int | None = None,
) -> dict[Dimension, str]:
    """Per dimension, the clause a verdict's first sentence gives for what the media's own
    evidence says about it:

    - the strongest argument about the media (:func:`about_media`, directness ``media``
      before ``media-reference``) on the side its band takes (support for a supported band,
      attack for a refuted one);
    - else the strongest argument whose metadata is in doubt or that sets the metadata aside
      (``metadata-doubtful``), which says why it does not decide;
    - else ``missing[dimension]`` (what the media lacks: "the media carries no GPS position");
    - else, for a decided band resting on event-only arguments, that it rests on reports of
      the event only.

    Dimensions with nothing to say are absent; a clause quoted from an argument is cut to
    ``clause_chars``."""
    missing = missing or {}
    out: dict[Dimension, str] = {}
    for dimension, band_ in bands.items():
        side = (
            Stance.SUPPORT
            if band_ in (Band.SUPPORTED, Band.WEAKLY_SUPPORTED)
            else Stance.ATTACK
            if band_ in (Band.REFUTED, Band.WEAKLY_REFUTED)
            else None
        )
        args = [a for a in arguments.get(dimension, ()) if a.admissible]
        direct = sorted(
            (a for a in args if a.stance is side and about_media(a)),
            key=lambda a: (-a.directness.rank, -a.strength, a.id),
        )
        doubted = sorted(
            (
                a
                for a in args
                if a.directness is Directness.MEDIA
                and UncertaintyCode.METADATA_DOUBTFUL in a.uncertainty
            ),
            key=lambda a: (-a.strength, a.id),
        )
        if direct:
            out[dimension] = _clause(direct[0].text, clause_chars)
        elif doubted:
            out[dimension] = _clause(doubted[0].text, clause_chars)
        elif dimension in missing:
            out[dimension] = missing[dimension]
        elif side is not None and dimension in CONTEXT_DIMENSIONS and args:
            out[dimension] = "only reports of the event speak to it, nothing about this media"
    return out
