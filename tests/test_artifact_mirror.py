"""Artifacts shared between machines through an fsspec location (``SEMV_ARTIFACTS_URL``): a
file written on one machine is found on another by its content hash, checked, and a missing
or substituted object is never used."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from semv.perception.artifacts import MIRROR_ENV, ArtifactStore, current_artifacts


def test_an_artifact_written_on_one_machine_is_fetched_on_another(tmp_path: Path) -> None:
    mirror = f"file://{tmp_path / 'bucket'}"
    machine_a = ArtifactStore(tmp_path / "a", mirror=mirror)
    digest, written = machine_a.put(b"\x89PNG keyframe bytes", ".png")
    assert (tmp_path / "bucket" / digest[:2] / f"{digest}.png").read_bytes() == written.read_bytes()
    machine_b = ArtifactStore(tmp_path / "b", mirror=mirror)
    fetched = machine_b.local(written)  # the path machine A recorded does exist here (one disk)
    assert fetched == written
    written.unlink()  # now it does not: B fetches it by its hash into its own root
    fetched = machine_b.local(str(written))
    assert fetched == tmp_path / "b" / digest[:2] / f"{digest}.png"
    assert fetched.read_bytes() == b"\x89PNG keyframe bytes"


def test_a_substituted_or_missing_object_is_not_used(tmp_path: Path) -> None:
    mirror = f"file://{tmp_path / 'bucket'}"
    digest, written = ArtifactStore(tmp_path / "a", mirror=mirror).put(b"original", ".png")
    written.unlink()
    (tmp_path / "bucket" / digest[:2] / f"{digest}.png").write_bytes(b"substituted")
    assert ArtifactStore(tmp_path / "b", mirror=mirror).local(written) is None
    other = hashlib.sha256(b"never written").hexdigest()
    assert ArtifactStore(tmp_path / "b", mirror=mirror).local(f"/x/{other}.png") is None
    assert ArtifactStore(tmp_path / "b").local(written) is None  # no mirror: nothing to fetch


def test_the_mirror_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(MIRROR_ENV, f"file://{tmp_path / 'bucket'}")
    digest, _ = current_artifacts().put(b"frame", ".png")
    assert (tmp_path / "bucket" / digest[:2] / f"{digest}.png").is_file()
    monkeypatch.delenv(MIRROR_ENV)
    assert ArtifactStore(tmp_path / "c").mirror is None
