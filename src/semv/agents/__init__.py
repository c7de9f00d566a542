"""Agent roles (the ``Agents`` protocol) and their backends."""

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
    "PlanInput",
    "Verification",
    "VerifyInput",
    "VerifyOutput",
]
