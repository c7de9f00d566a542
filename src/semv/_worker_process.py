"""What semv's worker processes share: when they are on, how they start, how they end.

A worker process (``semv.perception.ocr_worker``, ``semv.nlp.worker``) is started by the CLI
before the command's modules load, so that it loads a model on the machine's other core while
this process imports semv. Both are on where this process may run on two or more CPUs and are
turned on or off by a switch of ``semv.config.Environment`` (``SEMV_OCR_WORKER``,
``SEMV_NLP_WORKER``); both start as ``python -m <module>`` with this tree
on ``PYTHONPATH``, are sent one JSON request on their stdin and answer in JSON lines (read by a
thread, ``Worker.collect``), and both end with their parent (``die_with_parent``). ``Worker``
holds what the parent keeps of one of them.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from semv._environment import child_environment, environment, environment_variable

__all__ = [
    "Worker",
    "WorkerSwitch",
    "die_with_parent",
    "start",
    "stop",
    "switched_on",
    "usable_cpus",
]

WorkerSwitch = Literal["ocr_worker", "nlp_worker"]
"""The ``semv.config.Environment`` fields that switch a worker process."""


def usable_cpus() -> int:
    """How many CPUs this process may run on (its affinity where the OS reports one)."""
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        with contextlib.suppress(OSError):
            return len(affinity(0))
    return os.cpu_count() or 1


def switched_on(setting: bool | None) -> bool:
    """``setting`` when the switch is set; otherwise True where this process may use two or
    more CPUs (a second core is what a worker runs on)."""
    if setting is not None:
        return setting
    return usable_cpus() >= 2


def start(module: str, arguments: Sequence[str] = ()) -> subprocess.Popen[bytes] | None:
    """``python -m module *arguments`` with pipes on stdin and stdout (stderr discarded) and
    this tree first on ``PYTHONPATH``; None when it cannot be started. What the child needs of
    ``semv.config.Environment`` (where the caches are) comes in ``arguments``, so the child
    imports neither ``semv.config`` nor pydantic; it inherits the rest of the environment
    (``child_environment``: PATH, the locale, proxies) for the libraries it loads."""
    if not sys.executable:
        return None
    package_root = str(Path(__file__).resolve().parents[1])
    path = environment_variable("PYTHONPATH")
    env = child_environment(PYTHONPATH=os.pathsep.join(filter(None, [package_root, path])))
    try:
        return subprocess.Popen(
            [sys.executable, "-m", module, *arguments],
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


class Worker:
    """The parent's side of one worker process: started at most once per process (``spawn``),
    its answers read by a thread (``collect``), killed at exit when it still runs."""

    def __init__(
        self,
        module: str,
        switch: WorkerSwitch,
        arguments: Callable[[], Sequence[str]] = tuple,
    ) -> None:
        self.module = module
        """What ``python -m`` runs."""
        self.arguments = arguments
        """The child's command-line arguments, computed when it starts (from this process's
        ``semv.config.Environment``)."""
        self.switch: WorkerSwitch = switch
        """The field of ``semv.config.Environment`` that turns it on or off (``ocr_worker`` is
        ``SEMV_OCR_WORKER=1``/``0``)."""
        self.lock = threading.Lock()
        self.proc: subprocess.Popen[bytes] | None = None
        self.done = threading.Event()
        """Set when the worker's output is closed (answered, failed or exited), or earlier
        when ``collect``'s handler says the answer is complete."""

    def enabled(self) -> bool:
        """The switch when set; otherwise True where this process may use two or more CPUs
        (``switched_on``). Raises ``semv.errors.ConfigError`` when the switch's variable is
        neither 1 nor 0."""
        env = environment()
        return switched_on(env.ocr_worker if self.switch == "ocr_worker" else env.nlp_worker)

    def spawn(self) -> bool:
        """Start the worker (once per process); False when it is off (``enabled``) or cannot be
        started, and the caller then does the work in-process."""
        with self.lock:
            if self.proc is not None:
                return True
            if not self.enabled():
                return False
            self.proc = start(self.module, self.arguments())
            if self.proc is None:
                return False
        atexit.register(self.stop)
        return True

    def spawned(self) -> bool:
        """A worker was started in this process."""
        return self.proc is not None

    def stop(self) -> None:
        """Kill the worker if it still runs (at exit, or when its answer is overdue); nothing
        more will be read from it."""
        stop(self.proc)
        self.done.set()

    def send(self, order: dict[str, Any] | None) -> bool:
        """Write ``order`` as one JSON line (None: nothing) and close the worker's stdin: the
        worker answers, or exits without work. False when there is no worker to write to."""
        proc = self.proc
        if proc is None or proc.stdin is None or proc.stdin.closed:
            return False
        try:
            if order is not None:
                proc.stdin.write(json.dumps(order).encode() + b"\n")
            proc.stdin.close()
        except (OSError, ValueError):
            self.done.set()
            return False
        return True

    def collect(self, on_answer: Callable[[dict[str, Any]], bool]) -> None:
        """Read the worker's JSON lines in a thread, handing each object to ``on_answer`` (True
        from it: the answer is complete, ``done`` is set at once rather than when the worker's
        output closes), then reap the worker."""
        proc = self.proc
        if proc is not None:
            threading.Thread(
                target=self._read,
                args=(proc, on_answer),
                name=f"{self.module}-reader",
                daemon=True,
            ).start()

    def _read(
        self, proc: subprocess.Popen[bytes], on_answer: Callable[[dict[str, Any]], bool]
    ) -> None:
        try:
            if proc.stdout is None:
                raise RuntimeError("worker started without a stdout pipe")
            for raw in proc.stdout:
                with contextlib.suppress(ValueError):
                    answer = json.loads(raw)
                    if isinstance(answer, dict) and on_answer(answer):
                        self.done.set()
        except OSError:
            pass
        finally:
            self.done.set()
            with contextlib.suppress(OSError, subprocess.SubprocessError):
                proc.wait(timeout=10)
