"""The forensic extractors' part of the media stage's fingerprint, without loading them.

Every run fingerprints its media nodes, a text-only one too, and the fingerprint names the
libraries that compute the forensic maps (``forensic_tool_version``) and the fitted
manipulation model's version and hash (``model_fingerprint``). Asking them meant importing
``semv.perception.forensics`` and ``manipulation``, and with them OpenCV (~60 ms, its
native library) and every forensic signal module, in runs that analyse no image. Here the
strings are built from what is already loaded or cheap to read: Pillow's and NumPy's
``__version__``, the model file's JSON, and OpenCV's ``cv2.__version__``, which only its
native library knows: it is remembered on disk (``semv.perception._toolcache``) under the
identity of the files that decide it (the ``cv2`` package's ``__init__.py``, ``version.py``
and native module: path, size, mtime, inode), so installing or upgrading OpenCV asks it again.
The strings are the same as before, byte for byte (``tests/test_forensics.py``). Not from the
papers.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from importlib import resources
from pathlib import Path
from typing import Final

from semv.perception import _toolcache

__all__ = ["MODEL_FILE", "forensic_tool_version", "model_fingerprint", "opencv_version"]

MODEL_FILE: Final = "data/forensic_model.json"
_NATIVE_SUFFIXES: Final = (".so", ".pyd")


def forensic_tool_version() -> str:
    """Versions of the libraries that compute the maps (part of Eq. 4 provenance)."""
    import numpy as np
    import PIL

    return f"Pillow {PIL.__version__}; OpenCV {opencv_version()}; numpy {np.__version__}"


def model_fingerprint() -> str:
    """``forensic model v<version> <sha256[:12]>`` of the shipped file (or ``none``)."""
    ref = resources.files("semv.perception").joinpath(MODEL_FILE)
    if not ref.is_file():
        return "forensic model none"
    raw = ref.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()[:12]
    return f"forensic model v{json.loads(raw)['version']!s} {digest}"


def opencv_version() -> str:
    """``cv2.__version__``: from the loaded module, else remembered for the installed files,
    else by importing OpenCV (and remembering the answer)."""
    if "cv2" in sys.modules:
        # imported (or being imported by another thread: the import statement waits for it to
        # finish, where reading sys.modules would see a half-initialised module)
        return _import_version()
    return _toolcache.remembered_for("opencv (cv2.__version__)", _cv2_identity(), _import_version)


def _import_version() -> str:
    import cv2

    return str(cv2.__version__)


def _cv2_identity() -> str | None:
    """The identities of the ``cv2`` package's ``__init__.py``, ``version.py`` and native
    module(s), as an import would find them, without importing; None when any is missing."""
    try:
        spec = importlib.util.find_spec("cv2")
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin is None or not spec.submodule_search_locations:
        return None
    package = Path(spec.origin).parent
    native = sorted(
        p
        for folder in (package, *package.glob("python-3*"))
        for p in folder.glob("cv2*")
        if p.suffix in _NATIVE_SUFFIXES and p.is_file()
    )
    if not native:
        return None
    identities = [_toolcache.file_identity(str(p)) for p in (spec.origin, package / "version.py")]
    identities += [_toolcache.file_identity(str(p)) for p in native]
    if any(i is None for i in identities):
        return None
    return "|".join(i for i in identities if i is not None)
