"""MV2026 report metrics (SEMV §6.2.2, Eq. 33-36). Pure functions over per-case outcomes.

All results are percentages over the N cases, as in Table 6.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

__all__ = [
    "ABSTENTION_LABELS",
    "TemporalOutcome",
    "abstention_rate",
    "case_accuracy",
    "field_coverage",
    "normalize_url",
    "temporal_outcome",
    "temporal_rates",
    "url_f1",
    "url_prf",
]

ABSTENTION_LABELS: frozenset[str] = frozenset({"uncertain", "insufficient-evidence"})
"""𝒜 of Eq. 33: predictions that abstain (and count as errors)."""

_TRACKING_PREFIXES = ("utm_",)
_TRACKING_KEYS = frozenset({"fbclid", "gclid", "igshid", "mc_cid", "mc_eid", "ref_src", "s"})


def case_accuracy(
    predicted: Sequence[str],
    gold: Sequence[str],
    abstentions: Collection[str] = ABSTENTION_LABELS,
) -> float:
    """Eq. 33, Acc = 100/N Σ 1[ŷ_i = y_i], an abstention always counting as an error."""
    if len(predicted) != len(gold):
        raise ValueError(f"{len(predicted)} predictions for {len(gold)} gold labels")
    if not gold:
        return 0.0
    hits = sum(p == g and p not in abstentions for p, g in zip(predicted, gold, strict=True))
    return 100.0 * hits / len(gold)


def abstention_rate(
    predicted: Sequence[str], abstentions: Collection[str] = ABSTENTION_LABELS
) -> float:
    """Eq. 33, Abst = 100/N Σ 1[ŷ_i ∈ 𝒜]."""
    if not predicted:
        return 0.0
    return 100.0 * sum(p in abstentions for p in predicted) / len(predicted)


def normalize_url(url: str) -> str:
    """A canonical form for comparing cited and reference URLs (Eq. 34).

    Scheme is dropped (http = https), host lower-cased without ``www.`` and default port, the
    fragment and tracking parameters (``utm_*``, ``fbclid``, ``gclid``...) removed, the remaining
    query sorted, a trailing slash removed. Text that is not an http(s) URL is only stripped.
    """
    text = url.strip()
    parts = urlsplit(text if "://" in text else "//" + text)
    if parts.scheme not in ("", "http", "https") or not parts.hostname:
        return text
    host = parts.hostname.lower()
    host = host.removeprefix("www.")
    port = parts.port
    if port is not None and port not in (80, 443):
        host = f"{host}:{port}"
    query = urlencode(
        sorted(
            (k, v)
            for k, v in parse_qsl(parts.query, keep_blank_values=True)
            if not k.lower().startswith(_TRACKING_PREFIXES) and k.lower() not in _TRACKING_KEYS
        )
    )
    path = parts.path.rstrip("/")
    return urlunsplit(("", host, path, query, "")).removeprefix("//")


@dataclass(frozen=True)
class UrlScores:
    precision: float
    recall: float
    f1: float


def url_prf(cited: Iterable[str], reference: Iterable[str]) -> UrlScores:
    """Eq. 34 for one case on normalised URL sets; every ratio is 0 when its set is empty
    (F1_i = 0 when no URL is cited)."""
    w = {normalize_url(u) for u in cited if u.strip()}
    w_star = {normalize_url(u) for u in reference if u.strip()}
    both = len(w & w_star)
    precision = both / len(w) if w else 0.0
    recall = both / len(w_star) if w_star else 0.0
    f1 = 2 * both / (len(w) + len(w_star)) if w and w_star else 0.0
    return UrlScores(precision, recall, f1)


def url_f1(cited: Sequence[Iterable[str]], reference: Sequence[Iterable[str]]) -> float:
    """Macro URL-F1 = 100/N Σ F1_i (Eq. 34)."""
    if len(cited) != len(reference):
        raise ValueError("cited and reference URL lists differ in length")
    if not cited:
        return 0.0
    return 100.0 * sum(url_prf(c, r).f1 for c, r in zip(cited, reference, strict=True)) / len(cited)


@dataclass(frozen=True)
class TemporalOutcome:
    """r_i^t (event time recovered) and c_i^t (a publication time presented as the event time)."""

    recovered: bool
    confused: bool


def temporal_outcome(
    reported: dt.date | None,
    event: dt.date | None,
    publications: Collection[dt.date] = (),
    *,
    tolerance_days: int = 0,
) -> TemporalOutcome:
    """Compare the event time a report gives with the annotated event time and publication
    times. Recovered: within ``tolerance_days`` of the event. Confused: not recovered but within
    the tolerance of a publication time that is itself not the event time."""
    if reported is None or event is None:
        return TemporalOutcome(False, False)
    tolerance = dt.timedelta(days=tolerance_days)
    recovered = abs(reported - event) <= tolerance
    confused = not recovered and any(
        abs(reported - p) <= tolerance and abs(p - event) > tolerance for p in publications
    )
    return TemporalOutcome(recovered, confused)


def temporal_rates(outcomes: Sequence[TemporalOutcome]) -> tuple[float, float]:
    """Eq. 35: (Temp, TimeConf) = (100/N Σ r_i^t, 100/N Σ c_i^t)."""
    if not outcomes:
        return (0.0, 0.0)
    n = len(outcomes)
    return (
        100.0 * sum(o.recovered for o in outcomes) / n,
        100.0 * sum(o.confused for o in outcomes) / n,
    )


def field_coverage(completed: Sequence[Mapping[str, bool]], fields: Sequence[str]) -> float:
    """Eq. 36: Cov = 100/(NM) Σ_i Σ_j z_ij over the M = ``len(fields)`` required fields
    (a field missing from a case's mapping counts as not completed)."""
    if not completed or not fields:
        return 0.0
    filled = sum(bool(case.get(field, False)) for case in completed for field in fields)
    return 100.0 * filled / (len(completed) * len(fields))
