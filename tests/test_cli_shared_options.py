"""The parallelism options are declared once and mean the same in `verify-batch` and `eval`."""

from __future__ import annotations

from typing import Any

import typer

from semv.cli import app


def _subcommand(group: Any, name: str) -> Any:
    command = group.get_command(group.context_class(group), name)
    assert command is not None, name
    return command


def _options(command: Any) -> dict[str, Any]:
    return {opt: p for p in command.params for opt in getattr(p, "opts", ())}


def test_verify_batch_and_eval_share_workers_and_ray() -> None:
    root = typer.main.get_command(app)
    batch = _options(_subcommand(root, "verify-batch"))
    cosmos = _options(_subcommand(_subcommand(root, "eval"), "cosmos"))
    for name in ("--workers", "--ray", "--ray-address"):
        assert (batch[name].help, batch[name].default) == (
            cosmos[name].help,
            cosmos[name].default,
        ), name
    assert batch["--workers"].default == 1 and batch["--ray"].default is False
    assert "implies --ray" in batch["--ray-address"].help
