"""The base of every section: frozen, unknown keys forbidden (a typo in a TOML file is an
error)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["_Section"]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
