"""The forensic, content-credential and reverse-search extractors of one asset, in one call.

``authenticity_signals`` appends their evidence and uncertainty to what earlier extractors of
the ``media:<asset>`` node produced (the metadata reader), so the media stage stays one line
per extractor family.
"""

from __future__ import annotations

from semv.config import Settings
from semv.model import Asset, MediaEvidence
from semv.perception._signal_versions import forensic_tool_version, model_fingerprint
from semv.perception.credentials import c2pa_version, read_credentials
from semv.perception.reverse_search import match_asset

__all__ = ["authenticity_signals", "merge", "signal_tools"]


def merge(asset_id: str, *parts: MediaEvidence) -> MediaEvidence:
    """One ``MediaEvidence`` with the evidence and uncertainty of ``parts``, in order."""
    return MediaEvidence(
        asset_id=asset_id,
        evidence=tuple(e for p in parts for e in p.evidence),
        uncertainty=tuple(u for p in parts for u in p.uncertainty),
    )


def authenticity_signals(base: MediaEvidence, asset: Asset, settings: Settings) -> MediaEvidence:
    """``base`` plus forensic maps, C2PA credentials and local reverse-search matches."""
    # imported here: the forensic modules load OpenCV, which a run that analyses no image
    # (a text-only case: its media node is only fingerprinted) never needs
    from semv.perception.forensics import analyze_image

    return merge(
        asset.id,
        base,
        analyze_image(asset, settings.forensics),
        read_credentials(asset),
        match_asset(asset, settings),
    )


def signal_tools() -> str:
    """Library versions of these extractors and the fitted forensic model's version and hash
    (for the media stage's fingerprint)."""
    return f"{forensic_tool_version()}; {model_fingerprint()}; {c2pa_version()}"
