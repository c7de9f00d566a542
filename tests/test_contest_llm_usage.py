"""A revision under the LLM backend accounts for its own model calls, like a first run."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from semv.agents.llm import LlmAgents
from semv.contest import revise
from semv.model import Edit, Result
from semv.store import Store
from tests.llm_server import ScriptedServer
from tests.test_llm_backend import llm_settings, run


def test_a_revision_records_the_model_calls_it_made(data_dir: Path) -> None:
    with ScriptedServer() as server:
        settings = llm_settings(server.url)
        first = run(settings, data_dir)
        target = next(a for s in first.result.subclaims for a in s.arguments)
        before = len(server.requests)
        store = Store(data_dir)
        try:
            edit = Edit(
                target=target.id,
                reason="the argument overstates what the evidence says",
                text="The evidence only partly backs this subclaim.",
            )
            revision = asyncio.run(
                revise(
                    store,
                    first.result.run_id,
                    [edit],
                    settings=settings,
                    agents=LlmAgents(settings, store=store),
                    reports_dir=data_dir / "reports",
                )
            )
            record = store.get_run(revision.run_id)
        finally:
            store.close()
        made = len(server.requests) - before
    assert record.result_json is not None
    result = Result.model_validate_json(record.result_json)
    usage = result.usage
    assert usage is not None, "a revision under the LLM backend must carry its usage"
    assert made > 0, "the edited argument is verified again by the model"
    assert usage.calls == made
    assert first.result.usage is not None
    assert usage.calls < first.result.usage.calls, "reused nodes make no model calls"
    report = json.loads(Path(result.report_paths["json"]).read_text(encoding="utf-8"))
    assert report["usage"]["calls"] == made
    assert "## Model usage" in Path(result.report_paths["markdown"]).read_text(encoding="utf-8")
