"""Verification procedures on the shared stage-graph machinery (issue 10).

``semv`` (default) is SEMV's procedure. Each further procedure registers here with one line in
``_ALL``; ``get_procedure(name)`` finds one, ``procedure_names()`` lists them. The 5-way
procedures share ``labelled_procedure``, ``labelled_verdict``, ``Findings`` and
``RENDER_STAGE`` (``semv.procedures._labelled``)."""

from __future__ import annotations

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

_ALL: tuple[Procedure, ...] = (
    SEMV,
    # one line per registered procedure (append; keep `semv` first)
)


def get_procedure(name: str) -> Procedure:
    """The procedure called ``name``; ``InputError`` naming the valid ones otherwise."""
    return lookup(_ALL, name)


def procedure_names() -> tuple[str, ...]:
    return tuple(p.name for p in _ALL)
