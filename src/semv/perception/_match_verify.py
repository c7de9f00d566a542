"""Match verification: is a reverse-search candidate the *same picture* as the query?

pHash, ORB votes and CLIP embeddings propose candidates; they also propose different pictures
that share a style (two drawn street scenes, two screenshots of one app, two memes of one
template). This step decides, for one query/candidate pair, by aligning the two pictures and
comparing their pixels:

1. Both are brought to grey at ``WORK_SIDE`` pixels on the longer side.
2. A similarity transform (rotation, scale, translation) from query to candidate is estimated
   from ORB correspondences (ratio test, RANSAC), for the query as it is and mirrored; the
   whole-frame mapping (a resized copy, as it is and mirrored) is always tried too.
3. Under each transform the query is warped onto the candidate, as it is and with gain and
   offset matched over the overlap (a tone change; text laid over a flat picture skews that
   match, so the untouched tones are tried too). For each picture, the share of *its own*
   textured overlap pixels (gradient above ``_TEXTURE``) whose grey values differ by less than
   ``_TOLERANCE`` after a light blur is taken; the *agreement* is the larger of the two shares.
   Flat areas (sky, a white page) carry no evidence and are not counted. Text laid over a
   picture (a caption band, a few words) adds texture to one picture only: the other picture's
   texture still agrees, except where the text covers it. Two memes of one template carry
   different text on both sides, so neither side's texture agrees where the captions are.
4. The best transform wins. The pair is the same picture when the agreement is at least
   ``reverse_search.verify_min_agreement`` and the overlap covers at least
   ``reverse_search.verify_min_overlap`` of the smaller picture's footprint.

``benchmarks/match_verify.py`` measures the threshold on a fit split and reports its
false-match and true-match rates on the other split (docs/evaluation.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt
from PIL import Image

__all__ = ["WORK_SIDE", "PairCheck", "Prepared", "check_pair", "compare", "prepare"]

WORK_SIDE: Final = 384
"""Longer side (pixels) of both pictures while they are compared."""
_ORB_FEATURES: Final = 1500
_FAST_THRESHOLD: Final = 8
"""FAST corner threshold (OpenCV's default is 20): flat graphics still get keypoints."""
_RATIO: Final = 0.8
_RANSAC_PX: Final = 3.0
_MIN_INLIERS: Final = 8
_BLUR_SIGMA: Final = 1.2
_TEXTURE: Final = 12.0
"""Sobel gradient magnitude (grey levels per pixel, after the blur) of a textured pixel."""
_TOLERANCE: Final = 24.0
"""Largest grey-level difference of two agreeing pixels."""
_MIN_TEXTURED: Final = 0.01
"""Below this share of textured overlap pixels, every overlap pixel is compared."""

Grey = npt.NDArray[np.float32]


@dataclass(frozen=True)
class PairCheck:
    """How well the query, aligned onto the candidate, agrees with it."""

    agreement: float
    """Share of one picture's own textured overlap pixels that agree, the larger of the two
    pictures' shares (0..1)."""
    overlap: float
    """Overlap area / the smaller of the two footprints (0..1)."""
    mirrored: bool
    transform: str
    """``orb`` (similarity from ORB + RANSAC) or ``frame`` (whole frame resized)."""
    inliers: int
    """RANSAC inliers of the ORB transform (0 for ``frame``)."""
    region: tuple[int, int, int, int]
    """The query's footprint in the candidate (x, y, w, h; candidate pixels, clipped)."""
    scale: float
    """Candidate pixels per query pixel."""

    def holds(self, min_agreement: float, min_overlap: float) -> bool:
        return self.agreement >= min_agreement and self.overlap >= min_overlap


def _grey(img: Image.Image) -> tuple[Grey, float]:
    """``img`` in grey with its longer side at ``WORK_SIDE``, and the factor from original to
    working pixels."""
    grey = img.convert("L")
    factor = WORK_SIDE / max(grey.size)
    if factor != 1.0:  # small pictures are enlarged: ORB needs room for its keypoints
        size = (max(1, round(grey.width * factor)), max(1, round(grey.height * factor)))
        grey = grey.resize(size, Image.Resampling.BILINEAR)
    return np.asarray(grey, dtype=np.float32), factor


def _orb(grey: Grey) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.uint8] | None]:
    import cv2

    orb = cv2.ORB.create(nfeatures=_ORB_FEATURES, fastThreshold=_FAST_THRESHOLD)
    keypoints, desc = orb.detectAndCompute(grey.astype(np.uint8), None)
    points = np.array([kp.pt for kp in keypoints], dtype=np.float32).reshape(-1, 2)
    return points, None if desc is None else np.asarray(desc, dtype=np.uint8)


def _similarity(
    q: tuple[npt.NDArray[np.float32], npt.NDArray[np.uint8] | None],
    c: tuple[npt.NDArray[np.float32], npt.NDArray[np.uint8] | None],
) -> tuple[npt.NDArray[np.float64], int] | None:
    """The query→candidate similarity transform (2×3) and its RANSAC inliers, if any."""
    import cv2

    (qp, qd), (cp, cd) = q, c
    if qd is None or cd is None or len(qd) < 2 or len(cd) < 2:
        return None
    pairs = cv2.BFMatcher(cv2.NORM_HAMMING).knnMatch(qd, cd, k=2)
    good = [m[0] for m in pairs if len(m) == 2 and m[0].distance < _RATIO * m[1].distance]
    if len(good) < _MIN_INLIERS:
        return None
    src = np.array([qp[m.queryIdx] for m in good], dtype=np.float32)
    dst = np.array([cp[m.trainIdx] for m in good], dtype=np.float32)
    matrix, mask = cv2.estimateAffinePartial2D(
        src, dst, method=cv2.RANSAC, ransacReprojThreshold=_RANSAC_PX
    )
    if matrix is None or mask is None:
        return None
    inliers = int(mask.sum())
    return (matrix.astype(np.float64), inliers) if inliers >= _MIN_INLIERS else None


def _blur(grey: Grey) -> Grey:
    import cv2

    return np.asarray(cv2.GaussianBlur(grey, (0, 0), _BLUR_SIGMA), dtype=np.float32)


def _texture(grey: Grey) -> npt.NDArray[np.bool_]:
    import cv2

    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3) / 4.0
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3) / 4.0
    return np.asarray(np.hypot(gx, gy) > _TEXTURE)


def _agreement(
    query: Grey, cand: Grey, cand_texture: npt.NDArray[np.bool_], matrix: npt.NDArray[np.float64]
) -> tuple[float, float]:
    """(agreement, overlap) of ``query`` warped by ``matrix`` onto the blurred ``cand``."""
    import cv2

    h, w = cand.shape
    warped = np.asarray(
        cv2.warpAffine(query, matrix, (w, h), flags=cv2.INTER_LINEAR), dtype=np.float32
    )
    ones = np.ones(query.shape, dtype=np.uint8)
    mask = cv2.warpAffine(ones, matrix, (w, h), flags=cv2.INTER_NEAREST) > 0
    mask = cv2.erode(mask.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    area = float(mask.sum())
    footprint = abs(float(np.linalg.det(matrix[:, :2]))) * query.size
    overlap = area / max(1.0, min(footprint, float(cand.size)))
    if area < 64:
        return 0.0, overlap
    warped = _blur(warped)
    q_vals, c_vals = warped[mask], cand[mask]
    q_std, c_std = float(q_vals.std()), float(c_vals.std())
    tones = [warped]
    if q_std > 1e-3 and c_std > 1e-3:
        tones.append((warped - float(q_vals.mean())) * (c_std / q_std) + float(c_vals.mean()))
    own = 0.0
    for toned in tones:
        agree = np.abs(toned - cand) < _TOLERANCE
        for textured in (cand_texture & mask, _texture(toned) & mask):
            counted = textured if textured.sum() >= _MIN_TEXTURED * area else mask
            own = max(own, float((agree & counted).sum()) / max(1.0, float(counted.sum())))
    return own, min(1.0, overlap)


@dataclass(frozen=True)
class Prepared:
    """One picture reduced for comparison (as it is and mirrored); reusable across pairs."""

    grey: Grey
    factor: float
    """Working pixels per original pixel."""
    blurred: Grey
    texture: npt.NDArray[np.bool_]
    features: tuple[npt.NDArray[np.float32], npt.NDArray[np.uint8] | None]
    mirrored: Grey
    mirrored_features: tuple[npt.NDArray[np.float32], npt.NDArray[np.uint8] | None]


def prepare(img: Image.Image) -> Prepared:
    """``img`` in the form ``compare`` reads."""
    grey, factor = _grey(img)
    blurred = _blur(grey)
    flipped = np.ascontiguousarray(grey[:, ::-1])
    return Prepared(
        grey=grey,
        factor=factor,
        blurred=blurred,
        texture=_texture(blurred),
        features=_orb(grey),
        mirrored=flipped,
        mirrored_features=_orb(flipped),
    )


def check_pair(query: Image.Image, candidate: Image.Image) -> PairCheck:
    """Align ``query`` onto ``candidate`` (as it is and mirrored) and measure how well they
    agree; the best alignment's figures."""
    return compare(prepare(query), prepare(candidate))


def compare(query: Prepared, cand: Prepared) -> PairCheck:
    """``check_pair`` on prepared pictures."""
    qh, qw = query.grey.shape
    ch, cw = cand.grey.shape
    frame = np.array([[cw / qw, 0.0, 0.0], [0.0, ch / qh, 0.0]], dtype=np.float64)
    best: PairCheck | None = None
    for mirrored in (False, True):
        q = query.mirrored if mirrored else query.grey
        options: list[tuple[str, npt.NDArray[np.float64], int]] = [("frame", frame, 0)]
        found = _similarity(query.mirrored_features if mirrored else query.features, cand.features)
        if found is not None:
            options.append(("orb", found[0], found[1]))
        for name, matrix, inliers in options:
            agreement, overlap = _agreement(q, cand.blurred, cand.texture, matrix)
            if best is not None and (agreement, overlap) <= (best.agreement, best.overlap):
                continue
            best = PairCheck(
                agreement=round(agreement, 4),
                overlap=round(overlap, 4),
                mirrored=mirrored,
                transform=name,
                inliers=inliers,
                region=_region(matrix, (qw, qh), (cw, ch), cand.factor),
                scale=round(_scale(matrix) * query.factor / cand.factor, 4),
            )
    if best is None:  # the identity frame is always tried, so this cannot happen
        raise RuntimeError("match verification compared no alignment")
    return best


def _scale(matrix: npt.NDArray[np.float64]) -> float:
    return float(np.sqrt(abs(np.linalg.det(matrix[:, :2]))))


def _region(
    matrix: npt.NDArray[np.float64],
    query_size: tuple[int, int],
    cand_size: tuple[int, int],
    cand_factor: float,
) -> tuple[int, int, int, int]:
    """The query's corners mapped into the candidate, as a clipped box in original pixels."""
    qw, qh = query_size
    corners = np.array([[0, 0, 1], [qw, 0, 1], [0, qh, 1], [qw, qh, 1]], dtype=np.float64)
    mapped = corners @ matrix.T
    cw, ch = cand_size
    x0, y0 = max(0.0, mapped[:, 0].min()), max(0.0, mapped[:, 1].min())
    x1, y1 = min(float(cw), mapped[:, 0].max()), min(float(ch), mapped[:, 1].max())
    inv = 1.0 / cand_factor
    return (
        round(x0 * inv),
        round(y0 * inv),
        max(0, round((x1 - x0) * inv)),
        max(0, round((y1 - y0) * inv)),
    )
