"""Fitted-parameter files: JSON written atomically, with the provenance the caller gives.

Every parameter file semv ships (``context_model.json``, ``calibration.json``, ``stance.json``,
``relevance.json``, ``forensic_model.json``) is ``json.dumps(data, indent=...)`` plus a final
newline, written through :func:`semv.atomic.write_text_atomic` with mode 0644 (as a plain write
leaves it): a fit that fails or is interrupted leaves the shipped file as it was. The keys,
their order and the provenance fields (the training file's :func:`sha256_of`, the command, the
date) are the caller's: each file keeps its own layout, byte for byte.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from semv.atomic import write_text_atomic

__all__ = ["dump_json", "finish_fit", "sha256_of", "write_parameters"]


def sha256_of(path: Path) -> str:
    """The hex sha256 of the bytes of ``path`` (a training file's ``training_sha256``)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def dump_json(data: Mapping[str, Any], indent: int = 2) -> str:
    """``data`` as a parameter or metrics file holds it: indented JSON and a final newline."""
    return json.dumps(data, indent=indent) + "\n"


def write_parameters(path: Path, data: Mapping[str, Any], *, indent: int = 2) -> None:
    """Write the fitted-parameter file ``path`` atomically (see :func:`dump_json`), readable
    by everyone (0644: package data); parent directories are created."""
    write_text_atomic(path, dump_json(data, indent), mode=0o644)


def finish_fit(
    payload: Mapping[str, Any],
    out: Path,
    *,
    metrics: Mapping[str, Any],
    metrics_out: Path | None = None,
    check: bool = False,
) -> None:
    """The end of a fit that measures itself: print ``metrics`` as JSON on stdout, write them to
    ``metrics_out`` when given, then write ``payload`` to ``out`` unless ``check`` (fit and
    measure, write no parameters) and say so on stderr."""
    print(json.dumps(metrics, indent=2))
    if metrics_out is not None:
        write_parameters(metrics_out, metrics)
    if not check:
        write_parameters(out, payload)
        print(f"wrote {out}", file=sys.stderr)
