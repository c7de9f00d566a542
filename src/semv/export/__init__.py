"""Publishing a verdict: schema.org ``ClaimReview`` JSON-LD and PDF reports."""

from semv.export._claimreview import (
    SCHEMA_CONTEXT,
    Appearance,
    ReviewFacts,
    check_claim_review,
    claim_review,
    claim_review_for_run,
    complete,
    embed,
    extract,
    facts_from_arguments,
    facts_from_result,
    publish_html,
    report_url,
    script_json,
)
from semv.export._pdf import PdfError, chromium_args, render_pdf

__all__ = [
    "SCHEMA_CONTEXT",
    "Appearance",
    "PdfError",
    "ReviewFacts",
    "check_claim_review",
    "chromium_args",
    "claim_review",
    "claim_review_for_run",
    "complete",
    "embed",
    "extract",
    "facts_from_arguments",
    "facts_from_result",
    "publish_html",
    "render_pdf",
    "report_url",
    "script_json",
]
