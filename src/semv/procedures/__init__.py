"""Verification procedures on the shared stage-graph machinery.

``semv`` (default) is SEMV's procedure. Each further procedure registers here with one line in
``_ALL`` (a ``_Registered`` name and ``module:attr``, imported on first use: ``semv verify``
loads only the procedure it runs); ``get_procedure(name)`` finds one, ``procedure_names()``
lists them. The 5-way procedures share ``labelled_procedure``, ``labelled_verdict``,
``Findings`` and ``RENDER_STAGE`` (``semv.procedures._labelled``)."""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from semv.procedures._labelled import (
    RENDER_STAGE,
    Finding,
    Findings,
    internal_for_veracity,
    labelled_procedure,
    labelled_result,
    labelled_verdict,
)
from semv.procedures._registry import (
    DEFAULT_PROCEDURE,
    GraphBuilder,
    Procedure,
    ResultBuilder,
    lookup,
)
from semv.procedures._semv import SEMV, build_result
from semv.procedures._values import node_value

__all__ = [
    "DEFAULT_PROCEDURE",
    "RENDER_STAGE",
    "SEMV",
    "Finding",
    "Findings",
    "GraphBuilder",
    "Procedure",
    "ResultBuilder",
    "build_result",
    "get_procedure",
    "internal_for_veracity",
    "labelled_procedure",
    "labelled_result",
    "labelled_verdict",
    "node_value",
    "procedure_names",
]


@dataclass(frozen=True)
class _Registered:
    """A procedure known by name, its package imported on first use (``module:attr``)."""

    name: str
    target: str

    def load(self) -> Procedure:
        module, _, attr = self.target.partition(":")
        procedure = getattr(importlib.import_module(module), attr)
        if not isinstance(procedure, Procedure) or procedure.name != self.name:
            raise TypeError(f"{self.target} is not the procedure {self.name!r}")
        return procedure


_ALL: tuple[Procedure | _Registered, ...] = (
    SEMV,
    _Registered("remmd", "semv.procedures.remmd:REMMD"),
    _Registered("mmd-agent", "semv.procedures.mmd_agent:MMD_AGENT"),
    _Registered("t2-agent", "semv.procedures.t2_agent:T2_AGENT"),
    # one line per registered procedure (append; keep `semv` first)
)


def _load(entry: Procedure | _Registered) -> Procedure:
    return entry.load() if isinstance(entry, _Registered) else entry


def get_procedure(name: str) -> Procedure:
    """The procedure called ``name`` (its package imported now); ``InputError`` naming the
    valid ones otherwise."""
    for entry in _ALL:
        if entry.name == name:
            return _load(entry)
    return lookup([_load(e) for e in _ALL], name)


def procedure_names() -> tuple[str, ...]:
    return tuple(e.name for e in _ALL)
