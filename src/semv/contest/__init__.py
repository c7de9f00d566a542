"""Module E: human contestation with typed causal routing and scoped recomputation (SEMV §4.5).

Python API (the web UI builds on it)::

    from semv.contest import contest, ReviewBatch
    from semv.model import Reject
    revision = contest(run_id, [Reject(target="arg:when:att:1", reason="wrong photo")])
    revision.run_id, revision.delta, revision.locality.value

* :class:`ReviewBatch` / :func:`load_batch` / :func:`batch_schema`: review batch files and
  their published JSON Schema (``review-batch.schema.json``);
* :func:`route_action`, :func:`plan_batch`: Eq. 22 and Eq. 23;
* :func:`revise` (async) and :func:`contest` (sync): a revision as a new run;
* :func:`detect_uncertainty`: the review codes raised before a decision is final.
"""

from semv.contest._api import contest
from semv.contest._backend import BackendKind, backend_kind, reopen_agents, revision_settings
from semv.contest._batch import (
    POLICY_SYMBOL,
    SCHEMA_FILE,
    Policy,
    ReviewBatch,
    batch_schema,
    load_batch,
    parse_action,
)
from semv.contest._locality import (
    DecisionDelta,
    Locality,
    SubclaimDelta,
    decision_delta,
    degradation_bound,
    forced_nodes,
    locality,
    node_stage,
    scope_nodes,
)
from semv.contest._review import (
    ArgumentRef,
    HumanArgument,
    ReviewState,
    SubclaimReview,
    apply_batch,
    human_evidence,
)
from semv.contest._revise import TRACE_ELEMENTS, Revision, SiblingRevision, revise, trace_elements
from semv.contest._routing import (
    ORDER,
    BaseView,
    RevisionPlan,
    Routed,
    UnknownTarget,
    earliest,
    plan_batch,
    route_action,
)
from semv.contest._state import RunState, load_state
from semv.reasoning import review_codes as detect_uncertainty

__all__ = [
    "ORDER",
    "POLICY_SYMBOL",
    "SCHEMA_FILE",
    "TRACE_ELEMENTS",
    "ArgumentRef",
    "BackendKind",
    "BaseView",
    "DecisionDelta",
    "HumanArgument",
    "Locality",
    "Policy",
    "ReviewBatch",
    "ReviewState",
    "Revision",
    "RevisionPlan",
    "Routed",
    "RunState",
    "SiblingRevision",
    "SubclaimDelta",
    "SubclaimReview",
    "UnknownTarget",
    "apply_batch",
    "backend_kind",
    "batch_schema",
    "contest",
    "decision_delta",
    "degradation_bound",
    "detect_uncertainty",
    "earliest",
    "forced_nodes",
    "human_evidence",
    "load_batch",
    "load_state",
    "locality",
    "node_stage",
    "parse_action",
    "plan_batch",
    "reopen_agents",
    "revise",
    "revision_settings",
    "route_action",
    "scope_nodes",
    "trace_elements",
]
