"""``semv verify-batch FOLDER``: many case folders at once, in worker processes or on Ray
(``semv.batch``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from semv._procedure_names import DEFAULT_PROCEDURE, PROCEDURE_NAMES
from semv.cli._common import (
    DEFAULT_DATA_DIR,
    BackendOpt,
    BeforeOpt,
    ConfigFile,
    DataDir,
    InputAdapterOpt,
    JsonFlag,
    LlmModelOpt,
    LlmUrlOpt,
    ProcedureOpt,
    RayAddressOpt,
    RayFlag,
    ReportsOut,
    SourceOpt,
    StoreUrl,
    TextOnlyFlag,
    WorkersOpt,
    err,
    fail,
    progress,
    settings_from,
)
from semv.errors import InputError, SemvError

__all__ = ["verify_batch"]


def verify_batch(
    folder: Annotated[Path, typer.Argument(help="A folder whose sub-folders are case folders.")],
    adapter: InputAdapterOpt = None,
    text_only: TextOnlyFlag = False,
    procedure: ProcedureOpt = DEFAULT_PROCEDURE,
    source: SourceOpt = None,
    before: BeforeOpt = None,
    out_dir: ReportsOut = None,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            help="Continue a stopped batch: skip each case already committed with the same "
            "content, procedure, sources and settings, and continue each interrupted run.",
        ),
    ] = False,
    workers: WorkersOpt = 1,
    ray: RayFlag = False,
    ray_address: RayAddressOpt = None,
    json_out: JsonFlag = False,
    data_dir: DataDir = DEFAULT_DATA_DIR,
    store_url: StoreUrl = None,
    config: ConfigFile = None,
    backend: BackendOpt = None,
    llm_url: LlmUrlOpt = None,
    llm_model: LlmModelOpt = None,
) -> None:
    """Verify every case folder inside FOLDER, each case as its own run (all folders are
    validated first; one that is not a readable case is reported and the others still run;
    a progress bar counts folders). Exit 1 when a run failed, 2 when a folder or case was
    invalid, else 0."""
    from semv.agents.backends import with_llm_overrides
    from semv.batch import BatchSpec, batch_folders
    from semv.batch import verify_batch as run_batch
    from semv.store import Store

    try:
        if procedure not in PROCEDURE_NAMES:
            from semv.procedures import get_procedure

            get_procedure(procedure)  # the error naming the valid procedures
        if before and not source:
            raise InputError("--before needs at least one --source")
        if source:
            from semv.cli._retrieval import check_source_names

            check_source_names(source)
        settings = with_llm_overrides(
            settings_from(config), backend=backend, url=llm_url, model=llm_model
        )
        store = Store(data_dir, url=store_url)  # creates or upgrades the schema once, here
        spec = BatchSpec(
            store.url,
            data_dir,
            settings,
            adapter=adapter,
            text_only=text_only,
            procedure=procedure,
            sources=tuple(source or ()),
            before=before,
            reports_dir=out_dir.resolve() if out_dir is not None else None,
            resume=resume,
        )
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
    failed = [r for r in rows if r["status"] == "failed"]
    invalid = [r for r in rows if r["status"] == "invalid"]
    if json_out:
        sys.stdout.write(json.dumps(rows, indent=2, ensure_ascii=False) + "\n")
    else:
        for r in rows:  # one tab-separated line per case
            confidence = "-" if r["confidence"] is None else f"{r['confidence']:.3f}"
            fields = (r["status"], r["case_id"], r["label"] or "-", confidence, r["run_id"] or "-")
            sys.stdout.write("\t".join(fields) + "\n")
        for r in invalid:
            err.print(f"[bold red]invalid:[/] {r['error']}", highlight=False)
        skipped = sum(r["status"] == "skipped" for r in rows)
        committed = sum(r["status"] == "committed" for r in rows)
        err.print(
            f"{committed} of {len(rows)} cases committed"
            + (f", {skipped} already committed earlier (skipped)" if skipped else "")
            + (f", {len(invalid)} invalid" if invalid else "")
            + (f", {len(failed)} failed" if failed else ""),
            highlight=False,
        )
    if failed:
        raise typer.Exit(1)
    if invalid:
        raise typer.Exit(2)
