"""An append-only log of trace heads outside the database: an external anchor for runs.

The hash chain inside the database detects an edited row, but someone who rewrites the whole
database can recompute every hash. Each finished run therefore also appends one JSON line
``{run_id, status, head, at[, mac]}`` to a file outside it (``<data dir>/heads.log``, or the
path in ``SEMV_HEAD_LOG``, which may sit on another volume or be made append-only with
``chattr +a``); with a key in ``SEMV_HEAD_KEY`` each line carries an HMAC-SHA256 of its
fields, so lines cannot be forged without the key. ``Store.verify_trace`` checks a run's
stored head against its last line. Not from the papers.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from pathlib import Path

from semv.store._hashing import canonical_json

__all__ = ["HeadLog", "head_log_for"]

LOG_ENV = "SEMV_HEAD_LOG"
KEY_ENV = "SEMV_HEAD_KEY"


class HeadLog:
    """Append and read head entries; one JSON object per line."""

    def __init__(self, path: Path, key: bytes | None = None) -> None:
        self.path = path
        self.key = key

    def _mac(self, entry: dict[str, str | None]) -> str:
        if self.key is None:
            raise RuntimeError("the head log has no key to sign with (SEMV_HEAD_KEY)")
        return hmac.new(self.key, canonical_json(entry).encode(), hashlib.sha256).hexdigest()

    def append(self, run_id: str, status: str, head: str | None, at: str) -> None:
        entry: dict[str, str | None] = {"run_id": run_id, "status": status, "head": head, "at": at}
        if self.key is not None:
            entry["mac"] = self._mac(entry)
        line = (json.dumps(entry, sort_keys=True) + "\n").encode()
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)  # one write of one line: atomic for O_APPEND
        finally:
            os.close(fd)

    def problem(self, run_id: str, status: str, head: str | None) -> str | None:
        """Why the stored (status, head) of ``run_id`` disagrees with the log, or None (also
        when the log has no line for the run: runs finished before the log existed)."""
        if not self.path.is_file():
            return None
        last: dict[str, str | None] | None = None
        with self.path.open(encoding="utf-8", errors="replace") as handle:
            for number, line in enumerate(handle, start=1):
                if f'"{run_id}"' not in line:
                    continue
                try:
                    entry = json.loads(line)
                except json.JSONDecodeError:
                    return f"head log line {number} is malformed"
                if not isinstance(entry, dict) or entry.get("run_id") != run_id:
                    continue
                if self.key is not None:
                    mac = entry.pop("mac", None)
                    if not isinstance(mac, str) or not hmac.compare_digest(mac, self._mac(entry)):
                        return f"head log line {number} does not carry a valid signature"
                last = entry
        if last is None:
            return None
        if last.get("head") != head or last.get("status") != status:
            return (
                f"the head log records {last.get('status')} with head {last.get('head')}; "
                f"the store says {status} with head {head}"
            )
        return None


def head_log_for(data_dir: Path | None) -> HeadLog | None:
    """The head log of a store: ``SEMV_HEAD_LOG`` or ``<data dir>/heads.log``; None for a
    store given by URL without ``SEMV_HEAD_LOG``."""
    from semv.config import environment

    env = environment()
    path = env.head_log or (data_dir / "heads.log" if data_dir is not None else None)
    if path is None:
        return None
    return HeadLog(path, env.head_key.encode() if env.head_key else None)
