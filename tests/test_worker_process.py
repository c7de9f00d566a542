"""What the two worker processes share (``semv._worker_process``): the switch that turns each
on, and the parent's side of a worker (start once, send one request, read JSON lines)."""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

from semv import _worker_process
from semv._worker_process import Worker
from semv.nlp import worker as nlp_worker
from semv.perception import ocr_worker


@pytest.mark.parametrize(("module", "variable"), [
    (nlp_worker, "SEMV_NLP_WORKER"),
    (ocr_worker, "SEMV_OCR_WORKER"),
])  # fmt: skip
@pytest.mark.parametrize(("cpus", "setting", "on"), [
    ({0}, None, False),  # one usable core: nothing to run the worker on
    ({0, 1}, None, True),  # the default where a second core exists
    ({0, 1, 2, 3}, "0", False),
    ({0}, "1", True),
])  # fmt: skip
def test_each_worker_is_on_by_default_with_a_second_cpu(
    monkeypatch: pytest.MonkeyPatch,
    module: ModuleType,
    variable: str,
    cpus: set[int],
    setting: str | None,
    on: bool,
) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: cpus, raising=False)
    for other in ("SEMV_NLP_WORKER", "SEMV_OCR_WORKER"):  # each reads its own switch only
        monkeypatch.setenv(other, "1" if setting == "0" else "0")
    if setting is None:
        monkeypatch.delenv(variable, raising=False)
    else:
        monkeypatch.setenv(variable, setting)
    assert _worker_process.usable_cpus() == len(cpus)
    assert module.enabled() is on


def _echo_worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lines: int) -> Worker:
    """A worker module that answers its request with ``lines`` JSON lines (then "not JSON"),
    on this test's path."""
    (tmp_path / "echo_worker.py").write_text(
        textwrap.dedent(f"""
        import json, sys
        order = sys.stdin.buffer.readline()
        if order.strip():
            for i in range({lines}):
                print(json.dumps({{"i": i, **json.loads(order)}}), flush=True)
            print("not JSON", flush=True)
    """)
    )
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.setenv("SEMV_NLP_WORKER", "1")
    return Worker("echo_worker", "nlp_worker")


def _keep(into: list[dict[str, object]], answer: dict[str, object], complete: bool) -> bool:
    into.append(answer)
    return complete


def test_a_worker_starts_once_and_its_lines_reach_the_handler(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    worker = _echo_worker(tmp_path, monkeypatch, lines=3)
    assert not worker.spawned()
    assert worker.spawn()
    proc = worker.proc
    assert worker.spawn() and worker.proc is proc  # once per process
    got: list[dict[str, object]] = []
    assert worker.send({"text": "x"})
    worker.collect(lambda answer: _keep(got, answer, False))
    assert worker.done.wait(60)
    assert got == [{"i": 0, "text": "x"}, {"i": 1, "text": "x"}, {"i": 2, "text": "x"}]
    assert proc is not None and proc.wait(10) == 0
    assert not worker.send({"text": "again"})  # one request per worker


def test_a_handler_that_has_its_answer_ends_the_wait_before_the_worker_exits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "slow_worker.py").write_text(
        textwrap.dedent("""
        import sys, time
        sys.stdin.buffer.readline()
        print('{"answer": 1}', flush=True)
        time.sleep(30)
    """)
    )
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    worker = Worker("slow_worker", "ocr_worker")
    monkeypatch.setenv("SEMV_OCR_WORKER", "1")
    assert worker.spawn() and worker.send({})
    worker.collect(lambda answer: answer == {"answer": 1})
    assert worker.done.wait(20)
    assert worker.proc is not None and worker.proc.poll() is None  # still running
    worker.stop()
    assert worker.proc.poll() is not None


def test_a_worker_that_is_off_or_released_takes_no_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    worker = _echo_worker(tmp_path, monkeypatch, lines=1)
    monkeypatch.setenv("SEMV_NLP_WORKER", "0")
    assert not worker.spawn() and not worker.spawned()
    assert not worker.send({"text": "x"})
    monkeypatch.setenv("SEMV_NLP_WORKER", "1")
    assert worker.spawn() and worker.send(None)  # released: stdin closed, nothing asked
    got: list[dict[str, object]] = []
    worker.collect(lambda answer: _keep(got, answer, True))
    assert worker.done.wait(60) and got == []
    assert worker.proc is not None and worker.proc.wait(10) == 0
    assert not worker.send({"text": "x"})


def test_a_missing_interpreter_means_no_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "executable", "")
    monkeypatch.setenv("SEMV_NLP_WORKER", "1")
    worker = Worker("echo_worker", "nlp_worker")
    assert not worker.spawn() and not worker.spawned()
