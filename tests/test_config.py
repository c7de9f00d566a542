"""Configuration: paper defaults, TOML and environment overrides, every constant read."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from semv.config import Settings, load_settings
from semv.errors import ConfigError

SRC = Path(__file__).resolve().parents[1] / "src" / "semv"


def test_defaults_are_the_papers() -> None:
    s = Settings()
    assert (s.strength.w_reliability, s.strength.w_relevance) == (0.20, 0.25)
    assert (s.strength.w_source_diversity, s.strength.w_modality_diversity) == (0.15, 0.15)
    assert (s.strength.w_provenance, s.strength.w_specificity) == (0.20, 0.05)
    assert (s.strength.eta_unverified, s.strength.eta_uncertain) == (0.25, 0.85)
    assert (s.strength.source_cap, s.strength.modality_cap) == (3, 2)
    assert (s.decision.refuted, s.decision.weakly_refuted) == (0.30, 0.45)
    assert (s.decision.weakly_supported, s.decision.supported) == (0.55, 0.70)
    assert (s.clash.threshold, s.clash.margin) == (0.55, 0.25)
    assert s.confidence.verified == 0.65 and s.confidence.insufficient_evidence == 0.35
    assert s.ranking.top_k == 10 and s.ranking.uncertainty_penalty == 0.15


def test_toml_then_environment_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    toml = tmp_path / "semv.toml"
    toml.write_text("[decision]\nsupported = 0.72\n[clash]\nthreshold = 0.6\n")
    s = load_settings(toml)
    assert s.decision.supported == 0.72 and s.clash.threshold == 0.6
    monkeypatch.setenv("SEMV_CLASH__THRESHOLD", "0.65")
    assert load_settings(toml).clash.threshold == 0.65


def test_bad_configuration_names_the_file(tmp_path: Path) -> None:
    typo = tmp_path / "typo.toml"
    typo.write_text("[decision]\nsuported = 0.72\n")
    with pytest.raises(ConfigError, match=r"typo\.toml"):
        load_settings(typo)
    unordered = tmp_path / "bands.toml"
    unordered.write_text("[decision]\nsupported = 0.40\n")
    with pytest.raises(ConfigError, match=r"bands\.toml"):
        load_settings(unordered)
    with pytest.raises(ConfigError, match="not found"):
        load_settings(tmp_path / "missing.toml")


def test_settings_are_frozen() -> None:
    s = Settings()
    with pytest.raises(Exception, match="frozen"):
        s.decision.supported = 0.9  # type: ignore[misc]


def test_every_constant_is_read_by_the_code() -> None:
    """Each field of every section is accessed as ``.<field>`` somewhere outside semv.config.

    A textual check: it catches a constant nobody reads under its name (the common failure),
    not one whose name happens to match another attribute (``verified`` of a confidence floor
    and of an argument); the behaviour of each constant is tested with its module.
    """
    code = "\n".join(
        p.read_text(encoding="utf-8")
        for p in SRC.rglob("*.py")
        if p.relative_to(SRC).parts[0] != "config"
    )
    # the environment's paths are combined by its own properties (``cache_root``)
    environment_code = code.replace(
        (SRC / "_environment.py").read_text(encoding="utf-8").split("def cache_root", 1)[0], ""
    )
    unread = []
    for section_name, section in Settings.model_fields.items():
        assert re.search(rf"\b{section_name}\b", code), f"section {section_name} never used"
        annotation = section.annotation
        assert annotation is not None
        readers = environment_code if section_name == "environment" else code
        names = (
            [f.name for f in dataclasses.fields(annotation)]
            if isinstance(annotation, type) and dataclasses.is_dataclass(annotation)
            else list(annotation.model_fields)  # type: ignore[union-attr]
        )
        for field in names:
            if not re.search(rf"\.{field}\b", readers):
                unread.append(f"{section_name}.{field}")
    assert unread == []


def test_a_retired_key_loads_with_a_warning_and_a_typo_still_fails(tmp_path: Path) -> None:
    """A file written for an earlier version (``offline.modify_gap_max_hours``, read by no rule
    since camera EXIF stopped supporting authenticity) loads with a warning naming the key;
    the same section with a misspelt key is still an error naming the file."""
    old = tmp_path / "old.toml"
    old.write_text("[offline]\nmodify_gap_max_hours = 12.0\ntime_tolerance_days = 3\n")
    with pytest.warns(UserWarning, match=r"offline\.modify_gap_max_hours is no longer used"):
        s = load_settings(old)
    assert s.offline.time_tolerance_days == 3
    assert "modify_gap_max_hours" not in s.offline.model_dump()
    typo = tmp_path / "typo.toml"
    typo.write_text("[offline]\nmodify_gap_max_hour = 12.0\n")
    with pytest.raises(ConfigError, match=r"typo\.toml"):
        load_settings(typo)
