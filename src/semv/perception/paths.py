"""Data-directory defaults of the perception extractors (map PNGs, reverse-search index).

``forensics.maps_dir`` and ``reverse_search.index_dir`` default to None in ``Settings``; a run
fills them in under its store's data directory (``<data dir>/artifacts``,
``<data dir>/reverse-index``), so ``semv index images`` and ``semv verify`` with the same
``--data-dir`` meet at the same index. Explicit values are kept.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Final

from semv.atomic import atomic_target
from semv.config import Settings
from semv.model import Evidence, ForensicMap, MediaEvidence, ReverseSearchMatch

logger = logging.getLogger(__name__)

__all__ = [
    "MAPS_SUBDIR",
    "REPORT_MAPS",
    "REVERSE_INDEX_SUBDIR",
    "copy_maps",
    "default_index_dir",
    "resolve_data_paths",
]

MAPS_SUBDIR: Final = "artifacts"
REVERSE_INDEX_SUBDIR: Final = "reverse-index"
REPORT_MAPS: Final = "maps"
"""Folder next to the report that holds the forensic maps it cites (``maps/<sha256>.png``)."""


def default_index_dir(settings: Settings, data_dir: Path) -> Path:
    """The reverse-search index folder: the configured one, else ``<data dir>/reverse-index``."""
    configured = settings.reverse_search.index_dir
    return Path(configured) if configured else data_dir / REVERSE_INDEX_SUBDIR


def resolve_data_paths(settings: Settings, data_dir: Path | None) -> Settings:
    """``settings`` with the unset perception folders placed under ``data_dir`` (absolute)."""
    if data_dir is None:
        return settings
    base = data_dir.resolve()
    forensics = settings.forensics
    if forensics.maps_dir is None:
        forensics = forensics.model_copy(update={"maps_dir": str(base / MAPS_SUBDIR)})
    search = settings.reverse_search
    if search.index_dir is None:
        search = search.model_copy(update={"index_dir": str(base / REVERSE_INDEX_SUBDIR)})
    return settings.model_copy(update={"forensics": forensics, "reverse_search": search})


def _images_of(ev: Evidence) -> list[str]:
    """The content-addressed PNGs an item cites: its forensic map, a match's thumbnails."""
    scored = ev.observed(ForensicMap)
    if scored is not None and scored.map_png is not None:
        return [scored.map_png]
    match = ev.observed(ReverseSearchMatch)
    if match is not None:
        return [n for n in (match.query_thumb, match.indexed_thumb) if n is not None]
    return []


def copy_maps(values: Iterable[object], settings: Settings, out_dir: Path) -> list[Path]:
    """Copy the map PNGs and match thumbnails cited by media evidence into ``out_dir/maps/``;
    the files copied.

    Maps are content-addressed, so a reused media node's maps are still where its first run put
    them; a map that has since been deleted is logged and skipped (the report still names it).
    """
    if settings.forensics.maps_dir is None:
        return []
    source = Path(settings.forensics.maps_dir)
    names = sorted(
        {
            name
            for value in values
            if isinstance(value, MediaEvidence)
            for ev in value.evidence
            for name in _images_of(ev)
        }
    )
    copied: list[Path] = []
    target_dir = out_dir / REPORT_MAPS
    for name in names:
        if "/" in name or "\\" in name or not name.endswith(".png"):
            continue
        src = source / name
        if not src.is_file():
            logger.warning("forensic map %s is missing from %s", name, source)
            continue
        with atomic_target(target_dir / name, prefix=".map-") as tmp:
            shutil.copyfile(src, tmp)
        copied.append(target_dir / name)
    return copied
