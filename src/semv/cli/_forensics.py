"""``semv forensics IMAGE... [--json]``: each image's calibrated manipulation probability, its
forensic signals and the paths of its score maps (no case, no run, no store)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from semv.cli._common import (
    DEFAULT_DATA_DIR,
    ConfigFile,
    DataDir,
    JsonFlag,
    fail,
    out,
)

if TYPE_CHECKING:
    from semv.config import Settings

__all__ = ["forensics"]


def _report(index: int, path: Path, settings: Settings) -> dict[str, Any]:
    from semv.model import Asset, ForensicMap, MediaKind
    from semv.perception.forensics import analyze_image

    asset = Asset(id=f"asset:{index}", path=str(path.resolve()), kind=MediaKind.IMAGE)
    result = analyze_image(asset, settings.forensics, all_signals=True)
    maps_dir = Path(settings.forensics.maps_dir or ".")
    maps: dict[str, str] = {}
    combined: ForensicMap | None = None
    for ev in result.evidence:
        scored = ev.observed(ForensicMap)
        if scored is None:
            continue
        if scored.map_png is not None:
            maps[scored.map] = str(maps_dir / scored.map_png)
        if scored.combined:
            combined = scored
    signals: dict[str, float] = {}
    if combined is not None and combined.signals:
        for part in combined.signals.split("; "):
            name, _, value = part.partition("=")
            signals[name] = float(value)
    return {
        "image": str(path),
        "manipulation_probability": combined.manipulation_probability if combined else None,
        "threshold": combined.manipulation_threshold if combined else None,
        "model_version": combined.manipulation_model if combined else None,
        "review_threshold": combined.review_threshold if combined else None,
        "flagged_for_review": bool(combined and combined.flagged_for_review),
        "manipulated": bool(combined and combined.argues),
        "region": combined.region if combined else None,
        "copy_move": combined.copy_move if combined else None,
        "signals": signals,
        "maps": maps,
        "review": [u.detail for u in result.uncertainty],
    }


def _judgement(report: dict[str, Any]) -> str:
    """What the probability means for the verdict: ``manipulated`` only where the
    authenticity attack (``forensics.manipulation_attacks``) is on and fires; at or above the
    review threshold a review item; otherwise nothing (the model is a screening score, not a
    finding: docs/evaluation.md)."""
    if report["manipulated"]:
        return "argues against authenticity (forensics.manipulation_attacks is on)"
    if report["flagged_for_review"]:
        return f"flagged for review (review threshold {report['review_threshold']:.2f})"
    return "not flagged"


def _print(report: dict[str, Any]) -> None:
    p = report["manipulation_probability"]
    if p is None:
        head = "no manipulation probability (no fitted model, or no maps)"
    else:
        judged = _judgement(report)
        head = f"P(manipulated) = {p:.2f} (threshold {report['threshold']:.2f}): {judged}"
    out.print(f"[bold]{report['image']}[/]: {head}", highlight=False)
    if report["signals"]:
        out.print(
            "  signals: " + ", ".join(f"{k} {v:g}" for k, v in report["signals"].items()),
            highlight=False,
        )
    if report["region"]:
        out.print(f"  most anomalous map region (x,y,w,h): {report['region']}", highlight=False)
    if report["copy_move"]:
        out.print(f"  possible cloned region (verified): {report['copy_move']}", highlight=False)
    for name, png in report["maps"].items():
        out.print(f"  map {name}: {png}", highlight=False)
    for detail in report["review"]:
        out.print(f"  review: {detail}", highlight=False)


def forensics(
    images: Annotated[list[Path], typer.Argument(help="Image files to analyse.")],
    json_out: JsonFlag = False,
    data_dir: DataDir = DEFAULT_DATA_DIR,
    config: ConfigFile = None,
) -> None:
    """Print each image's calibrated manipulation probability, its forensic signals and the
    paths of its score maps (kept under <data dir>/artifacts)."""
    from semv.cli._common import settings_from
    from semv.errors import SemvError
    from semv.perception.paths import resolve_data_paths
    from semv.perception.readable import refuse_unreadable

    try:
        settings = resolve_data_paths(settings_from(config), data_dir)
        for path in images:
            refuse_unreadable(path, settings.media.max_pixels)
        reports = [_report(i, path, settings) for i, path in enumerate(images)]
    except SemvError as exc:
        fail(exc)
    if json_out:
        out.print_json(json.dumps(reports))
        return
    for report in reports:
        _print(report)
