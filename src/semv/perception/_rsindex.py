"""Storage of the local reverse-image index: SQLAlchemy/SQLite rows plus two FAISS files.

``<index_dir>/index.db`` holds one row per indexed image (SHA-256, path, 64-bit pHash, size,
source URL, first-seen date, caption) and its ORB keypoints and descriptors; it is the source of
truth. ``phash.faiss`` (binary, 64 bits, id = image id) and ``orb.faiss`` (binary, 256 bits,
id = image id × 2¹² + keypoint number) are rebuilt from it after every change and loaded for
queries. ``GENERATION`` holds a hash of the indexed content: it enters the media stage's
fingerprint, so re-indexing invalidates cached ``media:<asset>`` nodes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt
from sqlalchemy import (
    Column,
    Engine,
    ForeignKey,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    delete,
    insert,
    select,
    update,
)

from semv.atomic import write_bytes_atomic

__all__ = [
    "DB_NAME",
    "GENERATION_NAME",
    "KEYPOINT_BITS",
    "IndexStore",
    "IndexedImage",
    "read_generation",
]

DB_NAME: Final = "index.db"
GENERATION_NAME: Final = "GENERATION"
PHASH_FILE: Final = "phash.faiss"
ORB_FILE: Final = "orb.faiss"
KEYPOINT_BITS: Final = 12
"""ORB FAISS ids pack (image id, keypoint number) as image_id << 12 | keypoint (≤ 4096 kps)."""

_meta = MetaData()
images = Table(
    "images",
    _meta,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("sha256", String(64), nullable=False, unique=True),
    Column("path", Text, nullable=False),
    Column("phash", String(16), nullable=False, comment="64-bit pHash, hex"),
    Column("width", Integer, nullable=False),
    Column("height", Integer, nullable=False),
    Column("source_url", Text),
    Column("first_seen", String(40)),
    Column("caption", Text),
)
features = Table(
    "orb_features",
    _meta,
    Column("image_id", Integer, ForeignKey("images.id"), primary_key=True),
    Column("n_keypoints", Integer, nullable=False),
    Column("keypoints", LargeBinary, nullable=False, comment="float32 (n, 2) x, y"),
    Column("descriptors", LargeBinary, nullable=False, comment="uint8 (n, 32)"),
)

clip_embeddings = Table(
    "clip_embeddings",
    _meta,
    Column("image_id", Integer, ForeignKey("images.id"), primary_key=True),
    Column("model", Text, primary_key=True, comment="model folder and config hash"),
    Column("vector", LargeBinary, nullable=False, comment="float32, L2-normalised"),
)


@dataclass(frozen=True)
class IndexedImage:
    id: int
    sha256: str
    path: str
    phash: str
    width: int
    height: int
    source_url: str | None
    first_seen: str | None
    caption: str | None


def read_generation(index_dir: Path) -> str | None:
    """The content hash of the index at ``index_dir``, or None when there is no index."""
    try:
        return (index_dir / GENERATION_NAME).read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def _atomic_write(target: Path, data: bytes) -> None:
    write_bytes_atomic(target, data, prefix=f".{target.name}-")


class IndexStore:
    """Open (or create) the index database at ``index_dir``."""

    def __init__(self, index_dir: Path, *, create: bool = False) -> None:
        self.dir = index_dir
        if create:
            index_dir.mkdir(parents=True, exist_ok=True)
        self.engine: Engine = create_engine(f"sqlite:///{index_dir / DB_NAME}")
        if create:
            _meta.create_all(self.engine)

    def close(self) -> None:
        self.engine.dispose()

    # ---- writing -------------------------------------------------------------------------

    def upsert(
        self,
        row: dict[str, Any],
        keypoints: npt.NDArray[np.float32],
        descriptors: npt.NDArray[np.uint8],
    ) -> int:
        """Insert or update the image with ``row["sha256"]``; replace its ORB features."""
        with self.engine.begin() as conn:
            found = conn.execute(
                select(images.c.id).where(images.c.sha256 == row["sha256"])
            ).scalar_one_or_none()
            if found is None:
                result = conn.execute(insert(images).values(**row))
                key = result.inserted_primary_key
                if key is None:  # pragma: no cover - SQLite always returns the rowid
                    raise RuntimeError("insert returned no primary key")
                image_id = int(key[0])
            else:
                image_id = int(found)
                conn.execute(update(images).where(images.c.id == image_id).values(**row))
                conn.execute(delete(features).where(features.c.image_id == image_id))
            conn.execute(
                insert(features).values(
                    image_id=image_id,
                    n_keypoints=len(descriptors),
                    keypoints=np.ascontiguousarray(keypoints, dtype=np.float32).tobytes(),
                    descriptors=np.ascontiguousarray(descriptors, dtype=np.uint8).tobytes(),
                )
            )
        return image_id

    def put_embedding(self, image_id: int, model: str, vector: npt.NDArray[np.float32]) -> None:
        """Store (replace) the CLIP embedding of an image for ``model``."""
        with self.engine.begin() as conn:
            conn.execute(
                delete(clip_embeddings).where(
                    (clip_embeddings.c.image_id == image_id) & (clip_embeddings.c.model == model)
                )
            )
            conn.execute(
                insert(clip_embeddings).values(
                    image_id=image_id,
                    model=model,
                    vector=np.ascontiguousarray(vector, dtype=np.float32).tobytes(),
                )
            )

    def embeddings(self, model: str) -> tuple[list[int], npt.NDArray[np.float32]]:
        """Image ids and their embeddings (n, d) for ``model``."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(clip_embeddings.c.image_id, clip_embeddings.c.vector)
                .where(clip_embeddings.c.model == model)
                .order_by(clip_embeddings.c.image_id)
            ).all()
        if not rows:
            return [], np.zeros((0, 0), np.float32)
        vectors = np.stack([np.frombuffer(r.vector, dtype=np.float32) for r in rows])
        return [int(r.image_id) for r in rows], vectors

    def rebuild(self) -> str:
        """Rewrite the FAISS files and the generation hash from the database; the hash."""
        import faiss

        phash_index = faiss.IndexBinaryIDMap2(faiss.IndexBinaryFlat(64))
        orb_index = faiss.IndexBinaryIDMap2(faiss.IndexBinaryFlat(256))
        digest = hashlib.sha256()
        for image in self.images():
            phash_index.add_with_ids(
                np.frombuffer(bytes.fromhex(image.phash), dtype=np.uint8).reshape(1, 8),
                np.array([image.id], dtype=np.int64),
            )
            _, desc = self.features(image.id)
            if len(desc):
                ids = (np.int64(image.id) << KEYPOINT_BITS) + np.arange(len(desc), dtype=np.int64)
                orb_index.add_with_ids(desc, ids)
            for value in (
                image.sha256,
                image.phash,
                image.source_url or "",
                image.first_seen or "",
                image.caption or "",
                str(len(desc)),
            ):
                digest.update(value.encode("utf-8") + b"\0")
        with self.engine.connect() as conn:
            for row in conn.execute(
                select(clip_embeddings.c.image_id, clip_embeddings.c.model).order_by(
                    clip_embeddings.c.image_id, clip_embeddings.c.model
                )
            ):
                digest.update(f"clip:{row.image_id}:{row.model}".encode() + b"\0")
        _atomic_write(self.dir / PHASH_FILE, bytes(faiss.serialize_index_binary(phash_index)))
        _atomic_write(self.dir / ORB_FILE, bytes(faiss.serialize_index_binary(orb_index)))
        generation = digest.hexdigest()
        _atomic_write(self.dir / GENERATION_NAME, generation.encode("utf-8"))
        return generation

    # ---- reading -------------------------------------------------------------------------

    def images(self) -> Iterator[IndexedImage]:
        with self.engine.connect() as conn:
            rows = conn.execute(select(images).order_by(images.c.id)).mappings().all()
        for row in rows:
            yield IndexedImage(**dict(row))

    def image(self, image_id: int) -> IndexedImage | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(images).where(images.c.id == image_id)).mappings().first()
        return IndexedImage(**dict(row)) if row is not None else None

    def count(self) -> int:
        return sum(1 for _ in self.images())

    def features(self, image_id: int) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.uint8]]:
        with self.engine.connect() as conn:
            row = conn.execute(select(features).where(features.c.image_id == image_id)).first()
        n = int(row.n_keypoints) if row is not None else 0
        if row is None or n == 0:
            return np.zeros((0, 2), np.float32), np.zeros((0, 32), np.uint8)
        kps = np.frombuffer(row.keypoints, dtype=np.float32).reshape(n, 2)
        desc = np.frombuffer(row.descriptors, dtype=np.uint8).reshape(n, 32)
        return kps, desc

    def load_faiss(self) -> tuple[Any, Any]:
        """The pHash and ORB FAISS indexes from their files (cached per folder and generation:
        a rebuilt index has a new generation, so a stale cache entry is never used)."""
        generation = read_generation(self.dir) or ""
        key = (str(self.dir.resolve()), generation)
        cached = _FAISS_CACHE.get(key)
        if cached is None:
            import faiss

            def load(name: str) -> Any:
                data = np.frombuffer((self.dir / name).read_bytes(), dtype=np.uint8)
                return faiss.deserialize_index_binary(data)

            cached = (load(PHASH_FILE), load(ORB_FILE))
            if len(_FAISS_CACHE) >= _FAISS_CACHE_SIZE:
                _FAISS_CACHE.pop(next(iter(_FAISS_CACHE)))
            _FAISS_CACHE[key] = cached
        return cached


_FAISS_CACHE: dict[tuple[str, str], tuple[Any, Any]] = {}
_FAISS_CACHE_SIZE: Final = 4
