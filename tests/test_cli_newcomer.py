"""What a new user trips on first: output lines that must survive a pipe, help text, error
hints, the ClaimReview warnings, an export's file mode and the order of subclaims."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer
from typer._click.core import Command, Context
from typer.core import TyperGroup
from typer.testing import CliRunner

from semv.cli import COMMANDS, app
from semv.cli._lazy import LazyGroup
from semv.config import ExportConfig
from semv.export import ReviewFacts, check_claim_review, claim_review

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "lyon-flood"
DIMENSION_ORDER = ["what", "where", "when", "who", "why", "authenticity"]
runner = CliRunner()


def semv(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args), env={"COLUMNS": "80", **(env or {})})
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str, str]]:
    """A store whose path is longer than a piped line (80 columns), holding a fresh run of the
    example and a second, fully reused one: (data dir, fresh output, reused output)."""
    deep = tmp_path_factory.mktemp("store") / ("a-folder-with-a-long-name-" * 3) / "data"
    outputs = []
    for _ in range(2):
        code, out, err = semv("verify", str(EXAMPLE), "--data-dir", str(deep))
        assert code == 0, err
        outputs.append(out)
    yield deep, outputs[0], outputs[1]


def _dimensions(output: str) -> list[str]:
    return [m.group(1) for m in re.finditer(r"^  (\w+)\s+\d\.\d{3}  ", output, re.MULTILINE)]


def test_report_path_stays_on_its_line_when_piped(two_runs: tuple[Path, str, str]) -> None:
    data_dir, fresh, _ = two_runs
    assert len(str(data_dir)) > 80
    report = [line for line in fresh.splitlines() if "report:" in line]
    assert len(report) == 1
    path = Path(report[0].split("report:", 1)[1].strip())
    assert path.is_file() and path.name == "report.md"
    html = [line for line in fresh.splitlines() if line.startswith("  html:")]
    assert Path(html[0].split("html:", 1)[1].strip()).is_file()


def test_subclaims_keep_their_order_on_a_reused_run(two_runs: tuple[Path, str, str]) -> None:
    _, fresh, reused = two_runs
    assert "0 stages run" in reused  # the second run reused every node
    assert _dimensions(fresh) == DIMENSION_ORDER
    assert _dimensions(reused) == DIMENSION_ORDER


def test_runs_interrupted_in_a_store_of_finished_runs_says_so(
    two_runs: tuple[Path, str, str],
) -> None:
    data_dir, _, _ = two_runs
    code, out, err = semv("runs", "--interrupted", "--data-dir", str(data_dir))
    assert code == 0 and out == ""
    assert re.search(r"none of its [23] runs was cut short", err)  # 3 once contested
    assert "verify a case" not in err
    assert f"semv runs --data-dir {data_dir}" in err


def test_export_of_an_unknown_run_points_to_semv_runs(two_runs: tuple[Path, str, str]) -> None:
    data_dir, _, _ = two_runs
    code, _, err = semv("export", "nope", "--data-dir", str(data_dir))
    assert code == 2
    assert "no run matches 'nope'" in err
    assert f"`semv runs --data-dir {data_dir}`" in " ".join(err.split())


def test_exported_claimreview_honours_the_umask(
    two_runs: tuple[Path, str, str], tmp_path: Path
) -> None:
    data_dir, fresh, _ = two_runs
    run_id = re.search(r"run (r\w+):", fresh)
    assert run_id is not None
    for umask, expected in ((0o022, 0o644), (0o077, 0o600), (0o002, 0o664)):
        previous = os.umask(umask)
        try:
            target = tmp_path / f"review-{umask:o}.jsonld"
            code, _, err = semv(
                "export", run_id.group(1), "-o", str(target), "--data-dir", str(data_dir)
            )
        finally:
            os.umask(previous)
        assert code == 0, err
        assert target.stat().st_mode & 0o777 == expected


def test_url_warning_names_the_setting_to_fix_it(two_runs: tuple[Path, str, str]) -> None:
    data_dir, fresh, _ = two_runs
    run_id = re.search(r"run (r\w+):", fresh)
    assert run_id is not None
    code, out, err = semv("export", run_id.group(1), "--data-dir", str(data_dir))
    assert code == 0
    assert json.loads(out)["url"].startswith("file://")
    assert "[export] report_base_url" in " ".join(err.split())


def test_claimreview_without_a_source_url_warns_of_the_missing_appearance() -> None:
    cfg = ExportConfig()
    url, day = "https://reports.example.org/r1/report.html", "2026-01-02"
    bare = claim_review(
        ReviewFacts("A claim", "false-context", None), cfg, url=url, date_published=day
    )
    problems = check_claim_review(bare)
    assert len(problems) == 1 and "no appearance" in problems[0]
    assert "context.source_url" in problems[0]
    sourced = claim_review(
        ReviewFacts("A claim", "false-context", "https://social.example.org/p/1"),
        cfg,
        url=url,
        date_published=day,
    )
    assert check_claim_review(sourced) == []


def test_export_of_a_case_without_source_url_warns(tmp_path: Path) -> None:
    case = tmp_path / "no-source"
    shutil.copytree(EXAMPLE, case)
    spec = (case / "case.yaml").read_text(encoding="utf-8")
    (case / "case.yaml").write_text(
        "\n".join(line for line in spec.splitlines() if "source_url" not in line) + "\n",
        encoding="utf-8",
    )
    data_dir = tmp_path / "data"
    code, out, err = semv("verify", str(case), "--json", "--data-dir", str(data_dir))
    assert code == 0, err
    run_id = json.loads(out)["run_id"]
    code, out, err = semv(
        "export",
        run_id,
        "--data-dir",
        str(data_dir),
        env={"SEMV_EXPORT__REPORT_BASE_URL": "https://reports.example.org"},
    )
    assert code == 0
    assert "appearance" not in json.loads(out)["itemReviewed"]
    assert "warning: itemReviewed has no appearance" in err


def _all_commands() -> Iterator[tuple[str, Command]]:
    group = typer.main.get_command(app)
    assert isinstance(group, LazyGroup)
    ctx = Context(group)
    stack: list[tuple[str, Command]] = [(name, group.get_command(ctx, name)) for name in COMMANDS]
    while stack:
        name, command = stack.pop()
        yield name, command
        if isinstance(command, TyperGroup):
            stack.extend((f"{name} {n}", c) for n, c in command.commands.items())


def test_help_shows_each_command_summary_as_one_paragraph_without_rst_literals() -> None:
    code, out, _ = semv("--help", env={"COLUMNS": "200"})
    assert code == 0
    assert "(all folders are validated first" in out  # not broken after "are"
    assert "``" not in out
    for name, command in _all_commands():
        assert "``" not in (command.help or ""), name
        summary = command.get_short_help_str(limit=10_000)
        assert "\n" not in summary, name
    code, out, _ = semv("runs", "--help", env={"COLUMNS": "200"})
    assert "shown `interrupted`" in out and "``" not in out


def test_verify_usage_shows_case_as_required_unless_resume() -> None:
    code, out, _ = semv("verify", "--help", env={"COLUMNS": "120"})
    assert code == 0
    usage = next(line for line in out.splitlines() if "Usage:" in line)
    assert usage.rstrip().endswith("verify [OPTIONS] CASE | --resume RUN")
    assert "[CASE]" not in out and "[case]" not in out


def test_procedure_default_is_shown_once() -> None:
    code, out, _ = semv("verify", "--help", env={"COLUMNS": "250"})
    assert code == 0
    line = next(line for line in out.splitlines() if "--procedure" in line)
    assert "[default: semv]" in line
    assert "(default: semv)" not in out


def test_contest_report_path_stays_on_its_line_when_piped(
    two_runs: tuple[Path, str, str],
) -> None:
    data_dir, fresh, _ = two_runs
    run_id = re.search(r"run (r\w+):", fresh)
    assert run_id is not None
    code, out, err = semv(
        "contest",
        run_id.group(1),
        "--reject",
        "arg:when:att:1",
        "--reason",
        "clock of the camera was wrong",
        "--data-dir",
        str(data_dir),
    )
    assert code == 0, err
    report = [line for line in out.splitlines() if "report:" in line]
    assert len(report) == 1
    assert Path(report[0].split("report:", 1)[1].strip()).is_file()
