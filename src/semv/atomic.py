"""Atomic file writes: a file is either its old content or its new content, never half-written.

Every writer in semv that leaves a file for a user (reports, exports, maps, artefacts, indexes,
plots, evaluation outputs) goes through :func:`atomic_target`: the content is written to a
temporary file in the target's own directory and moved over the target with ``os.replace``, which
is atomic on POSIX and Windows. On any error the temporary file is removed and the target is left
as it was. The new file is private to its owner (``mkstemp``'s 0600) unless the writer asks for
another ``mode`` (a cache or a shipped data file other users read: 0644; a file meant for
publication: :func:`umask_mode`, what ``open`` would give it).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

__all__ = ["atomic_target", "umask_mode", "write_bytes_atomic", "write_text_atomic"]


def umask_mode(base: int = 0o666) -> int:
    """``base`` less the process's umask: the mode ``open`` gives a new file (0644 under the
    usual umask 022). Read from ``/proc/self/status`` where it is, which changes nothing; else
    set and restored at once."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return base & ~int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return base & ~mask


@contextlib.contextmanager
def atomic_target(
    target: Path, *, prefix: str | None = None, mode: int | None = None
) -> Iterator[Path]:
    """Yield a temporary path beside ``target``; move it over ``target`` when the block succeeds.

    The caller writes the complete new content to the yielded path (with any writer: a file
    handle, ``savefig``, ``shutil.copyfile``, an SQLite connection). Parent directories are
    created. If the block raises, the temporary file is deleted and ``target`` is untouched.
    ``mode``: the permission bits the new file gets before it is moved (default 0600).
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(
        dir=target.parent, prefix=prefix or f".{target.name}.", suffix=".tmp"
    )
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        if mode is not None:
            tmp.chmod(mode)
        os.replace(tmp, target)
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


def write_bytes_atomic(
    target: Path, data: bytes, *, prefix: str | None = None, mode: int | None = None
) -> None:
    """Write ``data`` to ``target`` atomically (see :func:`atomic_target`)."""
    with atomic_target(target, prefix=prefix, mode=mode) as tmp:
        tmp.write_bytes(data)


def write_text_atomic(
    target: Path, text: str, *, prefix: str | None = None, mode: int | None = None
) -> None:
    """Write ``text`` as UTF-8 to ``target`` atomically (see :func:`atomic_target`)."""
    write_bytes_atomic(target, text.encode("utf-8"), prefix=prefix, mode=mode)
