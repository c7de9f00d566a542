"""The COSMOS adapter: ``test_data.json``-style caption pairs (COSMOS, OOKPIK).

One JSON object per line (a JSON array is accepted too). Per row: the image ``img_local_path``
(relative to the JSON file's folder), ``caption1`` = the claim, ``caption2`` = one supplied
evidence item (a prior caption of the image), ``article_url`` = the source URL when it is one,
and ``context_label`` (1 = out of context; OOKPIK writes 1.0/0.0) = the sealed gold label. The
dataset's derived features (``bert_*_score``, ``*_modified``, ``*_entities``,
``maskrcnn_bboxes``) are ignored: they are not part of a case.

The official ``train_data.json`` / ``val_data.json`` rows have an ``articles`` list instead of a
caption pair: the first article's caption is the claim, every other caption a prior caption of
the image; they carry no ``context_label`` unless one is added (then it is the gold).

A directory is read as the official COSMOS folder: ``test_data.json`` (or the one
``*_data.json`` file it holds); ``split_file`` picks ``<split>_data.json``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

from semv.adapters._base import COSMOS_CONTRACT, LoadedCase, limited
from semv.adapters._documents import parse_json, read_text
from semv.adapters._gold import SealedGold
from semv.adapters._media import MediaProblem, load_asset
from semv.errors import InputError
from semv.model import Case, Context, CosmosLabel, SourceType, SuppliedEvidence
from semv.safeload import loads_json

__all__ = ["CAPTION2_PUBLISHER", "CosmosAdapter", "looks_like_cosmos", "split_file"]

CAPTION2_PUBLISHER: Final = "COSMOS caption2"
"""Publisher recorded on the supplied evidence made from ``caption2``."""

ARTICLE_PUBLISHER: Final = "COSMOS article caption"
"""Publisher recorded on the prior captions of an official train/val row's other articles."""

_LABELS: Final = {0: CosmosLabel.NOOC, 1: CosmosLabel.OOC}


class CosmosAdapter:
    """Reads COSMOS-format JSON lines. Label contract: OOC / NOOC."""

    name = "cosmos"
    contract = COSMOS_CONTRACT

    def load(
        self, path: Path, *, text_only: bool = False, limit: int | None = None
    ) -> Iterator[LoadedCase]:
        """Yield one case per row of ``path``, ids ``<file stem>:<line number>``."""
        return limited(_cases(path, text_only=text_only), limit)


def _cases(path: Path, *, text_only: bool) -> Iterator[LoadedCase]:
    if path.is_dir():
        path = split_file(path, None)
    for line, row in _rows(path):
        yield _case(path, line, row, text_only=text_only)


def split_file(folder: Path, split: str | None) -> Path:
    """The COSMOS file of ``split`` in ``folder`` (``<split>_data.json``); without a split,
    ``test_data.json`` or else the folder's only ``*_data.json`` file."""
    if split is not None:
        file = folder / f"{split}_data.json"
        if not file.is_file():
            raise InputError(f"{folder}: no {file.name} for split {split!r}")
        return file
    if (folder / "test_data.json").is_file():
        return folder / "test_data.json"
    found = sorted(folder.glob("*_data.json"))
    if len(found) != 1:
        listed = ", ".join(f.name for f in found) or "none"
        raise InputError(
            f"{folder}: expected test_data.json or exactly one *_data.json file (found: {listed}); "
            "name the file or a split"
        )
    return found[0]


def looks_like_cosmos(first_line: str) -> bool:
    """True when ``first_line`` is a JSON object with ``caption1`` and ``caption2``, or with
    ``img_local_path`` and an ``articles`` list (the official train/val layout)."""
    try:
        row = loads_json(first_line, "first line")
    except (json.JSONDecodeError, InputError):
        return False
    if not isinstance(row, dict):
        return False
    pair = "caption1" in row and "caption2" in row
    return pair or ("img_local_path" in row and isinstance(row.get("articles"), list))


def _rows(path: Path) -> Iterator[tuple[int, Any]]:
    """(line number, parsed row); for a JSON array the number is the 1-based element index."""
    text = read_text(path)
    if text.lstrip().startswith("["):
        rows = parse_json(text, path)
        yield from enumerate(rows, start=1)
        return
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield number, loads_json(line, f"{path}: line {number}")
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}: line {number}: invalid JSON: {exc.msg}") from exc


def _case(path: Path, line: int, row: Any, *, text_only: bool) -> LoadedCase:
    where = f"{path}: line {line}"
    if not isinstance(row, dict):
        raise InputError(f"{where}: expected a JSON object, got {type(row).__name__}")
    publisher = CAPTION2_PUBLISHER
    if "caption1" not in row and "articles" in row:
        claim, priors, source_url = _articles(row, where)
        publisher = ARTICLE_PUBLISHER
    else:
        claim = _text(row, "caption1", where)
        priors = [_text(row, "caption2", where)]
        source_url = _url(row.get("article_url"))
    image = _text(row, "img_local_path", where)
    try:
        asset = load_asset(
            path.parent / image,
            number=1,
            shown_as=image,
            text_only=text_only,
            within=path.parent,
        )
    except MediaProblem as exc:
        raise InputError(f"{where}: image {image}: {exc}") from exc
    case = Case(
        id=f"{path.stem}:{line}",
        claim=claim,
        media=(asset,),
        context=Context(source_url=source_url),
        evidence=tuple(
            SuppliedEvidence(
                text=prior,
                publisher=publisher,
                source_type=SourceType.PRIOR_CAPTION,
                about_asset=asset.id,
            )
            for prior in priors
        ),
        adapter=CosmosAdapter.name,
        source_path=str(path.absolute()),
    )
    return LoadedCase(case=case, gold=_gold(row, where))


def _articles(row: dict[str, Any], where: str) -> tuple[str, list[str], str | None]:
    """(claim, prior captions, source URL) of an official train/val row."""
    articles = row["articles"]
    if not isinstance(articles, list) or not articles:
        raise InputError(f"{where}: articles must be a non-empty list")
    captions = []
    for index, article in enumerate(articles):
        if not isinstance(article, dict):
            raise InputError(f"{where}: articles[{index}] must be a JSON object")
        captions.append(_text(article, "caption", f"{where}: articles[{index}]"))
    first = articles[0]
    return captions[0], captions[1:], _url(first.get("article_url"))


def _text(row: dict[str, Any], key: str, where: str) -> str:
    value = row.get(key)
    if value is None:
        raise InputError(f"{where}: {key} missing")
    if not isinstance(value, str):
        raise InputError(f"{where}: {key} must be a string, got {type(value).__name__}")
    if not value.strip():
        raise InputError(f"{where}: {key} is empty")
    return value.strip()


def _url(value: object) -> str | None:
    """``value`` if it is an http(s) URL (OOKPIK puts article titles there), else None."""
    if not isinstance(value, str):
        return None
    candidate = value.strip()
    parts = urlsplit(candidate)
    if parts.scheme in ("http", "https") and parts.netloc and " " not in candidate:
        return candidate
    return None


def _gold(row: dict[str, Any], where: str) -> SealedGold | None:
    value = row.get("context_label")
    if value is None:
        return None
    label = None
    if isinstance(value, int | float) and not isinstance(value, bool) and value in (0, 1):
        label = _LABELS[int(value)]
    elif isinstance(value, str) and value.strip() in ("0", "1", "0.0", "1.0"):
        label = _LABELS[int(float(value))]
    if label is None:
        raise InputError(f"{where}: context_label must be 0 or 1, got {value!r}")
    return SealedGold(label.value, source=where)
