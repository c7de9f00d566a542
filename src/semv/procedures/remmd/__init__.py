"""ReMMD (ReMMD §3) as a registered procedure: atomic points, the sample-level evidence bank
M_s with TopK reuse across points, and the judge (σ_j per point, L1 from the pattern over
central claims and bindings, L2 after L1, L3 in the post's language)."""

from semv.procedures._labelled import labelled_procedure
from semv.procedures.remmd._models import AtomicPoints, EvidenceBank
from semv.procedures.remmd.graph import NAME, build_remmd_graph

__all__ = ["REMMD", "AtomicPoints", "EvidenceBank"]

REMMD = labelled_procedure(
    NAME,
    "ReMMD: atomic points, a sample evidence bank reused across points, a 5-way judge",
    build_remmd_graph,
)
