"""``bundle`` (Module A): the canonical case with supplied evidence normalized into 𝓔_0."""

from __future__ import annotations

import re
from pathlib import PurePath
from urllib.parse import urlparse

from semv.config import SourceReliabilityConfig
from semv.graph import StageContext, StageDef
from semv.model import (
    Bundle,
    Case,
    Evidence,
    MediaLocation,
    Modality,
    ProducerKind,
    Provenance,
    SourceType,
    SuppliedEvidence,
    SuppliedItem,
)

_ID_SAFE = re.compile(r"[^A-Za-z0-9_.:\-]+")


def default_reliability(kind: SourceType, table: SourceReliabilityConfig) -> float:
    """Reliability r_e for supplied evidence that does not state one."""
    by_type = {
        SourceType.FACT_CHECK: table.fact_check,
        SourceType.OFFICIAL: table.official,
        SourceType.NEWS: table.news,
        SourceType.PRIOR_CAPTION: table.prior_caption,
        SourceType.SUPPLIED: table.supplied,
        SourceType.WEB: table.web,
        SourceType.SOCIAL: table.social,
    }
    return by_type.get(kind, table.other)


def evidence_id(given: str | None, position: int) -> str:
    """``ev:sup:<n>``, or the supplied id made safe and prefixed (``ev:sup:<id>``)."""
    if not given:
        return f"ev:sup:{position}"
    if given.startswith("ev:"):
        return _ID_SAFE.sub("-", given)
    return "ev:sup:" + _ID_SAFE.sub("-", given)


def _supplier(case: Case) -> str:
    """Who supplied the case's evidence: a user's case folder by its name, never where it
    sits on this machine; a data set's case file by its path (the data set's
    layout names the sample: ``.../samples/009/result.json``); else the adapter."""
    if not case.source_path:
        return case.adapter
    if case.adapter == "generic":
        return f"case folder {PurePath(case.source_path).name}"
    return case.source_path


def normalize_supplied(
    case: Case, item: SuppliedEvidence, position: int, table: SourceReliabilityConfig
) -> Evidence:
    source = item.publisher or (urlparse(item.url).netloc if item.url else "") or "supplied"
    producer = ProducerKind.USER if case.adapter == "generic" else ProducerKind.DATASET
    return Evidence(
        id=evidence_id(item.id, position),
        source=source,
        source_type=item.source_type,
        modality=Modality.TEXT,
        content=item.text,
        observation=SuppliedItem(),
        reliability=(
            item.reliability
            if item.reliability is not None
            else default_reliability(item.source_type, table)
        ),
        relevance=table.default_relevance,
        location=MediaLocation(asset_id=item.about_asset) if item.about_asset else None,
        provenance=Provenance(
            producer=producer,
            agent=_supplier(case),
            method=f"supplied with the case ({case.adapter} adapter)",
            derived_from=(item.about_asset,) if item.about_asset else (),
            url=item.url,
        ),
        url=item.url,
        title=item.title,
        published=item.published,
    )


async def canonicalize(ctx: StageContext, *, case: Case) -> Bundle:
    table = ctx.settings.sources
    supplied = tuple(
        normalize_supplied(case, item, n, table) for n, item in enumerate(case.evidence, start=1)
    )
    return Bundle(case=case, supplied=supplied)


STAGE = StageDef(name="bundle", version="1", fn=canonicalize, output=Bundle, reads=("sources",))
