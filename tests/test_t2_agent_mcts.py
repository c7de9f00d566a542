"""T²-Agent's search and label rules (ReMMD Appendix D): UCT, p_real, bins, determinism."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Mapping, Sequence

import pytest

from semv.config import BaselinesConfig, Settings
from semv.procedures.t2_agent._mcts import (
    Candidate,
    Observation,
    Step,
    fallback_labels,
    p_fake,
    p_real,
    run_search,
    select_uct,
    uct_score,
    verdict_bin,
)

CFG = Settings().baselines


def test_the_papers_constants() -> None:
    bins = (CFG.t2_true_min, CFG.t2_mostly_true_min, CFG.t2_mixture_min, CFG.t2_mostly_false_min)
    assert bins == (0.8, 0.6, 0.4, 0.2)
    assert (CFG.t2_exploration, CFG.t2_alpha, CFG.t2_simulations) == (2.0, 0.5, 12)


def test_uct_formula_and_selection() -> None:
    # v/(n+1) + c·sqrt(ln(N+1)/(n+1))
    assert uct_score(3, 0.6, 1, 2.0) == pytest.approx(0.3 + 2.0 * math.sqrt(math.log(4) / 2))
    # an unvisited child wins through exploration, a well-valued visited one without it
    assert select_uct(4, [(0.9, 3), (0.1, 0)], 2.0) == 1
    assert select_uct(4, [(0.9, 3), (0.1, 0)], 0.0) == 0
    # ties go to the first child
    assert select_uct(2, [(0.5, 1), (0.5, 1)], 2.0) == 0
    with pytest.raises(ValueError):
        select_uct(0, [], 2.0)


def test_p_fake_and_the_geometric_mean() -> None:
    assert p_fake("TEXT_REFUTE", 0.9) == 0.9
    assert p_fake("MATCH", 0.9) == pytest.approx(0.1)
    assert p_fake(None, 0.9) == 0.5
    assert p_real([0.1, 0.2, 0.5]) == pytest.approx((0.9 * 0.8 * 0.5) ** (1 / 3))
    assert p_real([0.5, 0.5, 0.5]) == 0.5
    assert p_real([1.0, 0.0, 0.0]) == 0.0  # one certain forgery zeroes the product


def test_bins_at_their_edges() -> None:
    assert [verdict_bin(p, CFG) for p in (0.8, 0.7999, 0.6, 0.5999, 0.4, 0.3999, 0.2, 0.1999)] == [
        "True",
        "Mostly True",
        "Mostly True",
        "Mixture",
        "Mixture",
        "Mostly False",
        "Mostly False",
        "False",
    ]


def test_fallback_l2_rule() -> None:
    fakes = {"text": 0.7, "image": 0.5, "match": 0.49}
    assert fallback_labels(fakes, 0.4, CFG) == ("T2 Distortion", "V2 Visual Editing")
    assert fallback_labels(fakes, 0.8, CFG) == ()  # a True verdict carries no distortion


class ToyEnv:
    """A fixed world: each subtask has tools whose observations lean one way."""

    def __init__(self, leaning: Mapping[str, tuple[float, float]], tools: int = 3) -> None:
        self.leaning = leaning
        self.tools = tools
        self.executed: list[str] = []

    def subtasks(self) -> Mapping[str, float]:
        return {k: 1 / len(self.leaning) for k in self.leaning}

    def candidates(self, subtask: str, trajectory: Sequence[Step]) -> list[Candidate]:
        done = {s.action for s in trajectory}
        tools = [Candidate("Probe", f"{subtask}{n}") for n in range(self.tools)]
        pos, neg = {"text": ("TEXT_SUPPORT", "TEXT_REFUTE")}.get(subtask, ("MATCH", "MISMATCH"))
        return [c for c in tools if c.action not in done] + [
            Candidate("Finish", pos),
            Candidate("Finish", neg),
        ]

    async def execute(self, subtask: str, candidate: Candidate) -> Observation:
        self.executed.append(candidate.action)
        s, a = self.leaning[subtask]
        return Observation(candidate.action, support=s, attack=a)

    def _mass(self, trajectory: Sequence[Step]) -> tuple[float, float]:
        return (
            sum(s.observation.support for s in trajectory),
            sum(s.observation.attack for s in trajectory),
        )

    async def score_trajectory(self, subtask: str, trajectory: Sequence[Step]) -> float:
        s, a = self._mass(trajectory)
        return (max(s, a) + 0.5) / (s + a + 1)

    async def score_confidence(
        self, subtask: str, trajectory: Sequence[Step], answer: str
    ) -> float:
        s, a = self._mass(trajectory)
        mine = s if answer in ("TEXT_SUPPORT", "MATCH") else a
        return (mine + 0.5) / (s + a + 1)


def test_search_is_deterministic_under_a_seed() -> None:
    world = {"text": (0.2, 0.8), "match": (0.9, 0.0)}

    def run(seed: int) -> tuple[object, ...]:
        env = ToyEnv(world)
        tasks, stats = asyncio.run(run_search(env, CFG, seed))
        return (
            tuple((t.name, t.visits, t.best_answer, t.best_sc, t.best_trajectory) for t in tasks),
            tuple(sorted(stats.items())),
            tuple(env.executed),
        )

    assert run(7) == run(7)
    assert len({run(seed) for seed in range(6)}) > 1  # the seed does steer the sampling


def test_search_finds_the_leaning_answers() -> None:
    env = ToyEnv({"text": (0.1, 0.9), "match": (0.9, 0.0)})
    tasks, stats = asyncio.run(run_search(env, CFG, 0))
    by = {t.name: t for t in tasks}
    assert by["text"].best_answer == "TEXT_REFUTE" and by["text"].best_sc > 0.5
    assert by["match"].best_answer == "MATCH"
    assert stats["simulations"] <= CFG.t2_simulations
    assert sum(t.visits for t in tasks) == stats["simulations"]
    fakes = [p_fake(t.best_answer, t.best_sc) for t in tasks]
    assert p_fake("TEXT_REFUTE", by["text"].best_sc) > 0.5 > fakes[1]


def test_a_confident_match_closes_its_subtask() -> None:
    cfg = BaselinesConfig(t2_simulations=30)
    env = ToyEnv({"text": (0.5, 0.5), "match": (3.0, 0.0)}, tools=4)
    tasks, stats = asyncio.run(run_search(env, cfg, 1))
    match = next(t for t in tasks if t.name == "match")
    assert match.completed and match.best_sc >= cfg.t2_high_confidence
    # once closed, the root stops simulating it: the rest went to text
    text = next(t for t in tasks if t.name == "text")
    assert text.visits + match.visits == stats["simulations"]
