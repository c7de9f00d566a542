"""Code fingerprints: a hash of the source files a stage or backend depends on."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import sys
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
    """sha256 over a module's source file, or every source/template file of a package.

    The file is found as an import would find it, without running the module (a stage's
    fingerprint names packages a run may never use, such as ``semv.retrieval`` in a run
    without sources); a module that is not a plain source file is imported and asked."""
    path = _source_file(module_name)
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


def _source_file(module_name: str) -> Path:
    parent, _, leaf = module_name.rpartition(".")
    if parent and parent not in sys.modules:
        # find_spec would import the parent package (running its __init__): look beside it
        base = _source_file(parent)
        if base.name == "__init__.py":
            for candidate in (base.parent / leaf / "__init__.py", base.parent / f"{leaf}.py"):
                if candidate.is_file():
                    return candidate
    spec = importlib.util.find_spec(module_name)
    if spec is not None and spec.has_location and spec.origin and spec.origin.endswith(".py"):
        return Path(spec.origin)
    origin = inspect.getsourcefile(importlib.import_module(module_name))
    if origin is None:
        raise ValueError(f"{module_name}: no source file to fingerprint")
    return Path(origin)


@cache
def code_fingerprint(modules: tuple[str, ...]) -> str:
    digest = hashlib.sha256()
    for name in sorted(set(modules)):
        digest.update(f"{name}:{source_hash(name)}\n".encode())
    return digest.hexdigest()
