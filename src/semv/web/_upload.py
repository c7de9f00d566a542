"""Receive an uploaded case safely: a zip or a set of files becomes a case folder under
``<data dir>/uploads/<id>/`` only after it has been unpacked within its limits and validated by
the same adapters (and errors) as ``semv verify``; anything rejected leaves nothing behind.

Safety rules: the upload is size-limited while it streams; zip members may not be absolute,
contain ``..``, be symlinks or devices, or unpack beyond ``web.max_unpacked_mb`` (zip bombs);
file names are checked the same way; every media file the case names must resolve inside the
case folder (no link out of it).
"""

from __future__ import annotations

import secrets
import shutil
import stat
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Final

from semv._api import load_cases
from semv.adapters import LoadedCase, find_case_file
from semv.config import LimitsConfig, WebConfig
from semv.errors import InputError
from semv.limits import enforce_limits

__all__ = [
    "UploadTooLarge",
    "Uploaded",
    "accept_case",
    "is_case_document",
    "safe_member_path",
    "unpack_zip",
]

_CHUNK = 1 << 16


class UploadTooLarge(InputError):
    """The upload exceeds ``web.max_upload_mb`` or unpacks beyond ``web.max_unpacked_mb``."""


@dataclass(frozen=True)
class Uploaded:
    """A validated upload: its folder, label contract and cases."""

    upload_id: str
    folder: Path
    contract: str
    cases: list[LoadedCase]
    source: Path
    """The file or folder the cases were read from (read again by a restarted server)."""


def safe_member_path(name: str, *, where: str) -> PurePosixPath:
    """A relative, normalised path for an archive member or uploaded file name; ``InputError``
    for an absolute path, a drive, ``..`` or an empty name (zip slip)."""
    cleaned = name.replace("\\", "/")
    path = PurePosixPath(cleaned)
    if (
        not cleaned.strip()
        or path.is_absolute()
        or (path.parts and ":" in path.parts[0])
        or any(part == ".." for part in path.parts)
        or "\x00" in cleaned
    ):
        raise InputError(f"{where}: unsafe path {name!r} (absolute or outside the case folder)")
    parts = [p for p in path.parts if p not in ("", ".")]
    if not parts:
        raise InputError(f"{where}: empty file name")
    return PurePosixPath(*parts)


_CASE_DOCUMENTS: Final = frozenset({"case.yaml", "case.yml", "case.json"})


def is_case_document(rel: PurePosixPath) -> bool:
    """Whether ``rel`` names a case document (``case.yaml``/``.yml``/``.json``) of the case
    folder or of the one folder that wraps it."""
    return rel.name.lower() in _CASE_DOCUMENTS and len(rel.parts) <= 2


def unpack_zip(archive: Path, dest: Path, limits: WebConfig, *, where: str) -> None:
    """Extract ``archive`` into ``dest`` member by member, enforcing the rules above."""
    try:
        zf = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError) as exc:
        raise InputError(f"{where}: not a readable zip archive ({exc})") from exc
    budget = int(limits.max_unpacked_mb * 1024 * 1024)
    with zf:
        members = zf.infolist()
        if len(members) > limits.max_files:
            raise UploadTooLarge(
                f"{where}: {len(members)} archive members exceed web.max_files={limits.max_files}"
            )
        written = 0
        case_limit = int(limits.max_case_file_mb * 1024 * 1024)
        for info in members:
            rel = safe_member_path(info.filename, where=where)
            if is_case_document(rel) and info.file_size > case_limit:
                raise UploadTooLarge(
                    f"{where}: {rel.as_posix()} is larger than web.max_case_file_mb="
                    f"{limits.max_case_file_mb:g} MiB (refused)"
                )
            kind = stat.S_IFMT(info.external_attr >> 16)  # 0: the archiver stored no type
            if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
                raise InputError(
                    f"{where}: member {info.filename!r} is a link or special file (refused)"
                )
            target = dest.joinpath(*rel.parts)
            try:
                if info.is_dir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
            except (FileExistsError, NotADirectoryError) as exc:
                raise InputError(
                    f"{where}: member {info.filename!r} is both a file and a folder"
                ) from exc
            try:
                with zf.open(info) as src, target.open("xb") as out:
                    while chunk := src.read(_CHUNK):
                        written += len(chunk)
                        if written > budget:
                            raise UploadTooLarge(
                                f"{where}: unpacks to more than web.max_unpacked_mb="
                                f"{limits.max_unpacked_mb:g} MiB (refused)"
                            )
                        out.write(chunk)
            except FileExistsError as exc:
                what = "is both a file and a folder" if target.is_dir() else "appears twice"
                raise InputError(f"{where}: member {info.filename!r} {what}") from exc
            except IsADirectoryError as exc:
                raise InputError(
                    f"{where}: member {info.filename!r} is both a file and a folder"
                ) from exc
            except (zipfile.BadZipFile, OSError, EOFError) as exc:
                raise InputError(f"{where}: cannot extract {info.filename!r}: {exc}") from exc
            except RuntimeError as exc:  # encrypted members
                raise InputError(f"{where}: cannot extract {info.filename!r}: {exc}") from exc


def _case_root(folder: Path) -> Path:
    """The folder itself, or its only sub-folder when an archive wraps the case in one."""
    entries = [p for p in folder.iterdir() if not p.name.startswith(".")]
    if len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink():
        return entries[0]
    return folder


_DATASET_SUFFIXES = (".json", ".jsonl", ".csv")


def _target(root: Path) -> Path:
    """What the adapters read: the folder, or the one dataset file (COSMOS JSON lines, a
    VERITE CSV, ...) at its top when the folder is not a case folder."""
    files = [p for p in root.iterdir() if p.is_file() and not p.name.startswith(".")]
    single = len(files) == 1 and files[0].suffix.lower() in _DATASET_SUFFIXES
    return files[0] if single and find_case_file(root) is None else root


def _check_contained(cases: Iterable[LoadedCase], root: Path, where: str) -> None:
    base = root.resolve()
    for loaded in cases:
        for asset in loaded.case.media:
            resolved = Path(asset.path).resolve()
            if not resolved.is_relative_to(base):
                raise InputError(
                    f"{where}: case {loaded.case.id}: media {asset.id} points outside the "
                    f"uploaded case folder"
                )


def accept_case(
    staged: Path,
    uploads: Path,
    *,
    adapter: str | None,
    text_only: bool,
    where: str,
    limits: LimitsConfig | None = None,
) -> Uploaded:
    """Validate the unpacked folder ``staged`` (inside ``uploads``) and move it to its final
    place; on any error remove it, so a rejected upload leaves nothing stored. ``limits``:
    the case size limits ``semv verify`` applies (``semv.limits``), checked here so that a
    case beyond them is refused before any job exists."""
    try:
        root = _case_root(staged)
        if any(p.is_symlink() for p in root.rglob("*")):
            raise InputError(f"{where}: the case contains a symbolic link (refused)")
        try:
            contract, cases = load_cases(_target(root), adapter=adapter, text_only=text_only)
            if limits is not None:
                for loaded in cases:
                    enforce_limits(loaded.case, limits)
        except InputError as exc:
            # name the uploaded file, not the staging folder it was unpacked to
            raise InputError(str(exc).replace(str(root), where)) from exc
        _check_contained(cases, root, where)
    except BaseException:
        shutil.rmtree(staged, ignore_errors=True)
        raise
    upload_id = "u" + secrets.token_hex(8)
    final = uploads / upload_id
    staged.rename(final)
    folder = final / root.relative_to(staged)
    # the cases were read from the staging path: read them again from their final place
    source = _target(folder)
    contract, cases = load_cases(source, adapter=adapter, text_only=text_only)
    return Uploaded(
        upload_id=upload_id, folder=folder, contract=contract, cases=cases, source=source
    )
