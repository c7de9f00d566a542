"""The claim's facts extracted in a second process, which loads spaCy while this one starts.

On the LLM backend a text-only first pass parses one text with spaCy: the claim, for the
offline extractor's facts (``semv.dimensions.case_facts``, which ``decompose_case`` runs while
the model answers the decomposer). Importing spaCy (~0.35 s) and loading its pipeline (~0.4 s)
for that one parse are CPU in the one process that also imports semv and prepares every model
call, before the argue requests can leave. This module moves them to a worker process on the
machine's other core, like OCR's (``semv.perception.ocr_worker``):

1. ``spawn`` (called by the CLI for ``semv verify --text-only --backend llm`` before the
   command's modules are imported) starts ``python -m semv.nlp.worker``, which loads the spaCy
   pipeline, the gazetteer and the date parser (one warm-up extraction of a fixed sentence)
   while the parent imports semv, then waits for a request on its stdin.
2. ``facts_for`` (called by ``case_facts`` for the claim) sends the text and its language with
   the pipeline's settings (model name and excluded components), then waits for the answer: the
   same request echoed with the ``ClaimFacts`` of ``extract(text, language).claim_facts()``,
   the very function the in-process path calls, as JSON.
3. The answer is used only when it echoes exactly this request (text, language, settings);
   otherwise, when the worker reported an error, exited, timed out or was never started,
   ``facts_for`` returns None and the caller extracts in-process (an error is then met, and
   handled, as without a worker).

The facts are the same either way: ``ClaimFacts`` holds only tuples of strings, which JSON
carries exactly (``tests/test_nlp_worker.py`` checks the round trip and a whole run's result
with the worker on and off). Nothing is left behind: the worker exits once it has answered,
when its stdin closes (the parent exited) and, on Linux, when the parent dies
(``PR_SET_PDEATHSIG``); the parent reaps it, and kills it at exit if it still runs.

On where this process may run on two or more CPUs (``SEMV_NLP_WORKER=0`` turns it off,
``SEMV_NLP_WORKER=1`` on); with one usable CPU it stays off. With a core free it takes 0.13-0.26 s
(5-9 %) off the example's text-only LLM pass; with the other core busy it makes it 1.0-1.5 s
slower (its ~1.2 s of CPU competes with this process; docs/evaluation.md, "Start-up and
throughput"). A case with media needs spaCy in this process anyway (the media's text is
parsed for query seeds), so the CLI starts it only for text-only runs.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from typing import TYPE_CHECKING, Any, Final

from semv._worker_process import Worker, die_with_parent

if TYPE_CHECKING:  # imported when used: the CLI imports this module before any of semv's models
    from semv.model import ClaimFacts

__all__ = ["WAIT_S", "enabled", "facts_for", "release", "settings", "spawn", "spawned"]

WAIT_S: Final = 120.0
"""How long ``facts_for`` waits for the worker's answer before extracting in-process."""

_WARM_UP: Final = "Flooding in Lyon, France on 12 March 2024, said the mayor."
"""Extracted by the worker before its request arrives: spaCy, the gazetteer and the date
parser's data are then loaded (the same sentence ``semv eval``'s preload extracts)."""


def _arguments() -> list[str]:
    """The worker's command line: the cache folder of this process's environment (the
    gazetteer's file), so the worker reads no environment itself."""
    from semv._environment import environment

    return ["--cache-dir", str(environment().cache_root)]


_worker = Worker("semv.nlp.worker", "nlp_worker", _arguments)
_sent: dict[str, Any] | None = None
"""The request sent to the worker (at most one per process)."""
_answer: dict[str, Any] | None = None


def enabled() -> bool:
    """``SEMV_NLP_WORKER=1`` or ``0`` when set; otherwise True where this process may use two or
    more CPUs."""
    return _worker.enabled()


def settings() -> dict[str, Any]:
    """What, besides the text and its language, decides the facts: the spaCy pipeline's name
    and the components it excludes (``semv.nlp.parsing``)."""
    from semv.nlp.parsing import EXCLUDE, SPACY_MODEL

    return {"model": SPACY_MODEL, "exclude": list(EXCLUDE)}


def spawn() -> bool:
    """Start the worker (once per process); False when it is off (``enabled``) or cannot be
    started, and the claim is then parsed in-process."""
    return _worker.spawn()


def spawned() -> bool:
    """A worker was started in this process."""
    return _worker.spawned()


def facts_for(text: str, language: str | None) -> ClaimFacts | None:
    """The worker's ``extract(text, language).claim_facts()``, or None: no worker, already
    asked for another text, an answer to another request, an error, or no answer in
    ``WAIT_S``. The first call sends the request; the caller then extracts in-process on
    None."""
    order = {"text": text, "language": language, **settings()}
    if not _send(order):
        return None
    if not _worker.done.wait(WAIT_S):
        _worker.stop()
        return None
    answer = _answer
    if answer is None or {k: answer.get(k) for k in order} != order:
        return None
    facts = answer.get("facts")
    if not isinstance(facts, dict):
        return None
    from semv.model import ClaimFacts

    try:
        return ClaimFacts.model_validate(facts)
    except ValueError:
        return None


def release() -> None:
    """Nothing to ask: the worker exits (its stdin closes) and is reaped."""
    _send(None)


def _send(order: dict[str, Any] | None) -> bool:
    """Send ``order`` (None: close without one) when nothing was sent yet; True when
    ``order`` is the request the worker has (sent now or before)."""
    global _sent
    if _worker.proc is None:
        return False
    with _worker.lock:
        if _sent is not None or _worker.done.is_set():
            return order is not None and _sent == order
        _sent = order or {}
        if not _worker.send(order):
            return False
    _worker.collect(_keep)
    return order is not None


def _keep(answer: dict[str, Any]) -> bool:
    """The worker answers once: keep the answer, and the caller need not wait for its exit."""
    global _answer
    _answer = answer
    return True


# ---- the worker process ----------------------------------------------------------------------


def answer(order: dict[str, Any]) -> dict[str, Any]:
    """The worker's answer to ``order``: the order itself with the facts, or with the error
    met (the parent then extracts in-process and meets it again)."""
    from semv.nlp.entities import extract

    try:
        if {k: order.get(k) for k in ("model", "exclude")} != settings():
            raise ValueError("the worker's spaCy settings differ from the request's")
        language = order["language"]
        facts = extract(str(order["text"]), None if language is None else str(language))
        return {**order, "facts": facts.claim_facts().model_dump(mode="json")}
    except Exception as exc:  # the parent extracts in-process
        return {**order, "error": f"{type(exc).__name__}: {exc}"}


def _serve() -> int:
    if not die_with_parent():  # the parent is already gone
        return 0
    from pathlib import Path

    from semv.nlp.entities import extract_facts
    from semv.nlp.places import load_index

    args = sys.argv[1:]
    with contextlib.suppress(Exception):  # while the parent imports semv
        if args[:1] == ["--cache-dir"] and len(args) == 2:
            load_index(Path(args[1]))
        extract_facts(_WARM_UP)
    line = sys.stdin.buffer.readline()
    if not line.strip():
        return 0  # released, or the parent exited
    sys.stdout.write(json.dumps(answer(json.loads(line))) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    code = _serve()
    sys.stdout.flush()
    # nothing outside this process is left to close: skip freeing spaCy's pipeline and the
    # gazetteer (0.1-0.4 s the parent, reaping this process, would otherwise wait for)
    os._exit(code)
