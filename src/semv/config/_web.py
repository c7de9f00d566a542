"""The sections of the service: the reviewer web UI and REST API (``web``) and the sizes of
user input (``limits``)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from semv.config._section import _Section

__all__ = ["LimitsConfig", "WebConfig"]


class LimitsConfig(_Section):
    """Sizes of user input (not from the papers). Beyond them an input is refused (exit 2,
    HTTP 400, before any run is created) or, with ``oversize = "truncate"``, cut with an
    ``input-truncated`` uncertainty item."""

    max_claim_chars: int = Field(
        50_000, ge=1, description="Longest claim/caption c_0 (ReMMD articles reach ~15,000)."
    )
    max_evidence_chars: int = Field(
        100_000, ge=1, description="Longest text of one supplied evidence item."
    )
    max_evidence_items: int = Field(500, ge=0, description="Most supplied evidence items.")
    max_context_chars: int = Field(
        2_000, ge=1, description="Longest context field (date, location, source URL)."
    )
    oversize: Literal["refuse", "truncate"] = Field(
        "refuse", description="What happens beyond a limit: refuse the case, or truncate."
    )


class WebConfig(_Section):
    """The reviewer web UI and REST API (``semv serve``, ``semv.web``); not from the papers."""

    max_upload_mb: float = Field(
        50.0, gt=0.0, description="Largest accepted upload (zip or files), in MiB."
    )
    max_unpacked_mb: float = Field(
        200.0, gt=0.0, description="Largest total size a case zip may unpack to, in MiB."
    )
    max_files: int = Field(500, ge=1, description="Most files one uploaded case may hold.")
    max_case_file_mb: float = Field(
        8.0,
        gt=0.0,
        description="Largest case document (case.yaml, case.json) an upload may hold, in MiB; "
        "refused while it streams, before the rest is read.",
    )
    workers: int = Field(1, ge=1, description="Threads running verification jobs.")
    contest_workers: int = Field(
        1, ge=1, description="Threads running revisions (each with its own agent backend)."
    )
    auth_token_env: str = Field(
        "SEMV_AUTH_TOKEN",
        description="Environment variable holding reviewer tokens (`NAME:TOKEN` or `TOKEN`, "
        "comma-separated); when set, every write needs one.",
    )
    poll_interval_s: float = Field(
        0.25, gt=0.0, description="How often the progress stream (SSE) checks a job."
    )
    max_jobs: int = Field(200, ge=1, description="Finished jobs kept in the job table.")
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description="Host names (or addresses) clients use to reach the server, besides "
        "127.0.0.1, localhost, ::1 and the --host address; a request with any other Host "
        'header is refused (400, DNS rebinding). "*" accepts every name.',
    )
    public_url: str | None = Field(
        None,
        description="The server's public base URL (https://semv.example.org), for the links "
        "it publishes (a ClaimReview's url); never taken from a request's Host header.",
    )
    trusted_proxies: list[str] = Field(
        default_factory=lambda: ["127.0.0.1", "::1"],
        description="Addresses of reverse proxies whose X-Forwarded-Proto and X-Forwarded-For "
        "are believed (Secure cookies behind HTTPS, the client address of login throttling).",
    )
    session_hours: float = Field(
        12.0, gt=0.0, description="How long a login session lasts, in hours."
    )
    login_attempts: int = Field(
        5, ge=1, description="Failed logins (or wrong bearer tokens) allowed per client address."
    )
    login_window_s: float = Field(
        300.0, gt=0.0, description="The window of login_attempts, in seconds (then 429)."
    )
    pdf_concurrency: int = Field(
        2, ge=1, description="PDF reports printed at once by headless Chromium (then 503)."
    )
