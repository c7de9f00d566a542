"""Turning a media file reference into an ``Asset``: kind, existence, SHA-256."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from semv.model import Asset, MediaKind
from semv.store import sha256_file

__all__ = ["MEDIA_EXTENSIONS", "MediaProblem", "load_asset", "media_kind"]

MEDIA_EXTENSIONS: Final[dict[str, MediaKind]] = {
    **dict.fromkeys(
        (".jpg", ".jpeg", ".png", ".gif", ".bmp", ".tif", ".tiff", ".webp"), MediaKind.IMAGE
    ),
    **dict.fromkeys(
        (".mp4", ".mov", ".m4v", ".avi", ".mkv", ".webm", ".mpg", ".mpeg", ".3gp"),
        MediaKind.VIDEO,
    ),
    **dict.fromkeys((".mp3", ".wav", ".flac", ".m4a", ".ogg", ".aac", ".opus"), MediaKind.AUDIO),
}
"""File extension (lower case) → media kind. Anything else is rejected."""


class MediaProblem(Exception):
    """A media file is unusable. ``about_path`` is True when the reference itself is the
    problem (unknown type, file missing) rather than the file's content."""

    def __init__(self, message: str, *, about_path: bool) -> None:
        super().__init__(message)
        self.about_path = about_path


def media_kind(path: Path) -> MediaKind:
    """The media kind of ``path`` from its extension; ``MediaProblem`` when unknown."""
    kind = MEDIA_EXTENSIONS.get(path.suffix.lower())
    if kind is None:
        known = ", ".join(sorted(MEDIA_EXTENSIONS))
        shown = path.suffix or "(no extension)"
        raise MediaProblem(
            f"unknown media type {shown} of {path.name} (known: {known})", about_path=True
        )
    return kind


def load_asset(
    file: Path,
    *,
    number: int,
    shown_as: str,
    role: str = "primary",
    text_only: bool = False,
    within: Path | None = None,
) -> Asset:
    """Build ``asset:<number>`` for ``file``.

    ``shown_as`` is how the file is named in messages (the path as the input wrote it).
    Unless ``text_only``, the file must exist and its content is hashed; a missing file raises
    ``MediaProblem``. Whether the content decodes is the media stage's question
    (``semv.perception.integrity``): an empty, truncated or hostile file becomes an uncertainty
    item in the report, not a failed case. With ``within``, a file that resolves outside that
    folder (a symlink pointing out of the dataset) is refused.
    """
    kind = media_kind(file)
    if within is not None and not file.resolve().is_relative_to(within.resolve()):
        raise MediaProblem(
            f"{shown_as} resolves outside {within} (a link out of the dataset folder is refused)",
            about_path=True,
        )
    sha256: str | None = None
    if not text_only:
        if not file.is_file():
            raise MediaProblem(f"file not found: {shown_as}", about_path=True)
        sha256 = sha256_file(str(file))
    return Asset(
        id=f"asset:{number}",
        path=str(file.absolute()),
        kind=kind,
        role=role,
        sha256=sha256,
        position=number - 1,
        loaded=not text_only,
    )
