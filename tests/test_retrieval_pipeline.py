"""Retrieval inside whole runs: corpus evidence → when/where attacks cited in the report,
live vs replay, the leakage guard, retrieval gaps, inert page content, reviewer rejections."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from semv._api import load_cases
from semv.agents.offline import OfflineAgents
from semv.config import RetrievalConfig, Settings
from semv.graph import StageContext
from semv.model import (
    Case,
    Evidence,
    Modality,
    ProducerKind,
    Provenance,
    QueryRecord,
    RankedEvidence,
    Retrieved,
    SourceType,
    Stance,
    UncertaintyCode,
)
from semv.pipeline import RunOutcome, run_case
from semv.retrieval import Document, LocalCorpus, Retrieval, open_retrieval
from semv.stages import validate
from semv.store import Store, utc_now
from tests.recorded_server import Reply, recorded_server

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).parent / "data" / "retrieval"
FACT_CHECK_URL = "https://factcheck.example.org/2024/03/15/paris-flood-photo-is-lyon-2019"
FACT_CHECK = Document(
    text='The photo shared as "Paris under water, 14 March 2024" was taken in Lyon on '
    "1 June 2019. It shows the Saône river below the Fourvière hill on a sunny afternoon, "
    "at its normal level; the same picture was posted on a Lyon photography blog on "
    "2 June 2019.",
    url=FACT_CHECK_URL,
    title="No, this photo does not show Paris flooding in March 2024",
    publisher="Example Fact Check",
    published="2024-03-15",
    source_type="fact-check",
)
DISTRACTOR = Document(
    "Onion soup recipe with gruyère.", url="https://food.example.org/soup", published="2020-01-01"
)


def lyon_case_without_fact_check() -> tuple[str, Case]:
    """The demo case with its supplied fact-check removed: only retrieval can find it."""
    contract, cases = load_cases(ROOT / "examples" / "lyon-flood")
    case = cases[0].case
    kept = tuple(e for e in case.evidence if "factcheck" not in (e.url or ""))
    assert len(kept) == len(case.evidence) - 1
    return contract, case.model_copy(update={"evidence": kept})


def run(
    case: Case, store: Store, settings: Settings, contract: str, retrieval: Retrieval | None
) -> RunOutcome:
    return asyncio.run(
        run_case(
            case,
            store=store,
            settings=settings,
            agents=OfflineAgents(settings),
            contract=contract,
            retrieval=retrieval,
        )
    )


def cited(outcome: RunOutcome, dim: str, stance: Stance) -> set[str]:
    sub = next(s for s in outcome.result.subclaims if s.dimension == dim)
    return {e for a in sub.arguments if a.stance is stance for e in a.evidence}


def test_corpus_fact_check_yields_when_and_where_attacks_linked_in_the_report(
    data_dir: Path,
) -> None:
    contract, case = lyon_case_without_fact_check()
    store = Store(data_dir)
    LocalCorpus(store.url).ingest([FACT_CHECK, DISTRACTOR])
    settings = Settings()
    retrieval = open_retrieval(settings, store_url=store.url, corpus=True)
    outcome = run(case, store, settings, contract, retrieval)
    doc_ids = {e.id for e in outcome.result.evidence if e.url == FACT_CHECK_URL}
    assert len(doc_ids) == 1
    (doc_id,) = doc_ids
    assert doc_id.startswith("ev:doc:")
    assert doc_id in cited(outcome, "when", Stance.ATTACK)
    assert doc_id in cited(outcome, "where", Stance.ATTACK)
    assert all("food.example.org" not in (e.url or "") for e in outcome.result.evidence)
    markdown = Path(outcome.result.report_paths["markdown"]).read_text()
    html = Path(outcome.result.report_paths["html"]).read_text()
    assert FACT_CHECK_URL in markdown
    assert f'href="{FACT_CHECK_URL}"' in html
    # evidence graph: subclaim → evidence → the query records that found it
    ranked = outcome.nodes["validate:when"].value
    assert isinstance(ranked, RankedEvidence)
    retrieved = outcome.nodes["retrieve:when"].value
    assert isinstance(retrieved, Retrieved)
    records = {q.id: q for q in retrieved.queries}
    assert ranked.sources[doc_id]
    assert all(doc_id in records[r].hits for r in ranked.sources[doc_id])
    assert all(q.source == "corpus" and q.mode == "offline" for q in records.values())
    item = next(e for e in ranked.evidence if e.id == doc_id)
    assert item.provenance is not None
    assert item.provenance.producer is ProducerKind.RETRIEVAL
    assert item.source_type is SourceType.FACT_CHECK
    # without retrieval the same case has no such attack
    plain = run(case, store, settings, contract, None)
    assert not any(e.startswith("ev:doc:") for e in cited(plain, "when", Stance.ATTACK))


def test_leakage_guard_excludes_evidence_published_after_the_cut_off(data_dir: Path) -> None:
    contract, case = lyon_case_without_fact_check()
    store = Store(data_dir)
    LocalCorpus(store.url).ingest([FACT_CHECK, DISTRACTOR])
    settings = Settings()
    guarded = open_retrieval(
        settings, store_url=store.url, corpus=True, before_claim_date=True
    )  # the claim's date, 2024-03-14: the fact-check of 2024-03-15 would leak
    outcome = run(case, store, settings, contract, guarded)
    assert not any(e.url == FACT_CHECK_URL for e in outcome.result.evidence)
    retrieved = outcome.nodes["retrieve:when"].value
    assert isinstance(retrieved, Retrieved)
    assert retrieved.before == "2024-03-14"
    assert retrieved.leakage_excluded >= 1
    assert sum(q.excluded_after for q in retrieved.queries) == retrieved.leakage_excluded
    explicit = open_retrieval(settings, store_url=store.url, corpus=True, before="2024-03-16")
    later = run(case, store, settings, contract, explicit)
    assert any(e.url == FACT_CHECK_URL for e in later.result.evidence)


def _searx_settings() -> Settings:
    # The recorded-response server listens on 127.0.0.1: the SSRF guard must be opened
    # explicitly for it.
    return Settings(retrieval=RetrievalConfig(allow_private=True, backoff_s=0.0))


def test_live_run_and_its_replay_give_identical_evidence_and_verdicts(data_dir: Path) -> None:
    contract, case = lyon_case_without_fact_check()
    store = Store(data_dir)
    settings = _searx_settings()
    with recorded_server() as server:
        server.route("/search", Reply(200, (DATA / "searxng.json").read_text()))
        live = open_retrieval(
            settings, store_url=store.url, web=["searxng"], endpoints={"searxng": server.url}
        )
        first = run(case, store, settings, contract, live)
        requests = len(server.log)
        assert requests > 0
        # within one live session a repeated query is answered once (one snapshot)
        assert len(server.log) == len({tuple(s.query["q"]) for s in server.log})
        live.close()
        between = utc_now()
        # live answers are not a pure function of the plan: a new session never reuses a node
        live = open_retrieval(
            settings, store_url=store.url, web=["searxng"], endpoints={"searxng": server.url}
        )
        again = run(case, store, settings, contract, live)
        assert all(not again.nodes[f"retrieve:{d}"].reused for d in ("what", "when", "where"))
        assert len(server.log) == 2 * requests
        live.close()
    # the server is gone: a replay can only use the dated cache. By default it replays the
    # newest answers (the second live run); dated at a moment between the two live runs it
    # replays the first.
    dims = ("what", "where", "when", "who", "why", "authenticity")
    for live_run, as_of in ((again, None), (first, between)):
        replay = open_retrieval(
            settings,
            store_url=store.url,
            web=["searxng"],
            endpoints={"searxng": server.url},
            mode="replay",
            as_of=as_of,
        )
        second = run(case, store, settings, contract, replay)
        for dim in dims:
            key = f"retrieve:{dim}"
            assert second.nodes[key].output_hash == live_run.nodes[key].output_hash
            assert store.get_blob(second.nodes[key].output_hash) == store.get_blob(
                live_run.nodes[key].output_hash
            )  # byte-identical evidence
        assert second.verdict == live_run.verdict
        # (a reused claims node lists its subclaims in canonical key order: compare by key)
        assert sorted(second.result.subclaims, key=lambda x: x.id) == sorted(
            live_run.result.subclaims, key=lambda x: x.id
        )
        assert (
            Path(second.result.report_paths["markdown"]).read_bytes()
            == Path(live_run.result.report_paths["markdown"]).read_bytes()
        )
        replay.close()
    # the two live runs differ in their retrieval timestamps only
    assert first.nodes["retrieve:when"].output_hash != again.nodes["retrieve:when"].output_hash
    assert first.verdict == again.verdict
    replay = open_retrieval(
        settings,
        store_url=store.url,
        web=["searxng"],
        endpoints={"searxng": server.url},
        mode="replay",
    )
    retrieved = second.nodes["retrieve:when"].value
    assert isinstance(retrieved, Retrieved)
    assert {q.mode for q in retrieved.queries} == {"web"}
    web = [e for e in retrieved.evidence if e.provenance and e.provenance.agent == "web/searxng"]
    assert web and all(e.provenance and e.provenance.retrieved_at for e in web)
    # the replay of an unchanged cache is a pure function: a second replay reuses the nodes
    second = run(case, store, settings, contract, replay)
    assert all(second.nodes[f"retrieve:{d}"].reused for d in ("what", "when", "where"))
    # another configuration compared on the same dated cache sees the same answers
    other = Settings(
        retrieval=RetrievalConfig(allow_private=True, backoff_s=0.0),
        ranking=settings.ranking.model_copy(update={"top_k": 3}),
    )
    compared = run(case, store, other, contract, replay)
    assert all(
        compared.nodes[f"retrieve:{d}"].output_hash == second.nodes[f"retrieve:{d}"].output_hash
        for d in dims
    )
    assert all(len(compared.nodes[f"validate:{d}"].value.evidence) <= 3 for d in dims)
    third = run(case, store, settings, contract, replay)
    assert all(third.nodes[f"retrieve:{d}"].reused for d in ("what", "when", "where"))
    replay.close()


def test_instructions_in_retrieved_pages_stay_inert_data(data_dir: Path) -> None:
    contract, case = lyon_case_without_fact_check()
    payload = json.loads((DATA / "searxng.json").read_text())
    injected = payload["results"][2]
    assert "Ignore previous instructions" in injected["content"]
    injected["title"] = "<script>alert('x')</script> Paris under water"
    clean = json.loads(json.dumps(payload))
    clean["results"][2]["content"] = "Paris under water today, 14 March 2024."
    outcomes = []
    for body in (payload, clean):
        store = Store(data_dir / f"s{len(outcomes)}")
        # the instruction sentence lowers the post's claim relevance (the gate would refuse
        # one variant and admit the other): compare argumentation on equal footing
        settings = Settings(
            retrieval=RetrievalConfig(allow_private=True, backoff_s=0.0, relevance_gate=False)
        )
        with recorded_server() as server:
            server.route("/search", Reply(200, json.dumps(body)))
            live = open_retrieval(
                settings, store_url=store.url, web=["searxng"], endpoints={"searxng": server.url}
            )
            outcomes.append(run(case, store, settings, contract, live))
            live.close()
    attacked, plain = outcomes
    assert attacked.verdict.label == plain.verdict.label != "verified"
    bands = {d.dimension: d.band for d in attacked.verdict.decisions}
    assert bands == {d.dimension: d.band for d in plain.verdict.decisions}
    stored = [
        e
        for e in attacked.result.evidence
        if e.url == "https://www.facebook.com/riverwatch/posts/48213"
    ]
    html = Path(attacked.result.report_paths["html"]).read_text()
    assert "<script>alert" not in html  # page text is escaped, never markup
    # the instruction is kept verbatim as observed content of a low-reliability social post
    assert len(stored) == 1
    assert "Ignore previous instructions" in stored[0].content
    assert stored[0].source_type == SourceType.SOCIAL.value and stored[0].reliability == 0.4


def test_a_failing_source_is_a_retrieval_gap_not_a_failed_run(data_dir: Path) -> None:
    contract, case = lyon_case_without_fact_check()
    store = Store(data_dir)
    settings = Settings(retrieval=RetrievalConfig(allow_private=True, retries=1, backoff_s=0.0))
    with recorded_server() as server:
        server.route("/search", Reply(500, "down"))
        live = open_retrieval(
            settings, store_url=store.url, web=["searxng"], endpoints={"searxng": server.url}
        )
        outcome = run(case, store, settings, contract, live)
        live.close()
    retrieved = outcome.nodes["retrieve:when"].value
    assert isinstance(retrieved, Retrieved)
    assert all(q.error and "HTTP 500" in q.error for q in retrieved.queries)
    gaps = [u for u in retrieved.uncertainty if u.code is UncertaintyCode.RETRIEVAL_GAP]
    assert gaps and "queries failed" in gaps[0].detail
    assert not any(e.provenance and e.provenance.agent == "web/searxng" for e in retrieved.evidence)
    assert outcome.result.label  # the run committed


def test_empty_corpus_and_no_case_evidence_is_a_gap(data_dir: Path) -> None:
    store = Store(data_dir)
    settings = Settings()
    LocalCorpus(store.url)
    case = Case(id="bare", claim="Zyxwv qwerty plokij")
    retrieval = open_retrieval(settings, store_url=store.url, corpus=True)
    outcome = run(case, store, settings, "internal", retrieval)
    for dim in ("what", "when"):
        retrieved = outcome.nodes[f"retrieve:{dim}"].value
        assert isinstance(retrieved, Retrieved)
        assert retrieved.evidence == ()
        assert [u.code for u in retrieved.uncertainty] == [UncertaintyCode.RETRIEVAL_GAP]


def _item(ident: str, text: str) -> Evidence:
    return Evidence(
        id=ident,
        source="x",
        source_type=SourceType.NEWS,
        modality=Modality.TEXT,
        content=text,
        reliability=0.7,
        provenance=Provenance(producer=ProducerKind.RETRIEVAL, agent="test"),
    )


def test_reviewer_rejected_evidence_is_excluded_before_argumentation() -> None:
    from semv.dimensions import decompose_case

    claims = decompose_case(Case(id="c", claim="Flooding in Paris on 14 March 2024"))
    sub = claims.subclaims["when"]
    retrieved = Retrieved(
        subclaim=sub.id,
        evidence=(_item("ev:a", "Paris flood 14 March 2024"), _item("ev:b", "Paris flood")),
        queries=(
            QueryRecord(
                id="src:when:0", source="corpus", query="q", mode="offline", hits=("ev:a", "ev:b")
            ),
        ),
    )
    settings = Settings()

    def ctx(params: dict[str, object]) -> StageContext:
        return StageContext(
            node="validate:when", settings=settings, agents=OfflineAgents(settings), params=params
        )

    both = asyncio.run(validate.validate(ctx({}), retrieved=retrieved, subclaim=sub))
    assert {e.id for e in both.evidence} == {"ev:a", "ev:b"}
    assert both.sources["ev:a"] == ("src:when:0",)
    one = asyncio.run(
        validate.validate(ctx({"rejected": ["ev:a"]}), retrieved=retrieved, subclaim=sub)
    )
    assert [e.id for e in one.evidence] == ["ev:b"]
    assert one.rejected == ("ev:a",)


@pytest.mark.parametrize("before", ["not a date", "31/31/2020"])
def test_a_bad_before_date_is_an_input_error(data_dir: Path, before: str) -> None:
    from semv.errors import InputError

    store = Store(data_dir)
    with pytest.raises(InputError, match="--before"):
        open_retrieval(Settings(), store_url=store.url, corpus=True, before=before)


def test_malformed_or_missing_dimensions_are_completed_deterministically() -> None:
    from semv.dimensions import decompose_case
    from semv.model import Claims, Dimension
    from semv.stages.claims import complete

    case = Case(id="c", claim="Flooding in Paris on 14 March 2024")
    fallback = decompose_case(case)
    broken = dict(fallback.subclaims)
    del broken["when"]  # missing
    broken["where"] = broken["where"].model_copy(update={"statement": "  "})  # malformed
    broken["who"] = broken["what"]  # wrong dimension under the key
    fixed, completed = complete(Claims(subclaims=broken), fallback)
    assert sorted(completed) == ["when", "where", "who"]
    assert list(fixed.subclaims) == [d.value for d in Dimension]
    assert fixed.subclaims["who"].dimension is Dimension.WHO
    assert fixed.subclaims["when"] == fallback.subclaims["when"]


def test_media_text_seeds_queries_and_non_english_claims_get_an_english_bridge() -> None:
    from semv.dimensions import decompose_case, media_seeds, plan_subclaim
    from semv.model import Context, MemoryView

    ocr = Evidence(
        id="ev:ocr:asset:1",
        source="tesseract",
        source_type=SourceType.OTHER,
        modality=Modality.IMAGE,
        content="Breaking: Emmanuel Macron visits Lyon flood zone, 2 June 2019",
        reliability=0.6,
        provenance=Provenance(producer=ProducerKind.TOOL, agent="tesseract"),
    )
    exif = ocr.model_copy(
        update={
            "id": "ev:exif:1",
            "modality": Modality.METADATA,
            "source_type": SourceType.METADATA,
        }
    )
    seeds = media_seeds((ocr, exif))
    assert "Emmanuel Macron" in seeds and "2019-06-02" in seeds
    assert media_seeds((exif,)) == ()
    case = Case(
        id="fr",
        claim="Inondations à Paris le 14 mars 2024",
        context=Context(language="fr"),
    )
    when = decompose_case(case).subclaims["when"]
    plan = plan_subclaim(when, MemoryView(subclaim=when.id), Settings().offline, "fr")
    assert "2024-03-14" in plan.queries
    assert any("English bridge query" in c for c in plan.checks)
    english = plan_subclaim(when, MemoryView(subclaim=when.id), Settings().offline, "en")
    assert not any("bridge" in c for c in english.checks)


def test_a_revision_searches_the_sources_its_parent_searched(data_dir: Path) -> None:
    """Contesting a corpus-backed run reopens the parent's recorded sources: the retrieve
    nodes keep their fingerprints and the corpus attack survives a scoped revision."""
    from semv.contest import revise
    from semv.model import Reject

    contract, case = lyon_case_without_fact_check()
    store = Store(data_dir)
    LocalCorpus(store.url).ingest([FACT_CHECK, DISTRACTOR])
    settings = Settings()
    retrieval = open_retrieval(settings, store_url=store.url, corpus=True)
    first = run(case, store, settings, contract, retrieval)
    retrieval.close()
    (doc_id,) = {e.id for e in first.result.evidence if e.url == FACT_CHECK_URL}
    when = next(s for s in first.result.subclaims if s.dimension == "when")
    target = next(a.id for a in when.arguments if doc_id not in a.evidence)
    revision = asyncio.run(
        revise(
            store,
            first.result.run_id,
            [Reject(target=target, reason="not relevant to the date")],
            settings=settings,
            agents=OfflineAgents(settings),
        )
    )
    executed = set(revision.locality.executed)
    assert not any(k.startswith(("retrieve:", "validate:")) for k in executed), executed
    assert revision.locality.value == 1.0
    assert doc_id in {e.id for e in revision.result.evidence}
