"""Typed access to a run's node values."""

from __future__ import annotations

from typing import TypeVar

from semv.errors import SemvError
from semv.graph import NodeOutcome

__all__ = ["node_value"]

_T = TypeVar("_T")


def node_value(nodes: dict[str, NodeOutcome], key: str, kind: type[_T]) -> _T:
    """The value of node ``key``, checked to be a ``kind``."""
    if key not in nodes:
        raise SemvError(f"the run has no node {key}")
    value = nodes[key].value
    if not isinstance(value, kind):
        raise SemvError(f"node {key} holds {type(value).__name__}, expected {kind.__name__}")
    return value
