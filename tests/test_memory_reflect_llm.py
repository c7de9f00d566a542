"""The LLM reflector against the scripted OpenAI-compatible server on 127.0.0.1 (real HTTP):
model lessons become candidate drafts grounded in ids of the committed trace, the Eq. 26 gate
decides on them as on any other draft, a malformed answer falls back to the offline reflector
(recorded), and ids outside the trace never reach a staged candidate or a record."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

from semv._api import load_cases
from semv.adapters import LoadedCase, SealedGold, get_adapter
from semv.agents.llm import LlmAgents
from semv.agents.offline import OfflineAgents
from semv.config import Settings
from semv.learning import learn
from semv.memory import (
    LlmReflector,
    MemoryStore,
    MemoryType,
    OfflineReflector,
    ReflectInput,
    load_trace,
)
from semv.model import UncertaintyCode
from semv.pipeline import run_case
from semv.store import Store
from tests.conftest import ROOT, shared_data
from tests.llm_server import Reply, ScriptedServer, competent, user_text
from tests.test_cli import semv
from tests.test_llm_backend import llm_settings

EXAMPLE = ROOT / "examples" / "lyon-flood"
_ARG_ID = re.compile(r"\b(arg:[a-z_]+:(?:sup|att|mix|neu):\d+)\b")
_EV_ID = re.compile(r"^(ev:\S+) \(", re.M)

CLEAN = "Compare the capture date of the photo with the date the claim gives."
MIXED = "Look for an earlier fact-check of the same photo before accepting the place."
UNSAFE = "Every caption of this kind describes a different event."


def lessons_script(role: str, body: dict[str, Any], _n: int) -> Reply:
    """Four lessons read off the prompt: one grounded in a ``when`` argument, one citing a real
    evidence id and a made-up one, one over-general, one citing only made-up ids."""
    if role != "reflect":
        return Reply(json.dumps(competent(role, body)))
    text = user_text(body)
    args = _ARG_ID.findall(text)
    when = next(a for a in args if a.startswith("arg:when:"))
    why = next(a for a in args if a.startswith("arg:why:"))
    ev = _EV_ID.findall(text)[0]
    lessons = [
        {"text": CLEAN, "dimension": "when", "kind": "pitfall", "grounding": [when]},
        {
            "text": MIXED,
            "dimension": "where",
            "kind": "pitfall",
            "grounding": [ev, "ev:made-up-source"],
        },
        {"text": UNSAFE, "dimension": "why", "kind": "pitfall", "grounding": [why]},
        {
            "text": "Trust the wire service.",
            "dimension": "who",
            "kind": "strategy",
            "grounding": ["arg:who:sup:9", "ev:nowhere"],
        },
    ]
    return Reply(json.dumps({"lessons": lessons}))


def malformed_script(role: str, body: dict[str, Any], _n: int) -> Reply:
    if role == "reflect":
        return Reply('{"lessons": [{"text": "unterminated')
    return Reply(json.dumps(competent(role, body)))


def _settings(url: str) -> Settings:
    # the example's evidence carries provenance; the test fixes the other constants it uses
    return llm_settings(url)


def _learn(
    store: Store, server: ScriptedServer, bank: str, gold: str
) -> tuple[list[Any], MemoryStore]:
    contract, cases = load_cases(EXAMPLE, text_only=True)
    settings = _settings(server.url)
    loaded = LoadedCase(case=cases[0].case, gold=SealedGold(gold))
    reflector = LlmReflector(LlmAgents(settings), settings, max_lessons=4)
    asyncio.run(
        learn(
            [loaded],
            store=store,
            settings=settings,
            agents=OfflineAgents(settings),
            contract=contract,
            bank=bank,
            reflector=reflector,
        )
    )
    ms = MemoryStore(store, bank)
    return ms.candidates(), ms


def _predicted(store: Store) -> str:
    contract, cases = load_cases(EXAMPLE, text_only=True)
    settings = Settings()
    outcome = asyncio.run(
        run_case(
            cases[0].case,
            store=store,
            settings=settings,
            agents=OfflineAgents(settings),
            contract=contract,
        )
    )
    return outcome.result.label


def test_model_lessons_are_gated_like_any_draft(data_dir: Path) -> None:
    store = Store(data_dir)
    predicted = _predicted(store)
    wrong = "false-context" if predicted != "false-context" else "verified"
    cfg = Settings().memory
    with ScriptedServer(lessons_script) as server:
        on_error, _ = _learn(store, server, "wrong", wrong)
        on_success, _ = _learn(store, server, "right", predicted)
    for staged, base in ((on_error, cfg.reflect_mismatch), (on_success, cfg.reflect_success)):
        by_lesson = {c.lesson: (c, status, reason) for c, status, reason, _ in staged}
        # the lesson citing only made-up ids never becomes a candidate
        assert set(by_lesson) == {CLEAN, MIXED, UNSAFE}
        trace = load_trace(store, by_lesson[CLEAN][0].source_run)
        for cand, _status, _reason in by_lesson.values():
            assert cand.reflector.startswith("llm-reflector/")
            assert set(cand.evidence) <= trace.evidence_ids()
            assert set(cand.arguments) <= trace.argument_ids()
            assert cand.evidence or cand.arguments
        clean, status, _ = by_lesson[CLEAN]
        assert clean.type is MemoryType.FAILURE and clean.dimension == "when"
        assert clean.arguments and clean.arguments[0].startswith("arg:when:")
        assert clean.confidence == base and status == "verified"
        _unsafe, status, reason = by_lesson[UNSAFE]
        assert status == "rejected" and "over-general" in reason
        mixed, status, reason = by_lesson[MIXED]
        assert mixed.evidence and "ev:made-up-source" not in mixed.evidence
        assert abs(mixed.confidence - (base - cfg.reflect_llm_unresolved)) < 1e-9
        passes = mixed.confidence >= cfg.theta_v
        assert (status == "verified") is passes, (status, reason)
    # the downgrade decides at the gate: below θ_v after an error, above it after a success
    mixed_on_error = next(s for c, s, _r, _ in on_error if c.lesson == MIXED)
    mixed_on_success = next(s for c, s, _r, _ in on_success if c.lesson == MIXED)
    assert (mixed_on_error, mixed_on_success) == ("rejected", "verified")


def test_malformed_answer_falls_back_to_the_offline_reflector(data_dir: Path) -> None:
    store = Store(data_dir)
    predicted = _predicted(store)
    with ScriptedServer(malformed_script) as server:
        staged, ms = _learn(store, server, "fallback", "false-context")
        reflect_calls = [r for r in server.roles if r == "reflect"]
        settings = _settings(server.url)
        (event,) = ms.events("reflect.fallback")
        trace = load_trace(store, event["subject"])
        request = ReflectInput(trace=trace, task="internal", gold="false-context")
        llm = asyncio.run(LlmReflector(LlmAgents(settings), settings).reflect(request))
    assert predicted  # the run itself is the offline backend's
    assert len(reflect_calls) == 2  # the answer and one repair request
    offline = asyncio.run(OfflineReflector(settings).reflect(request))
    assert llm.drafts == offline.drafts and llm.reflector == OfflineReflector.name
    assert [n.code for n in llm.notes] == [UncertaintyCode.MODEL_FALLBACK]
    assert event["payload"]["instead"] == OfflineReflector.name
    assert event["payload"]["reflector"].startswith("llm-reflector/")
    assert all(c.reflector == OfflineReflector.name for c, *_ in staged)


def test_unreachable_model_falls_back(data_dir: Path) -> None:
    store = Store(data_dir)
    _predicted(store)
    settings = llm_settings("http://127.0.0.1:9/v1", retries=0)
    run_id = store.list_runs()[0].run_id
    request = ReflectInput(trace=load_trace(store, run_id), task="internal", gold="verified")
    out = asyncio.run(LlmReflector(LlmAgents(settings), settings).reflect(request))
    assert out.reflector == OfflineReflector.name
    assert out.notes and out.notes[0].code is UncertaintyCode.MODEL_FALLBACK


def test_ids_outside_the_trace_never_reach_a_record(data_dir: Path) -> None:
    """OOKPIK rows with a model that cites a made-up id in every lesson besides a real one:
    every staged candidate's grounding resolves in its own trace, and every record (after
    consolidation) was built only from such candidates."""
    path = shared_data("ookpik-dev", "dev_data.json")
    cases = list(get_adapter("cosmos").load(path, text_only=True))[:6]
    store = Store(data_dir)

    def script(role: str, body: dict[str, Any], _n: int) -> Reply:
        if role != "reflect":
            return Reply(json.dumps(competent(role, body)))
        text = user_text(body)
        real = [*_ARG_ID.findall(text)[:1], *_EV_ID.findall(text)[:1]]
        lessons = [
            {
                "text": "Check whether the caption names any place of the claim.",
                "dimension": "why",
                "kind": "strategy",
                "grounding": [*real, "arg:why:att:77", "ev:injected"],
            },
            {
                "text": "Search for earlier uses of the photo.",
                "dimension": "why",
                "kind": "pitfall",
                "grounding": ["arg:why:sup:99"],
            },
        ]
        return Reply(json.dumps({"lessons": lessons}))

    with ScriptedServer(script) as server:
        settings = _settings(server.url).model_copy(
            update={"memory": Settings().memory.model_copy(update={"consolidate_every": 2})}
        )
        report = asyncio.run(
            learn(
                cases,
                store=store,
                settings=settings,
                agents=OfflineAgents(settings),
                contract="cosmos",
                reflector=LlmReflector(LlmAgents(settings), settings),
            )
        )
        assert server.roles.count("reflect") == report.cases == 6
    ms = MemoryStore(store)
    staged = ms.candidates()
    assert staged
    by_id = {}
    for cand, _status, _reason, _ in staged:
        by_id[cand.id] = cand
        trace = load_trace(store, cand.source_run)
        assert set(cand.evidence) <= trace.evidence_ids()
        assert set(cand.arguments) <= trace.argument_ids()
        assert not {"ev:injected", "arg:why:att:77", "arg:why:sup:99"} & {
            *cand.evidence,
            *cand.arguments,
        }
    for rec in ms.records():
        assert set(rec.candidates) <= set(by_id)


def test_learn_cli_with_the_llm_backend(tmp_path: Path) -> None:
    data = str(shared_data("ookpik-dev", "dev_data.json"))
    d = tmp_path / "store"
    with ScriptedServer() as server:
        code, out, err = semv(
            "learn", data, "--adapter", "cosmos", "--text-only", "--limit", "2", "--json",
            "--data-dir", str(d), "--backend", "llm", "--llm-url", server.url,
            "--llm-model", "scripted-reflector",
        )  # fmt: skip
        assert code == 0, err
        roles = list(server.roles)
        models = {b["model"] for b in server.requests}
    doc = json.loads(out)
    assert doc["cases"] == 2 and doc["reflect_fallbacks"] == 0
    assert roles.count("reflect") == 2 and {"decompose", "verify"} <= set(roles)
    assert models == {"scripted-reflector"}
    staged = MemoryStore(Store(d)).candidates()
    # the competent server grounds one lesson per case in a real argument (plus a made-up id)
    assert staged and all(c.reflector == "llm-reflector/1:scripted-reflector" for c, *_ in staged)
    code, _out, err = semv("learn", data, "--backend", "gpt", "--data-dir", str(d))
    assert code == 2 and "unknown backend" in err
