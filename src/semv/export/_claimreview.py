"""schema.org ``ClaimReview`` markup of a verdict: what fact-checking organisations
publish and what search engines and the Google Fact Check Tools index read.

The document is built once, at render time, from the report's inputs (claim, label, the case's
source URL, the earlier appearances that attack ``when``) and embedded in the HTML report as
``<script type="application/ld+json" id="claimreview">``. Two properties exist only once the
report is published — its ``url`` and ``datePublished`` — and are filled in when the report is
written for a run (``complete``), so the written HTML and ``semv export --format claimreview``
carry the same, complete document.

Mapping (``ExportConfig``): the verdict label → ``reviewRating.alternateName`` (textual rating)
and, unless the label is an abstention, ``ratingValue`` on ``[worstRating, bestRating]``.
``itemReviewed`` is a ``Claim`` whose ``appearance`` is the case's source URL and whose
``firstAppearance`` is the earliest earlier-context match (a reverse-image match cited by an
attack on ``when``), when there is one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

from semv.config import ExportConfig
from semv.errors import InputError
from semv.model import Argument, Bundle, Evidence, Result, RunStatus, Stance
from semv.public_url import publishable_url
from semv.store import Store

__all__ = [
    "SCHEMA_CONTEXT",
    "Appearance",
    "ReviewFacts",
    "check_claim_review",
    "claim_review",
    "claim_review_for_run",
    "complete",
    "embed",
    "extract",
    "facts_from_arguments",
    "facts_from_result",
    "publish_html",
    "report_url",
    "script_json",
]

SCHEMA_CONTEXT: Final = "https://schema.org"
_SCRIPT: Final = re.compile(
    r'<script type="application/ld\+json" id="claimreview">(.*?)</script>', re.DOTALL
)
_REVERSE_KIND: Final = "rsearch"
"""Evidence ids ``ev:rsearch:...``: reverse-image matches (local index or web engines)."""
_DATE: Final = re.compile(r"^\d{4}-\d{2}-\d{2}")


@dataclass(frozen=True)
class Appearance:
    """A page where the claimed media appeared, and when."""

    url: str
    date: str | None = None


@dataclass(frozen=True)
class ReviewFacts:
    """What a ClaimReview states about one verified claim."""

    claim: str
    label: str
    source_url: str | None
    earlier: tuple[Appearance, ...] = ()
    """Earlier-context matches cited against ``when``, oldest first."""


def _http(url: str | None) -> bool:
    return bool(url) and urlsplit(str(url)).scheme in ("http", "https")


def _earlier(items: Iterable[tuple[str, str | None, str | None]]) -> tuple[Appearance, ...]:
    """(evidence id, url, published) of when-attacks → dated http(s) appearances, oldest first."""
    found = {
        url: Appearance(url, published[:10])
        for ev_id, url, published in items
        if ev_id.split(":")[1:2] == [_REVERSE_KIND] and url and publishable_url(url) and published
    }
    return tuple(sorted(found.values(), key=lambda a: (a.date or "", a.url)))


def facts_from_arguments(
    claim: str,
    label: str,
    source_url: str | None,
    when: Sequence[Argument],
    evidence: Sequence[Evidence],
) -> ReviewFacts:
    """The facts of a report being rendered (its ``when`` arguments and every evidence item)."""
    by_id = {e.id: e for e in evidence}
    cited = [
        (i, by_id[i].url, by_id[i].published)
        for a in when
        if a.stance is Stance.ATTACK
        for i in a.evidence
        if i in by_id
    ]
    return ReviewFacts(claim, label, source_url, _earlier(cited))


def facts_from_result(result: Result, claim: str, source_url: str | None) -> ReviewFacts:
    """The facts of a committed run's JSON result."""
    by_id = {e.id: e for e in result.evidence}
    cited = [
        (i, by_id[i].url, by_id[i].published)
        for s in result.subclaims
        if s.dimension == "when"
        for a in s.arguments
        if a.stance is Stance.ATTACK
        for i in a.evidence
        if i in by_id
    ]
    return ReviewFacts(claim, result.label, source_url, _earlier(cited))


def claim_review(
    facts: ReviewFacts,
    cfg: ExportConfig,
    *,
    url: str | None = None,
    date_published: str | None = None,
) -> dict[str, Any]:
    """The ``ClaimReview`` JSON-LD document (``url`` and ``datePublished`` once published)."""
    author: dict[str, Any] = {"@type": "Organization", "name": cfg.organization}
    if cfg.organization_url:
        author["url"] = cfg.organization_url
    rating: dict[str, Any] = {
        "@type": "Rating",
        "alternateName": cfg.textual_ratings.get(facts.label, facts.label),
        "bestRating": cfg.best_rating,
        "worstRating": cfg.worst_rating,
    }
    if facts.label in cfg.numeric_ratings:
        rating["ratingValue"] = cfg.numeric_ratings[facts.label]
    item: dict[str, Any] = {"@type": "Claim"}
    if facts.source_url and publishable_url(facts.source_url):
        item["appearance"] = [{"@type": "CreativeWork", "url": facts.source_url}]
    if facts.earlier:
        first = facts.earlier[0]
        item["firstAppearance"] = {
            "@type": "CreativeWork",
            "url": first.url,
            **({"datePublished": first.date} if first.date else {}),
        }
        item["appearance"] = [
            *item.get("appearance", []),
            *({"@type": "CreativeWork", "url": a.url} for a in facts.earlier),
        ]
    doc: dict[str, Any] = {
        "@context": SCHEMA_CONTEXT,
        "@type": "ClaimReview",
        "claimReviewed": facts.claim,
        "author": author,
        "reviewRating": rating,
        "itemReviewed": item,
    }
    if url is not None:
        doc["url"] = url
    if date_published is not None:
        doc["datePublished"] = date_published[:10]
    return doc


def complete(doc: Mapping[str, Any], *, url: str, date_published: str) -> dict[str, Any]:
    """``doc`` with its publication ``url`` and ``datePublished`` (the day)."""
    return {**doc, "url": url, "datePublished": date_published[:10]}


_INVISIBLE: Final = re.compile("[\u061c\u200b\u200e\u200f\u202a-\u202e\u2060-\u2069\ufeff]")


def script_json(doc: Mapping[str, Any]) -> str:
    """``doc`` as the text of a ``<script type="application/ld+json">`` block."""
    text = json.dumps(doc, ensure_ascii=False, sort_keys=True, indent=1)
    # a JSON string may hold "</script>": escape "<" so the block cannot be closed early;
    # invisible characters (bidi overrides, zero-width spaces) become \\uXXXX escapes, the
    # same data to a JSON reader and no hidden character in the page's source
    text = _INVISIBLE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text.replace("<", "\\u003c")


def embed(html: str, doc: Mapping[str, Any]) -> str:
    """``html`` with ``doc`` as its ClaimReview block (replaced, or added before ``</head>``)."""
    block = f'<script type="application/ld+json" id="claimreview">{script_json(doc)}</script>'
    if _SCRIPT.search(html):
        return _SCRIPT.sub(lambda _m: block, html, count=1)
    return html.replace("</head>", f"{block}\n</head>", 1)


def extract(html: str, where: str) -> dict[str, Any]:
    """The ClaimReview block of a report; ``InputError`` naming ``where`` when it has none."""
    match = _SCRIPT.search(html)
    if match is None:
        raise InputError(f"{where}: the report has no ClaimReview block")
    loaded = json.loads(match.group(1))
    if not isinstance(loaded, dict):
        raise InputError(f"{where}: the ClaimReview block is not a JSON object")
    return loaded


def report_url(cfg: ExportConfig, run_id: str, out_dir: Path | None) -> str:
    """Where a run's HTML report is published: under ``export.report_base_url`` when set,
    else the written file's ``file:`` URI (not indexable: set the base URL to publish), or,
    with no ``out_dir`` (the copy embedded in the report itself), the relative reference
    ``report.html``: a written report never names where it sits on this machine."""
    if cfg.report_base_url:
        return f"{cfg.report_base_url.rstrip('/')}/{run_id}/report.html"
    if out_dir is None:
        return "report.html"
    return (out_dir / "report.html").resolve().as_uri()


def publish_html(html: str, *, url: str, date_published: str) -> str:
    """The report ``html`` as written for a run: its ClaimReview block (if any) completed with
    the publication url and date."""
    match = _SCRIPT.search(html)
    if match is None:
        return html
    doc = json.loads(match.group(1))
    return embed(html, complete(doc, url=url, date_published=date_published))


def check_claim_review(doc: Mapping[str, Any]) -> list[str]:
    """Problems a search engine's structured-data validator would report: the required and
    recommended properties of ``ClaimReview`` (Google's fact-check markup), their types, the
    rating within its scale, http(s) URLs and ISO dates. Empty when the document is valid."""
    problems: list[str] = []
    if doc.get("@context") not in (SCHEMA_CONTEXT, f"{SCHEMA_CONTEXT}/"):
        problems.append("@context is not https://schema.org")
    if doc.get("@type") != "ClaimReview":
        problems.append("@type is not ClaimReview")
    for key in ("claimReviewed", "reviewRating", "url", "author", "datePublished", "itemReviewed"):
        if not doc.get(key):
            problems.append(f"missing {key}")
    if doc.get("url") and not _http(str(doc["url"])):
        problems.append(
            "url is not an http(s) URL (set [export] report_base_url in the --config file, or "
            "SEMV_EXPORT__REPORT_BASE_URL, to where the reports are published)"
        )
    if doc.get("datePublished") and not _DATE.match(str(doc["datePublished"])):
        problems.append("datePublished is not an ISO 8601 date")
    author = doc.get("author")
    if isinstance(author, dict) and (
        author.get("@type") not in ("Organization", "Person") or not author.get("name")
    ):
        problems.append("author must be an Organization or Person with a name")
    rating = doc.get("reviewRating")
    if isinstance(rating, dict):
        if rating.get("@type") != "Rating" or not rating.get("alternateName"):
            problems.append("reviewRating must be a Rating with an alternateName")
        value, best, worst = (rating.get(k) for k in ("ratingValue", "bestRating", "worstRating"))
        if value is not None:
            if not all(isinstance(v, int | float) for v in (value, best, worst)):
                problems.append("reviewRating: ratingValue needs numeric bestRating/worstRating")
            elif not worst <= value <= best:
                problems.append("reviewRating.ratingValue is outside [worstRating, bestRating]")
    item = doc.get("itemReviewed")
    if isinstance(item, dict):
        if item.get("@type") != "Claim":
            problems.append("itemReviewed must be a Claim")
        works = list(item.get("appearance", []))
        if "firstAppearance" in item:
            works.append(item["firstAppearance"])
        if not works:
            problems.append(
                "itemReviewed has no appearance: the case names no http(s) source URL "
                "(context.source_url in case.yaml), so readers cannot see where the claim "
                "was made"
            )
        for work in works:
            if not isinstance(work, dict) or work.get("@type") != "CreativeWork":
                problems.append("an appearance is not a CreativeWork")
            elif not _http(work.get("url")):
                problems.append("an appearance has no http(s) url")
    return problems


def claim_review_for_run(
    store: Store, run: str, cfg: ExportConfig, *, url: str | None = None
) -> dict[str, Any]:
    """The ClaimReview of a committed run: its JSON result, its case (the ``bundle`` node), the
    day it was committed, and ``url`` (default: where ``export.report_base_url`` publishes it,
    else its written report file)."""
    record = store.get_run(run)
    if record.status is not RunStatus.COMMITTED or not record.result_json:
        raise InputError(f"run {record.run_id} is {record.status.value}, not committed")
    result = Result.model_validate_json(record.result_json)
    bundle = Bundle.model_validate_json(store.node_value_json(record.run_id, "bundle"))
    case = bundle.case
    if url is None:
        written = result.report_paths.get("html")
        folder = Path(written).parent if written else Path(record.run_id)
        url = report_url(cfg, record.run_id, folder)
    facts = facts_from_result(result, case.claim, case.context.source_url)
    day = record.finished_at or record.created_at
    return claim_review(facts, cfg, url=url, date_published=day)
