"""The registered verification procedures' names and scopes, importable without the
procedures.

``semv verify --help`` lists them, and ``semv verify`` checks a ``--procedure`` name, before
the command imports the stage graph (its first model request leaves first).
``semv.procedures`` registers the same names in the same order (``procedure_names()``; a test
holds the two equal) and takes its default from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = [
    "DEFAULT_PROCEDURE",
    "PROCEDURE_NAMES",
    "PROCEDURE_SCOPES",
    "ProcedureScope",
    "opening_sentence",
]

DEFAULT_PROCEDURE: Final = "semv"
PROCEDURE_NAMES: Final = ("semv", "remmd", "mmd-agent", "t2-agent")


@dataclass(frozen=True)
class ProcedureScope:
    """What a procedure's verdict rests on and what it leaves out, in plain words: the opening
    sentence of its reports and its line in the README."""

    title: str
    """The procedure as a reader knows it (``MMD-Agent``)."""
    decides: str
    """How it reached its label, after "decided LABEL (confidence C)"."""
    misses: str
    """What it does not look at or cannot tell apart."""


PROCEDURE_SCOPES: Final[dict[str, ProcedureScope]] = {
    "semv": ProcedureScope(
        "semv",
        "by weighing the arguments for and against each of six dimensions (what, where, when, "
        "who, why, authenticity)",
        "it reads only the case's own media and evidence unless a --source adds a search",
    ),
    "remmd": ProcedureScope(
        "ReMMD",
        "by judging the post's atomic points against one shared evidence bank",
        "its confidence is the judge's own (how much of the post it could decide), not a "
        "calibrated probability, and it does not weigh the six dimensions one by one: compare "
        "with the semv procedure",
    ),
    "mmd-agent": ProcedureScope(
        "MMD-Agent",
        "from three stage signals (text, image, cross-modal) combined with fixed weights",
        "it does not decide dimension by dimension, so a contradicted date or place is averaged "
        "with the stages that agree: compare with the semv procedure",
    ),
    "t2-agent": ProcedureScope(
        "T2-Agent",
        "from p_real, the geometric mean of its text, image and match subtasks' 1 - p_fake",
        "it does not tell a subtask with no evidence from a doubtful one (both sit near p_fake "
        "0.5), so its distortion labels can name an edit that nothing shows: compare with the "
        "semv procedure",
    ),
}


def opening_sentence(
    procedure: str, label: str, confidence: float, kind: str = "uncalibrated score"
) -> str:
    """The first sentence of a report: what ``procedure`` decided and what it does not look
    at. ``confidence`` is shown as ``kind`` says it is (``calibrated probability`` or
    ``uncalibrated score``). An unregistered name gets the decision alone."""
    scope = PROCEDURE_SCOPES.get(procedure)
    shown = f"{kind} {confidence:.2f}"
    if scope is None:
        return f"{procedure or 'The procedure'} decided {label} ({shown})."
    return f"{scope.title} decided {label} ({shown}) {scope.decides}; {scope.misses}."
