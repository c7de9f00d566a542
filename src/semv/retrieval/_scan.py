"""Which files ``semv index corpus`` reads from a path: index hygiene.

A desk's archive is indexed to find evidence about claims. semv's own source tree (its
``pyproject.toml``, ``src/semv``, its documentation) and hidden folders (``.git``, ``.semv``,
``.venv``...) are not an archive: indexed, semv's documentation ("Measured results", "semv
architecture") would come back as evidence. By default:

- a path inside semv's own source tree (a folder whose ``pyproject.toml`` names the project
  ``semv``, or the installed ``semv`` package) is refused with an ``InputError``;
- inside a folder, a nested semv source tree and hidden files and folders are skipped, each
  with its reason; so are files of a type no reader handles;
- a hidden path named explicitly is refused.

``allow_project`` and ``include_hidden`` lift these rules (``--allow-semv-source``,
``--include-hidden``).
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from semv.errors import InputError
from semv.retrieval._documents import SUFFIXES

__all__ = ["Scan", "is_semv_tree", "scan_documents"]

_NAME = re.compile(r"^semv$", re.I)


@dataclass
class Scan:
    """The files to read, and what was skipped and why."""

    root: Path
    files: list[Path] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)

    def by_suffix(self) -> dict[str, int]:
        return dict(sorted(Counter(p.suffix.lower() for p in self.files).items()))

    def skipped_by_reason(self) -> dict[str, int]:
        return dict(sorted(Counter(reason for _p, reason in self.skipped).items()))


@cache
def _package_dir() -> Path:
    import semv

    return Path(semv.__file__).resolve().parent


def is_semv_tree(folder: Path) -> bool:
    """``folder`` is the root of a semv source tree: its ``pyproject.toml`` names the project
    ``semv``, or it holds the ``src/semv`` package."""
    project = folder / "pyproject.toml"
    if project.is_file():
        try:
            name = tomllib.loads(project.read_text(encoding="utf-8")).get("project", {}).get("name")
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            name = None
        if isinstance(name, str) and _NAME.match(name):
            return True
    return (folder / "src" / "semv" / "__init__.py").is_file()


def _own_tree(path: Path) -> Path | None:
    """The semv source tree (or installed package) ``path`` lies in, if any."""
    resolved = path.resolve()
    package = _package_dir()
    if resolved == package or package in resolved.parents:
        return package
    for folder in (resolved, *resolved.parents):
        if folder.is_dir() and is_semv_tree(folder):
            return folder
    return None


def _hidden(name: str) -> bool:
    return name.startswith(".") and name not in (".", "..")


def scan_documents(
    path: Path, *, include_hidden: bool = False, allow_project: bool = False
) -> Scan:
    """The document files under ``path`` (a file or a folder, recursively in name order)."""
    if not path.exists():
        raise InputError(f"{path}: no such file or directory")
    if not allow_project:
        tree = _own_tree(path)
        if tree is not None:
            raise InputError(
                f"{path}: lies in semv's own source tree ({tree}); its code and documentation "
                "are not evidence about claims (index it anyway with --allow-semv-source)"
            )
    if not include_hidden and _hidden(path.resolve().name):
        raise InputError(
            f"{path}: is hidden; hidden files and folders are not indexed by default "
            "(--include-hidden indexes them)"
        )
    scan = Scan(root=path)
    if path.is_file():
        if path.suffix.lower() not in SUFFIXES:
            raise InputError(
                f"{path}: unsupported document type (use one of {', '.join(SUFFIXES)})"
            )
        scan.files.append(path)
        return scan
    _walk(path, path, scan, include_hidden, allow_project)
    if not scan.files:
        raise InputError(f"{path}: no documents ({', '.join(SUFFIXES)}) in this folder")
    return scan


def _walk(root: Path, folder: Path, scan: Scan, include_hidden: bool, allow: bool) -> None:
    for entry in sorted(folder.iterdir()):
        rel = entry.relative_to(root).as_posix()
        if not include_hidden and _hidden(entry.name):
            scan.skipped.append((rel, "hidden"))
            continue
        if entry.is_symlink() and entry.is_dir():
            scan.skipped.append((rel, "symbolic link to a folder"))
            continue
        if entry.is_dir():
            if not allow and is_semv_tree(entry):
                scan.skipped.append((rel, "semv's own source tree"))
                continue
            _walk(root, entry, scan, include_hidden, allow)
        elif entry.is_file():
            if entry.suffix.lower() in SUFFIXES:
                scan.files.append(entry)
            else:
                scan.skipped.append((rel, f"unsupported type {entry.suffix or '(none)'}"))
