"""The stage graph: node specs, fingerprints, the incremental executor, invariants."""

from semv.graph._executor import (
    Executor,
    NodeOutcome,
    fingerprint,
    source_inputs,
    validate_graph,
)
from semv.graph._invariants import admissible, check_node
from semv.graph._spec import Input, NodeSpec, StageContext, StageDef, project

__all__ = [
    "Executor",
    "Input",
    "NodeOutcome",
    "NodeSpec",
    "StageContext",
    "StageDef",
    "admissible",
    "check_node",
    "fingerprint",
    "project",
    "source_inputs",
    "validate_graph",
]
