"""The LLM path within budget: evidence per role, typed one-line measurements,
excerpts with offsets, token counting (server tokenizer or estimate), the declared shrink
order, per-call and per-case budgets, what the report says was left out, and prices."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from semv.agents.llm import LlmClient
from semv.agents.llm._budget import (
    MESSAGE_OVERHEAD,
    REPLY_OVERHEAD,
    EvidencePrompt,
    TokenBudget,
    estimate_tokens,
)
from semv.agents.llm._evidence import excerpt, fits_dimension, observation_line, prompt_item
from semv.config import LlmConfig, ModelPrice
from semv.model import (
    Dimension,
    Evidence,
    Exif,
    ForensicMap,
    JpegStructure,
    Modality,
    ProducerKind,
    Provenance,
    SourceType,
)
from tests.llm_server import ScriptedServer, evidence_items, scripted_tokens, user_text
from tests.test_llm_backend import llm_settings, run

_CUT = re.compile(r"\(excerpt, chars (\d+)-(\d+) of (\d+)\) (.*)$", re.S)


def item(
    ident: str, source: SourceType, modality: Modality, content: str, **kw: object
) -> Evidence:
    return Evidence(
        id=ident,
        source=str(kw.pop("source", "test")),
        source_type=source,
        modality=modality,
        content=content,
        reliability=0.7,
        provenance=Provenance(producer=ProducerKind.TOOL, agent="test"),
        **kw,  # type: ignore[arg-type]
    )


FORENSIC = item(
    "ev:forensic:ela:a",
    SourceType.FORENSIC,
    Modality.IMAGE,
    "ELA map: region score 0.75; map maps/" + "f" * 64 + ".png",
    observation=ForensicMap(
        map="ela",
        region_score=0.7456,
        threshold=0.5,
        exceeds=True,
        region="288,288,48,48",
        map_png="f" * 64 + ".png",
    ),
)
EXIF = item(
    "ev:exif:a",
    SourceType.METADATA,
    Modality.METADATA,
    "Metadata: captured 2019-06-01",
    observation=Exif(capture_time="2019-06-01T14:32:10+02:00", make="Canon", model="EOS"),
)
NEWS = item("ev:news", SourceType.NEWS, Modality.TEXT, "The Seine rose in Paris on 14 March.")


def test_each_dimension_sees_only_its_fitting_sources() -> None:
    assert fits_dimension(FORENSIC, Dimension.AUTHENTICITY)
    assert not any(fits_dimension(FORENSIC, d) for d in Dimension if d != Dimension.AUTHENTICITY)
    assert {d for d in Dimension if fits_dimension(EXIF, d)} == {
        Dimension.WHERE,
        Dimension.WHEN,
        Dimension.AUTHENTICITY,
    }
    assert not fits_dimension(NEWS, Dimension.AUTHENTICITY) and fits_dimension(NEWS, Dimension.WHO)


def test_a_measurement_is_one_typed_line() -> None:
    line = observation_line(FORENSIC)
    assert line is not None and "\n" not in line
    assert "0.75" in line and "288,288,48,48" in line and "f" * 16 not in line  # no map file
    jpeg = item(
        "ev:jpeg:a",
        SourceType.FORENSIC,
        Modality.IMAGE,
        "JPEG structure",
        observation=JpegStructure(
            jpeg_quality=84,
            standard_tables=True,
            table_deviation=0.0,
            progressive=False,
            quantization_tables=2,
            luma_table=",".join(["5"] * 64),
        ),
    )
    text = prompt_item(jpeg, 600).text
    assert "quality 84" in text and "5,5,5" not in text  # the table is not a prompt's business
    assert observation_line(NEWS) is None  # a text reads as its text


def test_an_excerpt_is_whole_sentences_at_its_offsets() -> None:
    filler = " ".join(f"Sentence {n} talks about the weather in general terms." for n in range(40))
    content = f"{filler} The flood reached the Pont Neuf in Paris on 14 March. {filler}"
    cut = excerpt(content, 200, "flood Paris Pont Neuf")
    assert len(cut.text) <= 200 and cut.text == content[cut.start : cut.end]
    assert "Pont Neuf" in cut.text
    assert cut.text.endswith(".") and cut.text[0].isupper()  # sentence boundaries
    shown = prompt_item(item("ev:long", SourceType.NEWS, Modality.TEXT, content), 200, "Pont Neuf")
    assert shown.offsets == f"ev:long chars {cut.start}-{cut.end} of {len(content)}"


def test_shrinking_follows_the_declared_order_and_never_cuts_an_item() -> None:
    long_text = " ".join(f"Report line {n} about the river level." for n in range(60))
    evidence = (
        item("ev:a", SourceType.NEWS, Modality.TEXT, long_text),
        EXIF,
        item("ev:c", SourceType.NEWS, Modality.TEXT, long_text),
    )
    prompt = EvidencePrompt(
        render=lambda items: json.dumps(items),
        evidence=evidence,
        chars=600,
        min_chars=200,
        query="river",
        subject="claim:when",
        pinned=frozenset({"ev:a"}),
    )
    steps = list(prompt.variants())
    assert [v.step for v in steps] == [
        "as built",
        "shorter excerpts",
        "1 lowest-ranked left out",
        "2 lowest-ranked left out",
    ]
    assert [v.dropped for v in steps[2:]] == [("ev:c",), ("ev:c", "ev:exif:a")]  # lowest first
    assert all("ev:a" in [i.id for i in v.shown] for v in steps)  # pinned stays
    for v in steps:
        for shown in json.loads(v.user):
            cut = _CUT.search(shown["text"])
            if cut:  # an excerpt is exactly the content at its offsets
                start, end = int(cut.group(1)), int(cut.group(2))
                assert cut.group(4) == long_text[start:end]
    assert len(steps[1].user) < len(steps[0].user)


def _count(messages: list[dict[str, object]]) -> int:
    texts = [m["content"] if isinstance(m["content"], str) else "" for m in messages]
    return (
        sum(scripted_tokens(str(t)) for t in texts)
        + len(texts) * MESSAGE_OVERHEAD
        + (REPLY_OVERHEAD)
    )


def test_counting_uses_the_server_tokenizer_else_the_estimate() -> None:
    config = LlmConfig(chars_per_token=3.0)
    messages: list[dict[str, object]] = [{"role": "user", "content": "Flood in Paris, 2024!"}]

    async def count(server: ScriptedServer) -> tuple[int, int | None]:
        client = LlmClient(
            api_key=None,
            timeout_s=5,
            retries=0,
            backoff_s=0,
            backoff_max_s=0,
            concurrency=1,
            response_format="json_schema",
        )
        budget = TokenBudget(config, client)
        try:
            n = await budget.count(server.url, "m", messages)
            return n, await budget.context(server.url, "m")
        finally:
            await client.aclose()

    with ScriptedServer(tokenizer=True, n_ctx=4096) as server:
        counted, context = asyncio.run(count(server))
    assert counted == _count(messages) and context == 4096
    with ScriptedServer() as server:  # no tokenizer, no /props: estimate and configuration
        estimated, context = asyncio.run(count(server))
    overhead = MESSAGE_OVERHEAD + REPLY_OVERHEAD
    assert estimated == estimate_tokens("Flood in Paris, 2024!", 3.0) + overhead
    assert context is None


def test_prompts_shrink_to_the_call_budget_and_the_report_says_what_was_left_out(
    data_dir: Path, tmp_path: Path
) -> None:
    with ScriptedServer(tokenizer=True) as server:
        run(llm_settings(server.url), tmp_path / "free", text_only=False)
        biggest = max(_count(b["messages"]) for b in server.requests)
    limit = biggest - 40  # the largest prompts must shrink
    price = ModelPrice(prompt_per_mtok=2.0, completion_per_mtok=8.0)
    settings = llm_settings(
        "", call_prompt_tokens=limit, prices={"scripted": price}, currency="EUR"
    )
    with ScriptedServer(tokenizer=True) as server:
        settings = settings.model_copy(
            update={"llm": settings.llm.model_copy(update={"url": server.url})}
        )
        outcome = run(settings, data_dir, text_only=False)
        sent = list(server.requests)
    assert all(_count(b["messages"]) <= limit for b in sent)
    usage = outcome.result.usage
    assert usage is not None
    trimmed = [t for t in usage.left_out if "token budget" in t.reason]
    assert trimmed, "the largest prompts had to shrink"
    checked = 0
    for t in trimmed:  # a dropped item is in no request of that role on that subject
        for body in sent:
            text = user_text(body)
            system = str(body["messages"][0]["content"])
            about = t.role == "decompose" or f'id="{t.subject}"' in text  # subclaim or case
            if about and f"You are the {t.role} agent" in system:
                checked += 1
                assert not {ident for ident, _ in evidence_items(text)} & set(t.dropped)
    assert checked
    for body in sent:  # every evidence block is a whole item; excerpts match their offsets
        for _ident, text in evidence_items(user_text(body)):
            assert text.startswith("[")
    report = Path(outcome.result.report_paths["markdown"]).read_text(encoding="utf-8")
    assert "### Left out of the prompts" in report and trimmed[0].subject in report
    expected = (
        sum(r.prompt_tokens * 2.0 + r.completion_tokens * 8.0 for r in usage.roles.values()) / 1e6
    )
    assert usage.cost == pytest.approx(expected) and usage.currency == "EUR"
    assert f"price {usage.cost:.4f} EUR" in report

    # --replay reproduces the shrunk prompts from the cache without any server
    again = run(
        settings.model_copy(
            update={"llm": settings.llm.model_copy(update={"url": "http://127.0.0.1:9/v1"})}
        ),
        data_dir,
        replay=True,
        text_only=False,
    )
    assert again.result.usage is not None and again.result.usage.calls == 0
    assert again.result.label == outcome.result.label


def test_a_prompt_that_cannot_fit_is_never_sent(data_dir: Path) -> None:
    with ScriptedServer(tokenizer=True) as server:
        outcome = run(llm_settings(server.url, call_prompt_tokens=64), data_dir)
        assert server.requests == []  # nothing fits in 64 tokens: no request at all
    notes = [u.detail for u in outcome.result.uncertainty if u.code == "model-fallback"]
    assert notes and all("prompt over budget" in n for n in notes)
    assert outcome.result.label  # the offline roles answered: the run committed


def test_the_case_budget_is_enforced_before_sending(data_dir: Path) -> None:
    budget = 3000
    with ScriptedServer(tokenizer=True) as server:
        outcome = run(llm_settings(server.url, case_prompt_tokens=budget), data_dir)
        spent = sum(_count(b["messages"]) for b in server.requests)
    assert 0 < spent <= budget
    notes = [u.detail for u in outcome.result.uncertainty if u.code == "model-fallback"]
    assert any("case prompt budget exhausted" in n for n in notes)


def test_no_argue_call_when_no_evidence_fits_the_subclaim(data_dir: Path) -> None:
    """Nothing to argue about: an argument must cite evidence (Eq. 6), so a subclaim with no
    fitting evidence costs no argue call, and its node says why it has no argument."""
    from tests.test_llm_backend import argue_notes, example_case

    _contract, case = example_case()
    bare = case.model_copy(update={"evidence": ()})
    with ScriptedServer() as server:
        outcome = run(llm_settings(server.url), data_dir, case=bare)
        roles = list(server.roles)
    assert "decompose" in roles and roles.count("plan") == 6  # the model still ran the rest
    assert not {"proponent", "opponent", "debaters", "verify"} & set(roles)
    notes = argue_notes(outcome)
    assert sum(n.startswith(("no-evidence|", "not-asserted|")) for n in notes) == 6, notes


def test_the_schema_sent_bounds_lists_and_the_prompt_shows_a_one_line_shape() -> None:
    from semv.agents.llm._prompts import bounded_schema, schema_sketch
    from semv.agents.llm._schemas import ArgueAnswer

    schema = ArgueAnswer.model_json_schema()
    bounded = bounded_schema(schema, {"arguments": 2, "evidence": 3})
    assert bounded["properties"]["arguments"]["maxItems"] == 2
    assert bounded["$defs"]["ArgumentAnswer"]["properties"]["evidence"]["maxItems"] == 3
    assert "maxItems" not in bounded["$defs"]["ArgumentAnswer"]["properties"]["key_facts"]
    assert "maxItems" not in schema["properties"]["arguments"]  # the model's own is untouched
    assert schema_sketch(schema) == (
        '{"arguments": [{"text": string, "evidence": [string, ...], '
        '"key_facts": [string, ...]}, ...]}'
    )


def test_the_schema_sent_bounds_strings_so_a_repeating_model_must_close_them() -> None:
    """A small model repeating itself inside a string is cut by the token budget mid-string
    (unusable, twice); with ``maxLength`` a grammar-constrained server makes it close the
    string. The bound reaches a list's string items and a plain string, keeps a bound the
    model states, and never makes validation stricter."""
    from semv.agents.llm._prompts import bounded_schema
    from semv.agents.llm._requests import chat_request, string_bounds, target_of
    from semv.agents.llm._schemas import ArgueAnswer, JudgeAnswer, PlanAnswer

    sent = bounded_schema(PlanAnswer.model_json_schema(), {}, {"checks": 300, "queries": 90})
    assert sent["properties"]["checks"]["items"] == {"type": "string", "maxLength": 300}
    assert sent["properties"]["queries"]["items"]["maxLength"] == 90
    assert "maxLength" not in sent["properties"]["questions"]["items"]  # not named: unbounded
    judge = bounded_schema(JudgeAnswer.model_json_schema(), {}, {"reason": 300})
    assert judge["properties"]["reason"]["maxLength"] == 300
    assert "maxLength" not in judge["properties"]["support_win_rate"]  # a number: untouched
    stated = {"type": "object", "properties": {"reason": {"type": "string", "maxLength": 20}}}
    assert bounded_schema(stated, {}, {"reason": 300})["properties"]["reason"]["maxLength"] == 20

    # every request carries them: the argument's text, its cited ids
    cfg = LlmConfig()
    request = chat_request(cfg, target_of(cfg, "argue"), [], ArgueAnswer)
    argument = request.schema["$defs"]["ArgumentAnswer"]["properties"]
    assert argument["text"]["maxLength"] == string_bounds()["text"]
    assert argument["evidence"]["items"]["maxLength"] == string_bounds()["evidence"]
    long_check = "x" * 2000  # what a server ignoring the schema may send still validates
    answer = PlanAnswer.model_validate(
        {"questions": [], "queries": [], "source_types": [], "checks": [long_check],
         "memory_used": []}
    )  # fmt: skip
    assert answer.checks == [long_check]


ROLE_ANSWERS = {  # the answer each role's request asks for (the agents' ``answer=`` arguments)
    "decompose": "DecomposeAnswer",
    "plan": "PlanAnswer",
    "argue": "BatchedArgueAnswer",  # llm.batch_argue (the default); one side: ArgueAnswer
    "verify": "VerifyAnswer",
    "escalate": "VerifyAnswer",
    "judge_clash": "JudgeAnswer",
    "describe": "DescribeAnswer",
    "reflect": "ReflectAnswer",
}


@pytest.mark.parametrize("role", sorted(ROLE_ANSWERS))
def test_the_longest_answer_a_role_schema_allows_fits_its_token_budget(role: str) -> None:
    """A 1.5B model's batched argue answer ran past its 448-token budget (``Unterminated
    string``), twice, and the role fell back to the offline rules: the schema allowed 8
    arguments of ~750 characters. Every list and string of what a role may answer is bounded,
    and its longest compact JSON fits the role's budget at the configured characters per
    token."""
    from semv.agents.llm import _schemas
    from semv.agents.llm._requests import sent_schema, target_of, worst_case_chars

    cfg = LlmConfig()
    answer = getattr(_schemas, ROLE_ANSWERS[role])
    longest = worst_case_chars(sent_schema(cfg, answer))
    assert longest != float("inf"), f"{role}: a list or string of its answer is unbounded"
    assert longest <= target_of(cfg, role).max_tokens * cfg.chars_per_token
    assert worst_case_chars(sent_schema(cfg, _schemas.ArgueAnswer)) <= (
        target_of(cfg, "argue").max_tokens * cfg.chars_per_token
    )


def test_worst_case_chars_is_the_length_of_the_longest_answer() -> None:
    from semv.agents.llm._requests import worst_case_chars

    schema = {
        "type": "object",
        "properties": {
            "why": {"type": "string", "maxLength": 5},
            "tags": {"type": "array", "maxItems": 2, "items": {"type": "string", "maxLength": 3}},
            "kind": {"enum": ["sup", "attack"]},
            "ok": {"type": "boolean"},
        },
    }
    longest = json.dumps(
        {"why": "x" * 5, "tags": ["abc", "abc"], "kind": "attack", "ok": False},
        separators=(",", ":"),
    )
    assert worst_case_chars(schema) == len(longest)
    schema["properties"]["tags"].pop("maxItems")
    assert worst_case_chars(schema) == float("inf")


def test_eval_cost_columns_carry_tokens_per_role_and_the_price() -> None:
    from semv.eval._cost import cost_summary, role_table
    from semv.eval._runner import cost_columns
    from semv.usage import CallRecord, Ledger

    ledger = Ledger(currency="USD")
    ledger.add(CallRecord("plan", "p", 0, "plan", 0.0, 0.1, 100, 10, cost=0.002))
    ledger.add(CallRecord("verify", "v", 1, "verify", 0.0, 0.1, 300, 30, cost=None))
    usage = ledger.usage(backend="llm/1", wall_s=1.0, dependencies={"p": (), "v": ()})
    assert usage.cost == pytest.approx(0.002) and usage.currency == "USD"
    assert usage.roles["verify"].cost is None  # no price for that model: unknown, not 0
    line = {
        "cost": {
            "calls": 2,
            "prompt_tokens": 400,
            "completion_tokens": 40,
            "wall_s": 1.0,
            "retrievals": 0,
            "retrievals_reused": 0,
            "roles": {r: [u.prompt_tokens, u.completion_tokens] for r, u in usage.roles.items()},
            "price": usage.cost,
            "currency": usage.currency,
        }
    }
    summary = cost_summary([line, line])
    assert summary["prompt_tokens"] == 400 and summary["completion_tokens"] == 40
    assert summary["price"] == pytest.approx(0.002) and summary["currency"] == "USD"
    assert summary["roles"] == {"plan": [100.0, 10.0], "verify": [300.0, 30.0]}
    assert "| semv | verify | 300 | 30 |" in role_table({"semv": summary})
    columns = cost_columns([usage])
    assert columns["prompt_tokens"] == 400 and columns["price"] == pytest.approx(0.002)
