"""Code fingerprints: a hash of the source files a stage or backend depends on."""

from __future__ import annotations

import hashlib
import importlib
import inspect
from functools import cache
from pathlib import Path

__all__ = ["code_fingerprint", "dist_version", "source_hash"]

_SUFFIXES = (".py", ".j2", ".json", ".txt")


@cache
def dist_version(name: str) -> str | None:
    """The installed version of distribution ``name``, or None when it is not installed.
    Cached: what is installed does not change while a process runs, and the lookup scans
    site-packages (a few ms, once per stage tool fingerprint otherwise)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return None


@cache
def source_hash(module_name: str) -> str:
    """sha256 over a module's source file, or every source/template file of a package."""
    module = importlib.import_module(module_name)
    origin = inspect.getsourcefile(module)
    if origin is None:
        raise ValueError(f"{module_name}: no source file to fingerprint")
    path = Path(origin)
    files = (
        sorted(p for p in path.parent.rglob("*") if p.suffix in _SUFFIXES and p.is_file())
        if path.name == "__init__.py"
        else [path]
    )
    digest = hashlib.sha256()
    for file in files:
        digest.update(file.relative_to(path.parent).as_posix().encode())
        digest.update(b"\0")
        digest.update(file.read_bytes())
    return digest.hexdigest()


@cache
def code_fingerprint(modules: tuple[str, ...]) -> str:
    digest = hashlib.sha256()
    for name in sorted(set(modules)):
        digest.update(f"{name}:{source_hash(name)}\n".encode())
    return digest.hexdigest()
