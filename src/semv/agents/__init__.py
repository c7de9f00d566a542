"""Agent roles (the ``Agents`` protocol) and their backends."""

from semv.agents._early import EarlyCalls, EarlyStart, StartsEarly, bind_early, current_early
from semv.agents._escalation import StrongerVerifier, stronger_verifier
from semv.agents._protocol import (
    Agents,
    ArgueInput,
    ArgueOutput,
    ArgumentDraft,
    ClashInput,
    ClashJudgement,
    DecomposeInput,
    DescribeInput,
    Description,
    PlanInput,
    Verification,
    VerifyInput,
    VerifyOutput,
)

__all__ = [
    "Agents",
    "ArgueInput",
    "ArgueOutput",
    "ArgumentDraft",
    "ClashInput",
    "ClashJudgement",
    "DecomposeInput",
    "DescribeInput",
    "Description",
    "EarlyCalls",
    "EarlyStart",
    "PlanInput",
    "StartsEarly",
    "StrongerVerifier",
    "Verification",
    "VerifyInput",
    "VerifyOutput",
    "bind_early",
    "current_early",
    "stronger_verifier",
]
