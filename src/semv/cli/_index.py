"""``semv index images`` (local reverse-image search) and ``semv index corpus``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from semv.cli._common import (
    DEFAULT_DATA_DIR,
    ConfigFile,
    DataDir,
    JsonFlag,
    err,
    fail,
    out,
    progress,
    settings_from,
)
from semv.cli._retrieval import index_corpus
from semv.errors import InputError, SemvError

__all__ = ["index_app"]

index_app = typer.Typer(
    help="Build local indexes used during verification (images, corpus).", no_args_is_help=True
)


@index_app.command("images")
def index_images(
    folder: Annotated[Path, typer.Argument(help="Folder of images to index (recursively).")],
    meta: Annotated[
        Path | None,
        typer.Option(
            "--meta",
            help="Per-image metadata: JSON/JSONL/CSV with file, source_url, first_seen, caption.",
        ),
    ] = None,
    skip_unreadable: Annotated[
        bool,
        typer.Option(
            "--skip-unreadable",
            help="Skip (and list) images Pillow refuses instead of stopping with exit 2.",
        ),
    ] = False,
    json_out: JsonFlag = False,
    data_dir: DataDir = DEFAULT_DATA_DIR,
    config: ConfigFile = None,
) -> None:
    """Index an image collection for local reverse-image search (pHash + ORB in FAISS)."""
    from semv.perception.paths import default_index_dir
    from semv.perception.reverse_search import build_index, iter_images, read_meta

    try:
        settings = settings_from(config)
        metadata = read_meta(meta) if meta is not None else None
        if not folder.is_dir():
            raise InputError(f"{folder}: not a directory")
        index_dir = default_index_dir(settings, data_dir)
        total = len(list(iter_images(folder)))
        with progress(json_out) as bar:
            task = bar.add_task(f"index {folder.name}", total=total)
            report = build_index(
                folder,
                index_dir,
                settings.reverse_search,
                meta=metadata,
                skip_unreadable=skip_unreadable,
                progress=lambda _name: bar.advance(task),
            )
    except SemvError as exc:
        fail(exc)
    if json_out:
        payload = {
            "index": str(index_dir.resolve()),
            "indexed": report.indexed,
            "total": report.total,
            "skipped": list(report.skipped),
            "generation": report.generation,
        }
        sys.stdout.write(json.dumps(payload) + "\n")
        return
    out.print(
        f"indexed {report.indexed} image(s) from {folder} into {index_dir} "
        f"({report.total} in the index)",
        highlight=False,
    )
    for line in report.skipped:
        err.print(f"[yellow]skipped[/] {line}", highlight=False)


index_app.command("corpus")(index_corpus)
