"""Calls started ahead of their nodes: the decomposer's call at the run's start, the
plan calls as soon as its answer gives the statements, none of them waiting for the offline
extractors or the media nodes, and the run's result the same as without them."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest

import semv.agents.llm._planning as llm_planning
from semv._api import load_cases
from semv.agents import Agents, EarlyCalls, EarlyStart
from semv.agents.llm import LlmAgents
from semv.config import BackendConfig, LlmConfig, Settings
from semv.model import Case, Claims, Result
from semv.pipeline import RunOutcome, run_case, start_early
from semv.stages import build_graph
from semv.store import Store
from semv.usage import Ledger
from tests.llm_server import Reply, ScriptedServer, competent_script

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "lyon-flood"


def settings_for(url: str) -> Settings:
    return Settings().model_copy(
        update={
            "agents": BackendConfig(backend="llm"),
            "llm": LlmConfig(url=url, model="scripted", timeout_s=20.0, concurrency=16),
        }
    )


def example(text_only: bool = True) -> tuple[str, Case]:
    contract, cases = load_cases(EXAMPLE, text_only=text_only)
    return contract, cases[0].case


class Plain:
    """The LLM backend without ``start_early``: every call waits for its node."""

    def __init__(self, inner: LlmAgents) -> None:
        self._inner = inner
        self.name = inner.name
        self.version = inner.version

    @property
    def identity(self) -> str:
        return self._inner.identity

    def __getattr__(self, role: str) -> Any:
        if role == "start_early":
            raise AttributeError(role)
        return getattr(self._inner, role)


def run(url: str, data_dir: Path, *, early: bool = True, text_only: bool = True) -> RunOutcome:
    contract, case = example(text_only)
    settings = settings_for(url)
    store = Store(data_dir)
    try:
        llm = LlmAgents(settings, store=store)
        agents: Agents = llm if early else Plain(llm)  # type: ignore[assignment]
        return asyncio.run(
            run_case(
                case,
                store=store,
                settings=settings,
                agents=agents,
                contract=contract,
                reports_dir=data_dir / "reports",
                max_concurrency=16,
            )
        )
    finally:
        store.close()


def comparable(result: Result) -> dict[str, Any]:
    """The result without what differs between any two runs (ids, times, paths, timings)."""
    data = json.loads(result.model_dump_json())
    for key in ("run_id", "trace_head", "report_paths", "created_at", "committed_at"):
        data.pop(key, None)
    usage = data.pop("usage")
    data["calls"] = {role: r["calls"] for role, r in usage["roles"].items()}
    data["tokens"] = (usage["prompt_tokens"], usage["completion_tokens"])
    return data


def test_plan_calls_do_not_wait_for_the_offline_extractors(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The extractors are held until the six plan requests have arrived: the run finishes
    only if the plan calls went out on the decomposer's answer alone."""
    planned = threading.Event()
    plans: list[int] = []
    lock = threading.Lock()

    def script(role: str, body: dict[str, Any], n: int) -> Reply:
        if role == "plan":
            with lock:
                plans.append(n)
                if len(plans) == 6:
                    planned.set()
        return competent_script(role, body, n)

    real = llm_planning.decompose_case
    waited: list[bool] = []

    def held(case: Case) -> Claims:
        waited.append(planned.wait(timeout=30))
        return real(case)

    monkeypatch.setattr(llm_planning, "decompose_case", held)
    with ScriptedServer(script, latency=0.05) as server:
        outcome = run(server.url, data_dir)
        roles = list(server.roles)
    assert waited == [True]
    assert roles[0] == "decompose" and sorted(roles[1:7]) == ["plan"] * 6
    usage = outcome.result.usage
    assert usage is not None and usage.roles["plan"].calls == 6
    assert usage.calls == len(roles)  # nothing sent twice


@pytest.mark.parametrize("text_only", [True, False], ids=["text-only", "with-photo"])
def test_early_calls_change_nothing_in_the_result(data_dir: Path, text_only: bool) -> None:
    with ScriptedServer(latency=0.02) as server:
        plain = run(server.url, data_dir / "plain", early=False, text_only=text_only)
        sent_plain = len(server.requests)
        early = run(server.url, data_dir / "early", text_only=text_only)
        sent_early = len(server.requests) - sent_plain
    assert sent_early == sent_plain
    assert comparable(early.result) == comparable(plain.result)


def test_the_decomposer_is_asked_before_the_media_nodes_finish(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the photo, the ``claims`` node waits for the media nodes; the decomposer's call
    does not: it is answered while the media extraction is still held."""
    answered = threading.Event()

    def script(role: str, body: dict[str, Any], n: int) -> Reply:
        reply = competent_script(role, body, n)
        if role == "plan":
            answered.set()
        return reply

    from semv.stages import media

    real = media.extract_media
    waited: list[bool] = []

    def held(*args: Any, **kwargs: Any) -> Any:
        waited.append(answered.wait(timeout=30))
        return real(*args, **kwargs)

    monkeypatch.setattr(media, "extract_media", held)
    with ScriptedServer(script, latency=0.05) as server:
        run(server.url, data_dir, text_only=False)
    assert waited and all(waited)


def test_memory_on_graphs_start_no_plan_call() -> None:
    """A plan prompt holds the recalled memory records, unknown before ``recall`` runs: with
    memory on, only the decomposer starts early."""
    contract, case = example()
    seen: list[EarlyStart] = []

    class Recorder:
        name = "recorder"

        def start_early(self, request: EarlyStart) -> None:
            seen.append(request)

    for memory in (False, True):
        specs = build_graph(case, contract=contract, memory=memory)
        start_early(Recorder(), case, specs, Ledger())  # type: ignore[arg-type]
    off, on = seen
    assert off.decompose_node == on.decompose_node == "claims"
    assert off.plan_nodes == {
        d: f"plan:{d}" for d in ("what", "where", "when", "who", "why", "authenticity")
    }
    assert on.plan_nodes == {}


def test_a_call_no_node_takes_is_cancelled_when_the_run_ends() -> None:
    async def scenario() -> tuple[bool, object]:
        calls = EarlyCalls()
        never = asyncio.Event()
        calls.start(("plan", "a prompt no node renders"), "plan:what", never.wait())
        calls.start(("plan", "taken"), "plan:who", asyncio.sleep(0, result="answer"))
        taken = calls.take(("plan", "taken"))
        assert taken is not None and calls.take(("plan", "taken")) is None
        got = await taken
        await asyncio.wait_for(calls.aclose(), timeout=5)
        return calls.pending() == 0, got

    empty, got = asyncio.run(scenario())
    assert empty and got == "answer"


def test_nothing_starts_early_when_a_budgeted_case_describes_its_media_first() -> None:
    """With ``llm.case_prompt_tokens`` the case's budget is spent in the order calls are made,
    and with a VLM the describe calls came before the claims node: an early call would take
    budget they had, so none starts. Without the budget (or without a VLM) the call starts."""
    contract, case = example(text_only=False)
    specs = build_graph(case, contract=contract)

    async def started(**overrides: Any) -> int:
        settings = settings_for("http://127.0.0.1:9/v1")
        settings = settings.model_copy(update={"llm": settings.llm.model_copy(update=overrides)})
        calls = start_early(LlmAgents(settings), case, specs, Ledger())
        pending = calls.pending()
        await calls.aclose()
        return pending

    assert asyncio.run(started(case_prompt_tokens=5000, vision=True)) == 0
    assert asyncio.run(started(case_prompt_tokens=5000)) == 1
    assert asyncio.run(started(vision=True)) == 1
