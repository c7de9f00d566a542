"""Documents for the local corpus, read from files: HTML, Markdown, plain text, JSON/JSONL
records, the AVeriTeC format (one document per question-answer pair) and schema.org
ClaimReview JSON-LD (fact-check records).

Every reader yields ``Document`` values; bad input raises ``InputError`` naming the file (and
line, for JSONL) and what is wrong. Page content is data: it is stored and searched, never
interpreted.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from semv.errors import InputError
from semv.model import SourceType
from semv.nlp.dates import iso_date
from semv.retrieval._urls import domain_of, unwrap_archive
from semv.safeload import loads_json

__all__ = [
    "SUFFIXES",
    "Document",
    "extract_html",
    "read_averitec",
    "read_claimreview",
    "read_documents",
]

SUFFIXES = (".html", ".htm", ".md", ".markdown", ".txt", ".json", ".jsonl", ".jsonld")
_TEXT_KEYS = ("text", "content", "body", "answer", "snippet", "description")
_DATE_KEYS = ("published", "date", "datePublished", "publication_date", "claim_date")


@dataclass(frozen=True)
class Document:
    """One searchable document with its bibliographic provenance."""

    text: str
    url: str | None = None
    title: str | None = None
    publisher: str | None = None
    published: str | None = None
    source_type: str = SourceType.WEB.value
    group: str | None = None
    """A caller-defined grouping (AVeriTeC: the claim the answer belongs to)."""
    origin: str = ""
    """Where the document was read from (file, and record number when several)."""

    @property
    def doc_id(self) -> str:
        """Stable id: a hash of URL, title and text (the same document ingested twice is one)."""
        body = f"{self.url or ''}\n{self.title or ''}\n{self.text}"
        return hashlib.sha256(body.encode("utf-8")).hexdigest()[:20]


def read_documents(path: Path) -> Iterator[Document]:
    """All documents under ``path`` (a file, or a folder read recursively in name order)."""
    if not path.exists():
        raise InputError(f"{path}: no such file or directory")
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in SUFFIXES)
        if not files:
            raise InputError(f"{path}: no documents ({', '.join(SUFFIXES)}) in this folder")
        for file in files:
            yield from _read_file(file)
        return
    if path.suffix.lower() not in SUFFIXES:
        raise InputError(f"{path}: unsupported document type (use one of {', '.join(SUFFIXES)})")
    yield from _read_file(path)


def _read_file(path: Path) -> Iterator[Document]:
    suffix = path.suffix.lower()
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc}") from exc
    text = raw.decode("utf-8", errors="replace")
    if suffix in (".html", ".htm"):
        doc = _html(text, str(path))
        if doc is not None:
            yield doc
    elif suffix in (".md", ".markdown", ".txt"):
        doc = _plain(text, str(path), markdown=suffix != ".txt")
        if doc is not None:
            yield doc
    elif suffix == ".jsonl":
        for n, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                record = loads_json(line, f"{path}:{n}")
            except json.JSONDecodeError as exc:
                raise InputError(f"{path}:{n}: malformed JSON: {exc.msg}") from exc
            yield from _records([record], f"{path}:{n}")
    else:
        try:
            data = loads_json(text, str(path))
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}: malformed JSON at line {exc.lineno}: {exc.msg}") from exc
        yield from _json(data, str(path))


def extract_html(html: str, url: str | None = None) -> dict[str, Any]:
    """Main text and metadata of an HTML page (trafilatura): text, title, sitename, date...

    Navigation, footers and comments are dropped; the result is plain text (data)."""
    import trafilatura

    extracted: Any = trafilatura.bare_extraction(
        html, url=url, with_metadata=True, include_comments=False
    )
    if extracted is None:
        return {}
    if isinstance(extracted, dict):
        return extracted
    return dict(extracted.as_dict())


def _html(html: str, origin: str) -> Document | None:
    meta = extract_html(html)
    body = (meta.get("text") or "").strip()
    if not body:
        return None
    return Document(
        text=body,
        url=meta.get("url"),
        title=meta.get("title"),
        publisher=meta.get("sitename") or meta.get("hostname"),
        published=iso_date(meta.get("date")),
        origin=origin,
    )


def _plain(text: str, origin: str, *, markdown: bool) -> Document | None:
    lines = [ln.rstrip() for ln in text.splitlines()]
    body = "\n".join(lines).strip()
    if not body:
        return None
    title = None
    first = next((ln.strip() for ln in lines if ln.strip()), "")
    if markdown and first.startswith("#"):
        title = first.lstrip("#").strip()
    elif not markdown:
        title = first[:200]
    return Document(text=body, title=title, origin=origin)


def _json(data: Any, origin: str) -> Iterator[Document]:
    if isinstance(data, list) and data and all(_is_averitec(r) for r in data):
        yield from read_averitec(data, origin)
        return
    reviews = list(read_claimreview(data, origin))
    if reviews:
        yield from reviews
        return
    records = data if isinstance(data, list) else [data]
    yield from _records(records, origin)


def _records(records: Iterable[Any], origin: str) -> Iterator[Document]:
    for n, record in enumerate(records):
        where = f"{origin}[{n}]"
        if not isinstance(record, dict):
            raise InputError(f"{where}: expected a JSON object, got {type(record).__name__}")
        if _is_claimreview(record):
            yield from read_claimreview(record, where)
            continue
        body = next((record[k] for k in _TEXT_KEYS if isinstance(record.get(k), str)), None)
        if body is None or not body.strip():
            raise InputError(f"{where}: record has no text (one of {', '.join(_TEXT_KEYS)})")
        date = next((record[k] for k in _DATE_KEYS if record.get(k)), None)
        kind = record.get("source_type", SourceType.WEB.value)
        if kind not in {s.value for s in SourceType}:
            raise InputError(f"{where}: unknown source_type {kind!r}")
        yield Document(
            text=body.strip(),
            url=record.get("url"),
            title=record.get("title"),
            publisher=record.get("publisher") or record.get("source"),
            published=iso_date(str(date)) if date is not None else None,
            source_type=kind,
            origin=where,
        )


def _is_averitec(record: Any) -> bool:
    return isinstance(record, dict) and "claim" in record and "questions" in record


def read_averitec(records: list[dict[str, Any]], origin: str) -> Iterator[Document]:
    """One document per answer: 'question answer', the answer's source URL, grouped by claim.

    The answer's source date is not in the format (only the claim's), so documents are
    undated. Answers without text (or 'No answer could be found.') are skipped.
    """
    for n, record in enumerate(records):
        for q in record.get("questions") or ():
            question = str(q.get("question") or "").strip()
            for a in q.get("answers") or ():
                answer = str(a.get("answer") or "").strip()
                if not answer or a.get("answer_type") == "Unanswerable":
                    continue
                url = a.get("source_url") or None
                original = unwrap_archive(url) if url else None
                yield Document(
                    text=f"{question} {answer}".strip(),
                    url=url,
                    title=question or None,
                    publisher=domain_of(original) if original else None,
                    source_type=SourceType.WEB.value,
                    group=f"averitec:{n}",
                    origin=f"{origin}[{n}]",
                )


def _is_claimreview(node: Any) -> bool:
    kind = node.get("@type") if isinstance(node, dict) else None
    return kind == "ClaimReview" or (isinstance(kind, list) and "ClaimReview" in kind)


def _walk(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, list):
        for item in node:
            yield from _walk(item)
    elif isinstance(node, dict):
        if _is_claimreview(node):
            yield node
        for key in ("@graph", "claimReview", "itemListElement"):
            if key in node:
                yield from _walk(node[key])


def read_claimreview(data: Any, origin: str) -> Iterator[Document]:
    """schema.org ClaimReview records (JSON-LD, also inside ``@graph``) as fact-check documents:
    the quoted reviewed claim, the rating and the review body."""
    for n, review in enumerate(_walk(data)):
        claim = str(review.get("claimReviewed") or "").strip()
        rating = review.get("reviewRating") or {}
        verdict = rating.get("alternateName") if isinstance(rating, dict) else None
        author = review.get("author") or {}
        publisher = author.get("name") if isinstance(author, dict) else None
        body = str(review.get("reviewBody") or review.get("description") or "").strip()
        if not claim:
            raise InputError(f"{origin}: ClaimReview #{n} has no claimReviewed")
        # the reviewed claim is quoted: it is what others said, not what the fact-checker
        # asserts (the argument rules read quotations as reported speech)
        text = f"Fact check of the claim “{claim}”."
        if verdict:
            text += f" Rating: {verdict}."
        if body:
            text += f" {body}"
        url = review.get("url")
        yield Document(
            text=text,
            url=url,
            title=review.get("name") or review.get("headline") or f"Fact check: {claim}"[:200],
            publisher=publisher or (domain_of(url) if url else None),
            published=iso_date(review.get("datePublished")),
            source_type=SourceType.FACT_CHECK.value,
            origin=f"{origin}#claimreview{n}",
        )
