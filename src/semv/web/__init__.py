"""The reviewer web UI and REST API (``semv serve``; A-QBAF MV2026 §2.6.2).

``create_app(data_dir, settings=..., tokens=[...])`` returns the FastAPI application:

* ``/api/...``: submit a case (zip or files; validated like ``semv verify``), follow its job
  (polling or server-sent events), list runs, read a run's result, report, trace, stage nodes,
  argument graphs and history, submit a review batch and get the revision with its diff, and
  read memory banks (read-only). OpenAPI at ``/openapi.json``, interactive docs at ``/docs``.
* ``/`` and ``/runs/<id>``: the case list and the reviewer's case page.

Module map: ``_upload`` (safe unpacking and validation), ``_jobs`` (background verification
and revision threads), ``_auth`` (tokens, sessions, CSRF), ``_views`` (read models from the
store), ``_svg`` (argument graph drawing), ``_api`` and ``_pages`` (routes), ``_app``.
"""

from semv.web._app import create_app
from semv.web._print import print_html

__all__ = ["create_app", "print_html"]
