"""The decomposer's request sent before the pipeline loads (``semv.agents.llm._prefetch``).

A run takes the early answer only for a byte-identical request, sends its own otherwise, and
its result is the same with and without the early request."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from semv._procedure_names import DEFAULT_PROCEDURE, PROCEDURE_NAMES
from semv.agents.llm import LlmAgents, _prefetch
from semv.agents.llm._requests import (
    chat_request,
    decompose_user,
    system_message,
    target_of,
)
from semv.agents.llm._schemas import DecomposeAnswer
from semv.model import Case
from semv.procedures import procedure_names
from semv.store import Store
from tests.llm_server import Reply, ScriptedServer, competent_script
from tests.masked_verify import verify_masked
from tests.test_llm_backend import example_case, llm_settings, run

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "lyon-flood"


@pytest.fixture(autouse=True)
def _clean() -> Any:
    _prefetch.discard()
    yield
    _prefetch.discard()


def _decompose_requests(server: ScriptedServer) -> int:
    return sum("decompose" in str(b["messages"][0]["content"])[:400] for b in server.requests)


def _first_then_competent(first: Reply) -> Callable[[str, dict[str, Any], int], Reply]:
    """A script answering the server's first request (the early one) with ``first``."""

    def script(role: str, body: dict[str, Any], n: int) -> Reply:
        return first if n == 0 else competent_script(role, body, n)

    return script


def _roles(server: ScriptedServer) -> list[str]:
    from tests.llm_server import role_of

    return [role_of(b) for b in server.requests]


@pytest.mark.parametrize("plans", [False, True])
def test_the_run_takes_the_early_answers_and_records_their_real_duration(
    tmp_path: Path, plans: bool
) -> None:
    with ScriptedServer(latency=0.2) as server:
        settings = llm_settings(server.url)
        _, case = example_case()
        assert _prefetch.start_decompose(settings, case, None, plans=plans)
        if plans:  # the plan requests leave on the decomposer's answer, before the run
            deadline = time.monotonic() + 10
            while _roles(server).count("plan") < 6 and time.monotonic() < deadline:
                time.sleep(0.01)
            assert _roles(server)[:7] == ["decompose"] + ["plan"] * 6
        outcome = run(settings, tmp_path)
        roles = _roles(server)
    # each sent once, early; the run sent no second one
    assert roles.count("decompose") == 1
    assert roles.count("plan") == 6
    assert roles[0] == "decompose"
    usage = outcome.result.usage
    assert usage is not None
    assert usage.roles["decompose"].calls == 1
    assert usage.roles["plan"].calls == 6
    # a call's latency is its early request's own (the server held it 0.2 s), so the
    # model's critical path still counts every round trip
    assert usage.roles["decompose"].latency_s >= 0.2
    assert usage.roles["plan"].latency_s >= 6 * 0.2
    assert usage.model_critical_path_s >= 0.2 * 5


def test_a_request_that_differs_is_sent_by_its_call(tmp_path: Path) -> None:
    with ScriptedServer() as server:
        settings = llm_settings(server.url)
        _, case = example_case()
        other = case.model_copy(update={"claim": case.claim + " Reported on Monday."})
        assert _prefetch.start_decompose(settings, other, None)
        run(settings, tmp_path, case=case)
        sent = [str(b["messages"][1]["content"]) for b in server.requests]
        decomposer = [t for t, r in zip(sent, _roles(server), strict=True) if r == "decompose"]
    assert len(decomposer) == 2  # the early request (another claim) and the run's own
    assert sum("Reported on Monday." in t for t in decomposer) == 1


def test_a_failed_early_request_leaves_the_call_to_send_its_own(tmp_path: Path) -> None:
    with ScriptedServer(_first_then_competent(Reply(status=503, content="busy"))) as server:
        settings = llm_settings(server.url)
        assert _prefetch.start_decompose(settings, example_case()[1], None, plans=True)
        outcome = run(settings, tmp_path)
        roles = _roles(server)
    assert roles.count("decompose") == 2
    assert roles.count("plan") == 6  # none early: the run started them on its own answer
    usage = outcome.result.usage
    assert usage is not None and usage.roles["decompose"].fallbacks == 0
    assert not [u for u in outcome.result.uncertainty if u.code == "model-fallback"]


def test_an_unusable_early_answer_sends_no_plans_and_is_repaired_by_the_run(
    tmp_path: Path,
) -> None:
    with ScriptedServer(_first_then_competent(Reply(content="I cannot answer in JSON."))) as server:
        settings = llm_settings(server.url)
        assert _prefetch.start_decompose(settings, example_case()[1], None, plans=True)
        outcome = run(settings, tmp_path)
        roles = _roles(server)
    # the early answer is taken, found unusable and repaired by the run (one more decompose
    # request), whose plan calls then start on the repaired answer
    assert roles[:2] == ["decompose", "decompose"]
    assert roles.count("plan") == 6
    usage = outcome.result.usage
    assert usage is not None and usage.roles["decompose"].calls == 2


def test_the_client_takes_an_identical_request_once() -> None:
    with ScriptedServer(latency=0.1) as server:
        settings = llm_settings(server.url)
        case = example_case()[1]
        assert _prefetch.start_decompose(settings, case, None)
        cfg = settings.llm
        messages = [
            system_message("decompose", DecomposeAnswer),
            {"role": "user", "content": decompose_user(case)},
        ]
        request = chat_request(cfg, target_of(cfg, "decompose"), messages, DecomposeAnswer)
        agents = LlmAgents(settings)

        async def twice() -> tuple[Any, Any]:
            first = await agents.client.chat(request)
            second = await agents.client.chat(request)
            await agents.client.aclose()
            return first, second

        first, second = asyncio.run(twice())
        assert len(server.requests) == 2
    assert first.content == second.content
    assert first.sent_at is not None and first.seconds >= 0.1  # the early request's own time
    assert second.sent_at is None  # nothing early left: the call sent it


@pytest.mark.parametrize(
    "change",
    [
        {"case_prompt_tokens": 10_000},  # a budget could keep the request from being sent
        {"vision": True},  # with media, the describe calls come first
    ],
)
def test_nothing_is_sent_early_where_the_first_call_may_differ(change: dict[str, Any]) -> None:
    with ScriptedServer() as server:
        settings = llm_settings(server.url, **change)
        _, case = example_case(text_only="vision" not in change)
        assert any(a.loaded for a in case.media) == ("vision" in change)
        assert not _prefetch.start_decompose(settings, case, None)
        assert server.requests == []


def test_nothing_is_sent_early_when_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEMV_LLM_PREFETCH", "0")
    with ScriptedServer() as server:
        assert not _prefetch.start_decompose(llm_settings(server.url), example_case()[1], None)
        assert server.requests == []


def test_nothing_is_sent_early_when_the_store_has_the_answer(tmp_path: Path) -> None:
    with ScriptedServer() as server:
        settings = llm_settings(server.url)
        run(settings, tmp_path)
        before = len(server.requests)
        store = Store(tmp_path)
        try:
            assert not _prefetch.start_decompose(settings, example_case()[1], store)
            assert len(server.requests) == before
            case: Case = example_case()[1].model_copy(update={"claim": "Another claim."})
            assert _prefetch.start_decompose(settings, case, store)  # not cached: sent
        finally:
            store.close()
        deadline = time.monotonic() + 10
        while len(server.requests) == before and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(server.requests) == before + 1


def test_the_light_procedure_names_are_the_registered_ones() -> None:
    assert procedure_names() == PROCEDURE_NAMES
    assert PROCEDURE_NAMES[0] == DEFAULT_PROCEDURE


def test_a_verify_gives_the_same_result_with_the_early_request(tmp_path: Path) -> None:
    with ScriptedServer() as server:
        on, imports_on = verify_masked(tmp_path / "a", server.url, {"SEMV_LLM_PREFETCH": "1"})
        after_on = _roles(server)
        off, _ = verify_masked(tmp_path / "b", server.url, {"SEMV_LLM_PREFETCH": "0"})
        after_off = _roles(server)[len(after_on) :]
    assert after_on.count("decompose") == after_off.count("decompose") == 1
    assert sorted(after_on) == sorted(after_off)
    assert json.dumps(on, sort_keys=True) == json.dumps(off, sort_keys=True)
    # the early request left before the pipeline was imported: its module loaded after
    # the prefetch module in the import log
    order = re.findall(r"\|\s+(semv\.agents\.llm\._prefetch|semv\.pipeline)$", imports_on, re.M)
    assert order[:2] == ["semv.agents.llm._prefetch", "semv.pipeline"]
