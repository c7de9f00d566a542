"""The registry of dimensions, and what the consumers derive from it.

Adding a dimension is one module (a ``DimensionSpec``) plus one line in ``_SPECS`` below (and a
member of ``semv.model.Dimension``, the enum every layer validates against).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from semv.config import OfflineAgentConfig
from semv.dimensions._common import ClaimView, Finding, signal_kind
from semv.dimensions._spec import DimensionSpec, Rule
from semv.dimensions.authenticity import AUTHENTICITY
from semv.dimensions.what import WHAT
from semv.dimensions.when import WHEN
from semv.dimensions.where import WHERE
from semv.dimensions.who import WHO
from semv.dimensions.why import WHY
from semv.model import Dimension, Evidence, ReverseSearchMatch

__all__ = ["DIMENSIONS", "judge", "report_order", "rule_for", "spec"]

_SPECS: tuple[DimensionSpec, ...] = (WHAT, WHERE, WHEN, WHO, WHY, AUTHENTICITY)

DIMENSIONS: Mapping[Dimension, DimensionSpec] = MappingProxyType({s.dimension: s for s in _SPECS})
"""Every dimension's spec, in decomposition order."""


def spec(dimension: Dimension | str) -> DimensionSpec:
    """The spec of ``dimension``; a clear error naming the known ones otherwise."""
    try:
        return DIMENSIONS[Dimension(dimension)]
    except (KeyError, ValueError):
        known = ", ".join(d.value for d in DIMENSIONS)
        raise KeyError(f"unknown dimension {dimension!r} (known: {known})") from None


def report_order() -> tuple[DimensionSpec, ...]:
    """The specs in the order their report sections appear."""
    return tuple(sorted(DIMENSIONS.values(), key=lambda s: s.section.order))


def judge(
    dimension: Dimension, view: ClaimView, ev: Evidence, cfg: OfflineAgentConfig
) -> list[Finding]:
    """The offline findings of one evidence item for ``dimension``: its rule for text and
    metadata; for a forensic, C2PA or reverse-search item its signal rule, or its text rule on
    a match's caption when the dimension reads captions."""
    s = DIMENSIONS[dimension]
    kind = signal_kind(ev)
    if kind is None:
        return s.rule(view, ev, cfg)
    match = ev.observed(ReverseSearchMatch)
    if match is not None and s.reads_match_caption:
        caption = (match.caption or "").strip()
        if not caption:
            return []
        return s.rule(view, ev.model_copy(update={"content": caption, "published": None}), cfg)
    return s.signals(view, ev, cfg)


def rule_for(dimension: Dimension) -> Rule:
    """``judge`` for one dimension, as a rule."""

    def rule(view: ClaimView, ev: Evidence, cfg: OfflineAgentConfig) -> list[Finding]:
        return judge(dimension, view, ev, cfg)

    return rule
