"""The verification dimensions: one module per dimension, one registry (DESIGN §2).

Each module (``what``, ``where``, ``when``, ``who``, ``why``, ``authenticity``) builds one
``DimensionSpec`` that owns everything semv knows about the dimension: its subclaim statement
and claimed facts, its research-plan questions and queries, the evidence sources that fit it,
its offline rule (and signal rule for forensic, C2PA and reverse-search items), what the
grounding re-check re-derives, how its key facts are typed for the result, its report section,
its ReMMD distortion label and its MV2026 report field. ``DIMENSIONS`` lists them; the claims,
plan and validate stages, the offline backend, the report, the web pages, evaluation and the
MV2026 report reader ask it instead of keeping their own tables.

To add a dimension: add its member to ``semv.model.Dimension``, write ``<name>.py`` with its
spec, and list the spec in ``_registry._SPECS``.

The rule helpers every dimension shares (``ClaimView``, ``Finding``, the kinds of evidence item,
``shared_entities``...) are public here for the baselines and memory reflection that reuse the
offline rules.
"""

from semv.dimensions._claims import (
    bridge_query,
    case_facts,
    decompose_case,
    media_seeds,
    plan_subclaim,
)
from semv.dimensions._common import (
    C2PA,
    FORENSIC_KINDS,
    MAX_KEY_FACTS,
    REVERSE_MATCH,
    ClaimView,
    Finding,
    asserted_text,
    describes_same_media,
    directness,
    entities,
    is_media_text,
    is_metadata,
    is_observation,
    media_kind,
    names_overlap,
    places_related,
    shared_entities,
    signal_kind,
)
from semv.dimensions._context import judge_feature, use_judge
from semv.dimensions._recheck import key_fact_found, rederive, rederived
from semv.dimensions._registry import DIMENSIONS, judge, report_order, rule_for, spec
from semv.dimensions._spec import (
    CaseFacts,
    DimensionSpec,
    PlanSeed,
    ReportSection,
    Rule,
    SectionEvidence,
    Statement,
)

__all__ = [
    "C2PA",
    "DIMENSIONS",
    "FORENSIC_KINDS",
    "MAX_KEY_FACTS",
    "REVERSE_MATCH",
    "CaseFacts",
    "ClaimView",
    "DimensionSpec",
    "Finding",
    "PlanSeed",
    "ReportSection",
    "Rule",
    "SectionEvidence",
    "Statement",
    "asserted_text",
    "bridge_query",
    "case_facts",
    "decompose_case",
    "describes_same_media",
    "directness",
    "entities",
    "is_media_text",
    "is_metadata",
    "is_observation",
    "judge",
    "judge_feature",
    "key_fact_found",
    "media_kind",
    "media_seeds",
    "names_overlap",
    "places_related",
    "plan_subclaim",
    "rederive",
    "rederived",
    "report_order",
    "rule_for",
    "shared_entities",
    "signal_kind",
    "spec",
    "use_judge",
]
