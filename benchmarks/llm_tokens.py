"""Prompt tokens per case on the LLM backend, against the scripted
OpenAI-compatible server (tests/llm_server.py): the example with its photo and text-only,
proponent/opponent as separate calls and batched. The requests the backend sends are counted
with the test model's own tokenizer (Qwen2.5-Coder-0.5B GGUF via llama-cpp-python, vocabulary
only) when it is installed, else with the backend's documented estimate; per message the chat
template's overhead is added as the backend counts it.

The scripted server's answers are not a model's (it cites one item per side, clashes often),
so the numbers are the prompt construction's cost on a fixed script; the real model's are in
docs/evaluation.md (scripts/llm_argue_modes.py).

    python benchmarks/llm_tokens.py
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.llm_server import ScriptedServer  # noqa: E402

from semv._api import load_cases  # noqa: E402
from semv.agents.llm import LlmAgents  # noqa: E402
from semv.agents.llm._budget import (  # noqa: E402
    MESSAGE_OVERHEAD,
    REPLY_OVERHEAD,
    estimate_tokens,
)
from semv.config import BackendConfig, LlmConfig, Settings  # noqa: E402
from semv.pipeline import run_case  # noqa: E402
from semv.store import Store  # noqa: E402

console = Console()
EXAMPLE = ROOT / "examples" / "lyon-flood"
GGUF = Path(
    os.environ.get("SEMV_LLM_GGUF")
    or Path.home() / ".cache" / "semv" / "models" / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
)
TARGETS = {"media": 20_000, "text-only": 10_000}


def tokenizer() -> tuple[Callable[[str], int], str]:
    try:
        import llama_cpp

        if GGUF.is_file():
            vocab = llama_cpp.Llama(model_path=str(GGUF), vocab_only=True, verbose=False)

            def count(text: str) -> int:
                return len(vocab.tokenize(text.encode("utf-8"), add_bos=False, special=True))

            return count, "Qwen2.5 tokenizer"
    except ImportError:
        pass
    chars = LlmConfig().chars_per_token
    return (lambda text: estimate_tokens(text, chars)), f"estimate (bytes/{chars:g})"


def _text(message: dict[str, Any]) -> str:
    content = message["content"]
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content)


def measure(
    text_only: bool, batch: bool, count: Callable[[str], int]
) -> tuple[int, Counter[str], Counter[str]]:
    contract, cases = load_cases(EXAMPLE, text_only=text_only)
    with ScriptedServer() as server, tempfile.TemporaryDirectory() as tmp:
        llm = LlmConfig(url=server.url, model="scripted", batch_argue=batch, max_arguments=2)
        settings = Settings.shipped().model_copy(
            update={"agents": BackendConfig(backend="llm"), "llm": llm}
        )
        store = Store(Path(tmp))
        try:
            agents = LlmAgents(settings, store=store)
            asyncio.run(
                run_case(
                    cases[0].case,
                    store=store,
                    settings=settings,
                    agents=agents,
                    contract=contract,
                    reports_dir=Path(tmp) / "reports",
                )
            )
        finally:
            store.close()
        per_role: Counter[str] = Counter()
        calls: Counter[str] = Counter(server.roles)
        for role, body in zip(server.roles, server.requests, strict=True):
            messages = body["messages"]
            per_role[role] += (
                sum(count(_text(m)) for m in messages)
                + len(messages) * MESSAGE_OVERHEAD
                + REPLY_OVERHEAD
            )
        return len(server.requests), per_role, calls


ROLES = ("decompose", "plan", "proponent", "opponent", "debaters", "verify", "judge_clash")


def bench_llm_tokens() -> None:
    count, how = tokenizer()
    table = Table(title=f"LLM prompt tokens per case, scripted server ({how})")
    for column in ("case", "argue", "requests", "prompt tokens", "target", "largest roles"):
        table.add_column(column)
    roles = Table(title="Per role: calls / prompt tokens (lyon-flood, same runs)")
    roles.add_column("role")
    runs = []
    for variant, text_only in (("media", False), ("text-only", True)):
        for batch in (False, True):
            requests, per_role, calls = measure(text_only, batch, count)
            mode = "batched" if batch else "separate"
            runs.append((per_role, calls))
            roles.add_column(f"{variant} {mode}", justify="right")
            top = ", ".join(f"{r} {n:,}" for r, n in per_role.most_common(3))
            total = sum(per_role.values())
            table.add_row(
                f"lyon-flood {variant}",
                mode,
                str(requests),
                f"{total:,}",
                f"≤ {TARGETS[variant]:,} {'✔' if total <= TARGETS[variant] else '✘'}",
                top,
            )
    for role in ROLES:
        roles.add_row(
            role,
            *(
                f"{calls[role]} / {per_role[role]:,}" if calls[role] else "–"
                for per_role, calls in runs
            ),
        )
    roles.add_row(
        "total",
        *(f"{sum(calls.values())} / {sum(per_role.values()):,}" for per_role, calls in runs),
    )
    console.print(table)
    console.print(roles)


if __name__ == "__main__":
    bench_llm_tokens()
