"""The interactive API page (``/docs``) served entirely by this server, so it renders under the
server's own Content-Security-Policy (``script-src 'self'``) and with no network.

Swagger UI's assets come from the ``swagger-ui-bundle-v2`` package (Swagger UI 5, which reads
FastAPI's OpenAPI 3.1 document; Apache-2.0, like semv; its licence ships in the package) and are
served under ``/docs/assets/``; the page has no inline script — Swagger UI is started by
``/static/api-docs.js``. FastAPI's own ``/docs`` and ``/redoc`` load their scripts from a CDN
and start them inline, which that policy blocks, so they are switched off (``create_app``).
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

__all__ = ["ASSETS_PATH", "DOCS_PAGE", "add_api_docs"]

ASSETS_PATH = "/docs/assets"
DOCS_PAGE = f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>semv API</title>
<link rel="stylesheet" href="{ASSETS_PATH}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="{ASSETS_PATH}/swagger-ui-bundle.js"></script>
<script src="/static/api-docs.js"></script>
</body>
</html>
"""


def add_api_docs(app: FastAPI) -> None:
    """Serve ``/docs`` and its assets on ``app`` (created with ``docs_url=None``)."""
    from swagger_ui_bundle import swagger_ui_path

    app.mount(ASSETS_PATH, StaticFiles(directory=str(swagger_ui_path)), name="api-docs-assets")

    @app.get("/docs", include_in_schema=False)
    async def api_docs() -> HTMLResponse:
        return HTMLResponse(DOCS_PAGE)
