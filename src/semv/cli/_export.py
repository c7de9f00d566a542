"""``semv export RUN --format claimreview|pdf [-o FILE]``: publish a committed run's verdict as
schema.org ClaimReview JSON-LD (stdout without ``-o``) or its report as PDF (``-o`` required)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from semv.atomic import umask_mode, write_text_atomic
from semv.cli._common import (
    DEFAULT_DATA_DIR,
    ConfigFile,
    DataDir,
    RunIdArg,
    StoreUrl,
    err,
    fail,
    open_store,
    settings_from,
)

__all__ = ["export"]

FORMATS = ("claimreview", "pdf")


def _write_atomic(target: Path, text: str) -> None:
    """Write an export for publication: readable as the umask allows (0644 under umask 022),
    like any file the user creates, not private like semv's working files."""
    write_text_atomic(target, text, prefix=".semv-export-", mode=umask_mode())


def export(
    run: RunIdArg,
    format: Annotated[
        str, typer.Option("--format", "-f", help="claimreview (JSON-LD) or pdf.")
    ] = "claimreview",
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="File to write (claimreview: stdout without it)."),
    ] = None,
    data_dir: DataDir = DEFAULT_DATA_DIR,
    store_url: StoreUrl = None,
    config: ConfigFile = None,
) -> None:
    """Publish a committed run: its ClaimReview JSON-LD or its report as PDF."""
    from semv.errors import InputError, RunNotFound, SemvError

    try:
        if format not in FORMATS:
            raise InputError(f"--format {format!r}: expected one of {', '.join(FORMATS)}")
        if format == "pdf" and output is None:
            raise InputError("--format pdf needs -o FILE")
        settings = settings_from(config)
        if store_url is None and not (data_dir / "semv.db").is_file():
            raise InputError(f"{data_dir}: no semv store here (use --data-dir or --store)")
        store = open_store(data_dir, store_url)
        try:
            record = store.get_run(run)
        except RunNotFound as exc:
            # never echo --store: its URL may hold a password
            where = "--store URL" if store_url else f"--data-dir {data_dir}"
            raise RunNotFound(f"{exc}; list the runs with `semv runs {where}`") from exc
        if format == "claimreview":
            from semv.export import check_claim_review, claim_review_for_run

            doc = claim_review_for_run(store, record.run_id, settings.export)
            text = json.dumps(doc, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
            for problem in check_claim_review(doc):
                err.print(f"warning: {problem}", highlight=False, markup=False)
            if output is None:
                sys.stdout.write(text)
            else:
                _write_atomic(output, text)
            return
        from semv.export import render_pdf
        from semv.web import print_html

        if output is None:
            raise InputError("a PDF needs -o/--output FILE")
        render_pdf(print_html(store, record.run_id), output, settings.export)
        err.print(f"wrote {output}", highlight=False)
    except SemvError as exc:
        fail(exc)
