"""``semv case from-url URL --out DIR``: a case folder from a link (``semv.links``); and the
helper ``semv verify URL`` uses to build one under the data directory first."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from semv.cli._common import (
    DEFAULT_DATA_DIR,
    ConfigFile,
    DataDir,
    StoreUrl,
    err,
    fail,
    open_store,
    out,
    settings_from,
)
from semv.errors import SemvError

if TYPE_CHECKING:
    from rich.console import Console

    from semv.config import Settings
    from semv.links import LinkCase

__all__ = ["AllowPrivateFlag", "build_link_case", "case_app", "is_link", "link_case_folder"]

AllowPrivateFlag = Annotated[
    bool,
    typer.Option(
        "--allow-private-network",
        help="Fetch from private, loopback and link-local addresses too (tests, intranet "
        "archives); refused by default.",
    ),
]

case_app = typer.Typer(
    help="Build case folders (from a link).", no_args_is_help=True, add_completion=False
)


def is_link(text: str) -> bool:
    """Whether a command argument is a link (``http://``, ``https://`` or ``file://``), not a
    path (a string test: ``semv verify FOLDER`` imports nothing of ``semv.links``)."""
    return text.strip().lower().startswith(("http://", "https://", "file://"))


def link_case_folder(data_dir: Path, link: str) -> Path:
    """Where ``semv verify URL`` keeps the case of ``link``: DATA_DIR/cases/<case id>/."""
    from semv.links import case_id_for, check_link

    return data_dir / "cases" / case_id_for(check_link(link))


def build_link_case(
    link: str,
    folder: Path,
    *,
    settings: Settings,
    store_url: str,
    allow_private: bool,
    replay: bool,
    replace: bool,
    console: Console,
) -> LinkCase:
    """Fetch ``link``, write its case at ``folder`` and print what was taken on ``console``."""
    from semv.links import case_from_link, open_fetcher

    fetcher = open_fetcher(settings, store_url, allow_private=allow_private, replay=replay)
    try:
        made = case_from_link(
            link,
            folder,
            fetcher=fetcher,
            cfg=settings.links,
            replace=replace,
            private_hint="; --allow-private-network fetches it anyway (tests, intranet archives)",
        )
    finally:
        fetcher.close()
    page = made.page
    console.print(f"case: {made.folder}", highlight=False, soft_wrap=True, markup=False)
    console.print(
        f"  claim ({made.claim_from}): {made.claim}", highlight=False, soft_wrap=True, markup=False
    )
    for media in made.media:
        console.print(
            f"  media: {media.path} ({media.role}, {media.found_in}) from {media.final_url}",
            highlight=False,
            soft_wrap=True,
            markup=False,
        )
    console.print(
        f"  page: {page.final_url} fetched {page.fetched_at}, sha256 {page.sha256}",
        highlight=False,
        soft_wrap=True,
        markup=False,
    )
    if not made.media:
        err.print(
            "warning: no image on the page could be taken; the case holds the claim only",
            highlight=False,
            soft_wrap=True,
            markup=False,
        )
    for url, reason in made.skipped:
        err.print(
            f"warning: image left out: {url}: {reason}",
            highlight=False,
            soft_wrap=True,
            markup=False,
        )
    return made


@case_app.command("from-url")
def from_url(
    url: Annotated[
        str,
        typer.Argument(
            metavar="URL",
            help="An http(s) link to a page with a picture and its caption, or file:///… of a "
            "saved page.",
            show_default=False,
        ),
    ],
    out_dir: Annotated[
        Path,
        typer.Option(
            "--out",
            help="The case folder to write (must not exist, or be empty).",
            show_default=False,
        ),
    ],
    allow_private: AllowPrivateFlag = False,
    replay: Annotated[
        bool,
        typer.Option(
            "--replay",
            help="No request: rebuild the case from the page recorded in the dated cache.",
        ),
    ] = False,
    data_dir: DataDir = DEFAULT_DATA_DIR,
    store_url: StoreUrl = None,
    config: ConfigFile = None,
) -> None:
    """Build a case folder from a link: the caption (or title) as the claim, the page's images
    as media, the page itself as provenance (URL, fetch time, SHA-256). Verify it with
    `semv verify DIR`, or do both at once with `semv verify URL`."""
    try:
        settings = settings_from(config)
        store = open_store(data_dir, store_url)
        try:
            build_link_case(
                url,
                out_dir,
                settings=settings,
                store_url=store.url,
                allow_private=allow_private,
                replay=replay,
                replace=False,
                console=out,
            )
        finally:
            store.close()
    except SemvError as exc:
        fail(exc)
