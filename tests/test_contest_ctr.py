"""The CTR benchmark: episode generation, replay under U / C / C+S, Eq. 37-42."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from semv._api import load_cases
from semv.agents.offline import OfflineAgents
from semv.config import Settings
from semv.contest.ctr import (
    CASES_DIR,
    FAMILIES,
    EpisodeOutcome,
    StochasticAgents,
    ctr_metrics,
    ctr_table,
    run_ctr,
)
from semv.model import TraceKind
from semv.store import Store


def outcome(case: str, ep: int, policy: str, y0: str, yh: str, **kw: object) -> EpisodeOutcome:
    base: dict[str, object] = dict(
        case_id=case,
        episode=ep,
        family="argument",
        policy=policy,
        corrupted=True,
        applied=True,
        revised=True,
        preserved=9,
        outside=10,
        trace_present=7,
        y="a",
        y0=y0,
        yh=yh,
        fields=2,
        recovered=1,
        seconds=1.0,
        executed=10,
        cost=1.0,
        route="A",
        gold_route="A",
    )
    base.update(kw)
    return EpisodeOutcome(**base)  # type: ignore[arg-type]


def test_effectiveness_metrics_follow_eq_40_and_41() -> None:
    rows = []
    for policy in ("global", "causal", "scoped"):
        rows += [
            outcome("c1", 0, policy, y0="b", yh="a"),  # corrected
            outcome("c1", 1, policy, y0="b", yh="b"),  # still wrong
            outcome("c2", 0, policy, y0="a", yh="b", executed=4, cost=0.5),  # induced error
            outcome("c2", 1, policy, y0="a", yh="a", corrupted=False, applied=False),
        ]
    m = ctr_metrics(rows, replicates=200, level=0.95)["scoped"]
    assert m["correction"].value == pytest.approx(1 / 2)
    assert m["induced_error"].value == pytest.approx(1 / 2)
    assert m["dcp"].value == pytest.approx(1 / 2)  # 2 decisions changed, 1 corrected
    assert m["apply"].value == pytest.approx(1.0)  # the control is not in N_H
    assert m["localization"].value == pytest.approx(27 / 30)
    assert m["report_recovery"].value == pytest.approx(3 / 6)
    assert m["trace"].value == 1.0
    lo, hi = m["correction"].low, m["correction"].high
    assert lo is not None and hi is not None and 0.0 <= lo <= 0.5 <= hi <= 1.0
    table = ctr_table(ctr_metrics(rows, replicates=200, level=0.95), title="t")
    assert "| Correction ↑ | /2 |" in table and "C+S" in table


@pytest.fixture(scope="module")
def replay(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[EpisodeOutcome], Store]:
    root = tmp_path_factory.mktemp("ctr")
    settings = Settings()
    contract, cases = load_cases(CASES_DIR, limit=1)
    store = Store(root / "store")
    outs = asyncio.run(
        run_ctr(
            cases,
            store=store,
            settings=settings,
            agents=OfflineAgents(settings),
            contract=contract,
            reports_dir=root / "reports",
        )
    )
    return outs, store


def test_one_case_gives_four_corrupted_episodes_and_a_control(
    replay: tuple[list[EpisodeOutcome], Store],
) -> None:
    outs, store = replay
    episodes = {(o.episode, o.family) for o in outs}
    assert len(episodes) == 5 and len(outs) == 15
    families = [f for _, f in episodes if f is not None]
    assert len(set(families)) == 4 and set(families) <= set(FAMILIES)
    injected = [
        e
        for r in store.list_runs(50)
        for e in store.trace(r.run_id)
        if e.kind is TraceKind.CTR_INJECTED
    ]
    assert len(injected) == 4


def test_scoped_revision_routes_like_the_gold_and_executes_least(
    replay: tuple[list[EpisodeOutcome], Store],
) -> None:
    outs, _ = replay
    for o in outs:
        assert o.route == o.gold_route, o
        assert o.applied, o
    by = {(o.episode, o.policy): o for o in outs}
    for ep in {o.episode for o in outs}:
        u, c, s = (by[(ep, p)] for p in ("global", "causal", "scoped"))
        assert u.executed > c.executed >= s.executed
        assert s.preserved == s.outside  # Loc = 1 under C+S


def test_stochastic_agents_vary_across_calls_but_are_seeded() -> None:
    from semv.agents import ArgumentDraft, ClashInput
    from semv.model import Dimension, Stance, Subclaim

    class Fixed:
        name, version, identity = "fixed", "1", "fixed/1"

        async def judge_clash(self, request: ClashInput) -> object:
            from semv.agents import ClashJudgement

            return ClashJudgement(support_win_rate=0.5, reason="tie")

    sub = Subclaim(
        id="claim:when", dimension=Dimension.WHEN, statement="s", claim_type="t", asserted=True
    )
    draft = ArgumentDraft(stance=Stance.SUPPORT, text="x", evidence=())
    req = ClashInput(subclaim=sub, support=draft, attack=draft, evidence=())

    def rates(seed: int) -> list[float]:
        agents = StochasticAgents(Fixed(), rate=1.0, seed=seed)  # type: ignore[arg-type]
        return [asyncio.run(agents.judge_clash(req)).support_win_rate for _ in range(4)]

    assert rates(1) == rates(1)
    assert len(set(rates(1))) > 1 and rates(1) != rates(2)


def test_cli_eval_ctr_prints_table_9(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from semv.cli import app

    result = CliRunner().invoke(
        app, ["eval", "ctr", "--limit", "1", "--replicates", "200", "--out", str(tmp_path / "t")]
    )
    assert result.exit_code == 0, result.stderr
    assert "| Revision (%) ↑ |" in result.stdout and "| U | C | C+S |" in result.stdout
    data = json.loads((tmp_path / "t" / "ctr.json").read_text())  # --out is a folder
    assert (tmp_path / "t" / "ctr.md").read_text().startswith(result.stdout.splitlines()[0])
    assert set(data["metrics"]) == {"U", "C", "C+S"} and len(data["episodes"]) == 15


def test_every_replay_respects_the_locality_bound(
    replay: tuple[list[EpisodeOutcome], Store],
) -> None:
    outs, _ = replay
    for o in outs:
        assert 1 - o.locality <= o.bound + 1e-12, o
        assert o.untracked == 0, o  # the router's scope contains the gold closure
