"""A case from a link: ``semv case from-url`` and ``semv verify URL`` against recorded pages
served on 127.0.0.1, and the page reader on its own."""

from __future__ import annotations

import hashlib
import io
import ipaddress
import json
import time
from pathlib import Path

import pytest
import yaml
from PIL import Image
from typer.testing import CliRunner

from semv.adapters import load_cases
from semv.cli import app
from semv.links import read_page
from semv.retrieval import _http
from tests.recorded_server import RecordedServer, Reply, recorded_server

runner = CliRunner()
HTML = {"content-type": "text/html; charset=utf-8"}
JPEG = {"content-type": "image/jpeg"}


def semv(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def jpeg(colour: tuple[int, int, int], size: tuple[int, int] = (320, 200)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, colour).save(buffer, format="JPEG")
    return buffer.getvalue()


def png(colour: tuple[int, int, int]) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (300, 300), colour).save(buffer, format="PNG")
    return buffer.getvalue()


def page(head: str, body: str, *, lang: str = "en") -> str:
    prose = "<p>" + "Water kept rising along the river through the night. " * 30 + "</p>"
    return (
        f'<!doctype html><html lang="{lang}"><head>{head}</head><body>'
        f"<nav><img src='/logo.jpg'></nav><article>{body}{prose}</article>"
        "<footer><img src='/footer.jpg'></footer></body></html>"
    )


ARTICLE = page(
    "<title>Seine bursts its banks - Example News</title>"
    '<meta property="og:title" content="Seine bursts its banks">'
    '<meta property="og:image" content="/img/lead.jpg">'
    '<meta name="author" content="Jane Reporter">'
    '<meta property="article:published_time" content="2024-03-14T09:30:00Z">',
    "<h1>Seine bursts its banks</h1>"
    '<figure><img src="../img/lead.jpg" alt="A flooded quay">'
    "<figcaption>The quays near the Île de la Cité under water on 14 March 2024."
    "</figcaption></figure>",
)


def cli_case(server: RecordedServer, path: str, out: Path, *extra: str) -> tuple[int, str, str]:
    return semv(
        "case",
        "from-url",
        server.url + path,
        "--out",
        str(out),
        "--data-dir",
        str(out.parent / "data"),
        *extra,
    )


def test_article_with_og_image_and_figure_becomes_a_case(tmp_path: Path) -> None:
    lead = jpeg((200, 30, 30))
    with recorded_server() as server:
        server.route("/news/seine", Reply(200, ARTICLE, HTML))
        server.route("/img/lead.jpg", Reply(200, lead, JPEG))
        server.route("/logo.jpg", Reply(200, jpeg((0, 0, 0)), JPEG))
        server.route("/footer.jpg", Reply(200, jpeg((1, 1, 1)), JPEG))
        out = tmp_path / "case"
        code, stdout, stderr = cli_case(server, "/news/seine", out, "--allow-private-network")
        served = [seen.path for seen in server.log]
    assert code == 0, stderr
    assert f"case: {out}" in stdout
    spec = yaml.safe_load((out / "case.yaml").read_text(encoding="utf-8"))
    # the claim is the figure's caption, not the headline
    assert spec["claim"] == "The quays near the Île de la Cité under water on 14 March 2024."
    assert spec["media"] == [{"path": "image-1.jpg", "role": "primary"}]
    assert spec["context"]["date"] == "2024-03-14"
    assert spec["context"]["language"] == "en"
    assert spec["context"]["source_url"].endswith("/news/seine")
    assert (out / "image-1.jpg").read_bytes() == lead
    # navigation and footer images are never fetched
    assert "/logo.jpg" not in served and "/footer.jpg" not in served
    record = json.loads((out / "provenance.json").read_text(encoding="utf-8"))
    fetched = ARTICLE.encode("utf-8")
    assert record["page"]["sha256"] == hashlib.sha256(fetched).hexdigest()
    assert (out / "page.html").read_bytes() == fetched
    assert record["page"]["author"] == "Jane Reporter"
    assert record["page"]["fetched_at"]
    assert record["claim_from"] == "caption of image-1.jpg"
    assert record["media"][0]["sha256"] == hashlib.sha256(lead).hexdigest()
    assert record["media"][0]["alt"] == "A flooded quay"
    assert record["media"][0]["found_in"] == "og:image"
    # `semv verify` takes the folder as is
    _, cases = load_cases(out)
    assert cases[0].case.claim == spec["claim"]
    assert len(cases[0].case.media) == 1


def test_page_without_image_gives_a_claim_only_case_and_says_so(tmp_path: Path) -> None:
    html = page(
        "<title>Flood plan | Example News</title>", "<h1>Minister announces new flood plan</h1>"
    )
    html = html.replace("<nav><img src='/logo.jpg'></nav>", "").replace(
        "<footer><img src='/footer.jpg'></footer>", ""
    )
    with recorded_server() as server:
        server.route("/plan", Reply(200, html, HTML))
        out = tmp_path / "case"
        code, _, stderr = cli_case(server, "/plan", out, "--allow-private-network")
    assert code == 0, stderr
    spec = yaml.safe_load((out / "case.yaml").read_text(encoding="utf-8"))
    assert spec["claim"] == "Minister announces new flood plan"  # the headline
    assert spec["media"] == []
    assert "no image on the page" in stderr
    assert json.loads((out / "provenance.json").read_text())["claim_from"] == "page title"


def test_several_images_keep_the_declared_one_first_then_page_order(tmp_path: Path) -> None:
    first, second, third, fourth = (jpeg((40 * n, 90, 160)) for n in range(1, 5))
    body = (
        '<img src="/a.jpg" alt="first in text">'
        '<img src="/icon.jpg" width="32" height="32" alt="icon">'
        '<img src="data:image/png;base64,iVBORw0KGgo=" alt="inline">'
        '<figure><img src="/b.png" alt="b"><figcaption>Caption of b</figcaption></figure>'
        '<img src="/broken.jpg" alt="html served as jpg">'
        '<img src="/copy-of-a.jpg" alt="same bytes as a">'
        '<img data-src="/lazy.jpg" alt="lazy">'
        '<img src="/extra.jpg" alt="over the limit">'
    )
    html = page('<title>Storm gallery</title><meta property="og:image" content="/og.jpg">', body)
    with recorded_server() as server:
        server.route("/gallery", Reply(200, html, HTML))
        server.route("/og.jpg", Reply(200, first, JPEG))
        server.route("/a.jpg", Reply(200, second, JPEG))
        server.route("/b.png", Reply(200, png((9, 200, 9)), {"content-type": "image/png"}))
        server.route("/broken.jpg", Reply(200, "<html>not found</html>", JPEG))
        server.route("/copy-of-a.jpg", Reply(200, second, JPEG))
        server.route("/lazy.jpg", Reply(200, third, JPEG))
        server.route("/extra.jpg", Reply(200, fourth, JPEG))
        out = tmp_path / "case"
        code, _, stderr = cli_case(server, "/gallery", out, "--allow-private-network")
        asked = {seen.path for seen in server.log}
    assert code == 0, stderr
    spec = yaml.safe_load((out / "case.yaml").read_text(encoding="utf-8"))
    assert [m["path"] for m in spec["media"]] == [
        "image-1.jpg",
        "image-2.jpg",
        "image-3.png",
        "image-4.jpg",
    ]
    assert [m["role"] for m in spec["media"]] == ["primary", "context", "context", "context"]
    assert (out / "image-1.jpg").read_bytes() == first
    assert (out / "image-2.jpg").read_bytes() == second
    assert (out / "image-4.jpg").read_bytes() == third
    # the primary (og:image) has no caption here: the claim is the title
    assert spec["claim"] == "Storm gallery"
    assert "/icon.jpg" not in asked  # declared 32 px: an icon, not a candidate
    assert "/extra.jpg" not in asked  # links.max_images (4) reached first
    skipped = {
        s["url"].rsplit("/", 1)[1]: s["reason"]
        for s in json.loads((out / "provenance.json").read_text())["skipped_images"]
    }
    assert skipped["broken.jpg"].startswith("not an image")
    assert skipped["copy-of-a.jpg"] == "the same image as another one kept"
    assert "max_images" in skipped["extra.jpg"]
    assert "image left out" in stderr


def test_redirect_to_a_private_address_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the recorded server's own address counts as public here; every other non-public one is
    # still refused, as it is for a real public page that redirects inward
    blocked = _http._blocked
    server_ip = ipaddress.ip_address("127.0.0.1")
    monkeypatch.setattr(_http, "_blocked", lambda ip: ip != server_ip and blocked(ip))
    with recorded_server() as server:
        server.route(
            "/moved",
            Reply(302, b"", {"location": "http://169.254.169.254/latest/meta-data/"}),
        )
        out = tmp_path / "case"
        code, _, stderr = cli_case(server, "/moved", out)
        assert server.hits("/moved") == 1
    assert code == 2
    assert "169.254.169.254" in stderr and "refused" in stderr
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".case")]


def test_loopback_is_refused_without_the_flag(tmp_path: Path) -> None:
    with recorded_server() as server:
        server.route("/news/seine", Reply(200, ARTICLE, HTML))
        out = tmp_path / "case"
        code, _, stderr = cli_case(server, "/news/seine", out)
        assert server.hits("/news/seine") == 0  # refused before any connection
    assert code == 2
    assert "non-public address 127.0.0.1" in stderr
    assert not out.exists()


def test_non_html_response_is_refused_with_a_hint(tmp_path: Path) -> None:
    with recorded_server() as server:
        server.route(
            "/report.pdf", Reply(200, b"%PDF-1.7 ...", {"content-type": "application/pdf"})
        )
        out = tmp_path / "case"
        code, _, stderr = cli_case(server, "/report.pdf", out, "--allow-private-network")
    assert code == 2
    assert "not an HTML page (content type application/pdf)" in stderr
    assert "file:///" in stderr  # the way out for pages behind a login
    assert not out.exists()


def _limits(tmp_path: Path, **values: object) -> Path:
    config = tmp_path / "limits.toml"
    lines = ["[retrieval]", *(f"{k} = {v}" for k, v in values.items())]
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return config


def test_huge_page_is_refused_while_streaming(tmp_path: Path) -> None:
    huge = page("<title>Huge</title>", "<p>" + "x" * 300_000 + "</p>")
    config = _limits(tmp_path, max_bytes=100_000, retries=0)
    with recorded_server() as server:
        # chunked: no Content-Length to refuse it by, the limit must hold while reading
        server.route("/huge", Reply(200, huge, HTML, chunked=True))
        out = tmp_path / "case"
        code, _, stderr = cli_case(
            server, "/huge", out, "--allow-private-network", "--config", str(config)
        )
    assert code == 2
    assert "exceeds the 100000-byte limit" in stderr
    assert not out.exists()


def test_slow_page_times_out(tmp_path: Path) -> None:
    config = _limits(tmp_path, timeout_s=0.3, retries=0)
    with recorded_server() as server:
        server.route("/slow", Reply(200, ARTICLE, HTML, delay_s=3.0))
        out = tmp_path / "case"
        started = time.monotonic()
        code, _, stderr = cli_case(
            server, "/slow", out, "--allow-private-network", "--config", str(config)
        )
        elapsed = time.monotonic() - started
    assert code == 2
    assert "Timeout" in stderr and "/slow" in stderr
    assert elapsed < 2.5
    assert not out.exists()


def test_replay_rebuilds_the_same_case_without_a_request(tmp_path: Path) -> None:
    lead = jpeg((10, 120, 240))
    with recorded_server() as server:
        server.route("/news/seine", Reply(200, ARTICLE, HTML))
        server.route("/img/lead.jpg", Reply(200, lead, JPEG))
        live = tmp_path / "live"
        code, _, stderr = cli_case(server, "/news/seine", live, "--allow-private-network")
        assert code == 0, stderr
        requests = len(server.log)
        again = tmp_path / "again"
        code, _, stderr = cli_case(server, "/news/seine", again, "--replay")
        assert code == 0, stderr
        assert len(server.log) == requests
    first = json.loads((live / "provenance.json").read_text())
    second = json.loads((again / "provenance.json").read_text())
    assert second["page"]["sha256"] == first["page"]["sha256"]
    assert second["page"]["fetched_at"] == first["page"]["fetched_at"]
    assert (again / "image-1.jpg").read_bytes() == lead


def test_replay_of_an_unrecorded_link_fails_cleanly(tmp_path: Path) -> None:
    out = tmp_path / "case"
    code, _, stderr = semv(
        "case",
        "from-url",
        "https://news.example.org/never-fetched",
        "--out",
        str(out),
        "--data-dir",
        str(tmp_path / "data"),
        "--replay",
    )
    assert code == 2
    assert "no recorded copy" in stderr
    assert not out.exists()


def test_existing_out_folder_is_refused_before_any_request(tmp_path: Path) -> None:
    out = tmp_path / "case"
    out.mkdir()
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    with recorded_server() as server:
        server.route("/news/seine", Reply(200, ARTICLE, HTML))
        code, _, stderr = cli_case(server, "/news/seine", out, "--allow-private-network")
        assert server.log == []
    assert code == 2 and "already exists" in stderr
    assert (out / "notes.txt").read_text(encoding="utf-8") == "mine"


def test_saved_page_from_a_file_url(tmp_path: Path) -> None:
    saved = tmp_path / "saved"
    (saved / "page_files").mkdir(parents=True)
    photo = jpeg((250, 250, 0))
    (saved / "page_files" / "photo.jpg").write_bytes(photo)
    secret = tmp_path / "elsewhere.jpg"
    secret.write_bytes(jpeg((1, 2, 3)))
    html = page(
        '<title>Post</title><link rel="canonical" href="https://social.example.org/p/77">',
        '<figure><img src="page_files/photo.jpg"><figcaption>Bridge closed in Lyon'
        "</figcaption></figure>"
        f'<img src="{secret.as_uri()}" alt="outside the saved page">',
    )
    (saved / "page.html").write_text(html, encoding="utf-8")
    out = tmp_path / "case"
    code, _, stderr = semv(
        "case",
        "from-url",
        (saved / "page.html").as_uri(),
        "--out",
        str(out),
        "--data-dir",
        str(tmp_path / "data"),
    )
    assert code == 0, stderr
    spec = yaml.safe_load((out / "case.yaml").read_text(encoding="utf-8"))
    assert spec["claim"] == "Bridge closed in Lyon"
    # a saved page is named by, and appeared at, the address it gives for itself
    assert spec["context"]["source_url"] == "https://social.example.org/p/77"
    assert spec["id"].startswith("social-example-org-p-77-")
    assert (out / "image-1.jpg").read_bytes() == photo
    assert len(spec["media"]) == 1
    assert "outside the saved page's folder" in stderr


def test_verify_url_builds_the_case_and_verifies_it(tmp_path: Path) -> None:
    lead = (Path(__file__).resolve().parents[1] / "examples/lyon-flood/photo.jpg").read_bytes()
    data = tmp_path / "data"
    with recorded_server() as server:
        server.route("/news/seine", Reply(200, ARTICLE, HTML))
        server.route("/img/lead.jpg", Reply(200, lead, JPEG))
        link = server.url + "/news/seine"
        code, stdout, stderr = semv(
            "verify", link, "--json", "--data-dir", str(data), "--allow-private-network"
        )
    assert code == 0, stderr
    result = json.loads(stdout)  # stdout holds the verdict only; the case lines go to stderr
    folder = data / "cases" / result["case_id"]
    assert (folder / "case.yaml").is_file()
    assert f"case: {folder}" in stderr
    # the photo's EXIF (Lyon, 2019) contradicts the page's date (14 March 2024)
    when = next(s for s in result["subclaims"] if s["dimension"] == "when")
    assert when["decision"] in ("refuted", "weakly-refuted")


def test_read_page_takes_caption_from_the_figure_of_the_declared_image() -> None:
    facts = read_page(ARTICLE, "https://news.example.org/news/seine")
    assert facts.title == "Seine bursts its banks"
    assert facts.author == "Jane Reporter"
    assert facts.published == "2024-03-14"
    assert facts.language == "en"
    assert "Water kept rising" in facts.text
    assert [(i.url, i.found_in) for i in facts.images] == [
        ("https://news.example.org/img/lead.jpg", "og:image")
    ]
    assert facts.images[0].caption.startswith("The quays near")
    assert facts.images[0].alt == "A flooded quay"


def test_read_page_resolves_srcset_and_drops_drawings() -> None:
    html = page(
        "<title>t</title>",
        '<img srcset="/small.jpg 320w, /big.jpg 1024w" alt="s"><img src="/chart.svg" alt="chart">',
    )
    facts = read_page(html, "https://example.org/a/b")
    assert [i.url for i in facts.images] == ["https://example.org/small.jpg"]


def test_page_text_is_printed_as_data_not_console_markup(tmp_path: Path) -> None:
    html = page("<title>[bold red]Alarm[/] [link=https://evil.example]x[/link]</title>", "")
    with recorded_server() as server:
        server.route("/markup", Reply(200, html, HTML))
        out = tmp_path / "case"
        code, stdout, stderr = cli_case(server, "/markup", out, "--allow-private-network")
    assert code == 0, stderr
    assert "[bold red]Alarm[/] [link=https://evil.example]x[/link]" in stdout


def test_verify_of_a_refused_link_exits_2_and_leaves_no_run(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with recorded_server() as server:
        server.route("/news/seine", Reply(200, ARTICLE, HTML))
        code, stdout, stderr = semv("verify", server.url + "/news/seine", "--data-dir", str(data))
        assert server.log == []
    assert code == 2 and stdout == ""
    assert "non-public address" in stderr and "--allow-private-network fetches it" in stderr
    assert not (data / "cases").exists() or not any((data / "cases").iterdir())
    code, _, stderr = semv("runs", "--data-dir", str(data))
    assert "no runs yet" in stderr
