"""A calibrated image-manipulation probability from the forensic signals (fitted, versioned).

``forensic_features`` measures every forensic signal of one RGB image as a number (image level):

====================  ==========================================================================
``ela``               region score of the ELA map (``_forensic_maps``)
``noise``             region score of the noise-residual map
``ghost``             region score of the JPEG-ghost map
``combined``          region score of the mean of the three maps
``ghost_dip``         1 − the depth ratio of the global JPEG-ghost dip below the file's quality
``dq_aligned``        aligned double-quantization periodicity (``_dq.aligned_dq``)
``dq_region``         the most anomalous 3×3-block window of the aligned DQ posterior map minus
                      its median, times ``dq_aligned`` (a region not following the period)
``dq_nonaligned``     non-aligned double-quantization evidence (``_dq.nonaligned_dq``)
``copy_move``         log(1 + RANSAC inliers) of SIFT self-matching (``_copymove``)
``resampling``        log of the largest p-map spectral peak contrast (``_resampling``)
``resampling_local``  log of that peak over the median window (a locally resized region)
``noise_wavelet``     local inconsistency of the wavelet-median noise level (``_noise_local``,
                      Mahdian & Saic 2009)
``noise_kurtosis``    local inconsistency of the band-pass-kurtosis noise level
                      (``_noise_local``, Lyu, Pan & Zhang 2014)
``bag``               local inconsistency of the JPEG block artifact grid (``_bag``, Li, Yuan &
                      Yu 2009)
``cfa``               a region lacking the image's demosaicing trace (``_cfa``, Popescu & Farid
                      2005; Ferrara et al. 2012)
``bdjpg_aligned``     region score of the aligned double-JPEG likelihood map (``_bdjpg``,
                      Bianchi & Piva 2012): a window not following the background's first
                      compression on the same grid
``bdjpg_nonaligned``  the same for the non-aligned (grid-shifted) first compression
====================  ==========================================================================

``ManipulationModel`` is a logistic regression over standardised features (Platt 1999: the
logistic of a linear score *is* the calibration map, fitted by maximum likelihood),
P(manipulated | x) = σ(b + Σ_j w_j (x_j − μ_j) / s_j). Its parameters, the decision threshold
and the declared training split ship in ``data/forensic_model.json``, written by
``scripts/fit_forensics.py`` (``make fit-forensics``); the file's version enters the media
stage's fingerprint through ``signal_tools``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Final

import cv2
import numpy as np
from PIL import Image

from semv.config import ForensicsConfig
from semv.perception import _bag, _bdjpg, _cfa, _copymove, _dq, _noise_local, _resampling
from semv.perception import _forensic_maps as fm
from semv.perception._jpeg import read_structure
from semv.perception._signal_versions import MODEL_FILE, model_fingerprint

__all__ = [
    "FEATURES",
    "ManipulationModel",
    "Signals",
    "forensic_signals",
    "jpeg_params",
    "load_model",
    "model_fingerprint",
]

FEATURES: Final = (
    "ela",
    "noise",
    "ghost",
    "combined",
    "ghost_dip",
    "dq_aligned",
    "dq_region",
    "dq_nonaligned",
    "copy_move",
    "resampling",
    "resampling_local",
    "noise_wavelet",
    "noise_kurtosis",
    "bag",
    "cfa",
    "bdjpg_aligned",
    "bdjpg_nonaligned",
)


@dataclass(frozen=True)
class Signals:
    """The feature values of one image plus the localisations the signals found."""

    values: dict[str, float]
    # the clone's two boxes, only when the copy-move detector verified it (``CopyMove.verified``)
    copy_move_source: tuple[int, int, int, int] | None = None
    copy_move_target: tuple[int, int, int, int] | None = None
    resampling_region: tuple[int, int, int, int] | None = None
    dq_region_box: tuple[int, int, int, int] | None = None
    dq_shift: tuple[int, int] = (0, 0)
    noise_region: tuple[int, int, int, int] | None = None
    bag_region: tuple[int, int, int, int] | None = None
    cfa_region: tuple[int, int, int, int] | None = None
    bdjpg_region: tuple[int, int, int, int] | None = None


def jpeg_params(img: Image.Image) -> tuple[int | None, tuple[int, ...] | None]:
    """(estimated quality, 64 luma quantization steps in natural order) of an opened JPEG,
    (None, None) for any other format. Call before ``convert``."""
    structure = read_structure(img)
    if structure is None or 0 not in structure.tables:
        return None, None
    return structure.quality, structure.tables[0]


def _ghost_dip(img: Image.Image, quality: int | None, cfg: ForensicsConfig) -> float:
    """1 − the deepest local-minimum ratio of the global ghost curve below ``quality``."""
    if quality is None:
        return 0.0
    qualities = tuple(q for q in sorted(cfg.ghost_qualities) if q < quality - 5)
    if len(qualities) < 3:
        return 0.0
    curve = fm.ghost_curve(img, qualities)
    best = 1.0
    for i in range(1, len(curve) - 1):
        best = min(best, curve[i] / max(min(curve[i - 1], curve[i + 1]), 1e-9))
    return float(max(0.0, 1.0 - best))


def _dq_region(posterior: Any, strength: float) -> tuple[float, tuple[int, int, int, int] | None]:
    if posterior.size == 0:
        return 0.0, None
    k = max(1, min(3, posterior.shape[0], posterior.shape[1]))
    smooth = cv2.blur(posterior.astype(np.float32), (k, k), borderType=cv2.BORDER_REPLICATE)
    row, col = np.unravel_index(int(np.argmax(smooth)), smooth.shape)
    contrast = float(smooth[row, col] - np.median(posterior))
    box = (max(0, int(col) - k // 2) * 8, max(0, int(row) - k // 2) * 8, k * 8, k * 8)
    return contrast * strength, box


def forensic_signals(
    img: Image.Image,
    cfg: ForensicsConfig,
    *,
    quality: int | None = None,
    q_luma: tuple[int, ...] | None = None,
    region_scores: dict[str, float] | None = None,
    features: Collection[str] = FEATURES,
) -> Signals:
    """The forensic features of an RGB image named in ``features`` (default: all; see the
    module table). ``quality`` and ``q_luma`` come from the JPEG container (None for other
    formats); ``region_scores`` are the four map region scores when the caller computed the
    maps already. Only the requested signals are computed (the pipeline asks for those the
    model weighs; the non-aligned search alone costs more than the maps)."""
    if region_scores is None and {"ela", "noise", "ghost", "combined"} & set(features):
        from semv.perception.forensics import compute_maps

        maps = compute_maps(img, cfg).maps
        region_scores = {name: maps[name].region_score for name in ("ela", "noise", "ghost")}
        region_scores["combined"] = maps["combined"].region_score
    values: dict[str, float] = {
        name: region_scores[name]
        for name in ("ela", "noise", "ghost", "combined")
        if region_scores is not None and name in region_scores
    }
    out: dict[str, Any] = {}
    if "ghost_dip" in features:
        values["ghost_dip"] = _ghost_dip(img, quality, cfg)
    if {"dq_aligned", "dq_region"} & set(features):
        dq = _dq.aligned_dq(img, q_luma)
        values["dq_aligned"] = dq.strength
        values["dq_region"], out["dq_region_box"] = _dq_region(dq.posterior, dq.strength)
    if "dq_nonaligned" in features or "bdjpg_nonaligned" in features:
        values["dq_nonaligned"], out["dq_shift"] = _dq.nonaligned_dq(img)
    if "copy_move" in features:
        cm = _copymove.copy_move(img)
        values["copy_move"] = math.log1p(cm.inliers)
        if cm.verified:  # boxes are reported only where the detector's own check holds
            out["copy_move_source"], out["copy_move_target"] = cm.source, cm.target
    if {"resampling", "resampling_local"} & set(features):
        rs = _resampling.resampling(img)
        values["resampling"] = math.log(max(rs.peak, 1.0))
        values["resampling_local"] = math.log(max(rs.contrast, 1.0))
        out["resampling_region"] = rs.region
    if {"noise_wavelet", "noise_kurtosis"} & set(features):
        noise = _noise_local.noise_inconsistency(img, kurtosis="noise_kurtosis" in features)
        values["noise_wavelet"], values["noise_kurtosis"] = noise.wavelet, noise.kurtosis
        out["noise_region"] = noise.region
    if "bag" in features:
        grid = _bag.bag(img)
        values["bag"], out["bag_region"] = grid.inconsistency, grid.region
    if "cfa" in features:
        trace = _cfa.cfa(img)
        values["cfa"], out["cfa_region"] = trace.inconsistency, trace.region
    if {"bdjpg_aligned", "bdjpg_nonaligned"} & set(features):
        regions: dict[str, tuple[int, int, int, int] | None] = {}
        if "bdjpg_aligned" in features:
            a = _bdjpg.aligned_map(img, q_luma)
            values["bdjpg_aligned"], regions["bdjpg_aligned"] = _bdjpg.region_score(a)
        if "bdjpg_nonaligned" in features:
            na = _bdjpg.nonaligned_map(img, q_luma, out["dq_shift"])
            values["bdjpg_nonaligned"], regions["bdjpg_nonaligned"] = _bdjpg.region_score(na)
        top = max(regions, key=lambda name: values[name])
        out["bdjpg_region"] = regions[top]
    wanted = set(features)
    return Signals(
        values={k: round(float(v), 6) for k, v in values.items() if k in wanted},
        **out,
    )


@dataclass(frozen=True)
class ManipulationModel:
    """Logistic regression over standardised features (Platt scaling of a linear score)."""

    version: str
    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    threshold: float
    meta: dict[str, Any]

    @property
    def used(self) -> tuple[str, ...]:
        """The features with a non-zero weight: the only ones the probability reads."""
        return tuple(f for f, w in zip(self.features, self.coef, strict=True) if w != 0.0)

    def probability(self, values: dict[str, float]) -> float:
        """P(manipulated | features) = σ(b + Σ_{w_j ≠ 0} w_j (x_j − μ_j) / s_j)."""
        z = self.intercept + sum(self.contributions(values).values())
        return 1.0 / (1.0 + math.exp(-max(min(z, 50.0), -50.0)))

    def contributions(self, values: dict[str, float]) -> dict[str, float]:
        """Each weighted feature's term w_j (x_j − μ_j) / s_j of the linear score."""
        return {
            f: w * (values[f] - m) / s
            for f, m, s, w in zip(self.features, self.mean, self.scale, self.coef, strict=True)
            if w != 0.0
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ManipulationModel:
        feats = tuple(str(f) for f in data["features"])
        unknown = set(feats) - set(FEATURES)
        if unknown:
            raise ValueError(f"forensic model names unknown features: {sorted(unknown)}")
        return cls(
            version=str(data["version"]),
            features=feats,
            mean=tuple(float(v) for v in data["mean"]),
            scale=tuple(float(v) for v in data["scale"]),
            coef=tuple(float(v) for v in data["coef"]),
            intercept=float(data["intercept"]),
            threshold=float(data["threshold"]),
            meta={k: v for k, v in data.items() if k not in _PARAMS},
        )


_PARAMS: Final = frozenset(
    {"version", "features", "mean", "scale", "coef", "intercept", "threshold"}
)


@lru_cache(maxsize=1)
def load_model() -> ManipulationModel | None:
    """The shipped model (``semv/perception/data/forensic_model.json``), or None if absent."""
    ref = resources.files("semv.perception").joinpath(MODEL_FILE)
    if not ref.is_file():
        return None
    return ManipulationModel.from_dict(json.loads(ref.read_text("utf-8")))
