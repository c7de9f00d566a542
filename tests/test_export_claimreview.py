"""schema.org ClaimReview of a verdict: built from a run, embedded in the HTML report,
completed when written, and valid against the schema.org vocabulary (a JSON-LD expansion with
a locally bundled context: no network)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from pyld import jsonld  # type: ignore[import-untyped]

from semv._api import load_cases
from semv.agents.offline import OfflineAgents
from semv.config import ExportConfig, Settings
from semv.errors import InputError
from semv.export import (
    ReviewFacts,
    check_claim_review,
    claim_review,
    extract,
    facts_from_result,
)
from semv.model import RenderedReport
from semv.pipeline import RunOutcome, run_case
from semv.store import Store

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = Path(__file__).parent / "data" / "schemaorg"
VOCAB: dict[str, Any] = json.loads((SCHEMA / "vocabulary.json").read_text())
S = "http://schema.org/"
EXPORT = ExportConfig(
    organization="Example Fact Check Desk",
    organization_url="https://factcheck.example.org",
    report_base_url="https://reports.example.org/semv",
)


def _loader(url: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """The schema.org context from the bundled copy; any other fetch fails the test."""
    if url.rstrip("/") not in ("https://schema.org", "http://schema.org"):
        raise AssertionError(f"the expansion tried to fetch {url}")
    return {
        "contextUrl": None,
        "documentUrl": url,
        "document": json.loads((SCHEMA / "context.jsonld").read_text()),
    }


def vocabulary_problems(doc: dict[str, Any]) -> list[str]:
    """Expand ``doc`` and check every node's type and properties against the vocabulary, and
    the required and recommended properties of each type."""
    expanded = jsonld.expand(doc, {"documentLoader": _loader})
    problems: list[str] = []

    def walk(node: dict[str, Any], where: str) -> None:
        types = [t.removeprefix(S) for t in node.get("@type", [])]
        if len(types) != 1 or types[0] not in VOCAB:
            problems.append(f"{where}: unknown type {types}")
            return
        kind = types[0]
        props = {k.removeprefix(S): v for k, v in node.items() if not k.startswith("@")}
        problems.extend(
            f"{where}: {p} is not a property of {kind}" for p in props if p not in VOCAB[kind]
        )
        for group in ("_required", "_recommended"):
            problems.extend(
                f"{where}: {kind} lacks {p}" for p in VOCAB[group].get(kind, ()) if p not in props
            )
        for p, values in props.items():
            for n, value in enumerate(values):
                if isinstance(value.get("@type"), list):
                    walk(value, f"{where}.{p}[{n}]")

    assert len(expanded) == 1
    walk(expanded[0], "$")
    return problems


def _run(case_dir: Path, data_dir: Path, settings: Settings) -> tuple[Store, RunOutcome]:
    contract, cases = load_cases(case_dir)
    store = Store(data_dir)
    outcome = asyncio.run(
        run_case(
            cases[0].case,
            store=store,
            settings=settings,
            agents=OfflineAgents(settings),
            contract=contract,
        )
    )
    return store, outcome


def test_the_example_report_carries_a_valid_complete_claimreview(data_dir: Path) -> None:
    store, outcome = _run(ROOT / "examples" / "lyon-flood", data_dir, Settings(export=EXPORT))
    run_id = outcome.result.run_id
    html = Path(outcome.result.report_paths["html"]).read_text()
    doc = extract(html, "report.html")
    assert check_claim_review(doc) == []
    assert vocabulary_problems(doc) == []
    assert doc["url"] == f"https://reports.example.org/semv/{run_id}/report.html"
    record = store.get_run(run_id)
    assert record.finished_at is not None and doc["datePublished"] == record.finished_at[:10]
    assert doc["claimReviewed"].startswith("Flooding in Paris on 14 March 2024")
    assert outcome.result.label == "false-context"
    assert doc["reviewRating"]["alternateName"] == "Missing context"
    assert doc["reviewRating"]["ratingValue"] == 2
    assert (doc["reviewRating"]["worstRating"], doc["reviewRating"]["bestRating"]) == (1, 5)
    assert doc["author"] == {
        "@type": "Organization",
        "name": "Example Fact Check Desk",
        "url": "https://factcheck.example.org",
    }
    appearance = doc["itemReviewed"]["appearance"]
    assert appearance[0]["url"] == "https://social.example.org/@riverwatch/posts/48213"
    # no reverse-image match in this run: no first appearance is claimed
    assert "firstAppearance" not in doc["itemReviewed"]
    # the render node (shared by runs, content-addressed) has no publication url or date
    rendered = outcome.nodes["render"].value
    assert isinstance(rendered, RenderedReport)
    unpublished = extract(rendered.html, "render node")
    assert "url" not in unpublished and "datePublished" not in unpublished
    assert check_claim_review(unpublished) == ["missing url", "missing datePublished"]


def test_the_earliest_earlier_context_match_is_the_first_appearance() -> None:
    facts = ReviewFacts(
        claim="Flooding in Paris",
        label="uncertain",
        source_url="https://social.example.org/p/1",
        earlier=(),
    )
    doc = claim_review(facts, EXPORT, url="https://r.example.org/1", date_published="2024-05-01")
    assert "ratingValue" not in doc["reviewRating"]  # an abstention has a textual rating only
    assert doc["reviewRating"]["alternateName"] == "Unproven"
    assert check_claim_review(doc) == [] and vocabulary_problems(doc) == []


def test_facts_from_a_result_read_the_when_attacks_on_reverse_image_matches(
    data_dir: Path,
) -> None:
    _store, outcome = _run(ROOT / "examples" / "lyon-flood", data_dir, Settings(export=EXPORT))
    result = outcome.result
    when = next(s for s in result.subclaims if s.dimension == "when")
    attack = next(a for a in when.arguments if a.stance.value == "att")
    ev = result.evidence[0].model_copy(
        update={
            "id": "ev:rsearch:asset:1:tineye:0011223344556677",
            "url": "https://lyon-photo.example.org/2019/06/02/quais",
            "published": "2019-06-02",
        }
    )
    later = ev.model_copy(
        update={
            "id": "ev:rsearch:asset:1:tineye:8899aabbccddeeff",
            "url": "https://mirror.example.org/2020/01/01/quais",
            "published": "2020-01-01",
        }
    )
    cited = attack.model_copy(update={"evidence": (*attack.evidence, later.id, ev.id)})
    when2 = when.model_copy(
        update={"arguments": tuple(cited if a is attack else a for a in when.arguments)}
    )
    patched = result.model_copy(
        update={
            "subclaims": tuple(when2 if s is when else s for s in result.subclaims),
            "evidence": (*result.evidence, ev, later),
        }
    )
    facts = facts_from_result(patched, "Flooding in Paris", "https://social.example.org/p/1")
    doc = claim_review(facts, EXPORT, url="https://r.example.org/1", date_published="2024-05-01")
    assert doc["itemReviewed"]["firstAppearance"] == {
        "@type": "CreativeWork",
        "url": "https://lyon-photo.example.org/2019/06/02/quais",
        "datePublished": "2019-06-02",
    }
    assert [a["url"] for a in doc["itemReviewed"]["appearance"]] == [
        "https://social.example.org/p/1",
        "https://lyon-photo.example.org/2019/06/02/quais",
        "https://mirror.example.org/2020/01/01/quais",
    ]
    assert vocabulary_problems(doc) == []


def test_untrusted_claim_text_cannot_close_the_script_block() -> None:
    from semv.export import embed

    facts = ReviewFacts(
        claim="x</script><script>alert(1)</script>", label="verified", source_url=None
    )
    html = embed("<html><head></head><body></body></html>", claim_review(facts, EXPORT))
    assert html.count("</script>") == 1
    assert extract(html, "page")["claimReviewed"] == facts.claim


def test_an_unmapped_label_or_an_off_scale_rating_is_a_config_error() -> None:
    with pytest.raises(ValueError, match="no rating for NOOC, OOC, false-context"):
        ExportConfig(textual_ratings={"verified": "True"})
    with pytest.raises(ValueError, match="outside the scale: verified"):
        ExportConfig(numeric_ratings={"verified": 9})


def test_a_report_without_the_block_is_an_input_error() -> None:
    with pytest.raises(InputError, match=r"old\.html: the report has no ClaimReview block"):
        extract("<html><head></head></html>", "old.html")


def test_the_vocabulary_check_finds_a_wrong_property_and_a_missing_one() -> None:
    facts = ReviewFacts(claim="c", label="verified", source_url="https://a.example.org/p")
    doc = claim_review(facts, EXPORT, url="https://r.example.org/1", date_published="2024-05-01")
    doc["reviewRating"]["verdictColour"] = "red"
    del doc["reviewRating"]["alternateName"]
    problems = vocabulary_problems(doc)
    assert "$.reviewRating[0]: verdictColour is not a property of Rating" in problems
    assert "$.reviewRating[0]: Rating lacks alternateName" in problems
    assert "reviewRating must be a Rating with an alternateName" in check_claim_review(doc)
