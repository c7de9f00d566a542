"""semv: contestable, self-evolving multimedia verification.

Python API::

    import semv
    result = semv.verify("examples/lyon-flood")   # a case folder, or a semv.model.Case
    print(result.label, result.confidence)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from semv._api import verify

__all__ = ["__version__", "verify"]


def __getattr__(name: str) -> Any:
    # Lazy: ``import semv.model`` must not load spaCy, the store and the agents.
    if name == "verify":
        from semv._api import verify

        return verify
    raise AttributeError(f"module 'semv' has no attribute {name!r}")
