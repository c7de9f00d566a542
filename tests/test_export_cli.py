"""`semv export`, `semv eval mv2026 --judge-scores` and `semv verify --source tineye` from the
command line (the issue-18 targets end to end: ClaimReview, PDF, a reverse-image `when`
refutation that `--replay` reproduces without HTTP, Eq. 32)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from semv.export import check_claim_review
from tests.mv2026_case import make_mv2026_case
from tests.recorded_server import Reply, recorded_server
from tests.test_export_pdf import needs_chromium
from tests.test_retrieval_cli import case_dir, semv  # noqa: F401 - the fixture
from tests.test_retrieval_images import DATA, PAGE

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "lyon-flood"


@pytest.fixture()
def run_id(data_dir: Path) -> str:
    code, out, err = semv("verify", str(EXAMPLE), "--json", "--data-dir", str(data_dir))
    assert code == 0, err
    rid: str = json.loads(out)["run_id"]
    return rid


def test_export_claimreview_to_stdout_and_to_a_file(
    data_dir: Path, run_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SEMV_EXPORT__REPORT_BASE_URL", "https://reports.example.org")
    code, out, err = semv(
        "export", run_id[:14], "--format", "claimreview", "--data-dir", str(data_dir)
    )
    assert code == 0, err
    doc = json.loads(out)
    assert check_claim_review(doc) == [] and err == ""
    assert doc["url"] == f"https://reports.example.org/{run_id}/report.html"
    target = tmp_path / "pub" / "review.jsonld"
    code, out, err = semv("export", run_id, "-o", str(target), "--data-dir", str(data_dir))
    assert code == 0 and out == ""
    assert json.loads(target.read_text()) == doc


def test_export_without_a_base_url_warns_that_the_url_is_a_local_file(
    data_dir: Path, run_id: str
) -> None:
    code, out, err = semv("export", run_id, "--data-dir", str(data_dir))
    assert code == 0
    assert json.loads(out)["url"].startswith("file://")
    assert "warning: url is not an http(s) URL" in err


@needs_chromium
def test_export_pdf(data_dir: Path, run_id: str, tmp_path: Path) -> None:
    target = tmp_path / "report.pdf"
    code, _out, err = semv(
        "export", run_id, "-f", "pdf", "-o", str(target), "--data-dir", str(data_dir)
    )
    assert code == 0, err
    assert target.read_bytes().startswith(b"%PDF-")


def test_export_refuses_bad_requests_with_exit_2(
    data_dir: Path, run_id: str, tmp_path: Path
) -> None:
    code, _out, err = semv("export", run_id, "-f", "docx", "--data-dir", str(data_dir))
    assert code == 2 and "expected one of claimreview, pdf" in err
    code, _out, err = semv("export", run_id, "-f", "pdf", "--data-dir", str(data_dir))
    assert code == 2 and "--format pdf needs -o FILE" in err
    code, _out, err = semv("export", "r-nope", "--data-dir", str(data_dir))
    assert code == 2 and "no run matches" in err
    code, _out, err = semv("export", run_id, "--data-dir", str(tmp_path / "empty"))
    assert code == 2 and "no semv store here" in err


def test_eval_mv2026_judge_scores_prints_table5(tmp_path: Path, data_dir: Path) -> None:
    cases = tmp_path / "mv"
    make_mv2026_case(cases, "case-01", media=False)
    make_mv2026_case(cases, "case-02", media=False)
    scores = tmp_path / "judges.csv"
    scores.write_text(
        "method,case,q,hours\n"
        "semv,case-01,83,5\nsemv,case-02,77.5,10\n"
        "other,case-01,70,2\nother,case-02,80,1\n"
    )
    out_dir = tmp_path / "out"
    code, out, err = semv(
        "eval", "mv2026", str(cases), "--judge-scores", str(scores),
        "--data-dir", str(data_dir), "--out", str(out_dir),
    )  # fmt: skip
    assert code == 0, err
    # semv: 83 - 0.025 = 82.975, 77.5 - 0.1 = 77.4, total 160.375; other: 69.996 + 79.999
    assert "| semv | **82.97** | 77.40 | **160.38** |" in out
    assert "| other | 70.00 | **80.00** | 150.00 |" in out  # 149.995
    saved = json.loads((out_dir / "mvscore.json").read_text())
    assert saved["methods"][0]["total"] == pytest.approx(160.375)
    assert (out_dir / "table5.md").read_text() in out
    scores.write_text("case,q\ncase-09,80\n")
    code, _out, err = semv("eval", "mv2026", str(cases), "--judge-scores", str(scores))
    assert code == 2 and "cases not in" in err and "case-09" in err


def test_verify_with_tineye_refutes_when_and_the_replay_sends_nothing(
    data_dir: Path,
    case_dir: Path,  # noqa: F811 - the fixture
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SEMV_RETRIEVAL__ALLOW_PRIVATE", "true")  # the test server is local
    monkeypatch.setenv("SEMV_RETRIEVAL__FETCH_PAGES", "1")
    monkeypatch.setenv("TINEYE_API_KEY", "tineye-secret")
    with recorded_server() as server:
        body = (DATA / "tineye.json").read_text().replace("{PAGE}", f"{server.url}{PAGE}")
        server.route("/rest/search/", Reply(200, body))
        server.route(PAGE, Reply(200, (DATA / "lyon-blog.html").read_text()))
        args = ["verify", str(case_dir), "--json", "--data-dir", str(data_dir)]
        web = ["--source", "tineye", "--endpoint", f"tineye={server.url}"]
        code, live_out, err = semv(*args, *web)
        assert code == 0, err
        sent = len(server.log)
        assert server.hits("/rest/search/") == 1
        code, replay_out, err = semv(*args, *web, "--replay")
        assert code == 0, err
        assert len(server.log) == sent  # the replay asked nothing
    live, replay = json.loads(live_out), json.loads(replay_out)
    when = next(s for s in live["subclaims"] if s["dimension"] == "when")
    assert when["decision"] in ("refuted", "weakly-refuted")
    assert live["label"] == replay["label"] == "false-context"
    report = Path(live["report_paths"]["markdown"]).read_text()
    assert "TinEye" in report and "2019-06-02" in report and PAGE in report
    assert Path(replay["report_paths"]["markdown"]).read_text() == report


def test_export_reads_a_store_given_by_url(data_dir: Path, run_id: str, tmp_path: Path) -> None:
    url = f"sqlite:///{data_dir / 'semv.db'}"
    args = ("export", run_id, "--store", url, "--data-dir", str(tmp_path / "files"))
    code, out, err = semv(*args)
    assert code == 0, err
    assert json.loads(out)["@type"] == "ClaimReview"
