"""A run whose recorded case (its ``bundle`` node) is missing or damaged: resuming it and
printing its report each tell the two apart instead of treating damage as absence."""

from __future__ import annotations

import hashlib
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from semv.errors import InputError, StoreError
from semv.model import RunStatus, TraceKind
from semv.resume import claim_interrupted
from semv.store import NodeRecord, Store, utc_now


def _dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], check=True,
                          capture_output=True, text=True)  # fmt: skip
    return int(done.stdout)


def _damage_bundle(store: Store, run_id: str) -> None:
    content = b'{"case": {"id": "c1"}}'  # no claim: not a Bundle
    digest = hashlib.sha256(content).hexdigest()
    store.put_blob(digest, content)
    record = NodeRecord("bundle", "bundle", "fp", digest, reused=False, seconds=0.0)
    store.record_nodes(run_id, [(record, TraceKind.NODE_EXECUTED, {}, utc_now())])


def _orphaned_run(data: Path) -> tuple[Store, str]:
    """A run left ``running`` by a process that is gone, as after kill -9."""
    store = Store(data)
    run_id = store.create_run(case_id="c1", adapter="generic", settings_hash="s", agents="offline")
    with sqlite3.connect(data / "semv.db") as conn:
        conn.execute("UPDATE run_owners SET pid = ? WHERE run_id = ?", (_dead_pid(), run_id))
    return store, run_id


def test_a_run_that_died_before_recording_its_case_asks_for_the_folder(tmp_path: Path) -> None:
    store, run_id = _orphaned_run(tmp_path)
    with pytest.raises(InputError, match="interrupted before it recorded its case"):
        claim_interrupted(store, run_id)
    assert store.get_run(run_id).status is RunStatus.RUNNING  # nothing was closed


def test_a_damaged_recorded_case_is_a_store_error_not_a_missing_one(tmp_path: Path) -> None:
    """A bundle node whose stored value does not validate is damage, reported as such, not
    mistaken for a run that never recorded its case."""
    store, run_id = _orphaned_run(tmp_path)
    _damage_bundle(store, run_id)
    with pytest.raises(StoreError, match="recorded case does not validate"):
        claim_interrupted(store, run_id)
    assert store.get_run(run_id).status is RunStatus.RUNNING


def test_the_printable_report_shows_no_media_without_a_case_and_fails_on_a_damaged_one(
    tmp_path: Path,
) -> None:
    from pydantic import ValidationError

    from semv.web._print import _media_figures

    store, run_id = _orphaned_run(tmp_path)
    assert _media_figures(store, run_id) == ""  # no bundle node: nothing to show
    _damage_bundle(store, run_id)
    with pytest.raises(ValidationError):
        _media_figures(store, run_id)
