"""T²-Agent as a procedure: its nodes on the shared stage graph.

```
bundle ─► media:<a> ─► describe:<a> ─► claims ─► recall/plan/retrieve/validate:what
t2:search ─► t2:labels ─► findings ─► verdict ─► render
```

``t2:search`` runs the seeded tree search of ``_mcts`` over the tools of ``_tools`` (the
model scores trajectories when the backend has one) and records every subtask's best
trajectory, p_fake, p_real and the search's counters; ``t2:labels`` bins p_real into L1 and
assigns L2 (the model's taxonomy call, else the released fallback rule); ``verdict`` builds
the labelled verdict. The seed is ``t2_seed`` mixed with the case id, so a case's search is
reproducible and two cases do not share one random stream.
"""

from __future__ import annotations

import hashlib

from semv.graph import Input, NodeSpec, StageContext, StageDef
from semv.model import (
    Case,
    Claims,
    Frozen,
    MediaKind,
    RankedEvidence,
    Retrieved,
    Stage,
    UncertaintyItem,
    Verdict,
)
from semv.procedures._ask import asker, fallback_note
from semv.procedures._baseline_graph import Inputs, baseline_builder, reviewed_pool
from semv.procedures._cues import claim_views
from semv.procedures._labelled import Finding, Findings, labelled_verdict
from semv.procedures.t2_agent._llm import ModelScorer, ask_taxonomy
from semv.procedures.t2_agent._mcts import (
    Environment,
    fallback_labels,
    p_fake,
    p_real,
    run_search,
    verdict_bin,
)
from semv.procedures.t2_agent._tools import OfflineToolbox

__all__ = ["SearchOutcome", "SubtaskOutcome", "T2Labels", "build_t2_graph", "case_seed"]

_CODE = (
    "semv.procedures.t2_agent",
    "semv.procedures._cues",
    "semv.dimensions",
    "semv.nlp",
    "semv.procedures._ask",
)
_QUESTIONS = {
    "text": "Textual veracity: is the post's text supported by evidence?",
    "image": "Visual veracity: are the images authentic?",
    "match": "Cross-modal matching: do the images belong to the text's event?",
}


class StepRecord(Frozen):
    action: str
    thought: str
    observation: str
    evidence: tuple[str, ...] = ()
    support: float = 0.0
    attack: float = 0.0
    st: float = 0.0
    sc: float = 0.0


class SubtaskOutcome(Frozen):
    name: str
    initial_weight: float
    visits: int
    completed: bool
    best_answer: str | None
    best_sc: float
    best_value: float
    p_fake: float
    trajectory: tuple[StepRecord, ...]


class SearchOutcome(Frozen):
    """The search's result: per subtask, p_real, the tools it selected, and its cost."""

    seed: int
    tools: tuple[str, ...]
    subtasks: tuple[SubtaskOutcome, ...]
    p_real: float
    simulations: int
    expansions: int
    tool_calls: int
    scorer_calls: int
    backend: str = "offline"
    uncertainty: tuple[UncertaintyItem, ...] = ()


class T2Labels(Frozen):
    veracity: str
    distortions: tuple[str, ...]
    rationale: str
    source: str
    """``model`` (the taxonomy call) or ``fallback rule``."""
    uncertainty: tuple[UncertaintyItem, ...] = ()


def case_seed(seed: int, case_id: str) -> int:
    """The search seed of one case: ``t2_seed`` mixed with the case id."""
    return int.from_bytes(hashlib.sha256(f"{seed}:{case_id}".encode()).digest()[:8], "big")


def _images(case: Case) -> list[str]:
    return [a.id for a in case.media if a.loaded and a.kind in (MediaKind.IMAGE, MediaKind.VIDEO)]


async def _search(
    ctx: StageContext,
    *,
    case: Case,
    claims: Claims,
    ranked: RankedEvidence,
    retrieved: Retrieved,
) -> SearchOutcome:
    cfg = ctx.settings.baselines
    evidence = reviewed_pool(retrieved, ranked)
    web = {hit for q in retrieved.queries if q.mode == "web" for hit in q.hits}
    tools = OfflineToolbox(
        claim_views(case, claims),
        evidence,
        web_ids=web,
        images=_images(case),
        cfg=cfg,
        offline=ctx.settings.offline,
    )
    model = asker(ctx.agents)
    env: Environment = ModelScorer(tools, model, case) if model else tools
    seed = case_seed(cfg.t2_seed, case.id)
    tasks, stats = await run_search(env, cfg, seed)
    notes: tuple[UncertaintyItem, ...] = ()
    if isinstance(env, ModelScorer) and env.fallbacks:
        notes = (
            fallback_note(
                case.id,
                "t2-scorer",
                f"{len(env.fallbacks)} scores unusable (first: {env.fallbacks[0]})",
            ),
        )
    outcomes = tuple(
        SubtaskOutcome(
            name=t.name,
            initial_weight=t.initial_weight,
            visits=t.visits,
            completed=t.completed,
            best_answer=t.best_answer,
            best_sc=t.best_sc,
            best_value=t.best_value,
            p_fake=p_fake(t.best_answer, t.best_sc),
            trajectory=tuple(
                StepRecord(
                    action=s.action,
                    thought=s.thought,
                    observation=s.observation.text,
                    evidence=s.observation.evidence,
                    support=s.observation.support,
                    attack=s.observation.attack,
                    st=s.st,
                    sc=s.sc,
                )
                for s in t.best_trajectory
            ),
        )
        for t in tasks
    )
    return SearchOutcome(
        seed=seed,
        tools=tools.tools,
        subtasks=outcomes,
        p_real=p_real([o.p_fake for o in outcomes]),
        simulations=stats["simulations"],
        expansions=stats["expansions"],
        tool_calls=stats["tool_calls"],
        scorer_calls=stats["scores"],
        backend="llm" if model else "offline",
        uncertainty=notes,
    )


def _clipped(text: str, limit: int) -> str:
    """``text`` cut at a word boundary within ``limit`` characters, marked with an ellipsis."""
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0].rstrip(" ,;:") + "…"


def _rationale(search: SearchOutcome, veracity: str) -> str:
    parts = [f"p_real {search.p_real:.3f} → {veracity}."]
    for s in search.subtasks:
        last = s.trajectory[-2].observation if len(s.trajectory) > 1 else ""
        text = (
            f"{s.name}: {s.best_answer or 'no answer'} (confidence {s.best_sc:.2f}, "
            f"p_fake {s.p_fake:.2f}, {s.visits} simulations)"
            + (f"; last observation: {_clipped(last, 300)}" if last else "")
        )
        parts.append(text.rstrip(" .") + ".")  # an observation's own full stop ends it once
    return " ".join(parts)


async def _labels(ctx: StageContext, *, case: Case, search: SearchOutcome) -> T2Labels:
    cfg = ctx.settings.baselines
    veracity = verdict_bin(search.p_real, cfg)
    fakes = {s.name: s.p_fake for s in search.subtasks}
    rationale = _rationale(search, veracity)
    model = asker(ctx.agents)
    notes: tuple[UncertaintyItem, ...] = ()
    if model is not None:
        answer, problem = await ask_taxonomy(
            model,
            case,
            veracity,
            search.p_real,
            fakes,
            [
                (
                    s.name,
                    s.best_answer or "UNKNOWN",
                    s.best_sc,
                    [r.observation for r in s.trajectory[-3:]],
                )
                for s in search.subtasks
            ],
        )
        if answer is not None:
            return T2Labels(
                veracity=veracity,
                distortions=tuple(dict.fromkeys(answer.labels)),
                rationale=f"{rationale} {' '.join(answer.rationale.split())}",
                source="model",
            )
        notes = (fallback_note(case.id, "t2-taxonomy", str(problem)),)
    return T2Labels(
        veracity=veracity,
        distortions=fallback_labels(fakes, search.p_real, cfg),
        rationale=rationale,
        source="fallback rule",
        uncertainty=notes,
    )


async def _findings(
    ctx: StageContext,
    *,
    search: SearchOutcome,
    retrieved: Retrieved,
    ranked: RankedEvidence,
) -> Findings:
    pool = {e.id: e for e in reviewed_pool(retrieved, ranked)}
    items = []
    for s in search.subtasks:
        cited = tuple(dict.fromkeys(i for r in s.trajectory for i in r.evidence))
        path = " → ".join(r.action for r in s.trajectory) or "no finished trajectory"
        items.append(
            Finding(
                id=f"t2:{s.name}",
                kind=f"{s.name} subtask",
                text=_QUESTIONS[s.name],
                state=s.best_answer or "UNKNOWN",
                score=s.p_fake,
                evidence=cited,
                detail=(
                    f"p_fake {s.p_fake:.3f} (best answer's confidence {s.best_sc:.2f}); "
                    f"{s.visits} simulations, completed: {s.completed}; best trajectory: "
                    f"{path}. "
                    + " ".join(f"{r.action}: {r.observation[:400]}" for r in s.trajectory)
                ),
            )
        )
    cited_all = dict.fromkeys(i for f in items for i in f.evidence)
    return Findings(items=tuple(items), evidence=tuple(pool[i] for i in cited_all if i in pool))


async def _verdict(ctx: StageContext, *, search: SearchOutcome, labels: T2Labels) -> Verdict:
    """Confidence γ = |2·p_real − 1| mapped onto [0.5, 1] (0.5 + |p_real − 0.5|) and
    truthfulness = p_real (ours: the baseline gives a label only)."""
    cfg = ctx.settings.baselines
    return labelled_verdict(
        veracity=labels.veracity,
        distortions=labels.distortions,
        rationale=labels.rationale,
        confidence=0.5 + abs(search.p_real - 0.5),
        score=search.p_real,
        contract=str(ctx.params["contract"]),
        rule=(
            f"t2-agent: p_real {search.p_real:.3f} binned at {cfg.t2_true_min}/"
            f"{cfg.t2_mostly_true_min}/{cfg.t2_mixture_min}/{cfg.t2_mostly_false_min}; "
            f"L2 by the {labels.source}"
        ),
        uncertainty=search.uncertainty + labels.uncertainty,
    )


SEARCH_STAGE = StageDef(
    name="t2-search",
    version="1",
    fn=_search,
    output=SearchOutcome,
    reads=("baselines", "offline"),
    uses_agents=True,
    symbol=Stage.ARGUE,
    code=_CODE,
)
LABELS_STAGE = StageDef(
    name="t2-labels",
    version="1",
    fn=_labels,
    output=T2Labels,
    reads=("baselines",),
    uses_agents=True,
    symbol=Stage.AGGREGATE,
    code=_CODE,
)
FINDINGS_STAGE = StageDef(
    name="t2-findings", version="1", fn=_findings, output=Findings, code=_CODE
)
VERDICT_STAGE = StageDef(
    name="t2-verdict",
    version="1",
    fn=_verdict,
    output=Verdict,
    reads=("baselines",),
    symbol=Stage.AGGREGATE,
    code=_CODE,
)


def _own(x: Inputs) -> list[NodeSpec]:
    search = Input("search", "t2:search")
    return [
        NodeSpec(
            "t2:search",
            SEARCH_STAGE,
            (x.case, x.claims, x.ranked, x.retrieved),
        ),
        NodeSpec("t2:labels", LABELS_STAGE, (x.case, search)),
        NodeSpec("findings", FINDINGS_STAGE, (search, x.retrieved, x.ranked)),
        NodeSpec(
            "verdict",
            VERDICT_STAGE,
            (search, Input("labels", "t2:labels")),
            params={"contract": x.contract},
        ),
    ]


build_t2_graph = baseline_builder("t2-agent", _own)
"""The t2-agent graph of a case (module doc)."""
