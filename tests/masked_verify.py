"""``semv verify`` of the example on the LLM backend in its own process, its result JSON with
what differs between any two runs masked: for tests that compare a whole run's result under
two settings (a worker on and off, an early request sent or not)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "lyon-flood"


def verify_masked(data: Path, url: str, env: dict[str, str]) -> tuple[dict[str, Any], str]:
    """The text-only first pass of the example against the server at ``url`` with ``env``
    added to this process's environment: (the masked result, the process's stderr with
    ``-X importtime``'s import log)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "semv", "verify", str(EXAMPLE), "--text-only",
         "--backend", "llm", "--llm-url", url, "--data-dir", str(data), "--json"],
        capture_output=True, text=True, check=True, timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src"), **env},
    )  # fmt: skip
    # run ids, the data dir, the trace head (it hashes the events and their times) and the
    # measured latencies differ between any two runs; the rest of the result must not
    result = json.loads(re.sub(r"r\d{8}T\d{6}\w+", "RUN", done.stdout.replace(str(data), "DATA")))
    result.pop("trace_head")
    usage = result["usage"]
    for key in ("wall_s", "critical_path_s", "model_critical_path_s"):
        usage.pop(key)
    for role in usage["roles"].values():
        role.pop("latency_s")
    return result, done.stderr
