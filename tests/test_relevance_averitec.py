"""The relevance gate reproduced as a test: an archive of unrelated fact-check evidence (AVeriTeC
dev, read in place from ../shared/data) indexed as the corpus must not change lyon-flood's
verdict or any subclaim band, and no argument may cite an item whose claim similarity is
below 0.1; a genuinely related fact-check in a small corpus still attacks when and where."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from semv.cli import app
from semv.config import Settings
from semv.nlp.similarity import similarity
from tests.conftest import ROOT, shared_data

runner = CliRunner()
SUBSET = 250
"""The first 250 of AVeriTeC dev's 500 claims (their 700-odd answers): the full set gives the
same outcome (docs/evaluation.md) but takes twice as long."""
FACT_CHECK_URL = "https://factcheck.example.org/2024/03/15/paris-flood-photo-is-lyon-2019"


def semv(*args: str) -> dict[str, Any]:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.stderr
    return dict(json.loads(result.stdout))


def bands(result: dict[str, Any]) -> dict[str, str]:
    return {s["dimension"]: s["decision"] for s in result["subclaims"]}


@pytest.mark.shared_data
def test_averitec_corpus_leaves_lyon_flood_unchanged(tmp_path: Path) -> None:
    dev = shared_data("averitec-dev", "dev.json")
    subset = tmp_path / "averitec-subset.json"
    subset.write_text(json.dumps(json.loads(dev.read_text())[:SUBSET]))
    case = str(ROOT / "examples" / "lyon-flood")
    with_corpus = tmp_path / "with"
    semv("index", "corpus", str(subset), "--data-dir", str(with_corpus), "--json")
    plain = semv("verify", case, "--json", "--data-dir", str(tmp_path / "plain"))
    searched = semv(
        "verify",
        case,
        "--source",
        "corpus",
        "--before",
        "2024-03-14",
        "--json",
        "--data-dir",
        str(with_corpus),
    )
    assert searched["label"] == plain["label"]
    assert bands(searched) == bands(plain)
    # nothing retrieved argues unless it resembles the claim
    claim = yaml.safe_load((ROOT / "examples/lyon-flood/case.yaml").read_text())["claim"]
    content = {e["id"]: e["content"] for e in searched["evidence"]}
    offline = Settings().offline
    for sub in searched["subclaims"]:
        for argument in sub["arguments"]:
            for ev in argument["evidence"]:
                if ev.startswith("ev:doc:"):
                    assert similarity(claim, content[ev], offline).value >= 0.1, argument["text"]
    # the corpus was searched: what it returned is listed as retrieved, not relevant
    refused = [u for u in searched["uncertainty"] if u["code"] == "retrieved-not-relevant"]
    assert refused and all("not used as evidence" in u["detail"] for u in refused)
    markdown = Path(searched["report_paths"]["markdown"]).read_text()
    assert "retrieved, not relevant" in markdown and "relevance 0." in markdown


def test_a_related_fact_check_in_a_small_corpus_still_attacks_when_and_where(
    tmp_path: Path,
) -> None:
    case = tmp_path / "case"
    shutil.copytree(ROOT / "examples" / "lyon-flood", case)
    doc = yaml.safe_load((case / "case.yaml").read_text())
    doc["evidence"] = [e for e in doc["evidence"] if "factcheck" not in e["url"]]
    (case / "case.yaml").write_text(yaml.safe_dump(doc, allow_unicode=True))
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "factcheck.jsonld").write_text(
        json.dumps(
            {
                "@context": "https://schema.org",
                "@type": "ClaimReview",
                "url": FACT_CHECK_URL,
                "claimReviewed": "Paris under water, 14 March 2024",
                "datePublished": "2024-03-15",
                "author": {"@type": "Organization", "name": "Example Fact Check"},
                "reviewRating": {"@type": "Rating", "alternateName": "False"},
                "reviewBody": "The photo was taken in Lyon on 1 June 2019. It shows the Saône "
                "below the Fourvière hill; it was posted on a Lyon photography blog on "
                "2 June 2019.",
            }
        )
    )
    (corpus / "unrelated.jsonl").write_text(
        "\n".join(
            json.dumps(r)
            for r in (
                {
                    "text": "Zimbabwe received an Afreximbank loan in June 2020.",
                    "url": "https://a.example.org/1",
                },
                {
                    "text": "Onion soup recipe with gruyère, Lyon style.",
                    "url": "https://a.example.org/2",
                },
            )
        )
        + "\n"
    )
    data = tmp_path / "store"
    semv("index", "corpus", str(corpus), "--data-dir", str(data), "--json")
    result = semv(
        "verify",
        str(case),
        "--source",
        "corpus",
        "--before",
        "2024-03-20",
        "--json",
        "--data-dir",
        str(data),
    )
    ids = {e["id"] for e in result["evidence"] if e.get("url") == FACT_CHECK_URL}
    assert len(ids) == 1
    for dim in ("when", "where"):
        sub = next(s for s in result["subclaims"] if s["dimension"] == dim)
        attacks = {e for a in sub["arguments"] if a["stance"] == "att" for e in a["evidence"]}
        assert ids <= attacks, dim
    assert not any("a.example.org" in (e.get("url") or "") for e in result["evidence"])
