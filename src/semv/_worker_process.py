"""What semv's worker processes share: when they are on, how they start, how they end.

A worker process (``semv.perception.ocr_worker``, ``semv.nlp.worker``) is started by the CLI
before the command's modules load, so that it loads a model on the machine's other core while
this process imports semv. Both are on where this process may run on two or more CPUs and are
turned on or off by an environment switch; both start as ``python -m <module>`` with this tree
on ``PYTHONPATH``, and both end with their parent (``die_with_parent``).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

__all__ = ["die_with_parent", "start", "stop", "switched_on", "usable_cpus"]


def usable_cpus() -> int:
    """How many CPUs this process may run on (its affinity where the OS reports one)."""
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        with contextlib.suppress(OSError):
            return len(affinity(0))
    return os.cpu_count() or 1


def switched_on(variable: str) -> bool:
    """``variable=1`` or ``0`` when set; otherwise True where this process may use two or more
    CPUs (a second core is what a worker runs on)."""
    setting = os.environ.get(variable, "").strip()
    if setting in ("0", "1"):
        return setting == "1"
    return usable_cpus() >= 2


def start(module: str) -> subprocess.Popen[bytes] | None:
    """``python -m module`` with pipes on stdin and stdout (stderr discarded) and this tree
    first on ``PYTHONPATH``; None when it cannot be started."""
    if not sys.executable:
        return None
    package_root = str(Path(__file__).resolve().parents[1])
    path = os.environ.get("PYTHONPATH")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_root, path]))}
    try:
        return subprocess.Popen(
            [sys.executable, "-m", module],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
    except (OSError, ValueError, subprocess.SubprocessError):
        return None


def stop(proc: subprocess.Popen[bytes] | None) -> None:
    """Kill a worker that still runs and reap it (at exit, or when its answer is overdue)."""
    if proc is not None and proc.poll() is None:
        with contextlib.suppress(OSError):
            proc.kill()
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            proc.wait(timeout=5)


def die_with_parent() -> bool:
    """In the worker: on Linux the kernel ends this process when its parent dies (no orphan
    worker). False when the parent is already gone (the worker then exits at once)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            import ctypes
            import signal

            pr_set_pdeathsig = 1
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
    return os.getppid() != 1
