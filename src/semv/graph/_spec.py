"""Declaring the stage graph: stages, nodes, and the inputs that bind them.

A stage is a plain async function whose keyword parameters are its inputs (Hamilton's idea);
a node is one application of a stage (``argue:when`` applies ``argue`` to the ``when``
subclaim). The graph is declared once; order, reuse and invalidation all derive from it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from semv.model import Stage as StageSymbol

if TYPE_CHECKING:
    from semv.agents import Agents
    from semv.config import Settings


@dataclass(frozen=True)
class StageContext:
    """What a stage may use besides its inputs: the frozen settings, the agents, its node.

    ``resources`` holds run-wide services a stage may call (the retrieval sources under
    ``"retrieval"``). They are not hashed: whatever a resource's answers depend on must reach
    the node's fingerprint through its params (see ``semv.retrieval.Retrieval.identity``)."""

    node: str
    settings: Settings
    agents: Agents
    params: Mapping[str, Any]
    resources: Mapping[str, Any] = field(default_factory=dict)


StageFn = Callable[..., Awaitable[BaseModel]]


@dataclass(frozen=True)
class StageDef:
    """A stage: name, version (bump on behaviour change), config sections read, function.

    ``tools`` reports external tool versions for the fingerprint. ``uses_agents`` puts the
    agent backend's identity (name, version, settings, code) into
    the fingerprint. ``code`` names further modules or packages whose source the stage's
    behaviour depends on; their files (and the stage's own module) are hashed into the
    fingerprint, so editing code can never reuse an output computed by older code.
    """

    name: str
    version: str
    fn: StageFn
    output: type[BaseModel]
    reads: tuple[str, ...] = ()
    uses_agents: bool = False
    symbol: StageSymbol | None = None
    code: tuple[str, ...] = ()
    tools: Callable[[], str] | None = None
    """Versions of the external tools the stage runs (``"exiftool 12.57"``, or that it is
    missing). It enters the fingerprint, so installing or upgrading a tool recomputes the
    stage instead of reusing what the old tool (or its absence) produced."""
    external: Callable[[Settings], str] | None = None
    """State outside the graph that the stage reads, summarised as text for the fingerprint
    (the content hash of the reverse-search index the media stage queries): changing that
    state recomputes the stage."""


@dataclass(frozen=True)
class Input:
    """Binds parameter ``name`` of a stage to node ``key``, or to a part of its value.

    ``path`` walks attributes and mapping keys of the node value, e.g. ``("subclaims",
    "when")`` on the ``claims`` node: only that part enters the fingerprint, so a change to
    another subclaim leaves this node untouched. ``many=True`` binds a list of nodes.
    """

    name: str
    key: str | tuple[str, ...]
    path: tuple[str | int, ...] = ()

    @property
    def keys(self) -> tuple[str, ...]:
        return (self.key,) if isinstance(self.key, str) else self.key

    @property
    def many(self) -> bool:
        return not isinstance(self.key, str)


@dataclass(frozen=True)
class NodeSpec:
    key: str
    stage: StageDef
    inputs: tuple[Input, ...] = ()
    params: Mapping[str, Any] = field(default_factory=dict)

    @property
    def dependencies(self) -> tuple[str, ...]:
        deps: list[str] = []
        for inp in self.inputs:
            deps.extend(inp.keys)
        return tuple(dict.fromkeys(deps))


def project(value: Any, path: tuple[str | int, ...]) -> Any:
    """Follow ``path`` through attributes and mapping/sequence items of ``value``."""
    for step in path:
        if isinstance(value, Mapping) or isinstance(step, int):
            value = value[step]
        else:
            value = getattr(value, step)
    return value
