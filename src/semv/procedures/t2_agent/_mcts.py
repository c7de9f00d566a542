"""T²-Agent's search and label rules as adapted by ReMMD (Appendix D).

The post is verified through three *forgery-source subtasks* (``text``: textual veracity,
``image``: visual veracity, ``match``: cross-modal consistency). A Monte Carlo tree search
chooses, at the root, which open subtask to simulate next, and inside a subtask which action
(a tool call or a ``Finish[...]`` answer) to take next, both by the released code's UCT:

    UCT(child) = v / (n + 1) + c · sqrt(ln(N + 1) / (n + 1))

with v the child's value (its running mean rollout value; an unvisited subtask uses its
initial weight), n its visits, N its parent's visits and c = ``t2_exploration`` (2.0). A
non-terminal step is valued by its trajectory score ST; a terminal one by α·ST + (1 − α)·SC
with SC the confidence in its answer. Each subtask keeps the answer with the highest SC; a
SUPPORT/MATCH answer with SC ≥ ``t2_high_confidence`` closes the subtask.

Final scores: p_fake = SC of a REFUTE/MISMATCH answer, 1 − SC of a SUPPORT/MATCH answer,
0.5 without one; p_real = (Π_k (1 − p_fake,k))^(1/K), the geometric mean over the K subtasks
(0.5 when every subtask is neutral); L1 bins p_real at .8/.6/.4/.2. The fallback L2 rule of
the released code: T2 ← p_fake,text, V2 ← p_fake,image, C1 ← p_fake,match, each selected at
or above ``t2_label_threshold``, and nothing when p_real reaches the True bin.

The search is deterministic under a seed: candidate actions are sampled with one
``random.Random(seed)`` and ties go to the first candidate.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from semv.config import BaselinesConfig
from semv.model import Distortion, VeracityLabel

__all__ = [
    "SUBTASKS",
    "ActionNode",
    "Candidate",
    "Environment",
    "Observation",
    "Step",
    "SubtaskNode",
    "fallback_labels",
    "p_fake",
    "p_real",
    "run_search",
    "select_uct",
    "uct_score",
    "verdict_bin",
]

SUBTASKS: tuple[str, ...] = ("text", "image", "match")
FINISH = "Finish"
POSITIVE_ANSWERS = frozenset({"TEXT_SUPPORT", "IMAGE_SUPPORT", "MATCH"})
NEGATIVE_ANSWERS = frozenset({"TEXT_REFUTE", "IMAGE_REFUTE", "MISMATCH"})
NEUTRAL = 0.5


@dataclass(frozen=True)
class Observation:
    """What an action returned: text, and the reliability mass it adds for and against."""

    text: str
    support: float = 0.0
    attack: float = 0.0
    evidence: tuple[str, ...] = ()


@dataclass(frozen=True)
class Candidate:
    """A proposed action: ``Tool[input]`` or ``Finish[ANSWER]``."""

    tool: str
    argument: str
    thought: str = ""

    @property
    def action(self) -> str:
        return f"{self.tool}[{self.argument}]"

    @property
    def terminal(self) -> bool:
        return self.tool == FINISH


@dataclass(frozen=True)
class Step:
    action: str
    thought: str
    observation: Observation
    st: float = 0.0
    sc: float = 0.0


@dataclass
class ActionNode:
    candidate: Candidate
    depth: int
    visits: int = 0
    value: float = 0.0
    st: float = 0.0
    sc: float = 0.0
    observation: Observation | None = None
    children: list[ActionNode] = field(default_factory=list)
    trajectory: tuple[Step, ...] = ()


@dataclass
class SubtaskNode:
    name: str
    initial_weight: float
    visits: int = 0
    value: float = 0.0
    completed: bool = False
    children: list[ActionNode] = field(default_factory=list)
    best_answer: str | None = None
    best_sc: float = 0.0
    best_value: float = 0.0
    best_trajectory: tuple[Step, ...] = ()


class Environment(Protocol):
    """The tools and scorers a search runs against (offline rules or a model)."""

    def subtasks(self) -> Mapping[str, float]:
        """The applicable subtasks and their initial weights (forgery-source priors)."""
        ...

    def candidates(self, subtask: str, trajectory: Sequence[Step]) -> list[Candidate]:
        """Every action the planner may take next: unexamined tool calls and finish answers."""
        ...

    async def execute(self, subtask: str, candidate: Candidate) -> Observation:
        """Run a tool action (a finish action is never executed)."""
        ...

    async def score_trajectory(self, subtask: str, trajectory: Sequence[Step]) -> float:
        """ST ∈ [0, 1]: how well the trajectory's observations ground a conclusion."""
        ...

    async def score_confidence(
        self, subtask: str, trajectory: Sequence[Step], answer: str
    ) -> float:
        """SC ∈ [0, 1]: how reliable ``answer`` is given the trajectory's observations."""
        ...


def uct_score(parent_visits: int, value: float, visits: int, exploration: float) -> float:
    """The released code's UCT: v/(n+1) + c·sqrt(ln(N+1)/(n+1))."""
    return value / (visits + 1) + exploration * math.sqrt(
        math.log(parent_visits + 1) / (visits + 1)
    )


def select_uct(
    parent_visits: int, children: Sequence[tuple[float, int]], exploration: float
) -> int:
    """Index of the child (value, visits) with the highest UCT; ties go to the first."""
    if not children:
        raise ValueError("select_uct: no children to select from")
    best, best_score = 0, -math.inf
    for n, (value, visits) in enumerate(children):
        score = uct_score(parent_visits, value, visits, exploration)
        if score > best_score:
            best, best_score = n, score
    return best


def p_fake(answer: str | None, sc: float) -> float:
    """A subtask's p_fake: SC of a refuting answer, 1 − SC of a supporting one, else 0.5."""
    if answer in NEGATIVE_ANSWERS:
        return sc
    if answer in POSITIVE_ANSWERS:
        return 1.0 - sc
    return NEUTRAL


def p_real(fakes: Sequence[float]) -> float:
    """Geometric mean of (1 − p_fake) over the subtasks; 0.5 when all are neutral."""
    if not fakes or all(f == NEUTRAL for f in fakes):
        return NEUTRAL
    return math.prod(1.0 - f for f in fakes) ** (1.0 / len(fakes))


def verdict_bin(real: float, cfg: BaselinesConfig) -> VeracityLabel:
    """L1 from p_real: ≥ .8 True, ≥ .6 Mostly True, ≥ .4 Mixture, ≥ .2 Mostly False, else
    False."""
    if real >= cfg.t2_true_min:
        return VeracityLabel.TRUE
    if real >= cfg.t2_mostly_true_min:
        return VeracityLabel.MOSTLY_TRUE
    if real >= cfg.t2_mixture_min:
        return VeracityLabel.MIXTURE
    if real >= cfg.t2_mostly_false_min:
        return VeracityLabel.MOSTLY_FALSE
    return VeracityLabel.FALSE


_FALLBACK_LABELS: Mapping[str, Distortion] = {
    "text": Distortion.T2,
    "image": Distortion.V2,
    "match": Distortion.C1,
}


def fallback_labels(
    fakes: Mapping[str, float], real: float, cfg: BaselinesConfig
) -> tuple[str, ...]:
    """The released code's deterministic L2 rule (its fallback when the taxonomy call fails)."""
    if real >= cfg.t2_true_min:
        return ()
    return tuple(
        _FALLBACK_LABELS[k] for k in SUBTASKS if k in fakes and fakes[k] >= cfg.t2_label_threshold
    )


def _propose(pool: list[Candidate], has_steps: bool, k: int, rng: random.Random) -> list[Candidate]:
    """Sample up to ``k`` candidates: tool calls, with one slot for a finish answer once the
    trajectory has observed something (or when no tool is left)."""
    tools = [c for c in pool if not c.terminal]
    finishes = [c for c in pool if c.terminal]
    chosen: list[Candidate] = []
    if finishes and (has_steps or not tools):
        chosen.append(finishes[rng.randrange(len(finishes))])
    room = max(0, k - len(chosen))
    chosen = rng.sample(tools, min(room, len(tools))) + chosen
    return chosen[:k] if chosen else finishes[:1]


async def _simulate(
    env: Environment,
    task: SubtaskNode,
    cfg: BaselinesConfig,
    rng: random.Random,
    stats: dict[str, int],
) -> float:
    children = task.children
    parent_visits = task.visits
    trajectory: tuple[Step, ...] = ()
    path: list[ActionNode] = []
    for depth in range(1, cfg.t2_max_steps + 1):
        if not children:
            pool = env.candidates(task.name, trajectory)
            proposed = _propose(pool, bool(trajectory), cfg.t2_sampled_nodes, rng)
            children.extend(ActionNode(candidate=c, depth=depth) for c in proposed)
            stats["expansions"] += 1
        if not children:
            break
        node = children[
            select_uct(parent_visits, [(c.value, c.visits) for c in children], cfg.t2_exploration)
        ]
        candidate = node.candidate
        if node.observation is None:
            if candidate.terminal:
                node.observation = Observation(text="Subtask finished.")
            else:
                node.observation = await env.execute(task.name, candidate)
                stats["tool_calls"] += 1
        step = Step(candidate.action, candidate.thought, node.observation)
        trajectory = (*trajectory, step)
        node.st = await env.score_trajectory(task.name, trajectory)
        stats["scores"] += 1
        if candidate.terminal:
            node.sc = await env.score_confidence(task.name, trajectory, candidate.argument)
            stats["scores"] += 1
        trajectory = (
            *trajectory[:-1],
            Step(step.action, step.thought, step.observation, node.st, node.sc),
        )
        node.trajectory = trajectory
        path.append(node)
        if candidate.terminal:
            break
        children = node.children
        parent_visits = node.visits
    if not path:
        return 0.0
    leaf = path[-1]
    rollout = (
        cfg.t2_alpha * leaf.st + (1.0 - cfg.t2_alpha) * leaf.sc
        if leaf.candidate.terminal
        else leaf.st
    )
    for node in path:
        node.value = (node.value * node.visits + rollout) / (node.visits + 1)
        node.visits += 1
    task.value = (task.value * task.visits + rollout) / (task.visits + 1)
    task.visits += 1
    if leaf.candidate.terminal:
        answer = leaf.candidate.argument
        if leaf.sc >= task.best_sc:
            task.best_answer, task.best_sc = answer, leaf.sc
            task.best_value, task.best_trajectory = rollout, leaf.trajectory
        if answer in POSITIVE_ANSWERS and leaf.sc >= cfg.t2_high_confidence:
            task.completed = True
    return rollout


async def run_search(
    env: Environment, cfg: BaselinesConfig, seed: int
) -> tuple[list[SubtaskNode], dict[str, int]]:
    """Run ``t2_simulations`` simulations; return the subtask nodes and counters (expansions,
    tool calls, scorer calls, simulations run)."""
    rng = random.Random(seed)
    tasks = [SubtaskNode(name=k, initial_weight=w, value=w) for k, w in env.subtasks().items()]
    stats = {"expansions": 0, "tool_calls": 0, "scores": 0, "simulations": 0}
    for root_visits in range(cfg.t2_simulations):
        open_tasks = [t for t in tasks if not t.completed]
        if not open_tasks:
            break
        chosen = open_tasks[
            select_uct(
                root_visits,
                [(t.value if t.visits else t.initial_weight, t.visits) for t in open_tasks],
                cfg.t2_exploration,
            )
        ]
        await _simulate(env, chosen, cfg, rng, stats)
        stats["simulations"] += 1
    return tasks, stats
