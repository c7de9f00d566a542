"""The sections of media evidence (Module B): extraction (keyframes, OCR, speech), pixel
forensics and local reverse-image search."""

from __future__ import annotations

from pydantic import Field

from semv.config._section import _Section

__all__ = ["ForensicsConfig", "MediaConfig", "ReverseSearchConfig"]


class MediaConfig(_Section):
    """Media evidence extraction (SEMV §4.2, Table S3/S4): keyframes, OCR, speech."""

    max_keyframes: int = Field(8, ge=1, description="K_f: keyframes per video (Table S4).")
    phash_duplicate: int = Field(
        4, ge=0, description="pHash Hamming distance at or below which frames are duplicates."
    )
    scene_threshold: float = Field(
        27.0, gt=0, description="PySceneDetect ContentDetector threshold (its default)."
    )
    min_scene_frames: int = Field(
        15, ge=1, description="Shortest scene ContentDetector reports (its default)."
    )
    audio_rate_hz: int = Field(16000, ge=8000, description="Audio sample rate for speech.")
    ocr_languages: tuple[str, ...] = Field(
        ("eng", "fra", "vie", "jpn", "chi_sim"),
        description="tesseract language packs tried for document text.",
    )
    ocr_min_confidence: float = Field(
        0.5, ge=0, le=1, description="Reading confidence below which an OCR line is dropped."
    )
    whisper_model: str | None = Field(
        None,
        description="Directory of a CTranslate2 Whisper model; None = the multilingual base "
        "(assembled from its two packages), else the bundled tiny.en.",
    )
    whisper_language: str | None = Field(
        None, description="Spoken language hint for multilingual models (None = detect)."
    )
    max_pixels: int = Field(
        89_478_485,
        ge=1,
        description="Largest image (pixels) decoded; Pillow's decompression-bomb limit.",
    )
    min_side_px: int = Field(
        16, ge=1, description="Images or frames smaller than this on a side are not analysed."
    )
    ocr_reliability: float = Field(0.6, ge=0, le=1, description="r_e of OCR text evidence.")
    speech_reliability: float = Field(
        0.6, ge=0, le=1, description="r_e of speech-transcript evidence."
    )


class ForensicsConfig(_Section):
    """Pixel forensics and JPEG structure (§4.2, Table S3 "Forensics"; Table S4 "forensic 0.50")."""

    threshold: float = Field(
        0.50, ge=0.0, le=1.0, description="Region score at or above which a map flags a region."
    )
    ela_quality: int = Field(90, ge=50, le=99, description="JPEG quality of the ELA resave.")
    ghost_qualities: tuple[int, ...] = Field(
        (50, 55, 60, 65, 70, 75, 80, 85, 90, 95),
        description="Recompression qualities of the JPEG ghost search.",
    )
    block: int = Field(16, ge=4, description="Block size (px) of the score maps.")
    window_blocks: int = Field(3, ge=1, description="Region window (in blocks) for region scores.")
    robust_z: float = Field(
        3.0,
        gt=0.0,
        description="Robust z (median/MAD over the image's blocks) at which a block scores 0.5.",
    )
    max_pixels: int = Field(
        16_000_000, ge=1, description="Larger images are not analysed (uncertainty item instead)."
    )
    ghost_dip: float = Field(
        0.85,
        gt=0.0,
        lt=1.0,
        description="A local minimum of the global ghost curve below this fraction of its "
        "neighbours, at a quality under the estimated one, hints at double compression.",
    )
    border_std: float = Field(
        2.0, ge=0.0, description="Edge rows/columns with a grey-level std below this are a border."
    )
    manipulation: bool = Field(
        True,
        description="Compute the fitted manipulation probability (double-JPEG, copy-move and "
        "resampling signals besides the maps; semv.perception.manipulation).",
    )
    review_threshold: float = Field(
        0.72,
        ge=0.0,
        le=1.0,
        description="Manipulation probability at or above which an image gets the "
        "forensic-anomaly review item: chosen for at most 5 % false alarms on the real unedited "
        "photos of a declared split (benchmarks/forensic_flag.py; docs/evaluation.md).",
    )
    manipulation_attacks: bool = Field(
        False,
        description="Let a manipulation probability at or above the fitted threshold attack "
        "authenticity. Off by default: on real images alone the model ranks at chance in "
        "nested CV, and the COSMOS news photos it flags (11% with model v3, 93% with v2) are "
        "no independent check of v3 (docs/evaluation.md), so the probability is a review item "
        "until a model is validated on a deployment's own images.",
    )
    maps_dir: str | None = Field(
        None,
        description="Where map PNGs are kept, content-addressed (default: <data dir>/artifacts).",
    )


class ReverseSearchConfig(_Section):
    """Local reverse-image search (§4.2, Table S3 "Local reverse search"; Table S4)."""

    index_dir: str | None = Field(
        None,
        description="The index built by `semv index images` (default: <data dir>/reverse-index).",
    )
    phash_max_distance: int = Field(
        10, ge=0, le=64, description="pHash Hamming distance at or below which images match."
    )
    orb_features: int = Field(1000, ge=50, le=4000, description="ORB keypoints per image.")
    orb_ratio: float = Field(0.8, gt=0.0, lt=1.0, description="Lowe ratio test for ORB matches.")
    orb_min_inliers: int = Field(15, ge=4, description="RANSAC inliers needed for a crop match.")
    orb_min_inlier_ratio: float = Field(
        0.30, gt=0.0, le=1.0, description="Inliers / ratio-test matches needed for a crop match."
    )
    orb_candidates: int = Field(5, ge=1, description="Images (by descriptor votes) verified.")
    clip_model_path: str | None = Field(
        None,
        description="Optional open_clip/SigLIP checkpoint directory for semantic matching; "
        "nothing is downloaded.",
    )
    clip_threshold: float = Field(0.84, description="Inner product at or above which CLIP matches.")
    max_matches: int = Field(5, ge=1, description="Matches kept per asset.")
    verify_min_agreement: float = Field(
        0.80,
        ge=0.0,
        le=1.0,
        description="Match verification: share of one image's own textured pixels that must "
        "agree once the pair is aligned (the larger of the two images' shares; measured on the "
        "splits of benchmarks/match_verify.py; docs/evaluation.md).",
    )
    verify_min_overlap: float = Field(
        0.50,
        ge=0.0,
        le=1.0,
        description="Match verification: overlap of the aligned pair / the smaller footprint.",
    )
    faiss_threads: int = Field(
        1,
        ge=1,
        description="OpenMP threads FAISS uses during a query (1 avoids thread spin-up, which "
        "costs more than it gains for one image's descriptors on a shared machine).",
    )
