"""Content-addressed files that media extraction produces (keyframe PNGs, maps).

An artifact is stored once as ``<root>/<sha[:2]>/<sha256>.<ext>``: the same frame extracted by
two runs is one file, and a cached ``media:<asset>`` output that names an artifact keeps
pointing at the same bytes. The root is ``<data dir>/artifacts`` while the pipeline runs a case
(``use_artifacts``), else a folder in the system temp directory.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

__all__ = ["ArtifactStore", "current_artifacts", "use_artifacts"]

_ROOT: contextvars.ContextVar[Path | None] = contextvars.ContextVar("semv_artifacts", default=None)


class ArtifactStore:
    """Writes bytes once under their SHA-256 (atomically: temp file, then rename)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def put(self, data: bytes, suffix: str) -> tuple[str, Path]:
        """Store ``data``; return its SHA-256 and path."""
        digest = hashlib.sha256(data).hexdigest()
        target = self.root / digest[:2] / f"{digest}{suffix}"
        if target.is_file() and target.stat().st_size == len(data):
            return digest, target
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".artifact-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        return digest, target


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
