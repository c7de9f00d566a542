"""The plot cache: an identical plot is copied, not redrawn, and the bytes are the same."""

from __future__ import annotations

from pathlib import Path

import pytest

from semv.eval import _plots
from semv.eval._plotcache import plot

ARGS = {
    "confidence": [0.55, 0.61, 0.93, 0.72, 0.5],
    "correct": [True, False, True, True, False],
    "bins": 10,
    "title": "cosmos: reliability (10 bins)",
}


def test_a_rerendered_plot_comes_from_the_cache_byte_for_byte(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SEMV_CACHE_DIR", str(tmp_path / "cache"))
    first, second = tmp_path / "a" / "reliability.png", tmp_path / "b" / "reliability.png"
    plot("reliability", first, **ARGS)
    assert first.read_bytes().startswith(b"\x89PNG")
    assert len(list((tmp_path / "cache" / "plots").glob("*.png"))) == 1

    def no_drawing(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("drawn again")

    monkeypatch.setattr(_plots, "reliability_plot", no_drawing)
    plot("reliability", second, **ARGS)
    assert second.read_bytes() == first.read_bytes()
    # other inputs are another plot: drawn (here: the stub refuses)
    with pytest.raises(AssertionError, match="drawn again"):
        plot("reliability", tmp_path / "c.png", **{**ARGS, "bins": 5})


def test_the_cache_can_be_turned_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEMV_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SEMV_PLOT_CACHE", "0")
    target = tmp_path / "confusion.png"
    plot("confusion", target, matrix=[[3, 1], [0, 2]], labels=["not OOC", "OOC"], title="t")
    assert target.read_bytes().startswith(b"\x89PNG")
    assert not (tmp_path / "cache").exists()
