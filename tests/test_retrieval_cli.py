"""`semv index corpus`, `semv verify --source/--before/--replay`, `semv eval retrieval`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from semv.cli import app
from semv.retrieval import LocalCorpus
from semv.store import Store
from tests.conftest import ROOT, shared_data
from tests.recorded_server import Reply, recorded_server

runner = CliRunner()
DATA = Path(__file__).parent / "data" / "retrieval"
FACT_CHECK_URL = "https://factcheck.example.org/2024/03/15/paris-flood-photo-is-lyon-2019"


def semv(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture()
def case_dir(tmp_path: Path) -> Path:
    """The demo case without its supplied fact-check."""
    import yaml

    target = tmp_path / "case"
    shutil.copytree(ROOT / "examples" / "lyon-flood", target)
    doc = yaml.safe_load((target / "case.yaml").read_text())
    doc["evidence"] = [e for e in doc["evidence"] if "factcheck" not in e["url"]]
    (target / "case.yaml").write_text(yaml.safe_dump(doc, allow_unicode=True))
    (target / "gold.yaml").unlink(missing_ok=True)
    return target


@pytest.fixture()
def fact_check_file(tmp_path: Path) -> Path:
    path = tmp_path / "factcheck.jsonld"
    path.write_text(
        json.dumps(
            {
                "@context": "https://schema.org",
                "@type": "ClaimReview",
                "url": FACT_CHECK_URL,
                "claimReviewed": "Photo shows Paris under water on 14 March 2024",
                "datePublished": "2024-03-15",
                "author": {"@type": "Organization", "name": "Example Fact Check"},
                "reviewRating": {"@type": "Rating", "alternateName": "False"},
                "reviewBody": "The photo was taken in Lyon on 1 June 2019 and shows the "
                "Saône river below the Fourvière hill.",
            }
        )
    )
    return path


def test_index_then_verify_with_the_corpus_and_the_leakage_guard(
    data_dir: Path, case_dir: Path, fact_check_file: Path
) -> None:
    code, out, err = semv(
        "index", "corpus", str(fact_check_file), "--data-dir", str(data_dir), "--json"
    )
    assert code == 0, err
    stats = json.loads(out)
    assert (stats["added"], stats["documents"]) == (1, 1)
    code, out, err = semv(
        "verify", str(case_dir), "--json", "--data-dir", str(data_dir), "--source", "corpus"
    )
    assert code == 0, err
    result = json.loads(out)
    when = next(s for s in result["subclaims"] if s["dimension"] == "when")
    cited = {e for a in when["arguments"] if a["stance"] == "att" for e in a["evidence"]}
    doc = next(e for e in result["evidence"] if e["url"] == FACT_CHECK_URL)
    assert doc["id"] in cited
    assert doc["source_type"] == "fact-check"
    code, out, err = semv(
        "verify",
        str(case_dir),
        "--json",
        "--data-dir",
        str(data_dir),
        "--source",
        "corpus",
        "--before",
        "2024-03-14",
    )
    assert code == 0, err
    assert all(e["url"] != FACT_CHECK_URL for e in json.loads(out)["evidence"])


def test_verify_live_then_replay_from_the_cli(
    data_dir: Path, case_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SEMV_RETRIEVAL__ALLOW_PRIVATE", "true")  # the test server is local
    with recorded_server() as server:
        server.route("/search", Reply(200, (DATA / "searxng.json").read_text()))
        args = ["verify", str(case_dir), "--json", "--data-dir", str(data_dir)]
        web = ["--source", "searxng", "--endpoint", f"searxng={server.url}"]
        code, live_out, err = semv(*args, *web)
        assert code == 0, err
        sent = len(server.log)
    code, replay_out, err = semv(*args, *web, "--replay")
    assert code == 0, err
    assert len(server.log) == sent
    live, replay = json.loads(live_out), json.loads(replay_out)
    assert sent > 0
    assert replay["label"] == live["label"]
    assert sorted(replay["evidence"], key=lambda e: e["id"]) == sorted(
        live["evidence"], key=lambda e: e["id"]
    )


def test_replay_needs_no_api_key(
    data_dir: Path, case_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--replay sends no request, so it needs no key; live still asks for one."""
    monkeypatch.setenv("SEMV_RETRIEVAL__ALLOW_PRIVATE", "true")  # the test server is local
    monkeypatch.setenv("SERPER_API_KEY", "test-key")
    args = ["verify", str(case_dir), "--json", "--data-dir", str(data_dir)]
    with recorded_server() as server:
        server.route("/search", Reply(200, (DATA / "serper.json").read_text()))
        web = ["--source", "serper", "--endpoint", f"serper={server.url}"]
        code, live_out, err = semv(*args, *web)
        assert code == 0, err
        sent = len(server.log)
    monkeypatch.delenv("SERPER_API_KEY")
    code, _out, err = semv(*args, *web)
    assert code == 2 and "SERPER_API_KEY" in err and "--replay" in err
    code, replay_out, err = semv(*args, *web, "--replay")
    assert code == 0, err
    assert sent > 0 and len(server.log) == sent
    live, replay = json.loads(live_out), json.loads(replay_out)
    assert sorted(e["id"] for e in replay["evidence"]) == sorted(e["id"] for e in live["evidence"])


def test_retrieval_options_fail_clearly(data_dir: Path, case_dir: Path) -> None:
    code, _out, err = semv("verify", str(case_dir), "--data-dir", str(data_dir), "--replay")
    assert code == 2 and "--replay needs --backend llm or a web --source" in err
    code, _out, err = semv(
        "verify", str(case_dir), "--data-dir", str(data_dir), "--before", "2020-01-01"
    )
    assert code == 2 and "--before needs at least one --source" in err
    code, _out, err = semv(
        "verify", str(case_dir), "--data-dir", str(data_dir), "--source", "altavista"
    )
    assert code == 2 and "unknown source" in err
    code, _out, err = semv(
        "verify",
        str(case_dir),
        "--data-dir",
        str(data_dir),
        "--source",
        "corpus",
        "--before",
        "soon",
    )
    assert code == 2 and "--before" in err
    code, _out, err = semv(
        "index", "corpus", str(data_dir / "nothing"), "--data-dir", str(data_dir)
    )
    assert code == 2 and "no such file" in err


@pytest.mark.shared_data
def test_index_averitec_and_evaluate_bm25_retrieval(data_dir: Path) -> None:
    dev = shared_data("averitec-dev", "dev.json")
    code, out, err = semv("index", "corpus", str(dev), "--data-dir", str(data_dir), "--json")
    assert code == 0, err
    stats = json.loads(out)
    records = json.loads(dev.read_text())
    answers = sum(
        1
        for r in records
        for q in r["questions"]
        for a in q.get("answers") or ()
        if (a.get("answer") or "").strip() and a.get("answer_type") != "Unanswerable"
    )
    assert stats["read"] == answers
    corpus = LocalCorpus(Store(data_dir).url)
    assert corpus.count() == stats["documents"] == stats["added"]
    code, out, err = semv(
        "eval", "retrieval", str(dev), "--no-rerank", "--json", "--data-dir", str(data_dir)
    )
    assert code == 0, err
    (bm25,) = json.loads(out)
    assert bm25["claims"] == len(
        {
            f"{i}"
            for i, r in enumerate(records)
            if any(
                (a.get("answer") or "").strip() and a.get("answer_type") != "Unanswerable"
                for q in r["questions"]
                for a in q.get("answers") or ()
            )
        }
    )
    # a claim's own answers share its words: BM25 should find most of them (measured 0.81)
    assert 0.5 < bm25["recall@10"] <= 1.0
    assert bm25["hit@10"] >= bm25["recall@10"]
