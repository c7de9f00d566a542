"""What one server holds: settings, the store, the workers, auth, templates, folders, the PDF
printer."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fastapi import Request
from fastapi.templating import Jinja2Templates

from semv.config import Settings
from semv.store import Store
from semv.web._auth import Auth
from semv.web._jobs import Workers
from semv.web._print import PdfPrinter

__all__ = ["WebState", "web_state"]


@dataclass
class WebState:
    settings: Settings
    store: Store
    workers: Workers
    auth: Auth
    templates: Jinja2Templates
    data_dir: Path
    reports_dir: Path
    printer: PdfPrinter

    @property
    def uploads(self) -> Path:
        return self.data_dir / "uploads"


def web_state(request: Request) -> WebState:
    state: WebState = request.app.state.web
    return state
