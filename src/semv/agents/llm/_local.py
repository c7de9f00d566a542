"""The local backend's model: a GGUF file run in-process by llama.cpp (``xllamacpp``).

``LocalModel`` loads the file once per process (in a thread, so a run can start it early) and
answers OpenAI-style chat requests with ``xllamacpp.Server.handle_chat_completions``, one at a
time (one llama.cpp slot: on two cores, four slots answering six requests together made
1.17 times the tokens a second of one, 11.9 against 10.2, at the cost of answers that
depend on what else is in the batch). ``LocalTransport`` puts it
behind the LLM backend's own HTTP client as an ``httpx`` transport: the roles send the same
requests (prompts, ``response_format`` schemas, which llama.cpp turns into a grammar), the
budget asks the same ``/props`` for the context length, and the trace and response cache record
the same calls as over a server. (xllamacpp also opens its own HTTP listener on a random
127.0.0.1 port; semv never sends it anything.)

A missing or corrupt model raises ``ModelMissing`` (``semv.agents.llm._models``) before the run
starts; a model that fails to load is the same user condition.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from concurrent.futures import Future
from pathlib import Path
from typing import Any, NamedTuple

import httpx

from semv.agents.llm._models import MODELS, ModelMissing, ModelSpec, checked_model, model_path

__all__ = [
    "LOCAL_URL",
    "CpuTicks",
    "LocalModel",
    "LocalTransport",
    "busy_cores",
    "busy_elsewhere",
    "cpu_ticks",
    "local_model",
    "model_threads",
    "resolve_model",
]

LOCAL_URL = "http://local.semv/v1"
"""The base URL the local backend's requests name (never resolved: the transport answers)."""


def resolve_model(model: str, path: str | None) -> tuple[Path, ModelSpec | None]:
    """The GGUF file of ``[local]`` (``path``, else the cached file of the known ``model``) and
    its spec when it is a known model (so its checksum applies)."""
    spec = MODELS.get(model)
    if path:
        return Path(path).expanduser(), spec if spec and Path(path).name == spec.filename else None
    if spec is None:
        known = ", ".join(sorted(MODELS))
        raise ModelMissing(
            f"[local] model {model!r} is not a known model ({known}); set [local] path to its "
            "GGUF file"
        )
    return model_path(spec), spec


def model_threads(threads: int | None, cores: int | None = None, load: float | None = None) -> int:
    """The model's CPU threads: ``threads`` when configured, else the usable cores that are
    idle (cores minus the cores other processes keep busy, ``busy_elsewhere``, at least one).
    llama.cpp's threads meet at a barrier after every layer: on a shared machine a thread the
    scheduler parks stalls all of them, and two threads on two busy cores ran 10-17 times
    slower than one (docs/evaluation.md)."""
    if threads:
        return threads
    if cores is None:
        try:
            cores = len(os.sched_getaffinity(0))
        except AttributeError:  # pragma: no cover - not Linux
            cores = os.cpu_count() or 1
    if load is None:
        load = busy_elsewhere()
    return max(1, min(cores, cores - round(load)))


def busy_elsewhere(window_s: float = 0.25) -> float:
    """The cores other processes keep busy now: the machine's busy share of CPU time over
    ``window_s`` (``/proc/stat``) less this process's own (``/proc/self/stat``), in cores.
    The 1-minute load average, the fallback where ``/proc`` is absent, lags: for a minute
    after a two-thread run ends it still reads about 2, and the next run took one thread on
    an idle machine (half the speed)."""
    try:
        before = cpu_ticks()
        time.sleep(window_s)
        after = cpu_ticks()
    except (OSError, ValueError, IndexError):
        try:
            return os.getloadavg()[0]
        except OSError:  # pragma: no cover - no load average either
            return 0.0
    return busy_cores(before, after)


class CpuTicks(NamedTuple):
    """One reading of ``/proc``: ticks of all CPUs (busy, and in all), this process's ticks
    (all its threads) and the number of CPUs."""

    busy: int
    total: int
    own: int
    cpus: int


def cpu_ticks() -> CpuTicks:
    """The ticks now (``/proc/stat``'s first line sums every CPU's)."""
    lines = Path("/proc/stat").read_text().splitlines()
    ticks = [int(f) for f in lines[0].split()[1:9]]
    idle, iowait = ticks[3], ticks[4]  # user nice system idle iowait irq softirq steal
    cpus = sum(1 for line in lines if line.startswith("cpu") and line[3:4].isdigit())
    own = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
    # after the command name: state is field 3, utime and stime are fields 14 and 15
    return CpuTicks(
        busy=sum(ticks) - idle - iowait,
        total=sum(ticks),
        own=int(own[11]) + int(own[12]),
        cpus=max(1, cpus),
    )


def busy_cores(before: CpuTicks, after: CpuTicks) -> float:
    """Cores busy with other processes between two readings: their share of all CPU time
    times the number of CPUs."""
    total = after.total - before.total
    if total <= 0:
        return 0.0
    others = (after.busy - before.busy) - (after.own - before.own)
    return max(0.0, others / total * after.cpus)


class LocalModel:
    """One loaded GGUF model answering chat requests in-process, one at a time."""

    def __init__(self, path: Path, *, name: str, context_tokens: int, threads: int | None) -> None:
        self.path = path
        self.name = name
        self.context_tokens = context_tokens
        self.configured_threads = threads
        self.threads: int | None = None  # chosen when it loads (busy_elsewhere takes 0.25 s)
        self._server: Any = None
        self._lock = threading.Lock()  # one request at a time (one llama.cpp slot)
        self._loading: Future[None] | None = None
        self._load_lock = threading.Lock()

    def start(self) -> Future[None]:
        """Load the model from a thread (once); the future holds the load's failure."""
        with self._load_lock:
            if self._loading is None:
                self._loading = Future()
                threading.Thread(target=self._load, name="semv-local-model", daemon=True).start()
            return self._loading

    def _load(self) -> None:
        loading = self._loading
        if loading is None:  # only start() runs this thread, after it set the future
            raise RuntimeError("the local model's load started without its future")
        try:
            self.threads = model_threads(self.configured_threads)
            self._server = _server(self.path, self.context_tokens, self.threads)
        except BaseException as exc:  # the caller sees it when it waits
            loading.set_exception(exc)
        else:
            loading.set_result(None)

    def ready(self) -> None:
        """Wait for the model; ``ModelMissing`` when it cannot be loaded."""
        self.start().result()

    def chat(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """(HTTP-like status, JSON answer) of one chat-completions request body."""
        self.ready()
        request = {k: v for k, v in body.items() if k != "stream"}
        with self._lock:
            try:
                answer = self._server.handle_chat_completions(request)
            except (ValueError, RuntimeError, TypeError) as exc:
                return 400, {"error": {"code": 400, "message": str(exc)}}
        if not isinstance(answer, dict):
            return 500, {"error": {"code": 500, "message": "no answer from the local model"}}
        error = answer.get("error")
        if isinstance(error, dict):
            code = error.get("code")
            return (code if isinstance(code, int) and code >= 400 else 500), answer
        answer["model"] = self.name
        return 200, answer


def _server(path: Path, context_tokens: int, threads: int) -> Any:
    try:
        import xllamacpp
    except ImportError:
        raise ModelMissing(
            "--backend local needs the xllamacpp package: run `make local-model` (or pip "
            "install 'semv[local]')"
        ) from None
    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.n_ctx = context_tokens
    params.n_parallel = 1
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.warmup = False
    params.verbosity = -1  # llama.cpp's log lines would bury the run's output
    try:
        return xllamacpp.Server(params)
    except Exception as exc:
        raise ModelMissing(f"{path}: llama.cpp could not load the model ({exc})") from None


_models: dict[tuple[str, int, int | None], LocalModel] = {}
_models_lock = threading.Lock()


def local_model(
    model: str, path: str | None, *, context_tokens: int, threads: int | None
) -> LocalModel:
    """The process's model for these ``[local]`` settings, checked (size, sha256) and loading;
    ``ModelMissing`` names the file and how to get it."""
    file, spec = resolve_model(model, path)
    checked_model(file, spec)
    key = (str(file.resolve()), context_tokens, threads)
    with _models_lock:
        found = _models.get(key)
        if found is None:
            found = LocalModel(file, name=model, context_tokens=context_tokens, threads=threads)
            _models[key] = found
    found.start()
    return found


class LocalTransport(httpx.AsyncBaseTransport):
    """An ``httpx`` transport answering the LLM backend's requests with a ``LocalModel``:
    ``POST …/chat/completions`` and ``GET /props`` (its context length); anything else 404,
    as a server without that endpoint (the budget then estimates tokens)."""

    local = True
    """Read by ``LlmClient``: the server is on this machine (a time-out is not retried)."""

    def __init__(self, model: LocalModel) -> None:
        self.model = model

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if request.method == "POST" and path.endswith("/chat/completions"):
            body = json.loads(await request.aread())
            status, answer = await asyncio.to_thread(self.model.chat, body)
            return httpx.Response(status, json=answer, request=request)
        if request.method == "GET" and path.endswith("/props"):
            settings = {"n_ctx": self.model.context_tokens}
            return httpx.Response(
                200, json={"default_generation_settings": settings}, request=request
            )
        if request.method == "GET" and path.endswith("/models"):
            return httpx.Response(200, json={"data": [{"id": self.model.name}]}, request=request)
        return httpx.Response(404, json={"error": "not found"}, request=request)
