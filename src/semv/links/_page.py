"""What a web page says about itself: title, main text, date, author, language and the images a
reader sees with their alt text and captions. Pure functions of the HTML and its URL; the page is
data, never instructions.

The main text, title, author and date come from trafilatura (its metadata reads ``<title>``,
``og:title``, ``article:published_time``, JSON-LD and the byline). Images are read with lxml:
the ``og:image`` (or ``twitter:image``) the page names as its picture, then every ``<img>`` of the
article (``<article>`` or ``<main>`` when the page has one, else the body) outside navigation,
header, footer and asides, in page order, each with its ``alt`` and the ``<figcaption>`` of the
``<figure>`` around it. Inline ``data:`` images, SVG drawings and images whose declared width or
height is below ``links.min_image_side`` (icons, tracking pixels) are not candidates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from semv.nlp.dates import iso_date

if TYPE_CHECKING:
    from lxml.html import HtmlElement

__all__ = ["PageFacts", "PageImage", "html_charset", "read_page"]

_SKIPPED_PARENTS = frozenset({"nav", "header", "footer", "aside", "form", "noscript", "template"})
_SPACES = re.compile(r"\s+")
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
_NOT_PHOTO_SUFFIXES = (".svg", ".svgz", ".ico")


@dataclass(frozen=True)
class PageImage:
    """One candidate image of a page."""

    url: str
    """Absolute URL (resolved against the page's final URL)."""
    alt: str
    caption: str
    """The text of the ``<figcaption>`` of the image's ``<figure>`` ('' when none)."""
    found_in: str
    """``og:image`` (the page's declared picture) or ``article`` (an ``<img>`` in the text)."""


@dataclass(frozen=True)
class PageFacts:
    """A page as read: bibliographic facts, main text and candidate images (page order)."""

    title: str
    text: str
    published: str | None
    """ISO date of publication, when the page states one."""
    author: str | None
    language: str | None
    """ISO 639-1 code from ``<html lang>``, when given."""
    images: tuple[PageImage, ...]
    canonical: str | None = None
    """The address the page gives for itself (``<link rel="canonical">``, else ``og:url``), an
    http(s) URL: where a page saved from a browser was published."""


def _clean(text: str | None) -> str:
    return _SPACES.sub(" ", text or "").strip()


def html_charset(content_type: str, data: bytes) -> str:
    """The page's character set: the ``charset`` of its Content-Type, else a ``<meta charset>``
    in its first 2 KB, else UTF-8."""
    for part in content_type.split(";")[1:]:
        key, _, value = part.partition("=")
        if key.strip().lower() == "charset" and value.strip():
            return value.strip().strip("\"'")
    found = _META_CHARSET.search(data[:2048])
    return found.group(1).decode("ascii") if found else "utf-8"


def read_page(html: str, url: str, *, min_image_side: int = 100) -> PageFacts:
    """The facts of the page ``html`` fetched from ``url`` (its final URL after redirects)."""
    meta = _trafilatura(html, url)
    root = _parse(html)
    title = _clean(meta.get("title")) or _meta(root, "og:title") or _clean(_title_tag(root))
    return PageFacts(
        title=title,
        text=str(meta.get("text") or "").strip(),
        published=iso_date(meta.get("date")) if meta.get("date") else None,
        author=_clean(meta.get("author")) or None,
        language=_language(root),
        images=_images(root, url, min_image_side) if root is not None else (),
        canonical=_canonical(root),
    )


def _trafilatura(html: str, url: str) -> dict[str, Any]:
    from semv.retrieval import extract_html

    return extract_html(html, url)


def _parse(html: str) -> HtmlElement | None:
    import lxml.html
    from lxml.etree import ParserError

    try:
        return lxml.html.document_fromstring(html)
    except (ParserError, ValueError):
        return None


def _title_tag(root: HtmlElement | None) -> str:
    if root is None:
        return ""
    found = root.find(".//title")
    return found.text_content() if found is not None else ""


def _meta(root: HtmlElement | None, *names: str) -> str:
    """The content of the first ``<meta property|name=NAME>`` among ``names``."""
    if root is None:
        return ""
    for name in names:
        for element in root.iter("meta"):
            if name in (element.get("property"), element.get("name")):
                content = _clean(element.get("content"))
                if content:
                    return content
    return ""


def _canonical(root: HtmlElement | None) -> str | None:
    if root is None:
        return None
    for element in root.iter("link"):
        if "canonical" in (element.get("rel") or "").lower().split():
            found = _clean(element.get("href"))
            if urlsplit(found).scheme in ("http", "https"):
                return found
    declared = _meta(root, "og:url")
    return declared if urlsplit(declared).scheme in ("http", "https") else None


def _language(root: HtmlElement | None) -> str | None:
    if root is None:
        return None
    code = (root.get("lang") or "").split("-")[0].strip().lower()
    return code if len(code) == 2 and code.isalpha() else None


def _images(root: HtmlElement, page_url: str, min_side: int) -> tuple[PageImage, ...]:
    found: dict[str, PageImage] = {}
    declared = _meta(root, "og:image", "og:image:url", "twitter:image")
    if declared and (declared_url := _absolute(declared, page_url)) is not None:
        found[declared_url] = PageImage(
            declared_url, _meta(root, "og:image:alt", "twitter:image:alt"), "", "og:image"
        )
    for element in _article(root).iter("img"):
        if _inside_skipped(element) or _too_small(element, min_side):
            continue
        source = _source(element)
        if not source or (image_url := _absolute(source, page_url)) is None:
            continue
        alt, caption = _clean(element.get("alt")), _caption(element)
        seen = found.get(image_url)
        if seen is None:
            found[image_url] = PageImage(image_url, alt, caption, "article")
        elif seen.found_in == "og:image" and not seen.caption:
            # the declared picture also stands in the text: take its caption from there
            found[image_url] = PageImage(image_url, seen.alt or alt, caption, "og:image")
    return tuple(found.values())


def _article(root: HtmlElement) -> HtmlElement:
    for tag in ("article", "main"):
        element = root.find(f".//{tag}")
        if element is not None:
            return element
    body = root.find(".//body")
    return body if body is not None else root


def _inside_skipped(element: HtmlElement) -> bool:
    parent = element.getparent()
    while parent is not None:
        if parent.tag in _SKIPPED_PARENTS:
            return True
        parent = parent.getparent()
    return False


def _too_small(element: HtmlElement, min_side: int) -> bool:
    for attribute in ("width", "height"):
        value = (element.get(attribute) or "").strip().removesuffix("px")
        if value.isdigit() and int(value) < min_side:
            return True
    return False


def _source(element: HtmlElement) -> str:
    """``src``, else the lazy-loading ``data-src``, else the first candidate of ``srcset``."""
    for attribute in ("src", "data-src", "data-original"):
        value = (element.get(attribute) or "").strip()
        if value:
            return value
    srcset = (element.get("srcset") or "").strip()
    return srcset.split(",")[0].strip().split(" ")[0] if srcset else ""


def _absolute(reference: str, page_url: str) -> str | None:
    """``reference`` resolved against the page; None for inline data and drawings."""
    if reference.startswith("data:"):
        return None
    absolute = urljoin(page_url, reference)
    parts = urlsplit(absolute)
    if parts.scheme not in ("http", "https", "file"):
        return None
    if parts.path.lower().endswith(_NOT_PHOTO_SUFFIXES):
        return None
    return absolute


def _caption(element: HtmlElement) -> str:
    parent = element.getparent()
    while parent is not None and parent.tag != "figure":
        parent = parent.getparent()
    if parent is None:
        return ""
    caption = parent.find(".//figcaption")
    return _clean(caption.text_content()) if caption is not None else ""
