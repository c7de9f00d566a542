"""Optional CLIP/SigLIP image embeddings for the local reverse search.

Loads *only* a model the user names (``reverse_search.clip_model_path``: a local Hugging Face
model folder with ``config.json``, CLIP or SigLIP) through ``transformers`` with
``local_files_only=True``: nothing is downloaded. Neither ``transformers`` nor ``torch`` is a
dependency of semv; without them, or without a model path, this matcher is off and a
configured-but-unloadable model becomes an uncertainty item.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from PIL import Image

__all__ = ["ClipUnavailable", "embed_images", "model_id"]


class ClipUnavailable(RuntimeError):
    """The configured model or its libraries cannot be loaded."""


def model_id(path: str) -> str:
    """A stable identity of the model folder: its path and a hash of its ``config.json``."""
    config = Path(path) / "config.json"
    try:
        digest = hashlib.sha256(config.read_bytes()).hexdigest()[:16]
    except OSError as exc:
        raise ClipUnavailable(f"{config}: cannot read model config: {exc}") from exc
    return f"{Path(path).resolve()}#{digest}"


@lru_cache(maxsize=2)
def _load(path: str) -> tuple[Any, Any]:
    try:
        from transformers import AutoModel, AutoProcessor
    except ImportError as exc:
        raise ClipUnavailable(f"transformers (and torch) are needed for {path}: {exc}") from exc
    if not (Path(path) / "config.json").is_file():
        raise ClipUnavailable(f"{path}: not a model folder (no config.json)")
    try:
        model = AutoModel.from_pretrained(path, local_files_only=True)
        processor = AutoProcessor.from_pretrained(path, local_files_only=True)
    except Exception as exc:  # transformers raises many kinds
        raise ClipUnavailable(f"{path}: cannot load model: {exc}") from exc
    model.eval()
    return model, processor


def embed_images(path: str, images: list[Image.Image]) -> npt.NDArray[np.float32]:
    """L2-normalised image embeddings (n, d) from the model at ``path``."""
    model, processor = _load(path)
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - transformers needs torch for these models
        raise ClipUnavailable(f"torch is needed for {path}: {exc}") from exc
    with torch.no_grad():
        inputs = processor(images=images, return_tensors="pt")
        features = model.get_image_features(**inputs)
    vectors = np.asarray(features.detach().cpu().numpy(), dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.asarray(vectors / np.maximum(norms, 1e-12), np.float32)
