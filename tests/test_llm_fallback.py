"""With no model server, the LLM backend's per-call fallback gives what the offline backend
gives, and the CLI refuses to start a run against a server that is not there."""

from __future__ import annotations

import asyncio
import logging
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from semv._api import load_cases
from semv.agents.backends import probe_llm
from semv.agents.llm import LlmAgents
from semv.agents.offline import OfflineAgents
from semv.cli import app
from semv.config import Settings
from semv.errors import ConfigError
from semv.model import Arguments, Verdict
from semv.pipeline import RunOutcome, run_case
from semv.store import Store
from tests.conftest import ROOT

EXAMPLE = ROOT / "examples" / "lyon-flood"


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, read, released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def no_server_settings() -> Settings:
    base = Settings()
    return base.model_copy(
        update={
            "agents": base.agents.model_copy(update={"backend": "llm"}),
            "llm": base.llm.model_copy(
                update={"url": f"http://127.0.0.1:{closed_port()}/v1", "retries": 0}
            ),
        }
    )


def _run(settings: Settings, agents: OfflineAgents | LlmAgents, root: Path) -> RunOutcome:
    contract, cases = load_cases(EXAMPLE)
    store = Store(root)
    try:
        return asyncio.run(
            run_case(
                cases[0].case, store=store, settings=settings, agents=agents, contract=contract
            )
        )
    finally:
        store.close()


def _argued(outcome: RunOutcome, key: str) -> list[tuple[object, ...]]:
    value = outcome.nodes[key].value
    assert isinstance(value, Arguments)
    return [
        (a.id, a.stance, a.text, a.evidence, a.strength, a.verified, a.uncertainty)
        for a in value.arguments
    ]


def test_the_fallback_of_every_role_is_the_offline_roles_answer(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    offline_settings = Settings()
    offline = _run(offline_settings, OfflineAgents(offline_settings), tmp_path / "offline")
    settings = no_server_settings()
    with caplog.at_level(logging.WARNING, logger="semv.agents.llm._agents"):
        fallen = _run(settings, LlmAgents(settings), tmp_path / "llm")

    before, after = offline.nodes["aggregate"].value, fallen.nodes["aggregate"].value
    assert isinstance(before, Verdict) and isinstance(after, Verdict)
    assert (after.label, after.confidence) == (before.label, before.confidence)
    assert [(d.dimension, d.score, d.band) for d in after.decisions] == [
        (d.dimension, d.score, d.band) for d in before.decisions
    ]
    # decompose, plan, argue, verify and the clash judge: node for node the same content
    assert fallen.nodes["claims"].value == offline.nodes["claims"].value
    for key in offline.nodes:
        if key.startswith("plan:"):
            assert fallen.nodes[key].value == offline.nodes[key].value, key
        if key.startswith("argue:"):
            assert _argued(fallen, key) == _argued(offline, key), key
    # and the run says the model was not there (once per reason, not once per call)
    assert any(u.code == "model-fallback" for u in fallen.result.uncertainty)
    warnings = [r for r in caplog.records if "falls back" in r.getMessage()]
    assert len(warnings) == 1


def test_the_probe_names_the_missing_server_and_the_offline_way_out() -> None:
    settings = no_server_settings()
    with pytest.raises(ConfigError, match=r"no model server at http://127\.0\.0\.1") as caught:
        probe_llm(settings)
    assert "--backend offline" in str(caught.value) and caught.value.exit_code == 2
    probe_llm(Settings())  # the offline backend needs no server


def test_verify_with_no_model_server_fails_fast_with_exit_2(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    result = CliRunner().invoke(
        app,
        ["verify", str(EXAMPLE), "--backend", "llm", "--llm-url", url, "--data-dir", str(tmp_path)],
    )
    assert result.exit_code == 2, result.output
    assert f"no model server at {url}" in result.stderr
    assert "--backend offline" in result.stderr
    if (tmp_path / "semv.db").exists():  # no run was started
        store = Store(tmp_path)
        assert store.count_runs() == 0
        store.close()
