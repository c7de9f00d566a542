"""``semv verify --backend llm --llm-url --llm-model [--replay]`` and the config-file form."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from semv.cli import app
from tests.conftest import ROOT
from tests.llm_server import ScriptedServer

EXAMPLE = ROOT / "examples" / "lyon-flood"
runner = CliRunner()


def semv(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_flags_select_the_llm_backend_and_replay(data_dir: Path) -> None:
    with ScriptedServer() as server:
        code, out, err = semv(
            "verify", str(EXAMPLE), "--text-only", "--json", "--data-dir", str(data_dir),
            "--backend", "llm", "--llm-url", server.url, "--llm-model", "from-the-flag",
        )  # fmt: skip
        assert code == 0, err
        assert {b["model"] for b in server.requests} == {"from-the-flag"}
        n = len(server.requests)
    result = json.loads(out)
    assert result["usage"]["calls"] == n
    assert set(result["usage"]["roles"]) >= {"decompose", "plan", "debaters"}  # batched
    report = json.loads(Path(result["report_paths"]["json"]).read_text(encoding="utf-8"))
    assert report["usage"]["calls"] == n
    # the same case again: every node is reused, no model call at all, same verdict
    code, out, err = semv(
        "verify", str(EXAMPLE), "--text-only", "--json", "--data-dir", str(data_dir),
        "--backend", "llm", "--llm-url", "http://127.0.0.1:9/v1", "--llm-model",
        "from-the-flag", "--replay",
    )  # fmt: skip
    assert code == 0, err
    again = json.loads(out)
    assert again["usage"]["calls"] == 0 and again["label"] == result["label"]


def test_config_file_selects_backend_with_a_per_role_override(
    data_dir: Path, tmp_path: Path
) -> None:
    with ScriptedServer() as server:
        config = tmp_path / "semv.toml"
        config.write_text(
            f'[agents]\nbackend = "llm"\n\n[llm]\nurl = "{server.url}"\nmodel = "backbone"\n\n'
            '[llm.roles.verify]\nmodel = "verifier"\n',
            encoding="utf-8",
        )
        code, out, err = semv(
            "verify", str(EXAMPLE), "--text-only", "--data-dir", str(data_dir),
            "--config", str(config),
        )  # fmt: skip
        assert code == 0, err
        pairs = set(zip(server.roles, (b["model"] for b in server.requests), strict=True))
    assert ("verify", "verifier") in pairs and ("plan", "backbone") in pairs
    assert "model: " in out and "ratio " in out


def test_bad_backend_choices_exit_2(data_dir: Path) -> None:
    code, _out, err = semv("verify", str(EXAMPLE), "--backend", "gpt", "--data-dir", str(data_dir))
    assert code == 2 and "unknown backend 'gpt'" in err
    code, _out, err = semv("verify", str(EXAMPLE), "--replay", "--data-dir", str(data_dir))
    assert code == 2 and "--backend llm" in err
