"""Local reverse-image search (§4.2 "local reverse-image search"; Table S3/S4).

``build_index`` indexes an image collection with per-image metadata (source URL, first-seen
date, caption) into ``semv.perception._rsindex``: a 64-bit pHash per image (FAISS binary index)
and ORB keypoints/descriptors (FAISS binary index over all descriptors). ``match_asset`` looks up
one asset:

1. **pHash**: every indexed image within Hamming distance ``phash_max_distance`` (Table S4: 10)
   is a near-duplicate (recompressed, resized, lightly edited copies);
2. **ORB** for crops: descriptors are matched against the descriptor index (Lowe ratio test),
   votes pick candidate images, and a RANSAC homography verifies each; a candidate with at
   least ``orb_min_inliers`` inliers and an inlier ratio ≥ ``orb_min_inlier_ratio`` matches.

Each match becomes evidence ``ev:rsearch:<asset>:<sha256 prefix>`` carrying the copy's source
URL, first-seen date (``published``) and caption; the offline rules turn an earlier date or a
different caption into SEMV's "earlier-context reverse-search match". A missing index yields
nothing; a missing library or unreadable image yields an uncertainty item.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import warnings
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

import numpy as np
import numpy.typing as npt
from PIL import Image, ImageOps

from semv.config import ReverseSearchConfig, Settings
from semv.errors import InputError
from semv.model import (
    Asset,
    Evidence,
    MediaEvidence,
    MediaKind,
    MediaLocation,
    Modality,
    ProducerKind,
    Provenance,
    ReverseSearchMatch,
    SourceType,
    Stage,
    UncertaintyCode,
    UncertaintyItem,
)
from semv.perception._match_verify import PairCheck
from semv.perception._rsindex import IndexedImage, IndexStore, read_generation
from semv.public_url import publishable_url

__all__ = [
    "IMAGE_SUFFIXES",
    "IndexReport",
    "Match",
    "build_index",
    "find_matches",
    "index_fingerprint",
    "match_asset",
    "match_image",
    "phash_hex",
    "read_meta",
]

IMAGE_SUFFIXES: Final = frozenset({".jpg", ".jpeg", ".png", ".tif", ".tiff", ".webp", ".bmp"})
_META_FIELDS: Final = ("source_url", "first_seen", "caption")
_STAGES: Final = (Stage.RETRIEVE,)
_DECODE_ERRORS: Final = (
    OSError,
    ValueError,
    SyntaxError,
    Image.DecompressionBombError,
    Image.DecompressionBombWarning,
)
"""What Pillow raises for unreadable, truncated or oversized images (bombs stay refused)."""
_RANSAC_PX: Final = 5.0
"""RANSAC reprojection threshold (pixels) of the crop homography."""
_ORB_MIN_SIDE: Final = 320
"""Smaller pictures are enlarged to this longer side before ORB: its 31-pixel patches and edge
border find no keypoint in a 100×75 thumbnail or a crop of it."""
_NEIGHBOURS: Final = 4
"""Indexed descriptors looked up per query descriptor (the ratio test reads the first two)."""
_AMBIGUOUS_MAX_BITS: Final = 64
"""A descriptor the ratio test finds ambiguous still votes for every owner among its
neighbours this close (Hamming bits of 256) and as close as the best one within the ratio:
near-identical indexed pictures (memes of one template) make every shared keypoint ambiguous,
and only their differences would vote otherwise."""


# ---- features ----------------------------------------------------------------------------


def phash_hex(img: Image.Image) -> str:
    """The 64-bit DCT perceptual hash of ``img`` as 16 hex digits (ImageHash)."""
    import imagehash

    return str(imagehash.phash(img))


def orb_features(
    img: Image.Image, n_features: int
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.uint8]]:
    """ORB keypoint positions (n, 2, in ``img``'s pixels) and descriptors (n, 32) of the grey
    image, enlarged first when its longer side is under ``_ORB_MIN_SIDE``."""
    import cv2

    grey_img = img.convert("L")
    factor = max(1.0, _ORB_MIN_SIDE / max(1, max(grey_img.size)))
    if factor > 1.0:
        size = (round(grey_img.width * factor), round(grey_img.height * factor))
        grey_img = grey_img.resize(size, Image.Resampling.BILINEAR)
    grey = np.asarray(grey_img, dtype=np.uint8)
    orb = cv2.ORB.create(nfeatures=min(n_features, 1 << 12))
    keypoints, descriptors = orb.detectAndCompute(grey, None)
    if descriptors is None or not keypoints:
        return np.zeros((0, 2), np.float32), np.zeros((0, 32), np.uint8)
    points = np.array([kp.pt for kp in keypoints], dtype=np.float32) / np.float32(factor)
    return points, np.ascontiguousarray(descriptors, dtype=np.uint8)


def _open_rgb(path: Path) -> Image.Image:
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        with Image.open(path) as raw:
            raw.load()
            return raw.convert("RGB")


# ---- building ----------------------------------------------------------------------------


@dataclass(frozen=True)
class IndexReport:
    indexed: int
    skipped: tuple[str, ...]
    total: int
    generation: str


def read_meta(path: Path) -> dict[str, dict[str, str]]:
    """Per-image metadata: file name (relative to the image folder) → source_url, first_seen,
    caption. JSON (an object keyed by file, or a list of objects with ``file``), JSON lines, or
    CSV with a ``file`` column. Raises ``InputError`` naming the file and the problem."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read metadata file: {exc}") from exc
    records: list[dict[str, Any]]
    try:
        if path.suffix.lower() == ".csv":
            records = list(csv.DictReader(text.splitlines()))
        elif path.suffix.lower() == ".jsonl":
            records = [json.loads(line) for line in text.splitlines() if line.strip()]
        else:
            loaded = json.loads(text)
            if isinstance(loaded, dict):
                records = [
                    {"file": k, **v} if isinstance(v, dict) else {"file": k, "bad": v}
                    for k, v in loaded.items()
                ]
            elif isinstance(loaded, list):
                records = loaded
            else:
                raise InputError(f"{path}: metadata must be an object or a list of objects")
    except (json.JSONDecodeError, csv.Error) as exc:
        raise InputError(f"{path}: malformed metadata: {exc}") from exc
    out: dict[str, dict[str, str]] = {}
    for n, record in enumerate(records, 1):
        if not isinstance(record, dict) or not isinstance(record.get("file"), str):
            raise InputError(f"{path}: record {n} has no 'file' string")
        if "bad" in record:
            raise InputError(f"{path}: entry {record['file']!r} is not an object")
        entry = {k: str(record[k]).strip() for k in _META_FIELDS if record.get(k)}
        if "first_seen" in entry:
            _check_date(path, record["file"], entry["first_seen"])
        out[record["file"]] = entry
    return out


def _check_date(path: Path, name: str, value: str) -> None:
    try:
        dt.date.fromisoformat(value[:10])
    except ValueError as exc:
        raise InputError(
            f"{path}: {name}: first_seen {value!r} is not an ISO date (YYYY-MM-DD)"
        ) from exc


def build_index(
    folder: Path,
    index_dir: Path,
    cfg: ReverseSearchConfig,
    *,
    meta: dict[str, dict[str, str]] | None = None,
    progress: Callable[[str], None] | None = None,
    skip_unreadable: bool = False,
) -> IndexReport:
    """Index every image under ``folder`` (recursively) into ``index_dir``. Re-indexing the same
    content updates its metadata. An image Pillow refuses (a decompression bomb, or a file it
    cannot decode) raises ``InputError`` naming it before anything is written; with
    ``skip_unreadable`` it is skipped and reported instead."""
    if not folder.is_dir():
        raise InputError(f"{folder}: not a directory")
    meta = meta or {}
    files = sorted(p for p in folder.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES)
    unknown = sorted(set(meta) - {p.relative_to(folder).as_posix() for p in files})
    if unknown:
        raise InputError(f"metadata names files that are not in {folder}: {', '.join(unknown)}")
    if not skip_unreadable:
        from semv.perception.readable import refuse_unreadable

        for path in files:  # decoded twice, so that a refusal leaves the index untouched
            try:
                refuse_unreadable(path)
            except InputError as exc:
                raise InputError(
                    f"{exc} (nothing indexed; --skip-unreadable skips such files)"
                ) from exc
    store = IndexStore(index_dir, create=True)
    indexed = 0
    skipped: list[str] = []
    try:
        for path in files:
            rel = path.relative_to(folder).as_posix()
            try:
                row = _decode_for_index(path, meta.get(rel, {}), cfg)
            except (*_DECODE_ERRORS, InputError) as exc:
                skipped.append(f"{rel}: {exc}")
                continue
            image_id = store.upsert(row.row, row.points, row.descriptors)
            if row.embedding is not None:
                store.put_embedding(image_id, row.embedding[0], row.embedding[1])
            indexed += 1
            if progress is not None:
                progress(rel)
        generation = store.rebuild()
        total = store.count()
    finally:
        store.close()
    return IndexReport(indexed=indexed, skipped=tuple(skipped), total=total, generation=generation)


@dataclass(frozen=True)
class _Pending:
    """One decoded image, ready to be written to the index."""

    row: dict[str, Any]
    points: npt.NDArray[np.float32]
    descriptors: npt.NDArray[np.uint8]
    embedding: tuple[str, npt.NDArray[np.float32]] | None


def _decode_for_index(path: Path, entry: dict[str, str], cfg: ReverseSearchConfig) -> _Pending:
    from semv.perception.readable import refuse_bomb
    from semv.store import sha256_file

    refuse_bomb(path)  # a skipped bomb is never decoded
    img = _open_rgb(path)
    points, desc = orb_features(img, cfg.orb_features)
    row = {
        "sha256": sha256_file(str(path)),
        "path": str(path.resolve()),
        "phash": phash_hex(img),
        "width": img.width,
        "height": img.height,
        "source_url": entry.get("source_url"),
        "first_seen": entry.get("first_seen"),
        "caption": entry.get("caption"),
    }
    embedding = _embedding(img, cfg.clip_model_path) if cfg.clip_model_path else None
    return _Pending(row=row, points=points, descriptors=desc, embedding=embedding)


def _embedding(img: Image.Image, path: str) -> tuple[str, npt.NDArray[np.float32]]:
    from semv.errors import ConfigError
    from semv.perception._clip import ClipUnavailable, embed_images, model_id

    try:
        return model_id(path), embed_images(path, [img])[0]
    except ClipUnavailable as exc:
        raise ConfigError(f"reverse_search.clip_model_path: {exc}") from exc


# ---- querying ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Match:
    image: IndexedImage
    method: str
    distance: int | None = None
    inliers: int | None = None
    inlier_ratio: float | None = None
    similarity: float | None = None
    check: PairCheck | None = None
    """The match verification of the pair (``semv.perception._match_verify``)."""


def find_matches(
    img: Image.Image,
    store: IndexStore,
    cfg: ReverseSearchConfig,
    problems: list[str] | None = None,
) -> list[Match]:
    """Candidates by pHash, by ORB + RANSAC (crops) and optionally by CLIP, each for the image
    as it is and mirrored; then every candidate is verified against the indexed file (aligned
    and compared pixel by pixel, ``semv.perception._match_verify``) and only verified ones are
    kept, best agreement first. A configured CLIP model that cannot be loaded, and an indexed
    file that is gone, are reported in ``problems``."""
    import faiss

    previous = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(cfg.faiss_threads)
    try:
        candidates = _find_matches(img, store, cfg, problems)
        candidates += [
            m
            for m in _find_matches(ImageOps.mirror(img), store, cfg, None)
            if m.image.id not in {c.image.id for c in candidates}
        ]
    finally:
        faiss.omp_set_num_threads(previous)
    return verify_matches(img, candidates, cfg, problems)


def verify_matches(
    img: Image.Image, candidates: list[Match], cfg: ReverseSearchConfig, problems: list[str] | None
) -> list[Match]:
    """The candidates whose indexed file, aligned with ``img``, agrees with it (thresholds
    ``reverse_search.verify_min_agreement`` and ``verify_min_overlap``); best first."""
    from semv.perception._match_verify import compare, prepare

    query = prepare(img)
    verified: list[Match] = []
    for match in candidates:
        try:
            indexed = _open_rgb(Path(match.image.path))
        except _DECODE_ERRORS as exc:
            if problems is not None:
                problems.append(
                    f"reverse search: indexed file {match.image.path} cannot be read ({exc}); "
                    "its candidate match is not verified and not reported"
                )
            continue
        check = compare(query, prepare(indexed))
        if check.holds(cfg.verify_min_agreement, cfg.verify_min_overlap):
            verified.append(replace(match, check=check))
    verified.sort(key=lambda m: -(m.check.agreement if m.check else 0.0))
    return verified[: cfg.max_matches]


def _find_matches(
    img: Image.Image, store: IndexStore, cfg: ReverseSearchConfig, problems: list[str] | None
) -> list[Match]:
    from semv.perception._clip import ClipUnavailable

    phash_index, orb_index = store.load_faiss()
    query = np.frombuffer(bytes.fromhex(phash_hex(img)), dtype=np.uint8).reshape(1, 8)
    matches: list[Match] = []
    if phash_index.ntotal:
        _, distances, ids = phash_index.range_search(query, cfg.phash_max_distance + 1)
        for distance, image_id in sorted(zip(distances.tolist(), ids.tolist(), strict=True)):
            image = store.image(int(image_id))
            if image is not None:
                matches.append(Match(image=image, method="phash", distance=int(distance)))
    seen = {m.image.id for m in matches}
    if orb_index.ntotal >= 2:
        matches += _orb_matches(img, store, orb_index, cfg, seen)
    if cfg.clip_model_path:
        seen = {m.image.id for m in matches}
        try:
            matches += _clip_matches(img, store, cfg.clip_model_path, cfg.clip_threshold, seen)
        except ClipUnavailable as exc:
            if problems is not None:
                problems.append(f"reverse search (CLIP matcher off): {exc}")
    return matches


def _clip_matches(
    img: Image.Image, store: IndexStore, path: str, threshold: float, seen: set[int]
) -> list[Match]:
    """Images whose CLIP/SigLIP embedding has inner product ≥ ``threshold`` with the query's
    (Table S4: 0.84). Raises ``ClipUnavailable`` when the model cannot be loaded."""
    import faiss

    from semv.perception._clip import embed_images, model_id

    ids, vectors = store.embeddings(model_id(path))
    if not ids:
        return []
    index = faiss.IndexFlatIP(vectors.shape[1])
    index.add(vectors)
    scores, rows = index.search(embed_images(path, [img]), min(len(ids), 10))
    found = []
    for score, row in zip(scores[0].tolist(), rows[0].tolist(), strict=True):
        if row < 0 or score < threshold or ids[row] in seen:
            continue
        image = store.image(ids[row])
        if image is not None:
            found.append(Match(image=image, method="clip", similarity=round(float(score), 4)))
    return found


def _orb_matches(
    img: Image.Image, store: IndexStore, orb_index: Any, cfg: ReverseSearchConfig, seen: set[int]
) -> list[Match]:
    import cv2

    from semv.perception._rsindex import KEYPOINT_BITS

    points, desc = orb_features(img, cfg.orb_features)
    if len(desc) < cfg.orb_min_inliers:
        return []
    distances, ids = orb_index.search(desc, min(_NEIGHBOURS, orb_index.ntotal))
    # Votes only rank the candidates; each is matched again below with its own descriptors.
    votes: Counter[int] = Counter()
    distinctive: Counter[int] = Counter()
    for d, i in zip(distances.tolist(), ids.tolist(), strict=True):
        if i[0] < 0:
            continue
        if len(i) < 2 or i[1] < 0 or d[0] < cfg.orb_ratio * d[1]:
            chosen = [i[0]]  # distinctive: the best neighbour only
            distinctive[i[0] >> KEYPOINT_BITS] += 1
        elif d[0] <= _AMBIGUOUS_MAX_BITS:
            chosen = [
                n for n, dn in zip(i, d, strict=True) if n >= 0 and cfg.orb_ratio * dn <= d[0]
            ]
        else:
            continue
        votes.update({n >> KEYPOINT_BITS for n in chosen} - seen)
    # Owners with the most distinctive votes first (ambiguous votes tie among near-identical
    # pictures, and the index returns ties in id order), then the most votes.
    ranked = sorted(votes, key=lambda owner: (-distinctive[owner], -votes[owner], owner))
    found: list[Match] = []
    matcher = cv2.BFMatcher(cv2.NORM_HAMMING)
    for owner in ranked[: cfg.orb_candidates]:
        # The candidate's own descriptors, matched with the ratio test inside that picture:
        # its keypoints shared with near-identical pictures count again.
        kps, owner_desc = store.features(owner)
        if len(owner_desc) < 2:
            continue
        good = [
            m[0]
            for m in matcher.knnMatch(desc, owner_desc, k=2)
            if len(m) == 2 and m[0].distance < cfg.orb_ratio * m[1].distance
        ]
        count = len(good)
        if count < cfg.orb_min_inliers:
            continue
        src = np.array([points[m.queryIdx] for m in good], dtype=np.float32)
        dst = np.array([kps[m.trainIdx] for m in good], dtype=np.float32)
        _, mask = cv2.findHomography(src, dst, cv2.RANSAC, _RANSAC_PX)
        inliers = int(mask.sum()) if mask is not None else 0
        ratio = inliers / count
        if inliers >= cfg.orb_min_inliers and ratio >= cfg.orb_min_inlier_ratio:
            image = store.image(owner)
            if image is not None:
                found.append(
                    Match(image=image, method="orb", inliers=inliers, inlier_ratio=round(ratio, 4))
                )
    found.sort(key=lambda m: -(m.inliers or 0))
    return found


def index_dir_of(settings: Settings) -> Path | None:
    """The configured index folder (``reverse_search.index_dir``), or None."""
    folder = settings.reverse_search.index_dir
    return Path(folder) if folder else None


def index_fingerprint(settings: Settings) -> str:
    """``reverse-index <generation>`` or ``reverse-index none``: the media stage's fingerprint
    changes whenever the index content does."""
    folder = index_dir_of(settings)
    generation = read_generation(folder) if folder is not None else None
    return f"reverse-index {generation or 'none'}"


def match_asset(asset: Asset, settings: Settings) -> MediaEvidence:
    """Reverse-search matches of an image asset in the local index, as evidence."""
    if asset.kind is not MediaKind.IMAGE:
        return MediaEvidence(asset_id=asset.id, evidence=())
    return match_image(asset, Path(asset.path), settings)


def match_image(
    asset: Asset, image: Path, settings: Settings, *, time_s: float | None = None
) -> MediaEvidence:
    """Matches of one image of ``asset`` (the asset itself, or a keyframe extracted from a
    video asset at ``time_s`` seconds) in the local index, as evidence."""
    cfg = settings.reverse_search
    folder = index_dir_of(settings)
    if not asset.loaded or folder is None or read_generation(folder) is None:
        return MediaEvidence(asset_id=asset.id, evidence=())
    try:
        import cv2  # noqa: F401
        import faiss  # noqa: F401
        import imagehash  # noqa: F401
    except ImportError as exc:
        return _uncertain(asset, UncertaintyCode.TOOL_MISSING, f"reverse search: {exc}")
    try:
        img = _open_rgb(image)
    except _DECODE_ERRORS as exc:
        return _uncertain(
            asset,
            UncertaintyCode.MEDIA_UNREADABLE,
            f"reverse search: {image.name}: cannot decode image: {exc}",
        )
    problems: list[str] = []
    store = IndexStore(folder)
    try:
        matches = find_matches(img, store, cfg, problems)
    finally:
        store.close()
    reliability = settings.sources.prior_caption
    maps_dir = settings.forensics.maps_dir
    query_thumb = save_thumb(img, maps_dir) if matches else None
    evidence = []
    for m in matches:
        thumbs = (query_thumb, _indexed_thumb(m.image, maps_dir))
        evidence.append(_evidence(asset, m, cfg, reliability, time_s, thumbs))
    return MediaEvidence(
        asset_id=asset.id,
        evidence=tuple(evidence),
        uncertainty=tuple(
            UncertaintyItem(
                code=UncertaintyCode.TOOL_MISSING, subject=asset.id, detail=p, stages=_STAGES
            )
            for p in problems
        ),
    )


def _evidence(
    asset: Asset,
    match: Match,
    cfg: ReverseSearchConfig,
    reliability: float,
    time_s: float | None = None,
    thumbs: tuple[str | None, str | None] = (None, None),
) -> Evidence:
    image = match.image
    if match.method == "phash":
        how = f"pHash Hamming distance {match.distance} ≤ {cfg.phash_max_distance}"
        method = (
            f"ImageHash pHash (64 bit) in a FAISS binary index, Hamming ≤ {cfg.phash_max_distance}"
        )
    elif match.method == "clip":
        how = f"CLIP inner product {match.similarity:.2f} ≥ {cfg.clip_threshold:.2f}"
        method = f"image embeddings from {cfg.clip_model_path}, FAISS inner product"
    else:
        how = (
            f"ORB crop match, {match.inliers} RANSAC inliers, inlier ratio "
            f"{match.inlier_ratio:.2f} ≥ {cfg.orb_min_inlier_ratio:.2f}"
        )
        method = (
            f"OpenCV ORB descriptors in a FAISS binary index, ratio test {cfg.orb_ratio:g}, "
            f"RANSAC homography ({cfg.orb_min_inliers}+ inliers)"
        )
    method += (
        "; verified by alignment and pixel agreement "
        f"(≥ {cfg.verify_min_agreement:.2f} of one image's textured pixels, overlap ≥ "
        f"{cfg.verify_min_overlap:.2f})"
    )
    check = match.check
    text = (
        f"Reverse-image match in the local index: {Path(image.path).name} "
        f"({image.width}×{image.height}, sha256 {image.sha256[:12]}), found by {how}"
    )
    if check is not None:
        x, y, w, h = check.region
        text += (
            f"; verified: {check.agreement:.2f} of one image's textured pixels agree after "
            f"alignment (≥ {cfg.verify_min_agreement:.2f}); this image covers "
            f"({x}, {y}, {w}×{h}) of it at scale {check.scale:.2f}"
            + (", mirrored" if check.mirrored else "")
        )
    parts = []
    if image.first_seen:
        parts.append(f"first seen {image.first_seen}")
    link = image.source_url if image.source_url and publishable_url(image.source_url) else None
    if link:
        parts.append(f"at {link}")
    elif image.source_url:
        parts.append("at a private or local address (not published)")
    if parts:
        text += ". It was " + " ".join(parts)
    if image.caption:
        text += f". Its caption there: “{image.caption}”"
    if not (image.first_seen or image.source_url or image.caption):
        text += (
            ". No provenance: the index records no source URL, first-seen date or caption for "
            "it, so the match says nothing about when or where the image first appeared"
        )
    orb = match.inliers is not None
    clip = match.similarity is not None
    data = ReverseSearchMatch(
        match_method=match.method,
        indexed_sha256=image.sha256,
        indexed_path=image.path,
        phash_threshold=cfg.phash_max_distance,
        phash_distance=match.distance,
        orb_inliers=match.inliers,
        orb_inlier_ratio=match.inlier_ratio if orb else None,
        orb_min_inlier_ratio=cfg.orb_min_inlier_ratio if orb else None,
        clip_similarity=match.similarity,
        clip_threshold=cfg.clip_threshold if clip else None,
        first_seen=image.first_seen or None,
        caption=image.caption or None,
        source_url=image.source_url or None,
        indexed_size=(image.width, image.height),
        verify_agreement=check.agreement if check else None,
        verify_min_agreement=cfg.verify_min_agreement if check else None,
        matched_region=check.region if check else None,
        match_scale=check.scale if check else None,
        mirrored=check.mirrored if check else None,
        query_thumb=thumbs[0],
        indexed_thumb=thumbs[1],
    )
    host = urlsplit(link).netloc if link else ""
    frame = f"t{time_s:.3f}:".replace(".", "_") if time_s is not None else ""
    if time_s is not None:
        text = f"Keyframe at {time_s:.2f} s: " + text[0].lower() + text[1:]
    return Evidence(
        id=f"ev:rsearch:{asset.id}:{frame}{image.sha256[:12]}",
        source=host or "local reverse-image index",
        source_type=SourceType.PRIOR_CAPTION,
        modality=Modality.IMAGE,
        content=text + ".",
        observation=data,
        reliability=reliability,
        location=MediaLocation(asset_id=asset.id, start_s=time_s, end_s=time_s),
        provenance=Provenance(
            producer=ProducerKind.RETRIEVAL,
            agent="semv reverse-search",
            tool_version=_versions(),
            method=method,
            derived_from=(asset.id,),
            url=link,
        ),
        url=link,
        title=f"Earlier copy in the local reverse-image index: {Path(image.path).name}",
        published=image.first_seen,
    )


def _indexed_thumb(image: IndexedImage, maps_dir: str | None) -> str | None:
    try:
        return save_thumb(_open_rgb(Path(image.path)), maps_dir)
    except _DECODE_ERRORS:
        return None


THUMB_SIDE: Final = 320
"""Longer side (pixels) of the side-by-side thumbnails of a match."""


def save_thumb(img: Image.Image, folder: str | None) -> str | None:
    """Write a ``THUMB_SIDE`` PNG thumbnail of ``img`` as ``<sha256>.png`` into ``folder`` (the
    forensic maps folder, copied next to each report); its file name, or None without one."""
    import hashlib
    import io

    from semv.atomic import write_bytes_atomic

    if folder is None:
        return None
    thumb = img.copy()
    thumb.thumbnail((THUMB_SIDE, THUMB_SIDE))
    buffer = io.BytesIO()
    thumb.save(buffer, "PNG", optimize=True)
    png = buffer.getvalue()
    name = hashlib.sha256(png).hexdigest() + ".png"
    target = Path(folder) / name
    if not target.is_file():
        write_bytes_atomic(target, png, prefix=".thumb-")
    return name


def _versions() -> str:
    import importlib.metadata as md

    parts = []
    for dist in ("ImageHash", "faiss-cpu", "opencv-python-headless"):
        try:
            parts.append(f"{dist} {md.version(dist)}")
        except md.PackageNotFoundError:
            continue
    return "; ".join(parts)


def _uncertain(asset: Asset, code: UncertaintyCode, detail: str) -> MediaEvidence:
    item = UncertaintyItem(code=code, subject=asset.id, detail=detail, stages=_STAGES)
    return MediaEvidence(asset_id=asset.id, evidence=(), uncertainty=(item,))


def iter_images(folder: Path) -> Iterable[Path]:
    """The image files under ``folder`` that ``build_index`` would index."""
    return sorted(p for p in folder.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES)
