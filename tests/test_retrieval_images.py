"""Web reverse-image search (TinEye, Google Lens through SerpApi) against recorded responses on
127.0.0.1: parsing, keys, uploads, the dated replay cache, the leakage guard, and the example's
`when` subclaim refuted by an earlier appearance — reproduced by a replay with no HTTP call."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from semv.agents.offline import OfflineAgents
from semv.config import RetrievalConfig, Settings
from semv.errors import ConfigError
from semv.model import (
    Band,
    Case,
    Evidence,
    EvidenceKind,
    ProducerKind,
    ReverseSearchMatch,
    SourceType,
    Stance,
)
from semv.pipeline import RunOutcome, run_case
from semv.retrieval import (
    HttpClient,
    HttpLimits,
    ImageQuery,
    ReplayCache,
    Retrieval,
    RetrievalError,
    ReverseImageSource,
    image_queries,
    make_image_api,
    open_retrieval,
)
from semv.store import Store
from tests.recorded_server import RecordedServer, Reply, recorded_server
from tests.test_retrieval_pipeline import lyon_case_without_fact_check

DATA = Path(__file__).parent / "data" / "retrieval"
ROOT = Path(__file__).resolve().parents[1]
PHOTO = ROOT / "examples" / "lyon-flood" / "photo.jpg"
PAGE = "/blog/2019/06/02/saone-quays"
REFUTED = (Band.REFUTED, Band.WEAKLY_REFUTED)


@pytest.fixture()
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TINEYE_API_KEY", "tineye-secret")
    monkeypatch.setenv("SERPAPI_API_KEY", "serpapi-secret")


def _tineye_body(server: RecordedServer) -> str:
    return (DATA / "tineye.json").read_text().replace("{PAGE}", f"{server.url}{PAGE}")


def _image(url: str | None = None) -> ImageQuery:
    return ImageQuery("asset:1", str(PHOTO), "cd" * 32, url)


def _source(
    name: str, server: RecordedServer, cache: ReplayCache, mode: str = "live", **kw: int
) -> ReverseImageSource:
    http = HttpClient(HttpLimits(retries=0, backoff_s=0, allow_private=True))
    return ReverseImageSource(
        make_image_api(name, server.url),
        cache=cache,
        mode=mode,
        reliability=0.7,
        max_upload_bytes=kw.get("max_upload_bytes", 10_000_000),
        http=http,
        fetch_pages=kw.get("fetch_pages", 0),
    )


def test_tineye_uploads_the_image_and_reads_every_backlink_with_its_date(
    keys: None, tmp_path: Path
) -> None:
    cache = ReplayCache(f"sqlite:///{tmp_path / 'semv.db'}")
    with recorded_server() as server:
        server.route("/rest/search/", Reply(200, _tineye_body(server)))
        items = _source("tineye", server, cache).search_image(_image(), before=None, k=10)
        seen = server.log[-1]
    assert seen.method == "POST" and seen.headers["x-api-key"] == "tineye-secret"
    assert seen.query["sort"] == ["crawl_date"] and seen.query["order"] == ["asc"]
    assert b'name="image_upload"' in seen.body and PHOTO.read_bytes()[:64] in seen.body
    assert [e.published for e in items] == ["2019-06-02", "2024-03-14", "2024-03-16"]
    first = items[0]
    assert first.url == f"{server.url}{PAGE}"
    match = _match(first)
    assert first.kind is EvidenceKind.REVERSE_SEARCH_MATCH and match.engine == "TinEye"
    assert match.first_seen == "2019-06-02"
    assert first.id.startswith("ev:rsearch:asset:1:tineye:")
    assert first.source_type is SourceType.PRIOR_CAPTION
    assert first.provenance is not None
    assert first.provenance.producer is ProducerKind.RETRIEVAL
    assert first.provenance.derived_from == ("asset:1",)
    # the key is a header, never part of the dated cache
    with cache._engine.connect() as conn:
        stored = [
            tuple(r) for r in conn.exec_driver_sql("SELECT params, body FROM retrieval_cache")
        ]
    assert stored and all("tineye-secret" not in p for p, _ in stored)
    assert all("sha256" in p for p, _ in stored)


def test_a_fetched_match_page_gives_the_caption_through_the_guarded_fetcher(
    keys: None, tmp_path: Path
) -> None:
    cache = ReplayCache(f"sqlite:///{tmp_path / 'semv.db'}")
    with recorded_server() as server:
        server.route("/rest/search/", Reply(200, _tineye_body(server)))
        server.route(
            PAGE, Reply(200, (DATA / "lyon-blog.html").read_text(), {"content-type": "text/html"})
        )
        items = _source("tineye", server, cache, fetch_pages=1).search_image(
            _image(), before=None, k=10
        )
    caption = str(_match(items[0]).caption)
    assert "Lyon" in caption and "Saône" in caption
    assert items[0].provenance is not None and "page fetch" in items[0].provenance.method
    assert _match(items[1]).caption is None  # only the first page was fetched


def test_the_fetch_of_a_match_page_keeps_the_ssrf_guard(keys: None, tmp_path: Path) -> None:
    cache = ReplayCache(f"sqlite:///{tmp_path / 'semv.db'}")
    with recorded_server() as server:
        server.route("/rest/search/", Reply(200, _tineye_body(server)))
        server.route(PAGE, Reply(200, (DATA / "lyon-blog.html").read_text()))
        api = make_image_api("tineye", server.url)
        # the engine's own endpoint is private here, so only the page guard can refuse: the
        # API answer is recorded first, then the page fetch (to 127.0.0.1) is refused
        live = ReverseImageSource(
            api,
            cache=cache,
            mode="live",
            reliability=0.7,
            max_upload_bytes=10_000_000,
            http=HttpClient(HttpLimits(retries=0, backoff_s=0, allow_private=True)),
            fetch_pages=1,
        )
        live.search_image(_image(), before=None, k=10)
        guarded = ReverseImageSource(
            api,
            cache=cache,
            mode="live",
            reliability=0.7,
            max_upload_bytes=10_000_000,
            http=HttpClient(HttpLimits(retries=0, backoff_s=0, allow_private=False)),
            fetch_pages=1,
        )
        with pytest.raises(RetrievalError, match="non-public address"):
            guarded.search_image(_image(), before=None, k=10)
        assert server.hits(PAGE) == 1


def test_a_page_over_the_size_limit_is_not_read_and_the_match_stays(
    keys: None, tmp_path: Path
) -> None:
    cache = ReplayCache(f"sqlite:///{tmp_path / 'semv.db'}")
    with recorded_server() as server:
        server.route("/rest/search/", Reply(200, _tineye_body(server)))
        server.route(PAGE, Reply(200, "<html>" + "x" * 5000 + "</html>"))
        http = HttpClient(HttpLimits(max_bytes=2048, retries=0, backoff_s=0, allow_private=True))
        source = ReverseImageSource(
            make_image_api("tineye", server.url),
            cache=cache,
            mode="live",
            reliability=0.7,
            max_upload_bytes=10_000_000,
            http=http,
            fetch_pages=1,
        )
        items = source.search_image(_image(), before=None, k=10)
    assert items[0].published == "2019-06-02" and _match(items[0]).caption is None


def test_an_image_over_the_upload_limit_is_a_retrieval_error(keys: None, tmp_path: Path) -> None:
    cache = ReplayCache(f"sqlite:///{tmp_path / 'semv.db'}")
    with recorded_server() as server:
        source = _source("tineye", server, cache, max_upload_bytes=1024)
        with pytest.raises(RetrievalError, match="upload limit"):
            source.search_image(_image(), before=None, k=10)
        assert not server.log


def test_google_lens_takes_the_image_url_and_reads_exact_match_dates(
    keys: None, tmp_path: Path
) -> None:
    cache = ReplayCache(f"sqlite:///{tmp_path / 'semv.db'}")
    url = "https://social.example.org/media/48213.jpg"
    with recorded_server() as server:
        server.route("/search.json", Reply(200, (DATA / "serpapi-lens.json").read_text()))
        source = _source("serpapi-lens", server, cache)
        items = source.search_image(_image(url), before=None, k=10)
        seen = server.log[-1]
        with pytest.raises(RetrievalError, match="takes an image by URL"):
            source.search_image(_image(None), before=None, k=10)
        assert len(server.log) == 1
    assert seen.query["engine"] == ["google_lens"] and seen.query["url"] == [url]
    assert seen.query["api_key"] == ["serpapi-secret"]
    assert [e.published for e in items] == ["2019-06-02", None]
    assert "Lyon" in str(_match(items[0]).caption)


def test_image_queries_use_the_source_url_only_when_it_names_an_image() -> None:
    _contract, case = lyon_case_without_fact_check()
    (query,) = image_queries(case.media, case.context.source_url)
    assert query.url is None and query.sha256 == case.media[0].sha256
    (query,) = image_queries(case.media, "https://cdn.example.org/a/photo.JPG")
    assert query.url == "https://cdn.example.org/a/photo.JPG"


def test_a_missing_key_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TINEYE_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="TINEYE_API_KEY"):
        make_image_api("tineye")
    with pytest.raises(ConfigError, match="known: serpapi-lens, tineye"):
        make_image_api("bing")


def _settings(fetch_pages: int = 1) -> Settings:
    return Settings(
        retrieval=RetrievalConfig(allow_private=True, backoff_s=0.0, fetch_pages=fetch_pages)
    )


def _run(case: Case, store: Store, settings: Settings, contract: str, r: Retrieval) -> RunOutcome:
    return asyncio.run(
        run_case(
            case,
            store=store,
            settings=settings,
            agents=OfflineAgents(settings),
            contract=contract,
            retrieval=r,
        )
    )


def _band(outcome: RunOutcome, dim: str) -> Band:
    return next(d.band for d in outcome.verdict.decisions if d.dimension.value == dim)


def _attacks(outcome: RunOutcome, dim: str) -> set[str]:
    sub = next(s for s in outcome.result.subclaims if s.dimension == dim)
    return {e for a in sub.arguments if a.stance is Stance.ATTACK for e in a.evidence}


def test_an_earlier_appearance_refutes_when_and_a_replay_needs_no_http(
    keys: None, data_dir: Path
) -> None:
    contract, case = lyon_case_without_fact_check()
    store = Store(data_dir)
    settings = _settings()
    with recorded_server() as server:
        server.route("/rest/search/", Reply(200, _tineye_body(server)))
        server.route(
            PAGE, Reply(200, (DATA / "lyon-blog.html").read_text(), {"content-type": "text/html"})
        )
        endpoints = {"tineye": server.url}
        live = open_retrieval(settings, store_url=store.url, web=["tineye"], endpoints=endpoints)
        first = _run(case, store, settings, contract, live)
        live.close()
        # one upload for the whole case: the four subclaims share the session's answer
        assert server.hits("/rest/search/") == 1 and server.hits(PAGE) == 1
        calls = len(server.log)
    # the earlier appearance joins the EXIF capture date in attacking `when`
    assert _band(first, "when") in REFUTED
    assert first.verdict.label == "false-context"
    earlier = [e for e in _attacks(first, "when") if e.startswith("ev:rsearch:asset:1:tineye:")]
    assert earlier
    assert any(e.startswith("ev:rsearch:asset:1:tineye:") for e in _attacks(first, "where"))
    report = Path(first.result.report_paths["markdown"]).read_text()
    assert "TinEye" in report and "2019-06-02" in report and f"{PAGE}" in report
    # the server is gone; the replay reads only the dated cache
    replay = open_retrieval(
        settings, store_url=store.url, web=["tineye"], endpoints=endpoints, mode="replay"
    )
    second = _run(case, store, settings, contract, replay)
    replay.close()
    assert len(server.log) == calls
    assert second.verdict == first.verdict
    assert (
        Path(second.result.report_paths["markdown"]).read_bytes()
        == Path(first.result.report_paths["markdown"]).read_bytes()
    )


def test_without_the_engine_only_the_photo_s_own_metadata_argues_against_when(
    data_dir: Path,
) -> None:
    contract, case = lyon_case_without_fact_check()
    store = Store(data_dir)
    settings = _settings()
    outcome = _run(case, store, settings, contract, open_retrieval(settings, store_url=store.url))
    # the EXIF capture date (2019) outweighs the news report of the claimed 2024 event, with or
    # without an engine; without one, no earlier appearance is cited
    attacks = _attacks(outcome, "when")
    assert attacks and all(e.startswith("ev:exif:") for e in attacks)
    assert not any(e.startswith("ev:rsearch:") for e in attacks | _attacks(outcome, "where"))


def test_the_leakage_guard_drops_matches_first_seen_after_the_cut_off(
    keys: None, data_dir: Path
) -> None:
    contract, case = lyon_case_without_fact_check()
    store = Store(data_dir)
    settings = _settings(fetch_pages=0)
    with recorded_server() as server:
        server.route("/rest/search/", Reply(200, _tineye_body(server)))
        guarded = open_retrieval(
            settings,
            store_url=store.url,
            web=["tineye"],
            endpoints={"tineye": server.url},
            before="2024-03-14",
        )
        outcome = _run(case, store, settings, contract, guarded)
        guarded.close()
    retrieved = outcome.nodes["retrieve:when"].value
    (record,) = [q for q in retrieved.queries if q.source == "tineye"]
    assert record.excluded_after == 1  # the 2024-03-16 copy
    kept = {e.published for e in retrieved.evidence if e.id.startswith("ev:rsearch:asset:1:tineye")}
    assert kept == {"2019-06-02", "2024-03-14"}
    assert json.loads(retrieved.model_dump_json())["leakage_excluded"] == 1


def _match(item: Evidence) -> ReverseSearchMatch:
    found = item.observed(ReverseSearchMatch)
    assert found is not None
    return found
