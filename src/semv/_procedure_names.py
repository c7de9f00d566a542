"""The registered verification procedures' names, importable without the procedures.

``semv verify --help`` lists them, and ``semv verify`` checks a ``--procedure`` name, before
the command imports the stage graph (its first model request leaves first).
``semv.procedures`` registers the same names in the same order (``procedure_names()``; a test
holds the two equal) and takes its default from here.
"""

from __future__ import annotations

from typing import Final

__all__ = ["DEFAULT_PROCEDURE", "PROCEDURE_NAMES"]

DEFAULT_PROCEDURE: Final = "semv"
PROCEDURE_NAMES: Final = ("semv", "remmd", "mmd-agent", "t2-agent")
