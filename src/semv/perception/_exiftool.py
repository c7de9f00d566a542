"""One long-lived exiftool process per Python process (the I/O seam to exiftool).

Starting exiftool costs ~0.4 s, so a session is started on first use and kept open; calls are
serialized by a lock (the pipe protocol is strictly request/response), the process is restarted
after a fork or a crash, and closed at interpreter exit. Before the first start, ``-ver`` checks
that the program answers like exiftool (PyExifTool would wait forever for one that does not),
unless this very program file answered as exiftool before (``_answered_before``).
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import re
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any, Final

import exiftool
from exiftool.exceptions import (
    ExifToolException,
    ExifToolExecuteException,
    ExifToolProcessStateError,
)

__all__ = [
    "EXIFTOOL_ARGS",
    "ExifToolMissing",
    "ExifToolSession",
    "FileUnreadable",
    "default_session",
]

logger = logging.getLogger(__name__)

EXIFTOOL_ARGS: Final = ("-G", "-n", "-api", "LargeFileSupport=1")
"""Group-prefixed tag names (``EXIF:DateTimeOriginal``), numeric values (signed decimal GPS)."""

_PROBE_TIMEOUT_S: Final = 30.0


class ExifToolMissing(Exception):
    """exiftool is not installed or cannot be started."""


class FileUnreadable(Exception):
    """exiftool could not read a file."""


class ExifToolSession:
    """A lazily started, lock-protected ``exiftool.ExifToolHelper``."""

    def __init__(self, executable: str | None = None) -> None:
        """``executable`` defaults to ``exiftool`` on PATH."""
        self._executable = executable or shutil.which("exiftool") or "exiftool"
        self._lock = threading.Lock()
        self._helper: exiftool.ExifToolHelper | None = None
        self._owner_stop: threading.Event | None = None
        self._pid: int | None = None

    @property
    def executable(self) -> str:
        """The exiftool executable this session runs."""
        return self._executable

    def version(self) -> str:
        """exiftool's version string; ``ExifToolMissing`` when it cannot be started."""
        with self._lock:
            return str(self._started().version)

    def read_tags(self, file: Path) -> dict[str, Any]:
        """All tags of ``file`` as ``{"Group:Tag": value}``.

        Raises ``ExifToolMissing`` when exiftool cannot run and ``FileUnreadable`` when it
        reports an error for the file.
        """
        with self._lock:
            try:
                return self._read(file)
            except (ExifToolProcessStateError, OSError) as exc:
                # The process died or its pipe broke: restart once, then give up.
                logger.warning("exiftool session failed (%s); restarting", exc)
                self._close_locked()
            try:
                return self._read(file)
            except (ExifToolProcessStateError, OSError) as exc:
                self._close_locked()
                raise ExifToolMissing(f"exiftool stopped responding: {exc}") from exc

    def close(self) -> None:
        """Stop the exiftool process, if running (it restarts on the next call)."""
        with self._lock:
            self._close_locked()

    def _read(self, file: Path) -> dict[str, Any]:
        helper = self._started()
        try:
            rows = helper.get_metadata(str(file))
        except ExifToolExecuteException as exc:  # non-zero status, empty or invalid output
            raise FileUnreadable(_error_detail(exc)) from exc
        tags: dict[str, Any] = rows[0] if rows else {}
        error = tags.get("ExifTool:Error")
        if error:
            raise FileUnreadable(str(error))
        return tags

    def _started(self) -> exiftool.ExifToolHelper:
        if self._helper is not None and self._pid == os.getpid() and self._helper.running:
            return self._helper
        if self._pid != os.getpid():
            self._helper = None  # inherited from a parent process: never touch its pipes
        self._close_locked()
        if not _answered_before(self._executable):
            _probe(self._executable)
        helper = exiftool.ExifToolHelper(
            executable=self._executable, common_args=list(EXIFTOOL_ARGS), auto_start=False
        )
        self._owner_stop = _start_in_owner_thread(helper, self._executable)
        self._helper, self._pid = helper, os.getpid()
        return helper

    def _close_locked(self) -> None:
        helper, self._helper = self._helper, None
        stop, self._owner_stop = self._owner_stop, None
        if helper is not None and self._pid == os.getpid() and helper.running:
            try:
                helper.terminate()
            except (ExifToolException, OSError) as exc:  # already gone: nothing to clean up
                logger.debug("exiftool terminate failed: %s", exc)
        if stop is not None:
            stop.set()


def _start_in_owner_thread(helper: exiftool.ExifToolHelper, executable: str) -> threading.Event:
    """Start ``helper`` from a thread that lives as long as the session; return its stop event.

    PyExifTool starts exiftool with ``PR_SET_PDEATHSIG``, which kills the child when the *thread*
    that spawned it ends. Callers run ``read_metadata`` in short-lived worker threads
    (``asyncio.to_thread``), so the process is spawned by a dedicated daemon thread instead.
    """
    started = threading.Event()
    stop = threading.Event()
    failure: list[BaseException] = []

    def own() -> None:
        try:
            helper.run()
        except BaseException as exc:  # handed to the starting thread below
            failure.append(exc)
            started.set()
            return
        started.set()
        stop.wait()

    threading.Thread(target=own, name="semv-exiftool", daemon=True).start()
    started.wait()
    if failure:
        exc = failure[0]
        if isinstance(exc, FileNotFoundError | PermissionError):
            raise ExifToolMissing(f"exiftool not found ({executable})") from exc
        raise ExifToolMissing(f"exiftool cannot be started: {exc}") from exc
    return stop


def _probe(executable: str) -> None:
    """Check that ``executable -ver`` answers like exiftool before starting a session.

    PyExifTool waits forever for a process that exits at once, so anything that is not a working
    exiftool must be caught here.
    """
    try:
        done = subprocess.run(
            [executable, "-ver"],
            capture_output=True,
            text=True,
            timeout=_PROBE_TIMEOUT_S,
            check=False,
        )
    except (FileNotFoundError, PermissionError) as exc:
        raise ExifToolMissing(f"exiftool not found ({executable})") from exc
    except (OSError, subprocess.SubprocessError) as exc:
        raise ExifToolMissing(f"exiftool cannot be started ({executable}): {exc}") from exc
    version = done.stdout.strip()
    if done.returncode != 0 or not re.fullmatch(r"\d+\.\d+\S*", version):
        raise ExifToolMissing(
            f"{executable} does not answer like exiftool (-ver exited with {done.returncode})"
        )


def _answered_before(executable: str) -> bool:
    """Whether this very file (path, size, mtime, inode) answered as exiftool before: a
    session on it reported its version (``metadata.tool_versions`` keeps that answer in
    ``semv.perception._toolcache``; failed answers are never kept), so it passed ``_probe``
    then and the probe, a whole Perl start on the media node's path, can be skipped."""
    from semv.perception._toolcache import known, program_identity

    answer = known("exiftool", program_identity(executable))
    return answer is not None and answer.startswith("exiftool ")


def _error_detail(exc: ExifToolExecuteException) -> str:
    """exiftool's own error message: ``ExifTool:Error`` of its JSON, else its stderr."""
    try:
        rows = json.loads(exc.stdout or "[]")
        error = rows[0].get("ExifTool:Error") if rows and isinstance(rows[0], dict) else None
    except (json.JSONDecodeError, TypeError):
        error = None
    if error:
        return str(error)
    lines = str(exc.stderr or "").strip().splitlines()
    return lines[0].strip().removeprefix("Error: ") if lines else str(exc)


_default: ExifToolSession | None = None
_default_lock = threading.Lock()


def default_session() -> ExifToolSession:
    """The process-wide session, created on first use and closed at exit."""
    global _default
    with _default_lock:
        if _default is None:
            _default = ExifToolSession()
            atexit.register(_default.close)
        return _default
