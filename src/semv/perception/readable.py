"""Whether Pillow will decode an image file: the one check every image command makes before it
writes anything (``semv forensics``, ``semv index images``, ``semv verify``).

Two kinds of refusal, each a one-line ``InputError`` naming the file:

- a *decompression bomb*: the header declares more pixels than the limit (Pillow's
  ``MAX_IMAGE_PIXELS``, or the caller's lower ``max_pixels``); refused from the header alone,
  never decoded;
- an *unreadable* file: not an image, or truncated, or corrupt (Pillow cannot decode it).
"""

from __future__ import annotations

import warnings
from pathlib import Path

from PIL import Image, UnidentifiedImageError

from semv.errors import InputError

__all__ = ["is_bomb", "refuse_bomb", "refuse_unreadable"]


def _bomb_message(path: Path, detail: str) -> str:
    return f"{path}: {detail} (possible decompression bomb); not decoded"


def refuse_bomb(path: Path, max_pixels: int | None = None) -> None:
    """Raise ``InputError`` when the header of ``path`` declares more pixels than
    ``max_pixels`` (default: Pillow's limit). Files Pillow cannot identify pass: whether they
    decode is ``refuse_unreadable``'s question."""
    limit = max_pixels or Image.MAX_IMAGE_PIXELS
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(path) as raw:
                width, height = raw.size
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise InputError(_bomb_message(path, f"refused by Pillow: {exc}")) from exc
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError):
        return
    if limit is not None and width * height > limit:
        raise InputError(
            _bomb_message(
                path,
                f"{width}×{height} = {width * height:,} pixels, over the {limit:,}-pixel limit",
            )
        )


def is_bomb(path: Path, max_pixels: int | None = None) -> bool:
    """True when ``refuse_bomb`` refuses ``path``."""
    try:
        refuse_bomb(path, max_pixels)
    except InputError:
        return True
    return False


def refuse_unreadable(path: Path, max_pixels: int | None = None) -> None:
    """Raise ``InputError`` naming ``path`` unless it is a file Pillow decodes completely within
    ``max_pixels`` (default: Pillow's limit)."""
    if not path.is_file():
        raise InputError(f"{path}: no such image file")
    refuse_bomb(path, max_pixels)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(path) as raw:
                raw.load()
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise InputError(_bomb_message(path, f"refused by Pillow: {exc}")) from exc
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        raise InputError(f"{path}: cannot read image: {exc}") from exc
