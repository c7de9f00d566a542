"""The ``describe`` role (offline) and the media stage's lazy imports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from semv.agents import DescribeInput
from semv.agents.offline._describe import describe_asset
from semv.config import OfflineAgentConfig
from semv.dimensions import ClaimView, rule_for
from semv.model import (
    Asset,
    ColourShare,
    Dimension,
    Evidence,
    Exif,
    MediaKind,
    MediaLocation,
    Modality,
    Observation,
    OcrText,
    ProducerKind,
    Provenance,
    SourceType,
    Subclaim,
    VisualFeatures,
)

ROOT = Path(__file__).resolve().parents[1]


def _ev(id_: str, content: str, data: Observation, modality: Modality) -> Evidence:
    return Evidence(
        id=id_,
        source="test",
        source_type=SourceType.METADATA if modality is Modality.METADATA else SourceType.OTHER,
        modality=modality,
        content=content,
        observation=data,
        reliability=0.6,
        location=MediaLocation(asset_id="asset:1"),
        provenance=Provenance(producer=ProducerKind.TOOL, agent="test"),
    )


EVIDENCE = (
    _ev(
        "ev:exif:asset:1",
        "Metadata: ...",
        Exif(
            capture_time="2024-03-12T10:00:00+01:00",
            make="Canon",
            model="EOS 7D",
            latitude=45.76,
            longitude=4.83,
        ),
        Modality.METADATA,
    ),
    _ev(
        "ev:visual:asset:1",
        "Visual features ...",
        VisualFeatures(
            scene_type="outdoor scene (sky or vegetation)",
            dominant_colours=(
                ColourShare(colour="sky blue", share=0.5),
                ColourShare(colour="grey", share=0.3),
            ),
            brightness=0.6,
            colourfulness=0.3,
            edge_density=0.1,
            sky_share_top=0.5,
            vegetation_share=0.1,
            neutral_share=0.3,
        ),
        Modality.IMAGE,
    ),
    _ev(
        "ev:ocr:asset:1",
        "RUE DE LA REPUBLIQUE\nFERME",
        OcrText(lines=(), languages=("en", "fr")),
        Modality.IMAGE,
    ),
)


def test_offline_description_assembles_the_observations() -> None:
    asset = Asset(id="asset:1", path="/x/photo.jpg", kind=MediaKind.IMAGE)
    out = describe_asset(DescribeInput(asset=asset, evidence=EVIDENCE))
    assert out.observations["scene_type"] == "outdoor scene (sky or vegetation)"
    assert out.observations["dominant_colours"] == ["sky blue", "grey"]
    assert out.observations["visible_text"] == ["RUE DE LA REPUBLIQUE", "FERME"]
    assert out.observations["gps"] == [45.76, 4.83]
    assert "with Canon EOS 7D" in out.text and "“RUE DE LA REPUBLIQUE / FERME”" in out.text
    assert set(out.evidence) == {e.id for e in EVIDENCE}


def test_nothing_to_describe_says_so() -> None:
    asset = Asset(id="asset:1", path="/x/a.mp3", kind=MediaKind.AUDIO)
    out = describe_asset(DescribeInput(asset=asset, evidence=()))
    assert (
        out.text
        == "Audio; nothing could be observed offline (no readable text, features or metadata)."
    )
    assert out.evidence == ()


def test_text_rules_skip_measurements_but_read_ocr() -> None:
    sub = Subclaim(
        id="claim:what",
        dimension=Dimension.WHAT,
        statement="300 people were evacuated in Lyon",
        claim_type="what",
        asserted=True,
    )
    view = ClaimView(subclaim=sub, claim_text="300 people were evacuated in Lyon on 12 March.")
    cfg = OfflineAgentConfig()
    visual = EVIDENCE[1]
    assert rule_for(Dimension.WHAT)(view, visual, cfg) == []
    assert rule_for(Dimension.WHY)(view, visual, cfg) == []
    sign = _ev(
        "ev:ocr:asset:1:f1",
        "EVACUATION: 300 PEOPLE\n12 MARCH",
        OcrText(lines=(), languages=("en",)),
        Modality.IMAGE,
    )
    [finding] = rule_for(Dimension.WHAT)(view, sign, cfg)
    assert finding.key_facts == ("300",)  # the day of the month is a date, not a count
    assert finding.text.startswith(
        "The text read in the media (OCR) (ev:ocr:asset:1:f1) states 300"
    )
    unrelated = _ev(
        "ev:ocr:asset:1:f2", "OPEN 24 HOURS", OcrText(lines=(), languages=("en",)), Modality.IMAGE
    )
    assert rule_for(Dimension.WHAT)(view, unrelated, cfg) == []  # text in the media is no scene


def test_image_only_extraction_never_imports_the_video_or_speech_stack(tmp_path: Path) -> None:
    from PIL import Image

    Image.new("RGB", (64, 48), (30, 90, 200)).save(tmp_path / "a.png")
    code = (
        "import sys\n"
        "from semv.config import Settings\n"
        "from semv.model import Asset, MediaKind\n"
        "from semv.stages.media import extract_media, tool_versions\n"
        "tool_versions()\n"
        f"extract_media(Asset(id='asset:1', path={str(tmp_path / 'a.png')!r}, "
        "kind=MediaKind.IMAGE), Settings())\n"
        "print(sorted(m for m in ('av', 'scenedetect', 'faster_whisper', 'ctranslate2') "
        "if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
        env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"},
    )
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_another_backend_redescribes_without_re_extracting(tmp_path: Path) -> None:
    import asyncio

    from PIL import Image

    from semv.agents.offline import OfflineAgents
    from semv.config import Settings
    from semv.model import Case
    from semv.pipeline import run_case
    from semv.store import Store
    from tests.scripted_agents import ScriptedAgents

    Image.new("RGB", (64, 48), (30, 90, 200)).save(tmp_path / "a.png")
    asset = Asset(id="asset:1", path=str(tmp_path / "a.png"), kind=MediaKind.IMAGE)
    case = Case(id="c", claim="A blue picture.", media=(asset,))
    store = Store(tmp_path / "store")
    settings = Settings()

    def run(agents: object) -> dict[str, bool]:
        outcome = asyncio.run(
            run_case(case, store=store, settings=settings, agents=agents, contract="internal")  # type: ignore[arg-type]
        )
        return {k: n.reused for k, n in outcome.nodes.items() if k.endswith("asset:1")}

    assert run(ScriptedAgents()) == {"media:asset:1": False, "describe:asset:1": False}
    assert run(OfflineAgents(settings)) == {"media:asset:1": True, "describe:asset:1": False}
    store.close()
