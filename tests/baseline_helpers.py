"""Shared by the baselines' procedure tests: the CLI run on the example, the LLM settings for
the scripted server, and the role a procedure's prompt names."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from semv.cli import app
from semv.config import BackendConfig, LlmConfig, Settings

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "lyon-flood"
_ROLE = re.compile(r"You are the ([\w-]+) agent of")


def verify_example(procedure: str, data_dir: Path) -> tuple[dict[str, Any], str]:
    """``semv verify examples/lyon-flood --procedure NAME``: its JSON and Markdown reports."""
    result = CliRunner().invoke(
        app, ["verify", str(EXAMPLE), "--procedure", procedure, "--data-dir", str(data_dir)]
    )
    assert result.exit_code == 0, result.output
    reports = list((data_dir / "reports").glob("*/report.json"))
    assert len(reports) == 1
    report = json.loads(reports[0].read_text(encoding="utf-8"))
    return report, reports[0].with_name("report.md").read_text(encoding="utf-8")


def llm_settings(url: str) -> Settings:
    return Settings().model_copy(
        update={
            "agents": BackendConfig(backend="llm"),
            "llm": LlmConfig(url=url, model="scripted", retries=1, backoff_s=0.01, timeout_s=5.0),
        }
    )


def role_name(body: dict[str, Any], default: str) -> str:
    """The role a request's system prompt names (procedure roles carry hyphens)."""
    match = _ROLE.search(str(body["messages"][0]["content"]))
    return match.group(1) if match else default
