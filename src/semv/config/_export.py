"""The ``export`` section: schema.org ``ClaimReview`` ratings and PDF reports."""

from __future__ import annotations

from pydantic import Field, model_validator

from semv.config._section import _Section

__all__ = ["ExportConfig"]


_CLAIMREVIEW_TEXT: dict[str, str] = {
    "verified": "True",
    "mostly-verified": "Mostly true",
    "partially-verified": "Half true",
    "false-context": "Missing context",
    "manipulated-or-synthetic": "Altered",
    "insufficient-evidence": "Unproven",
    "uncertain": "Unproven",
    "OOC": "Out of context",
    "NOOC": "True",
}


_CLAIMREVIEW_SCORE: dict[str, int] = {
    "verified": 5,
    "mostly-verified": 4,
    "partially-verified": 3,
    "false-context": 2,
    "manipulated-or-synthetic": 1,
    "OOC": 2,
    "NOOC": 5,
}


class ExportConfig(_Section):
    """Publishing a verdict: schema.org ``ClaimReview`` and PDF reports (``semv export``); not
    from the papers."""

    organization: str = Field(
        "semv", min_length=1, description="The publishing organisation (ClaimReview author)."
    )
    organization_url: str | None = Field(None, description="Its web site (author.url).")
    report_base_url: str | None = Field(
        None,
        description="Where published reports live: a ClaimReview's url is "
        "<base>/<run id>/report.html. Unset, it is the local report file's file: URI.",
    )
    textual_ratings: dict[str, str] = Field(
        default_factory=lambda: dict(_CLAIMREVIEW_TEXT),
        description="Label → reviewRating.alternateName (every label must be mapped).",
    )
    numeric_ratings: dict[str, int] = Field(
        default_factory=lambda: dict(_CLAIMREVIEW_SCORE),
        description="Label → reviewRating.ratingValue on [worst_rating, best_rating]; a label "
        "left out (an abstention) gets the textual rating only.",
    )
    best_rating: int = Field(5, description="reviewRating.bestRating (the most accurate).")
    worst_rating: int = Field(1, description="reviewRating.worstRating (the least accurate).")
    chromium: str = Field(
        "/usr/bin/chromium", description="Headless Chromium that prints the PDF report."
    )
    pdf_timeout_s: float = Field(120.0, gt=0.0, description="Time limit of one PDF rendering.")

    @model_validator(mode="after")
    def _ratings(self) -> ExportConfig:
        missing = sorted(set(_CLAIMREVIEW_TEXT) - set(self.textual_ratings))
        if missing:
            raise ValueError(f"export.textual_ratings: no rating for {', '.join(missing)}")
        if self.worst_rating >= self.best_rating:
            raise ValueError("export: worst_rating must be below best_rating")
        off = sorted(
            k
            for k, v in self.numeric_ratings.items()
            if not self.worst_rating <= v <= self.best_rating
        )
        if off:
            raise ValueError(f"export.numeric_ratings: outside the scale: {', '.join(off)}")
        return self
