"""Verification procedures on the shared stage-graph machinery (issue 10).

``semv`` (default) is SEMV's procedure. Each further procedure registers here with one line in
``_ALL`` (name → where it is defined, imported on first use: ``semv verify`` loads only the
procedure it runs); ``get_procedure(name)`` finds one, ``procedure_names()`` lists them. The 5-way
procedures share ``labelled_procedure``, ``labelled_verdict``, ``Findings`` and
``RENDER_STAGE`` (``semv.procedures._labelled``)."""

from __future__ import annotations

import importlib

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

_ALL: dict[str, str] = {
    "semv": "semv.procedures._semv:SEMV",
    "remmd": "semv.procedures.remmd:REMMD",
    "mmd-agent": "semv.procedures.mmd_agent:MMD_AGENT",
    "t2-agent": "semv.procedures.t2_agent:T2_AGENT",
    # one line per registered procedure (append; keep `semv` first)
}


def _load(name: str) -> Procedure:
    module, _, attr = _ALL[name].partition(":")
    procedure = getattr(importlib.import_module(module), attr)
    assert isinstance(procedure, Procedure) and procedure.name == name, name
    return procedure


def get_procedure(name: str) -> Procedure:
    """The procedure called ``name`` (its package imported now); ``InputError`` naming the
    valid ones otherwise."""
    if name in _ALL:
        return _load(name)
    return lookup([_load(n) for n in _ALL], name)


def procedure_names() -> tuple[str, ...]:
    return tuple(_ALL)
