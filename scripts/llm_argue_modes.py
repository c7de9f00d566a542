"""Measure ``llm.batch_argue`` (proponent and opponent in one call) against separate calls on a
real model: per bundled case and variant (with its media, text-only), each mode's
calls, prompt/completion tokens, argue fallbacks, admissibility rate of the arguments, label
and per-subclaim decisions, and whether the two modes agree.

Usage (after ``make test-llm`` installed xllamacpp and assembled the model)::

    nice -n 10 .venv/bin/python scripts/llm_argue_modes.py [--case examples/lyon-flood]
        [--variant media --variant text-only] [--json out.json]

It starts xllamacpp's OpenAI-compatible server on 127.0.0.1 (Qwen2.5-Coder-0.5B-Instruct Q4_K_M,
n_ctx 8192, the configuration of ``tests/test_llm_real.py``) and stops it at the end. CPU heavy: one
run of the example takes minutes on two cores.

The modes of one case and variant share a store: the second mode's decompose and plan calls
(the same prompts) are answered from the response cache, so both modes argue about the same
subclaims and plans and differ only in how they argue (and the slowest call, decompose, runs
once). ``argue tok.`` is what the argue stage asked of the model (argue, verify, judge_clash),
the part the modes share no answers of; ``--fresh`` gives each mode its own store.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from semv.agents.llm._models import MODELS, model_path  # noqa: E402
from semv.graph import admissible  # noqa: E402
from semv.model import Arguments, RankedEvidence  # noqa: E402
from semv.store import Store  # noqa: E402

MODEL = "qwen2.5-coder-0.5b-instruct"
GGUF = model_path(MODELS[MODEL])
SERVE = """
import sys, time, xllamacpp
params = xllamacpp.CommonParams()
params.model.path = sys.argv[1]
params.port = int(sys.argv[2])
params.hostnames = ["127.0.0.1"]
params.n_ctx = int(sys.argv[3])
params.n_parallel = 1
params.cpuparams.n_threads = params.cpuparams_batch.n_threads = int(sys.argv[4])
params.verbosity = -1
server = xllamacpp.Server(params)
print("ready", flush=True)
time.sleep(1e9)
"""
N_CTX = 8192
CONFIG = (
    "[llm]\nconcurrency = 1\ntimeout_s = 900\nmax_tokens = 384\nmax_arguments = 2\n"
    f"context_tokens = {N_CTX}\nbatch_argue = {{batch}}\n\n"
    "[llm.roles.decompose]\nmax_tokens = 1024\n"
)
DIMENSIONS = ("what", "where", "when", "who", "why", "authenticity")
ARGUE_ROLES = ("proponent", "opponent", "debaters")
STAGE_ROLES = (*ARGUE_ROLES, "verify", "judge_clash")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(log: Path, threads: int) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    out = log.open("w")
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVE, str(GGUF), str(port), str(N_CTX), str(threads)],
        stdout=out,
        stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 180
    while True:
        if proc.poll() is not None:
            raise SystemExit(f"xllamacpp server exited: {log.read_text()[-2000:]}")
        try:
            if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            proc.terminate()
            raise SystemExit("xllamacpp server did not come up in 180 s")
        time.sleep(1)


def admissibility(data: Path, run_id: str) -> tuple[int, int]:
    """(admissible arguments, arguments) of a run, Eq. 6 over the evidence each was given."""
    store = Store(data)
    try:
        good = total = 0
        for dim in DIMENSIONS:
            args = Arguments.model_validate_json(store.node_value_json(run_id, f"argue:{dim}"))
            ranked = RankedEvidence.model_validate_json(
                store.node_value_json(run_id, f"validate:{dim}")
            )
            evidence = {e.id: e for e in ranked.evidence}
            for a in args.arguments:
                total += 1
                good += int(admissible(a.evidence, a.verified, evidence))
        return good, total
    finally:
        store.close()


def run(case: Path, variant: str, batch: bool, url: str, work: Path, data: Path) -> dict[str, Any]:
    config = work / f"semv-{variant}-{batch}.toml"
    config.write_text(CONFIG.replace("{batch}", "true" if batch else "false"), encoding="utf-8")
    flags = ["--text-only"] if variant == "text-only" else []
    started = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable, "-m", "semv", "verify", str(case), *flags, "--backend", "llm",
            "--llm-url", url, "--llm-model", MODEL, "--config", str(config),
            "--data-dir", str(data), "--json",
        ],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        check=False,
    )  # fmt: skip
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"semv verify failed: {done.stderr[-3000:]}")
    result = json.loads(done.stdout)
    usage = result["usage"]
    roles = usage["roles"]
    good, total = admissibility(data, result["run_id"])
    fallbacks = [u for u in result["uncertainty"] if u["code"] == "model-fallback"]
    return {
        "case": case.name,
        "variant": variant,
        "mode": "batch" if batch else "separate",
        "label": result["label"],
        "decisions": {s["dimension"]: s["decision"] for s in result["subclaims"]},
        "calls": usage["calls"],
        "cached": usage.get("cached", 0),
        "prompt_tokens": usage["prompt_tokens"],
        "completion_tokens": usage["completion_tokens"],
        "stage_calls": sum(roles.get(r, {}).get("calls", 0) for r in STAGE_ROLES),
        "stage_prompt_tokens": sum(roles.get(r, {}).get("prompt_tokens", 0) for r in STAGE_ROLES),
        "stage_completion_tokens": sum(
            roles.get(r, {}).get("completion_tokens", 0) for r in STAGE_ROLES
        ),
        "roles": {
            r: {k: u.get(k, 0) for k in ("calls", "cached", "prompt_tokens", "fallbacks")}
            for r, u in roles.items()
        },
        "wall_s": usage.get("wall_s"),
        "argue_calls": sum(roles.get(r, {}).get("calls", 0) for r in ARGUE_ROLES),
        "argue_fallbacks": sum(roles.get(r, {}).get("fallbacks", 0) for r in ARGUE_ROLES),
        "fallbacks": sum(r.get("fallbacks", 0) for r in roles.values()),
        "fallback_details": [f["detail"] for f in fallbacks],
        "arguments": total,
        "admissible": good,
        "seconds": round(seconds, 1),
    }


def argue_only(
    case: Path, variant: str, batch: bool, url: str, work: Path, dims: list[str]
) -> dict[str, Any]:
    """The argue stage alone on a loaded machine: the subclaims and their ranked evidence
    from an offline run of the case (the same for both modes), then the model argues and
    verifies ``dims`` only. One request at a time, no retry, no client timeout that a slow
    server could turn into a second generation of the same prompt."""
    import asyncio

    from semv import verify
    from semv.agents import ArgueInput, VerifyInput
    from semv.agents.llm import LlmAgents
    from semv.config import BackendConfig, LlmConfig, Settings
    from semv.model import Claims, MemoryView

    data = work / f"offline-{variant}"
    offline = verify(case, data_dir=data, text_only=variant == "text-only")
    store = Store(data)
    try:
        claims = Claims.model_validate_json(store.node_value_json(offline.run_id, "claims"))
        ranked = {
            d: RankedEvidence.model_validate_json(
                store.node_value_json(offline.run_id, f"validate:{d}")
            )
            for d in dims
        }
    finally:
        store.close()
    from semv._api import load_cases

    _contract, loaded = load_cases(case, text_only=variant == "text-only", limit=1)
    llm = LlmConfig(
        url=url, model=MODEL, concurrency=1, timeout_s=7200, retries=0, max_tokens=384,
        max_arguments=2, context_tokens=N_CTX, batch_argue=batch,
    )  # fmt: skip
    settings = Settings.shipped().model_copy(
        update={"agents": BackendConfig(backend="llm"), "llm": llm}
    )
    agents = LlmAgents(settings)
    good = total = 0
    kept: dict[str, list[str]] = {}
    started = time.perf_counter()

    async def go() -> None:
        nonlocal good, total
        try:
            for d in dims:
                sub = claims.subclaims[d]
                evidence = {e.id: e for e in ranked[d].evidence}
                out = await agents.argue(
                    ArgueInput(
                        case=loaded[0].case, subclaim=sub, evidence=ranked[d].evidence,
                        memory=MemoryView(subclaim=sub.id),
                    )
                )  # fmt: skip
                drafts = [
                    x.model_copy(update={"evidence": tuple(i for i in x.evidence if i in evidence)})
                    for x in out.drafts
                ]
                checks = (
                    await agents.verify(
                        VerifyInput(subclaim=sub, drafts=tuple(drafts), evidence=ranked[d].evidence)
                    )
                ).results
                kept[d] = []
                for x, c in zip(drafts, checks, strict=True):
                    total += 1
                    if admissible(x.evidence, c.verified, evidence):
                        good += 1
                        kept[d].append(f"{x.stance.value}:{','.join(x.evidence)}")
        finally:
            await agents.aclose()

    asyncio.run(go())
    roles = agents.ledger.roles()
    return {
        "case": case.name,
        "variant": variant,
        "mode": "batch" if batch else "separate",
        "dimensions": dims,
        "calls": sum(r.calls for r in roles.values()),
        "prompt_tokens": sum(r.prompt_tokens for r in roles.values()),
        "completion_tokens": sum(r.completion_tokens for r in roles.values()),
        "fallbacks": sum(r.fallbacks for r in roles.values()),
        "roles": {k: r.model_dump() for k, r in roles.items()},
        "arguments": total,
        "admissible": good,
        "admissible_arguments": kept,
        "seconds": round(time.perf_counter() - started, 1),
    }


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| case | variant | mode | calls (cached) | prompt tok. | completion tok. | "
        "argue-stage calls | argue-stage tok. in/out | argue fallbacks | all fallbacks | "
        "admissible | label | wall s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        rate = f"{r['admissible']}/{r['arguments']}"
        lines.append(
            f"| {r['case']} | {r['variant']} | {r['mode']} | {r['calls']} ({r['cached']}) | "
            f"{r['prompt_tokens']:,} | {r['completion_tokens']:,} | {r['stage_calls']} | "
            f"{r['stage_prompt_tokens']:,}/{r['stage_completion_tokens']:,} | "
            f"{r['argue_fallbacks']} | {r['fallbacks']} | {rate} | {r['label']} | "
            f"{r['seconds']} |"
        )
    pairs: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    for r in rows:
        pairs.setdefault((r["case"], r["variant"]), {})[r["mode"]] = r
    lines.append("")
    for (case, variant), modes in pairs.items():
        if len(modes) == 2:
            a, b = modes["separate"], modes["batch"]
            same = sum(a["decisions"][d] == b["decisions"].get(d) for d in a["decisions"])
            lines.append(
                f"- {case} ({variant}): labels {'agree' if a['label'] == b['label'] else 'differ'}"
                f" ({a['label']} / {b['label']}); subclaim decisions agree {same}/"
                f"{len(a['decisions'])}"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", type=Path, action="append")
    parser.add_argument("--variant", action="append", choices=("media", "text-only"))
    parser.add_argument("--mode", action="append", choices=("separate", "batch"))
    parser.add_argument("--json", type=Path, help="Write the rows here too.")
    parser.add_argument(
        "--fresh", action="store_true", help="Each mode its own store (no shared answers)."
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=min(4, os.cpu_count() or 2),
        help="The server's threads; 1 on a loaded machine (two threads spin at every "
        "barrier when one is descheduled: 5x the CPU per token at load 10-15).",
    )
    parser.add_argument(
        "--argue-only",
        action="append",
        metavar="DIMENSION",
        help="Only the argue stage (argue + verify) of these subclaims, on an offline run's "
        "subclaims and ranked evidence (a loaded machine: minutes per request).",
    )
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the server on kill too
    if not GGUF.is_file():
        raise SystemExit(f"model not found: {GGUF} (make test-llm assembles it)")
    cases = args.case or [ROOT / "examples" / "lyon-flood"]
    variants = args.variant or ["media", "text-only"]
    modes = args.mode or ["separate", "batch"]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        proc, url = start_server(work / "server.log", args.threads)
        try:
            for case in cases if args.argue_only else ():
                for variant in variants:
                    for mode in modes:
                        row = argue_only(case, variant, mode == "batch", url, work, args.argue_only)
                        print(json.dumps(row), flush=True)
                        rows.append(row)
            for case in cases if not args.argue_only else ():
                for variant in variants:
                    shared = Path(tempfile.mkdtemp(dir=work))
                    for mode in modes:
                        data = Path(tempfile.mkdtemp(dir=work)) if args.fresh else shared
                        row = run(case, variant, mode == "batch", url, work, data)
                        print(json.dumps(row), flush=True)
                        rows.append(row)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
    print(table(rows) if not args.argue_only else "\n".join(json.dumps(r) for r in rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
