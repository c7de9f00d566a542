"""A case folder from a link: the page's claim, its images as media, the page as provenance.

The folder is the generic adapter's (``case.yaml`` and media files), plus:

- ``page.html``: the bytes fetched, as they arrived;
- ``provenance.json``: the link, the final URL after redirects, the fetch time and SHA-256 of the
  page and of every image, the page's title, author, publication date and main text, where the
  claim was taken from, and every image left out with the reason.

Choices, in order: the media are the page's declared picture (``og:image``) and then its
article images in page order, up to ``links.max_images`` that download as images (the bytes are
sniffed: an HTML error page served as ``photo.jpg`` is left out); the first is ``primary``, the
others ``context``. The claim is the caption of the primary image (its ``<figcaption>``), else
the page's title. The claimed date is the page's publication date (a picture published as news
of that day), the source URL the final URL (for a page saved to disk, the address it gives for
itself: ``<link rel="canonical">`` or ``og:url``), the language the page's ``<html lang>``.

The folder is built beside its target and renamed into place once it loads as a case, so a
failure leaves nothing half-written.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from semv.atomic import umask_mode
from semv.errors import InputError
from semv.links._fetch import Fetched, LinkFetcher
from semv.links._page import PageFacts, PageImage, html_charset, read_page
from semv.retrieval import PrivateAddressRefused, RetrievalError

if TYPE_CHECKING:
    from semv.config import LinkConfig

__all__ = ["LinkCase", "LinkMedia", "case_from_link", "case_id_for", "check_link"]

_HTML_TYPES = ("text/html", "application/xhtml+xml")
_SLUG = re.compile(r"[^a-z0-9]+")
_SNIFF: tuple[tuple[bytes, int, str], ...] = (
    (b"\xff\xd8\xff", 0, ".jpg"),
    (b"\x89PNG\r\n\x1a\n", 0, ".png"),
    (b"GIF87a", 0, ".gif"),
    (b"GIF89a", 0, ".gif"),
    (b"WEBP", 8, ".webp"),
    (b"BM", 0, ".bmp"),
    (b"II*\x00", 0, ".tif"),
    (b"MM\x00*", 0, ".tif"),
)
SOCIAL_HINT = (
    "a post behind a login or an app (most social platforms) cannot be fetched: save the page "
    "from your browser and give file:///path/to/page.html, or write a case folder"
)


@dataclass(frozen=True)
class LinkMedia:
    """One image of the case and where it came from."""

    path: str
    role: str
    url: str
    final_url: str
    fetched_at: str
    sha256: str
    bytes: int
    alt: str
    caption: str
    found_in: str


@dataclass(frozen=True)
class LinkCase:
    """What ``case_from_link`` wrote."""

    folder: Path
    case_id: str
    claim: str
    claim_from: str
    """``caption of <file>`` or ``page title``."""
    page: Fetched
    facts: PageFacts
    media: tuple[LinkMedia, ...]
    skipped: tuple[tuple[str, str], ...]
    """(image URL, why it was left out)."""
    saved_from: str | None = None
    """The address a page saved to disk gives for itself (its canonical URL), if any."""

    @property
    def source_url(self) -> str:
        """Where the claim appeared: the page's final URL, or a saved page's own address."""
        return self.saved_from or self.page.final_url


def check_link(url: str) -> str:
    """``url`` stripped; ``InputError`` for a link with spaces or control characters inside."""
    link = url.strip()
    if not link or any(c.isspace() or not c.isprintable() for c in link):
        raise InputError(f"{url!r}: not a link (spaces or control characters inside)")
    if urlsplit(link).scheme.lower() not in ("http", "https", "file"):
        raise InputError(f"{link}: only http, https and file links are read")
    return link


def case_id_for(url: str) -> str:
    """A readable, stable case id: the host and path as a slug, plus 8 hex of the URL's hash."""
    parts = urlsplit(url)
    readable = _SLUG.sub("-", f"{parts.hostname or 'file'} {parts.path}".lower()).strip("-")
    digest = hashlib.sha256(url.encode("utf-8")).hexdigest()[:8]
    return f"{readable[:80].rstrip('-')}-{digest}"


def case_from_link(
    url: str,
    out: Path,
    *,
    fetcher: LinkFetcher,
    cfg: LinkConfig,
    replace: bool = False,
    private_hint: str = "",
) -> LinkCase:
    """Fetch ``url`` and write its case folder at ``out`` (see the module docstring).

    ``out`` must not exist or be empty, unless ``replace`` (the folder ``semv verify URL`` keeps
    per link under the data directory). ``InputError`` names the link and the problem;
    ``private_hint`` is added to the refusal of a non-public address (how the caller allows it)."""
    link = check_link(url)
    if not replace and out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise InputError(f"{out}: already exists and is not an empty folder (choose another --out)")
    try:
        page = fetcher.page(link)
    except PrivateAddressRefused as exc:
        raise InputError(f"{exc}{private_hint}") from exc
    except RetrievalError as exc:
        raise InputError(str(exc)) from exc
    html = _html_text(page)
    facts = read_page(html, page.final_url, min_image_side=cfg.min_image_side)
    images, skipped = _download(facts.images, fetcher, cfg.max_images)
    primary = images[0][1] if images else None
    if primary is not None and primary.caption:
        claim, claim_from = primary.caption, f"caption of {images[0][2]}"
    elif facts.title:
        claim, claim_from = facts.title, "page title"
    else:
        raise InputError(f"{link}: the page has neither a title nor an image caption to verify")
    # a saved page: its own address names it and is where the claim appeared
    published_at = facts.canonical if page.final_url.startswith("file:") else None
    case_id = case_id_for(published_at or link)
    media = tuple(
        LinkMedia(
            path=name,
            role="primary" if n == 0 else "context",
            url=image.url,
            final_url=fetched.final_url,
            fetched_at=fetched.fetched_at,
            sha256=fetched.sha256,
            bytes=len(fetched.data),
            alt=image.alt,
            caption=image.caption,
            found_in=image.found_in,
        )
        for n, (fetched, image, name) in enumerate(images)
    )
    result = LinkCase(
        out, case_id, claim, claim_from, page, facts, media, tuple(skipped), published_at
    )
    _write(result, {m.path: f.data for m, (f, _, _) in zip(media, images, strict=True)}, replace)
    return result


def _html_text(page: Fetched) -> str:
    kind = page.content_type.split(";")[0].strip().lower()
    sniffed = page.data[:512].lstrip().lower().startswith((b"<!doctype html", b"<html"))
    if kind not in _HTML_TYPES and not (kind == "" and sniffed):
        shown = kind or "unknown"
        raise InputError(
            f"{page.url}: not an HTML page (content type {shown}); give the page that shows the "
            f"picture and its caption ({SOCIAL_HINT})"
        )
    return page.data.decode(_codec(html_charset(page.content_type, page.data)), errors="replace")


def _codec(name: str) -> str:
    import codecs

    try:
        return codecs.lookup(name).name
    except LookupError:
        return "utf-8"


def _download(
    candidates: tuple[PageImage, ...], fetcher: LinkFetcher, limit: int
) -> tuple[list[tuple[Fetched, PageImage, str]], list[tuple[str, str]]]:
    kept: list[tuple[Fetched, PageImage, str]] = []
    skipped: list[tuple[str, str]] = []
    digests: set[str] = set()
    for image in candidates:
        if len(kept) >= limit:
            skipped.append((image.url, f"over links.max_images ({limit})"))
            continue
        try:
            fetched = fetcher.image(image.url)
        except RetrievalError as exc:
            skipped.append((image.url, str(exc)))
            continue
        suffix = _image_suffix(fetched.data)
        if suffix is None:
            kind = fetched.content_type.split(";")[0] or "unknown type"
            skipped.append((image.url, f"not an image ({kind})"))
            continue
        if fetched.sha256 in digests:
            skipped.append((image.url, "the same image as another one kept"))
            continue
        digests.add(fetched.sha256)
        kept.append((fetched, image, f"image-{len(kept) + 1}{suffix}"))
    return kept, skipped


def _image_suffix(data: bytes) -> str | None:
    """The file suffix of an image's bytes by their signature; None for anything else."""
    for magic, offset, suffix in _SNIFF:
        if data[offset : offset + len(magic)] == magic and (
            magic != b"WEBP" or data[:4] == b"RIFF"
        ):
            return suffix
    return None


def _case_document(case: LinkCase) -> dict[str, Any]:
    context: dict[str, Any] = {"source_url": case.source_url}
    if case.facts.published:
        context["date"] = case.facts.published
    if case.facts.language:
        context["language"] = case.facts.language
    return {
        "id": case.case_id,
        "claim": case.claim,
        "media": [{"path": m.path, "role": m.role} for m in case.media],
        "context": context,
    }


def _provenance(case: LinkCase) -> dict[str, Any]:
    return {
        "page": {
            "url": case.page.url,
            "final_url": case.page.final_url,
            "fetched_at": case.page.fetched_at,
            "sha256": case.page.sha256,
            "bytes": len(case.page.data),
            "content_type": case.page.content_type,
            "file": "page.html",
            "canonical": case.facts.canonical,
            "title": case.facts.title,
            "author": case.facts.author,
            "published": case.facts.published,
            "language": case.facts.language,
        },
        "claim_from": case.claim_from,
        "media": [asdict(m) for m in case.media],
        "skipped_images": [{"url": url, "reason": reason} for url, reason in case.skipped],
        "text": case.facts.text,
    }


def _write(case: LinkCase, media: dict[str, bytes], replace: bool) -> None:
    import yaml

    from semv.adapters import load_cases

    out = case.folder
    out.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.building-"))
    try:
        building.chmod(umask_mode(0o777))
        header = (
            f"# Built by `semv case from-url` from {case.page.url} (fetched "
            f"{case.page.fetched_at});\n# the page, its SHA-256 and every image's origin: "
            "provenance.json. Edit the claim or context freely.\n"
        )
        text = yaml.safe_dump(_case_document(case), allow_unicode=True, sort_keys=False, width=100)
        _put(building / "case.yaml", (header + text).encode("utf-8"))
        _put(building / "page.html", case.page.data)
        for name, data in media.items():
            _put(building / name, data)
        record = json.dumps(_provenance(case), ensure_ascii=False, indent=2) + "\n"
        _put(building / "provenance.json", record.encode("utf-8"))
        load_cases(building / "case.yaml", adapter="generic")  # `semv verify` takes it as is
        _move_into_place(building, out, replace)
    finally:
        if building.exists():
            shutil.rmtree(building, ignore_errors=True)


def _put(path: Path, data: bytes) -> None:
    with open(path, "wb") as handle:
        handle.write(data)


def _move_into_place(building: Path, out: Path, replace: bool) -> None:
    old: Path | None = None
    if out.exists():
        if replace:
            old = out.with_name(f".{out.name}.old-{os.getpid()}")
            shutil.rmtree(old, ignore_errors=True)
            out.rename(old)
        else:
            out.rmdir()  # checked empty before the fetch
    try:
        building.rename(out)
    except OSError:
        if old is not None:
            old.rename(out)
        raise
    if old is not None:
        with contextlib.suppress(OSError):
            shutil.rmtree(old)
