"""A revealed gold label in the label contract a run answers in, so learning and transfer
compare like with like (the evaluation's own reading, ``semv.eval``)."""

from __future__ import annotations

from semv.adapters import COSMOS_CONTRACT, VERITE_LABELS
from semv.model import CosmosLabel

__all__ = ["contract_gold"]


def contract_gold(gold: str, contract: str) -> str:
    """``gold`` as a label of ``contract``: VERITE's ``true`` is NOOC under the COSMOS contract
    and its ``miscaptioned`` and ``out-of-context`` are OOC (the caption misrepresents the
    image); any other label is returned unchanged."""
    if contract == COSMOS_CONTRACT and gold in VERITE_LABELS:
        return CosmosLabel.NOOC.value if gold == "true" else CosmosLabel.OOC.value
    return gold
