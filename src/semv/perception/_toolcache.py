"""External tools' version answers, remembered across processes by the program file's identity.

The media stage's fingerprint holds the versions of the programs its extractors run
(``semv.stages.media.tool_versions``). Asking a program its version starts it: exiftool is a
Perl program whose start costs a few hundred milliseconds of CPU, and every ``semv`` process
asked every program again, even a warm evaluation of text-only cases that runs none of them
(on OOKPIK dev the probes were a tenth of a warm pass). The answer is a function of the
installed program, so it is kept on disk (``cache_dir()/tool-versions.json``) under the
program's identity: the path ``PATH`` resolves it to (symlinks followed), its size, its
modification time in nanoseconds and its inode. Installing, upgrading or removing the program
changes that identity, so the program is asked again and the fingerprint sees the new answer,
exactly as before. Answers that say a probe failed (``missing``, ``unknown``: a time-out on a
loaded machine, say) are not kept. A cache that cannot be read or written is ignored. Not from
the papers.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Final

__all__ = ["file_identity", "known", "program_identity", "remembered", "remembered_for"]

CACHE_FILE: Final = "tool-versions.json"
_FAILED: Final = ("missing", "unknown")
_LOCK = threading.Lock()


def program_identity(program: str) -> str | None:
    """``path:size:mtime_ns:inode`` of the file ``program`` resolves to on ``PATH`` (or of
    ``program`` itself when it is a path), or None when there is no such file."""
    found = shutil.which(program)
    return None if found is None else file_identity(found)


def file_identity(path: str) -> str | None:
    """``path:size:mtime_ns:inode`` of the file ``path`` names (symlinks followed), or None
    when there is no such file."""
    try:
        real = os.path.realpath(path)
        st = os.stat(real)
    except OSError:
        return None
    return f"{real}:{st.st_size}:{st.st_mtime_ns}:{st.st_ino}"


def _cache_path() -> Path:
    from semv.nlp.places import cache_dir

    return cache_dir() / CACHE_FILE


def _read(path: Path) -> dict[str, dict[str, str]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def known(name: str, identity: str | None) -> str | None:
    """The answer remembered under ``name`` for ``identity``, or None (none kept, or kept for
    another file). A kept answer is a successful one: failed answers are never written."""
    if identity is None:
        return None
    entry = _read(_cache_path()).get(name)
    if isinstance(entry, dict) and entry.get("identity") == identity:
        answer = entry.get("answer")
        if isinstance(answer, str):
            return answer
    return None


def remembered(name: str, program: str, probe: Callable[[], str]) -> str:
    """``probe()``'s answer (the version of ``program``), taken from the cache when the entry
    ``name`` was written for the same program file; otherwise ``probe()`` runs and a
    successful answer replaces the entry. Without the program on ``PATH`` the probe runs (it
    reports the program missing at no cost)."""
    return remembered_for(name, program_identity(program), probe)


def remembered_for(name: str, identity: str | None, probe: Callable[[], str]) -> str:
    """``probe()``'s answer, taken from the cache when the entry ``name`` was written for the
    same ``identity`` (of the files that decide the answer); otherwise ``probe()`` runs and a
    successful answer replaces the entry. Without an identity the probe runs, uncached."""
    if identity is None:
        return probe()
    kept = known(name, identity)
    if kept is not None:
        return kept
    path = _cache_path()
    answer = probe()
    if any(word in answer for word in _FAILED):
        return answer
    with _LOCK:  # the probes run in a thread pool: one read-modify-write at a time
        try:
            from semv.atomic import write_text_atomic

            entries = _read(path)
            entries[name] = {"identity": identity, "answer": answer}
            write_text_atomic(path, json.dumps(entries, indent=1, sort_keys=True) + "\n")
        except OSError:
            pass  # best effort: the next process asks the program again
    return answer
