"""The published ReMMD-Agent runs as ReMMDBench cases in text-only mode.

Layout: ``<run>/samples/<id>/result.json`` (or ``<run>/<id>/result.json``), the authors' own
output for each sample: gold (``gold.verdict`` = L1, ``gold.distortion_taxonomy`` = L2,
``gold.rationale``), the agent's intermediate states and the evidence it retrieved
(``retrieved_evidence``: ``evidence_id``, ``evidence_type``, ``score``, ``text``). The image
files are not published, so these cases run text-only (``--text-only`` is required, so that
the evaluation's ``config.json`` says so).

What becomes the case (nothing from the agent's judgement):

- claim: the sample's own text, the agent's sentence split (``atomic_points.sentence_level[*]
  .sentence_text``) joined in order. 146 of the 500 published results have no sentence split;
  for those the claim is the agent's restatement of the post (``judge.core_claim`` and
  ``judge.key_subclaims``), the only copy of the post's content in the file
  (``claim_source``);
- evidence: every retrieved item as supplied evidence with its provenance: the source
  descriptor (``ReMMD-Agent retrieval: <evidence_type>``, the item id as its title), a
  source type from the descriptor (news snippet → news, social post → social, fact check →
  fact-check, others supplied), the publication date when the text opens with a dateline
  (``Berlin, 18.03.2026: ...``); the runs carry no URLs;
- media: one not-loaded asset per published image name (the run is text-only);
- context: the language code.

Gold (sealed until the run is committed): L1 as the label, the rationale, L2 as details.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from semv.adapters._base import LoadedCase
from semv.adapters._documents import read_json
from semv.adapters._gold import SealedGold
from semv.adapters._media import MediaProblem, load_asset
from semv.adapters._remmd import REMMD_L1, REMMD_L2, l2_label
from semv.errors import InputError
from semv.model import Case, Context, SourceType, SuppliedEvidence

__all__ = ["claim_source", "is_runs_folder", "load_runs", "result_files"]

RESULT_FILE: Final = "result.json"

_SOURCE_TYPES: Final[dict[str, SourceType]] = {
    "news_snippet": SourceType.NEWS,
    "social_post": SourceType.SOCIAL,
    "fact_check": SourceType.FACT_CHECK,
}
"""Evidence types of the runs with a matching source type; ``fact_brief`` and
``image_content`` (context descriptions of what the images show) stay ``supplied``."""

_DATELINE: Final = re.compile(
    r"^[^\n:：]{0,40}?\b(?:(?P<d>\d{1,2})\.(?P<m>\d{1,2})\.(?P<y>\d{4})"
    r"|(?P<iy>\d{4})-(?P<im>\d{1,2})-(?P<id>\d{1,2}))\s*[:：]"
)


def is_runs_folder(path: Path) -> bool:
    """Whether ``path`` holds ``samples/<id>/result.json`` or ``<id>/result.json``."""
    if not path.is_dir():
        return False
    root = path / "samples" if (path / "samples").is_dir() else path
    return any(root.glob(f"*/{RESULT_FILE}"))


def result_files(path: Path) -> list[Path]:
    """The result files of a runs folder, in sample order."""
    root = path / "samples" if (path / "samples").is_dir() else path
    files = sorted(root.glob(f"*/{RESULT_FILE}"))
    if not files:
        raise InputError(f"{path}: no samples/<id>/{RESULT_FILE} found (ReMMD-Agent runs layout)")
    return files


def dateline(text: str) -> str | None:
    """The ISO date of a dateline opening ``text`` (``Berlin, 18.03.2026: ...``), else None."""
    m = _DATELINE.match(text)
    if m is None:
        return None
    try:
        if m["y"]:
            return dt.date(int(m["y"]), int(m["m"]), int(m["d"])).isoformat()
        return dt.date(int(m["iy"]), int(m["im"]), int(m["id"])).isoformat()
    except ValueError:
        return None


def _read(file: Path) -> dict[str, Any]:
    data = read_json(file)
    if not isinstance(data, dict):
        raise InputError(f"{file}: expected a JSON object (a ReMMD-Agent result)")
    return data


def _object(data: dict[str, Any], key: str, file: Path) -> dict[str, Any]:
    value = data.get(key)
    if not isinstance(value, dict):
        raise InputError(f"{file}: {key} must be a JSON object")
    return value


def _sentences(data: dict[str, Any], file: Path) -> str:
    points = data.get("atomic_points") or {}
    if not isinstance(points, dict):
        raise InputError(f"{file}: atomic_points must be a JSON object")
    rows = points.get("sentence_level") or []
    if not isinstance(rows, list):
        raise InputError(f"{file}: atomic_points.sentence_level must be a list")
    parts = []
    for n, row in enumerate(rows):
        text = row.get("sentence_text") if isinstance(row, dict) else None
        if not isinstance(text, str):
            raise InputError(
                f"{file}: atomic_points.sentence_level[{n}].sentence_text must be a string"
            )
        if text.strip():
            parts.append(text.strip())
    return " ".join(parts)


def _restatement(data: dict[str, Any], file: Path) -> str:
    judge = data.get("judge") or {}
    if not isinstance(judge, dict):
        raise InputError(f"{file}: judge must be a JSON object")
    core = judge.get("core_claim") or ""
    subs = judge.get("key_subclaims") or []
    if not isinstance(core, str) or not isinstance(subs, list):
        raise InputError(f"{file}: judge.core_claim / judge.key_subclaims malformed")
    parts = [core.strip(), *(s.strip() for s in subs if isinstance(s, str))]
    return " ".join(p for p in parts if p)


def claim_source(data: dict[str, Any], file: Path) -> tuple[str, str]:
    """The case's claim and where it came from: ``sentences`` (the post's own text) or
    ``restatement`` (the agent's core claim and key subclaims). InputError when neither."""
    text = _sentences(data, file)
    if text:
        return text, "sentences"
    text = _restatement(data, file)
    if text:
        return text, "restatement"
    raise InputError(
        f"{file}: no text for the claim (atomic_points.sentence_level and judge.core_claim are "
        "both empty)"
    )


def _evidence(data: dict[str, Any], file: Path) -> tuple[SuppliedEvidence, ...]:
    items = data.get("retrieved_evidence", [])
    if not isinstance(items, list):
        raise InputError(f"{file}: retrieved_evidence must be a list")
    out = []
    for n, item in enumerate(items):
        where = f"{file}: retrieved_evidence[{n}]"
        if not isinstance(item, dict):
            raise InputError(f"{where}: expected a JSON object")
        text = item.get("text")
        if not isinstance(text, str) or not text.strip():
            raise InputError(f"{where}: text must be a non-empty string")
        ev_id = item.get("evidence_id")
        kind = item.get("evidence_type")
        if not isinstance(ev_id, str) or not ev_id.strip():
            raise InputError(f"{where}: evidence_id must be a non-empty string")
        if not isinstance(kind, str) or not kind.strip():
            raise InputError(f"{where}: evidence_type must be a non-empty string")
        out.append(
            SuppliedEvidence(
                id=ev_id.strip(),
                text=text.strip(),
                title=f"{kind} {ev_id.strip()}",
                publisher=f"ReMMD-Agent retrieval: {kind}",
                published=dateline(text.strip()),
                source_type=_SOURCE_TYPES.get(kind, SourceType.SUPPLIED),
            )
        )
    ids = [e.id for e in out]
    if len(set(ids)) != len(ids):
        raise InputError(f"{file}: retrieved_evidence ids are not unique")
    return tuple(out)


def _gold(data: dict[str, Any], file: Path) -> SealedGold:
    gold = _object(data, "gold", file)
    verdict = gold.get("verdict")
    if verdict not in REMMD_L1:
        raise InputError(f"{file}: gold.verdict {verdict!r} is not an L1 label {REMMD_L1}")
    raw = gold.get("distortion_taxonomy", [])
    if not isinstance(raw, list) or not all(isinstance(v, str) for v in raw):
        raise InputError(f"{file}: gold.distortion_taxonomy must be a list of strings")
    labels = set()
    for value in raw:
        label = l2_label(value)
        if label is None:
            raise InputError(f"{file}: gold.distortion_taxonomy: unknown L2 label {value!r}")
        labels.add(label)
    rationale = gold.get("rationale")
    return SealedGold(
        str(verdict),
        rationale.strip() if isinstance(rationale, str) and rationale.strip() else None,
        source=str(file),
        details={"l2": sorted(labels, key=REMMD_L2.index)},
    )


def _assets(data: dict[str, Any], folder: Path, file: Path) -> tuple[Any, ...]:
    names = data.get("image_names", [])
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise InputError(f"{file}: image_names must be a list of file names")
    try:
        return tuple(
            load_asset(folder / name, number=k, shown_as=name, text_only=True, within=folder)
            for k, name in enumerate(names, start=1)
        )
    except MediaProblem as exc:
        raise InputError(f"{file}: image_names: {exc}") from exc


def load_case(file: Path, *, adapter: str) -> LoadedCase:
    """One result file as a text-only case with its sealed gold."""
    data = _read(file)
    sample_id = data.get("sample_id", file.parent.name)
    if not isinstance(sample_id, str | int) or not str(sample_id).strip():
        raise InputError(f"{file}: sample_id must be a non-empty string")
    claim, _source = claim_source(data, file)
    language = data.get("language_code")
    return LoadedCase(
        case=Case(
            id=str(sample_id),
            claim=claim,
            media=_assets(data, file.parent, file),
            context=Context(language=language if isinstance(language, str) else None),
            evidence=_evidence(data, file),
            adapter=adapter,
            source_path=str(file.absolute()),
        ),
        gold=_gold(data, file),
    )


def load_runs(path: Path, *, adapter: str, text_only: bool) -> Iterator[LoadedCase]:
    """The cases of a runs folder, in sample order (text-only: the runs hold no images)."""
    files = result_files(path)
    if not text_only:
        raise InputError(
            f"{path}: the published ReMMD-Agent runs hold no image files; evaluate them in "
            "text-only mode (--text-only)"
        )
    for file in files:
        yield load_case(file, adapter=adapter)
