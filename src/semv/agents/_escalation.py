"""An optional capability of an agent backend: a stronger verifier (A-QBAF MV2026 §2.6.3).

Not part of the ``Agents`` protocol: a backend without it (the offline one) never escalates,
and ``escalate:k`` passes its subclaim through unchanged."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from semv.agents._protocol import VerifyInput, VerifyOutput


@runtime_checkable
class StrongerVerifier(Protocol):
    @property
    def stronger_verifier(self) -> str | None:
        """The stronger verifier's name, or None when none is configured."""
        ...

    async def escalate_verify(self, request: VerifyInput) -> VerifyOutput:
        """One final grounding judgment of every draft by the stronger verifier; fail closed
        (an unusable answer marks the drafts unverified with ``model-fallback``)."""
        ...


def stronger_verifier(agents: object) -> StrongerVerifier | None:
    """``agents`` when it has a configured stronger verifier, else None."""
    if isinstance(agents, StrongerVerifier) and agents.stronger_verifier:
        return agents
    return None
