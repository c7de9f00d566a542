"""The ``semv`` command (``python -m semv`` is the same).

Exit codes: 0 success, 2 bad input (unknown adapter, malformed case, missing media, unknown
run), 1 internal error (a failed stage, a broken trace).

Layout: ``_common`` holds the shared options and helpers; each command group is one module,
imported only when its command runs (or help lists it), so ``semv --version`` loads no command
and ``semv verify`` no evaluation, web or plotting code. A new command is one function (or one
``typer.Typer`` group) in a module here plus one line in ``COMMANDS``.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from semv import __version__
from semv.cli._common import err, out
from semv.cli._lazy import LazyGroup

__all__ = ["COMMANDS", "app", "entry", "main"]

#: command name → "module:attr" (a command function or a typer.Typer group), in help order
COMMANDS: dict[str, str] = {
    "verify": "semv.cli._runs:verify",
    "verify-batch": "semv.cli._batch:verify_batch",
    "case": "semv.cli._case:case_app",
    "show": "semv.cli._runs:show",
    "runs": "semv.cli._runs:runs",
    "export": "semv.cli._export:export",
    "learn": "semv.cli._memory:learn_command",
    "contest": "semv.cli._contest:contest",
    "serve": "semv.cli._serve:serve",
    "eval": "semv.cli._eval:eval_app",
    "index": "semv.cli._index:index_app",
    "forensics": "semv.cli._forensics:forensics",
    "memory": "semv.cli._memory:memory_app",
}


class _SemvGroup(LazyGroup):
    lazy = COMMANDS

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        _prelude(args)
        return super().resolve_command(ctx, args)


def _prelude(args: list[str]) -> None:
    """``semv._prelude.start_workers``: the worker processes ``semv verify`` starts before the
    command's modules are imported (a no-op when ``python -m semv`` already started them)."""
    from semv._prelude import start_workers

    start_workers(args)


app = typer.Typer(
    name="semv",
    cls=_SemvGroup,
    help="Contestable multimedia verification: verify cases, inspect runs, evaluate datasets.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback(invoke_without_command=True)
def _root(
    version: Annotated[bool, typer.Option("--version", help="Print the version.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log progress.")] = False,
) -> None:
    import logging

    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, stream=sys.stderr)
    if version:
        out.print(f"semv {__version__}")
        raise typer.Exit(0)


def main() -> None:
    """Entry point: turn unexpected exceptions into exit code 1 with a clear message."""
    from semv.errors import SemvError

    try:
        app()
    except SemvError as exc:  # pragma: no cover - commands handle their own
        err.print(f"error: {exc}", highlight=False)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)


_EXIT_CODE: list[int] = [1]
"""The code ``entry`` leaves with (1 until ``main`` returns or exits)."""


def entry() -> None:
    """The ``semv`` console script and ``python -m semv``: ``main``, then leave the process
    without tearing the interpreter down. Everything a normal exit does that has an effect
    outside the process still runs: non-daemon threads are joined, every ``atexit`` handler
    runs (exiftool is closed, temporary folders removed, logging flushed), and stdout and
    stderr are flushed; only the deallocation of every object and module (the spaCy model,
    the gazetteer, OCR's sessions: 0.3-0.5 s of a cold verify's wall, all CPU, undoing
    nothing) is skipped. ``main`` itself keeps raising ``SystemExit`` (tests call it)."""
    import atexit

    # registered first, so it runs last: after every handler the command registered
    atexit.register(_leave)
    try:
        main()
        _EXIT_CODE[0] = 0
    except SystemExit as exc:
        code = exc.code
        _EXIT_CODE[0] = 0 if code is None else code if isinstance(code, int) else 1
        raise


def _leave() -> None:
    import logging
    import os

    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (``semv ... | head``): nothing to flush to
            _EXIT_CODE[0] = _EXIT_CODE[0] or 120  # what the interpreter's exit reports
    os._exit(_EXIT_CODE[0])
