"""Each procedure's report opens with what it decided and what it does not look at; the
5-way procedures lead with the label and that sentence, before their internal scores."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from semv._procedure_names import PROCEDURE_NAMES, PROCEDURE_SCOPES, opening_sentence
from semv.cli import app
from semv.procedures import procedure_names

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "lyon-flood"
runner = CliRunner()


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[str, str, str]]]:
    """procedure → (label, report.md, report.html) on the example case."""
    data_dir = tmp_path_factory.mktemp("scope")
    found: dict[str, tuple[str, str, str]] = {}
    for name in PROCEDURE_NAMES:
        result = runner.invoke(
            app, ["verify", str(EXAMPLE), "--procedure", name, "--data-dir", str(data_dir)]
        )
        assert result.exit_code == 0, result.stderr
        label = re.search(
            r"^lyon-flood: (\S+) \((?:uncalibrated score|calibrated probability) ",
            result.stdout,
            re.MULTILINE,
        )
        md = re.search(r"report: (\S+)", result.stdout)
        html = re.search(r"html: +(\S+)", result.stdout)
        assert label and md and html
        found[name] = (
            label.group(1),
            Path(md.group(1)).read_text(encoding="utf-8"),
            Path(html.group(1)).read_text(encoding="utf-8"),
        )
    yield found


def test_every_registered_procedure_has_a_scope() -> None:
    assert tuple(PROCEDURE_SCOPES) == PROCEDURE_NAMES == tuple(procedure_names())


@pytest.mark.parametrize("name", PROCEDURE_NAMES)
def test_report_opens_with_the_decision_and_the_blind_spot(
    name: str, reports: dict[str, tuple[str, str, str]]
) -> None:
    label, md, html = reports[name]
    scope = PROCEDURE_SCOPES[name]
    # the first paragraph after the "Verdict" heading is the sentence
    after = md.split("## Verdict: ", 1)[1].split("\n\n")
    assert after[0].startswith(label)
    sentence = after[1].replace("\\", "")
    assert re.match(
        rf"{re.escape(scope.title)} decided {label} \((uncalibrated score|calibrated probability) ",
        sentence,
    )
    assert scope.misses.split(",")[0] in sentence
    assert sentence.count(". ") == 0  # one sentence
    assert 'id="verdict-opening"' in html
    assert f"{scope.title} decided {label}" in html


@pytest.mark.parametrize("name", ["remmd", "mmd-agent", "t2-agent"])
def test_five_way_reports_lead_with_label_not_internal_scores(
    name: str, reports: dict[str, tuple[str, str, str]]
) -> None:
    label, md, html = reports[name]
    body = md.split("\n", 1)[1].lstrip()
    assert body.startswith(f"## Verdict: {label} (uncalibrated score ")
    assert md.index("decided") < md.index("L3 rationale") < md.index("## Final verification")
    assert html.index('id="verdict-opening"') < html.index("L3 rationale")


def test_t2_rationale_ends_each_subtask_once(reports: dict[str, tuple[str, str, str]]) -> None:
    _, md, _ = reports["t2-agent"]
    rationale = next(line for line in md.splitlines() if "L3 rationale" in line)
    assert ".." not in rationale.replace("…", "")
    assert re.search(r"\w\.\. ", rationale) is None


def test_opening_sentence_of_an_unknown_procedure_states_the_decision() -> None:
    assert (
        opening_sentence("other", "verified", 0.812)
        == "other decided verified (uncalibrated score 0.81)."
    )


def test_readme_states_each_procedure_scope_as_the_reports_do() -> None:
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    for name, scope in PROCEDURE_SCOPES.items():
        line = f"`{name}` ({scope.title}{', the default' if name == 'semv' else ''}) decides "
        assert f"{line}{scope.decides}; {scope.misses}." in readme, name
