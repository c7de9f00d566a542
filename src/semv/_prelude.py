"""What ``semv verify`` starts before anything else is imported: the worker processes that
load a model on the machine's other core while this process imports semv.

No import of typer, pydantic or any semv model (the switches are read by
``semv._environment``, standard library only): ``python -m semv`` (``semv.__main__``) calls
``start_workers`` before importing the CLI (typer, rich, click: ~0.15 s of CPU the worker
would otherwise wait for before it starts), and the CLI calls it again from its group's
``resolve_command`` (the ``semv`` console script, and tests calling ``semv.cli.main``); each
worker starts at most once per process, so the second call starts nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["backend_of", "start_workers"]

_NO_MEDIA_FLAGS = frozenset({"--text-only", "--help", "-h"})


def start_workers(args: Sequence[str]) -> None:
    """Before a command's modules load, ``semv verify`` starts the worker processes that load
    a model on the other core while this process imports the pipeline (each on with two or
    more usable CPUs, off with its switch at 0):

    - of media, OCR's (``semv.perception.ocr_worker``, ``SEMV_OCR_WORKER``), which imports
      RapidOCR; the media stage hands it the images when it will read them, or releases it;
    - ``--text-only`` on the LLM backend, the NLP worker (``semv.nlp.worker``,
      ``SEMV_NLP_WORKER``), which loads spaCy and extracts the claim's facts, the one text
      such a run parses (with media, the media's text is parsed here, so spaCy loads here
      anyway)."""
    if list(args[:1]) != ["verify"] or {"--help", "-h"}.intersection(args):
        return
    from semv.errors import ConfigError

    try:
        if not _NO_MEDIA_FLAGS.intersection(args):
            from semv.perception import ocr_worker

            ocr_worker.spawn()
        elif "--text-only" in args and backend_of(args) == "llm":
            from semv.nlp import worker

            worker.spawn()
    except ConfigError:
        return  # an invalid switch: the command reads the same environment and reports it


def backend_of(args: Sequence[str]) -> str | None:
    """The value of ``--backend`` in ``args`` (the last one given), if any."""
    value = None
    for i, arg in enumerate(args):
        if arg == "--backend" and i + 1 < len(args):
            value = args[i + 1]
        elif arg.startswith("--backend="):
            value = arg.partition("=")[2]
    return value
