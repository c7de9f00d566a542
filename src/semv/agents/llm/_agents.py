"""``LlmAgents``: every agent role over an OpenAI-compatible chat-completions server, assembled
from one module per concern: ``_calls`` (the loop below and its accounting), ``_planning``
(decompose, plan), ``_arguing`` (argue), ``_verifying`` (verify, escalate, judge_clash),
``_describing`` (describe) and ``_reflecting`` (reflect).

Per role: render the versioned prompt (untrusted content delimited), look the request up in the
response cache, else call the server; parse and validate the answer against the role's schema;
on failure, one repair attempt (the error is shown to the model); still unusable (or the server
unreachable after retries) → the deterministic offline backend answers that role, and a
``model-fallback`` uncertainty item records it; the fallback gives exactly the offline role's
answer. The verifier is the exception when the model *answers* unusably: it fails closed
(v_a = 0 with a code), never "verified" by default; when the server gives no answer at all,
the offline verifier answers like any other role. Every call is accounted (role, node,
tokens, latency, retries) in the ``semv.usage`` ledger bound to the run.
"""

from __future__ import annotations

from semv._code import code_fingerprint
from semv.agents.llm._arguing import ArguingRoles, repair_evidence_id
from semv.agents.llm._calls import ReplayMiss
from semv.agents.llm._describing import DescribingRoles
from semv.agents.llm._planning import PlanningRoles
from semv.agents.llm._prompts import prompts_digest
from semv.agents.llm._reflecting import ReflectingRoles
from semv.agents.llm._verifying import VerifyingRoles
from semv.store import content_hash

__all__ = ["LlmAgents", "ReplayMiss", "repair_evidence_id"]


class LlmAgents(PlanningRoles, ArguingRoles, VerifyingRoles, DescribingRoles, ReflectingRoles):
    """The ``Agents`` protocol over ``/v1/chat/completions``, with the offline backend as the
    per-role fallback. ``store`` holds the response cache; ``replay`` forbids HTTP."""

    name = "llm"
    version = "1"

    # ---- identity ----------------------------------------------------------------------------

    @property
    def identity(self) -> str:
        """Model, the settings that shape answers, the prompt versions, the code, and the
        fallback's identity: a change of any of them never reuses an old node."""
        cfg = self.config
        shaping = cfg.model_dump(
            mode="json",
            exclude={
                "url",
                "api_key_env",
                "timeout_s",
                "tokens_per_s",
                "timeout_margin",
                "retry_timeouts",
                "retries",
                "backoff_s",
                "backoff_max_s",
                "prices",
                "currency",
            },
        )
        shaping.pop("concurrency", None)
        return (
            f"{self.name}/{self.version}/model:{cfg.model}"
            f"/settings:{content_hash(shaping)[:16]}"
            f"/prompts:{prompts_digest()[:16]}"
            f"/code:{code_fingerprint(('semv.agents.llm',))[:16]}"
            f"/fallback:{self.fallback.identity}"
        )

    async def aclose(self) -> None:
        await self.client.aclose()
