"""Learning and transfer runs of Module F (SEMV §5.2, §6.3): they verify cases through the
pipeline and write to the memory bank, so they sit above ``semv.pipeline`` (which runs the
``recall:k`` stage that reads ``semv.memory``): memory → (nothing above it); learning →
pipeline, memory."""

from semv.learning._learn import LearnReport, learn
from semv.learning._transfer import AblationRow, TransferReport, ablations, transfer

__all__ = ["AblationRow", "LearnReport", "TransferReport", "ablations", "learn", "transfer"]
