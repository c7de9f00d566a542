"""Content-addressed files that media extraction produces (keyframe PNGs, maps).

An artifact is stored once as ``<root>/<sha[:2]>/<sha256>.<ext>``: the same frame extracted by
two runs is one file, and a cached ``media:<asset>`` output that names an artifact keeps
pointing at the same bytes. The root is ``<data dir>/artifacts`` while the pipeline runs a case
(``use_artifacts``), else a folder in the system temp directory.

Shared artifacts (several machines on one PostgreSQL store): with ``SEMV_ARTIFACTS_URL`` set to
an fsspec URL (``s3://bucket/semv-artifacts`` with ``s3fs`` installed, ``file:///mnt/shared/x``,
...), every artifact written is also put under ``<url>/<sha[:2]>/<sha256>.<ext>``, and
``ArtifactStore.local`` fetches an artifact another machine wrote (named by a path that does not
exist here) into this machine's root by its content hash, checking the hash. The local root
stays the working copy, so the recorded paths (inside cached node outputs) keep their meaning.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from semv.atomic import write_bytes_atomic
from semv.config import environment

__all__ = ["ArtifactStore", "current_artifacts", "use_artifacts"]

_ROOT: contextvars.ContextVar[Path | None] = contextvars.ContextVar("semv_artifacts", default=None)


MIRROR_ENV = "SEMV_ARTIFACTS_URL"
"""The environment variable naming the shared (fsspec) artifact location."""

_NAME = re.compile(r"^([0-9a-f]{64})(\.[A-Za-z0-9]{1,8})$")


class ArtifactStore:
    """Writes bytes once under their SHA-256 (atomically: temp file, then rename), and to the
    shared ``mirror`` (an fsspec URL; default ``$SEMV_ARTIFACTS_URL``) when there is one."""

    def __init__(self, root: Path, mirror: str | None = None) -> None:
        self.root = root
        self.mirror = mirror if mirror is not None else environment().artifacts_url

    def put(self, data: bytes, suffix: str) -> tuple[str, Path]:
        """Store ``data``; return its SHA-256 and (local) path."""
        digest = hashlib.sha256(data).hexdigest()
        target = self.root / digest[:2] / f"{digest}{suffix}"
        if not (target.is_file() and target.stat().st_size == len(data)):
            _write_atomic(target, data)
        if self.mirror:
            fs, remote = self._remote(target.name)
            if not (fs.exists(remote) and fs.size(remote) == len(data)):
                fs.makedirs(remote.rsplit("/", 1)[0], exist_ok=True)
                fs.pipe_file(remote, data)
        return digest, target

    def local(self, recorded: str | Path) -> Path | None:
        """A readable local file for an artifact path recorded anywhere (maybe on another
        machine): the path itself, the same content under this root, or (with a mirror) the
        content fetched from the mirror and checked against its hash; None when unavailable."""
        path = Path(recorded)
        if path.is_file():
            return path
        match = _NAME.match(path.name)
        if match is None:
            return None
        here = self.root / path.name[:2] / path.name
        if here.is_file():
            return here
        if not self.mirror:
            return None
        fs, remote = self._remote(path.name)
        try:
            data = fs.cat_file(remote)
        except (FileNotFoundError, OSError):
            return None
        if hashlib.sha256(data).hexdigest() != match.group(1):
            return None  # a corrupt or substituted object is never used
        _write_atomic(here, data)
        return here

    def _remote(self, name: str) -> tuple[Any, str]:
        import fsspec

        if self.mirror is None:
            raise RuntimeError("no artifact mirror configured (SEMV_ARTIFACTS_URL)")
        fs, base = fsspec.core.url_to_fs(self.mirror)
        return fs, f"{base.rstrip('/')}/{name[:2]}/{name}"


def _write_atomic(target: Path, data: bytes) -> None:
    write_bytes_atomic(target, data, prefix=".artifact-")


def current_artifacts() -> ArtifactStore:
    """The store of the running case, or one in the temp directory."""
    root = _ROOT.get()
    if root is None:
        root = Path(tempfile.gettempdir()) / "semv-artifacts"
    return ArtifactStore(root)


@contextlib.contextmanager
def use_artifacts(root: Path) -> Iterator[ArtifactStore]:
    """Store artifacts under ``root`` for the code run inside the block (and its tasks)."""
    token = _ROOT.set(root)
    try:
        yield ArtifactStore(root)
    finally:
        _ROOT.reset(token)
