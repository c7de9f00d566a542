"""Source reliability priors per publisher domain, from the versioned data file
``semv/retrieval/data/source_priors.json`` shipped in the package.

A retrieved item's reliability r_e (Eq. 4, 14) is its domain's prior: the domain's own value,
else its category's (news agency, fact-checker, official, news, reference, social, satire),
else ``unknown``. Subdomains inherit from the nearest listed parent domain.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from semv.errors import ConfigError

__all__ = ["Prior", "SourcePriors", "load_priors"]


@dataclass(frozen=True)
class Prior:
    domain: str | None
    category: str
    reliability: float
    source_type: str


class SourcePriors:
    """Domain → prior lookup. ``version`` names the data file's version."""

    def __init__(self, data: dict[str, Any], origin: str) -> None:
        try:
            self.version = str(data["version"])
            self.categories: dict[str, dict[str, Any]] = dict(data["categories"])
            self.domains: dict[str, str] = {k.lower(): v for k, v in data["domains"].items()}
        except (KeyError, TypeError, AttributeError) as exc:
            raise ConfigError(f"{origin}: malformed source priors: {exc}") from exc
        if "unknown" not in self.categories:
            raise ConfigError(f"{origin}: source priors need an 'unknown' category")
        for domain, category in self.domains.items():
            if category not in self.categories:
                raise ConfigError(f"{origin}: {domain} has unknown category {category!r}")
        for name, cat in self.categories.items():
            r = cat.get("reliability")
            if not isinstance(r, int | float) or not 0.0 <= float(r) <= 1.0:
                raise ConfigError(f"{origin}: category {name} needs a reliability in [0, 1]")

    def lookup(self, domain: str | None) -> Prior:
        """The prior of ``domain`` (or of its nearest listed parent domain)."""
        if domain:
            parts = domain.lower().split(".")
            for i in range(len(parts) - 1):
                candidate = ".".join(parts[i:])
                category = self.domains.get(candidate)
                if category is not None:
                    cat = self.categories[category]
                    return Prior(
                        candidate, category, float(cat["reliability"]), str(cat["source_type"])
                    )
        cat = self.categories["unknown"]
        return Prior(None, "unknown", float(cat["reliability"]), str(cat["source_type"]))


@cache
def load_priors() -> SourcePriors:
    """The packaged priors (read once per process)."""
    ref = resources.files("semv.retrieval").joinpath("data/source_priors.json")
    origin = str(ref)
    try:
        data = json.loads(ref.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{origin}: cannot read source priors: {exc}") from exc
    return SourcePriors(data, origin)
