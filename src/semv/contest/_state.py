"""The state s of a committed run, read back from the store: node records, values, review."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar

from pydantic import BaseModel

from semv.contest._review import ReviewState
from semv.contest._routing import BaseView
from semv.errors import ContestError
from semv.model import (
    Bundle,
    Case,
    RunStatus,
    TraceKind,
    Verdict,
)
from semv.procedures import DEFAULT_PROCEDURE, SEMV, Procedure, get_procedure
from semv.store import NodeRecord, RunRecord, Store

__all__ = ["RunState", "load_state"]

_M = TypeVar("_M", bound=BaseModel)


@dataclass
class RunState:
    """One committed run: its record, nodes, label contract and accumulated review state."""

    store: Store
    record: RunRecord
    nodes: dict[str, NodeRecord]
    contract: str
    review: ReviewState
    procedure: Procedure = SEMV
    _values: dict[str, BaseModel] = field(default_factory=dict)

    @property
    def run_id(self) -> str:
        return self.record.run_id

    def value(self, key: str, kind: type[_M]) -> _M:
        cached = self._values.get(key)
        if isinstance(cached, kind):
            return cached
        if key not in self.nodes:
            raise ContestError(f"run {self.run_id} has no node {key}")
        value = kind.model_validate_json(self.store.get_blob(self.nodes[key].output_hash))
        self._values[key] = value
        return value

    @property
    def case(self) -> Case:
        return self.value("bundle", Bundle).case

    @property
    def verdict(self) -> Verdict:
        return self.value(self.procedure.verdict_node, Verdict)

    def view(self) -> BaseView:
        from semv.contest._procedures import procedure_contest

        return procedure_contest(self.procedure.name).view(self)

    def reuse_map(self) -> dict[str, tuple[str, str]]:
        return {k: (n.fingerprint, n.output_hash) for k, n in self.nodes.items()}


def load_state(store: Store, run_ref: str) -> RunState:
    """The committed run ``run_ref`` (id or unique prefix); ``ContestError`` otherwise."""
    record = store.get_run(run_ref)
    if record.status is not RunStatus.COMMITTED:
        raise ContestError(
            f"run {record.run_id} is {record.status.value}; only a committed run can be contested"
        )
    nodes = {n.key: n for n in store.run_nodes(record.run_id)}
    started = next((e for e in store.trace(record.run_id) if e.kind is TraceKind.RUN_STARTED), None)
    contract = str(started.payload.get("contract", "")) if started is not None else ""
    if not contract:
        raise ContestError(f"run {record.run_id}: its trace does not name a label contract")
    payload = started.payload if started is not None else {}
    procedure = get_procedure(str(payload.get("procedure", DEFAULT_PROCEDURE)))
    revision = store.get_revision(record.run_id)
    review = (
        ReviewState.model_validate_json(revision.review_json)
        if revision is not None
        else ReviewState()
    )
    return RunState(
        store=store,
        record=record,
        nodes=nodes,
        contract=contract,
        review=review,
        procedure=procedure,
    )
