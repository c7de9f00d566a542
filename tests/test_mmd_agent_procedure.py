"""MMD-Agent as a procedure: its offline stages on hand-made evidence, the end-to-end run on
the example (CLI, reports), and its LLM variant against the scripted server."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

from semv._api import load_cases
from semv.agents.llm import LlmAgents
from semv.config import Settings
from semv.dimensions import decompose_case
from semv.model import (
    REMMD_L1,
    Case,
    ContentCredentials,
    Context,
    Evidence,
    Exif,
    MediaLocation,
    Modality,
    Observation,
    ProducerKind,
    Provenance,
    SourceType,
    Stance,
    UncertaintyCode,
)
from semv.pipeline import RunOutcome, run_case
from semv.procedures import Findings, get_procedure, procedure_names
from semv.procedures._cues import claim_views
from semv.procedures.mmd_agent import Signal, combine_signals
from semv.procedures.mmd_agent._assess import (
    StageOutcome,
    cross_stage,
    image_stage,
    signal_of,
    text_stage,
)
from semv.store import Store
from tests.baseline_helpers import EXAMPLE, llm_settings, role_name, verify_example
from tests.llm_server import Reply, ScriptedServer, user_text

SETTINGS = Settings()
CFG = SETTINGS.baselines
OFFLINE = SETTINGS.offline

CASE = Case(
    id="bridge",
    claim="The Pont Neuf in Toulouse collapsed on 3 May 2023, killing 12 people.",
    context=Context(date="2023-05-03", location="Toulouse, France", language="en"),
)
VIEWS = claim_views(CASE, decompose_case(CASE))


def _text(ident: str, content: str, kind: SourceType = SourceType.NEWS, **extra: Any) -> Evidence:
    return Evidence(
        id=ident,
        source="example.org",
        source_type=kind,
        modality=Modality.TEXT,
        content=content,
        reliability=0.8,
        relevance=0.5,
        provenance=Provenance(producer=ProducerKind.USER, agent="test", method="hand-made"),
        **extra,
    )


def _meta(ident: str, data: Observation, kind: SourceType = SourceType.METADATA) -> Evidence:
    return Evidence(
        id=ident,
        source="exiftool",
        source_type=kind,
        modality=Modality.METADATA,
        content="metadata",
        reliability=0.9,
        relevance=0.5,
        location=MediaLocation(asset_id="asset:1"),
        observation=data,
        provenance=Provenance(producer=ProducerKind.TOOL, agent="test", method="hand-made"),
    )


# ---- offline stages on hand-made evidence ----------------------------------------------------


def test_signal_of_cue_masses() -> None:
    assert signal_of(0.0, 0.0, CFG) is Signal.MIXED
    assert signal_of(1.6, 0.0, CFG) is Signal.STRONG_SUPPORT
    assert signal_of(0.9, 0.0, CFG) is Signal.WEAK_SUPPORT  # one-sided but below the mass
    assert signal_of(0.5, 2.0, CFG) is Signal.STRONG_REFUTE  # balance exactly -0.6: inclusive
    assert signal_of(0.6, 2.0, CFG) is Signal.WEAK_REFUTE  # balance -0.54
    assert signal_of(0.0, 0.9, CFG) is Signal.WEAK_REFUTE  # one-sided, attack mass below 1.0
    assert signal_of(3.0, 2.0, CFG) is Signal.WEAK_SUPPORT  # balance exactly 0.2: inclusive
    assert signal_of(2.9, 2.0, CFG) is Signal.MIXED  # balance 0.18
    assert signal_of(1.0, 1.0, CFG) is Signal.MIXED


def test_text_stage_codes_follow_what_the_evidence_contradicts() -> None:
    other_day = _text(
        "ev:a", "The Pont Neuf in Toulouse partly collapsed on 9 May 2021; 12 people died."
    )
    outcome = text_stage(VIEWS, [other_day], CFG, OFFLINE)
    assert outcome.examined == ("ev:a",)
    assert any(c.dimension == "when" and c.stance.value == "att" for c in outcome.cues)
    assert "T3" in outcome.codes  # a true event placed at the wrong time
    other_toll = _text("ev:b", "The Pont Neuf in Toulouse collapsed on 3 May 2023; 2 people died.")
    numbers = text_stage(VIEWS, [other_toll], CFG, OFFLINE)
    assert "T2" in numbers.codes and "T3" not in numbers.codes
    # media-derived items and captions of the media are not world text
    caption = _text("ev:c", "A bridge.", SourceType.PRIOR_CAPTION)
    assert text_stage(VIEWS, [caption], CFG, OFFLINE).signal is Signal.UNKNOWN


def test_image_stage_reads_integrity_and_names_synthetic_or_edited() -> None:
    c2pa = _meta(
        "ev:c2pa:asset:1",
        ContentCredentials(
            validation_state="Valid",
            signer="Gen AI Inc",
            issuer="Gen AI CA",
            claim_generator="Gen AI 1.0",
            actions="c2pa.created",
            ai_generated=True,
            edited=False,
            hash_mismatch=False,
            trusted=False,
            failures="",
        ),
        SourceType.FORENSIC,
    )
    synthetic = image_stage(VIEWS, [c2pa], 1, CFG, OFFLINE)
    assert synthetic.codes == ("V1",) and synthetic.score is not None and synthetic.score < 0
    edited = image_stage(
        VIEWS, [_meta("ev:exif:asset:1", Exif(software="Adobe Photoshop 25.0"))], 1, CFG, OFFLINE
    )
    assert edited.codes == ("V2",) and edited.signal in (Signal.WEAK_REFUTE, Signal.STRONG_REFUTE)
    assert image_stage(VIEWS, [c2pa], 0, CFG, OFFLINE).signal is Signal.UNKNOWN  # no image


def test_cross_stage_flags_a_capture_from_another_time_and_place() -> None:
    exif = _meta(
        "ev:exif:asset:1",
        Exif(capture_time="2019-06-01T14:32:10+02:00", latitude=45.7629, longitude=4.8311),
    )
    outcome = cross_stage(VIEWS, [exif], 1, CFG, OFFLINE)
    assert outcome.codes == ("C2",)
    assert outcome.signal in (Signal.WEAK_REFUTE, Signal.STRONG_REFUTE)
    assert cross_stage(VIEWS, [exif], 0, CFG, OFFLINE).signal is Signal.UNKNOWN


# ---- the procedure end to end ----------------------------------------------------------------


def test_registered() -> None:
    assert "mmd-agent" in procedure_names()
    assert get_procedure("mmd-agent").verdict_node == "verdict"


def test_verify_example_with_the_mmd_agent_procedure_writes_a_report(tmp_path: Path) -> None:
    report, markdown = verify_example("mmd-agent", tmp_path / "d")
    assert report["format"] == "semv-labelled-report/1"
    assert [f["id"] for f in report["findings"]] == ["mmd:text", "mmd:image", "mmd:cross"]
    assert "(mmd-agent)" in markdown and "**L1 veracity:**" in markdown


def test_example_stages_follow_its_evidence_and_the_rule(data_dir: Path) -> None:
    _, cases = load_cases(EXAMPLE)
    store = Store(data_dir)
    outcome = asyncio.run(
        run_case(
            cases[0].case,
            store=store,
            settings=SETTINGS,
            agents=_offline(),
            contract="remmd",
            procedure="mmd-agent",
        )
    )
    stages = {k: n.value for k, n in outcome.nodes.items() if k.startswith("mmd:")}
    text, image, cross = (stages[f"mmd:{s}"] for s in ("text", "image", "cross"))
    assert isinstance(text, StageOutcome) and isinstance(image, StageOutcome)
    assert isinstance(cross, StageOutcome)
    # the photo's EXIF: a Canon camera and no editor, which neither supports (EXIF is not bound
    # to the pixels: the authenticity rule) nor attacks the image: mixed, no V code;
    # capture in Lyon in June 2019 against the claimed Paris, March 2024 (C2); the two supplied
    # reports restate the claimed event, so the cross stage is not supported (mixed since the
    # dev-fitted recontext phrases left the why rule)
    assert image.signal is Signal.MIXED and image.codes == ()
    assert cross.signal in (Signal.MIXED, Signal.WEAK_REFUTE, Signal.STRONG_REFUTE)
    assert "C2" in cross.codes
    assert any(c.stance is Stance.ATTACK and c.dimension == "when" for c in cross.cues)
    rule = combine_signals(text.signal, image.signal, cross.signal, CFG)
    result = outcome.result
    assert result.procedure == "mmd-agent"
    assert result.label == result.veracity == rule.label and result.label in REMMD_L1
    assert "C2 Contextual Inconsistency" in result.distortions
    findings = outcome.nodes["findings"].value
    assert isinstance(findings, Findings)
    assert "ev:exif:asset:1" in findings.items[2].evidence
    assert {e.id for e in findings.evidence} >= set(findings.items[2].evidence)


def test_a_text_only_post_is_judged_by_its_text_stage_alone(data_dir: Path) -> None:
    _, cases = load_cases(EXAMPLE, text_only=True)
    outcome = asyncio.run(
        run_case(
            cases[0].case,
            store=Store(data_dir),
            settings=SETTINGS,
            agents=_offline(),
            contract="internal",
            procedure="mmd-agent",
        )
    )
    image, cross = outcome.nodes["mmd:image"].value, outcome.nodes["mmd:cross"].value
    assert isinstance(image, StageOutcome) and isinstance(cross, StageOutcome)
    assert image.signal is cross.signal is Signal.UNKNOWN
    assert "known stages" in outcome.verdict.rule  # the cascade's unknown-stage branch
    assert outcome.result.veracity in REMMD_L1


def _offline() -> Any:
    from semv.agents.offline import OfflineAgents

    return OfflineAgents(SETTINGS)


# ---- the LLM variant -------------------------------------------------------------------------


def _run_llm(url: str, data_dir: Path) -> RunOutcome:
    settings = llm_settings(url)
    _, cases = load_cases(EXAMPLE)
    store = Store(data_dir)
    try:
        return asyncio.run(
            run_case(
                cases[0].case,
                store=store,
                settings=settings,
                agents=LlmAgents(settings, store=store),
                contract="remmd",
                procedure="mmd-agent",
            )
        )
    finally:
        store.close()


def _stage_script(signal: dict[str, str], broken: str = "") -> Any:
    from tests.llm_server import competent

    def script(role: str, body: dict[str, Any], _n: int) -> Reply:
        name = role_name(body, role)
        if name.startswith("mmd-"):
            stage = name.removeprefix("mmd-")
            if stage == broken:
                return Reply("{not json")
            assert '<untrusted kind="post"' in user_text(body)
            codes = {"text": ["T1"], "image": [], "cross": ["C3"]}[stage]
            return Reply(
                json.dumps({"signal": signal[stage], "distortions": codes, "rationale": "ok"})
            )
        return Reply(json.dumps(competent(role, body)))

    return script


def test_the_model_answers_each_stage_and_the_rule_combines_them(data_dir: Path) -> None:
    signals = {"text": "STRONG_REFUTE", "image": "WEAK_REFUTE", "cross": "WEAK_REFUTE"}
    with ScriptedServer(_stage_script(signals)) as server:
        outcome = _run_llm(server.url, data_dir)
    stages = [outcome.nodes[f"mmd:{s}"].value for s in ("text", "image", "cross")]
    assert [s.backend for s in stages] == ["llm"] * 3  # type: ignore[attr-defined]
    assert outcome.result.veracity == "False"  # rule 3: text -2, image and cross <= -1
    assert outcome.result.distortions == ("T1 Fabrication", "C3 Pragmatic Inconsistency")


def test_an_unusable_stage_answer_falls_back_to_the_offline_stage(data_dir: Path) -> None:
    signals = {"text": "STRONG_SUPPORT", "image": "STRONG_SUPPORT", "cross": "STRONG_SUPPORT"}
    with ScriptedServer(_stage_script(signals, broken="cross")) as server:
        outcome = _run_llm(server.url, data_dir)
    cross = outcome.nodes["mmd:cross"].value
    assert isinstance(cross, StageOutcome)
    assert cross.backend == "offline (model fallback)"
    assert cross.signal in (Signal.WEAK_REFUTE, Signal.STRONG_REFUTE)  # the offline reading
    assert UncertaintyCode.MODEL_FALLBACK in {u.code for u in outcome.verdict.uncertainty}
    assert outcome.nodes["mmd:text"].value.backend == "llm"  # type: ignore[attr-defined]


def test_supplied_text_is_fenced_as_data_in_the_stage_prompts(data_dir: Path) -> None:
    seen: list[str] = []
    signals = {"text": "MIXED", "image": "MIXED", "cross": "MIXED"}
    inner = _stage_script(signals)

    def script(role: str, body: dict[str, Any], n: int) -> Reply:
        text = user_text(body)
        if "Stage 1 of 3" in text:
            seen.append(text)
        return inner(role, body, n)  # type: ignore[no-any-return]

    with ScriptedServer(script) as server:
        _run_llm(server.url, data_dir)
    assert seen, "the text stage was never asked"
    # every evidence text sits inside its own untrusted block
    assert '<untrusted kind="evidence" id="ev:sup:factcheck-lyon-2019">' in seen[0]
    outside = re.sub(r"<untrusted [^>]*>.*?</untrusted>", "", seen[0], flags=re.S)
    assert "Lyon" not in outside and "Seine" not in outside


# ---- contestation ----------------------------------------------------------------------------


def test_a_rejected_evidence_item_leaves_the_revised_stages(data_dir: Path) -> None:
    from semv.contest import revise
    from semv.contest._state import load_state
    from semv.model import Reject

    _, cases = load_cases(EXAMPLE)
    store = Store(data_dir)
    first = asyncio.run(
        run_case(
            cases[0].case,
            store=store,
            settings=SETTINGS,
            agents=_offline(),
            contract="remmd",
            procedure="mmd-agent",
        )
    )
    gone = "ev:sup:factcheck-lyon-2019"
    before = first.nodes["mmd:text"].value
    assert isinstance(before, StageOutcome) and gone in before.examined
    revision = asyncio.run(
        revise(
            store,
            first.result.run_id,
            [Reject(target=gone, reason="the fact-check is disputed")],
            settings=SETTINGS,
            agents=_offline(),
        )
    )
    state = load_state(store, revision.run_id)
    assert state.procedure.name == "mmd-agent"
    for key in ("mmd:text", "mmd:cross"):
        after = state.value(key, StageOutcome)
        assert gone not in after.examined
        assert all(gone not in c.evidence for c in after.cues)
    findings = state.value("findings", Findings)
    assert gone not in {e.id for e in findings.evidence}
