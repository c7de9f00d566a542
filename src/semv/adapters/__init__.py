"""Dataset adapters: read cases in one input format, keep gold annotations sealed.

Adapters: ``generic`` (case folders, DESIGN §4), ``cosmos`` (COSMOS / OOKPIK caption pairs, the
official train/val/test layouts), ``mv2026`` (Grand Challenge case folders), ``remmd``
(ReMMDBench), ``mmfakebench``, ``verite`` and ``5pils-ooc`` (5Pils-OOC captions with web
captions of the same image).
Every adapter yields ``LoadedCase(case, gold)``: the ``Case`` never holds a gold label; the gold
sits in a ``SealedGold`` that reveals it only to a committed run. Every input problem is an
``semv.errors.InputError`` whose message names the file and the problem.
"""

from semv.adapters._base import COSMOS_CONTRACT, INTERNAL_CONTRACT, Adapter, LoadedCase
from semv.adapters._cosmos import CosmosAdapter, split_file
from semv.adapters._fivepils import FivePilsOocAdapter
from semv.adapters._generic import GenericAdapter, find_case_file
from semv.adapters._gold import SealedGold
from semv.adapters._media import MEDIA_EXTENSIONS
from semv.adapters._mmfakebench import BINARY as MMFAKEBENCH_BINARY
from semv.adapters._mmfakebench import FAKE_CLASSES, MmFakeBenchAdapter
from semv.adapters._mv2026 import Mv2026Adapter
from semv.adapters._mvreport import REQUIRED_FIELDS, MvReport, parse_date, parse_mv_report
from semv.adapters._registry import adapter_names, detect_adapter, get_adapter, load_cases
from semv.adapters._remmd import REMMD_L1, REMMD_L2, RemmdAdapter, l2_label
from semv.adapters._remmd_runs import is_runs_folder
from semv.adapters._verite import VERITE_LABELS, VeriteAdapter

__all__ = [
    "COSMOS_CONTRACT",
    "FAKE_CLASSES",
    "INTERNAL_CONTRACT",
    "MEDIA_EXTENSIONS",
    "MMFAKEBENCH_BINARY",
    "REMMD_L1",
    "REMMD_L2",
    "REQUIRED_FIELDS",
    "VERITE_LABELS",
    "Adapter",
    "CosmosAdapter",
    "FivePilsOocAdapter",
    "GenericAdapter",
    "LoadedCase",
    "MmFakeBenchAdapter",
    "Mv2026Adapter",
    "MvReport",
    "RemmdAdapter",
    "SealedGold",
    "VeriteAdapter",
    "adapter_names",
    "detect_adapter",
    "find_case_file",
    "get_adapter",
    "is_runs_folder",
    "l2_label",
    "load_cases",
    "parse_date",
    "parse_mv_report",
    "split_file",
]
