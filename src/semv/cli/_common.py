"""What every ``semv`` command shares: the two consoles, the common options, the error exit and
the progress bar. Imports nothing heavy (typer, rich and ``semv.errors`` only), so that loading
a command module costs little; commands import what they need when they run."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer
from rich.console import Console

from semv._procedure_names import PROCEDURE_NAMES

if TYPE_CHECKING:
    from rich.progress import Progress

    from semv.config import Settings
    from semv.errors import SemvError
    from semv.store import Store

__all__ = [
    "DEFAULT_DATA_DIR",
    "BackendOpt",
    "BeforeOpt",
    "ConfigFile",
    "CorpusDb",
    "DataDir",
    "FirstN",
    "InputAdapterOpt",
    "JsonFlag",
    "LlmModelOpt",
    "LlmUrlOpt",
    "ProcedureOpt",
    "ReplayFlag",
    "ReportsOut",
    "RunIdArg",
    "SourceOpt",
    "StoreUrl",
    "TextOnlyFlag",
    "deprecated",
    "err",
    "fail",
    "open_store",
    "out",
    "progress",
    "settings_from",
]

err = Console(stderr=True, soft_wrap=True)
out = Console()

DataDir = Annotated[
    Path, typer.Option("--data-dir", help="Store directory (SQLite database, reports).")
]
DEFAULT_DATA_DIR = Path(".semv")
"""The default of ``DataDir``: ``.semv`` in the working directory (docs/cli.md)."""
StoreUrl = Annotated[
    str | None,
    typer.Option(
        "--store",
        envvar="SEMV_STORE_URL",
        metavar="URL",
        help="Database of the store, e.g. postgresql://semv@db-host/semv (default: SQLite in "
        "--data-dir). Reports, uploads and artifacts stay in --data-dir.",
        show_default=False,
    ),
]
CorpusDb = Annotated[
    Path | None,
    typer.Option(
        "--corpus-db",
        metavar="DIR",
        help="The data directory whose store (DIR/semv.db) holds the search corpus, when it is "
        "not this --data-dir (`semv index corpus --corpus-db DIR` builds it there).",
    ),
]
ConfigFile = Annotated[
    Path | None, typer.Option("--config", help="TOML file overriding configuration constants.")
]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON only.")]
BackendOpt = Annotated[
    str | None,
    typer.Option(
        "--backend",
        help="Agent backend: offline, llm (a model server) or local (an in-process "
        "model, `make local-model`) (default: config, offline).",
    ),
]
LlmUrlOpt = Annotated[
    str | None, typer.Option("--llm-url", help="OpenAI-compatible base URL (…/v1).")
]
LlmModelOpt = Annotated[str | None, typer.Option("--llm-model", help="Model name for all roles.")]
InputAdapterOpt = Annotated[
    str | None, typer.Option("--adapter", help="Input adapter (default: detected).")
]
TextOnlyFlag = Annotated[bool, typer.Option("--text-only", help="Do not read media.")]
FirstN = Annotated[int | None, typer.Option("--limit", min=1, help="First N cases.")]
WorkersOpt = Annotated[
    int,
    typer.Option(
        "--workers",
        min=1,
        help="Cases verified at once, each worker in its own process (with --ray: local Ray CPUs).",
    ),
]
RayFlag = Annotated[
    bool,
    typer.Option(
        "--ray",
        help="Run the cases as Ray tasks: on a local Ray of --workers CPUs, or on the cluster of "
        "--ray-address (or RAY_ADDRESS).",
    ),
]
RayAddressOpt = Annotated[
    str | None,
    typer.Option(
        "--ray-address",
        metavar="ADDRESS",
        help="Ray cluster to run on (HOST:6379 or ray://HOST:10001); implies --ray.",
    ),
]
RunIdArg = Annotated[str, typer.Argument(help="Run id (or a unique prefix).")]
ReportsOut = Annotated[
    Path | None,
    typer.Option(
        "--out",
        help="Reports folder: write the reports under DIR/<run id>/ (default: "
        "DATA_DIR/reports/<run id>/).",
    ),
]
SourceOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--source",
        help="Evidence source to search (repeatable): corpus, searxng, serper, brave, "
        "gdelt; web reverse-image search: tineye, serpapi-lens.",
    ),
]
BeforeOpt = Annotated[
    str | None,
    typer.Option("--before", help="Exclude (and count) evidence published after DATE."),
]
ProcedureOpt = Annotated[
    str,
    typer.Option(
        "--procedure",
        help="Verification procedure: " + ", ".join(PROCEDURE_NAMES) + ".",
    ),
]
ReplayFlag = Annotated[
    bool,
    typer.Option(
        "--replay",
        help="No requests: model answers from the response cache (--backend llm) and web "
        "search answers from the dated retrieval cache (--source).",
    ),
]


def deprecated(old: str, new: str, command: str) -> None:
    """Warn (stderr) that ``old`` is a deprecated alias of ``new`` for ``semv command``."""
    err.print(
        f"[yellow]warning:[/] `semv {command} {old}` is deprecated; use {new} "
        "(docs/cli.md: one meaning per flag)",
        highlight=False,
    )


def fail(exc: SemvError) -> NoReturn:
    """Print ``error: <exc>`` on stderr and exit with the error's code (2 bad input, 1 internal)."""
    err.print(f"[bold red]error:[/] {exc}", markup=True, highlight=False)
    raise typer.Exit(exc.exit_code)


def open_store(data_dir: Path, url: str | None) -> Store:
    """The store of ``--store URL`` (files still under ``data_dir``), else SQLite in
    ``data_dir``."""
    from semv.store import Store

    return Store(data_dir, url=url)


def settings_from(config: Path | None) -> Settings:
    """The settings of ``--config``; when None, of ``$SEMV_CONFIG`` or ``./semv.toml``
    (``semv.config.config_file``), else the defaults; then the ``SEMV_*`` variables."""
    from semv.config import load_settings

    return load_settings(config)


def progress(quiet: bool) -> Progress:
    """A transient progress bar on stderr, off with ``--json`` or when stderr is no terminal."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        disable=quiet or not err.is_terminal,
        transient=True,
    )
