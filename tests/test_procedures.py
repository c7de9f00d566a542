"""The procedures registry: lookup, the default procedure's unchanged contract, and a 5-way
procedure's verdict, result, report and trace through the shared machinery."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import semv.procedures as procedures
from semv.cli import app
from semv.config import Settings
from semv.errors import InputError
from semv.graph import Input, NodeSpec, StageContext, StageDef
from semv.model import (
    REMMD_L1,
    Bundle,
    Case,
    InternalLabel,
    SourceType,
    SuppliedEvidence,
    TraceKind,
    Verdict,
)
from semv.pipeline import run_case
from semv.procedures import (
    RENDER_STAGE,
    Finding,
    Findings,
    Procedure,
    internal_for_veracity,
    labelled_procedure,
    labelled_verdict,
)
from semv.stages import CASE_SOURCE
from semv.stages import bundle as bundle_stage
from semv.store import Store
from tests.scripted_agents import ScriptedAgents

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "lyon-flood"


def test_an_unknown_procedure_names_the_valid_ones() -> None:
    with pytest.raises(InputError, match="unknown procedure 'nope'; valid procedures: semv"):
        procedures.get_procedure("nope")
    assert procedures.procedure_names()[0] == "semv"


def test_the_cli_refuses_an_unknown_procedure_before_running(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["verify", str(EXAMPLE), "--procedure", "nope", "--data-dir", str(tmp_path / "d")]
    )
    assert result.exit_code == 2
    assert "valid procedures: semv" in result.output
    assert not (tmp_path / "d" / "reports").exists()


@pytest.mark.parametrize(
    ("l1", "l2", "internal"),
    [
        ("True", (), InternalLabel.VERIFIED),
        ("Mostly True", (), InternalLabel.MOSTLY_VERIFIED),
        ("Mixture", (), InternalLabel.PARTIALLY_VERIFIED),
        ("Mostly False", ("T3 Misleading Context",), InternalLabel.FALSE_CONTEXT),
        ("False", ("T1 Fabrication",), InternalLabel.FALSE_CONTEXT),
        ("False", ("V2 Visual Editing",), InternalLabel.MANIPULATED_OR_SYNTHETIC),
        ("False", ("V1 Synthetic Visual Content",), InternalLabel.MANIPULATED_OR_SYNTHETIC),
        ("Mostly False", ("V2 Visual Editing",), InternalLabel.FALSE_CONTEXT),
    ],
)
def test_internal_label_of_an_l1_decision(
    l1: str, l2: tuple[str, ...], internal: InternalLabel
) -> None:
    assert internal_for_veracity(l1, l2) is internal


def test_a_labelled_verdict_under_each_contract() -> None:
    common: dict[str, Any] = {
        "veracity": "False",
        "distortions": ("V2 Visual Editing", "C2 Contextual Inconsistency"),
        "rationale": "edited",
        "confidence": 0.8,
        "score": 0.1,
        "rule": "test",
    }
    remmd = labelled_verdict(contract="remmd", **common)
    assert remmd.label == "False"
    assert set(remmd.probabilities) == set(REMMD_L1)
    assert remmd.probabilities["False"] == pytest.approx(0.8)
    assert sum(remmd.probabilities.values()) == pytest.approx(1.0)
    assert remmd.distortions == ("V2 Visual Editing", "C2 Contextual Inconsistency")
    internal = labelled_verdict(contract="internal", **common)
    assert internal.label == "manipulated-or-synthetic"
    assert max(internal.probabilities, key=internal.probabilities.__getitem__) == internal.label
    cosmos = labelled_verdict(contract="cosmos", **{**common, "distortions": ()})
    assert cosmos.label == "OOC"
    with pytest.raises(ValueError, match="unknown L2"):
        labelled_verdict(contract="remmd", **{**common, "distortions": ("T9 Nonsense",)})
    with pytest.raises(ValueError, match="not an L1 label"):
        labelled_verdict(contract="remmd", **{**common, "veracity": "Pants on Fire"})


# ---- a small 5-way procedure through run_case ------------------------------------------------


async def _sentences(ctx: StageContext, *, bundle: Bundle) -> Findings:
    """One finding per sentence of the claim; a sentence is contradicted when a supplied
    evidence text contains 'not' followed by one of its words (a toy but real rule)."""
    rows = []
    for n, sentence in enumerate(s.strip() for s in bundle.case.claim.split(".") if s.strip()):
        words = {w.lower() for w in sentence.split()}
        against = [
            e.id for e in bundle.supplied if any(f"not {w}" in e.content.lower() for w in words)
        ]
        rows.append(
            Finding(
                id=f"p{n}",
                kind="sentence-level claim",
                text=sentence,
                state="contradicted" if against else "unverified",
                evidence=tuple(against),
            )
        )
    return Findings(items=tuple(rows), evidence=bundle.supplied)


async def _decide(ctx: StageContext, *, findings: Findings) -> Verdict:
    contradicted = sum(f.state == "contradicted" for f in findings.items)
    return labelled_verdict(
        veracity="Mostly False" if contradicted else "Mixture",
        distortions=("T3 Misleading Context",) if contradicted else (),
        rationale=f"{contradicted} of {len(findings.items)} sentences contradicted",
        confidence=0.7,
        score=0.3,
        contract=str(ctx.params["contract"]),
        rule="toy",
    )


_FINDINGS = StageDef(name="toy-findings", version="1", fn=_sentences, output=Findings)
_DECIDE = StageDef(name="toy-decide", version="1", fn=_decide, output=Verdict)


def _toy_graph(
    case: Case,
    *,
    contract: str,
    memory: bool = False,
    retrieval: Any = None,
    rejected: Mapping[str, Sequence[str]] | None = None,
) -> list[NodeSpec]:
    return [
        NodeSpec("bundle", bundle_stage.STAGE, (Input("case", CASE_SOURCE),)),
        NodeSpec("findings", _FINDINGS, (Input("bundle", "bundle"),)),
        NodeSpec(
            "verdict", _DECIDE, (Input("findings", "findings"),), params={"contract": contract}
        ),
        NodeSpec(
            "render",
            RENDER_STAGE,
            (
                Input("bundle", "bundle"),
                Input("verdict", "verdict"),
                Input("findings", "findings"),
                Input("media", ()),
            ),
            params={"procedure": "toy"},
        ),
    ]


TOY: Procedure = labelled_procedure("toy", "a test procedure", _toy_graph)

CASE = Case(
    id="toy-1",
    claim="Flooding in Paris <script>alert(1)</script>. The river rose two metres.",
    evidence=(
        SuppliedEvidence(
            id="fc",
            text="The photo is not Paris: it shows Lyon in 2019.",
            source_type=SourceType.FACT_CHECK,
        ),
    ),
)


def test_a_five_way_procedure_runs_on_the_shared_machinery(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(procedures, "_ALL", (procedures.SEMV, TOY))
    store = Store(data_dir)
    outcome = asyncio.run(
        run_case(
            CASE,
            store=store,
            settings=Settings(),
            agents=ScriptedAgents({}),
            contract="remmd",
            procedure="toy",
        )
    )
    result = outcome.result
    assert result.procedure == "toy"
    assert (result.label, result.veracity) == ("Mostly False", "Mostly False")
    assert result.distortions == ("T3 Misleading Context",)
    assert [s.decision for s in result.subclaims] == ["contradicted", "unverified"]
    assert result.subclaims[0].dimension == "sentence-level claim"
    assert [e.id for e in result.evidence] == ["ev:sup:fc"]
    data = json.loads(result.model_dump_json())
    assert data["procedure"] == "toy" and data["veracity"] == "Mostly False"
    started = next(e for e in store.trace(result.run_id) if e.kind is TraceKind.RUN_STARTED)
    assert started.payload["procedure"] == "toy"
    html = Path(result.report_paths["html"]).read_text(encoding="utf-8")
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    markdown = Path(result.report_paths["markdown"]).read_text(encoding="utf-8")
    assert "**L1 veracity:** Mostly False" in markdown
    report = json.loads(Path(result.report_paths["json"]).read_text(encoding="utf-8"))
    assert report["format"] == "semv-labelled-report/1"
    assert report["findings"][0]["evidence"][0]["id"] == "ev:sup:fc"
    record = store.get_run(result.run_id)
    assert record.label == "Mostly False"


def test_the_default_procedure_keeps_the_json_contract(data_dir: Path) -> None:
    store = Store(data_dir)
    outcome = asyncio.run(
        run_case(
            CASE, store=store, settings=Settings(), agents=ScriptedAgents({}), contract="internal"
        )
    )
    data = json.loads(outcome.result.model_dump_json())
    for key in ("procedure", "veracity", "distortions", "rationale"):
        assert key not in data
    started = next(e for e in store.trace(data["run_id"]) if e.kind is TraceKind.RUN_STARTED)
    assert "procedure" not in started.payload
