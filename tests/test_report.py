"""Report rendering: section layout, numbers, links, escaping, determinism."""

from __future__ import annotations

import json
import re

import pytest

from semv.model import (
    AggregationRule,
    Argument,
    Asset,
    Band,
    CalibratedProbability,
    Case,
    ClashRecord,
    Context,
    Dimension,
    Evidence,
    Exif,
    InternalLabel,
    MediaKind,
    MediaLocation,
    Modality,
    Origin,
    ProducerKind,
    Provenance,
    Qbaf,
    Result,
    SourceType,
    Stage,
    Stance,
    Subclaim,
    SubclaimDecision,
    SuppliedEvidence,
    UncertaintyCode,
    UncertaintyItem,
    Verdict,
)
from semv.report import SECTION_ORDER, ReportContext, build_view, render_report

SHA = "ab" * 32

MD_HEADINGS = (
    "## Verdict: false-context (uncalibrated score 0.68)",
    "## Final verification status",
    "## Where",
    "## When",
    "## Who",
    "## Why",
    "## Forensic analysis",
    "## Other evidence",
    "## Case summary",
    "## Source",
    "## Glossary",
)
"""Verdict first: the summary and the final status, the MV2026 dimension sections,
then the case's media and provenance, the sources and the glossary."""


def _evidence() -> tuple[Evidence, ...]:
    return (
        Evidence(
            id="ev:exif:asset:1",
            source="exiftool",
            source_type=SourceType.METADATA,
            modality=Modality.METADATA,
            content="Metadata: captured 2019-06-01T14:32:10+02:00; GPS 45.764000, 4.835700.",
            observation=Exif(capture_time="2019-06-01T14:32:10+02:00", timezone_known=True),
            reliability=0.9,
            location=MediaLocation(asset_id="asset:1"),
            provenance=Provenance(
                producer=ProducerKind.TOOL,
                agent="exiftool",
                tool_version="12.57",
                method="EXIF/XMP/QuickTime tags: EXIF:DateTimeOriginal",
                derived_from=("asset:1",),
            ),
        ),
        Evidence(
            id="ev:sup:1",
            source="Example News",
            source_type=SourceType.SUPPLIED,
            modality=Modality.TEXT,
            content="Heavy rain raised the Seine in Paris on 14 March 2024.",
            reliability=0.7,
            provenance=Provenance(producer=ProducerKind.USER, agent="case.yaml", method="supplied"),
            url="https://news.example.org/2024/03/14/seine-rises",
            title="Seine rises after heavy rain",
            published="2024-03-14",
        ),
        Evidence(
            id="ev:sup:2",
            source="Example Fact Check",
            source_type=SourceType.SUPPLIED,
            modality=Modality.TEXT,
            content="The photo shows Lyon in June 2019.",
            reliability=0.8,
            provenance=Provenance(producer=ProducerKind.USER, agent="case.yaml"),
            url="javascript:alert(1)",
            published="2024-03-15",
        ),
        Evidence(
            id="ev:web:3f2a",
            source="Uncited Blog",
            source_type=SourceType.WEB,
            modality=Modality.TEXT,
            content="An unrelated post about river cruises.",
            reliability=0.4,
            url="https://blog.example.org/cruises",
        ),
    )


def _argument(dimension: str, stance: Stance, n: int, strength: float, **kw: object) -> Argument:
    return Argument.model_validate(
        {
            "id": f"arg:{dimension}:{stance.value}:{n}",
            "subclaim": f"claim:{dimension}",
            "stance": stance,
            "text": kw.pop("text", f"{dimension} {stance.value} argument {n}"),
            "evidence": kw.pop("evidence", ("ev:sup:1",)),
            "verified": kw.pop("verified", True),
            "admissible": True,
            "strength": strength,
            "origin": Origin(kind="agent", name="offline/proponent"),
            **kw,
        }
    )


def _context(claim: str = "Flooding in Paris on 14 March 2024.") -> ReportContext:
    dims = [d.value for d in Dimension]
    subclaims = {
        d: Subclaim(
            id=f"claim:{d}",
            dimension=Dimension(d),
            statement=f"The {d} statement of the claim.",
            claim_type=d,
            asserted=d != "who",
        )
        for d in dims
    }
    arguments: dict[str, tuple[Argument, ...]] = {d: () for d in dims}
    arguments["where"] = (
        _argument("where", Stance.SUPPORT, 1, 0.41),
        _argument("where", Stance.SUPPORT, 2, 0.52),
        _argument("where", Stance.SUPPORT, 3, 0.2),
        _argument("where", Stance.SUPPORT, 4, 0.35),
        _argument(
            "where",
            Stance.ATTACK,
            1,
            0.7777,
            text="GPS places the photo in Lyon, 390 km from Paris.",
            evidence=("ev:exif:asset:1", "ev:sup:2", "ev:missing:9"),
        ),
        _argument("where", Stance.NEUTRAL, 1, 0.1),
    )
    arguments["when"] = (
        _argument("when", Stance.ATTACK, 1, 0.66, evidence=("ev:exif:asset:1",)),
        _argument("when", Stance.SUPPORT, 1, 0.61, verified=False),
    )
    qbafs = {
        d: Qbaf(
            subclaim=f"claim:{d}",
            base=0.5,
            arguments={a.id: a.strength for a in arguments[d]},
            edges=(),
            support_total=0.4,
            attack_total=0.6,
            delta=-0.2,
            score=0.2345 if d == "where" else 0.5,
            clash=(
                ClashRecord(
                    support="arg:when:sup:1",
                    attack="arg:when:att:1",
                    support_strength=0.61,
                    attack_strength=0.66,
                    reduced={"arg:when:sup:1": 0.305, "arg:when:att:1": 0.33},
                )
                if d == "when"
                else None
            ),
        )
        for d in dims
    }
    decisions = tuple(
        SubclaimDecision(
            subclaim=f"claim:{d}",
            dimension=Dimension(d),
            score=qbafs[d].score,
            band=Band.REFUTED if d == "where" else Band.UNCERTAIN,
            support_total=0.4,
            attack_total=0.6,
            clash=d == "when",
        )
        for d in dims
    )
    verdict = Verdict(
        label="false-context",
        internal_label=InternalLabel.FALSE_CONTEXT,
        rule="rule 2: context refuted with supported content",
        probabilities={"verified": 0.05, "false-context": 0.71, "uncertain": 0.24},
        confidence=0.6789,
        mean_score=0.41,
        decisions=decisions,
        uncertainty=(
            UncertaintyItem(code=UncertaintyCode.NEUTRAL_BAND, subject="case", detail="close call"),
        ),
    )
    case = Case(
        id="lyon-flood",
        claim=claim,
        media=(
            Asset(
                id="asset:1",
                path="/data/cases/lyon-flood/photo.jpg",
                kind=MediaKind.IMAGE,
                sha256=SHA,
            ),
        ),
        context=Context(
            date="2024-03-14",
            location="Paris, France",
            source_url="https://social.example.org/posts/48213",
            language="en",
        ),
        evidence=(SuppliedEvidence(id="sup-1", text="Heavy rain raised the Seine."),),
    )
    uncertainty = (
        UncertaintyItem(
            code=UncertaintyCode.GPS_INVALID,
            subject="arg:where:att:1",
            detail="second GPS block ignored",
            stages=(Stage.ARGUE,),
        ),
        UncertaintyItem(code=UncertaintyCode.NO_EVIDENCE, subject="claim:who", detail="no names"),
        UncertaintyItem(code=UncertaintyCode.TOOL_MISSING, subject="asset:1", detail="no OCR"),
        UncertaintyItem(code=UncertaintyCode.RETRIEVAL_GAP, subject="web", detail="offline"),
    )
    return ReportContext(
        case=case,
        verdict=verdict,
        subclaims=subclaims,
        arguments=arguments,
        qbafs=qbafs,
        evidence=_evidence(),
        uncertainty=uncertainty,
    )


def _md_section(markdown: str, heading: str) -> str:
    start = markdown.index(f"\n{heading}\n")
    end = markdown.find("\n## ", start + 1)
    return markdown[start : end if end != -1 else None]


def _html_section(html: str, key: str) -> str:
    start = html.index(f'<section id="{key}">')
    return html[start : html.index("</section>", start)]


def test_markdown_headings_in_mv2026_order() -> None:
    markdown = render_report(_context()).markdown
    positions = [markdown.index(f"\n{h}\n") for h in MD_HEADINGS]
    assert positions == sorted(positions)
    assert markdown.startswith("# Verification report: lyon-flood\n")


def test_html_sections_in_order_and_self_contained() -> None:
    html = render_report(_context()).html
    positions = [html.index(f'<section id="{key}">') for key in SECTION_ORDER]
    assert positions == sorted(positions)
    assert "<style>" in html
    assert not re.search(r"<(script|link)\b", html)
    assert not re.search(r"""src=["']https?:""", html)


def test_case_summary_lists_media_hash_and_context() -> None:
    section = _md_section(render_report(_context()).markdown, "## Case summary")
    assert "Flooding in Paris on 14 March 2024." in section
    assert f"SHA-256 `{SHA}`" in section
    assert "photo.jpg" in section and "/data/cases" not in section
    assert "Date: 2024-03-14" in section
    assert "Location: Paris, France" in section
    assert "[https://social.example.org/posts/48213](<https://social.example.org/posts/48213>)" in (
        section
    )


def test_source_section_lists_supplied_evidence_with_provenance() -> None:
    section = _md_section(render_report(_context()).markdown, "## Source")
    assert "`ev:sup:1` Example News" in section
    assert "[Seine rises after heavy rain](<https://news.example.org/2024/03/14/seine-rises>)" in (
        section
    )
    assert "published 2024-03-14" in section
    assert "Provenance: user: case.yaml; supplied" in section
    assert "`ev:exif:asset:1`" not in section


def test_dimension_section_scores_top_arguments_and_cited_evidence() -> None:
    section = _md_section(render_report(_context()).markdown, "## Where")
    assert "**Subclaim** (`claim:where`): The where statement of the claim." in section
    assert "**Score ψ:** 0.234 · **Band:** refuted" in section
    support = section[section.index("### Supporting") : section.index("### Attacking")]
    # top 3 by strength, strongest first; the fourth-strongest (0.20) is left out
    ids = re.findall(r"`(arg:where:sup:\d)`", support)
    assert ids == ["arg:where:sup:2", "arg:where:sup:1", "arg:where:sup:4"]
    assert "strength 0.520, verified" in support
    attack = section[section.index("### Attacking") :]
    assert (
        "`arg:where:att:1` — strength 0.778, verified, about the event: GPS places the photo "
        "in Lyon"
    ) in attack
    assert "`ev:exif:asset:1` exiftool" in attack
    assert "`ev:missing:9` (not found among the case evidence)" in attack
    assert "2 more argument(s) not shown" in section
    assert "`gps-invalid` (arg:where:att:1): second GPS block ignored" in section


def test_unsafe_urls_are_never_links() -> None:
    rendered = render_report(_context())
    assert 'href="javascript' not in rendered.html
    assert '<span class="url">javascript:alert(1)</span>' in rendered.html  # shown as text
    assert "](<javascript" not in rendered.markdown
    assert '<a href="https://news.example.org/2024/03/14/seine-rises"' in rendered.html


def test_clash_note_and_unverified_flag() -> None:
    rendered = render_report(_context())
    section = _md_section(rendered.markdown, "## When")
    assert "> **Clash:** support `arg:when:sup:1` (0.610) and attack `arg:when:att:1` (0.660)" in (
        section
    )
    assert "`arg:when:att:1` 0.330, `arg:when:sup:1` 0.305" in section
    assert "strength 0.610, not verified" in section
    assert 'class="clash"' in _html_section(rendered.html, "when")
    assert "Clash" not in _md_section(rendered.markdown, "## Where")


def test_uncertainty_notes_go_to_their_sections() -> None:
    markdown = render_report(_context()).markdown
    assert "`no-evidence` (claim:who): no names" in _md_section(markdown, "## Who")
    assert "no names" not in _md_section(markdown, "## Where")
    forensic = _md_section(markdown, "## Forensic analysis")
    assert "`tool-missing` (asset:1): no OCR" in forensic
    final = _md_section(markdown, "## Final verification status")
    assert "`neutral-band` (case): close call" in final
    assert "`retrieval-gap` (web): offline" in final  # not shown elsewhere
    assert "no OCR" not in final


def test_forensic_and_other_evidence_sections() -> None:
    markdown = render_report(_context()).markdown
    forensic = _md_section(markdown, "## Forensic analysis")
    assert "**Subclaim** (`claim:authenticity`)" in forensic
    assert "### Metadata and forensic evidence" in forensic
    assert "`ev:exif:asset:1` exiftool, reliability 0.90" in forensic
    assert "Provenance: tool: exiftool 12.57; EXIF/XMP/QuickTime tags" in forensic
    other = _md_section(markdown, "## Other evidence")
    assert "**Subclaim** (`claim:what`)" in other
    assert "### Evidence not cited by any argument" in other
    assert "`ev:web:3f2a` Uncited Blog" in other
    assert "[https://blog.example.org/cruises](<https://blog.example.org/cruises>)" in other
    assert "ev:sup:1" not in other  # cited by where arguments
    assert "ev:exif" not in other  # shown under forensic analysis


def test_final_status_numbers() -> None:
    final = _md_section(render_report(_context()).markdown, "## Final verification status")
    assert "**Label:** false-context" in final
    assert "**Internal label:** false-context" in final
    assert "**Confidence γ (Eq. 19, uncalibrated score):** 0.679" in final
    assert "**Aggregation rule:** rule 2: context refuted with supported content" in final
    probabilities = re.findall(r"^- ([a-z\-]+): (\d\.\d{3})$", final, flags=re.MULTILINE)
    assert probabilities == [
        ("false-context", "0.710"),
        ("uncertain", "0.240"),
        ("verified", "0.050"),
    ]
    assert (
        "| where | `claim:where` The where statement of the claim. | 0.234 | refuted | no |"
        in final
    )


def test_html_escapes_untrusted_claim() -> None:
    claim = 'Flood <script>alert("x")</script> & <img src=x onerror=alert(1)>'
    rendered = render_report(_context(claim))
    assert "<script>" not in rendered.html
    assert "<img src=x" not in rendered.html
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &lt;img src=x" in rendered.html
    assert "<script>" not in rendered.markdown
    assert r"\<script\>" in rendered.markdown
    assert json.loads(rendered.json_report)["case_summary"]["claim"] == claim


def test_markdown_text_cannot_break_the_layout() -> None:
    claim = "Line one\n## Fake heading\n| a | b |"
    markdown = render_report(_context(claim)).markdown
    assert "\n## Fake heading" not in markdown
    assert r"Line one \#\# Fake heading \| a \| b \|" in markdown


def test_json_report_is_sorted_and_has_every_section() -> None:
    text = render_report(_context()).json_report
    document = json.loads(text)
    assert document["section_order"] == list(SECTION_ORDER)
    assert set(SECTION_ORDER) <= set(document)
    assert text == json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    where = document["where"]
    assert where["score"] == pytest.approx(0.2345)
    assert [a["id"] for a in where["attack"]] == ["arg:where:att:1"]
    assert where["attack"][0]["evidence"][0]["id"] == "ev:exif:asset:1"
    assert document["final_status"]["rule"].startswith("rule 2")
    assert document["when"]["clash"]["attack"] == "arg:when:att:1"


def test_output_is_deterministic_and_has_no_timestamps() -> None:
    first = render_report(_context())
    second = render_report(_context())
    assert first == second
    for text in (first.markdown, first.html, first.json_report):
        assert not re.search(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?!\+02:00)", text)


def test_missing_subclaim_and_qbaf_render_as_not_available() -> None:
    ctx = _context()
    ctx = ctx.model_copy(
        update={
            "subclaims": {k: v for k, v in ctx.subclaims.items() if k != "why"},
            "qbafs": {k: v for k, v in ctx.qbafs.items() if k != "why"},
            "arguments": {k: v for k, v in ctx.arguments.items() if k != "why"},
            "verdict": ctx.verdict.model_copy(
                update={
                    "decisions": tuple(d for d in ctx.verdict.decisions if d.dimension != "why")
                }
            ),
        }
    )
    section = _md_section(render_report(ctx).markdown, "## Why")
    assert "**Subclaim:** none for this dimension." in section
    assert "**Score ψ:** n/a · **Band:** n/a" in section
    assert build_view(ctx).why.support == ()


def test_case_evidence_is_listed_when_no_supplied_items_were_normalized() -> None:
    ctx = _context()
    ctx = ctx.model_copy(update={"evidence": (_evidence()[0],)})
    section = _md_section(render_report(ctx).markdown, "## Source")
    assert "`sup-1`" in section
    assert "Provenance: supplied with the case" in section


def test_the_number_next_to_a_label_is_named_calibrated_or_uncalibrated() -> None:
    """A calibrated probability is shown for the label it belongs to (its complement for the
    other label of a binary contract); without a calibration the confidence γ is shown and
    called an uncalibrated score, never a probability."""
    cal = CalibratedProbability(label="OOC", probability=0.8, calibration="cosmos@abc")
    probs = {"OOC": 0.55, "NOOC": 0.45}
    ooc = Result.model_construct(
        label="OOC", probabilities=probs, confidence=0.55, calibrated_probability=cal
    )
    nooc = Result.model_construct(
        label="NOOC", probabilities=probs, confidence=0.55, calibrated_probability=cal
    )
    bare = Result.model_construct(
        label="verified",
        probabilities={"verified": 0.65},
        confidence=0.65,
        calibrated_probability=None,
    )
    assert ooc.shown == "calibrated probability 0.80"
    assert nooc.shown == "calibrated probability 0.20"
    assert bare.shown == "uncalibrated score 0.65"
    summary = build_view(_context()).summary
    assert summary is not None and summary.shown_kind == "uncalibrated score"
    assert summary.shown == summary.confidence


def test_the_summary_takes_the_rule_number_from_the_verdict_not_its_sentence() -> None:
    ctx = _context()
    # semv's verdict carries its rule as a structured value: number 2 and its sentence
    fired = AggregationRule(number=2, sentence="where is refuted while what is supported.")
    semv_verdict = ctx.verdict.model_copy(update={"rule": fired.text, "aggregation_rule": fired})
    summary = build_view(ctx.model_copy(update={"verdict": semv_verdict})).summary
    assert summary is not None
    assert (summary.rule_number, summary.reason) == (
        2,
        fired.sentence[:1].upper() + fired.sentence[1:],
    )
    assert [d.dimension for d in summary.deciding] == [Dimension.WHAT, Dimension.WHERE]
    # another procedure's rule text that merely starts like one of semv's is not read as one
    other = ctx.verdict.model_copy(update={"rule": "Rule 3: a baseline's own words"})
    summary = build_view(ctx.model_copy(update={"verdict": other})).summary
    assert summary is not None
    assert (summary.rule_number, summary.deciding) == (None, ())
    assert summary.reason == "Rule 3: a baseline's own words"
