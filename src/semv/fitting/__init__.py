"""What the fit scripts (``scripts/fit_*.py``, ``make fit``, ``make cv``) share.

- :mod:`semv.fitting._files`: writing a fitted-parameter file (and its metrics) atomically, in
  the one JSON layout every shipped parameter file has, and the sha256 of a training file for
  its provenance.
- :mod:`semv.fitting._cosmos`: the offline pipeline over COSMOS-format caption pairs, each
  verdict read back as the verdict calibration reads it (the decision and ψ̄, Eq. 20).

Nothing in a verification run imports this package: it is for the commands that produce the
shipped parameters and for the cross-validation that refits them.
"""

from semv.fitting._cosmos import CosmosVerdict, cosmos_verdicts
from semv.fitting._files import dump_json, finish_fit, sha256_of, write_parameters

__all__ = [
    "CosmosVerdict",
    "cosmos_verdicts",
    "dump_json",
    "finish_fit",
    "sha256_of",
    "write_parameters",
]
