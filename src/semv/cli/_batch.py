"""``semv verify-batch FOLDER``: many case folders at once, in worker processes or on Ray
(``semv.batch``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from semv.cli._common import (
    DEFAULT_DATA_DIR,
    BackendOpt,
    ConfigFile,
    DataDir,
    InputAdapterOpt,
    JsonFlag,
    LlmModelOpt,
    LlmUrlOpt,
    StoreUrl,
    TextOnlyFlag,
    err,
    fail,
    progress,
    settings_from,
)
from semv.errors import SemvError

__all__ = ["verify_batch"]


def verify_batch(
    folder: Annotated[Path, typer.Argument(help="A folder whose sub-folders are case folders.")],
    adapter: InputAdapterOpt = None,
    text_only: TextOnlyFlag = False,
    workers: Annotated[
        int, typer.Option("--workers", min=1, help="Worker processes (or local Ray CPUs).")
    ] = 1,
    ray: Annotated[
        bool,
        typer.Option(
            "--ray", help="Run the folders as Ray tasks (local Ray, or --ray-address/RAY_ADDRESS)."
        ),
    ] = False,
    ray_address: Annotated[
        str | None,
        typer.Option("--ray-address", metavar="ADDRESS", help="Ray cluster; implies --ray."),
    ] = None,
    json_out: JsonFlag = False,
    data_dir: DataDir = DEFAULT_DATA_DIR,
    store_url: StoreUrl = None,
    config: ConfigFile = None,
    backend: BackendOpt = None,
    llm_url: LlmUrlOpt = None,
    llm_model: LlmModelOpt = None,
) -> None:
    """Verify every case folder inside FOLDER, each case as its own run (all folders are
    validated first; a progress bar counts folders)."""
    from semv.agents.backends import with_llm_overrides
    from semv.batch import BatchSpec, batch_folders
    from semv.batch import verify_batch as run_batch
    from semv.store import Store

    try:
        settings = with_llm_overrides(
            settings_from(config), backend=backend, url=llm_url, model=llm_model
        )
        store = Store(data_dir, url=store_url)  # creates or upgrades the schema once, here
        spec = BatchSpec(store.url, data_dir, settings, adapter=adapter, text_only=text_only)
        store.close()
        total = len(batch_folders(folder))
        with progress(json_out) as bar:
            task = bar.add_task("verify-batch", total=total)

            def tick(_rows: list[dict[str, Any]]) -> None:
                bar.advance(task)

            rows = run_batch(
                folder,
                spec,
                workers=workers,
                ray=ray,
                ray_address=ray_address,
                on_folder=tick,
            )
    except SemvError as exc:
        fail(exc)
    failed = [r for r in rows if r["status"] != "committed"]
    if json_out:
        sys.stdout.write(json.dumps(rows, indent=2, ensure_ascii=False) + "\n")
    else:
        for r in rows:  # one tab-separated line per case
            confidence = "-" if r["confidence"] is None else f"{r['confidence']:.3f}"
            fields = (r["status"], r["case_id"], r["label"] or "-", confidence, r["run_id"] or "-")
            sys.stdout.write("\t".join(fields) + "\n")
        err.print(f"{len(rows) - len(failed)} of {len(rows)} cases committed", highlight=False)
    if failed:
        raise typer.Exit(1)
