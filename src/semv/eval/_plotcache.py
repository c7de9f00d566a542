"""An evaluation's plots, rendered once per distinct input on a machine.

A plot is a pure function of its inputs (the numbers, the title), of ``semv.eval._plots``'s
code and of matplotlib's version: the PNG bytes are the same in every process (Agg writes no
timestamp). So the rendered file is kept under ``cache_dir()/plots/<key>.png``, the key being
the sha256 of all of those, and an identical plot (a rerun of an evaluation, ``eval score`` of
the same results) is copied instead of importing matplotlib (~0.4 s) and drawing (~0.1 s a
plot). ``SEMV_PLOT_CACHE=0`` turns the cache off; a cache that cannot be read or written is
skipped and the plot rendered.
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path
from typing import Any, Literal

from semv._code import dist_version
from semv.atomic import write_bytes_atomic
from semv.store import canonical_json, sha256_text

__all__ = ["plot"]

log = logging.getLogger(__name__)

PlotKind = Literal["reliability", "confusion"]

_PLOTS_CODE = hashlib.sha256(Path(__file__).with_name("_plots.py").read_bytes()).hexdigest()
"""sha256 of ``_plots.py``, read as a file: importing it would import matplotlib."""


def _cached_file(kind: PlotKind, args: dict[str, Any]) -> Path | None:
    from semv.config import environment
    from semv.nlp.places import cache_dir

    if not environment().plot_cache:
        return None
    key = sha256_text(
        canonical_json(
            {
                "kind": kind,
                "args": args,
                "code": _PLOTS_CODE,
                "matplotlib": dist_version("matplotlib"),
            }
        )
    )
    return cache_dir() / "plots" / f"{key}.png"


def plot(kind: PlotKind, path: Path, **args: Any) -> None:
    """Write the ``kind`` plot of ``args`` (``reliability_plot``'s or ``confusion_plot``'s
    arguments but the path) to ``path``, atomically, from the cache when it was rendered
    before."""
    cached = _cached_file(kind, args)
    if cached is not None:
        try:
            write_bytes_atomic(path, cached.read_bytes())
            return
        except FileNotFoundError:
            pass
        except OSError as exc:
            log.warning("plot cache %s unreadable: %s", cached, exc)
    from semv.eval._plots import confusion_plot, reliability_plot

    if kind == "reliability":
        reliability_plot(path=path, **args)
    else:
        confusion_plot(path=path, **args)
    if cached is not None:
        try:
            write_bytes_atomic(cached, path.read_bytes())
        except OSError as exc:
            log.warning("plot cache %s not writable: %s", cached, exc)
