"""Dataset adapters: read cases in one input format, keep gold annotations sealed.

Adapters: ``generic`` (case folders, DESIGN §4) and ``cosmos`` (COSMOS / OOKPIK caption pairs).
Every adapter yields ``LoadedCase(case, gold)``: the ``Case`` never holds a gold label; the gold
sits in a ``SealedGold`` that reveals it only to a committed run. Every input problem is an
``semv.errors.InputError`` whose message names the file and the problem.
"""

from semv.adapters._base import COSMOS_CONTRACT, INTERNAL_CONTRACT, Adapter, LoadedCase
from semv.adapters._cosmos import CosmosAdapter
from semv.adapters._generic import GenericAdapter
from semv.adapters._gold import SealedGold
from semv.adapters._media import MEDIA_EXTENSIONS
from semv.adapters._registry import adapter_names, detect_adapter, get_adapter

__all__ = [
    "COSMOS_CONTRACT",
    "INTERNAL_CONTRACT",
    "MEDIA_EXTENSIONS",
    "Adapter",
    "CosmosAdapter",
    "GenericAdapter",
    "LoadedCase",
    "SealedGold",
    "adapter_names",
    "detect_adapter",
    "get_adapter",
]
